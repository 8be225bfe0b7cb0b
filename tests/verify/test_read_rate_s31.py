"""Stop 31 (issue 14, the audit's read rate), every answer kept: the claim-driven index's first step. The audit knows
its claims' figures before it reads the files (`sources.expected_lookups`): each `SourceIndex` then keeps by value
only the deferred numbers those lookups can reach (`_merged_windows`, `_expected_places`), and a lookup outside
them puts every deferred number in first (`_covered`). Lines are still parsed by value lookups and by subject
words (a derivation's operands) as before."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from langchain_core.tools import tool

from pytest_auditfence.claims import quantities
from pytest_auditfence.claims.quantities import parse_quantities
from pytest_auditfence.fence import Source
from pytest_auditfence.models import COVERED_VERDICTS
from pytest_auditfence.verify import sources as sources_module
from pytest_auditfence.verify.sources import SourceIndex, _merged_windows, _reach_windows, expected_lookups

from tool_runs import claim_of, tool_run_auditor

# a filing's prose as a data tool returns it, CRLF line ends: a figure with thousands separators and its scale
# restated ('1,248 million' for '$1.248 billion'), a share as a fraction, a unicode minus, prose operands of a
# derived margin, price lines whose numbers a lookup at another scale would reach, lines of other numbers
FILING = ("KESTREL market data\r\n"
          "news: KESTREL revenue reached $1,248 million in 2024, up from $1,040 million in 2023.\r\n"
          "news: KESTREL gross profit was $312 million in 2024.\r\n"
          "news: KESTREL margin was 25.0% and backlog reached $45.1 billion.\r\n"
          "fields: revenue_growth 0.2 for 2024\r\n"
          "news: KESTREL booked a net loss of \u22122.5 billion dollars on the old yard.\r\n"
          "news: KESTREL shipped 7,500 units.\r\n"
          + "".join(f"price: 2024-05-{n + 10:02d} close {n + 1}.{n + 20:02d} volume {n + 3},{n:03d},000\r\n"
                    for n in range(12)))

REPORT = ("KESTREL's revenue was $1.248 billion in 2024.\n"  # true: restated at another scale
          "KESTREL's revenue was $1,248 million in 2024.\n"  # true: as written
          "KESTREL's revenue was $1.284 billion in 2024.\n"  # invented: digits swapped
          "KESTREL's revenue grew 20% in 2024.\n"  # true: derived from two prose figures
          "KESTREL's gross margin was 25% in 2024.\n"  # true: 312 / 1,248
          "KESTREL's backlog reached $45.1 billion.\n"  # true
          "KESTREL's backlog reached $45.1 million.\n"  # invented: the wrong scale
          "KESTREL booked a net loss of $2.5 billion on the old yard.\n"  # true: a unicode minus
          "KESTREL shipped 7,500 units.\n"  # true
          "KESTREL shipped 7,600 units.\n")  # invented


@tool
def get_market_data(company: str) -> str:
    """The company's news and prices."""
    return FILING


def _claims(cascade) -> list[str]:  # type: ignore[no-untyped-def]
    return [claim.model_dump_json() for claim in cascade.claims]


def test_a_captured_run_audits_the_same_with_and_without_the_claims_expected(tmp_path: Path, monkeypatch) -> None:
    run = tool_run_auditor(tmp_path, [get_market_data], "Summarise KESTREL's year.")
    built: list[SourceIndex] = []
    build = SourceIndex.build

    def kept(*args, **kwargs):  # type: ignore[no-untyped-def]
        index = build(*args, **kwargs)
        built.append(index)
        return index

    monkeypatch.setattr(SourceIndex, "build", kept)
    cascade = run([("get_market_data", {"company": "KESTREL"})], REPORT)
    assert built and all(index._windows is not None or index.unexpected for index in built)
    for true in ("$1.248 billion", "$1,248 million", "grew 20%", "$45.1 billion", "$2.5 billion", "7,500 units"):
        assert claim_of(cascade, true).verdict in COVERED_VERDICTS, true
    for wrong in ("$1.284 billion", "$45.1 million", "7,600 units"):
        assert claim_of(cascade, wrong).verdict not in COVERED_VERDICTS, wrong
    # the same audit with no expectations (every deferred number kept by value, as before stop 31): every claim's
    # verdict, evidence and notes the same
    monkeypatch.setattr(sources_module, "expected_lookups", lambda figures: None)
    built.clear()
    every = run([("get_market_data", {"company": "KESTREL"})], REPORT)
    assert built and all(index._windows is None for index in built)
    assert _claims(every) == _claims(cascade)


def _filing_index(tmp_path: Path, text: str, expected) -> SourceIndex:  # type: ignore[no-untyped-def]
    (tmp_path / "tools").mkdir(exist_ok=True)
    (tmp_path / "tools" / "filing.txt").write_bytes(text.encode("utf-8"))
    source = Source.from_file(tmp_path, "tools/filing.txt", node="tools", kind="tool_call")
    return SourceIndex.build(tmp_path, [source], expected=expected)


def _found(index: SourceIndex, value: float, tolerance: float) -> list[tuple[float, int]]:
    return [(o.value, index.files[o.file].quantity(o.item).start) for o in index.near(value, tolerance)]


def test_an_expected_index_keeps_fewer_numbers_and_finds_the_same_figures(tmp_path: Path) -> None:
    claimed = parse_quantities("revenue of $1.248 billion, a margin of 25.0%, 6.1% growth, 7,500 units, "
                               "a loss of $2.5 billion and 350°F")
    expected = expected_lookups(claimed)
    assert (1.248e9, 0.0005e9) in expected and (0.061, 0.0005 + 1e-12) in [(v, round(t, 15)) for v, t in expected]
    lean = _filing_index(tmp_path, FILING, expected)
    full = _filing_index(tmp_path, FILING, None)
    rows = sum(len(group[2]) for group in lean._runs)
    assert 0 < rows < sum(len(group[2]) for group in full._runs)
    for value, tolerance in expected:
        assert _found(lean, value, tolerance) == _found(full, value, tolerance), value
    assert lean.unexpected == 0 and lean._windows is not None
    assert _found(lean, 1.248e9, 0.0005e9)  # the restated figure is found
    # a lookup nobody expected (a price): every number is put in first, and the answer is the one of the full index
    assert _found(lean, 9.29, 0.005) == _found(full, 9.29, 0.005) != []
    assert lean.unexpected == 1 and lean._windows is None
    assert sum(len(group[2]) for group in lean._runs) == sum(len(group[2]) for group in full._runs)


@pytest.mark.parametrize("seed", range(3))
def test_every_number_a_lookup_can_reach_is_kept(tmp_path: Path, seed: int) -> None:
    """Seeded prose (numbers with separators, decimals, scales, CRLF, percent and thousands forms): for lookups of
    the claimed figures, their `_reach` windows hold no deferred number the lean index left out, and the lookups of
    both indexes give the same figures; lookups near but outside (not expected) too, after their fallback."""
    rng = random.Random(3100 + seed)
    scales = ["", " thousand", " million", " billion", "bn", "m", "%", " percent", " units"]
    lines = []
    for _ in range(300):
        whole = rng.choice([rng.randint(0, 99), rng.randint(100, 9999), rng.randint(10_000, 9_999_999)])
        written = f"{whole:,}" if rng.random() < 0.5 else str(whole)
        if rng.random() < 0.5:
            written += "." + str(rng.randint(0, 999)).zfill(rng.randint(1, 3))
        lines.append(f"note: the figure was {'$' if rng.random() < 0.3 else ''}{written}{rng.choice(scales)} "
                     f"and then {rng.randint(1, 99)}.{rng.randint(0, 9)}{rng.choice(scales)} in the period.")
    text = "data\r\n" + "\r\n".join(lines) + "\r\n"
    figures = [q for line in rng.sample(lines, 40) for q in parse_quantities(line)]
    expected = expected_lookups(figures)
    lean = _filing_index(tmp_path, text, expected)
    full = _filing_index(tmp_path, text, None)
    windows = _merged_windows(expected)
    fi = full.files[0]
    # one file: a row's place is its number's place in the file's deferred numbers (the same in both indexes)
    kept_places = {place for _, _, _, places, _ in lean._runs for place in places}
    assert len(kept_places) < len(fi.run_decimals)
    for value, tolerance in expected:
        for decimals in range(len(windows)):
            for lo, hi in _reach_windows(value, tolerance, decimals):
                for place in range(len(fi.run_decimals)):
                    if min(fi.run_decimals[place], len(windows) - 1) == decimals and lo <= fi.run_value(place) <= hi:
                        assert place in kept_places, (value, fi.run_value(place))
    for value, tolerance in expected:
        assert _found(lean, value, tolerance) == _found(full, value, tolerance), value
    assert lean.unexpected == 0
    for q in figures[:10]:  # not expected: a figure a tenth larger
        assert _found(lean, q.value * 1.1, q.tolerance) == _found(full, q.value * 1.1, q.tolerance)


def test_expected_lookups_reads_the_forms_a_claim_is_looked_up_in() -> None:
    """Every value `verify_claim` looks up for a claimed figure: its value, its value as written (the scale and unit
    left off), that as a fraction, a Fahrenheit figure in Celsius; the signs dropped; a lookup that is not a finite
    number is never expected."""
    (billion,) = parse_quantities("$1.2 billion")
    (share,) = parse_quantities("6.1%")
    (loss,) = parse_quantities("-350°F")
    found = expected_lookups([billion, share, loss])
    values = {round(v, 9) for v, _ in found}
    assert {1.2e9, 1.2, 0.012, 6.1, 0.061, 350.0, round(abs((-350.0 - 32.0) * 5.0 / 9.0), 9)} <= values
    assert all(v >= 0 for v, _ in found)
    assert _merged_windows([(float("nan"), 1.0), (float("inf"), 1.0)]) == _merged_windows([])
    assert quantities.PLAIN_SCALES  # the windows are per plain scale


# a filing's prose with figures written as words, CRLF line ends: counts, scaled and fractional figures, a number
# word and its 'hundred' apart by a blank line, fraction words that state no figure ('the coming quarters')
WORDED = ("HERON annual review\r\n"
          "news: HERON opened twelve new stores and guided for the coming quarters.\r\n"
          "news: HERON raised half a million dollars from the sale of the old depot.\r\n"
          "news: HERON said services were a quarter of total sales, and a third of revenue came from Asia.\r\n"
          "news: HERON's margin rose by point five percent; it sold one billion dollars of bonds.\r\n"
          "news: HERON employs two\r\n\r\nhundred engineers in Oslo.\r\n"
          "price: 2024-06-03 close 12.40 volume 1,300,000\r\n")


@tool
def get_review(company: str) -> str:
    """The company's annual review."""
    return WORDED


def test_a_captured_run_reads_the_same_spelled_figures_from_the_number_word_lines_alone(tmp_path: Path,
                                                                                       monkeypatch) -> None:
    report = ("HERON opened 12 new stores.\n"  # true: 'twelve new stores'
              "HERON raised $0.5 million from the sale of the old depot.\n"  # true: 'half a million dollars'
              "HERON sold $1 billion of bonds.\n"  # true: 'one billion dollars'
              "HERON opened 13 new stores.\n"  # invented
              "HERON raised $0.7 million from the sale of the old depot.\n")  # invented
    run = tool_run_auditor(tmp_path, [get_review], "Summarise HERON's year.")
    cascade = run([("get_review", {"company": "HERON"})], report)
    for true in ("12 new stores", "$0.5 million", "$1 billion"):
        assert claim_of(cascade, true).verdict in COVERED_VERDICTS, true
    for wrong in ("13 new stores", "$0.7 million"):
        assert claim_of(cascade, wrong).verdict not in COVERED_VERDICTS, wrong
    # the whole text read at once, as before stop 31: the same claims, evidence and notes
    monkeypatch.setattr(sources_module, "_number_word_blocks", lambda text, starts: [(0, len(text))])
    assert _claims(run([("get_review", {"company": "HERON"})], report)) == _claims(cascade)


def _starts(text: str) -> list[int]:
    return [0, *(at + 1 for at, ch in enumerate(text) if ch == "\n")]


def _spelled(text: str, spans) -> list[tuple[int, int, list[str]]]:  # type: ignore[no-untyped-def]
    return [(a + s, a + e, [q.model_dump_json() for q in quantities.spelled_figures(text[a + s:a + e], a + s)])
            for a, b in spans for s, e in quantities.number_word_lines(text[a:b])]


def test_the_number_word_blocks_give_every_line_the_whole_text_gives() -> None:
    """`number_word_lines` of each block gives, with its figures, what it gives of the whole text: on seeded texts of
    number words, fraction words with and without an 'a' or a number before them, 'hundred' past blank lines, CRLF,
    unicode spaces, words that hold a number word ('money', 'weight'), and characters whose lower case is ASCII
    (the Kelvin sign) or longer ('İ')."""
    pieces = ["two", "Two", "twenty-one", "one", "One", "zero", "point", " point five", "half", "a half", "a quarter",
              "quarters", "two-thirds", "a third", "fifth", "hundred", "\n", "\n\n", "\r\n", " \n \n", " ", "\t", " of ",
              " a ", " million", " billion", " percent", " dollars", "made up ", "accounted for ", "were ", " stores",
              "5", "1.2", "%", "$", "money", "done", "often", "\u0130", "\u212a", "\u00e9", "\u2019", "-", "eight",
              "weight", "seventeen", "nine", "ninety", "\u2028", "\x1c", "x", "one-half", "three quarters of ",
              "a fifth of a million", "one and a half", "a\u2010third of", "a - quarter", "ba quarter", "a\tthirds",
              "the coming quarters", "A Quarter", "\u00a0"]
    rng = random.Random(3131)
    figures = 0
    for _ in range(3000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(1, 40)))
        whole = _spelled(text, [(0, len(text))])
        assert _spelled(text, sources_module._number_word_blocks(text, _starts(text))) == whole, text
        figures += sum(len(found) for _, _, found in whole)
    assert figures > 500
    # the bench's prose: its 'quarters' and 'billion' hold no figure, and no line of it is read
    news = "news: T01 guidance for the coming quarters; backlog reached $4.5 billion.\n" * 50
    assert sources_module._number_word_blocks(news, _starts(news)) == [] == _spelled(news, [(0, len(news))])
    assert sources_module._number_word_blocks(WORDED, _starts(WORDED))  # its lines are read
