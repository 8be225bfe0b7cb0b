"""Fractions and decimals written out that the reader did not read before stop 30 (issue 10): a share after a verb of a
share ('made up half of all orders', 'were a quarter of total sales'), fifths ('a fifth of revenue'), thirds and
fifths of a scale word ('a third of a million dollars'), a decimal with no whole part ('point five percent') and a
ratio with a fraction ('one and a half times'). Each is read with the value and precision it states; the same words
as prose are no figure ('half of the sauce', 'a quarter of strong demand', 'three times a week', 'at this point')."""

from __future__ import annotations

import pytest

from pytest_auditfence.claims import quantities
from pytest_auditfence.claims.extract import extract_claims
from pytest_auditfence.claims.quantities import (
    PlainRuns, holds_number_word, number_word_lines, parse_quantities, spelled_figures, spelled_numbers,
)


@pytest.mark.parametrize("text, figure, value, kind, tolerance", [
    ("Online orders made up half of all orders.", "half", 50.0, "percent", 0.5),
    ("International sales were a quarter of total sales.", "a quarter", 25.0, "percent", 0.5),
    ("Services accounted for about one-half of revenue.", "one-half", 50.0, "percent", 0.5),
    ("Exports represented nearly half of our volume.", "half", 50.0, "percent", 0.5),
    ("A fifth of our revenue came from services.", "A fifth", 20.0, "percent", 0.5),
    ("Capital spending was two-fifths of revenue.", "two-fifths", 40.0, "percent", 0.5),
    ("Four fifths of the plants reopened.", "Four fifths", 80.0, "percent", 0.5),
    ("The foundation raised a third of a million dollars.", "a third of a million dollars", 1e6 / 3, "currency",
     0.005e6),
    ("We spent two-thirds of a billion dollars on research.", "two-thirds of a billion dollars", 2e9 / 3, "currency",
     0.005e9),
    ("The fund drew a fifth of a million dollars.", "a fifth of a million dollars", 0.2e6, "currency", 0.005e6),
    ("Gross margin improved by point five percent.", "point five percent", 0.5, "percent", 0.05),
    ("Yields rose point two five percent.", "point two five percent", 0.25, "percent", 0.005),
    ("Return on equity was one and a half times the average.", "one and a half times", 1.5, "ratio", 0.05),
    ("Leverage stood at two point five times earnings.", "two point five times", 2.5, "ratio", 0.05),
])
def test_a_fraction_written_out_is_read_with_the_value_and_precision_it_states(
        text: str, figure: str, value: float, kind: str, tolerance: float) -> None:
    found = spelled_figures(text)
    assert [q.text for q in found] == [figure]
    assert found[0].value == pytest.approx(value) and found[0].kind == kind
    assert found[0].tolerance == pytest.approx(tolerance)
    assert holds_number_word(text)
    # a source line holding it is one the spelled column reads, and the pre-pass keeps its file
    assert list(number_word_lines(text)) == [(0, len(text))]
    assert PlainRuns(text).number_words


@pytest.mark.parametrize("text", [
    "Coat the ribs with half of the BBQ sauce.",  # 'half of' with no verb of a share
    "Add half of the ham strips and chives.",
    "Half of the sauce goes on the ribs.",
    "Revenue grew on a quarter of strong demand.",
    "Results for a quarter of 2021 were strong.",
    "We serve it three times a week.",  # a whole number of times: a frequency as often as a ratio
    "At this point five people had left.",  # a 'point' that is no decimal point
    "He was half an hour late.",
    "We hired a third-party auditor.",
    "The fifth of our plants opened in May.",
])
def test_prose_words_are_no_figure(text: str) -> None:
    assert [q.text for q in spelled_figures(text) if q.kind in ("percent", "ratio")] == []


def test_a_decimal_s_digits_and_a_fraction_s_count_are_no_figures_of_their_own() -> None:
    # 'point two five percent' is 0.25%, not also 'five percent'; 'three' of 'three-fifths' no count
    assert [(q.text, q.value) for q in spelled_figures("Yields rose point two five percent.")] == [
        ("point two five percent", 0.25)]
    assert [n[2] for n in spelled_numbers("one point five")] == [1.5]  # a decimal with a whole part, as before
    assert [round(n[2], 4) for n in spelled_numbers("three-fifths of a million")] == [0.6]
    assert [q.text for q in spelled_figures("Exports were three-fifths of sales.")] == ["three-fifths"]


def test_only_a_share_s_words_are_a_whole_fraction() -> None:
    text = "Online orders made up half of all orders, and a third of returns."
    assert quantities.whole_fraction_at(text, text.index("half"), text.index("half") + 4)
    assert quantities.whole_fraction_at(text, text.index("a third"), text.index("a third") + 7)
    assert not quantities.whole_fraction_at(text, 0, 6)


def test_the_claims_of_a_report_carry_the_fractions() -> None:
    report = ("Online orders made up half of all orders in the quarter. Margin improved by point five percent. "
              "Return on equity was one and a half times the industry average.")
    claims = extract_claims(report)
    assert [[q.text for q in c.quantities] for c in claims] == [
        ["half"], ["point five percent"], ["one and a half times"]]


def test_digits_are_read_as_before() -> None:
    assert [q.text for q in parse_quantities("Return on equity was 1.5 times the average.")] == ["1.5 times"]
    assert spelled_figures("Return on equity was 1.5 times the average.") == []
