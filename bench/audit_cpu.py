"""Benchmark: the audit's CPU seconds (index, verify) on the verify_scaling corpora, and a digest of its verdicts.

Wall seconds on a shared machine say more about the neighbours than about the code; the process's own CPU
time (`time.process_time`) moves far less with load, so two commits run in the same minutes compare by it.
The digest is the sha256 of every claim's `verify_claim` result as JSON (verdict, evidence spans, notes): two
commits that print the same digest gave every claim the same answer.
Run: .venv/bin/python bench/audit_cpu.py [--sizes 1,10] [--claims 1000]
(for a base commit: `git archive BASE | tar -x -C /tmp/base` and `PYTHONPATH=/tmp/base` with the same command)
"""

from __future__ import annotations

import argparse
import hashlib
import time

import verify_scaling  # beside this script: the corpora and claims of the scaling bench, generated once

from pytest_auditfence.fence import Fence
from pytest_auditfence.verify import IndexCache, SourceIndex, verify_claim
from pytest_auditfence.verify.sources import expected_lookups


def audit(size_mb: int, count: int, expect: bool = True) -> tuple[float, float, dict[str, int], str]:
    root, sources = verify_scaling.corpus(size_mb)
    document, records = verify_scaling.claims(root, sources, count)
    started = time.process_time()
    fence = Fence(root, sources, document, name="bench")
    # the claims' figures are known before the files are read, as in the cascade audit (`expected_lookups`)
    expected = expected_lookups(q for record in records for q in record.quantities) if expect else None
    index = SourceIndex.build(root, sources, cache=IndexCache(), store=fence.store, expected=expected)
    built = time.process_time()
    digest = hashlib.sha256()
    verdicts: dict[str, int] = {}
    for record in records:
        result = verify_claim(record, fence, index)
        verdicts[result.verdict.value] = verdicts.get(result.verdict.value, 0) + 1
        digest.update(result.model_dump_json().encode())
    done = time.process_time()
    return built - started, done - built, verdicts, digest.hexdigest()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1,10", help="corpus sizes in MB, comma-separated")
    parser.add_argument("--claims", type=int, default=1000, help="claims verified per corpus")
    parser.add_argument("--no-expect", action="store_true",
                        help="build the index without the claims' expected lookups (as before stop 31)")
    args = parser.parse_args(argv)
    for size in (int(s) for s in args.sizes.split(",")):
        index_s, verify_s, verdicts, digest = audit(size, args.claims, not args.no_expect)
        counts = ", ".join(f"{k} {v}" for k, v in sorted(verdicts.items()))
        print(f"{size:>4} MB  index cpu {index_s:7.2f} s  verify cpu {verify_s:7.2f} s  {counts}  digest {digest[:16]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
