"""The index's leaner reading paths give what the columns they replace gave: a line's words kept once a line (not
once a figure), a cell's label found by bisecting the offsets, a figure's tolerance and end read from its form and
length, the value buckets bisected through the files' own values, and a digit run confirmed by a search of the text.
Each is checked against the old path, written out here, over the scaling bench's files and a captured run's."""

from __future__ import annotations

import heapq
import random
from pathlib import Path

from langchain_core.tools import tool

from pytest_auditfence import Snapshot
from pytest_auditfence.audit.cascade import audit_cascade_sync
from pytest_auditfence.claims import quantities
from pytest_auditfence.fence import FileStore, LoadedFile, Source
from pytest_auditfence.models import COVERED_VERDICTS
from pytest_auditfence.verify import SourceIndex
from pytest_auditfence.verify.sources import (
    LITERAL_NUMBER, FileIndex, _index_file, _run_written, abbreviations, content_words,
)
from pytest_auditfence.verify.tables import read_tables

from test_compact_index import _bench_corpus
from tool_runs import claim_of, tool_app

FILING = """Annual report, fiscal 2024 (in millions of US dollars)
| Segment | FY2024 | FY2023 |
|---|---|---|
| Cloud revenue | 1,234 | 1,102 |
| Device revenue | 816 | 905 |
| Operating margin (%) | 21.4 | 19.8 |

Cloud revenue was $1,234 million in fiscal 2024, up from $1,102 million in fiscal 2023.
Headcount reached 12,480 employees across 31 countries; the backlog stood at $3.9 billion.
price: 2024-03-12 close 123.45 volume 1,234,567
segment_revenue_usd_millions: 2050
"""


def _captured(tmp_path: Path, report: str) -> Path:
    """A real LangGraph run (a graph with a `ToolNode`) fetching FILING, captured with a `Snapshot`."""
    snap = Snapshot(tmp_path / "trace")
    tool_app([get_annual_report], [("get_annual_report", {"company": "NORD"})], report).invoke(
        {"messages": [("user", "Write a note.")]}, config=snap.config())
    snap.set_report(report)
    snap.finalize()
    return snap.trace_dir


@tool
def get_annual_report(company: str) -> str:
    """The company's annual report."""
    return FILING


def _old_words(loaded: LoadedFile) -> dict[str, list[int]]:
    """The word lists as main at 14eb686 built them: every figure read on a line (not a cell, not a second
    reading: 'segment_revenue_usd_millions: 2050' has one, in millions) listed under each of its line's words,
    every cell under its label's words, in item order."""
    text = loaded.text
    cells = read_tables(text)
    spans = [(cell.start, cell.end) for cell in cells]
    disjoint = all(a[1] <= b[0] for a, b in zip(spans, spans[1:]))
    words: dict[str, list[int]] = {}
    item = 0

    def add(item_words: list[str], alternative: bool) -> None:
        nonlocal item
        if not alternative:
            for word in item_words:
                words.setdefault(word, []).append(item)
        item += 1

    def add_cell(cell) -> None:  # type: ignore[no-untyped-def]
        span, label = text[cell.start:cell.end], cell.label
        read = quantities.parse_quantities(span, scale_context=label.scale, unit_context=label.unit,
                                           offset=cell.start, years=False, cell=True)
        if len(read) != 1:
            return
        joined = f"{label.subject_text} {label.column_text} {label.caption}"
        cell_words = content_words(joined) + abbreviations(joined)
        add(cell_words, False)
        if label.scale is not None or label.unit is not None:
            bare = quantities.parse_quantities(span, offset=cell.start, years=False, cell=True)
            if len(bare) == 1 and (bare[0].value != read[0].value or bare[0].kind != read[0].kind):
                add(cell_words, True)

    next_cell = 0
    for scanned in quantities.QuantityScanner().iter_scan(text, read_elsewhere=spans if disjoint else ()):
        q = scanned.quantity
        while next_cell < len(cells) and cells[next_cell].end <= q.start:
            add_cell(cells[next_cell])
            next_cell += 1
        if next_cell < len(cells) and cells[next_cell].start <= q.start < cells[next_cell].end:
            continue
        add(content_words(loaded.line_text(scanned.line)), scanned.alternative)
    for cell in cells[next_cell:]:
        add_cell(cell)
    return words


def _new_words(fi: FileIndex) -> dict[str, list[int]]:
    """The same lists read from the lean index: cells by item, other figures through their lines (every item as
    the number it has in a file read whole, its rank in the order of the text: deferred lines' figures are items
    after the others)."""
    fi.materialize_all()
    rank = _ranks(fi)
    words = {word: [rank[i] for i in items] for word, items in fi.words.items()}
    for word in _asked_words(fi):
        expanded = [rank[item] for line in fi.lines_with(word) for item in fi.on_line(line)]
        if expanded or word in words:
            words[word] = sorted(words.get(word, []) + expanded)
    return words


def _asked_words(fi: FileIndex) -> list[str]:
    """Every word a line of the file can be asked for: those of the lines read when it was indexed, and (found only
    when asked since stop 27) those of its deferred lines, among the content words of its whole text."""
    return sorted(set(fi.line_words) | set(content_words(fi.text)))


def _ranks(fi: FileIndex) -> dict[int, int]:
    return {item: n for n, item in enumerate(sorted(range(len(fi.quantities)), key=fi.position))}


def _old_with_words(index: SourceIndex, old: list[dict[str, list[int]]], words: list[str], limit: int
                    ) -> list[tuple[int, tuple[int, int]]]:
    scored: dict[tuple[int, int], int] = {}
    for f in range(len(index.files)):
        for word in words:
            for item in old[f].get(word, ()):
                scored[(f, item)] = scored.get((f, item), 0) + 1
    return [(-neg, key) for neg, key in heapq.nsmallest(limit, ((-score, key) for key, score in scored.items()))]


def test_line_words_expand_to_the_per_figure_lists_and_rank_the_same(tmp_path: Path) -> None:
    root, bench = _bench_corpus(tmp_path / "bench")
    trace = _captured(tmp_path / "run", "Cloud revenue was $1,234 million in fiscal 2024.\n")
    for folder, sources in ((root, bench[:6]),
                            (trace, [Source.from_file(trace, str(p.relative_to(trace)), node="tools",
                                                      kind="tool_call") for p in sorted(trace.rglob("*.txt"))])):
        store = FileStore(folder)
        index = SourceIndex.build(folder, sources, store=store)
        old = [_old_words(store.load(source)) for source in sources]
        assert [_new_words(fi) for fi in index.files] == old
        asked = [["revenue"], ["segment", "revenue"], ["cloud", "revenue", "fiscal"], ["close", "volume", "price"], ["margin", "backlog"],
                 ["demand", "supply", "guidance", "headcount"], ["nothing"]]
        for words in asked:
            for limit in (3, 50, 400):
                got = [(score, (o.file, _ranks(index.files[o.file])[o.item]))
                       for score, o in index.with_words(words, limit=limit)]
                assert got == _old_with_words(index, old, words, limit), words
    # the lines hold fewer entries than the figures did (the point of the change: 3,700 against 6,782 here)
    fi = SourceIndex.build(root, bench[:1]).files[0]
    old_entries = sum(map(len, _old_words(FileStore(root).load(bench[0])).values()))
    assert sum(len(list(fi.lines_with(w))) for w in _asked_words(fi)) + sum(map(len, fi.words.values())) < 0.7 * old_entries


def test_forms_lengths_and_label_offsets_read_back_the_parsers_figures(tmp_path: Path) -> None:
    root, sources = _bench_corpus(tmp_path)
    store = FileStore(root)
    for source in sources[:4]:
        fi = _index_file(store.load(source))
        for item in range(len(fi.quantities)):
            q = fi.quantity(item)
            assert (fi.tolerances[item], fi.ends[item]) == (q.tolerance, q.end)
            assert isinstance(fi.tolerances[item], float)
        old_label_at = {fi.starts[i]: label for i, label in fi.labels.items()}  # main's dict
        for offset in set(fi.starts) | {0, len(fi.text)} | {s + 1 for s in fi.starts}:
            assert fi.label_at(offset) is old_label_at.get(offset)
        assert fi.codes.typecode == "B" and fi.lengths.typecode == "B" and len(fi.forms) <= 0xFF


def test_value_buckets_return_what_a_value_column_beside_them_returned(tmp_path: Path) -> None:
    """`near()` against a value column beside the buckets of the files read whole: every figure within the sum of
    both tolerances, by magnitude, value and place (the lazy front parses the deferred lines a lookup reaches;
    their figures are items after the others, so a figure is named by its file, start and text)."""
    root, sources = _bench_corpus(tmp_path)
    store = FileStore(root)
    index = SourceIndex.build(root, sources[:5], store=store)
    whole = SourceIndex(index.root, index.sources, [_index_file(store.load(s), lazy=False) for s in sources[:5]],
                        store)
    rng = random.Random(23)
    probes = [(whole.files[f].values[i], whole.files[f].tolerances[i])
              for f, i in ((rng.randrange(5), rng.randrange(200)) for _ in range(60))]
    probes += [(0.0, 0.0), (-1.0, 0.5), (1e12, 1e9), (2024.0, 0.0), (45.3, 0.05)]
    for value, tolerance in probes:
        slack = 1e-9 * max(1.0, abs(value))
        expected = []
        for _, widest, files, items in whole._buckets:
            width = tolerance + widest + slack
            column = [whole.files[files[k]].values[items[k]] for k in range(len(files))]  # the old column
            expected += [(column[k], files[k], whole.files[files[k]].quantity(items[k]).text,
                          whole.files[files[k]].starts[items[k]]) for k in range(len(files))
                         if value - width <= column[k] <= value + width
                         and abs(column[k] - value) <= tolerance + whole.files[files[k]].tolerances[items[k]] + slack]
        got = [(o.value, o.file, index.files[o.file].quantity(o.item).text, index.files[o.file].starts[o.item])
               for o in index.near(value, tolerance)]
        assert got == expected
    assert all(files.typecode == "H" and items.typecode == "H" for _, _, files, items in index._buckets)


TRICKY = ["1.2,22", "a,5", "1.2.3", "1,234,", "1.5,6", ",7", "x.9", "12,34.5.6", "٣٤,٥", "0.50,1", "1,,2"]


def test_digit_runs_are_confirmed_by_the_text_exactly_as_the_runs_are_cut() -> None:
    rng = random.Random(5)
    texts = TRICKY + ["".join(rng.choice("0123456789,.,. a٣") for _ in range(rng.randint(1, 12)))
                      for _ in range(20_000)]
    for text in texts:
        runs = {run.replace(",", "") for run in LITERAL_NUMBER.findall(text)}
        asked = runs | {"".join(rng.choice("0123456789.") for _ in range(rng.randint(1, 4))) for _ in range(3)}
        asked |= {"", "1.", ".5", "22", "5", "2", "3", "1234"}
        for written in asked:
            assert _run_written(text, written) == (written in runs), (text, written)
            fi = FileIndex(text)
            assert fi.holds_literal(written) == (written in runs), (text, written)
    # '22' is a run of '1.2,22' though the search's first place ('2,22') is not
    assert _run_written("1.2,22", "22") and not _run_written("1.2,22", "2")


def test_a_captured_run_is_audited_on_the_lean_index(tmp_path: Path) -> None:
    report = ("Cloud revenue was $1,234 million in fiscal 2024.\n"
              "Headcount reached 12,480 employees.\n"
              "Cloud revenue was $1,234 billion in fiscal 2024.\n"  # wrong scale
              "Cloud revenue was $1,102 million in fiscal 2024.\n"  # the other period's
              "Headcount reached 12,840 employees.\n"  # digits swapped
              "Operating margin was 21.4 bps in fiscal 2024.\n"  # wrong unit
              "The backlog stood at $3.7 billion.\n")  # invented
    trace = _captured(tmp_path, report)
    cascade = audit_cascade_sync(trace_dir=trace, final_document=report)
    for true in ("$1,234 million", "12,480"):
        assert claim_of(cascade, true).verdict in COVERED_VERDICTS, true
    for wrong in ("$1,234 billion", "$1,102 million", "12,840", "21.4 bps", "$3.7 billion"):
        assert claim_of(cascade, wrong).verdict not in COVERED_VERDICTS, wrong
