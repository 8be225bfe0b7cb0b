"""Numbers written out that the claim reader did not read before stop 29 (issue 10): a decimal ('eighty-five point two
billion dollars'), a whole number with a fraction ('two and a half million'), a fraction of a scale word ('half a
million') or of a whole ('two-thirds of'), the first end of a range of counts ('four to fifteen stores') and 'one'
where it is a figure ('one billion dollars'). Each is read with the value and precision it states, and nothing is read
that the words do not state ('two billion' out of 'point two billion', 'one' out of 'one of our plants')."""

from __future__ import annotations

import re

import pytest

from pytest_auditfence.claims import quantities
from pytest_auditfence.claims.extract import extract_claims
from pytest_auditfence.claims.quantities import parse_quantities, spelled_counts, spelled_figures


def _read(text: str) -> list[tuple[str, float, str]]:
    return [(q.text, round(q.value, 6), q.kind) for q in spelled_figures(text)]


@pytest.mark.parametrize("text, figure, value, kind, tolerance", [
    ("Services brought in eighty-five point two billion dollars.", "eighty-five point two billion dollars",
     85.2e9, "currency", 0.05e9),
    ("Operating margin reached twelve point five percent.", "twelve point five percent", 12.5, "percent", 0.05),
    ("We issued one point zero five billion dollars of notes.", "one point zero five billion dollars", 1.05e9,
     "currency", 0.005e9),
    ("Capital spending was two and a half million dollars.", "two and a half million dollars", 2.5e6, "currency",
     0.05e6),
    ("Prices rose two and a half percent.", "two and a half percent", 2.5, "percent", 0.05),
    ("We raised half a million dollars for charity.", "half a million dollars", 0.5e6, "currency", 0.05e6),
    ("We raised a half million dollars for charity.", "a half million dollars", 0.5e6, "currency", 0.05e6),
    ("The fund holds a quarter of a million dollars.", "a quarter of a million dollars", 0.25e6, "currency", 0.005e6),
    ("Sales were three quarters of a million dollars.", "three quarters of a million dollars", 0.75e6, "currency",
     0.005e6),
    ("We issued one billion dollars of senior notes.", "one billion dollars", 1e9, "currency", 0.5e9),
    ("About a third of our revenue came from abroad.", "a third", 100 / 3, "percent", 0.5),
    ("Two-thirds of our employees work in manufacturing.", "Two-thirds", 200 / 3, "percent", 0.5),
    ("Three-quarters of the stores reopened.", "Three-quarters", 75.0, "percent", 0.5),
    ("One-quarter of sales came from services.", "One-quarter", 25.0, "percent", 0.5),
])
def test_a_figure_written_out_is_read_with_the_value_and_precision_it_states(
        text: str, figure: str, value: float, kind: str, tolerance: float) -> None:
    found = spelled_figures(text)
    assert [q.text for q in found] == [figure]
    assert found[0].value == pytest.approx(value) and found[0].kind == kind
    assert found[0].tolerance == pytest.approx(tolerance)
    # in a source, read as a line's figure too (the index and the spelled column read it with `words=True`)
    assert [q.text for q in parse_quantities(text, words=True)] == [figure]


@pytest.mark.parametrize("text", [
    "Revenue was eighty-five point two billion dollars.",  # not 'two billion dollars'
    "Margins rose one point two five percent.",  # not 'five percent'
    "Prices rose point five percent.",  # no whole part: left unread, never 'five percent'
])
def test_no_figure_is_read_out_of_a_decimal_s_digits(text: str) -> None:
    whole = [q.value for q in spelled_figures(text)]
    assert 2e9 not in whole and 5.0 not in whole
    assert len(whole) <= 1


@pytest.mark.parametrize("text", [
    "One of our three plants was closed.",  # 'one' is prose; 'three plants' is the count
    "We use a third-party vendor for payroll.",
    "Coat the ribs with half of the sauce.",
    "In a quarter of strong demand, margins held.",
    "Revenue for the third quarter of 2021 grew.",
    "No one expected the third of the plants to close.",
    "It takes half an hour.",
])
def test_prose_words_are_no_figures(text: str) -> None:
    assert [q for q in spelled_figures(text) if q.kind != "number" or q.value < 2] == []


@pytest.mark.parametrize("text, counts", [
    ("We plan to open four to fifteen stores next year.", [4.0, 15.0]),
    ("We operate between two and five plants.", [2.0, 5.0]),
    ("We plan twenty-one to thirty stores.", [21.0, 30.0]),
    ("We open one to three stores a year.", [1.0, 3.0]),
    ("We sold two and five stores.", [5.0]),  # 'and' joins two counts only after 'between'
    ("Two-thirds of five stores", [5.0]),
    ("We closed two and a half stores.", []),  # no whole count
])
def test_both_ends_of_a_range_of_counts_are_read(text: str, counts: list[float]) -> None:
    assert [q.value for q in spelled_counts(text)] == counts


def test_a_claim_holds_the_figures_it_writes_out() -> None:
    report = ("Services brought in eighty-five point two billion dollars in the quarter. "
              "Capital spending was two and a half million dollars. Two-thirds of employees work in manufacturing. "
              "One of the three plants was closed, and the company issued one billion dollars of notes.")
    atoms = [(q.text, round(q.value, 3)) for c in extract_claims(report) for q in c.quantities]
    assert ("eighty-five point two billion dollars", 85.2e9) in atoms
    assert ("two and a half million dollars", 2.5e6) in atoms
    assert ("Two-thirds", 66.667) in atoms
    assert ("one billion dollars", 1e9) in atoms
    assert not [a for a in atoms if a[0].lower() == "one" or a[1] in (2e9, 1.0)]


@pytest.mark.parametrize("text, value", [
    ("five", 5.0), ("Twenty-five", 25.0), ("eighty-five point two", 85.2), ("two and a half", 2.5),
    ("one point five", 1.5), ("one", 1.0), ("five stores", None), ("5", None),
])
def test_spelled_value_reads_one_number_written_out(text: str, value: float | None) -> None:
    assert quantities.spelled_value(text) == (pytest.approx(value) if value is not None else None)


@pytest.mark.parametrize("text, end", [
    ("between five and seven percent", "seven"),
    ("from five point five to six percent", "six"),
    ("rose 12% to one of its best levels", None),  # a lone 'one' is prose
    ("rose to two of our plants", None),  # a number of things named after it
])
def test_the_spelled_number_pattern(text: str, end: str | None) -> None:
    found = re.search(r"(?:and|to)\s+(" + quantities.SPELLED_NUMBER + ")", text)
    assert (found.group(1) if found else None) == end


@pytest.mark.parametrize("text, kept", [
    ("We issued one billion dollars of notes.\nOne of our plants closed.\nMargins rose one percent.", [0, 2]),
    ("We raised half a million dollars.\nHalf of the team moved.", [0]),
    ("A third of revenue came from abroad.\nThe third quarter was strong.", [0]),
])
def test_source_lines_with_a_one_or_a_fraction_as_a_figure_are_read(text: str, kept: list[int]) -> None:
    lines = text.split("\n")
    starts = [sum(len(x) + 1 for x in lines[:i]) for i in range(len(lines))]
    assert [starts.index(s) for s, _ in quantities.number_word_lines(text)] == kept
    assert quantities.PlainRuns(text).number_words
