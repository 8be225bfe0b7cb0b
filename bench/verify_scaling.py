"""Benchmark: claims verified per second against 1, 10 and 100 MB trace corpora, next to ripgrep per atom.

Generates synthetic financial tool outputs under bench/out/ (deterministic seed), verifies the same claims
with the in-process verifier and with the naive approach of spawning `rg` once per atom (seed 000), and
prints one table with the ratios. Next to it: the audit's read rate (corpus MB over index + verify seconds),
its cost as a multiple of one `rg` pass over the whole folder (a fixed-string count, which reads every
byte), and its peak memory as a multiple of the text it reads (the growth of the resident set's high-water
mark, `VmHWM`, of a child process that runs only the audit; `--no-memory` skips it; `--heap` adds the peak
of the Python heap the audit allocates, by tracemalloc in another child, and both as a slope between the
smallest and the largest corpus, where the fixed part cancels out).
Run: .venv/bin/python bench/verify_scaling.py [--sizes 1,10,100] [--claims 1000]
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

from pytest_auditfence.claims.quantities import parse_quantities
from pytest_auditfence.fence import Fence, Source, find_ripgrep
from pytest_auditfence.models import ClaimRecord, Verdict
from pytest_auditfence.verify import IndexCache, SourceIndex, verify_claim
from pytest_auditfence.verify.sources import expected_lookups

OUT = Path(__file__).parent / "out"
SEED = 20240611
FILE_BYTES = 64 * 1024
METRICS = ["Revenue", "Cost of revenue", "Gross profit", "Operating income", "Net income",
           "Research and development", "Operating cash flow", "Capital expenditures", "Free cash flow"]
WORDS = ("the company said demand for its products remained strong across regions while supply "
         "constraints eased and management reiterated guidance for the coming quarters").split()


def _tool_output(rng: random.Random, ticker: str, n: int) -> str:
    """One tool call as the trace renderer writes it: header, a table in millions, prose, price rows."""
    parts = [f"tool: get_financials\nargs: ticker={ticker} call={n}\n\nIncome statement (in millions)\n",
             "| Item | FY2024 | FY2023 | FY2022 |\n|---|---|---|---|\n"]
    for metric in METRICS:
        values = [rng.randint(1_000, 400_000) for _ in range(3)]
        parts.append(f"| {metric} | " + " | ".join(f"{v:,}" for v in values) + " |\n")
    parts.append("\n")
    while sum(map(len, parts)) < FILE_BYTES:
        kind = rng.random()
        if kind < 0.5:
            words = " ".join(rng.choice(WORDS) for _ in range(rng.randint(8, 20)))
            parts.append(f"news: {ticker} {words}; margin was {rng.uniform(20, 70):.1f}% and backlog "
                         f"reached ${rng.uniform(1, 90):.1f} billion.\n")
        else:
            parts.append(f"price: 2024-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d} close "
                         f"{rng.uniform(10, 900):.2f} volume {rng.randint(100_000, 90_000_000):,}\n")
    return "".join(parts)


def corpus(size_mb: int) -> tuple[Path, list[Source]]:
    """The corpus of `size_mb` megabytes, generated once (deterministic) and reused afterwards."""
    root = OUT / f"corpus_{size_mb}mb"
    files = max(1, size_mb * 1024 * 1024 // FILE_BYTES)
    done = root / ".complete"
    if not done.exists():
        rng = random.Random(SEED)
        (root / "tools").mkdir(parents=True, exist_ok=True)
        for n in range(files):
            ticker = f"T{n % 97:02d}"
            (root / "tools" / f"{n:05d}_get_financials.txt").write_text(_tool_output(rng, ticker, n), encoding="utf-8")
        done.write_text("ok\n")
    sources = [Source.from_file(root, f"tools/{n:05d}_get_financials.txt", node="financials", kind="tool_call",
                                label="get_financials") for n in range(files)]
    return root, sources


def claims(root: Path, sources: list[Source], count: int) -> tuple[str, list[ClaimRecord]]:
    """Claims about figures of the corpus's first file: true, rescaled, derived and fabricated."""
    rng = random.Random(SEED + 1)
    rows = {}
    for line in (root / sources[0].path).read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) == 4 and cells[0] in METRICS:
            rows[cells[0]] = [int(c.replace(",", "")) for c in cells[1:]]
    sentences = []
    for i in range(count):
        metric = METRICS[i % len(METRICS)]
        now, before = rows[metric][0], rows[metric][1]
        style = i % 4
        if style == 0:
            sentences.append(f"{metric} was ${now:,} million in FY2024.")
        elif style == 1:
            sentences.append(f"{metric} was ${now / 1000:.1f} billion in FY2024.")
        elif style == 2:
            sentences.append(f"{metric} changed {(now - before) / before * 100:.1f}% in FY2024.")
        else:
            sentences.append(f"{metric} was ${rng.randint(1, 400) + 0.37:.2f} billion in FY2024.")
    document = "\n".join(sentences) + "\n"
    records, pos = [], 0
    for i, sentence in enumerate(sentences):
        start = document.index(sentence, pos)
        pos = start + len(sentence)
        records.append(ClaimRecord(id=f"c{i:04d}", claim=sentence, start=start, end=pos,
                                   quantities=parse_quantities(sentence, offset=start)))
    return document, records


def run_ours(root: Path, sources: list[Source], document: str, records: list[ClaimRecord]) -> dict[str, float]:
    started = time.perf_counter()
    fence = Fence(root, sources, document, name="bench")
    # the claims' figures are known before the files are read, as in the cascade audit (`expected_lookups`)
    expected = expected_lookups(q for record in records for q in record.quantities)
    index = SourceIndex.build(root, sources, cache=IndexCache(), store=fence.store, expected=expected)
    built = time.perf_counter()
    verdicts: dict[str, int] = {}
    for record in records:
        verdict = verify_claim(record, fence, index).verdict
        verdicts[verdict.value] = verdicts.get(verdict.value, 0) + 1
    done = time.perf_counter()
    covered = verdicts.get(Verdict.VERIFIED.value, 0) + verdicts.get(Verdict.DERIVED.value, 0)
    return {"index_s": built - started, "verify_s": done - built, "covered": covered, "verdicts": verdicts}


def corpus_bytes(root: Path, sources: list[Source]) -> int:
    return sum((root / s.path).stat().st_size for s in sources)


def run_rg_scan(root: Path, repeats: int = 3) -> float:
    """One `rg` process over the whole folder, counting a fixed string that every file holds: it reads every
    byte. The fastest of `repeats` runs (the folder is in the page cache, as it is for the audit)."""
    rg = find_ripgrep()
    best = float("inf")
    for _ in range(repeats):
        started = time.perf_counter()
        subprocess.run([rg, "--fixed-strings", "--count-matches", "--no-config", "--", "Revenue", str(root / "tools")],
                       capture_output=True, check=True)
        best = min(best, time.perf_counter() - started)
    return best


def run_memory(size: int, count: int, heap: bool = False) -> int:
    """Peak memory of the audit alone: a child process builds the claims, notes its resident high-water mark,
    runs index + verify, and reports how far the mark rose (bytes): `VmHWM` after the mark is reset to the current
    `VmRSS` through /proc/self/clear_refs, or `ru_maxrss` where /proc is not there. With `heap`, another child
    reports instead the peak of the Python heap allocated during the audit (tracemalloc, started after the
    claims are built: what the audit allocates and holds at its worst moment, without the allocator's slack)."""
    out = subprocess.run([sys.executable, __file__, "--memory-child", f"{size},{count},{int(heap)}"],
                         capture_output=True, text=True, check=True)
    return int(json.loads(out.stdout.strip().splitlines()[-1])["heap_peak" if heap else "rss_growth"])


def _status_kib(field: str) -> int | None:
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1])
    except OSError:
        return None
    return None


def _memory_child(spec: str) -> int:
    size, count, heap = (int(x) for x in spec.split(","))
    root, sources = corpus(size)
    document, records = claims(root, sources, count)
    if heap:
        tracemalloc.start()
        run_ours(root, sources, document, records)
        print(json.dumps({"heap_peak": tracemalloc.get_traced_memory()[1]}))
        return 0
    try:
        # reset the high-water mark to the current resident set (Linux): a forked child inherits its parent's
        Path("/proc/self/clear_refs").write_text("5")
        before = _status_kib("VmRSS")
    except OSError:
        before = None
    if before is None:
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    run_ours(root, sources, document, records)
    after = _status_kib("VmHWM") or resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"rss_growth": (after - before) * 1024}))  # KiB on Linux
    return 0


def run_naive(root: Path, records: list[ClaimRecord]) -> float:
    """Seed 000's way: one ripgrep process per atom, over the whole corpus, literal text as written."""
    rg = find_ripgrep()
    started = time.perf_counter()
    for record in records:
        for q in record.quantities:
            subprocess.run([rg, "--fixed-strings", "--line-number", "--no-config", "--", q.text, str(root / "tools")],
                           capture_output=True, check=False)
    return time.perf_counter() - started


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1,10,100", help="corpus sizes in MB, comma-separated")
    parser.add_argument("--claims", type=int, default=200, help="claims verified per corpus")
    parser.add_argument("--naive-claims", type=int, default=40, help="claims timed with rg per atom")
    parser.add_argument("--no-memory", action="store_true", help="skip the peak-memory child process")
    parser.add_argument("--heap", action="store_true",
                        help="also measure the audit's Python heap peak (tracemalloc; a child that runs 2-4x slower)")
    parser.add_argument("--memory-child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.memory_child:
        return _memory_child(args.memory_child)
    rows = []
    for size in (int(s) for s in args.sizes.split(",")):
        root, sources = corpus(size)
        document, records = claims(root, sources, args.claims)
        ours = run_ours(root, sources, document, records)
        naive_s = run_naive(root, records[: args.naive_claims])
        ours["bytes"] = corpus_bytes(root, sources)
        ours["rg_scan_s"] = run_rg_scan(root)
        ours["memory"] = None if args.no_memory else run_memory(size, args.claims)
        ours["heap"] = run_memory(size, args.claims, heap=True) if args.heap else None
        rows.append((size, len(sources), ours, args.naive_claims / naive_s))
        print(f"  {size} MB done: {dict(sorted(ours['verdicts'].items()))}", file=sys.stderr)
    print(f"{'corpus':>7} {'files':>6} {'index s':>8} {'verify s':>9} {'claims/s':>9} {'claims/s':>10}"
          f" {'rg/atom':>9} {'ratio':>7} {'ratio':>7}")
    print(f"{'':>7} {'':>6} {'':>8} {'':>9} {'verify':>9} {'idx+verify':>10} {'claims/s':>9} {'verify':>7} {'total':>7}")
    for size, files, ours, naive_rate in rows:
        n = args.claims
        verify_rate = n / ours["verify_s"]
        total_rate = n / (ours["index_s"] + ours["verify_s"])
        print(f"{size:>5}MB {files:>6} {ours['index_s']:>8.2f} {ours['verify_s']:>9.3f} {verify_rate:>9.0f} "
              f"{total_rate:>10.1f} {naive_rate:>9.1f} {verify_rate / naive_rate:>6.0f}x {total_rate / naive_rate:>6.1f}x")
    print(f"\n{'corpus':>7} {'MB':>7} {'MB/s':>6} {'rg scan s':>9} {'audit/rg':>9} {'peak MB':>8} {'peak/text':>9}"
          f" {'heap MB':>8} {'heap/text':>9}")

    def ratio(memory: int | None, text: int) -> str:
        return f"{memory / 1e6:>8.1f} {memory / text:>8.2f}x" if memory is not None else f"{'-':>8} {'-':>9}"

    for size, _, ours, _ in rows:
        mb = ours["bytes"] / 1e6
        audit_s = ours["index_s"] + ours["verify_s"]
        print(f"{size:>5}MB {mb:>7.2f} {mb / audit_s:>6.2f} {ours['rg_scan_s']:>9.3f} "
              f"{audit_s / ours['rg_scan_s']:>8.0f}x {ratio(ours['memory'], ours['bytes'])} "
              f"{ratio(ours['heap'], ours['bytes'])}")
    print("(audit = index + verify of the claims; rg scan = one rg process reading the whole folder; peak = growth"
          " of VmHWM of a child running only the audit, over the corpus's bytes; heap = tracemalloc's peak of what"
          " the audit allocated, --heap)")
    for label, field in (("peak", "memory"), ("heap", "heap")):
        measured = [(ours["bytes"], ours[field]) for _, _, ours, _ in rows if ours[field] is not None]
        # the fixed part (imports, compiled patterns) cancels out of the slope; with three sizes or more, the slope
        # between the last two as well: the bounded memos (4,096 entries each) fill between 1 and 10 MB, so that
        # one is what grows with the text alone
        pairs = [(measured[0], measured[-1])] if len(measured) > 1 else []
        if len(measured) > 2:
            pairs.append((measured[-2], measured[-1]))
        for (b0, m0), (b1, m1) in pairs:
            print(f"{label} per further byte of text ({b0 / 1e6:.1f} -> {b1 / 1e6:.1f} MB): "
                  f"{(m1 - m0) / (b1 - b0):.2f}x")
    if len(rows) > 1:
        base = rows[0]
        print("\nscaling against the smallest corpus (1.0 = linear in corpus size):")
        for size, _, ours, _ in rows[1:]:
            growth = size / base[0]
            index_growth = ours["index_s"] / base[2]["index_s"]
            verify_growth = ours["verify_s"] / base[2]["verify_s"]
            print(f"  {size} MB is {growth:.0f}x the corpus: index cost {index_growth:.1f}x "
                  f"({index_growth / growth:.2f} of linear), verify cost {verify_growth:.1f}x "
                  f"({verify_growth / growth:.2f} of linear)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
