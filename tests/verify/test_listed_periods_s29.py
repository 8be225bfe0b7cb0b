"""Issue 10, trust (stop 29): a figure of a 'respectively' list is its own period's, computed or not, over real
captured runs (`plan` asks for a tool, a `ToolNode` runs it, `write` returns the report) in every form a tool returns
a table in. '15%, 57% and 53% in 2017, 2018 and 2019, respectively' states 15% for 2017: a derivation backing it is of
2017's figures (and 2016's, the base of a change in 2017), never a change or share of the other periods the list names
(on main, 15% came out derived as the change of the total from 2017 to 2019). A true listed change of its own period
against the one before, and a true listed share of its own period's column, stay covered; a list whose years are the
ends of one span ('the changes in A and B from 2018 to 2019 were ..., respectively') lists rows, not periods.
A figure computed over two periods is of one line item's two periods: a pair of cells of two rows and two periods
('Pinnacle Foods 2019 - Total 2018') computes nothing, in the prose path too, where only the gate stopped it."""

from __future__ import annotations

from pathlib import Path

import pytest

from test_false_alarms_s14 import _check
from test_table_captions_s16 import FORMS, table_auditor

TABLES = {
    # a bare 'Total' row under a caption naming revenue; the prose below states one region's shares by year
    "geography": ("Table 2 Revenue by geography (in millions)", [
        ["", "2019", "2018", "2017"],
        ["United States", "$12,451", "$17,116", "$11,359"],
        ["Taiwan", "2,703", "3,918", "2,892"],
        ["Hong Kong", "1,614", "1,761", "1,429"],
        ["Other", "6,638", "7,596", "4,642"],
        ["Total", "$23,406", "$30,391", "$20,322"]],
        "Revenue from sales into China accounted for 53%, 57%, and 51% of total revenue in 2019, 2018, and 2017, "
        "respectively."),
    # a table of another subject, and prose stating one subject's figure for each of three years
    "prose list": ("Table 6 Headcount by function", [
        ["", "2019", "2018"],
        ["Engineering", "1,210", "1,105"],
        ["Sales", "640", "598"]],
        "Northwind Utility's bookings were $120.4 million, $150.5 million and $180.6 million in 2017, 2018 and 2019, "
        "respectively."),
    # segments by row, the claim naming the total by words its label lacks ('total sales' for 'Total' under 'Net Sales')
    "segments": ("($ in millions)", [
        ["Reporting Segment", "Fiscal 2019 Net Sales", "Fiscal 2018 Net Sales", "% Inc (Dec)"],
        ["Grocery & Snacks", "$3,279.2", "$3,287.0", "—%"],
        ["Refrigerated & Frozen", "2,804.0", "2,753.0", "2%"],
        ["International", "793.4", "843.5", "(6)%"],
        ["Foodservice", "934.2", "1,054.8", "(11)%"],
        ["Pinnacle Foods", "1,727.6", "—", "100%"],
        ["Total", "$9,538.4", "$7,938.3", "20%"]],
        ""),
}

ALL_FORMS = sorted([*FORMS, "records"])


@pytest.fixture
def audit(tmp_path: Path):
    return table_auditor(tmp_path, TABLES)


@pytest.mark.parametrize("form", ALL_FORMS)
def test_a_listed_figure_is_no_change_between_other_periods(audit, form: str) -> None:
    # (23,406 - 20,322) / 20,322 = 15.18%: the total's change from 2017 to 2019, no figure of 2017 alone
    _check(audit, form, "geography",
           [("The percentage revenue from sales into China in 2017, 2018, and 2019 was 51% and 57% and 53%, "
             "respectively.", "51%")],
           [("The percentage revenue from sales into China in 2017, 2018, and 2019 was 15% and 57% and 53%, "
             "respectively.", "15%"),  # 51% swapped
            ("The percentage revenue from sales into China in 2019, 2018, and 2017 was 53%, 57% and 15%, "
             "respectively.", "15%")])  # the same, years listed from the latest


@pytest.mark.parametrize("form", ALL_FORMS)
def test_a_listed_change_is_of_its_own_period_against_the_one_before(audit, form: str) -> None:
    # (30,391 - 20,322) / 20,322 = 49.55%; (23,406 - 30,391) / 30,391 = -22.98%
    _check(audit, form, "geography",
           [("Total revenue grew 49.55% and -22.98% in 2018 and 2019, respectively.", "49.55%"),
            ("Total revenue grew 49.55% and -22.98% in 2018 and 2019, respectively.", "-22.98%")],
           [("Total revenue grew -22.98% and 49.55% in 2018 and 2019, respectively.", "-22.98%"),  # the years swapped
            ("Total revenue grew -22.98% and 49.55% in 2018 and 2019, respectively.", "49.55%"),
            # (23,406 - 20,322) / 20,322: a change from 2017 to 2019 listed for 2018
            ("Total revenue grew 15.18% and -22.98% in 2018 and 2019, respectively.", "15.18%")])


@pytest.mark.parametrize("form", ALL_FORMS)
def test_a_listed_share_is_of_its_own_periods_column(audit, form: str) -> None:
    # Taiwan over the total: 2,892 / 20,322 = 14.23% (2017), 3,918 / 30,391 = 12.89% (2018), 2,703 / 23,406 = 11.55%
    _check(audit, form, "geography",
           [("Taiwan's share of total revenue in 2017, 2018 and 2019 was 14.23%, 12.89% and 11.55%, respectively.",
             "12.89%")],
           [("Taiwan's share of total revenue in 2017, 2018 and 2019 was 12.89%, 14.23% and 11.55%, respectively.",
             "12.89%"),  # 2018's share listed for 2017
            ("Taiwan's share of total revenue in 2017, 2018 and 2019 was 12.89%, 14.23% and 11.55%, respectively.",
             "14.23%")])  # and 2017's for 2018


@pytest.mark.parametrize("form", ALL_FORMS)
def test_a_listed_prose_change_is_of_its_own_periods_figures(audit, form: str) -> None:
    # (150.5 - 120.4) / 120.4 = 25.0%, (180.6 - 150.5) / 150.5 = 20.0%; (180.6 - 120.4) / 120.4 = 50.0% is 2017 to 2019
    _check(audit, form, "prose list",
           [("Northwind Utility's bookings grew 25.0% and 20.0% in 2018 and 2019, respectively.", "25.0%"),
            ("Northwind Utility's bookings grew 25.0% and 20.0% in 2018 and 2019, respectively.", "20.0%")],
           [("Northwind Utility's bookings grew 20.0% and 25.0% in 2018 and 2019, respectively.", "20.0%"),  # swapped
            ("Northwind Utility's bookings grew 50.0% and 20.0% in 2018 and 2019, respectively.", "50.0%")])


@pytest.mark.parametrize("form", ALL_FORMS)
def test_a_change_over_periods_is_of_one_line_items_cells(audit, form: str) -> None:
    # 9,538.4 - 7,938.3 = 1,600.1 and (9,538.4 - 7,938.3) / 7,938.3 = 20.16%; across rows: 1,727.6 - 7,938.3 = -6,210.7
    # (Pinnacle Foods 2019 - Total 2018), 9,538.4 - 3,287.0 = 6,251.4 (Total 2019 - Grocery & Snacks 2018)
    _check(audit, form, "segments",
           [("The change in total sales from fiscal 2018 to 2019 was $1,600.1 million.", "$1,600.1 million"),
            ("The percentage change in total sales from fiscal 2018 to 2019 was 20.16%.", "20.16%")],
           [("The change in total sales from fiscal 2018 to 2019 was -$6,210.7 million.", "-$6,210.7 million"),
            ("The change in total sales from fiscal 2018 to 2019 was $6,251.4 million.", "$6,251.4 million"),
            ("The percentage change in total sales from fiscal 2018 to 2019 was 190.18%.", "190.18%")])
