"""Measure the deterministic verifier on public labelled data, through the public API.

Each source passage becomes a captured tool result of a real LangGraph run, the response becomes the
final report, and the cascade audit decides. Data is read from ../shared/data, never copied.

    .venv/bin/python eval/run_eval.py                      # both sets, every row
    .venv/bin/python eval/run_eval.py --limit 300 --jobs 2 # a quicker sample
    .venv/bin/python eval/run_eval.py --sets tatqa         # TAT-QA dev only (see eval/tatqa.py)
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
import tempfile
import time
from collections import Counter, defaultdict
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any, TypedDict

from langchain_core.runnables import RunnableConfig
from langchain_core.tools import tool
from langgraph.graph import END, START, StateGraph

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))  # eval/tatqa.py, imported by worker processes too
DEFAULT_DATA = REPO.parent / "shared" / "data"


# --------------------------------------------------------------------------------------------------
# the captured pipeline: retrieve (one tool call per passage) -> answer


class QAState(TypedDict, total=False):
    question: str
    passages: list[str]
    answer: str


def _build_app() -> Any:
    @tool
    def read_passage(n: int, config: RunnableConfig) -> str:
        """Fetch source passage number n."""
        return config["configurable"]["passages"][n - 1]

    def retrieve(state: QAState, config: RunnableConfig) -> QAState:
        count = len(config["configurable"]["passages"])
        return {"passages": [read_passage.invoke({"n": i}, config) for i in range(1, count + 1)]}

    def answer(state: QAState, config: RunnableConfig) -> QAState:
        return {"answer": config["configurable"]["response"]}

    graph = StateGraph(QAState)
    graph.add_node("retrieve", retrieve)
    graph.add_node("answer", answer)
    graph.add_edge(START, "retrieve")
    graph.add_edge("retrieve", "answer")
    graph.add_edge("answer", END)
    return graph.compile()


_APP: Any = None


def split_passages(passages: str) -> list[str]:
    """'passage 1:...\\n\\npassage 2:...' -> ['passage 1:...', 'passage 2:...'] (labels kept for citations)."""
    parts = re.split(r"(?=^passage \d+:)", passages.strip(), flags=re.MULTILINE)
    return [p.strip() for p in parts if p.strip()]


def audit_one(question: str, passages: list[str], response: str) -> dict[str, Any]:
    """Capture one run and audit its response; returns the flagged claims with spans and verdicts."""
    global _APP
    from pytest_auditfence import Snapshot
    from pytest_auditfence.audit.cascade import audit_cascade_sync

    if _APP is None:
        _APP = _build_app()
    with tempfile.TemporaryDirectory(prefix="auditfence-eval-") as tmp:
        snap = Snapshot(Path(tmp) / "trace")
        _APP.invoke({"question": question},
                    config=snap.config(configurable={"passages": passages, "response": response}))
        snap.set_report(response)
        snap.finalize()
        cascade = audit_cascade_sync(trace_dir=snap.trace_dir, final_document=response)
    claims = []
    for claim in cascade.claims:
        claims.append({
            "start": claim.start, "end": claim.end, "verdict": claim.verdict.value,
            "hallucination": cascade.policy.is_hallucination(claim.verdict),
            "check": _check_of(claim),
            "quantities": [(q.start, q.end) for q in claim.quantities],
            "quantity_texts": [q.text for q in claim.quantities if not _is_weak(q)],
            "text": claim.claim, "notes": claim.notes[-2:],
        })
    return {"claims": claims, "checkable": cascade.coverage.denominator}


def _is_weak(q: Any) -> bool:
    from pytest_auditfence.verify import _is_weak as weak

    return bool(weak(q))


def _check_of(claim: Any) -> str:
    """Which mechanical check a verdict came from (for the per-check breakdown)."""
    if claim.verdict.value == "misattributed":
        return "origin"
    if claim.quantities:
        return "quantity"
    if claim.quotes:
        return "quote"
    if claim.references:
        return "reference"
    return "none"


# --------------------------------------------------------------------------------------------------
# data sets


def ragtruth_rows(data: Path, limit: int | None) -> list[dict[str, Any]]:
    folder = data / "ragtruth-qa-train"
    sources = {}
    with (folder / "sources.jsonl").open(encoding="utf-8") as fh:
        for line in fh:
            row = json.loads(line)
            sources[row["source_id"]] = row
    rows = []
    with (folder / "responses.jsonl").open(encoding="utf-8") as fh:
        for line in fh:
            row = json.loads(line)
            src = sources[row["source_id"]]["source_info"]
            rows.append({
                "id": row["id"], "question": _instructions(sources[row["source_id"]]), "passages": split_passages(src["passages"]),
                "response": row["response"], "labels": row["labels"], "quality": row["quality"],
            })
    return rows[:limit] if limit else rows


def _instructions(source: dict[str, Any]) -> str:
    """The user's input of the run: the prompt's instructions and question without the passages
    (those reach the pipeline as tool results)."""
    info = source["source_info"]
    prompt = source.get("prompt") or info["question"]
    passages = info["passages"].strip()
    if passages and passages in prompt:
        return prompt.replace(passages, "[the passages are supplied by the read_passage tool]")
    return prompt


def summedits_split(row_id: str) -> str:
    """'tuning' or 'held_out' for a SummEdits row, by a sha256 of its transcript's id ('ectsum_OXY_q4_2021' of
    'ectsum_OXY_q4_2021_3'): every summary of one earnings call falls in one part, so nothing tuned on a call's
    edits is measured on another edit of the same call (22 calls: 389 rows tuning, 279 held out)."""
    call = row_id.rsplit("_", 1)[0]
    return "tuning" if int(hashlib.sha256(f"split\x1f{call}".encode()).hexdigest()[:12], 16) % 2 == 0 else "held_out"


def summedits_rows(data: Path, limit: int | None, split: str = "all") -> list[dict[str, Any]]:
    rows = json.loads((data / "summedits-ectsum" / "summedits_ectsum.json").read_text(encoding="utf-8"))
    out = [{
        "id": str(r["id"]), "question": "Summarize the earnings call.", "passages": [r["doc"]],
        "response": r["summary"], "label": r["label"], "original": r.get("original_summary") or "",
        "edit_types": r.get("edit_types") or [], "split": summedits_split(str(r["id"])),
    } for r in rows]
    out = [r for r in out if split == "all" or r["split"] == split]
    return out[:limit] if limit else out


def _run(row: dict[str, Any]) -> dict[str, Any]:
    try:
        return {"id": row["id"], **audit_one(row["question"], row["passages"], row["response"])}
    except Exception as exc:  # an engine crash is a finding of this evaluation, reported, never hidden
        return {"id": row["id"], "error": f"{type(exc).__name__}: {exc}", "claims": [], "checkable": 0}


def run_all(rows: list[dict[str, Any]], jobs: int) -> list[dict[str, Any]]:
    if jobs <= 1:
        return [_run(r) for r in rows]
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        return list(pool.map(_run, rows, chunksize=16))


# --------------------------------------------------------------------------------------------------
# metrics


def _ratio(a: int, b: int) -> float:
    return a / b if b else 0.0


def prf(tp: int, fp: int, fn: int) -> tuple[float, float, float]:
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    f = 2 * p * r / (p + r) if p + r else 0.0
    return p, r, f


_DIGIT_NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?")


def _quantity_span(span: str) -> bool:
    """A labelled span counts for quantity-span recall when it holds a quantity other than a small bare number."""
    from pytest_auditfence.claims.quantities import parse_quantities

    return any(q.kind != "number" or abs(q.value) >= 10 for q in parse_quantities(span))


def _digits_present(text: str, sources: str) -> bool:
    flat = sources.replace(",", "")
    return all(d.replace(",", "") in flat for d in _DIGIT_NUMBER.findall(text))


def _number_presence(claim: dict[str, Any], sources: str) -> str:
    """'present' when every digit string of the claim's checked quantities stands verbatim in the sources
    (passages and input), 'absent' when one does not, 'no_number' for a claim without checked quantities."""
    texts = [t for t in claim.get("quantity_texts", []) if _DIGIT_NUMBER.search(t)]
    if not texts:
        return "no_number"
    return "present" if all(_digits_present(t, sources) for t in texts) else "absent"


def _conversion_only(span: str, before: str, passages: str) -> bool:
    """Every number of the span missing from the passages is a unit conversion of a number of the span
    that is present, in the span or just before it ('350°F (175°C)' over a source's '350 degrees'): by the engine's semantics such a
    figure is `derived` (same rounding slack as the engine's rule), while RAGTruth labels it new information."""
    from pytest_auditfence.claims.quantities import parse_quantities
    from pytest_auditfence.verify import CONVERSION_SLACK

    quantities = parse_quantities(span)
    absent = [q for q in quantities if not _digits_present(q.text, passages)]
    # the converted figure may stand just before a span that holds only its restatement: '425°F (218°C)'
    present = [q for q in parse_quantities(before + span) if _digits_present(q.text, passages)]
    if not absent:
        return False
    return all(any(
        p.kind == q.kind and p.unit != q.unit and q.kind in ("temperature", "length", "mass")
        and abs(q.value - p.value) <= max(q.tolerance + p.tolerance, CONVERSION_SLACK * abs(p.value))
        for p in present) for q in absent)


def ragtruth_metrics(rows: list[dict[str, Any]], results: list[dict[str, Any]]) -> dict[str, Any]:
    tp = fp = fn = tn = 0
    clean = flagged_clean = 0
    clean_by_check: Counter[str] = Counter()
    flag_presence: Counter[str] = Counter()
    flag_rules: Counter[str] = Counter()
    span_total = span_hit = 0
    absent_total = absent_hit = 0
    conversion_spans = conversion_hit = conversion_absent = conversion_absent_hit = 0
    errors = [r for r in results if "error" in r]
    for row, res in zip(rows, results, strict=True):
        hallucinated = bool(row["labels"])
        flagged = [c for c in res["claims"] if c["hallucination"]]
        predicted = bool(flagged)
        tp += predicted and hallucinated
        fp += predicted and not hallucinated
        fn += (not predicted) and hallucinated
        tn += (not predicted) and (not hallucinated)
        passages = "\n".join(row["passages"])
        if not hallucinated:
            clean += 1
            flagged_clean += predicted
            for check in {c["check"] for c in flagged}:
                clean_by_check[check] += 1
            if flagged:
                kinds = {_number_presence(c, passages + "\n" + row["question"]) for c in flagged}
                kind = "absent" if "absent" in kinds else "present" if "present" in kinds else "no_number"
                flag_presence[kind] += 1
                for c in flagged:
                    if _number_presence(c, passages + "\n" + row["question"]) == kind:
                        flag_rules[f"{kind}: {c['check']} {c['verdict']}"] += 1
        for label in row["labels"]:
            span = row["response"][label["start"]:label["end"]]
            if not _quantity_span(span):
                continue
            span_total += 1
            lo, hi = label["start"], label["end"]
            hit = any(c["start"] < hi and lo < c["end"] for c in flagged)
            span_hit += hit
            # the naive rule's population: some number of the span is absent from the passages verbatim
            digits = [d.replace(",", "") for d in _DIGIT_NUMBER.findall(span)]
            absent = any(d not in passages.replace(",", "") for d in digits)
            if absent:
                absent_total += 1
                absent_hit += hit
            if _conversion_only(span, row["response"][max(0, lo - 40):lo], passages):
                conversion_spans += 1
                conversion_hit += hit
                conversion_absent += absent
                conversion_absent_hit += hit and absent
    p, r, f = prf(tp, fp, fn)
    return {
        "responses": len(rows), "hallucinated": tp + fn, "clean": clean, "errors": len(errors),
        "error_examples": [e["error"] for e in errors[:3]],
        "precision": p, "recall": r, "f1": f,
        "false_flag_rate_clean": flagged_clean / clean if clean else 0.0,
        "false_flags_by_check": {k: v / clean for k, v in sorted(clean_by_check.items())} if clean else {},
        # a false flag is an engine error when the flagged number is in the passages or the input verbatim
        "false_flags_number_present_in_sources": flag_presence["present"] / clean if clean else 0.0,
        "false_flags_number_absent_from_sources": flag_presence["absent"] / clean if clean else 0.0,
        "false_flags_without_a_number": flag_presence["no_number"] / clean if clean else 0.0,
        "false_flag_claims_by_rule": {k: float(v) for k, v in sorted(flag_rules.items())},
        "quantity_spans": span_total, "quantity_span_recall": span_hit / span_total if span_total else 0.0,
        "absent_number_spans": absent_total,
        "absent_number_span_recall": absent_hit / absent_total if absent_total else 0.0,
        # spans whose only missing numbers are unit conversions of present ones are left out here
        "unit_conversion_only_spans": conversion_spans,
        "quantity_span_recall_excl_conversions": _ratio(span_hit - conversion_hit, span_total - conversion_spans),
        "absent_number_span_recall_excl_conversions": _ratio(absent_hit - conversion_absent_hit,
                                                             absent_total - conversion_absent),
    }


def summedits_metrics(rows: list[dict[str, Any]], results: list[dict[str, Any]]) -> dict[str, Any]:
    tp = fp = fn = tn = 0
    numeric_total = numeric_hit = 0
    by_edit: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    errors = [r for r in results if "error" in r]
    for row, res in zip(rows, results, strict=True):
        inconsistent = row["label"] == 0
        predicted = any(c["hallucination"] for c in res["claims"])
        tp += predicted and inconsistent
        fp += predicted and not inconsistent
        fn += (not predicted) and inconsistent
        tn += (not predicted) and (not inconsistent)
        if inconsistent:
            for edit in row["edit_types"]:
                by_edit[edit][0] += 1
                by_edit[edit][1] += predicted
            if numeric_edit(row):
                numeric_total += 1
                numeric_hit += predicted
    p, r, f = prf(tp, fp, fn)
    tnr = tn / (tn + fp) if tn + fp else 0.0
    return {
        "rows": len(rows), "inconsistent": tp + fn, "consistent": tn + fp, "errors": len(errors),
        "error_examples": [e["error"] for e in errors[:3]],
        "precision": p, "recall": r, "f1": f, "balanced_accuracy": (r + tnr) / 2,
        "false_flag_rate_consistent": fp / (tn + fp) if tn + fp else 0.0,
        "numeric_edits": numeric_total, "numeric_edit_recall": numeric_hit / numeric_total if numeric_total else 0.0,
        "recall_by_edit_type": {k: v[1] / v[0] for k, v in sorted(by_edit.items())},
    }


def numeric_edit(row: dict[str, Any]) -> bool:
    """An inconsistent summary whose digits differ from its original's (the numeric-edit population)."""
    return row["label"] == 0 and sorted(_DIGIT_NUMBER.findall(row["response"])) != sorted(
        _DIGIT_NUMBER.findall(row["original"]))


def _show_missed_edits(rows: list[dict[str, Any]], results: list[dict[str, Any]], missed: int) -> None:
    """Debugging view: numeric edits of SummEdits that no claim flags, with the original and the notes."""
    shown = 0
    for row, res in zip(rows, results, strict=True):
        if shown >= missed:
            return
        if not numeric_edit(row) or any(c["hallucination"] for c in res["claims"]):
            continue
        shown += 1
        notes = [(c["verdict"], c["notes"]) for c in res["claims"]]
        print(f"[missed] {row['id']} ({row['split']})\n    edited:   {row['response']!r}\n"
              f"    original: {row['original']!r}\n    claims: {notes}")


def _absent_not_converted(row: dict[str, Any], lo: int, hi: int) -> bool:
    """Is the labelled span in the population of the absent-number recall excluding conversions?"""
    span = row["response"][lo:hi]
    passages = "\n".join(row["passages"])
    absent = any(d.replace(",", "") not in passages.replace(",", "") for d in _DIGIT_NUMBER.findall(span))
    return absent and not _conversion_only(span, row["response"][max(0, lo - 40):lo], passages)


def _show(rows: list[dict[str, Any]], results: list[dict[str, Any]], flags: int, missed: int, clean: Any,
          absent_only: bool = False) -> None:
    """Debugging views: flagged claims of clean rows, and labelled quantity spans left unflagged (only
    those of the absent-number population, conversions left out, when `absent_only`)."""
    shown = 0
    for row, res in zip(rows, results, strict=True):
        if shown >= flags:
            break
        if not clean(row):
            continue
        for c in res["claims"]:
            if c["hallucination"] and shown < flags:
                shown += 1
                print(f"[false flag] {row['id']} {c['verdict']}: {c['text'][:200]!r}\n    notes: {c['notes']}")
    shown = 0
    for row, res in zip(rows, results, strict=True):
        for label in row.get("labels") or []:
            if shown >= missed:
                return
            lo, hi = label["start"], label["end"]
            if not _quantity_span(row["response"][lo:hi]):
                continue
            if absent_only and not _absent_not_converted(row, lo, hi):
                continue
            if any(c["hallucination"] and c["start"] < hi and lo < c["end"] for c in res["claims"]):
                continue
            shown += 1
            overlapping = [(c["verdict"], c["notes"]) for c in res["claims"] if c["start"] < hi and lo < c["end"]]
            print(f"[missed] {row['id']} {row['response'][lo:hi][:200]!r}\n    {label.get('meta', '')[:200]!r}"
                  f"\n    claims: {overlapping}")


def _print(name: str, metrics: dict[str, Any]) -> None:
    print(f"\n== {name}")
    for key, value in metrics.items():
        if isinstance(value, float):
            print(f"  {key:32s} {value:8.3f}")
        elif isinstance(value, dict):
            print(f"  {key}:")
            for k, v in value.items():
                print(f"    {k:30s} {v:8.3f}")
        else:
            print(f"  {key:32s} {value}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="folder of the shared data sets")
    parser.add_argument("--limit", type=int, default=None, help="only the first N rows of each set")
    parser.add_argument("--jobs", type=int, default=2, help="worker processes")
    parser.add_argument("--sets", default="ragtruth,summedits,tatqa",
                        help="comma-separated: ragtruth,summedits,tatqa,tatqa-cells (the tables' cells as claims, "
                             "see eval/tatqa_cells.py; not in the default)")
    parser.add_argument("--json", type=Path, default=None, help="also write the metrics as JSON here")
    parser.add_argument("--dump", type=Path, default=None,
                        help="write every row's audited claims (RAGTruth) as JSON here, for analysis")
    parser.add_argument("--offset", type=int, default=0, help="skip the first N rows of each set")
    parser.add_argument("--held-out", type=int, default=1500,
                        help="RAGTruth rows before this index are the tuning split; the rest are reported apart")
    parser.add_argument("--show-false-flags", type=int, default=0, metavar="N",
                        help="print N flagged claims of clean responses / consistent summaries, with notes")
    parser.add_argument("--show-missed", type=int, default=0, metavar="N",
                        help="print N labelled RAGTruth quantity spans that no flagged claim overlaps "
                             "(SummEdits: N numeric edits that no claim flags)")
    parser.add_argument("--missed-absent-only", action="store_true",
                        help="--show-missed lists only spans with a number absent from the passages that is "
                             "not a unit conversion (the population of the excl.-conversions recall)")
    parser.add_argument("--tatqa-split", choices=("all", "tuning", "held_out"), default="all",
                        help="TAT-QA sections of this split only (split by a hash of the section id)")
    parser.add_argument("--summedits-split", choices=("all", "tuning", "held_out"), default="all",
                        help="SummEdits rows of this split only (split by a hash of the earnings call's id)")
    parser.add_argument("--perturb-seeds", type=int, default=0, metavar="N",
                        help="TAT-QA: also N extra perturbed variants of each answer on tuning sections (off by "
                             "1-9%%, other digits swapped, the last digit changed), counted apart as 'extra perturbed'")
    parser.add_argument("--tatqa-variants", type=int, default=0, metavar="N",
                        help="TAT-QA: also render each tuning section N more times, each in another of the six "
                             "forms with another wording and restatement of the same answers (correct and standard "
                             "perturbed), counted apart as 'other renderings'")
    parser.add_argument("--show-uncovered", type=int, default=0, metavar="N",
                        help="print N correct TAT-QA sentences that are not covered, with their verdicts")
    parser.add_argument("--show-verified-perturbed", type=int, default=0, metavar="N",
                        help="print N perturbed TAT-QA sentences that came out verified or derived")
    args = parser.parse_args(argv)
    if not args.data.is_dir():
        print(f"{args.data}: data folder not found; pass --data PATH (the shared data sets)", file=sys.stderr)
        return 2
    report: dict[str, Any] = {}
    for name in args.sets.split(","):
        started = time.perf_counter()
        if name == "ragtruth":
            rows = ragtruth_rows(args.data, None)
            numbered = list(enumerate(rows))[args.offset:]
            numbered = numbered[:args.limit] if args.limit else numbered
            rows = [r for _, r in numbered]
            results = run_all(rows, args.jobs)
            metrics = ragtruth_metrics(rows, results)
            if args.dump:
                args.dump.write_text(json.dumps(results, indent=1, sort_keys=True) + "\n", encoding="utf-8")
            for split, keep in (("tuning", lambda i: i < args.held_out), ("held_out", lambda i: i >= args.held_out)):
                picked = [(r, res) for (i, r), res in zip(numbered, results) if keep(i)]
                if picked and len(picked) < len(rows):
                    sub = ragtruth_metrics([r for r, _ in picked], [res for _, res in picked])
                    metrics[f"{split}_rows"] = sub["responses"]
                    for key in ("precision", "recall", "f1", "false_flag_rate_clean", "quantity_span_recall",
                                "absent_number_span_recall", "quantity_span_recall_excl_conversions",
                                "absent_number_span_recall_excl_conversions"):
                        metrics[f"{split}_{key}"] = sub[key]
            _show(rows, results, args.show_false_flags, args.show_missed,
                  clean=lambda r: not r["labels"], absent_only=args.missed_absent_only)
        elif name == "summedits":
            rows = summedits_rows(args.data, None, args.summedits_split)[args.offset:]
            rows = rows[:args.limit] if args.limit else rows
            results = run_all(rows, args.jobs)
            metrics = summedits_metrics(rows, results)
            for split in ("tuning", "held_out"):
                picked = [(r, res) for r, res in zip(rows, results) if r["split"] == split]
                if picked and len(picked) < len(rows):
                    sub = summedits_metrics([r for r, _ in picked], [res for _, res in picked])
                    metrics[f"{split}_rows"] = sub["rows"]
                    for key in ("numeric_edits", "numeric_edit_recall", "false_flag_rate_consistent", "recall",
                                "balanced_accuracy"):
                        metrics[f"{split}_{key}"] = sub[key]
            _show(rows, results, args.show_false_flags, 0, clean=lambda r: r["label"] == 1)
            _show_missed_edits(rows, results, args.show_missed)
        elif name in ("tatqa", "tatqa-cells"):
            import tatqa

            sections = tatqa.select(tatqa.load_sections(args.data), args.limit, args.tatqa_split)
            if name == "tatqa":
                items = tatqa.run_tatqa(sections, args.jobs, args.perturb_seeds, args.tatqa_variants)
                metrics = tatqa.tatqa_metrics(items)
                for split, counts in tatqa.dropped_as_shown(sections, args.perturb_seeds,
                                                            args.tatqa_variants).items():
                    metrics[split]["perturbed_dropped_as_shown"] = counts
                tatqa.show(items, args.show_uncovered, args.show_verified_perturbed)
                printer = tatqa.print_tatqa
            else:
                import tatqa_cells

                items = tatqa_cells.run_cells(sections, args.jobs, args.tatqa_variants)
                metrics = tatqa_cells.cells_metrics(items)
                for split, counts in tatqa_cells.skipped_cells(sections).items():
                    metrics[split]["skipped_cells"] = counts
                tatqa_cells.show(items, args.show_uncovered, args.show_verified_perturbed)
                printer = tatqa_cells.print_cells
            metrics["seconds"] = round(time.perf_counter() - started, 1)
            report[name] = metrics
            printer(metrics)
            print(f"  seconds {metrics['seconds']}")
            continue
        else:
            print(f"unknown set {name!r}; choose from ragtruth, summedits, tatqa, tatqa-cells", file=sys.stderr)
            return 2
        metrics["seconds"] = round(time.perf_counter() - started, 1)
        report[name] = metrics
        _print(name, metrics)
    if args.json:
        args.json.write_text(json.dumps(report, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
