"""Parser check on public labelled data: quantity-span recall (RAGTruth-QA), changed-number recall
(SummEdits ECTSum), crash-free runs and parse throughput. Reads the data in place, never copies it.

    .venv/bin/python eval/parser_check.py [--data ../shared/data]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from pytest_auditfence.claims.extract import extract_claims  # noqa: E402
from pytest_auditfence.claims.quantities import (  # noqa: E402
    QuantityScanner,
    parse_quantities,
    quantities_match,
)

# Digits that are list structure or citations, not figures: "2. Open ...", "Step 3", "passage 1",
# "[2]". Written here independently of the parser, to split the recall figure honestly.
_STRUCTURAL_DIGITS = re.compile(
    r"(?im)^[ \t]*(?:[-*•][ \t]*)?\(?\d{1,2}[.):](?=\s)|\b(?:step|passages?|tip|option|method|way|reason)\s+\d+"
    r"(?:\s*(?:,|and|or|-|to)\s*\d+)*|\[\d+\]"
)

# The brief's other non-quantities, again written independently of the parser: years, dates, times
# of day, phone numbers, versions and IP addresses, ordinals, labels ("Type 2", "chapter 3") and
# codes with letters glued to digits ("A1", "P60", "MP3", "IPv4", "Omega-3").
_MONTH = r"(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]*\.?"
_NON_QUANTITY_DIGITS = re.compile(
    "|".join(
        [
            rf"\b{_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?(?:,?\s+\d{{4}})?|\b\d{{1,2}}\s+{_MONTH}",
            r"\b(?:1[89]|20)\d{2}'?s?\b",
            r"\b\d{1,2}:\d{2}\b|\b\d{1,2}\s?[ap]\.?m\b",
            r"\b(?:\d[\s-])?\d{3}-\d{3}-\d{4}\b",
            r"\b\d+(?:\.\d+){2,}\b",
            r"\b\d+(?:st|nd|rd|th)\b",
            r"(?i:\b(?:steps?|types?|chapters?|methods?|numbers?|options?|versions?|windows|excel|outlook|iphone|"
            r"tips?|parts?|phases?|levels?|stages?)\s+\d+(?:\s*(?:,|and|or|-|to|through)\s*\d+)*)",
            r"\b[A-Za-z]+-?\d+\w*",
            r"\(\d\)",
        ]
    )
)


def _overlaps(a0: int, a1: int, b0: int, b1: int) -> bool:
    return a0 < b1 and b0 < a1


def ragtruth(data: Path) -> dict[str, object]:
    responses = [json.loads(line) for line in (data / "ragtruth-qa-train" / "responses.jsonl").open(encoding="utf-8")]
    sources = [json.loads(line) for line in (data / "ragtruth-qa-train" / "sources.jsonl").open(encoding="utf-8")]
    spans_with_digit = 0
    caught = 0
    quantity_spans = 0  # spans with a digit left after removing list/citation digits
    quantity_caught = 0
    figure_spans = 0  # spans with a digit left after also removing the brief's other non-quantities
    figure_caught = 0
    misses: Counter[str] = Counter()
    crashes: list[str] = []
    claims_total = 0
    t0 = time.perf_counter()
    for r in responses:
        text = r["response"]
        try:
            found = parse_quantities(text)
            claims_total += len(extract_claims(text))
        except Exception as exc:  # noqa: BLE001 - the check counts crashes instead of stopping
            crashes.append(f"response {r['id']}: {exc!r}")
            continue
        for label in r["labels"]:
            s, e = label["start"], label["end"]
            span = text[s:e]
            if not re.search(r"\d", span):
                continue
            spans_with_digit += 1
            hit = any(_overlaps(q.start, q.end, s, e) for q in found)
            caught += hit
            rest = _STRUCTURAL_DIGITS.sub(" ", span)
            if re.search(r"\d", rest):
                quantity_spans += 1
                quantity_caught += hit
            if re.search(r"\d", _NON_QUANTITY_DIGITS.sub(" ", rest)):
                figure_spans += 1
                figure_caught += hit
                if not hit:
                    misses[span[:80]] += 1
    response_seconds = time.perf_counter() - t0

    passages = [s["source_info"]["passages"] for s in sources]
    passage_bytes = sum(len(p.encode("utf-8")) for p in passages)
    found_in_passages = 0
    t0 = time.perf_counter()
    for sid, p in zip((s["source_id"] for s in sources), passages):
        try:
            found_in_passages += len(parse_quantities(p))
        except Exception as exc:  # noqa: BLE001
            crashes.append(f"source {sid}: {exc!r}")
    parse_seconds = time.perf_counter() - t0
    t0 = time.perf_counter()
    scanned = sum(len(QuantityScanner().scan(p)) for p in passages)
    scan_seconds = time.perf_counter() - t0
    return {
        "responses": len(responses),
        "claims extracted": claims_total,
        "response pass seconds": response_seconds,
        "labelled spans with a digit": spans_with_digit,
        "  overlapping a parsed quantity": caught,
        "  recall": caught / spans_with_digit if spans_with_digit else 1.0,
        "spans with a digit beyond list/citation digits": quantity_spans,
        "  overlapping a parsed quantity ": quantity_caught,
        "  recall ": quantity_caught / quantity_spans if quantity_spans else 1.0,
        "spans with a digit beyond all listed non-quantities": figure_spans,
        "  overlapping a parsed quantity  ": figure_caught,
        "  recall  ": figure_caught / figure_spans if figure_spans else 1.0,
        "source passages": len(passages),
        "passage MB": passage_bytes / 1e6,
        "quantities in passages": found_in_passages,
        "parse_quantities MB/s": passage_bytes / 1e6 / parse_seconds,
        "QuantityScanner MB/s": passage_bytes / 1e6 / scan_seconds,
        "scanner quantities": scanned,
        "crashes": len(crashes),
        "_crash_list": crashes[:10],
        "_misses": misses.most_common(15),
    }


_NUMBER_TOKEN = re.compile(r"\d+(?:[.,]\d+)*")
_PERIOD = re.compile(r"(?:Q[1-4]|[1-4]Q|H[12]|FY)?\s?(?:(?:19|20)\d{2}|\d)?")


def _token_around(text: str, start: int, end: int) -> str:
    """The changed number with the letters glued to it ("Q3", "1Q", "2020")."""
    while start > 0 and text[start - 1].isalnum():
        start -= 1
    while end < len(text) and text[end].isalnum():
        end += 1
    return text[start:end]


def summedits(data: Path) -> dict[str, object]:
    rows = json.loads((data / "summedits-ectsum" / "summedits_ectsum.json").read_text(encoding="utf-8"))
    numeric_edits = 0
    period_edits = 0
    period_found = 0
    found = 0
    distinct = 0
    absent_from_doc = 0
    consistent_numbers = 0
    consistent_backed = 0
    for row in rows:
        summary, original = row["summary"], row["original_summary"]
        if row["label"] == 1 and summary == original:
            doc_q = parse_quantities(row["doc"])
            for q in parse_quantities(summary):
                consistent_numbers += 1
                consistent_backed += any(quantities_match(q, o) for o in doc_q)
        if summary == original:
            continue
        before = Counter(m.group(0) for m in _NUMBER_TOKEN.finditer(original))
        changed = []
        for m in _NUMBER_TOKEN.finditer(summary):
            if before[m.group(0)] > 0:
                before[m.group(0)] -= 1
            else:
                changed.append(m.span())
        if not changed:
            continue
        numeric_edits += 1
        summary_q = parse_quantities(summary)
        hit = [q for q in summary_q if any(_overlaps(q.start, q.end, s, e) for s, e in changed)]
        if all(_PERIOD.fullmatch(_token_around(summary, s, e)) for s, e in changed):
            period_edits += 1  # a changed year or quarter: not a quantity by the brief's rules
            period_found += bool(hit)
        if hit:
            found += 1
            original_q = parse_quantities(original)
            if any(not any(quantities_match(q, o) for o in original_q) for q in hit):
                distinct += 1
            doc_q = parse_quantities(row["doc"])
            if any(not any(quantities_match(q, o) for o in doc_q) for q in hit):
                absent_from_doc += 1
    return {
        "rows": len(rows),
        "numeric edits": numeric_edits,
        "  changed number parsed": found,
        "  recall": found / numeric_edits if numeric_edits else 1.0,
        "  of which only a year/quarter changed": period_edits,
        "numeric edits of a figure (not a year/quarter)": numeric_edits - period_edits,
        "  changed figure parsed": found - period_found,
        "  recall ": (found - period_found) / (numeric_edits - period_edits) if numeric_edits > period_edits else 1.0,
        "  changed value differs from the original's (quantities_match)": distinct,
        "  changed value absent from the transcript": absent_from_doc,
        "unedited consistent summaries: quantities": consistent_numbers,
        "  backed by a transcript quantity": consistent_backed,
        "  fraction backed": consistent_backed / consistent_numbers if consistent_numbers else 1.0,
    }


def _print_table(title: str, rows: dict[str, object]) -> None:
    print(f"\n{title}")
    width = max(len(k) for k in rows if not k.startswith("_"))
    for key, value in rows.items():
        if key.startswith("_"):
            continue
        shown = f"{value:.3f}" if isinstance(value, float) else str(value)
        print(f"  {key.ljust(width)}  {shown}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared" / "data",
                        help="folder holding ragtruth-qa-train/ and summedits-ectsum/ (default ../shared/data)")
    parser.add_argument("--show-misses", action="store_true", help="list the most common missed spans")
    args = parser.parse_args(argv)
    if not (args.data / "ragtruth-qa-train" / "responses.jsonl").is_file():
        print(f"error: no ragtruth-qa-train/responses.jsonl under --data {args.data}; pass the shared data folder",
              file=sys.stderr)
        return 2
    rt = ragtruth(args.data)
    _print_table("RAGTruth-QA train (labelled hallucination spans vs parse_quantities)", rt)
    for line in rt["_crash_list"]:  # type: ignore[union-attr]
        print(f"  CRASH {line}")
    if args.show_misses:
        for span, count in rt["_misses"]:  # type: ignore[union-attr]
            print(f"  miss x{count}: {span!r}")
    _print_table("SummEdits ECTSum (summary vs original_summary)", summedits(args.data))
    return 1 if rt["crashes"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
