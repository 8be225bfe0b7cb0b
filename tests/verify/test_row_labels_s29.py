"""Issue 10, trust (stop 29): what a row label names besides its subject, over real captured runs (`plan` asks for a
tool, a `ToolNode` runs it, `write` returns the report) in every form a tool returns a table in.
A year in a row label under dated columns ('Term Loan A Facility due July 2022' under 'December 31, 2019') is the
row's name, not the cell's period: rows differing only by that year are told apart by it, and a claim naming the row's
year and a period is backed by that period's column only. A scale that names what it scales ('(dollars in millions,
shares in thousands)') scales only the rows naming it. A claim about what falls due after a year ('due after 2024') is
a payment schedule's bucket after that year, never that year's column or the Total, and a header 'After 2024' names
no period of 2024. A claim naming a total ('total dividends paid') is backed by a total row or the
sum of its parts, never by one part, nor derived as one part's change or as a part paired with another kind of row (an
asset with a liability). A claim naming a flow row (granted) and the day of the balance it starts from is the flow's,
not the balance's. Each rule has its negatives: the other year's row, the other period's column, the whole
table's scale for a count, the year's column for 'after' it, one part for the total; the right cells stay covered."""

from __future__ import annotations

from pathlib import Path

import pytest

from test_false_alarms_s14 import _check
from test_table_captions_s16 import table_auditor
from test_wrong_row_s27 import ALL_FORMS

TABLES = {
    # debt instruments named by the year they fall due, under two balance-sheet dates
    "debt": ("Table 6 Long-term debt (in millions)", [
        ["", "December 31, 2019", "December 31, 2018"],
        ["Term Loan A Facility due July 2022", "1,250.0", "1,300.0"],
        ["Term Loan A Facility due July 2023", "805.5", "850.0"],
        ["Senior Notes due 2025", "612.4", "611.9"]],
        "Carrying amounts of the company's borrowings."),
    # dividends named by the year they were declared for, paid in the column's year
    "dividends": ("Table 8 Dividends paid (in thousands)", [
        ["", "2019", "2018"],
        ["Final dividend for the year ended 30 June 2018 of 15 cents (2017: 11 cents)", "12,420", "11,650"],
        ["Interim dividend for the half year ended 31 December 2018 of 17 cents (2017: 14 cents)", "15,310", "12,870"]],
        "Dividends paid during the year."),
    # one caption, two scales: dollars and share counts
    "eps": ("Table 4 Earnings per share (dollars in millions, shares in thousands)", [
        ["", "2019", "2018"],
        ["Net income", "1,250.4", "1,020.7"],
        ["Weighted average common shares outstanding", "312,450", "305,112"],
        ["Net income per share", "$4.00", "$3.35"]],
        "Basic earnings per share."),
    # a caption stating only the shares' scale
    "share counts": ("Table 5 Shares (shares in thousands)", [
        ["", "2019", "2018"],
        ["Common shares outstanding", "312,450", "305,112"],
        ["Treasury shares", "4,210", "3,980"]],
        "Shares at year end."),
    # a payment schedule closed by 'Thereafter', and one closed by 'After 2024'
    "payments": ("Table 8 Contractual obligations (in thousands)", [
        ["", "Total", "2020", "2021", "2022", "2023", "2024", "Thereafter"],
        ["Operating leases", "9,450", "1,210", "1,180", "1,120", "1,060", "990", "3,890"],
        ["Purchase obligations", "5,330", "2,015", "1,370", "845", "610", "340", "150"]],
        "Payments due by period as of December 31, 2019."),
    "payments after": ("Table 9 Contractual obligations (in thousands)", [
        ["", "Total", "2020", "2021", "2022", "2023", "2024", "After 2024"],
        ["Operating leases", "9,450", "1,210", "1,180", "1,120", "1,060", "990", "3,890"],
        ["Purchase obligations", "5,330", "2,015", "1,370", "845", "610", "340", "150"]],
        "Payments due by period as of December 31, 2019."),
    # two kinds of dividend and their sum on a line without a label
    "dividends paid": ("Table 10 Dividends paid (in thousands)", [
        ["", "2019", "2018"],
        ["Final dividend", "12,420", "11,650"],
        ["Interim dividend", "15,310", "12,870"],
        ["", "27,730", "24,520"]],
        "Dividends paid during the year."),
    # assets and liabilities of two currencies, each split by current and non-current
    "monetary": ("Table 11 Monetary assets and liabilities (in millions)", [
        ["", "USD denominated", "Non-USD denominated"],
        ["Monetary assets, current", "21,310", "3,104"],
        ["Monetary assets, non-current", "415", "18"],
        ["Monetary liabilities, current", "(3,962)", "(12,207)"],
        ["Monetary liabilities, non-current", "(104)", "(4,833)"]],
        "Monetary items exposed to foreign exchange risk as at 31 December 2019."),
    # a roll-forward: dated balances and the flows between them
    "units": ("Table 12 Restricted stock units", [
        ["", "Number of Shares (in thousands)", "Weighted Average Grant Date Fair Value"],
        ["Nonvested at January 1, 2018", "240", "$18.40"],
        ["Granted", "151", "15.10"],
        ["Vested", "(62)", "16.90"],
        ["Forfeited", "(17)", "—"],
        ["Nonvested at December 31, 2018", "312", "$16.70"]],
        "Activity of restricted stock units in 2018."),
}


@pytest.fixture
def audit(tmp_path: Path):
    return table_auditor(tmp_path, TABLES)


@pytest.mark.parametrize("form", ALL_FORMS)
def test_rows_differing_by_a_year_are_told_apart_by_it(audit, form: str) -> None:
    _check(audit, form, "debt",
           [("The Term Loan A Facility due July 2022 was $1,250.0 million at December 31, 2019.", "$1,250.0"),
            ("The Term Loan A Facility due July 2023 was $805.5 million at December 31, 2019.", "$805.5"),
            ("The Term Loan A Facility due July 2023 was $850.0 million at December 31, 2018.", "$850.0"),
            # a claim naming the row by its words alone keeps its cell
            ("The Senior Notes were $612.4 million at December 31, 2019.", "$612.4")],
           [("The Term Loan A Facility due July 2023 was $1,250.0 million at December 31, 2019.", "$1,250.0"),
            ("The Term Loan A Facility due July 2022 was $805.5 million at December 31, 2019.", "$805.5"),
            ("The Term Loan A Facility due July 2023 was $1,300.0 million at December 31, 2018.", "$1,300.0")])


@pytest.mark.parametrize("form", ALL_FORMS)
def test_a_year_in_a_row_label_is_not_the_claims_period(audit, form: str) -> None:
    _check(audit, form, "debt",
           [("The Term Loan A Facility due July 2022 was $1,300.0 million at December 31, 2018.", "$1,300.0"),
            ("The Senior Notes due 2025 were $611.9 million at December 31, 2018.", "$611.9")],
           # the other date's column of the row the claim names
           [("The Term Loan A Facility due July 2022 was $1,300.0 million at December 31, 2019.", "$1,300.0"),
            ("The Senior Notes due 2025 were $611.9 million at December 31, 2019.", "$611.9"),
            ("The Term Loan A Facility due July 2023 was $805.5 million at December 31, 2018.", "$805.5")])


@pytest.mark.parametrize("form", ALL_FORMS)
def test_years_a_label_is_named_by_leave_the_column_its_period(audit, form: str) -> None:
    _check(audit, form, "dividends",
           [("The final dividend paid in 2019 was $12,420 thousand.", "$12,420"),
            ("The interim dividend paid in 2018 was $12,870 thousand.", "$12,870")],
           [("The final dividend paid in 2019 was $11,650 thousand.", "$11,650"),  # 2018's column
            ("The interim dividend paid in 2019 was $12,870 thousand.", "$12,870")])


@pytest.mark.parametrize("form", ALL_FORMS)
def test_a_scale_naming_shares_scales_only_the_share_rows(audit, form: str) -> None:
    _check(audit, form, "eps",
           [("Weighted average common shares outstanding in 2019 were 312.45 million.", "312.45 million"),
            ("Weighted average common shares outstanding in 2018 were 305,112 thousand.", "305,112 thousand"),
            ("Net income in 2019 was $1,250.4 million.", "$1,250.4"),
            ("Net income in 2018 was $1.0207 billion.", "$1.0207"),
            ("Net income per share in 2019 was $4.00.", "$4.00")],
           [("Weighted average common shares outstanding in 2019 were 312.45 billion.", "312.45 billion"),
            ("Weighted average common shares outstanding in 2018 were 305,112 million.", "305,112 million"),
            ("Net income in 2019 was $1,250.4 thousand.", "$1,250.4"),
            ("Weighted average common shares outstanding in 2019 were 305.112 million.", "305.112 million")])


@pytest.mark.parametrize("form", ALL_FORMS)
def test_a_caption_with_only_a_named_scale_keeps_it(audit, form: str) -> None:
    _check(audit, form, "share counts",
           [("Common shares outstanding in 2019 were 312.45 million.", "312.45 million"),
            ("Treasury shares in 2018 were 3.98 million.", "3.98 million")],
           [("Common shares outstanding in 2019 were 312.45 billion.", "312.45 billion"),
            ("Treasury shares in 2018 were 3,980 million.", "3,980 million")])


@pytest.mark.parametrize("form", ALL_FORMS)
def test_due_after_a_year_is_the_bucket_after_it(audit, form: str) -> None:
    _check(audit, form, "payments",
           [("Purchase obligations due after 2024 are $150 thousand.", "$150"),
            ("As of December 31, 2019, operating lease payments due after 2024 are $3,890 thousand.", "$3,890"),
            ("Operating lease payments due in 2024 are $990 thousand.", "$990"),
            ("Total purchase obligations as of December 31, 2019 are $5,330 thousand.", "$5,330")],
           [("Purchase obligations due after 2024 are $340 thousand.", "$340"),  # the 2024 column
            ("Operating lease payments due after 2024 are $9,450 thousand.", "$9,450"),  # the Total
            ("Purchase obligations due after 2022 are $150 thousand.", "$150")])  # a part of what falls due after 2022


@pytest.mark.parametrize("form", ALL_FORMS)
def test_a_bucket_named_after_a_year_is_no_period_of_that_year(audit, form: str) -> None:
    _check(audit, form, "payments after",
           [("Purchase obligations due after 2024 are $150 thousand.", "$150"),
            ("Operating lease payments due in 2024 are $990 thousand.", "$990")],
           [("Purchase obligations due after 2024 are $340 thousand.", "$340"),
            ("Operating lease payments due after 2024 are $990 thousand.", "$990")])


@pytest.mark.parametrize("form", ALL_FORMS)
def test_a_total_is_no_part_of_it(audit, form: str) -> None:
    _check(audit, form, "dividends paid",
           [("Total dividends paid in 2019 were $27,730 thousand.", "$27,730"),
            ("The interim dividend paid in 2019 was $15,310 thousand.", "$15,310"),
            ("The percentage change in the total dividends paid from 2018 to 2019 was 13.09%.", "13.09%")],
           [("Total dividends paid in 2019 were $15,310 thousand.", "$15,310"),  # one part
            ("Total dividends paid in 2019 were $12,420 thousand.", "$12,420"),
            # one part's change: (15,310 - 12,870) / 12,870
            ("The percentage change in the total dividends paid from 2018 to 2019 was 18.96%.", "18.96%")])


@pytest.mark.parametrize("form", ALL_FORMS)
def test_a_total_adds_up_parts_of_one_kind(audit, form: str) -> None:
    _check(audit, form, "monetary",
           [("The total USD denominated monetary assets as at 31 December 2019 were 21,725 million.", "21,725"),
            ("The total non-USD denominated monetary liabilities as at 31 December 2019 were 17,040 million.",
             "17,040")],
           # an asset and a liability, 21,310 - (-3,962); one part
           [("The total USD denominated monetary assets as at 31 December 2019 were 25,272 million.", "25,272"),
            ("The total USD denominated monetary assets as at 31 December 2019 were 21,310 million.", "21,310")])


@pytest.mark.parametrize("form", ALL_FORMS)
def test_a_flow_named_with_its_balances_day_is_the_flows(audit, form: str) -> None:
    _check(audit, form, "units",
           [("The number of nonvested shares granted on January 1, 2018 was 151 thousand.", "151"),
            ("The number of nonvested shares at January 1, 2018 was 240 thousand.", "240"),
            ("The number of nonvested shares at December 31, 2018 was 312 thousand.", "312")],
           [("The number of nonvested shares granted on January 1, 2018 was 240 thousand.", "240"),  # the balance
            ("The number of nonvested shares forfeited on December 31, 2018 was 312 thousand.", "312"),
            ("The number of nonvested shares at December 31, 2018 was 240 thousand.", "240")])
