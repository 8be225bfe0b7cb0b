"""Fabrications made from true summaries: each figure of a consistent SummEdits summary swapped for another figure
of the same earnings call, of the same kind and unit (another subject or another period of the same call), and
audited as the report. A swapped summary that comes out without a flag is a fabrication passing.

    .venv/bin/python eval/summedits_swaps.py                 # tuning calls: pass rate, and each pass listed
    .venv/bin/python eval/summedits_swaps.py --split held_out --quiet   # held-out: counted only, never read

The swaps are the figures nearest to where the summary's own figure stands in the transcript (the hard cases:
the same sentence or line, another subject or period), at most --per-figure of them per figure. A swap whose
value equals the true figure's at the precision shown is no fabrication and is left out; so is a figure the
summary states elsewhere.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import run_eval  # noqa: E402  (eval/run_eval.py: the captured pipeline and the data readers)

from pytest_auditfence.claims.quantities import parse_quantities, quantities_match  # noqa: E402
from pytest_auditfence.verify.normalise import is_weak  # noqa: E402


def _distance_class(doc: str, a: int, b: int) -> str:
    """'line' when the two figures stand on one line of the transcript, 'near' within two lines, else 'far'."""
    lo, hi = sorted((a, b))
    breaks = doc.count("\n", lo, hi)
    return "line" if breaks == 0 else "near" if breaks <= 2 else "far"


def swaps(row: dict[str, Any], per_figure: int) -> list[dict[str, Any]]:
    """The swapped summaries of one consistent row: (figure, replacement, distance class, new summary)."""
    summary, doc = row["response"], row["passages"][0]
    own = parse_quantities(summary)
    found = [q for q in parse_quantities(doc) if not is_weak(q)]
    out = []
    for q in own:
        if is_weak(q) or q.kind in ("date", "year"):
            continue
        homes = [o for o in found if quantities_match(q, o)]
        if not homes:
            continue  # the true figure is not read in the transcript as written: no place to measure from
        home = homes[0].start
        seen: set[str] = set()
        ranked = sorted(found, key=lambda o: (abs(o.start - home), o.start))
        for o in ranked:
            if len(seen) >= per_figure:
                break
            if (o.kind, o.unit) != (q.kind, q.unit) or o.text in seen or o.text.strip() == q.text.strip():
                continue
            if any(quantities_match(p, o) or quantities_match(o, p) for p in own):
                continue  # the same value as a figure the summary states: no fabrication
            seen.add(o.text)
            edited = summary[:q.start] + o.text + summary[q.end:]
            out.append({"id": row["id"], "figure": q.text, "swap": o.text,
                        "where": _distance_class(doc, home, o.start), "summary": edited})
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=run_eval.DEFAULT_DATA)
    parser.add_argument("--split", choices=("tuning", "held_out"), default="tuning")
    parser.add_argument("--per-figure", type=int, default=3, help="swaps per figure of a summary, nearest first")
    parser.add_argument("--limit", type=int, default=None, help="only the first N consistent summaries")
    parser.add_argument("--quiet", action="store_true", help="counts only (the held-out split is never listed)")
    parser.add_argument("--json", type=Path, default=None, help="also write the counts as JSON here")
    args = parser.parse_args(argv)
    rows = [r for r in run_eval.summedits_rows(args.data, None, args.split) if r["label"] == 1]
    rows = rows[:args.limit] if args.limit else rows
    made = [s for r in rows for s in swaps(r, args.per_figure)]
    docs = {r["id"]: r["passages"] for r in rows}
    total: Counter[str] = Counter()
    passed: Counter[str] = Counter()
    how: Counter[str] = Counter()
    listed = args.split == "tuning" and not args.quiet
    for s in made:
        result = run_eval.audit_one("Summarize the earnings call.", docs[s["id"]], s["summary"])
        flagged = any(c["hallucination"] for c in result["claims"])
        total[s["where"]] += 1
        if flagged:
            continue
        passed[s["where"]] += 1
        verdicts = sorted({c["verdict"] for c in result["claims"]})
        how["+".join(verdicts)] += 1
        if listed:
            notes = [n for c in result["claims"] for n in c["notes"] if s["swap"] in n or s["figure"] in n]
            print(f"[passed] {s['id']} ({s['where']}) {s['figure']!r} -> {s['swap']!r}: {verdicts}\n"
                  f"    {s['summary']!r}\n    notes: {notes}")
    report = {
        "split": args.split, "summaries": len(rows), "swaps": sum(total.values()),
        "passed": sum(passed.values()), "pass_rate": sum(passed.values()) / max(1, sum(total.values())),
        "by_distance": {k: f"{passed[k]} / {total[k]}" for k in ("line", "near", "far")},
        "passed_verdicts": dict(sorted(how.items())),
    }
    print(json.dumps(report, indent=2))
    if args.json:
        args.json.write_text(json.dumps(report, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
