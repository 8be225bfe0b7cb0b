"""Stop 29 (issue 14, the audit's read rate), every answer kept: a deferred line that a value lookup reaches at a
scale other than 1 is parsed only where it spells that scale (`quantities.SCALE_SPELLINGS`: no figure of a line
without the word carries the scale); the pre-pass reads its numbers' values and decimals at C speed (joined, split,
mapped) and finds '/', '@', '*' and '_' by `str.find`; the CSV reader tries its line pattern only at lines holding a
comma (`tables._csv_lines`)."""

from __future__ import annotations

import random
from pathlib import Path

from langchain_core.tools import tool

from pytest_auditfence.claims import quantities
from pytest_auditfence.fence import FileStore, LoadedFile, Source
from pytest_auditfence.models import COVERED_VERDICTS
from pytest_auditfence.verify import tables
from pytest_auditfence.verify.sources import FileIndex, SourceIndex, _index_file

from test_compact_index import _bench_corpus
from test_lazy_front_s24 import PIECES
from test_prepass_s25 import BREAKING, _same_as_per_line
from tool_runs import claim_of, tool_run_auditor

# a filing's prose as a data tool returns it: news lines that spell a scale, price lines whose numbers would reach
# a lookup at a scale they do not spell, a range whose first end takes the scale of its second, a unicode minus and
# a thin space (lines the scanner reads when the file is indexed), CRLF line ends
FILING = ("ORCA market data\r\n"
          "news: ORCA margin was 12.3% and backlog reached $45.1 billion.\r\n"
          "price: 2024-03-12 close 12.30 volume 1,250,000\r\n"
          "price: 2024-03-13 close 45.20 volume 8,800,000\r\n"
          "news: ORCA guided revenue of $1.2 to $1.5 billion for the next year.\r\n"
          "news: ORCA sold 7.5 million units.\r\n"
          "news: ORCA booked a net loss of \u22122.5 billion dollars on the old plant.\r\n"
          "news: ORCA holds $3.4\u202fbillion of cash.\r\n"
          + "".join(f"price: 2024-04-{n + 10:02d} close {n + 1}.{n:02d} volume {n + 1},{n:03d},000\r\n" for n in range(9)))


@tool
def get_market_data(company: str) -> str:
    """The company's news and prices."""
    return FILING


@tool
def get_profile(company: str) -> str:
    """The company's profile (no digits)."""
    return "ORCA builds ferries and tugs.\nIts head office is in Bergen.\n"


def _index_of(trace: Path, marker: str) -> tuple[SourceIndex, FileIndex]:
    """The index of the one tool output of the captured run holding `marker`, and that file's index."""
    sources = [Source.from_file(trace, str(p.relative_to(trace)), node="tools", kind="tool_call")
               for p in sorted((trace / "tools").rglob("*.txt")) if not p.name.endswith(".arguments.txt")
               and marker in p.read_text(encoding="utf-8")]
    assert len(sources) == 1
    index = SourceIndex.build(trace, sources)
    return index, index.files[0]


def test_a_captured_run_parses_only_the_lines_that_spell_the_scale_and_verifies_as_before(tmp_path: Path,
                                                                                          monkeypatch) -> None:
    report = ("ORCA's backlog reached $45.1 billion.\n"  # true: a deferred line that spells 'billion'
              "ORCA's backlog reached $12.3 billion.\n"  # invented: 12.3 is a margin and a price, no billion
              "ORCA's backlog reached $45.2 billion.\n"  # invented: 45.20 is a price
              "ORCA guided revenue of at least $1.2 billion for the next year.\n"  # true: the range's first end
              "ORCA sold 7.5 million units.\n"  # true
              "ORCA sold 7.5 billion units.\n"  # invented: the wrong scale
              "ORCA booked a net loss of $2.5 billion on the old plant.\n"  # true: a unicode minus, read eagerly
              "ORCA holds $3.4 billion of cash.\n"  # true: a thin space before the scale
              "ORCA holds $3.9 billion of cash.\n")  # invented
    cascade = tool_run_auditor(tmp_path, [get_market_data, get_profile], "Summarise ORCA's year.")(
        [("get_market_data", {"company": "ORCA"}), ("get_profile", {"company": "ORCA"})], report)
    for true in ("$45.1 billion", "$1.2 billion", "7.5 million", "$2.5 billion", "$3.4 billion"):
        assert claim_of(cascade, true).verdict in COVERED_VERDICTS, true
    for wrong in ("$12.3 billion", "$45.2 billion", "7.5 billion", "$3.9 billion"):
        assert claim_of(cascade, wrong).verdict not in COVERED_VERDICTS, wrong

    trace = tmp_path / "trace0"
    index, fi = _index_of(trace, "close 12.30")
    lines = {line: fi.text.splitlines()[line - 1] for line in fi.deferred}
    assert any("close 12.30" in text for text in lines.values())  # the price lines are deferred
    assert not any("\u2212" in text or "\u202f" in text for text in lines.values())  # not ASCII: read eagerly
    # $12.3 billion reaches the margin's line (it spells billion: parsed) and the price line 12.30 (it does not)
    list(index.near(12.3e9, 0.05e9))
    parsed = {lines[line] for k, line in enumerate(fi.deferred) if fi._done[k]}
    assert any("margin was 12.3%" in text for text in parsed)
    assert not any("close 12.30" in text for text in parsed)
    assert not list(index.near(12.3e9, 0.05e9))
    # the same lookups without the spelling test parse more lines and find the same figures
    for value, tolerance in ((12.3e9, 0.05e9), (45.2e9, 0.05e9), (45.1e9, 0.05e9), (7.5e9, 0.05e9), (1.2e9, 0.05e9),
                             (7.5e6, 0.05e6), (12.3e6, 0.05e6), (1.25e9, 0.5e6), (12.3, 0.05), (45.2, 0.005)):
        fresh, _ = _index_of(trace, "close 12.30")
        monkeypatch.setattr(quantities, "SCALE_SPELLINGS", {})
        every, _ = _index_of(trace, "close 12.30")
        found_every = [(o.value, o.file, every.files[0].quantity(o.item).start) for o in every.near(value, tolerance)]
        monkeypatch.undo()
        found = [(o.value, o.file, fresh.files[0].quantity(o.item).start) for o in fresh.near(value, tolerance)]
        assert found == found_every, value
        assert sum(fresh.files[0]._done) <= sum(every.files[0]._done)
    # the profile's own lines hold no digit: none of them is deferred or read as a figure
    _, profile = _index_of(trace, "ferries")
    assert all(line.startswith("tool_call_id") for line in (profile.text.splitlines()[n - 1] for n in profile.deferred))
    bare = _index_file(LoadedFile("x.txt", "ORCA builds ferries and tugs.\r\nIts head office is in Bergen.\r\n", ""))
    assert not len(bare.deferred) and not len(bare.starts) and not len(quantities.PlainRuns(bare.text).values)


def test_a_figure_at_a_scale_is_read_only_on_a_line_that_spells_it() -> None:
    """What the spelling test rests on: no figure `parse_quantities` reads on a line alone (as a deferred line is
    read) carries a scale other than 1 unless the line holds a match of that scale's `SCALE_SPELLINGS` pattern; and
    each pattern finds every spelling the parser reads as its scale, after a number, in any case."""
    scales = {scale: [w for w, v in quantities._SCALE_WORDS.items() if v == scale]
              for scale in quantities.SCALE_SPELLINGS}
    assert set(scales) == set(quantities.PLAIN_SCALES) - {1.0}
    for scale, words in scales.items():
        for word in words:
            for written in (f"5 {word}", f"$5{word.upper()}", f"5\u00a0{word.title()}", f"5{word}.", f"(5 {word})"):
                assert quantities.SCALE_SPELLINGS[scale].search(written), written
    rng = random.Random(2901)
    extra = [" Billion", "BN", " Mn", " mln", " tn", " trillion", " thousands", "-billion", "bn", "b", "t", " MM", "mm",
             " k", "\u202f", "\u00a0", "$", "€", " and ", "1.2", " to ", "-", "**", " between ", "two", " hundred"]
    scaled = 0
    for _ in range(6000):
        line = "".join(rng.choice(PIECES + extra) for _ in range(rng.randint(1, 16))).replace("\n", " ")
        for q in quantities.parse_quantities(line, words=True):
            if q.scale != 1.0:
                scaled += 1
                assert quantities.SCALE_SPELLINGS[q.scale].search(line), (line, q)
    assert scaled > 300
    assert not quantities.SCALE_SPELLINGS[1e9].search("close 12.30 volume 1,250,000")
    assert not quantities.SCALE_SPELLINGS[1e6].search("12 mmHg")  # 'mm' glued to a word is no scale


def _old_prepass_numbers(text: str) -> tuple[list[float], list[int]]:
    """The values and decimals the pre-pass kept before stop 29, one number at a time."""
    kept = []
    for token in quantities._PLAIN_TOKEN.finditer(text):
        at = token.start()
        if token.lastgroup == "num" or token.lastgroup == "after_word" and (
                text.endswith(quantities._PREFIX_ENDINGS, 0, at) or text[at - 1] == "x"):
            kept.append(token.group())
    return ([float(num.replace(",", "")) for num in kept],
            [0 if (point := num.find(".")) < 0 else min(len(num) - point - 1, 255) for num in kept])


def test_the_prepass_reads_values_decimals_and_risky_characters_as_before(tmp_path: Path) -> None:
    rng = random.Random(2902)
    odd = ["0." + "1" * 300, "3." + "0" * 256, "\u0663\u0664.\u0665", "12,345,678.9", "x12", "USD12", "T12", "5/6",
           "a@b", "5*", "5_", "a_5", "*5", "\r\n", "12\u202f300", "\u22123.5", "1,23", ".5"]
    texts = ["", "no digits here\n", "\r\n\r\n", "5", "5\r\n6\r\n", "a_b*c/d@e\n"]
    for _ in range(400):
        texts.append(rng.choice(["\n", "\r\n"]).join(
            "".join(rng.choice(PIECES + BREAKING + odd) for _ in range(rng.randint(0, 12))) for _ in range(20)))
    root, sources = _bench_corpus(tmp_path)
    store = FileStore(root)
    texts += [store.load(source).text for source in sources[:6]]
    for text in texts:
        prepass = quantities.PlainRuns(text)
        values, decimals = _old_prepass_numbers(text)
        assert list(prepass.values) == values and list(prepass.decimals) == decimals, text
        _same_as_per_line(text)
    risky = quantities.PlainRuns("a/b\nok 5\n5*\nx*5\n5_\na_5\nc@d\n").risky
    assert risky == {1, 3, 5, 7}  # '/', '@' anywhere; '*' and '_' after a digit


def test_the_csv_reader_tries_its_pattern_at_the_lines_holding_a_comma_and_finds_the_same_lines(tmp_path: Path
                                                                                                ) -> None:
    def lines(found) -> list[tuple[int, int, str]]:
        return [(m.start(), m.end(), m.group()) for m in found]

    rng = random.Random(2903)
    pieces = [",", "\n", "\r\n", '"', "a", "1", "1,234", "|", ", ", "x,y", "12,345.6", " ", "\r", "é,", "\n\n",
              "abc,def,ghi\n", '"a, b",3\n', "volume 1,234,567\n"]
    texts = ["", ",", "\n,", ",\n", "no comma\n", "a,b\r\nc,d\r\n"]
    texts += ["".join(rng.choice(pieces) for _ in range(rng.randint(0, 40))) for _ in range(5000)]
    root, sources = _bench_corpus(tmp_path)
    store = FileStore(root)
    texts += [store.load(source).text for source in sources[:6]]
    for text in texts:
        assert lines(tables._csv_lines(text)) == lines(tables._CSV_LINE.finditer(text)), text


@tool
def get_segments(company: str) -> str:
    """Revenue by segment, as CSV."""
    return ('segment,revenue,units\r\n"Ferries, large",1200,14\r\nTugs,760,31\r\n"Services, other",295,"1,200"\r\n'
            "news: ORCA volume 1,234,567 and a note, with a comma\r\n")


def test_a_captured_csv_is_read_with_its_quoted_fields(tmp_path: Path) -> None:
    report = ("Tugs brought revenue of 760.\nServices, other brought revenue of 295.\n"
              "Tugs brought revenue of 706.\nServices, other brought revenue of 259.\n")
    cascade = tool_run_auditor(tmp_path, [get_segments], "ORCA's segments?")([("get_segments", {"company": "ORCA"})],
                                                                             report)
    for true in ("760", "295"):
        assert claim_of(cascade, true).verdict in COVERED_VERDICTS, true
    for wrong in ("706", "259"):
        assert claim_of(cascade, wrong).verdict not in COVERED_VERDICTS, wrong
