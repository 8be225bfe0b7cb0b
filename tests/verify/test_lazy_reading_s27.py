"""Stop 27 (issue 14, the audit's read rate), every answer kept: the content words of deferred lines are not read
when a file is indexed; `FileIndex.lines_with(word)` finds the deferred lines holding `word` when a subject search
first asks for it (a vocabulary of the deferred lines' letter runs, then a search of the text, each line found
confirmed by `content_words`), and keeps the answer."""

from __future__ import annotations

import random
from pathlib import Path

from langchain_core.tools import tool

from pytest_auditfence.claims import quantities
from pytest_auditfence.fence import FileStore, LoadedFile, Source
from pytest_auditfence.models import COVERED_VERDICTS
from pytest_auditfence.verify import sources as sources_module
from pytest_auditfence.verify import tables
from pytest_auditfence.verify.sources import FileIndex, SourceIndex, _index_file, content_words

from test_compact_index import _bench_corpus
from tool_runs import claim_of, tool_run_auditor


def _words_as_read_when_indexed(fi: FileIndex, word: str) -> list[int]:
    """The lines an index that read every deferred line's words when it was built gave `word`: the lines read then
    (`line_words`) and each deferred line whose `content_words` hold it."""
    eager = list(FileIndex.lines_with(_without_deferred(fi), word))
    starts = LoadedFile("x.txt", fi.text, "").starts
    late = []
    for line in fi.deferred:
        start = starts[line - 1]
        end = fi.text.find("\n", start)
        if word in content_words(fi.text[start:len(fi.text) if end < 0 else end]):
            late.append(line)
    return sorted(eager + late)


def _without_deferred(fi: FileIndex) -> FileIndex:
    """A file index with `fi`'s `line_words` and no deferred line (its `lines_with` reads `line_words` alone)."""
    bare = FileIndex(fi.text)
    bare.line_words = fi.line_words
    return bare


# tokens as content_words cuts them: camelCase parts, '&' and '-' inside, cases, stopwords, short words, and what is
# no ASCII letter
TOKENS = ["revenue", "Revenue", "REVENUE", "reVenue", "totalRevenue", "netIncomeTotal", "R&D", "r&d-", "x-ray",
          "-margin-", "margins", "margin", "backlog", "the", "of", "in", "ab", "abc", "ABC", "Ünits", "units",
          "café", "naïve", "résumé", "&and", "cash-flow", "CashFlow", "cash", "flow", "Q3", "FY2024", "fy", "rev",
          "revenue's", "revenues", "e-commerce", "ECommerce"]
NUMBERS = ["$12.3 billion", "12", "4.5%", "1,234", "7 million", "2024", "0.5"]


def _seeded_text(rng: random.Random) -> str:
    lines = []
    for _ in range(rng.randint(1, 25)):
        kind = rng.random()
        if kind < 0.15:
            lines.append("| " + " | ".join(rng.choice(TOKENS + NUMBERS) for _ in range(3)) + " |")
        elif kind < 0.25:
            lines.append(f"{rng.choice(TOKENS)}: {rng.choice(NUMBERS)}")
        elif kind < 0.3:
            lines.append("")
        else:
            lines.append(" ".join(rng.choice(TOKENS + NUMBERS + [",", ";", "/", "(in millions)"])
                                  for _ in range(rng.randint(1, 14))))
    return rng.choice(["\n", "\r\n"]).join(lines) + rng.choice(["", "\n"])


def test_a_words_deferred_lines_are_those_content_words_gives_them_as_the_index_read_them_before() -> None:
    rng = random.Random(2714)
    asked = sorted(set(TOKENS) | {w for t in TOKENS for w in content_words(t)} | {"", "nothing", "Revenue", "r&d",
                                                                                   "café", "-", "rev enue"})
    deferred_lines = 0
    for _ in range(300):
        text = _seeded_text(rng)
        fi = _index_file(LoadedFile("x.txt", text, ""))
        deferred_lines += len(fi.deferred)
        for word in asked:
            assert list(fi.lines_with(word)) == _words_as_read_when_indexed(fi, word), (word, text)
    assert deferred_lines > 500  # the seeded texts defer lines (their words found only when asked)


def test_the_bench_files_answer_every_word_as_before_and_read_no_word_until_asked(tmp_path: Path) -> None:
    root, sources = _bench_corpus(tmp_path)
    store = FileStore(root)
    for source in sources[:4]:
        fi = _index_file(store.load(source))
        assert len(fi.deferred) > 100
        # indexed: no deferred line's word is read, none kept
        assert fi._vocabulary is None and not fi._asked
        assert not set(fi.line_words) & set(content_words("news margin backlog reached price close volume"))
        for word in sorted(set(content_words(fi.text)) | {"nothing", "revenue", "income"}):
            assert list(fi.lines_with(word)) == _words_as_read_when_indexed(fi, word), word
        # the metric rows' words are in the table, never on a deferred line: the vocabulary answers without a search
        assert fi._asked["revenue"] == () and fi._asked["backlog"]


FILING = ("NORD annual report 2024\nIncome statement (in millions)\n"
          "| Item | FY2024 | FY2023 |\n|---|---|---|\n| Revenue | 5,400 | 5,100 |\n\n"
          + "".join(f"news: NORD opened {n + 2} stores in region {n}; the backlog was steady.\n" for n in range(40))
          + "news: NORD said the backlog reached $12.3 billion at year end.\n")


@tool
def get_annual_report(company: str) -> str:
    """The company's annual report."""
    return FILING


@tool
def get_weather(city: str) -> str:
    """Weather for a city."""
    return "".join(f"day {n}: temperature 1{n} degrees, wind {n + 3} knots\n" for n in range(9))


def test_a_captured_run_finds_the_backlog_only_when_asked_and_verifies_as_before(tmp_path: Path,
                                                                                  monkeypatch) -> None:
    report = ("NORD's backlog reached $12.3 billion at year end.\n"  # true: on a deferred line
              "NORD's backlog reached $12.8 billion at year end.\n"  # invented
              "Revenue was $5.4 billion in FY2024.\n"  # true: a table cell (in millions)
              "Revenue was $5.6 billion in FY2024.\n")  # invented
    cascade = tool_run_auditor(tmp_path, [get_annual_report, get_weather], "Summarise NORD's year.")(
        [("get_annual_report", {"company": "NORD"}), ("get_weather", {"city": "Oslo"})], report)
    for true in ("$12.3 billion", "$5.4 billion"):
        assert claim_of(cascade, true).verdict in COVERED_VERDICTS, true
    for wrong in ("$12.8 billion", "$5.6 billion"):
        assert claim_of(cascade, wrong).verdict not in COVERED_VERDICTS, wrong

    trace = tmp_path / "trace0"
    sources = [Source.from_file(trace, str(p.relative_to(trace)), node="tools", kind="tool_call")
               for p in sorted(trace.rglob("*.txt")) if not p.name.endswith(".arguments.txt")
               and ("backlog" in p.read_text(encoding="utf-8") or "knots" in p.read_text(encoding="utf-8"))]
    assert len(sources) == 2
    index = SourceIndex.build(trace, sources)
    report_file = next(f for f, s in enumerate(sources) if "backlog" in (trace / s.path).read_text(encoding="utf-8"))
    weather = index.files[1 - report_file]
    assert all(fi._vocabulary is None and not fi._asked for fi in index.files)  # nothing read until asked
    searched: list[str] = []
    find = sources_module.FileIndex._find_deferred
    monkeypatch.setattr(sources_module.FileIndex, "_find_deferred",
                        lambda fi, word: searched.append(word) or find(fi, word))
    found = index.with_words(["backlog"], limit=400)
    assert {index.files[o.file].quantity(o.item).text for _, o in found} >= {"$12.3 billion"}
    backlog_lines = list(index.files[report_file].lines_with("backlog"))
    assert len(backlog_lines) == 41 and backlog_lines == _words_as_read_when_indexed(index.files[report_file],
                                                                                       "backlog")
    assert weather._asked["backlog"] == ()  # no deferred line of the weather holds the word: found by its vocabulary
    asked_before = len(searched)
    index.with_words(["backlog"])
    list(index.files[report_file].lines_with("backlog"))
    assert len(searched) == asked_before  # asked again: kept, not searched again


# Lines of every kind the scanner tells apart: captions (some the first line, some after signs, some stripped of
# separators only `str.strip` strips), table rows and separators, numeric fields and bullets, prose with plain and
# risky numbers, blank lines, and lines that only look like a caption or a field
LINES = ["(in millions)", "In thousands of USD", "  (in thousands, except per share data)", "Dollars in millions",
         "-- amounts in thousands", "\x1cin millions", "*in millions*", "USD in millions", "$ in millions", "in 2024",
         "income rose 5%", "Revenue (in $ millions)", "| Item | FY2024 | FY2023 |", "|---|---|---|",
         "| Revenue | 1,234 | 1,100 |", "| Margin (%) | 45.2 | 44.0 |", "| note | see below |", "a | b",
         "revenue: 1,234", "- revenue_usd_millions: 5,400", "eps: $1.25", "growth: 4.5%", "margin: 45.2 %",
         "units: USD millions", "fiscal_year: 2024", "note: 12 stores opened", "ratio: 1.5x",
         "news: NORD margin was 45.2% and backlog reached $12.3 billion.",
         "price: 2024-03-05 close 123.45 volume 1,234,567", "The company sold 12 units for $3.5 million.",
         "Temperature was 350F at 3:30 pm on 5/6.", "twelve stores, 1,23 and 1.2.3", "Revenue, 2024, 1234",
         "a,b,c", "1,2,3", "x,12,345", "", "   ", "\t", "Revenue grew 12% to $4.5 billion (in line).",
         "The café sold 5 cakes.", "Sales were 1,234 thousand units in FY2024"]


def _columns(fi: FileIndex) -> dict[str, object]:
    return {name: (list(value) if hasattr(value, "typecode") else value)
            for name in ("starts", "lengths", "values", "codes", "forms", "lines", "words", "alternatives", "labels",
                         "texts", "eager", "ordered", "deferred", "run_digits", "run_decimals", "run_firsts",
                         "number_words")
            for value in [getattr(fi, name)]} | {
        "line_words": {w: list(FileIndex.lines_with(_without_deferred(fi), w)) for w in fi.line_words},
        "typecodes": [getattr(fi, name).typecode for name in ("lines", "deferred", "run_digits", "run_firsts")]}


def _read_line_by_line(loaded: LoadedFile, monkeypatch) -> FileIndex:
    with monkeypatch.context() as m:
        m.setattr(sources_module, "_prose_blocks", lambda *args: [])
        return _index_file(loaded)


def test_prose_blocks_passed_over_whole_give_the_index_the_scanner_gives_line_by_line(tmp_path: Path,
                                                                                       monkeypatch) -> None:
    rng = random.Random(2727)
    passed = 0
    for _ in range(600):
        lines = [rng.choice(LINES) for _ in range(rng.randint(1, 30))]
        text = rng.choice(["\n", "\r\n"]).join(lines) + rng.choice(["", "\n", "5", "\n\n"])
        loaded = LoadedFile("x.txt", text, "")
        fi = _index_file(loaded)
        assert _columns(fi) == _columns(_read_line_by_line(loaded, monkeypatch)), text
        fi.materialize_all()
        whole = _index_file(loaded, lazy=False)
        assert sorted(zip(fi.starts, fi.lengths, fi.values)) == sorted(zip(whole.starts, whole.lengths, whole.values))
        passed += sum(last - first + 1 for first, last, _ in sources_module._prose_blocks(
            loaded, quantities.PlainRuns(text, loaded.starts), []))
    assert passed > 1000  # lines passed over in blocks
    root, bench = _bench_corpus(tmp_path)
    store = FileStore(root)
    for source in bench[:3]:
        loaded = store.load(source)
        blocks = sources_module._prose_blocks(loaded, quantities.PlainRuns(loaded.text, loaded.starts), [])
        assert sum(last - first + 1 for first, last, _ in blocks) > 500  # the news and price lines
        assert _columns(_index_file(loaded)) == _columns(_read_line_by_line(loaded, monkeypatch))


def test_a_caption_or_a_numeric_field_is_never_in_a_prose_block() -> None:
    for line in LINES:
        for before in ("", "x 1\n", "| a | 1 |\n"):
            text = before + line + "\n"
            starts = LoadedFile("x.txt", text, "").starts
            target = text.count("\n", 0, len(before)) + 1
            stripped = line.strip()
            if "|" not in stripped and stripped and len(stripped) <= 120 and quantities._CAPTION.search(stripped):
                assert target in set(quantities.caption_lines(text, starts)) or target == 1, line
            kv = quantities._KEY_VALUE.match(line)
            if kv is not None and quantities._NUMERIC_FIELD.fullmatch(kv.group("value")):
                assert target in set(quantities.numeric_field_lines(text, starts)), line
    assert not list(quantities.caption_lines("x\nnews: margin was 45.2% and backlog reached $12.3 billion.\n",
                                             [0, 2]))


def _grids_line_by_line(text: str, cells_of, same_count: bool = False) -> list[tuple[int, list[list[tuple[int, int]]]]]:
    """Runs of consecutive lines that `cells_of(pos, line)` gives cells (None: the line ends a run; 'skip': passed
    over; `same_count`: a line of another number of cells than the run's first ends it), read line by line: what the
    readers found before they searched the text for their lines."""
    grids: list[tuple[int, list[list[tuple[int, int]]]]] = []
    current = None
    pos = 0
    for line in text.split("\n"):
        cells = cells_of(pos, line)
        if cells == "skip":
            pos += len(line) + 1
            continue
        if cells is not None and (current is None or not same_count or len(cells) == len(current[1][0])):
            if current is None:
                current = (pos, [])
                grids.append(current)
            current[1].append(cells)
        else:
            current = None
        pos += len(line) + 1
    return grids


def _csv_cells(pos: int, line: str):
    return tables._csv_cells(pos, line.rstrip("\r"))


def _pipe_cells(pos: int, line: str):
    if "|" in line and tables._is_separator(line):
        return "skip"
    cells = quantities.split_table_row(line) if "|" in line else []
    return [(pos + a, pos + b) for a, b in cells] if len(cells) >= 2 else None


GRID_PIECES = ["a", "b", "1", "12", "123", "1,234", "12,345.6", ",", ", ", '"', '"x,y"', "|", " | ", "||", "---",
               "|---|---|", " ", "\t", "\r", "\n", "\n", "\n", "\r\n", ".", "x1", "1.5", "(in millions)", "Revenue",
               "2024", ",123", "123,", "-", ":", "ab,cd,ef", "1,2,3", "é", "٢", "x" * 50, "| a | 1 |", "|:--|--:|",
               "volume 1,234,567", "a,12,345"]


def test_the_pipe_and_csv_readers_find_the_grids_a_reading_line_by_line_finds() -> None:
    rng = random.Random(2771)
    found = 0
    for _ in range(20000):
        text = "".join(rng.choice(GRID_PIECES) for _ in range(rng.randint(0, 40)))
        pipes = [(g.start, g.rows) for g in tables._pipe_grids(text)]
        assert pipes == _grids_line_by_line(text, _pipe_cells), repr(text)
        csv = [(g.start, g.rows) for g in tables._csv_grids(text)]
        assert csv == [(start, rows) for start, rows in _grids_line_by_line(text, _csv_cells, True)
                       if len(rows) >= 3 and tables._has_digit_cell(tables._Grid(rows, start), text)], repr(text)
        found += len(pipes) + len(csv)
    assert found > 3000
    for lines in ("a,b,c\n1,2,3\n4,5,6", "x,y\r\n1,2\r\n3,4\r\n", 'n,"a, b"\n1,"2,000"\n3,"4"',
                  "price: close 12.5 volume 1,234,567\nprice: close 13.5 volume 1,234,568\nprice: close 1 volume 1,000,000"):
        assert [(g.start, g.rows) for g in tables._csv_grids(lines)] == [
            (start, rows) for start, rows in _grids_line_by_line(lines, _csv_cells, True) if len(rows) >= 3]


def test_a_number_too_wide_for_4_bytes_after_others_widens_the_column_and_keeps_each_number_once() -> None:
    for tail in ("news: 5 units and 12,345,678,901 units\n",
                 "news: 5 units\nnews: 7 and 12,345,678,901 units\nnews: 9 more\n"):
        text = "news: margin was 45.3% and backlog $12.3 billion.\n" + tail
        fi = _index_file(LoadedFile("f.txt", text, "0" * 64))
        assert fi.run_digits.typecode == "Q"
        want = [value for line in text.splitlines() for value, _ in quantities.plain_runs(line, 0, len(line))]
        assert list(fi.runs) == want and len(fi.run_digits) == len(fi.run_decimals), tail
        fi.materialize_all()
        whole = _index_file(LoadedFile("f.txt", text, "0" * 64), lazy=False)
        assert sorted(zip(fi.starts, fi.values)) == sorted(zip(whole.starts, whole.values))
