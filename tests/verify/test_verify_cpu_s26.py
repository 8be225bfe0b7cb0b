"""The audit's CPU at stop 26, every answer kept: a lookup's deferred lines parsed once per value and tolerance
(`SourceIndex._reach`'s memo), a row's stems memoised by its row label and columns (`match.row_stems`), number words
searched from their first letters (`quantities._NUMBER_WORDS`), and a CSV line without quotes cut by its commas
(`tables._csv_cells`): each gives what it gave before, on seeded texts, the bench's files and captured LangGraph
runs, where true figures are covered and invented ones are not."""

from __future__ import annotations

import random
import re
from pathlib import Path

from langchain_core.tools import tool

from pytest_auditfence.claims import quantities
from pytest_auditfence.fence import FileStore, Source
from pytest_auditfence.models import COVERED_VERDICTS
from pytest_auditfence.verify import match, tables
from pytest_auditfence.verify import sources as index_module
from pytest_auditfence.verify.sources import FileIndex, SourceIndex, _index_file
from pytest_auditfence.verify.tables import CellLabel

from test_compact_index import _bench_corpus
from tool_runs import claim_of, tool_run_auditor

FILING = """NORD annual report 2024
news: NORD said on 15 March that margin was 41.7% and backlog reached $12.3 billion.
news: orders reached $9.8 billion and the order book stood at $4.1 billion.
news: NORD hired 1,250 engineers in 2024, against 1,100 in 2023.
price: 2024-03-12 close 123.45 volume 1,234,567
"""


@tool
def get_annual_report(company: str) -> str:
    """The company's annual report."""
    return FILING


def _trace_sources(trace: Path, marker: str) -> list[Source]:
    return [Source.from_file(trace, str(p.relative_to(trace)), node="tools", kind="tool_call")
            for p in sorted(trace.rglob("*.txt")) if marker in p.read_text(encoding="utf-8")]


def test_a_value_looked_up_again_parses_no_line_and_finds_the_same_figures(tmp_path: Path, monkeypatch) -> None:
    report = ("The backlog reached $12.3 billion.\n"
              "Orders reached $9.8 billion.\n"
              "The backlog reached $12.3 million.\n"  # wrong scale
              "Orders reached $9.6 billion.\n")  # invented
    cascade = tool_run_auditor(tmp_path, [get_annual_report], "Write a note.")(
        [("get_annual_report", {"company": "NORD"})], report)
    for true in ("$12.3 billion", "$9.8 billion"):
        assert claim_of(cascade, true).verdict in COVERED_VERDICTS, true
    for wrong in ("$12.3 million", "$9.6 billion"):
        assert claim_of(cascade, wrong).verdict not in COVERED_VERDICTS, wrong

    trace = tmp_path / "trace0"
    sources = _trace_sources(trace, "news: NORD")
    assert sources
    bisections = []
    fenced = index_module._fenced
    monkeypatch.setattr(index_module, "_fenced", lambda *a: bisections.append(a) or fenced(*a))
    lazy = SourceIndex.build(trace, sources)
    assert lazy._runs, "the news lines are deferred"
    first = list(lazy.near(12.3e9, 0.05e9))
    parsed, asked = FileIndex.parsed_late, len(bisections)
    assert parsed and asked
    assert list(lazy.near(12.3e9, 0.05e9)) == first  # the same figures
    list(lazy.near(-12.3e9, 0.05e9))  # (a lookup's lines are those of its size: its sign is the parser's)
    assert (FileIndex.parsed_late, len(bisections)) == (parsed, asked)  # no line parsed, no bisection made
    # another value is looked up afresh, and finds what an index read whole finds
    orders = list(lazy.near(9.8e9, 0.05e9))
    assert len(bisections) > asked
    whole = SourceIndex(trace, sources, [_index_file(FileStore(trace).load(s), lazy=False) for s in sources],
                        FileStore(trace))
    for value, found in ((12.3e9, first), (9.8e9, orders)):
        want = [(whole.quantity(o).text, o.file) for o in whole.near(value, 0.05e9)]
        assert want and sorted((lazy.quantity(o).text, o.file) for o in found) == sorted(want)
    # the memo is bounded: past its size it starts again, and a value asked then is looked up afresh
    monkeypatch.setattr(index_module, "_REACH_MEMO", 1)
    asked = len(bisections)
    list(lazy.near(4.1e9, 0.05e9))
    assert len(lazy._reached) == 1 and len(bisections) > asked


def _row_stems_afresh(label: CellLabel) -> frozenset[str]:
    """`row_stems` computed without its memo."""
    return match._row_stems.__wrapped__(label.row, label.columns)


def test_a_rows_stems_are_memoised_by_its_label_and_columns_and_equal_a_fresh_reading(tmp_path: Path) -> None:
    root, sources = _bench_corpus(tmp_path)
    store = FileStore(root)
    labels = {label for source in sources[:3] for label in _index_file(store.load(source)).labels.values()}
    assert len(labels) > 20
    match._row_stems.cache_clear()
    for label in labels:
        assert match.row_stems(label) == _row_stems_afresh(label)
        assert isinstance(match.row_stems(label), frozenset)
    rows = {(label.row, label.columns) for label in labels}
    assert match._row_stems.cache_info().currsize == len(rows)
    period = frozenset({(2024, "FY")})
    cases = {
        CellLabel("Total revenue", "", ("FY2024",), period, "", None, None): {"total", "reven"},
        CellLabel("Huawei Technologies Co., Ltd. (“Huawei”)", "", ("2024",), period, "", None, None): {"huawe"},
        CellLabel("Deferred tax assets (see Note 16)", "", ("2024",), period, "", None, None): {"defer", "tax", "asset"},
        CellLabel("", "", ("Operating income", "2024"), period, "", None, None): {"operat", "incom"},
    }
    for label, want in cases.items():
        assert match.row_stems(label) == _row_stems_afresh(label)
        assert match.row_stems(label) >= {w[:5] for w in want}, (label.row, match.row_stems(label))
    # another section, caption or period of the same row and columns: the same stems
    other = CellLabel("Total revenue", "Segments", ("FY2024",), frozenset({(2023, "FY")}), "Table 3", 1e6, "USD")
    assert match.row_stems(other) is match.row_stems(next(iter(cases)))
    # a row of other words is not named by them
    assert match.row_stems(CellLabel("Cost of revenue", "", ("FY2024",), period, "", None, None)) != \
        match.row_stems(next(iter(cases)))


def test_number_words_are_found_where_the_pattern_without_its_first_letters_finds_them(tmp_path: Path) -> None:
    prefix = re.match(r"\(\?=\[[a-z]+\]\)", quantities._NUMBER_WORDS.pattern)
    assert prefix is not None
    plain = re.compile(quantities._NUMBER_WORDS.pattern[prefix.end():])
    pieces = ["two", "Three", " ", "-", "twenty", "twenty-five", "ninety nine", "one", "zero", " hundred", "eleven",
              "nineteen", "sixty", "seventy-", "x", "s", "t", "5", "é", "İ", "\n", ".", "stone", "often", "ten", "tens"]
    rng = random.Random(26)
    found = 0
    for _ in range(3000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 16)))
        for candidate in (text, text.lower()):
            want = [m.span() for m in plain.finditer(candidate)]
            assert [m.span() for m in quantities._NUMBER_WORDS.finditer(candidate)] == want, candidate
            found += len(want)
        lines = list(quantities.number_word_lines(text))
        assert lines == _number_word_lines_plainly(text, plain), text
    assert found > 1000
    root, sources = _bench_corpus(tmp_path)
    for source in sources[:3]:
        text = (root / source.path).read_text(encoding="utf-8")
        assert list(quantities.number_word_lines(text)) == _number_word_lines_plainly(text, plain)


def _number_word_lines_plainly(text: str, pattern: re.Pattern[str]) -> list[tuple[int, int]]:
    """`number_word_lines` by another reading: the lines holding a match of `pattern` that is no 'one' or 'zero'."""
    lowered = text.lower() if len(text.lower()) == len(text) else text
    out: list[tuple[int, int]] = []
    for m in pattern.finditer(lowered):
        if m.group() in ("zero", "one") or out and m.start() < out[-1][1]:
            continue  # a match on a line already kept, or 'one' of 'one of the'
        end = text.find("\n", m.end())
        out.append((text.rfind("\n", 0, m.start()) + 1, len(text) if end < 0 else end))
    return out


def _csv_cells_by_fields(pos: int, line: str) -> list[tuple[int, int]] | None:
    """`_csv_cells` by its field reader alone (`_CSV_FIELD`, the quotes dropped first), as it read every line."""
    if "," not in line or "|" in line or len(line) > 400:
        return None
    unquoted = re.sub(r'"[^"\n]*"', "", line)
    if ", " in unquoted or unquoted.count('"') % 2:
        return None
    cells, at = [], 0
    while at <= len(line):
        m = tables._CSV_FIELD.match(line, at)
        a, b = m.span("q" if m.group("q") is not None else "v")
        cells.append((pos + a, pos + b))
        at = m.end() + 1
        if m.end() >= len(line):
            break
    if len(cells) < 2:
        return None
    for (a, b), (c, d) in zip(cells, cells[1:]):
        if tables._SPLIT_NUMBER_HEAD.search(line, a - pos, b - pos) and \
                tables._SPLIT_NUMBER_TAIL.fullmatch(line, c - pos, d - pos):
            return None
    return cells


def test_a_csv_line_cut_by_its_commas_gives_the_field_readers_cells(tmp_path: Path) -> None:
    pieces = ["1", "23", "456", "7.5", ",", ",", ", ", '"', ' "a, b"', " ", "\t", "Rev", ".", "\r", "-", "|", "é", "x"]
    rng = random.Random(14)
    kept = quoted = 0
    for _ in range(20000):
        line = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 14)))
        pos = rng.randint(0, 99)
        want = _csv_cells_by_fields(pos, line)
        assert tables._csv_cells(pos, line) == want, line
        kept += want is not None
        quoted += want is not None and '"' in line
    assert kept > 1000 and quoted > 50
    root, sources = _bench_corpus(tmp_path)
    for source in sources[:3]:
        text = (root / source.path).read_text(encoding="utf-8")
        for pos, line in tables._lines(text):
            assert tables._csv_cells(pos, line) == _csv_cells_by_fields(pos, line)


SEGMENTS = """segment,2023,2024
Cloud,"1,200","1,350"
Devices,800,760
"Services, other",310,295
price: 2024-03-12 close 123.45 volume 1,234,567
"""


@tool
def get_segments(company: str) -> str:
    """The company's revenue by segment, in USD millions, as CSV."""
    return SEGMENTS


def test_a_captured_csv_is_read_by_its_fields_and_a_thousands_comma_in_prose_is_not_a_field(tmp_path: Path) -> None:
    report = ("Devices revenue was 760 in 2024.\n"
              "Services, other revenue was 295 in 2024.\n"
              "Devices revenue was 706 in 2024.\n"  # invented
              "Services, other revenue was 259 in 2024.\n")  # invented
    cascade = tool_run_auditor(tmp_path, [get_segments], "Write a note.")(
        [("get_segments", {"company": "NORD"})], report)
    for true in ("was 760", "was 295"):
        assert claim_of(cascade, true).verdict in COVERED_VERDICTS, true
    for wrong in ("was 706", "was 259"):
        assert claim_of(cascade, wrong).verdict not in COVERED_VERDICTS, wrong
    trace = tmp_path / "trace0"
    sources = _trace_sources(trace, "Services, other")
    assert sources
    for source in sources:
        text = FileStore(trace).load(source).text
        cells = tables.read_tables(text)
        assert {text[c.start:c.end] for c in cells} >= {"760", "295"}
        assert not any("567" in text[c.start:c.end] for c in cells)  # 'volume 1,234,567' is prose
        for pos, line in tables._lines(text):
            assert tables._csv_cells(pos, line) == _csv_cells_by_fields(pos, line)


STORES = """NORD store report 2024
news: NORD opened twelve new stores in 2024 and closed 3 outlets.
revenue: NORD revenue reached $12.3 billion in 2024.
"""


@tool
def get_store_report(company: str) -> str:
    """The company's store report."""
    return STORES


def test_a_file_without_number_words_is_not_searched_for_them_and_one_with_them_is(tmp_path: Path) -> None:
    report = ("NORD opened twelve new stores in 2024.\n"
              "NORD opened fifteen new stores in 2024.\n")  # invented
    cascade = tool_run_auditor(tmp_path, [get_store_report, get_annual_report], "Write a note.")(
        [("get_store_report", {"company": "NORD"}), ("get_annual_report", {"company": "NORD"})], report)
    assert claim_of(cascade, "twelve").verdict in COVERED_VERDICTS
    assert claim_of(cascade, "fifteen").verdict not in COVERED_VERDICTS
    trace = tmp_path / "trace0"
    sources = _trace_sources(trace, "news: NORD")  # the tools' outputs (the store report's, the annual report's)
    index = SourceIndex.build(trace, sources)
    flags = [fi.number_words for fi in index.files]
    assert flags == [bool(list(quantities.number_word_lines(index.loaded(f).text))) for f in range(len(flags))]
    assert True in flags and False in flags
    column = index_module._spelled_column(index)
    assert column and {q.text for _, q in column} == {"twelve"}
    for fi in index.files:
        fi.number_words = True  # as an index read whole (no pre-pass) keeps it: every file searched
    assert index_module._spelled_column(index) == column
    # 'one' alone is prose; 'one hundred' is a number; a number word inside a longer run is none
    for text, flag in (("one of the stores opened", False), ("one hundred stores opened", True),
                       ("Twenty-five stores opened", True), ("stone, often, tens", False), ("a zero sum", False)):
        assert quantities.PlainRuns(text).number_words is flag, text
        assert bool(list(quantities.number_word_lines(text))) is flag, text
