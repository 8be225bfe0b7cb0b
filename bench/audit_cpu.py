"""Benchmark: the audit's CPU seconds (index, verify) on the verify_scaling corpora, and a digest of its verdicts.

Wall seconds on a shared machine say more about the neighbours than about the code; the process's own CPU
time (`time.process_time`) moves far less with load, so two commits run in the same minutes compare by it.
The digest is the sha256 of every claim's `verify_claim` result as JSON (verdict, evidence spans, notes): two
commits that print the same digest gave every claim the same answer.
Run: .venv/bin/python bench/audit_cpu.py [--sizes 1,10] [--claims 1000] [--units N]
`--units N` audits the claims in N units over overlapping files, as a cascade does (one index a unit, one
`IndexCache` and one `FileStore` for the audit): the first unit holds every file, each other unit the first file
and every (N-1)-th file after it, so a file stands in two units or more; every claim is verified in every unit.
(for a base commit: `git archive BASE | tar -x -C /tmp/base` and `PYTHONPATH=/tmp/base` with the same command)
"""

from __future__ import annotations

import argparse
import hashlib
import time

import verify_scaling  # beside this script: the corpora and claims of the scaling bench, generated once

from pytest_auditfence.fence import Fence, Source
from pytest_auditfence.verify import IndexCache, SourceIndex, verify_claim
from pytest_auditfence.verify.sources import expected_lookups


def unit_sources(sources: list[Source], units: int) -> list[list[Source]]:
    """The files of each of `units` audit units: every file, then the first file with every (units-1)-th other."""
    if units < 1:
        raise ValueError(f"--units {units}: give 1 or more units (1 = one index over every file)")
    others = [[sources[0]] + [s for n, s in enumerate(sources[1:], 1) if (n - 1) % (units - 1) == k]
              for k in range(units - 1)]
    return [list(sources), *others]


def audit(size_mb: int, count: int, expect: bool = True, units: int = 1
          ) -> tuple[float, float, dict[str, int], str]:
    root, sources = verify_scaling.corpus(size_mb)
    document, records = verify_scaling.claims(root, sources, count)
    started = time.process_time()
    # the claims' figures are known before the files are read, as in the cascade audit (`expected_lookups`)
    expected = expected_lookups(q for record in records for q in record.quantities) if expect else None
    cache, store = IndexCache(), None
    pairs = []
    for n, unit in enumerate(unit_sources(sources, units)):
        fence = Fence(root, unit, document, name="bench" if units == 1 else f"bench unit {n}", store=store)
        store = fence.store  # one store for the audit: each file read from disk once
        pairs.append((fence, SourceIndex.build(root, unit, cache=cache, store=store, expected=expected)))
    built = time.process_time()
    digest = hashlib.sha256()
    verdicts: dict[str, int] = {}
    for fence, index in pairs:
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
    parser.add_argument("--units", type=int, default=1,
                        help="audit units over overlapping files, each claim verified in each (as a cascade)")
    args = parser.parse_args(argv)
    for size in (int(s) for s in args.sizes.split(",")):
        index_s, verify_s, verdicts, digest = audit(size, args.claims, not args.no_expect, args.units)
        counts = ", ".join(f"{k} {v}" for k, v in sorted(verdicts.items()))
        print(f"{size:>4} MB  index cpu {index_s:7.2f} s  verify cpu {verify_s:7.2f} s  {counts}  digest {digest[:16]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
