"""Stop 27 (issue 14, the audit's read rate), every answer kept: the content words of deferred lines are not read
when a file is indexed; `FileIndex.lines_with(word)` finds the deferred lines holding `word` when a subject search
first asks for it (a vocabulary of the deferred lines' letter runs, then a search of the text, each line found
confirmed by `content_words`), and keeps the answer."""

from __future__ import annotations

import random
from pathlib import Path

from langchain_core.tools import tool

from pytest_auditfence.fence import FileStore, LoadedFile, Source
from pytest_auditfence.models import COVERED_VERDICTS
from pytest_auditfence.verify import sources as sources_module
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
