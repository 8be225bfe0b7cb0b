"""Issue 10, trust (stop 29): what a row label names besides its subject, over real captured runs (`plan` asks for a
tool, a `ToolNode` runs it, `write` returns the report) in every form a tool returns a table in.
A year in a row label under dated columns ('Term Loan A Facility due July 2022' under 'December 31, 2019') is the
row's name, not the cell's period: rows differing only by that year are told apart by it, and a claim naming the row's
year and a period is backed by that period's column only. A scale that names what it scales ('(dollars in millions,
shares in thousands)') scales only the rows naming it. Each rule has its negatives: the other year's row, the other
period's column, the whole table's scale for a count, and the right cells stay covered."""

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
