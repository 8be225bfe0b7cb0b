"""Table-driven tests of the quantity parser, scale contexts and `quantities_match`."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_auditfence.errors import AuditFenceError
from pytest_auditfence.claims import quantities
from pytest_auditfence.claims.quantities import (
    formula_constants,
    period_mentions,
    ClaimsInputError,
    QuantityScanner,
    detect_scale_context,
    parse_quantities,
    quantities_match,
)


def one(text: str, **kw):
    found = parse_quantities(text, **kw)
    assert len(found) == 1, f"{text!r} -> {[q.text for q in found]}"
    q = found[0]
    assert text[q.start:q.end] == q.text
    return q


# (text, span text, value, kind, unit, tolerance)
PARSED = [
    ("Revenue was $383.3B.", "$383.3B", 383.3e9, "currency", "USD", 0.05e9),
    ("about $1.2 billion", "$1.2 billion", 1.2e9, "currency", "USD", 0.05e9),
    ("1.2bn", "1.2bn", 1.2e9, "number", None, 0.05e9),
    ("1,200 million", "1,200 million", 1.2e9, "number", None, 0.5e6),
    ("US$5 million", "US$5 million", 5e6, "currency", "USD", 0.5e6),
    ("EUR 3.2bn", "EUR 3.2bn", 3.2e9, "currency", "EUR", 0.05e9),
    ("€5m", "€5m", 5e6, "currency", "EUR", 0.5e6),
    ("£2 million", "£2 million", 2e6, "currency", "GBP", 0.5e6),
    ("¥300", "¥300", 300, "currency", "JPY", 0.5),
    ("$5mm", "$5mm", 5e6, "currency", "USD", 0.5e6),
    ("$12k", "$12k", 12e3, "currency", "USD", 500),
    ("$2.1T", "$2.1T", 2.1e12, "currency", "USD", 0.05e12),
    ("$1.5 tn", "$1.5 tn", 1.5e12, "currency", "USD", 0.05e12),
    ("5 million dollars", "5 million dollars", 5e6, "currency", "USD", 0.5e6),
    ("50 cents", "50 cents", 0.5, "currency", "USD", 0.005),
    ("3 thousand", "3 thousand", 3e3, "number", None, 500),
    ("12M users", "12M", 12e6, "number", None, 0.5e6),
    ("1,234,567", "1,234,567", 1234567, "number", None, 0.5),
    ("383", "383", 383, "number", None, 0.5),
    ("3.50", "3.50", 3.5, "number", None, 0.005),
    ("5.2%", "5.2%", 5.2, "percent", "%", 0.05),
    ("5 per cent", "5 per cent", 5, "percent", "%", 0.5),
    ("12 percent", "12 percent", 12, "percent", "%", 0.5),
    ("1.5 percentage points", "1.5 percentage points", 1.5, "percent", "pp", 0.05),
    ("25 bps", "25 bps", 0.25, "bps", "bps", 0.005),
    ("40 basis points", "40 basis points", 0.40, "bps", "bps", 0.005),
    ("0.25x", "0.25x", 0.25, "ratio", "x", 0.005),
    ("2.5 times", "2.5 times", 2.5, "ratio", "x", 0.05),
    ("400°F", "400°F", (400 - 32) * 5 / 9, "temperature", "F", 0.5 * 5 / 9),
    ("205 °C", "205 °C", 205, "temperature", "C", 0.5),
    ("400F", "400F", (400 - 32) * 5 / 9, "temperature", "F", 0.5 * 5 / 9),
    ("350 degrees Fahrenheit", "350 degrees Fahrenheit", (350 - 32) * 5 / 9, "temperature", "F", 0.5 * 5 / 9),
    ("5 km", "5 km", 5, "length", "km", 0.5),
    ("3 miles", "3 miles", 3 * 1.609344, "length", "mi", 0.5 * 1.609344),
    ("100 kilometers", "100 kilometers", 100, "length", "km", 0.5),
    ("6 feet", "6 feet", 6 * 0.0003048, "length", "ft", 0.5 * 0.0003048),
    ("a 100m sprint", "100m", 0.1, "length", "m", 0.0005),
    ("2 kg", "2 kg", 2, "mass", "kg", 0.5),
    ("4 lbs", "4 lbs", 4 * 0.45359237, "mass", "lb", 0.5 * 0.45359237),
    ("10 pounds", "10 pounds", 10 * 0.45359237, "mass", "lb", 0.5 * 0.45359237),
    ("20 minutes", "20 minutes", 1200, "duration", "min", 30),
    ("a 24-hour period", "24-hour", 86400, "duration", "h", 1800),
    ("1/4 cup", "1/4", 0.25, "number", None, 0.00125),
    ("**$5.2 billion**", "$5.2 billion", 5.2e9, "currency", "USD", 0.05e9),
    ("**$5.2** billion", "$5.2** billion", 5.2e9, "currency", "USD", 0.05e9),
    ("a 2,023 units", "2,023", 2023, "number", None, 0.5),
    ("$2023", "$2023", 2023, "currency", "USD", 0.5),
]


@pytest.mark.parametrize(("text", "span", "value", "kind", "unit", "tolerance"), PARSED)
def test_parses_and_normalises(text, span, value, kind, unit, tolerance):
    q = one(text)
    assert q.text == span
    assert q.kind == kind
    assert q.unit == unit
    assert math.isclose(q.value, value, rel_tol=1e-9, abs_tol=1e-12)
    assert math.isclose(q.tolerance, tolerance, rel_tol=1e-9, abs_tol=1e-15)


NEGATIVES = [
    ("(1,234)", "(1,234)", -1234),
    ("| Net income | (99,803) |", "(99,803)", -99803),
    ("Net loss: (5.2)", "(5.2)", -5.2),
    ("$(1,234)", "(1,234)", -1234),
    ("down −5%", "−5%", -5),
    ("a change of –3.2%", "–3.2%", -3.2),
    ("-$5 million", "-$5 million", -5e6),
    ("−$1.2bn", "−$1.2bn", -1.2e9),
]


@pytest.mark.parametrize(("text", "span", "value"), NEGATIVES)
def test_negatives(text, span, value):
    q = one(text)
    assert q.text == span
    assert q.negative is True
    assert math.isclose(q.value, value)


@pytest.mark.parametrize(
    "text",
    [
        "revenue ($4.2 billion)",  # a parenthetical in prose is an aside, not a negative
        "400°F (205°C)",
        "rates of 3 -4 and 300-400 units",
        "grew 10-15%",
        "$5m-$6m",
    ],
)
def test_not_read_as_negative(text):
    found = parse_quantities(text)
    assert found, text
    assert not any(q.negative for q in found), [q.text for q in found]


@pytest.mark.parametrize(
    "text",
    [
        "2023",
        "in FY2024",
        "FY24",
        "Q3 2023",
        "3Q23",
        "H1 2024",
        "March 5, 2024",
        "5 March 2024",
        "on Jan. 15",
        "in May 2021",
        "2024-03-05",
        "03/05/2024",
        "2020-2021",
        "2019/20",
        "the 1990s",
        "in '23",
        "the 5th of March",
        "March 22nd",
        "April 24th and 25th",
        "the early 20th century",
        "1. Revenue",
        "  2) Margin",
        "(1) first, (2) second",
        "according to passage 3",
        "Passage 2 and 3",
        "passages 1-3",
        "passages 1, 2, and 3",
        "see [2]",
        "[1, 2]",
        "[^3]",
        "Section 4.2",
        "## 2.1 Revenue",
        "Step 5: click",
        "Table 4",
        "No. 3",
        "#12",
        "at 3:30 pm",
        "at 10:00",
        "at 9am",
        "at 5 p.m.",
        "call 555-123-4567",
        "call (555) 123-4567",
        "+1 415-555-1234",
        "v1.2.3",
        "version 2.0",
        "Python 3.11",
        "192.168.0.1",
        "COVID-19",
        "Omega-3 acids",
        "the 10-K",
        "use 7-Zip",
        "Form 20-F",
        "a 5G network",
        "3D printing",
        "MP3",
        "https://example.com/2023/report-5.html",
        "mail ir2023@example.com",
        "1e309",
        "9" * 40,
        "Type 2 diabetes",
        "continue with your 401(k) until",
        "a 501(c)(3) charity",
    ],
)
def test_not_quantities(text):
    assert parse_quantities(text) == [], [q.text for q in parse_quantities(text)]


@pytest.mark.parametrize("text, shown, value", [
    ("the 65th consecutive year", "65th", 65), ("ranked 22nd", "22nd", 22), ("the 3rd quarter", "3rd", 3),
    ("its 101st store", "101st", 101),
])
def test_an_ordinal_is_read_as_its_number(text, shown, value):
    """Issue 10: '65th consecutive year' is a checked figure (a wrong '66th' must be findable as wrong)."""
    (q,) = parse_quantities(text)
    assert (q.text, q.kind, q.value, q.unit) == (shown, "number", value, None)


@pytest.mark.parametrize("text, constants", [
    ("grew 12.0%, that is (1,234 - 1,102) / 1,102 x 100", ["100"]),
    ("$5,000 / 1,000 = $5 per unit", ["1,000"]),
    ("a margin of 151 / 1,234 × 100 = 12.2%", ["100"]),
    ("margins of 10-15% at 100 stores", []),  # a range is no formula, and a 100 outside one is a figure
])
def test_the_constants_of_a_written_formula(text, constants):
    found = parse_quantities(text)
    assert [found[i].text for i in formula_constants(text, found)] == constants


@pytest.mark.parametrize("text, keys", [
    ("Q3 earnings", ["Q3"]), ("the third quarter of 2021", ["Q3", "2021"]), ("3Q21 revenue", ["Q3", "2021"]),
    ("in the fifth quarter", ["Q5"]), ("FY21 and fiscal 2022", ["2021", "2022"]), ("since 1998", ["1998"]),
    ("$2,021 and 2,019 units, 2019% and 2020.5", []),
    ("the second quartile (Q2) is the median", []),  # an abbreviation in parentheses, not a quarter
])
def test_the_periods_a_text_names(text, keys):
    assert [key for _, _, key in period_mentions(text)] == keys


def test_range_gives_both_ends_the_unit():
    lo, hi = parse_quantities("margins of 10-15%")
    assert (lo.text, lo.kind, lo.value, lo.negative) == ("10", "percent", 10, False)
    assert (hi.text, hi.kind, hi.value) == ("15%", "percent", 15)
    lo, hi = parse_quantities("$1.2-1.5 billion")
    assert (lo.text, lo.value, lo.unit) == ("$1.2", 1.2e9, "USD")
    assert (hi.text, hi.value, hi.unit) == ("1.5 billion", 1.5e9, "USD")
    lo, hi = parse_quantities("grow 1-3 feet per year")
    assert lo.kind == hi.kind == "length" and lo.unit == "ft"
    lo, hi = parse_quantities("between 10 and 15%")
    assert lo.kind == "percent" and hi.kind == "percent"
    lo, hi = parse_quantities("15°C to 25°C")
    assert (lo.value, hi.value) == (15, 25)


def test_dimensions_and_hyphenated_adjectives_are_numbers():
    got = [(q.text, q.kind) for q in parse_quantities("a 6x8 feet rug")]
    assert got == [("6", "number"), ("8 feet", "length")]
    assert [q.text for q in parse_quantities("a 45-degree angle")] == ["45"]


def test_and_outside_between_is_not_a_range():
    first, second = parse_quantities("headcount 5 and margin 15%")
    assert first.kind == "number" and second.kind == "percent"


def test_offset_shifts_spans():
    text = "up 5.2% to $3bn"
    for q in parse_quantities(text, offset=100):
        assert text[q.start - 100:q.end - 100] == q.text


def test_scale_and_unit_context_apply_to_bare_numbers_only():
    q = one("1,234", scale_context=1e6)
    assert (q.value, q.tolerance, q.scale) == (1234e6, 0.5e6, 1e6)
    q = one("1,234", scale_context=1e6, unit_context="USD")
    assert (q.kind, q.unit) == ("currency", "USD")
    q = one("44.1", unit_context="%")
    assert (q.kind, q.value) == ("percent", 44.1)
    q = one("5.2%", scale_context=1e6)
    assert q.value == 5.2  # a percent is never scaled
    q = one("$2bn", scale_context=1e6)
    assert q.value == 2e9  # its own scale wins


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("(in millions)", (1e6, None)),
        ("(in thousands, except per share data)", (1e3, None)),
        ("$ in billions", (1e9, "USD")),
        ("in $ billions", (1e9, "USD")),
        ("(USD m)", (1e6, "USD")),
        ("(USD thousands)", (1e3, "USD")),
        ("Revenue ($M)", (1e6, "USD")),
        ("(€ millions)", (1e6, "EUR")),
        ("(in millions of dollars)", (1e6, "USD")),
        ("Dollars in millions", (1e6, "USD")),
        ("Margin (%)", (None, "%")),
        ("Change (bps)", (None, "bps")),
        ("Revenue", (None, None)),
        ("Revenue grew 5% in 2023", (None, None)),
        # a scale written as the zeros its figures leave out
        ("US$\u2019000", (1e3, "USD")),
        ("RMB'000", (1e3, "CNY")),
        ("($000)", (1e3, "USD")),
        ("(in \u2019000s)", (1e3, None)),
        ("HK$'000", (1e3, None)),
        ("Revenue 2019 $1,000", (None, None)),
    ],
)
def test_detect_scale_context(text, expected):
    assert detect_scale_context(text) == expected


@pytest.mark.parametrize("text", ["US$\u2019000", "$'000", "RMB'000", "\u20ac000", "(in \u2019000s)", "2019 $000"])
def test_a_scale_written_in_digits_is_no_figure(text):
    assert parse_quantities(text) == []


def test_zeros_among_figures_stay_figures():
    assert [x.value for x in parse_quantities("US$1,000 and 0.000 and $0")] == [1000.0, 0.0, 0.0]


def q(text: str, **kw):
    return one(text, **kw)


MATCHES = [
    # (claimed, observed, expected)
    ("$1.2 billion", "$1,234 million", True),
    ("1.2 billion", "1,234 million", True),
    ("$1.24 billion", "$1.2 billion", False),  # claimed at a precision the source does not have
    ("$1,234 million", "$1.2 billion", False),
    ("$383.3B", "$383,285 million", True),
    ("$383.3B", "$383.4B", False),
    ("383", "383.4", True),
    ("383", "383.6", False),
    ("$5 million", "€5 million", False),  # no exchange rates
    ("$5 million", "5,000,000", True),  # the source dropped the symbol
    ("5%", "5", False),
    # basis points are hundredths of a percentage point, a dimension apart from percent (issue 10, stop 23)
    ("25 bps", "0.25 percentage points", True),
    ("0.3 pp", "25 bps", True),
    ("25 bps", "0.3 pp", False),
    ("25 bps", "0.25%", False),
    ("0.3%", "25 bps", False),
    ("5%", "5 percentage points", False),
    ("5 percentage points", "5%", False),
    ("2.5x", "2.5 times", True),
    ("400 °F", "205 °C", True),
    ("205 °C", "400 °F", True),
    ("145°F", "63°C", True),
    ("400 °F", "210 °C", False),
    ("3 miles", "4.8 km", True),
    ("5 km", "3.1 miles", True),
    ("10 pounds", "4.5 kg", True),
    ("20 minutes", "0.33 hours", True),
    ("5 km", "5 kg", False),
    ("5 km", "5", False),
    ("-5%", "5%", False),
]


@pytest.mark.parametrize(("claimed", "observed", "expected"), MATCHES)
def test_quantities_match(claimed, observed, expected):
    assert quantities_match(q(claimed), q(observed)) is expected


def test_match_with_table_context():
    observed = q("1,234", scale_context=1e6)
    assert quantities_match(q("$1.2 billion"), observed)
    assert not quantities_match(q("$1.24 billion"), observed)


def test_scanner_reports_lines_offsets_and_table_context():
    text = (
        "Apple results\n"
        "Revenue rose 5% in 2023.\n"
        "\n"
        "(in millions)\n"
        "| Item | 2023 | Margin (%) |\n"
        "|---|---|---|\n"
        "| Revenue | 383,285 | 44.1 |\n"
        "\n"
        "After it, 7 items.\n"
    )
    found = QuantityScanner().scan(text)
    got = [(s.line, s.quantity.text, s.quantity.value, s.quantity.kind) for s in found]
    assert got == [
        (2, "5%", 5.0, "percent"),
        (7, "383,285", 383285e6, "number"),
        (7, "44.1", 44.1, "percent"),
        (9, "7", 7.0, "number"),
    ]
    for s in found:
        assert text[s.quantity.start:s.quantity.end] == s.quantity.text
        assert text.splitlines()[s.line - 1].find(s.quantity.text) >= 0


def test_bad_input_is_a_clear_error():
    with pytest.raises(ClaimsInputError, match="parse_quantities"):
        parse_quantities(b"5%")  # type: ignore[arg-type]
    with pytest.raises(AuditFenceError, match="detect_scale_context"):
        detect_scale_context(None)  # type: ignore[arg-type]


def test_a_leading_dot_before_a_decimal_is_not_a_number() -> None:
    # found by hypothesis: ".0.0" once reached float() as ".0.0" and raised
    assert parse_quantities(".0.0") == []
    assert [q.value for q in parse_quantities("costs .5 of that")] == [0.5]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # the unit of a range or list applies to every bare number of it
        ("about 30 - 40 minutes", [("30", 1800.0, "duration"), ("40 minutes", 2400.0, "duration")]),
        ("over 6, 12 or 18 months", [("6", 6 * 2629746.0, "duration"), ("12", 12 * 2629746.0, "duration"),
                                     ("18 months", 18 * 2629746.0, "duration")]),
        ("10, 20 and 30%", [("10", 10.0, "percent"), ("20", 20.0, "percent"), ("30%", 30.0, "percent")]),
        ("3 kids and 5 km", [("3", 3.0, "number"), ("5 km", 5.0, "length")]),
        ("cook 1 1/2 hours", [("1 1/2 hours", 5400.0, "duration")]),
        ("45 percentage chance", [("45 percentage", 45.0, "percent")]),
        # a unit per another unit is a rate: "1 m/s^2" is not one metre
        ("an acceleration of 1 m/s^2", [("1 m/s^2", 1.0, "number")]),
    ],
)
def test_ranges_lists_fractions_and_rates(text, expected):
    assert [(q.text, pytest.approx(q.value), q.kind) for q in parse_quantities(text)] == expected


def test_rate_does_not_match_the_plain_unit():
    assert not quantities_match(q("1 m/s^2"), q("1 m"))
    assert quantities_match(q("5 km/h"), q("5 km/h"))


def test_scanner_reads_a_number_wrapped_away_from_its_unit():
    text = "answer: preheat the oven and then bake the rolls for 20\n  minutes or until browned.\n"
    (found,) = QuantityScanner().scan(text)
    assert (found.quantity.kind, found.quantity.value) == ("duration", 1200.0)
    assert text[found.quantity.start:found.quantity.end] == found.quantity.text == "20\n  minutes"


def test_scanner_gives_declared_units_to_numeric_fields_only():
    text = (
        "output:\n"
        "  note: sales rose by 12 in the year\n"  # prose: no declared reading
        "  revenue: 2024\n"  # a numeric field: a number, not a year
        "  fiscal_year: 2023\n"  # a date field keeps its year
        "  units: USD millions\n"
        "other: 7.5\n"  # outside the record that declares the units
    )
    found = QuantityScanner().scan(text)
    got = [(s.quantity.text, s.quantity.kind, s.quantity.value, s.alternative) for s in found]
    assert got == [
        ("12", "number", 12.0, False),
        ("2024", "number", 2024.0, False),
        ("2024", "currency", 2024e6, True),
        ("7.5", "number", 7.5, False),
    ]


@pytest.mark.parametrize(
    ("text", "value"),
    [("age 59½ or older", 59.5), ("age 59 ½ or later", 59.5), ("1 ¼ cups", 1.25), ("cook 1½ hours", 5400.0)],
)
def test_a_fraction_character_after_a_whole_number_is_one_amount(text, value):
    (q,) = parse_quantities(text)
    assert q.value == pytest.approx(value)


def test_displayed_value_undoes_scale_and_unit():
    from pytest_auditfence.claims.quantities import displayed_value

    shown = [displayed_value(q) for q in parse_quantities("350°F, 1 1/2 hours and $1.2 billion")]
    assert [round(v, 6) for v, _ in shown] == [350.0, 1.5, 1.2]
    assert shown[0][1] == pytest.approx(0.5) and shown[2][1] == pytest.approx(0.05)


# (text, span text, kind, unit, value): units that scraped web text writes in ways the plain unit words miss
WEB_UNITS = [
    ("There is a 13:0 hours time difference", "13:0 hours", "duration", "h", 13 * 3600.0),
    ("a flight of 2:30 hours total", "2:30 hours", "duration", "h", 2.5 * 3600.0),
    ("at a temperature of 325A°. Then", "325A°", "number", "°", 325.0),
    ("Broil 6 in. from the heat", "6 in.", "length", "in", 6 * 0.0000254),
    ("cut a 2 in., then fold", "2 in.", "length", "in", 2 * 0.0000254),
    ("when the pressure gets to around 50psi, a switch", "50psi", "number", "psi", 50.0),
    ("the average speed is 60 miles per hour (mph)", "60 miles per hour", "number", "mph", 60.0),
    ("60 mph for the trip", "60 mph", "number", "mph", 60.0),
]


@pytest.mark.parametrize("text, span, kind, unit, value", WEB_UNITS)
def test_units_as_web_text_writes_them(text, span, kind, unit, value):
    q = one(text)
    assert (q.text, q.kind, q.unit) == (span, kind, unit)
    assert math.isclose(q.value, value)


def test_in_dot_starting_a_sentence_is_no_inch():
    (q,) = parse_quantities("The team ranked 5 in. The next season")
    assert (q.text, q.kind, q.unit) == ("5", "number", None)


def test_a_clock_time_is_still_no_duration():
    assert parse_quantities("the meeting starts at 12:30 pm") == []


def test_a_named_unit_is_shared_by_both_ends_of_a_range():
    lo, hi = parse_quantities("usually around 40-50 psi")
    assert (lo.text, lo.unit, hi.unit) == ("40", "psi", "psi")
    lo, hi = parse_quantities("between 2 and 6 mph")
    assert (lo.unit, hi.unit) == ("mph", "mph")
    assert quantities_match(one("50 psi"), one("50psi")) and not quantities_match(one("50 psi"), one("50 mph"))


def test_scanner_reads_figures_in_the_key_of_a_key_value_line() -> None:
    # a bullet "label with a figure: value" rendered into a trace file: both figures are sources
    text = "answer:\n  * For a first class letter weighing 1 ounce: $0.49\n  high_52w: 48.9\n"
    scanned = [(s.line, s.quantity.text) for s in QuantityScanner().iter_scan(text) if not s.alternative]
    assert scanned == [(2, "1 ounce"), (2, "$0.49"), (3, "48.9")]
    for s in QuantityScanner().iter_scan(text):
        assert text[s.quantity.start:s.quantity.end] == s.quantity.text


def test_a_fraction_character_alone_carries_its_unit():
    [quarter] = parse_quantities("Place the hangers ¼-inch down from the top edge.")
    [written] = parse_quantities("Place the hangers 1/4 inch down from the top edge.")
    assert (quarter.kind, quarter.unit, quarter.text) == ("length", "in", "¼-inch")
    assert abs(quarter.value - written.value) <= quarter.tolerance
    [half] = parse_quantities("Cook for ½ hour.")
    assert half.kind == "duration" and abs(half.value - parse_quantities("30 minutes")[0].value) <= half.tolerance
    # without a unit it is prose, not a quantity; with a whole number it belongs to that number
    assert parse_quantities("Give ½ of it to your neighbour.") == []
    assert [q.text for q in parse_quantities("a board 59½ inches long")] == ["59½ inches"]


# -- units are dimensions (issue 10) -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "unit", "value"),
    [
        ("Texas added 4.6 GW", "GW", 4.6e9),
        ("a 4,600 MW build-out", "MW", 4.6e9),
        ("output of 3.2 terawatt-hours", "TWh", 3.2e12),
        ("a 250 kWh pack", "kWh", 2.5e5),
        ("2 million barrels a day", "bbl", 2e6),
        ("cells at 250 Wh/kg", "Wh/kg", 250.0),
    ],
)
def test_physical_units_with_si_prefixes_are_read_in_their_base_unit(text, unit, value):
    q = one(text)
    assert (q.kind, q.unit) == ("number", unit)
    assert math.isclose(q.value, value)


def test_a_figure_matches_only_a_figure_of_the_same_dimension():
    assert quantities_match(one("4.6 GW"), one("4,600 MW"))  # one figure in two prefixes
    assert quantities_match(one("4.6 GW"), one("4,612 MW"))  # rounded as shown
    assert not quantities_match(one("4.6 GW"), one("4.6 GWh"))  # power is no energy
    assert not quantities_match(one("4.6 GW"), one("4.6 kg"))
    # the fabrication of issue 10: a price per kWh is no capacity and no plain amount
    per_kwh = one("Sodium-ion packs were $10 per kWh cheaper")
    assert (per_kwh.kind, per_kwh.unit, per_kwh.text) == ("currency", "USD/kWh", "$10 per kWh")
    assert not quantities_match(per_kwh, one("storage additions reached 10.3 GW"))
    assert not quantities_match(per_kwh, one("a $10 fee"))
    assert quantities_match(per_kwh, one("$10/kWh"))


def test_case_tells_prefixes_apart():
    assert one("5 MW").unit == "MW"
    assert one("12 Mt of CO2").unit == "Mt" and one("12 Mt of CO2").kind == "mass"
    assert parse_quantities("5 mw") == [] or one("5 mw").unit != "MW"


@pytest.mark.parametrize("text", ["5ſ", "5 thouſand", "5 \u212a", "3 ſeconds", "$5 \u212an", "İ5 İn", "5 (in thouſands)"])
def test_unicode_that_case_folds_onto_a_unit_letter_never_raises(text):
    # 'ſ' (long s) folds to 's' and the Kelvin sign to 'k' under a Unicode-insensitive match; the lookup of
    # the matched word then failed with KeyError (issue 10)
    for q in parse_quantities(text, words=True):
        assert text[q.start:q.end] == q.text
    detect_scale_context(text)
    QuantityScanner().scan(text)


_FOLDING = st.sampled_from(["ſ", "\u212a", "İ", "ı", "ß", "ﬀ", "K", "s", "k", " ", "5", "1,234", "$", "(in ", ")", "|"])


@settings(max_examples=400, deadline=None)
@given(st.lists(st.one_of(_FOLDING, st.text(max_size=2)), max_size=30).map("".join))
def test_parsers_never_raise_on_case_folding_characters(text):
    for q in parse_quantities(text, words=True):
        assert text[q.start:q.end] == q.text
    detect_scale_context(text)
    QuantityScanner().scan(text)


def test_scanner_leaves_spans_read_elsewhere_unparsed_and_keeps_everything_else() -> None:
    # a caller that re-reads table cells itself (verify/sources) hands their spans in: a cell, field value or
    # line wholly inside one is not parsed; every quantity starting outside the spans is the full scan's
    text = (
        "Income statement (in millions)\n| Item | FY2024 | FY2023 |\n|---|---|---|\n| Revenue | 1,234 | 987 |\n"
        "revenue_usd_millions: 4321\nweighing 1 ounce: $0.49\nmargin was 41.3% and backlog reached $2.5 billion\n"
    )
    spans = [(text.index("1,234"), text.index("1,234") + 5),  # a table cell
             (text.index("4321"), text.index("4321") + 4),  # a field value (the key has no figure)
             (text.index("$0.49"), text.index("$0.49") + 5),  # a field value (the key's figure stays)
             (text.index("41.3%"), text.index("41.3%") + 2)]  # part of a prose figure: the line is parsed

    def key(s):
        return (s.line, s.quantity.start, s.quantity.text, s.quantity.value, s.alternative)

    def outside(k):
        return not any(a <= k[1] < b for a, b in spans)

    full = [key(s) for s in QuantityScanner().iter_scan(text)]
    skipped = [key(s) for s in QuantityScanner().iter_scan(text, read_elsewhere=spans)]
    assert [k for k in skipped if k[2] in ("1,234", "4321", "$0.49")] == []
    assert {"987", "1 ounce", "41.3%", "$2.5 billion"} <= {k[2] for k in skipped}
    assert set(skipped) <= set(full)
    assert [k for k in skipped if outside(k)] == [k for k in full if outside(k)]


# -- the reader's shortcuts agree with the patterns they skip ---------------------------------------------

_AROUND = [" ", "\u00a0", "\n", "\t", "-", "−", "+", ".", ",", "(", "s", "R", "Rs", "Rs.", "US", "U.S.", "x",
           "was", "FY", "#", "'"] + list(quantities._PREFIX_ENDINGS)


def _windows(pieces: list[str], length: int) -> list[str]:
    """Every string of up to `length` pieces (a deterministic, exhaustive set of short contexts)."""
    out, level = [""], [""]
    for _ in range(length):
        level = [w + p for w in level for p in pieces]
        out += level
    return out


def test_prefix_shortcut_skips_only_where_the_pattern_matches_nothing() -> None:
    """Where `_may_have_prefix` says no, `_PREFIX` finds only the empty match right before the number."""
    skipped = 0
    for before in _windows(_AROUND, 3):
        text = before + "5"
        n = len(before)
        if not quantities._may_have_prefix(text, n):
            skipped += 1
            assert quantities._PREFIX.search(text, max(0, n - 10), n).span() == (n, n), repr(before)
    assert skipped > 1000


def test_suffix_shortcut_gives_what_the_full_reading_gives() -> None:
    """After the characters `_suffix` reads nothing for (and at the end of the text), the full reading finds
    nothing either, with and without a currency."""
    bare = [chr(c) for c in range(128) if quantities._ends_a_number(chr(c))]
    assert "\n" in bare and "," in bare and not any(c.isalnum() or c in " -%" for c in bare)
    tails = ["", " million", "million", "km", "%", "x", " percent", "F", "°C", "bn", " dollars", "¢", "Â°", "in.",
             " in. of", "K", "ſ", "m²", "/kg"]
    for ch in bare:
        for tail in tails:
            text = "5" + ch + tail
            for currency in (None, "USD"):
                assert quantities._suffix(text, 1, currency) == quantities._read_suffix(text, 1, currency)
    for currency in (None, "USD"):
        assert quantities._suffix("5", 1, currency) == quantities._read_suffix("5", 1, currency)


@pytest.mark.parametrize("text, value", [
    ("Services brought in eighty-five point two billion dollars.", 85.2e9),
    ("margins rose one point five percent", 1.5),
])
def test_a_decimal_written_out_gives_no_figure_of_its_fraction_word(text, value):
    # 'two billion dollars' out of 'point two billion dollars' would be a figure the text never states, and a claim
    # flagged for it; the decimal itself is read whole (stop 29)
    assert [q.value for q in parse_quantities(text, words=True)] == [pytest.approx(value)]
    assert [q.value for q in quantities.spelled_figures(text)] == [pytest.approx(value)]
    whole = text.replace(" point", " and")
    assert parse_quantities(whole, words=True), whole  # the same words without 'point' are read
