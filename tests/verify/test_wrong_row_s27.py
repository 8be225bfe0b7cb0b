"""Issue 10, trust (stop 27): wrong cells of table shapes the TAT-QA tuning split rarely has, over real captured runs
(`plan` asks for a tool, a `ToolNode` runs it, `write` returns the report) in every form a tool returns a table in.
Months as columns ('Aug 2019 | Sep 2019 | Total'): a claim naming a month is its month's column, never the Total's nor
another month's. A claim naming a day ('as of December 31, 2019') is not backed by a cell dated on another day of that
year, by its row ('Nonvested at January 1, 2017') or its column ('January 1, 2019' of an adoption table). A claim
naming a flow row of a roll-forward ('granted') is that row's, not the dated balance above it. A share column repeated
after each year's amounts ('2019 | % of total | 2018 | % of total') is that year's. The columns of a restatement ('As
reported | Adjustments | As adjusted') are sides of one axis: a claim naming one is backed by no other. Each rule has
its negatives: the right cell stays covered, a claim naming no month, no day or no side keeps its cell."""

from __future__ import annotations

from pathlib import Path

import pytest

from test_false_alarms_s14 import _check
from test_table_captions_s16 import FORMS, table_auditor

TABLES = {
    # months as columns, closed by their total
    "months": ("Table 3 Revenue by month (in thousands)", [
        ["", "Aug 2019", "Sep 2019", "Total"],
        ["Product revenue", "1,210", "1,340", "2,550"],
        ["Service revenue", "430", "455", "885"]],
        "Revenue by month of the quarter."),
    # a roll-forward: two dated balances and the flows between them
    "nonvested": ("Table 7 Nonvested shares", [
        ["", "Shares", "Weighted average grant date fair value"],
        ["Nonvested at January 1, 2017", "98,000", "$12.40"],
        ["Granted", "45,000", "$15.10"],
        ["Vested", "(30,000)", "$11.90"],
        ["Forfeited", "(5,000)", "$13.00"],
        ["Nonvested at December 31, 2017", "108,000", "$13.70"]],
        "Activity of nonvested shares in 2017."),
    # columns dated by two days of one year
    "adoption": ("Table 11 Leases (in thousands)", [
        ["", "January 1, 2019", "December 31, 2019"],
        ["Operating lease right-of-use assets", "41,200", "38,650"],
        ["Operating lease liabilities", "44,900", "42,075"]],
        "Balances at adoption of ASC 842 and at year end."),
    # a share column beside each year's amounts
    "shares of total": ("Table 9 Revenue by segment (in millions)", [
        ["", "2019", "% of total", "2018", "% of total"],
        ["Consumer", "1,200", "60", "1,000", "55"],
        ["Enterprise", "800", "40", "818", "45"],
        ["Total", "2,000", "100", "1,818", "100"]],
        "Revenue by segment."),
    # a change column after two years compares both: no year of its own
    "change": ("Table 10 Revenue by segment (in millions)", [
        ["", "2019", "2018", "% change"],
        ["Consumer", "1,200", "1,000", "20"],
        ["Enterprise", "800", "818", "(2)"]],
        "Revenue by segment."),
    # the columns of an adoption: before, effect, after
    "restated": ("Table 12 Selected balance sheet items (in thousands)", [
        ["", "As reported", "Adjustments", "As adjusted"],
        ["Accounts receivable", "14,200", "(1,150)", "13,050"],
        ["Deferred revenue", "6,300", "2,100", "8,400"],
        ["Total assets", "88,900", "(1,150)", "87,750"]],
        "The effect of the adoption of ASC 606 at January 1, 2018."),
}

ALL_FORMS = sorted([*FORMS, "records"])


@pytest.fixture
def audit(tmp_path: Path):
    return table_auditor(tmp_path, TABLES)


@pytest.mark.parametrize("form", ALL_FORMS)
def test_a_claim_naming_a_month_is_its_month_column(audit, form: str) -> None:
    _check(audit, form, "months",
           [("Product revenue in August 2019 was $1,210 thousand.", "$1,210"),
            ("Product revenue in September 2019 was $1,340 thousand.", "$1,340"),
            # negatives: no month named, the Total is the whole; a sum of the months is derived
            ("Total service revenue for the two months was $885 thousand.", "$885"),
            ("Service revenue in 2019 was $885 thousand.", "$885"),
            ("Total product revenue for August and September 2019 was $2,550 thousand.", "$2,550")],
           [("Product revenue in August 2019 was $2,550 thousand.", "$2,550"),  # the Total column
            ("Service revenue in August 2019 was $885 thousand.", "$885"),
            ("Product revenue in September 2019 was $1,210 thousand.", "$1,210"),  # August's column
            ("Service revenue in August 2019 was $455 thousand.", "$455")])


@pytest.mark.parametrize("form", ALL_FORMS)
def test_a_claim_naming_a_day_is_no_balance_of_another_day_of_its_year(audit, form: str) -> None:
    _check(audit, form, "adoption",
           [("Operating lease right-of-use assets as of December 31, 2019 were $38,650 thousand.", "$38,650"),
            ("Operating lease right-of-use assets as of January 1, 2019 were $41,200 thousand.", "$41,200"),
            ("Operating lease liabilities at Dec. 31, 2019 were $42,075 thousand.", "$42,075"),
            # negative: a change between the two days is derived from both
            ("The change in operating lease liabilities from January 1, 2019 to December 31, 2019 was -$2,825 "
             "thousand.", "$2,825")],
           [("Operating lease right-of-use assets as of December 31, 2019 were $41,200 thousand.", "$41,200"),
            ("Operating lease right-of-use assets as of January 1, 2019 were $38,650 thousand.", "$38,650"),
            ("Operating lease liabilities at Dec. 31, 2019 were $44,900 thousand.", "$44,900"),
            ("The change in operating lease liabilities from January 1, 2019 to December 31, 2019 was -$3,825 "
             "thousand.", "$3,825")])  # invented


@pytest.mark.parametrize("form", ALL_FORMS)
def test_a_roll_forward_balance_backs_no_claim_of_another_day_or_of_a_flow(audit, form: str) -> None:
    _check(audit, form, "nonvested",
           [("The number of nonvested shares at December 31, 2017 was 108,000.", "108,000"),
            ("The number of nonvested shares granted in 2017 was 45,000.", "45,000"),
            ("The number of shares vested in 2017 was 30,000.", "30,000"),
            # negatives: the balance of the day the claim names, and a claim naming no day nor flow
            ("The number of nonvested shares at January 1, 2017 was 98,000.", "98,000"),
            ("The number of nonvested shares at the end of 2017 was 108,000.", "108,000")],
           [("The number of nonvested shares at December 31, 2017 was 98,000.", "98,000"),  # January's balance
            ("The number of nonvested shares granted in 2017 was 98,000.", "98,000"),  # the balance above 'Granted'
            ("The number of shares granted in 2017 was 108,000.", "108,000"),
            ("The number of shares vested in 2017 was 45,000.", "45,000")])


# JSON records key a row by its headers: two columns headed '% of total' are one key there, so records are left out
@pytest.mark.parametrize("form", sorted(FORMS))
def test_a_share_column_after_each_year_is_that_years(audit, form: str) -> None:
    _check(audit, form, "shares of total",
           [("Consumer revenue was 60% of total revenue in 2019.", "60%"),
            ("Enterprise revenue was 45% of total revenue in 2018.", "45%"),
            ("Consumer revenue in 2019 was $1,200 million.", "$1,200"),
            ("Consumer revenue was 60% of total revenue.", "60%")],  # negative: no year named
           [("Consumer revenue was 55% of total revenue in 2019.", "55%"),  # 2018's share
            ("Enterprise revenue was 40% of total revenue in 2018.", "40%"),  # 2019's share
            ("Consumer revenue in 2019 was $60 million.", "$60 million")])  # the share as an amount


@pytest.mark.parametrize("form", ALL_FORMS)
def test_a_change_column_after_two_years_takes_no_year(audit, form: str) -> None:
    # negative of the rule above: one period-less column after two years is no share of the second
    _check(audit, form, "change",
           [("Consumer revenue grew 20% from 2018 to 2019.", "20%"),
            ("Consumer revenue in 2018 was $1,000 million.", "$1,000")],
           [("Consumer revenue grew 25% from 2018 to 2019.", "25%"),
            ("Consumer revenue in 2019 was $1,000 million.", "$1,000")])


@pytest.mark.parametrize("form", ALL_FORMS)
def test_the_columns_of_a_restatement_are_sides_of_one_axis(audit, form: str) -> None:
    _check(audit, form, "restated",
           [("Accounts receivable as adjusted was $13,050 thousand.", "$13,050"),
            ("Accounts receivable as reported was $14,200 thousand.", "$14,200"),
            ("Deferred revenue after the adjustment was $8,400 thousand.", "$8,400"),
            ("The adjustment to deferred revenue was $2,100 thousand.", "$2,100"),
            ("Total assets as previously reported were $88,900 thousand.", "$88,900")],
           [("Accounts receivable as adjusted was $14,200 thousand.", "$14,200"),  # as reported
            ("Accounts receivable as reported was $13,050 thousand.", "$13,050"),  # as adjusted
            ("Deferred revenue before the adjustment was $8,400 thousand.", "$8,400"),
            ("The adjustment to deferred revenue was $8,400 thousand.", "$8,400"),
            ("Total assets as adjusted were $88,900 thousand.", "$88,900")])

