"""The lazy front: prose lines whose figures can only be plain numbers times a scale are not parsed when a file is
indexed; a value lookup parses the lines that can hold the value, a line's words or its figures parse it when
asked. Checked against the parser itself (every figure of a deferred line is one of the numbers the pre-pass kept,
times a scale, within its tolerance bound), against an index of the same files read whole (the same figures for
every lookup, in the same order), and on a captured LangGraph run."""

from __future__ import annotations

import random
from pathlib import Path

from langchain_core.tools import tool

from pytest_auditfence import Snapshot
from pytest_auditfence.audit.cascade import audit_cascade_sync
from pytest_auditfence.claims import quantities
from pytest_auditfence.fence import FileStore, Source
from pytest_auditfence.models import COVERED_VERDICTS
from pytest_auditfence.verify import SourceIndex
from pytest_auditfence.verify.sources import _index_file

from test_compact_index import _bench_corpus
from tool_runs import claim_of, tool_app

PIECES = ["1", "2", "12", "123", "1,234", "1,234,567", "0.5", ".5", "45.3", "2024", "03", "15", "2024-03-15",
          "1.2.3", "1,2", "1,23", ",", ".", " ", " ", " ", "-", "(", ")", "[1]", "[", "]", "$", "US$", "USD ", "EUR",
          "%", " percent", " million", " billion", " bn", "m", "k", "K", "M", "B", " thousand", "x", " x ", "T", "FY",
          "Q3", "v", " to ", " and ", " between ", "th", "st", "a", "the", " km", " kg", " miles", " hours", " GW",
          " MW", " bps", " pp", " points", "F", "C", " degrees", "'", "#", "=", "&", "_", "*", ";", "10-K",
          "COVID-19", "March", " March ", "5th", "s", " per share", " per", "×", "5G", " cents", "in.", " in ",
          " mm", " times", "+", "−", "Rs.", "0", "00", "000", "'000", "999", "9,999", "12.50", "0.05", "3-5",
          "5 to 7", "5 pm", "(212) 555-1234", "401(k)", "2020-21", "1990s"]


def _covered(figure: quantities.Quantity, runs: list[tuple[float, int]]) -> bool:
    """Is the figure one of the runs, signed and times a plain scale, with a tolerance within the run's bound?"""
    return any(abs(abs(figure.value) - value * scale) <= 1e-9 * max(1.0, abs(figure.value))
               and figure.tolerance <= 0.5 * 10.0 ** -decimals * scale * (1 + 1e-9)
               for value, decimals in runs for scale in quantities.PLAIN_SCALES)


def test_every_figure_of_a_plain_line_is_one_of_its_runs_times_a_scale() -> None:
    rng = random.Random(24)
    kept = 0
    for _ in range(40_000):
        line = "".join(rng.choice(PIECES) for _ in range(rng.randint(1, 14)))
        text = line + "\n" + rng.choice(["news: x", "thousand tonnes", "", "5 km"])
        runs = quantities.plain_runs(text, 0, len(line))
        if runs is None or not any(c.isdigit() for c in line):
            continue
        kept += 1
        for figure in quantities.parse_prose_line(text, 0, len(line)):
            assert _covered(figure, runs), (line, figure)
    assert kept > 8_000
    # where the parser's search resumes inside digits, a mask may start there and the numbers after it are read
    for line in ("9,99999 March 2024-03-15 of 12", "1,2024-03-15,123", "x1234,567 and 1.5,234"):
        runs = quantities.plain_runs(line, 0, len(line))
        assert runs is None or all(_covered(f, runs) for f in quantities.parse_prose_line(line, 0, len(line))), line
    # what the bench's lines keep: the numbers a figure can be, not a date's parts or a ticker's digits
    price = "price: 2024-03-15 close 123.45 volume 1,234,567"
    assert quantities.plain_runs(price + "\nnews: x", 0, len(price)) == [(123.45, 2), (1234567.0, 0)]
    news = "news: T12 margin was 45.3% and backlog reached $12.3 billion."
    assert quantities.plain_runs(news, 0, len(news)) == [(45.3, 1), (12.3, 1)]


def test_a_line_whose_figures_may_be_read_otherwise_is_parsed_when_indexed() -> None:
    for line in ("the tank holds 3/4 of its 40 litres", "five stores and 12 outlets", "ran 26.2 miles in 3 hours",
                 "spreads widened 35 bps", "bake at 350F for 20 min", "a 12.5 cents dividend", "opens 10:30 hours",
                 "**5.2** billion", "see www.example.com 2024 and 12", "costs 7½ dollars", "version 1.2.3 of 12",
                 "1,23 and 45", "rose 4 degrees to 12"):
        assert quantities.plain_runs(line, 0, len(line)) is None, line
    wrapped = "revenue for the period grew strongly to reach a total of 340"
    assert quantities.plain_runs(wrapped + "\nthousand tonnes", 0, len(wrapped)) is None  # its unit is on the next line
    assert quantities.plain_runs(wrapped + "\nnews: x", 0, len(wrapped)) == [(340.0, 0)]


def _figure(index: SourceIndex, f: int, item: int) -> tuple[int, int, str, float]:
    fi = index.files[f]
    return f, fi.starts[item], fi.quantity(item).text, fi.values[item]


def test_lookups_give_what_the_files_read_whole_give(tmp_path: Path) -> None:
    root, sources = _bench_corpus(tmp_path)
    store = FileStore(root)
    lazy = SourceIndex.build(root, sources[:4], store=store)
    whole = SourceIndex(lazy.root, lazy.sources, [_index_file(store.load(s), lazy=False) for s in sources[:4]], store)
    deferred = sum(len(fi.deferred) for fi in lazy.files)
    assert deferred > 0.9 * sum(fi.text.count("\n") for fi in lazy.files) - 60  # all but the tables and headers
    rng = random.Random(3)
    probes = [(whole.files[f].values[i], whole.files[f].tolerances[i])
              for f, i in ((rng.randrange(4), rng.randrange(900)) for _ in range(80))]
    probes += [(12.3e9, 0.05e9), (45.3, 0.05), (1.048, 0.0005), (-52.0, 0.05), (319.68e9, 0.5e6), (0.0, 0.5)]
    for value, tolerance in probes:
        assert [_figure(lazy, o.file, o.item) for o in lazy.near(value, tolerance)] == \
            [_figure(whole, o.file, o.item) for o in whole.near(value, tolerance)], (value, tolerance)
    parsed = sum(sum(fi._done) for fi in lazy.files)
    assert 0 < parsed < deferred / 4  # the lookups parsed the lines that hold their values, a few
    for words in (["revenue"], ["margin", "backlog"], ["close", "volume"], ["gross", "profit"], ["nothing"]):
        for limit in (5, 60):
            assert [(s, _figure(lazy, o.file, o.item)) for s, o in lazy.with_words(words, limit=limit)] == \
                [(s, _figure(whole, o.file, o.item)) for s, o in whole.with_words(words, limit=limit)], words
    for f in range(4):
        for line in range(1, 40):
            assert [_figure(lazy, f, i) for i in lazy.files[f].items_on_line(line)] == \
                [_figure(whole, f, i) for i in whole.files[f].items_on_line(line)]
        for item, label in whole.files[f].labels.items():
            assert lazy.files[f].label_at(whole.files[f].starts[item]) == label
    # a lookup that no number of the deferred lines can meet parses none of them
    fresh = SourceIndex.build(root, sources[:4], store=store)
    assert list(fresh.near(7.77e15, 1.0)) == [] and sum(sum(fi._done) for fi in fresh.files) == 0


FILING = """Annual report, fiscal 2024 (in millions of US dollars)
| Segment | FY2024 | FY2023 |
|---|---|---|
| Cloud revenue | 1,234 | 1,102 |
| Device revenue | 816 | 905 |
news: NORD the company said demand held up; margin was 41.7% and backlog reached $12.3 billion.
price: 2024-03-12 close 123.45 volume 1,234,567
news: NORD guidance was kept; margin was 38.2% and backlog reached $9.8 billion.
"""


@tool
def get_annual_report(company: str) -> str:
    """The company's annual report."""
    return FILING


def test_a_captured_run_verifies_figures_of_deferred_lines_and_flags_their_fabrications(tmp_path: Path) -> None:
    report = ("The backlog reached $12.3 billion.\n"
              "The margin was 38.2%.\n"
              "The backlog reached $12.3 million.\n"  # wrong scale
              "The backlog reached $12.8 billion.\n"  # invented
              "The margin was 41.2%.\n")  # invented
    snap = Snapshot(tmp_path / "trace")
    tool_app([get_annual_report], [("get_annual_report", {"company": "NORD"})], report).invoke(
        {"messages": [("user", "Write a note.")]}, config=snap.config())
    snap.set_report(report)
    snap.finalize()
    trace = snap.trace_dir
    sources = [Source.from_file(trace, str(p.relative_to(trace)), node="tools", kind="tool_call")
               for p in sorted(trace.rglob("*.txt")) if "NORD guidance" in p.read_text(encoding="utf-8")]
    assert any(len(_index_file(FileStore(trace).load(s)).deferred) >= 2 for s in sources)  # the news lines wait
    cascade = audit_cascade_sync(trace_dir=trace, final_document=report)
    for true in ("$12.3 billion", "38.2%"):
        assert claim_of(cascade, true).verdict in COVERED_VERDICTS, true
    for wrong in ("$12.3 million", "$12.8 billion", "41.2%"):
        assert claim_of(cascade, wrong).verdict not in COVERED_VERDICTS, wrong
