"""The lazy front's pre-pass as one pass over a file (`quantities.PlainRuns`): every line gets what the per-line
pre-pass (`quantities.plain_runs`) gives it, the numbers kept or None, on seeded texts of edge pieces (line breaks
inside them too), on the bench's files and on a captured LangGraph run; the lines it cannot settle by its tokens
(a mask starting inside a number, a mask across a line break, a unit with a factor, a number word, a wrapped line)
are handed to `plain_runs` itself."""

from __future__ import annotations

import random
from pathlib import Path

from langchain_core.tools import tool

from pytest_auditfence.claims import quantities
from pytest_auditfence.fence import FileStore, LoadedFile, Source
from pytest_auditfence.models import COVERED_VERDICTS
from pytest_auditfence.verify.sources import _index_file

from test_compact_index import _bench_corpus
from test_lazy_front_s24 import PIECES
from tool_runs import claim_of, tool_run_auditor

# pieces that reach across a line break or hold a line-level risk
BREAKING = ["\n", "\n ", "5\n", "\nMarch", " 5 March\n2024", "\r\n", "one", "Two", "cents", "5 years", "12 mos", "deg",
            "www.x", "a@b.c", "/", ":", ":3", "3*", "_", "\t", "  ", "2024-", "Q", "H", "1Q", "3Q 2024", "am", "PM",
            "p.m.", "A.M.", "0.53-5 March", "9,999.5-5 pm", "in.", "é", " tonnes", " GW", "12.05.2024", "555.123.4567",
            "1.555.123.4567", "555-123-4567", " - 6 March", " of March", "10:30", " p.m.", "2023 – 2024", "2023/24",
            " H", "1H", "2H 2024", "1980's", " Jan.", "\t", " a", " P"]


def _lines(text: str) -> list[tuple[int, int, int]]:
    """(1-based line, start, end) of every line, cut at '\\n' as the scanner cuts them."""
    out, start = [], 0
    for number, part in enumerate(text.split("\n"), 1):
        out.append((number, start, start + len(part)))
        start += len(part) + 1
    return out


def _same_as_per_line(text: str) -> int:
    """Assert that every line of `text` gets `plain_runs`'s answer; the number of lines settled by the tokens."""
    prepass = quantities.PlainRuns(text)
    for line, start, end in _lines(text):
        want = quantities.plain_runs(text, start, end)
        got = prepass.of_line(line, start, end)
        if want is None:
            assert got is None, (text[start:end], got)
        else:
            assert got is not None, (text[start:end], want)
            assert (list(got[0]), list(got[1])) == ([v for v, _ in want], [min(d, 255) for _, d in want]), \
                text[start:end]
    return sum(line not in prepass.risky for line, _, _ in _lines(text))


def test_every_line_gets_what_the_per_line_prepass_gives(tmp_path: Path) -> None:
    rng = random.Random(25)
    settled = total = 0
    for _ in range(300):  # lines of edge pieces, joined by '\n' or '\r\n'
        text = rng.choice(["\n", "\r\n"]).join("".join(rng.choice(PIECES) for _ in range(rng.randint(0, 14)))
                                               for _ in range(60))
        settled += _same_as_per_line(text)
        total += 60
    assert settled > total / 3  # most of them without `plain_runs`
    for _ in range(300):  # pieces with line breaks inside them
        _same_as_per_line("".join(rng.choice(PIECES + BREAKING) for _ in range(rng.randint(0, 500))))
    root, sources = _bench_corpus(tmp_path)
    for source in sources[:6]:
        text = (root / source.path).read_text(encoding="utf-8")
        assert _same_as_per_line(text) == text.count("\n") + 1  # the bench's lines: every one by the tokens


def test_lines_the_tokens_cannot_settle_are_read_by_the_per_line_prepass() -> None:
    cases = {
        # a mask starting inside a number ('53-5 March', '5-5 pm'): the numbers after it are read as inside it
        "rates of 0.53-5 March  and 12": [(0.53, 2), (5.0, 0), (12.0, 0)],
        "1,234,567 and [9,999.5-5 pm": [(1234567.0, 0), (9999.5, 1), (5.0, 0)],
        "on 15 March, sales of 12 units": [(12.0, 0)],  # a mask at a clean start: skipped whole, settled by the tokens
        "spreads widened 35 bps": None,  # a unit with a factor
        "five stores and 12 outlets": None,  # a number word
        "a 12.5 cents dividend": None,
        "see www.example.com 2024 and 12": None,
        "1,23 and 45": None,  # the parser resumes inside the digits
    }
    for line, want in cases.items():
        text = line + "\nnews: x"
        prepass = quantities.PlainRuns(text)
        assert quantities.plain_runs(text, 0, len(line)) == want, line
        got = prepass.of_line(1, 0, len(line))
        assert (got if got is None else [(v, d) for v, d in zip(*got)]) == want, line
        assert (1 in prepass.risky) == (line != "on 15 March, sales of 12 units"), line
        assert 2 not in prepass.risky
    # a date across a line break is a mask of neither line alone: both are read by `plain_runs`
    text = "sales fell on 5 \nMarch 2024 by 12 units\nnews: 7"
    prepass = quantities.PlainRuns(text)
    assert prepass.risky == {1, 2}
    assert [list(zip(*prepass.of_line(n, s, e))) for n, s, e in _lines(text)] == \
        [[(5.0, 0)], [(2024.0, 0), (12.0, 0)], [(7.0, 0)]]
    # a wrapped line (its unit may be on the next line) gives None, the same line before a field does not
    wrapped = "revenue for the period grew strongly to reach a total of 340"
    assert quantities.PlainRuns(wrapped + "\nthousand tonnes").of_line(1, 0, len(wrapped)) is None
    assert list(zip(*quantities.PlainRuns(wrapped + "\nnews: x").of_line(1, 0, len(wrapped)))) == [(340.0, 0)]


FILING = """Annual report, fiscal 2024 (in millions of US dollars)
| Segment | FY2024 | FY2023 |
|---|---|---|
| Cloud revenue | 1,234 | 1,102 |
news: NORD said on 15 March that margin was 41.7% and backlog reached $12.3 billion.
news: NORD rates of 0.53-5 March were kept; margin was 38.2% and orders reached $9.8 billion.
price: 2024-03-12 close 123.45 volume 1,234,567
"""


@tool
def get_annual_report(company: str) -> str:
    """The company's annual report."""
    return FILING


def test_a_captured_run_reads_deferred_lines_of_both_kinds_and_flags_fabrications(tmp_path: Path) -> None:
    report = ("The backlog reached $12.3 billion.\n"  # a line the tokens settle
              "Orders reached $9.8 billion.\n"  # a line with a mask inside a number: read by `plain_runs`
              "The backlog reached $12.3 million.\n"  # wrong scale
              "Orders reached $9.6 billion.\n"  # invented
              "The margin was 41.2%.\n")  # invented
    cascade = tool_run_auditor(tmp_path, [get_annual_report], "Write a note.")(
        [("get_annual_report", {"company": "NORD"})], report)
    trace = tmp_path / "trace0"
    sources = [Source.from_file(trace, str(p.relative_to(trace)), node="tools", kind="tool_call")
               for p in sorted(trace.rglob("*.txt")) if "NORD rates" in p.read_text(encoding="utf-8")]
    assert sources
    for source in sources:
        loaded = FileStore(trace).load(source)
        prepass = quantities.PlainRuns(loaded.text)
        news = [n for n in range(1, loaded.line_count + 1) if "news: NORD" in loaded.line_text(n)]
        assert len(news) == 2 and news[0] not in prepass.risky and news[1] in prepass.risky
        lazy = _index_file(loaded)
        assert set(news) <= set(lazy.deferred)
        lazy.materialize_all()
        whole = _index_file(loaded, lazy=False)
        assert sorted((lazy.starts[i], lazy.values[i]) for i in range(len(lazy.starts))) == \
            sorted((whole.starts[i], whole.values[i]) for i in range(len(whole.starts)))
    for true in ("$12.3 billion", "$9.8 billion"):
        assert claim_of(cascade, true).verdict in COVERED_VERDICTS, true
    for wrong in ("$12.3 million", "$9.6 billion", "41.2%"):
        assert claim_of(cascade, wrong).verdict not in COVERED_VERDICTS, wrong


def _deferred_values(text: str) -> list[tuple[float, int]]:
    """Every number `plain_runs` keeps on the lines a lazy index of `text` defers, in order (read from the text)."""
    loaded = LoadedFile("f.txt", text, "0" * 64)
    index = _index_file(loaded)
    out = []
    for line in index.deferred:
        out += quantities.plain_runs(text, *loaded.line_span(line)) or []
    return out


def test_deferred_numbers_are_kept_as_their_digits_and_read_back_as_the_values(tmp_path: Path) -> None:
    root, sources = _bench_corpus(tmp_path)
    for source in sources[:3]:
        text = (root / source.path).read_text(encoding="utf-8")
        fi = _index_file(LoadedFile(source.path, text, source.sha256))
        assert fi.run_digits.typecode == "I" and fi.run_firsts.typecode == "H"  # 4 bytes a number, 2 a line
        assert [(v, min(d, 255)) for v, d in _deferred_values(text)] == list(zip(fi.runs, fi.run_decimals))
        bounds = [*fi.run_firsts, len(fi.runs)]
        assert [fi.run_line(p) for p in range(len(fi.runs))] == \
            [k for k in range(len(fi.deferred)) for _ in range(bounds[k], bounds[k + 1])]
    # widened where a number's digits do not fit 4 bytes; its values kept where they do not fit 50 bits
    for tail, code in (("", "I"), ("news: sales of 12,345,678,901 units\n", "Q"),
                       ("news: a rate of 0.1234567890123456789 and 3.14159265358979323846\n", "d"),
                       ("news: a rate of 0." + "0" * 30 + "1 here\n", "d")):
        text = "news: margin was 45.3% and backlog $12.3 billion.\nnews: orders 1,234,567 and 0.05\n" + tail
        fi = _index_file(LoadedFile("f.txt", text, "0" * 64))
        assert fi.run_digits.typecode == code, tail
        want = _deferred_values(text)
        assert list(fi.runs) == [v for v, _ in want] and all(isinstance(v, float) for v in fi.runs), tail
    # a line with digits but no number the parser can read ('FY2024', a date) holds no figure: not kept; the same
    # figures as the file read whole
    text = "news: T12 outlook for FY2024 on 2024-03-15\nnews: margin was 45.3% in FY2024\n"
    lazy = _index_file(LoadedFile("f.txt", text, "0" * 64))
    assert list(lazy.deferred) == [2]
    lazy.materialize_all()
    whole = _index_file(LoadedFile("f.txt", text, "0" * 64), lazy=False)
    assert [lazy.quantity(i) for i in range(len(lazy.starts))] == [whole.quantity(i) for i in range(len(whole.starts))]
