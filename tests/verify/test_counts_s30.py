"""Issue 10, stop 30: count answers over the rows of a table, over real captured runs (`plan` asks for a tool, a
`ToolNode` runs it, `write` returns the report). A claim counting the rows of a whole it names — the rows under a
section row ('how many components are there under pension investments'), or the rows right above a row they add up
to ('how many categories are there under total share-based expense', 'net change in cash') — is checked by counting
those rows, all of them or those whose one figure in the claim's period passes a threshold. Every rule has its
negative: a wrong count, a threshold at the wrong scale, another period, and a whole the claim does not name (left
unchecked, never verified by a chance figure equal to the count)."""

from __future__ import annotations

from pathlib import Path

import pytest

from test_false_alarms_s14 import _check
from test_table_captions_s16 import FORMS, table_auditor
from test_tables_s28 import ALL_FORMS
from tool_runs import one_section_auditor

TABLES: dict[str, tuple[str, list[list[str]], str]] = {
    # rows under section rows, a section's parts above its total, one grand total below every section
    "plan assets": ("Table 1 Pension plan assets (Dollars in millions)", [
        ["AT DECEMBER 31", "2019", "2018"],
        ["Quoted prices", "", ""],
        ["Listed equities", "", ""],
        ["Domestic", "2,410", "2,118"],
        ["International", "3,305", "2,960"],
        ["Bonds", "", ""],
        ["Government", "9,874", "9,203"],
        ["Corporate", "1,762", "1,540"],
        ["Unquoted inputs", "", ""],
        ["Pension investments", "", ""],
        ["Infrastructure funds", "1,480", "1,306"],
        ["Credit funds", "707", "731"],
        ["Property", "612", "540"],
        ["Other", "58", "64"],
        ["Total", "20,208", "18,462"]],
        "The plan's assets by the level of their inputs."),
    # parts above a total row with no section row, three years
    "share-based expense": ("Table 2 (In thousands)", [
        ["", "2019", "2018", "2017"],
        ["Cost of services", "1,842", "1,716", "1,530"],
        ["Selling and marketing", "5,205", "5,410", "4,980"],
        ["Product development", "3,911", "4,527", "6,102"],
        ["Administrative", "12,630", "11,204", "10,877"],
        ["Total share-based expense", "23,588", "22,857", "23,489"]],
        "Share-based expense by the function of the employees."),
    # parts above a total, one of them without a figure in a year
    "segment costs": ("Table 7 (in millions)", [
        ["", "2019", "2018"],
        ["Hardware", "1,204", "1,150"],
        ["Software", "—", "312"],
        ["Services", "845", "790"],
        ["Total segment costs", "2,049", "2,252"]],
        ""),
    # parts above a named line that is no total by its words, and lines below it that are no parts of it
    "cash flows": ("Table 3 (in millions)", [
        ["", "2019", "2018"],
        ["Net cash provided by operating activities", "4,112", "3,870"],
        ["Net cash used in investing activities", "(1,905)", "(2,214)"],
        ["Net cash used in financing activities", "(2,231)", "(1,643)"],
        ["Net change in cash", "(24)", "13"],
        ["Cash at beginning of year", "402", "389"],
        ["Cash at end of year", "378", "402"]],
        ""),
    # a section of deferred tax assets with its total, more lines below it
    "deferred taxes": ("Table 4 Dollars in thousands", [
        ["", "2019", "2018"],
        ["Deferred tax assets:", "", ""],
        ["Tax loss carryforwards", "$141,205", "$98,870"],
        ["Receivables", "5,031", "6,420"],
        ["Accrued liabilities", "62,480", "61,905"],
        ["Depreciation", "55,116", "72,390"],
        ["Tax credits", "38,207", "52,110"],
        ["Other", "17,660", "15,004"],
        ["Total deferred tax assets", "319,699", "306,699"],
        ["Less valuation allowance", "(201,530)", "(160,245)"],
        ["Net deferred tax assets", "$118,169", "$146,454"]],
        ""),
    # a row with three columns a period, its periods named by date rows above each block
    "receivables": ("Table 5 (in thousands)", [
        ["", "Receivables, Gross", "Allowance for Credit Losses", "Receivables, Net"],
        ["December 31, 2019", "", "", ""],
        ["Billed", "$11,204", "$(312)", "$10,892"],
        ["Unbilled", "5,935", "—", "5,935"],
        ["Total", "$17,139", "$(312)", "$16,827"],
        ["December 31, 2018", "", "", ""],
        ["Billed", "$13,018", "$(204)", "$12,814"],
        ["Unbilled", "1,402", "—", "1,402"],
        ["Total", "$14,420", "$(204)", "$14,216"]],
        ""),
    # quarters as rows under a year's 'Low' and 'High'
    "share prices": ("Table 6", [
        ["", "Common Stock Price Range 2019", ""],
        ["", "Low", "High"],
        ["First Quarter", "$ 4.12", "$ 6.95"],
        ["Second Quarter", "$ 3.57", "$ 5.20"],
        ["Third Quarter", "$ 2.31", "$ 3.88"],
        ["Fourth Quarter", "$ 1.64", "$ 2.97"]],
        ""),
}


@pytest.fixture
def audit(tmp_path: Path):
    return table_auditor(tmp_path, TABLES)


def _asked(question: str, count: str) -> tuple[str, str]:
    return (f"In answer to {question}, the figure is {count}.", f"{count}.")


@pytest.mark.parametrize("form", ALL_FORMS)
def test_the_rows_under_a_section_row_are_counted(audit, form: str) -> None:
    # Pension investments: four rows above the grand total (the Total row is no component); Bonds: two
    _check(audit, form, "plan assets",
           [_asked("how many components are there under pension investments", "4"),
            _asked("how many types of bonds are there", "2")],
           [_asked("how many components are there under pension investments", "5"),  # the Total row counted too
            _asked("how many components are there under pension investments", "3"),
            _asked("how many types of bonds are there", "3")])


@pytest.mark.parametrize("form", ALL_FORMS)
def test_the_rows_that_add_up_to_a_named_row_are_counted(audit, form: str) -> None:
    _check(audit, form, "share-based expense",
           [_asked("how many categories are there under total share-based expense", "4")],
           [_asked("how many categories are there under total share-based expense", "5"),
            _asked("how many categories are there under total share-based expense", "3")])
    # a part without a figure in a year ('—') is a part all the same
    _check(audit, form, "segment costs",
           [_asked("how many categories are there under total segment costs", "3")],
           [_asked("how many categories are there under total segment costs", "2")])
    # 'Net change in cash' is the sum of the three lines above it (to the precision shown), not of the lines below
    _check(audit, form, "cash flows",
           [_asked("how many major components are there in the cash flow (affecting net change in cash)", "3")],
           [_asked("how many major components are there in the cash flow (affecting net change in cash)", "4"),
            _asked("how many major components are there in the cash flow (affecting net change in cash)", "2")])


@pytest.mark.parametrize("form", ALL_FORMS)
def test_the_rows_of_a_section_over_a_threshold_in_one_year_are_counted(audit, form: str) -> None:
    # 2019: tax loss carryforwards, accrued liabilities and depreciation exceed $50,000 thousand (not the total, nor
    # the net line below it); 2018: also tax credits
    _check(audit, form, "deferred taxes",
           [_asked("how many components of deferred tax assets exceeded $50,000 thousand in 2019", "3"),
            _asked("how many components of deferred tax assets exceeded $50,000 thousand in 2018", "4"),
            _asked("how many components of deferred tax assets were below $20 million in 2019", "2")],
           [_asked("how many components of deferred tax assets exceeded $50,000 thousand in 2019", "4"),  # 2018's
            _asked("how many components of deferred tax assets exceeded $50,000 thousand in 2018", "3"),  # 2019's
            # the wrong scale: every component is over $50 thousand
            _asked("how many components of deferred tax assets exceeded $50 thousand in 2019", "3"),
            _asked("how many components of deferred tax assets were below $20 million in 2019", "1")])


@pytest.mark.parametrize("form", ["markdown", "records"])
def test_a_part_without_a_figure_leaves_a_count_below_a_threshold_unchecked(audit, form: str) -> None:
    # 'Software' has no 2019 figure ('—'): a zero below $500 million or no figure at all, so the count is not checked;
    # over a threshold it passes nothing either way, and is counted
    _check(audit, form, "segment costs",
           [_asked("how many categories of total segment costs exceeded $1,000 million in 2019", "1")],
           [_asked("how many categories of total segment costs exceeded $1,000 million in 2019", "2")])
    for count in ("0", "1"):
        record = audit(form, "segment costs",
                       *_asked("how many categories of total segment costs were below $500 million in 2019", count))
        assert record.verdict.value == "unverifiable", (count, record.verdict, record.notes)


@pytest.mark.parametrize("form", ["markdown", "records"])
def test_a_count_of_no_named_whole_is_not_checked(audit, form: str) -> None:
    # no section nor line is named: never verified by a chance figure equal to the count (nor flagged)
    # nor is a count of things a cell may state ('how many funds'): only the kinds of a whole's parts are its rows
    for sentence, figure in [_asked("how many kinds of inputs are there", "2"),
                             _asked("how many funds are there under pension investments", "4"),
                             _asked("how many components of deferred tax assets exceeded $50,000 thousand", "3")]:
        record = audit(form, "deferred taxes" if "deferred" in sentence else "plan assets", sentence, figure)
        assert record.verdict.value == "unverifiable", (sentence, record.verdict, record.notes)


@pytest.mark.parametrize("form", ALL_FORMS)
def test_the_years_of_one_column_of_a_row_with_several_are_counted(audit, form: str) -> None:
    # net: 2019's 16,827 only exceeds $15,000 thousand; gross: both years (17,139 and 14,420 < 15,000: one)
    _check(audit, form, "receivables",
           [_asked("how many years did the total net receivables exceed $15,000 thousand", "1"),
            _asked("how many years did the total gross receivables exceed $14,000 thousand", "2")],
           [_asked("how many years did the total net receivables exceed $15,000 thousand", "2"),
            _asked("how many years did the total gross receivables exceed $14,000 thousand", "1"),
            _asked("how many years did the total net receivables exceed $15,000 million", "1")])  # the wrong scale
    # no column named: left unchecked, never verified
    record = audit(form, "receivables", *_asked("how many years did the total receivables exceed $14,000 thousand", "2"))
    assert record.verdict.value == "unverifiable", (record.verdict, record.notes)


@pytest.mark.parametrize("form", sorted(FORMS))
def test_the_quarters_of_a_column_are_counted(audit, form: str) -> None:
    # lows below $2.50: the third and fourth quarters; highs below $4.00: the same two
    _check(audit, form, "share prices",
           [_asked("in 2019, how many quarters had stock prices lower than $2.50 during their lows", "2"),
            _asked("how many quarters had a high stock price below $4.00", "2")],
           [_asked("in 2019, how many quarters had stock prices lower than $2.50 during their lows", "1"),
            _asked("in 2019, how many quarters had stock prices lower than $2.50 during their lows", "3"),
            _asked("how many quarters had a high stock price below $4.00", "3"),
            # another year: the table holds 2019's quarters only
            _asked("in 2018, how many quarters had stock prices lower than $2.50 during their lows", "2")])


def test_quarters_of_records_are_counted_where_their_column_is_read(audit) -> None:
    # JSON records with the label keyed last: the lows' column is read under 'Low' and counted; the highs', first of
    # each record, is no column of figures to the reader, so a count of highs is left unchecked (never counted over
    # the lows' column, whose header the claim does not name)
    lows = "in 2019, how many quarters had stock prices lower than $2.50 during their lows"
    _check(audit, "records", "share prices", [_asked(lows, "2")], [_asked(lows, "1"), _asked(lows, "3")])
    for count in ("1", "2", "3"):
        record = audit("records", "share prices", *_asked("how many quarters had a high stock price below $4.00", count))
        assert record.verdict.value == "unverifiable", (count, record.verdict, record.notes)


FEES = """The following table lists the fees billed to us by our independent auditor for 2019 and 2018:

| | 2019 | 2018 |
|---|---|---|
| Audit Fees(1) | $4,210,300 | $3,987,450 |
| Audit-Related Fees(2) | 86,400 | 91,250 |
| Tax Fees(3) | 412,800 | 388,100 |

(1) Includes the cost of services rendered for (i) auditing our annual consolidated financial statements, (ii) reviewing
our quarterly financial statements, (iii) statutory audits of certain foreign subsidiaries, (iv) reviewing our
registration statements and (v) consultations on accounting standards.
(2) Includes the cost of agreed upon procedures. The plan names three goals: (a) growth of recurring revenue, (b) lower
churn and (c) margin expansion.
(3) Includes tax compliance and planning.
"""


def test_the_items_of_a_marked_list_are_counted(tmp_path: Path) -> None:
    # the services of footnote (1): five items (i) to (v); the goals (a) to (c) are another list, of another noun
    audit = one_section_auditor(tmp_path, FEES)
    right = [_asked("how many services have their costs included within the audit fees", "5"),
             _asked("how many goals does the plan name", "3")]
    wrong = [_asked("how many services have their costs included within the audit fees", "4"),
             _asked("how many services have their costs included within the audit fees", "6"),
             _asked("how many goals does the plan name", "5")]  # the services' list
    _check(lambda _form, _table, sentence, figure: audit(sentence, figure), "markdown", "", right, wrong)
    # a list that names no thing the claim counts is no answer: left unchecked
    record = audit(*_asked("how many subsidiaries does the company audit", "5"))
    assert record.verdict.value == "unverifiable", (record.verdict, record.notes)
