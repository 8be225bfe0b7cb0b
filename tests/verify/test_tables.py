"""Tables in every form a tool returns them: a cell is read with its row label, column header(s), period and the
table's scale; a claim is matched to it by subject and period, restated across scales at the precision shown,
and contradicted only by its own row in its own period. Each rule with its negatives."""

from __future__ import annotations

import json

import pytest

from pytest_auditfence.models import Verdict
from pytest_auditfence.textfmt import render_text
from pytest_auditfence.verify.tables import periods_in, read_tables

ROWS = [
    ["", "Years Ended December 31,", ""],
    ["", "2019", "2018"],
    ["Stock-based compensation", "525", "410"],
    ["Current liabilities:", "", ""],
    ["Accrued expenses", "1,248", "1,105"],
    ["Total revenue", "$ 9,871", "$ 8,802"],
]
CAPTION = "Selected data (in thousands)"


def _markdown() -> str:
    head = "| " + " | ".join(ROWS[1]) + " |"
    body = "\n".join("| " + " | ".join(r) + " |" for r in ROWS[2:])
    return f"{CAPTION}\n\n{head}\n|---|---|---|\n{body}\n"


def _pdf() -> str:
    lines = [CAPTION, "                                   Years Ended December 31,",
             "                                        2019        2018"]
    for label, a, b in ROWS[2:]:
        lines.append(f"{label:<34}{a:>8}{b:>12}".rstrip())
    return "\n".join(lines) + "\n"


def _html() -> str:
    rows = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in r) + "</tr>" for r in ROWS)
    return f"<p>{CAPTION}</p><table>{rows}</table>"


def _csv() -> str:
    return CAPTION + "\n" + "\n".join(",".join(f'"{c}"' if "," in c else c for c in r) for r in ROWS) + "\n"


FORMS = {
    "markdown": _markdown,
    "json_table": lambda: render_text(json.dumps({"caption": CAPTION, "table": ROWS})),
    "html": _html,
    "csv": _csv,
    "pdf_text": _pdf,
}


@pytest.fixture(params=sorted(FORMS))
def verdict_of(request, tool_results_verdict):
    """A captured tool result holding the table in one form, rendered as capture writes it."""
    text = "arguments:\n  section: 7\nnode: filings\noutput:\n" + FORMS[request.param]() + "tool: get_filing_section\n"
    return tool_results_verdict({"tools/filings/r1.get_filing_section.1.txt": (text, "filings", "get_filing_section")})


@pytest.mark.parametrize(
    "sentence",
    [
        "Stock-based compensation was $525 thousand in 2019.",  # 'away from its subject' before issue 10
        "Stock-based compensation was $410 thousand in 2018.",
        "Accrued expenses were $1.248 million as of December 31, 2019.",  # restated across scales
        "Accrued expenses were $1.25 million in 2019.",  # rounded as shown
        "Total revenue was $9.9 million in 2019.",
    ],
)
def test_a_cell_backs_its_row_and_period_at_the_table_scale(verdict_of, sentence):
    record = verdict_of(sentence)
    assert record.verdict is Verdict.VERIFIED, record.notes
    assert record.evidence and record.evidence[0].file.endswith("get_filing_section.1.txt")


def test_the_wrong_column_contradicts_with_a_note_naming_period_value_and_place(verdict_of):
    record = verdict_of("Stock-based compensation was $410 thousand in 2019.")
    assert record.verdict is Verdict.CONTRADICTED
    note = record.notes[-1]
    assert "2019 value" in note and "'525'" in note and "get_filing_section.1.txt:" in note and "not $410" in note


@pytest.mark.parametrize(
    "sentence",
    [
        "Stock-based compensation was $525 million in 2019.",  # the wrong scale
        "Stock-based compensation was $525 thousand in 2017.",  # a period the table does not hold
        "Accrued expenses were $1.3 million in 2019.",  # coarser than shown: 1.248 is no 1.3
        "Total revenue was $525 thousand in 2019.",  # another row's figure
        "Stock-based compensation was 525 GW in 2019.",  # another dimension
    ],
)
def test_wrong_scale_period_precision_row_or_unit_is_flagged(verdict_of, sentence):
    record = verdict_of(sentence)
    assert record.verdict in (Verdict.UNSUPPORTED, Verdict.CONTRADICTED), record.notes


@pytest.mark.parametrize(
    ("sentence", "formula_part"),
    [
        ("Stock-based compensation increased by $115 thousand from 2018 to 2019.", "525 - 410"),
        ("Stock-based compensation grew 28.0% in 2019.", "× 100"),
        ("Average stock-based compensation over 2018 and 2019 was $467.5 thousand.", "/ 2"),
    ],
)
def test_figures_computed_from_the_subject_row_are_derived_with_their_formula(verdict_of, sentence, formula_part):
    record = verdict_of(sentence)
    assert record.verdict is Verdict.DERIVED, record.notes
    assert formula_part in (record.formula or "")


def test_a_computation_the_claim_does_not_name_is_not_tried(verdict_of):
    # 467.5 is the mean of the row, but the sentence states a figure, not an average
    record = verdict_of("Stock-based compensation was $467.5 thousand in 2019.")
    assert record.verdict not in (Verdict.VERIFIED, Verdict.DERIVED)


def test_cells_know_row_section_columns_and_periods():
    cells = read_tables(_pdf())
    text = _pdf()
    accrued = [c for c in cells if text[c.start:c.end] == "1,248"][0]
    assert accrued.label.row == "Accrued expenses"
    assert accrued.label.section == "Current liabilities"
    assert accrued.label.periods == {(2019, "")}
    assert accrued.label.scale == 1e3


@pytest.mark.parametrize(
    ("text", "periods"),
    [
        ("FY2024", {(2024, "")}),
        ("Q3 2023", {(2023, "Q3")}),
        ("2024-Q4", {(2024, "Q4")}),
        ("fiscal 2017", {(2017, "")}),
        ("as of December 31, 2019", {(2019, "")}),
        ("the third quarter of 2023", {(2023, "Q3")}),
        ("revenue of 2,019 units", set()),
    ],
)
def test_periods_are_read_as_a_reader_writes_them(text, periods):
    assert periods_in(text) == periods
