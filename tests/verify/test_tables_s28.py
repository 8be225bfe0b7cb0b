"""Issue 10, stop 28: reading bugs of one table form, found where a correct sentence was covered in one form and
flagged in another (TAT-QA tuning sections rendered in all six forms), over real captured runs (`plan` asks for a
tool, a `ToolNode` runs it, `write` returns the report) in the forms a tool returns a table in (markdown, HTML, CSV-like
text, the text of a PDF page, a JSON table, JSON records). A negative percentage written '(12)%' is a figure, not the
row's label; a nil percentage '—%' is a placeholder; amounts written with '$' under a header that says 'percent' keep
the table's scale; a date alone in the labels' column dates the rows below it where the labels stand last (records);
a count's column keeps no currency scale when a flattened header names its year too. Every rule has its negative: the
wrong row, period, scale or sign is flagged."""

from __future__ import annotations

from pathlib import Path

import pytest

from test_false_alarms_s14 import _check
from test_table_captions_s16 import FORMS, table_auditor

from pytest_auditfence.claims.quantities import parse_quantities
from pytest_auditfence.verify.tables import read_tables

ALL_FORMS = sorted([*FORMS, "records"])

TABLES: dict[str, tuple[str, list[list[str]], str]] = {
    # a change column of negative percentages written '(8)%' (as JSON records put it, the label stands last)
    "percent change": ("Table 1 ($ in thousands)", [
        ["", "2019", "% Change 2018 to 2019", "2018"],
        ["Services", "$59,545", "(8)%", "$64,476"],
        ["Software and other", "3,788", "(25)%", "5,073"],
        ["Total revenue", "$63,333", "(9)%", "$69,549"]],
        ""),
    # a change stated only as a percentage: no amount it could be derived from
    "percent only": ("Table 2 ($ in millions)", [
        ["", "2019", "% Change"],
        ["Product revenue", "$1,248", "(12)%"],
        ["Service revenue", "312", "7%"],
        ["Total revenue", "$1,560", "(8)%"]],
        ""),
    # a nil change written '—%' on the first row
    "nil percent": ("Table 3 $ in millions", [
        ["Reporting Segment", "Fiscal 2019 Net Sales", "Fiscal 2018 Net Sales", "% Inc (Dec)"],
        ["Grocery & Snacks", "$3,279.2", "$3,287.0", "—%"],
        ["Refrigerated & Frozen", "2,804.0", "2,753.0", "2%"],
        ["International", "793.4", "843.5", "(6)%"],
        ["Total", "$6,876.6", "$6,883.5", "—%"]],
        ""),
    # a header flattened over the wrong columns: 'Percent Change 2018' heads 2018's amounts, written with '$'
    "flattened percent header": ("Table 4 (Dollars in millions)", [
        ["", "2019", "Actual", "Percent Change 2018", "Percent Change Constant"],
        ["Americas", "$18,410", "2%", "$18,030", "3%"],
        ["EMEA", "9,168", "0%", "9,163", "4%"],
        ["Applications revenues", "$11,510", "4%", "$11,065", "6%"],
        ["Infrastructure revenues", "21,072", "0%", "20,976", "3%"]],
        ""),
    # a percent column of bare figures: no '$' anywhere in it, so they stay percentages
    "bare percent column": ("Table 5 (Dollars in millions)", [
        ["", "2019", "Percent of revenue 2019"],
        ["Cost of revenue", "$4,120", "41.2"],
        ["Gross profit", "5,880", "58.8"],
        ["Revenue", "$10,000", "100.0"]],
        ""),
    # two balance dates, each alone on its row above its block of rows
    "dated blocks": ("Table 6 (in thousands, except per share data)", [
        ["", "Accounts Receivable, Gross", "Allowance for Losses", "Accounts Receivable, Net"],
        ["December 31, 2019", "", "", ""],
        ["Transaction related", "$12,863", "$(238)", "$12,625"],
        ["Servicing related", "6,868", "—", "6,868"],
        ["Total", "$19,731", "$(238)", "$19,493"],
        ["December 31, 2018", "", "", ""],
        ["Transaction related", "$14,704", "$(168)", "$14,536"],
        ["Servicing related", "864", "—", "864"],
        ["Total", "$15,568", "$(168)", "$15,400"]],
        ""),
    # share counts under a currency caption, their header naming the year (a header flattened from two rows)
    "share counts": ("Table 7 $ in millions", [
        ["", "2019 Number of Shares", "2019 Weighted Average Grant Date Fair Value", "2018 Number of Shares"],
        ["Non-vested at beginning of year", "315,292", "$2.26", "438,712"],
        ["Shares granted", "253,113", "2.17", "200,000"],
        ["Shares vested", "82,270", "2.28", "323,420"],
        ["Non-vested at end of year", "486,135", "$2.53", "315,292"]],
        ""),
    # quarters of two fiscal years, each named by its year and its quarter's ordinal
    "quarters": ("Table 8 $ in thousands", [
        ["", "First Quarter Fiscal 2019", "Second Quarter Fiscal 2019", "Second Quarter Fiscal 2018"],
        ["Revenues", "$ 94,888", "$ 96,037", "$89,767"],
        ["Gross margin", "40.1%", "41.5%", "41.0%"]],
        ""),
    # the lead-in below states the table's scale and its exception, wrapped within its parentheses as page text is
    "eps, wrapped lead-in": ("Table 9 (In millions)", [
        ["", "April 26, 2019", "April 27, 2018", "April 28, 2017"],
        ["Net income", "$ 1,169", "$ 116", "$ 481"],
        ["Net Income per Share:", "", "", ""],
        ["Basic", "$ 4.60", "$ 0.43", "$ 1.75"],
        ["Diluted", "$ 4.51", "$ 0.42", "$ 1.71"]],
        "The following is a calculation of basic and diluted net income per share (in millions, except per\n"
        "share amounts):"),
    # a nil amount written '$ —' on the first row (records put the label last, after it)
    "nil amount": ("Table 10 $ in millions", [
        ["", "December 31, 2019 Carrying Amount", "December 31, 2018 Carrying Amount"],
        ["Term Loan A Facility due July 2022", "$ 474.6", "$ —"],
        ["Revolving credit facility", "223.8", "222.2"],
        ["Total debt", "$ 698.4", "$ 222.2"]],
        ""),
    # figures in the first column: records rendered as rows put the label after them ('47 | ... | Leigh R Fox')
    "officers": ("Table 11", [
        ["Name", "Age", "Shares held"],
        ["Leigh R Fox", "47", "120,500"],
        ["Andrew R Kaiser", "51", "64,200"],
        ["Christi H. Cornette", "64", "38,750"]],
        ""),
}


@pytest.fixture
def audit(tmp_path: Path):
    return table_auditor(tmp_path, TABLES)


@pytest.mark.parametrize("text", ["(12)%", "(12) %", "(12.5)%"])
def test_a_parenthesised_figure_before_a_percent_sign_is_a_negative_percentage(text: str) -> None:
    found = parse_quantities(text, scale_context=1000.0, unit_context="USD", years=False, cell=True)
    value = -float(text[1:text.index(")")])
    assert [(q.kind, q.unit, q.value, q.text) for q in found] == [("percent", "%", value, text)]
    # no percent sign: an amount at the table's scale, as before
    assert parse_quantities("(12)", scale_context=1000.0, unit_context="USD", years=False, cell=True)[0].value == -12000


def test_a_negative_percentage_cell_is_no_row_label() -> None:
    text = "| Services | $59,545 | (8)% | $64,476 |\n|---|---|---|---|\n| Total revenue | $63,333 | (9)% | $69,549 |\n"
    text = "| | 2019 | % Change | 2018 |\n" + text.replace("|---|---|---|---|\n", "")
    cells = read_tables(text)
    assert [(text[c.start:c.end], c.label.row, c.label.unit) for c in cells if "%" in text[c.start:c.end]] == [
        ("(8)%", "Services", "%"), ("(9)%", "Total revenue", "%")]


@pytest.mark.parametrize("form", ALL_FORMS)
def test_a_negative_percentage_written_in_parentheses_before_the_sign(audit, form: str) -> None:
    # records put the label last: '(8)%' was taken for the row's label, and '$63,333' for a percentage of '(9)%'
    _check(audit, form, "percent change",
           [("Total revenue in 2019 was $63,333 thousand.", "$63,333 thousand"),
            ("Software and other revenue was $5.073 million in 2018.", "$5.073 million")],
           [("Total revenue in 2019 was $59,545 thousand.", "$59,545 thousand"),  # the row above
            ("Total revenue in 2018 was $63,333 thousand.", "$63,333 thousand"),  # the other period
            ("Total revenue in 2019 was $63,333 million.", "$63,333 million")])  # the wrong scale
    _check(audit, form, "percent only",
           [("Product revenue changed by -12% in 2019.", "-12%")],
           [("Product revenue changed by 12% in 2019.", "12%"),  # the sign dropped
            ("Product revenue changed by -$12 million in 2019.", "-$12 million"),  # an amount, not a percentage
            ("Product revenue changed by -8% in 2019.", "-8%")])  # the total's


@pytest.mark.parametrize("form", ALL_FORMS)
def test_a_nil_percentage_is_a_placeholder_not_the_row_label(audit, form: str) -> None:
    _check(audit, form, "nil percent",
           [("Grocery & Snacks net sales in fiscal 2019 were $3,279.2 million.", "$3,279.2 million"),
            ("Total net sales in fiscal 2018 were $6,883.5 million.", "$6,883.5 million")],
           [("Grocery & Snacks net sales in fiscal 2019 were $3,287.0 million.", "$3,287.0 million"),  # 2018's
            ("Grocery & Snacks net sales in fiscal 2019 were $2,804.0 million.", "$2,804.0 million")])  # the row below


@pytest.mark.parametrize("form", ALL_FORMS)
def test_amounts_written_with_a_currency_sign_keep_their_scale_under_a_percent_header(audit, form: str) -> None:
    _check(audit, form, "flattened percent header",
           [("Applications revenues in 2018 were $11,065 million.", "$11,065 million"),
            ("The total of applications revenues in 2019 and 2018 was $22,575 million.", "$22,575 million"),
            ("Applications revenues grew 4% in 2019.", "4%")],
           [("Applications revenues in 2018 were $11,065 billion.", "$11,065 billion"),  # the wrong scale
            ("Applications revenues in 2018 were 11,065%.", "11,065%"),  # a percentage
            ("Applications revenues in 2018 were $20,976 million.", "$20,976 million")])  # the row below
    # a percent column of bare figures stays one of percentages
    _check(audit, form, "bare percent column",
           [("Cost of revenue was 41.2% of revenue in 2019.", "41.2%")],
           [("Cost of revenue was $41.2 million in 2019.", "$41.2 million"),
            ("Cost of revenue was 58.8% of revenue in 2019.", "58.8%")])


@pytest.mark.parametrize("form", ALL_FORMS)
def test_a_date_alone_in_the_labels_column_dates_the_rows_below_it(audit, form: str) -> None:
    # records put the labels last: the date row heads the block below, not the columns
    _check(audit, form, "dated blocks",
           [("The total allowance for losses as of December 31, 2018 was -$168 thousand.", "-$168 thousand"),
            ("The total gross accounts receivable as of December 31, 2018 was $15,568 thousand.", "$15,568 thousand")],
           [("The total allowance for losses as of December 31, 2019 was -$168 thousand.", "-$168 thousand"),
            ("The total gross accounts receivable as of December 31, 2018 was $19,731 thousand.", "$19,731 thousand"),
            ("The total gross accounts receivable as of December 31, 2018 was $15,400 thousand.", "$15,400 thousand")])


@pytest.mark.parametrize("form", ALL_FORMS)
def test_a_count_column_keeps_no_currency_scale_when_its_header_names_a_year(audit, form: str) -> None:
    _check(audit, form, "share counts",
           [("The number of shares granted in 2019 was 253,113.", "253,113"),
            ("The change in the number of shares granted between 2018 and 2019 was 53,113.", "53,113")],
           [("The number of shares granted in 2019 was $253,113 million.", "$253,113 million"),  # an amount
            ("The number of shares granted in 2018 was 253,113.", "253,113"),  # the other period
            ("The number of shares granted in 2019 was 82,270.", "82,270")])  # the row below


def test_a_year_before_a_quarters_ordinal_is_no_duration() -> None:
    # 'fiscal 2019 second quarter' was read as 2,019 seconds, a figure of its own that nothing backs
    assert [q.text for q in parse_quantities("The gross margin in the fiscal 2019 second quarter was 41.5 percent.")] \
        == ["41.5 percent"]
    assert [q.text for q in parse_quantities("the 2018 second-quarter margin")] == []
    assert [q.unit for q in parse_quantities("The upload took 2019 seconds.")] == ["s"]  # a duration still


@pytest.mark.parametrize("form", ALL_FORMS)
def test_a_quarter_named_after_its_fiscal_year(audit, form: str) -> None:
    _check(audit, form, "quarters",
           [("The gross margin in the fiscal 2019 second quarter was 41.5 percent.", "41.5 percent")],
           [("The gross margin in the fiscal 2019 second quarter was 40.1 percent.", "40.1 percent"),  # the first's
            ("The gross margin in the fiscal 2018 second quarter was 41.5 percent.", "41.5 percent")])  # 2019's


@pytest.mark.parametrize("form", ["markdown", "html", "csv", "pdf"])
def test_a_scale_phrase_wrapped_within_its_parentheses_states_the_per_share_exception(audit, form: str) -> None:
    # '(in millions, except per' / 'share amounts)': per-share figures were read as millions of dollars
    _check(audit, form, "eps, wrapped lead-in",
           [("The change in the basic net income per share between 2017 and 2018 was -$1.32.", "-$1.32"),
            ("Net income was $1.169 billion in fiscal 2019.", "$1.169 billion")],
           [("The change in the basic net income per share between 2017 and 2018 was -$1.23.", "-$1.23"),
            ("The change in the basic net income per share between 2018 and 2019 was -$1.32.", "-$1.32"),
            ("The change in the basic net income per share between 2017 and 2018 was -$1.32 million.", "-$1.32 million"),
            ("Net income was $1.169 million in fiscal 2019.", "$1.169 million")])


@pytest.mark.parametrize("form", ALL_FORMS)
def test_a_nil_amount_is_a_placeholder_not_the_row_label(audit, form: str) -> None:
    _check(audit, form, "nil amount",
           [("The carrying amount of the Term Loan A Facility due July 2022 at December 31, 2019 was $474.6 million.",
             "$474.6 million")],
           [("The carrying amount of the Term Loan A Facility due July 2022 at December 31, 2019 was $474.6 billion.",
             "$474.6 billion"),  # the wrong scale
            ("The carrying amount of the revolving credit facility at December 31, 2019 was $474.6 million.",
             "$474.6 million")])  # the row above's


@pytest.mark.parametrize("form", ALL_FORMS)
def test_figures_before_their_label_are_cells(audit, form: str) -> None:
    _check(audit, form, "officers",
           [("Andrew R Kaiser held 64,200 shares.", "64,200"),
            ("The officers held 223,450 shares in total.", "223,450")],
           [("Andrew R Kaiser held 120,500 shares.", "120,500"),  # the row above
            ("The officers held 223,540 shares in total.", "223,540")])  # invented
