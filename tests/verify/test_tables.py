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
        ("F19", {(2019, "")}),  # an annual report's fiscal-year header written without the 'Y'
        ("years F19 and F18", {(2019, ""), (2018, "")}),
        ("F-150 trucks", set()),
        ("AF19 and F2019", set()),
        ("as of December 31, 2019", {(2019, "")}),
        ("the third quarter of 2023", {(2023, "Q3")}),
        ("revenue of 2,019 units", set()),
        ("2 0 1 8", {(2018, "")}),  # a PDF extraction's letter-spaced header
        ("1 2 0 1 8 5", set()),
    ],
)
def test_periods_are_read_as_a_reader_writes_them(text, periods):
    assert periods_in(text) == periods


@pytest.mark.parametrize(
    ("sentence", "years"),
    [
        ("The average net income from 2017-2019 was $19.6 million.", {2017, 2018, 2019}),
        ("Total costs over fiscal years 2017 to 2019 were $5 million.", {2017, 2018, 2019}),
        ("Expenses between 2017 and 2019 rose $3 million.", {2017, 2018, 2019}),
        ("Revenue in 2017 and 2019 was $4 million and $5 million, respectively.", {2017, 2019}),
    ],
)
def test_a_claims_period_range_names_every_year_of_it(sentence, years):
    from pytest_auditfence.claims.extract import extract_claims
    from pytest_auditfence.verify.match import claim_subject

    (claim,) = extract_claims(sentence)
    assert {year for year, _ in claim_subject(claim).periods} == years


# -- rules of stop 10 (branch issue-10t), each on a captured tool result with its negatives -------------------

FLAGGED = (Verdict.UNSUPPORTED, Verdict.CONTRADICTED)


def _captured(tool_results_verdict, body: str):
    text = "arguments:\n  section: 7\nnode: filings\noutput:\n" + body + "tool: get_filing_section\n"
    return tool_results_verdict({"tools/filings/r1.get_filing_section.1.txt": (text, "filings", "get_filing_section")})


def test_a_units_field_after_a_title_field_scales_a_json_table(tool_results_verdict):
    # rendered JSON sorts its keys: 'title:' (naming the statement, no scale) comes before 'units:'
    body = render_text(json.dumps({"table": [["line_item", "FY2023", "FY2024"], ["Revenue", "1,102", "1,234"]],
                                   "title": "Consolidated income statement", "units": "USD millions"}))
    verdict = _captured(tool_results_verdict, body)
    for sentence in ("Revenue was $1,234 million in FY2024.", "Revenue was $1.23 billion in FY2024.",
                     "Revenue was $1,234,000,000 in FY2024."):
        record = verdict(sentence)
        assert record.verdict is Verdict.VERIFIED, (sentence, record.notes)
    for sentence in ("Revenue was $1,234 thousand in FY2024.", "Revenue was $1,102 million in FY2024.",
                     "Revenue was $1.3 billion in FY2024."):
        assert verdict(sentence).verdict is Verdict.CONTRADICTED, sentence
    note = verdict("Revenue was $1,234 thousand in FY2024.").notes[-1]
    assert "'1,234' (in millions)" in note and "not $1,234 thousand" in note  # the wrong scale reads as one


WIDE_PDF = """Table 1 $ in millions

(in million)                                                                            January 31, 2019   January 31, 2018
Goodwill, beginning of the year                                                                 $1,769.4           $1,710.3
Assets acquired:(1)
Additions arising from acquisitions during the year                                                866.9                  —
Net income (loss) attributable to the company                                                   $54,229          $(74,278)
Goodwill, end of the year                                                                       $2,450.8           $1,620.2
"""


def test_a_pdf_header_as_wide_as_its_labels_dates_the_columns(tool_results_verdict):
    verdict = _captured(tool_results_verdict, WIDE_PDF)
    assert verdict("Goodwill at the end of 2019 was $2,450.8 million.").verdict is Verdict.VERIFIED
    assert verdict("Goodwill at the end of 2018 was $1,620.2 million.").verdict is Verdict.VERIFIED
    wrong = verdict("Goodwill at the end of 2018 was $2,450.8 million.")  # the 2019 column
    assert wrong.verdict is Verdict.CONTRADICTED and "'$1,620.2'" in wrong.notes[-1]
    # a footnote mark on a section line does not break the table; '$(74,278)' is a figure of its column
    assert verdict("Additions arising from acquisitions in 2019 were $866.9 million.").verdict is Verdict.VERIFIED
    assert verdict("Net income attributable to the company was -$74,278 million in 2018.").verdict is Verdict.VERIFIED
    assert verdict("Net income attributable to the company was -$74,278 million in 2019.").verdict in FLAGGED


STACKED_HTML = """<table>
<tr><th>(In Millions)</th><th>Dec 29, 2018</th><th>Acquisitions</th><th>Dec 28, 2019</th></tr>
<tr><td>Data Center Group</td><td>$5,424</td><td>$1,758</td><td>$7,155</td></tr>
<tr><td>Mobileye</td><td>10,290</td><td>—</td><td>10,290</td></tr>
<tr><td>(In Millions)</td><td>Dec 30, 2017</td><td>Acquisitions</td><td>Dec 29, 2018</td></tr>
<tr><td>Data Center Group</td><td>$5,421</td><td>$3</td><td>$5,424</td></tr>
<tr><td>Mobileye</td><td>10,278</td><td>7</td><td>10,290</td></tr>
</table>
"""


def test_a_header_row_repeated_inside_a_table_heads_the_block_below_it():
    cells = read_tables(STACKED_HTML)
    second = [c for c in cells if STACKED_HTML[c.start:c.end] == "$5,421"][0]
    assert second.label.periods == {(2017, "")}
    closing = [c for c in cells if STACKED_HTML[c.start:c.end] == "$5,424"]
    assert [c.label.periods for c in closing] == [{(2018, "")}, {(2018, "")}]  # never 2019


def test_stacked_blocks_back_only_their_own_dates(tool_results_verdict):
    verdict = _captured(tool_results_verdict, "Goodwill (in millions)\n" + STACKED_HTML)
    assert verdict("Data Center Group goodwill was $7,155 million at December 28, 2019.").verdict is Verdict.VERIFIED
    assert verdict("Data Center Group goodwill was $5,424 million at December 29, 2018.").verdict is Verdict.VERIFIED
    assert verdict("Data Center Group goodwill was $5,424 million at December 28, 2019.").verdict in FLAGGED


TAX_PROSE = ("The effective income tax rate for 2019 was 13.0% compared to 18.3% for 2018. The decrease in the "
             "effective income tax rate and the provision for income taxes was primarily due to the recognition of "
             "a non-recurring tax benefit in connection with the disposition of preferred stock in 2019.\n")


def test_a_prose_figure_stated_for_another_period_is_no_evidence(tool_results_verdict):
    verdict = _captured(tool_results_verdict, TAX_PROSE)
    assert verdict("The effective tax rate in 2019 was 13.0%.").verdict is Verdict.VERIFIED
    assert verdict("The effective tax rate in 2018 was 18.3%.").verdict is Verdict.VERIFIED
    for sentence in ("The effective tax rate in 2019 was 18.3%.", "The effective tax rate in 2018 was 13.0%."):
        assert verdict(sentence).verdict not in (Verdict.VERIFIED, Verdict.DERIVED), sentence


ROLL_FORWARD = """Rights (number of rights)

| | 2019 | 2018 |
|---|---|---|
| Outstanding at start of period | 10,692,594 | 6,737,076 |
| Granted | 4,102,511 | 4,935,018 |
| Outstanding at end of period | 13,477,758 | 10,692,594 |
"""


def test_the_row_the_claim_names_is_its_row_not_one_sharing_fewer_words(tool_results_verdict):
    # last year's closing balance is this year's opening one: the same figure in two rows
    verdict = _captured(tool_results_verdict, ROLL_FORWARD)
    assert verdict("Rights outstanding at end of period in 2018 were 10,692,594.").verdict is Verdict.VERIFIED
    assert verdict("Rights outstanding at start of period in 2019 were 10,692,594.").verdict is Verdict.VERIFIED
    wrong = verdict("Rights outstanding at end of period in 2019 were 10,692,594.")
    assert wrong.verdict is Verdict.CONTRADICTED and "'13,477,758'" in wrong.notes[-1]


PPE_CSV = """Table 1 (In thousands)
,"December 31,",
,2019,2018
Land,"$1,949","$2,185"
Transportation equipment,613,636
Construction in progress,"5,037","2,253"
"""


def test_a_difference_of_two_cells_of_a_csv_row_is_derived_and_cited(tool_results_verdict):
    # 'Transportation equipment,613,636' is one number to a prose reader: the gate reads the row's cells
    verdict = _captured(tool_results_verdict, PPE_CSV)
    record = verdict("The change in transportation equipment from 2018 to 2019 was -$23 thousand.")
    assert record.verdict is Verdict.DERIVED and "613 - 636" in (record.formula or ""), record.notes
    assert record.evidence and "613,636" in record.evidence[0].text
    assert verdict("The change in transportation equipment from 2018 to 2019 was -$25 thousand.").verdict in FLAGGED
    assert verdict("The change in transportation equipment from 2018 to 2019 was -$23 million.").verdict in FLAGGED


RATES_JSON = {"caption": "Table 1", "table": [["", "Year Ended May 31,", "", ""], ["", "2019", "2018", "2017"],
                                              ["Expected life (in years)", "4.6", "4.7", "4.8"],
                                              ["Risk-free interest rate", "2.7%", "2.0%", "1.0%"]]}


def test_a_cell_is_not_the_average_or_change_the_claim_calls_its_figure(tool_results_verdict):
    verdict = _captured(tool_results_verdict, render_text(json.dumps(RATES_JSON)))
    assert verdict("The risk-free interest rate in 2018 was 2.0%.").verdict is Verdict.VERIFIED
    record = verdict("The average risk-free interest rate from 2017 to 2019 was 1.9%.")
    assert record.verdict is Verdict.DERIVED and "/ 3" in (record.formula or ""), record.notes
    # 2.0% stands in the 2018 column, but the claim states an average over three years: no evidence
    assert verdict("The average risk-free interest rate from 2017 to 2019 was 2.0%.").verdict in FLAGGED
    assert verdict("The change in the risk-free interest rate from 2018 to 2019 was 2.0%.").verdict in FLAGGED


PERCENT_HTML = """<p>Percentage of sales</p><table>
<tr><th></th><th>Year Ended December 31,</th><th></th></tr>
<tr><th></th><th>2019</th><th>2018</th></tr>
<tr><td>Sales</td><td>100.0 %</td><td>100.0 %</td></tr>
<tr><td>Gross profit</td><td>40.0</td><td>50.9</td></tr>
<tr><td>Operating expenses</td><td>33.1</td><td>27.0</td></tr>
<tr><td>Income from continuing operations, net of income taxes</td><td>7.2 %</td><td>20.5 %</td></tr>
</table>
"""


def test_a_column_with_percent_signs_on_its_first_and_last_rows_is_of_percentages(tool_results_verdict):
    verdict = _captured(tool_results_verdict, PERCENT_HTML)
    assert verdict("Gross profit was 50.9% of sales in 2018.").verdict is Verdict.VERIFIED
    assert verdict("Operating expenses were 33.1 percent of sales in 2019.").verdict is Verdict.VERIFIED
    assert verdict("Gross profit was 50.9% of sales in 2019.").verdict in FLAGGED  # the other period
    assert verdict("Gross profit was $50.9 million in 2018.").verdict in FLAGGED  # another dimension


QUARTERS_PDF = """Table 1 $ in thousands

                                                                     Fiscal 2019
                                       First     Second      Third        Fourth
                                     Quarter    Quarter    Quarter       Quarter      Total
Revenues                            $ 94,888   $ 96,037   $ 88,495       $84,380   $363,800
Net income (loss)                      8,511      (854)      (522)        11,263     18,398
                                                                     Fiscal 2018
                                       First     Second      Third        Fourth
                                     Quarter    Quarter    Quarter       Quarter      Total
Revenues                             $88,081    $89,767    $93,669       $94,395   $365,912
Net income (loss)                    (2,654)     12,232     11,806       (4,767)     16,617
"""


def test_page_text_blocks_stacked_by_year_are_read_under_their_own_headers(tool_results_verdict):
    cells = read_tables(QUARTERS_PDF)
    total = [c for c in cells if QUARTERS_PDF[c.start:c.end] == "$365,912"][0]
    assert total.label.periods == {(2018, "")} and "Total" in total.label.columns
    verdict = _captured(tool_results_verdict, QUARTERS_PDF)
    assert verdict("Revenue in the fiscal 2018 third quarter was $93.669 million.").verdict is Verdict.VERIFIED
    assert verdict("Revenue in fiscal 2018 was $365,912 thousand.").verdict is Verdict.VERIFIED
    assert verdict("Revenue in the fiscal 2019 third quarter was $93.669 million.").verdict in FLAGGED
    assert verdict("Revenue in fiscal 2019 was $365,912 thousand.").verdict in FLAGGED


FISCAL_JSON = {"caption": "Group results ($m)", "table": [
    ["", "F19", "F18"], ["Sales", "1,712", "1,571"], ["EBITDA", "185", "174"]]}


def test_fiscal_year_headers_written_f19_date_their_columns(tool_results_verdict):
    verdict = _captured(tool_results_verdict, render_text(json.dumps(FISCAL_JSON)))
    assert verdict("Sales were $1,712 million in F19.").verdict is Verdict.VERIFIED
    assert verdict("EBITDA was $174 million in F18.").verdict is Verdict.VERIFIED
    assert verdict("Sales were $1,571 million in F19.").verdict is Verdict.CONTRADICTED  # the other year's column
    assert verdict("EBITDA was $185 million in F18.").verdict in FLAGGED
    assert verdict("Sales were $185 million in F19.").verdict in FLAGGED  # another row's cell
