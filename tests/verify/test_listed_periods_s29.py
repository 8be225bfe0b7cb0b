"""Issue 10, trust (stop 29): a figure of a 'respectively' list is its own period's, computed or not, over real
captured runs (`plan` asks for a tool, a `ToolNode` runs it, `write` returns the report) in every form a tool returns
a table in. '15%, 57% and 53% in 2017, 2018 and 2019, respectively' states 15% for 2017: a derivation backing it is of
2017's figures (and 2016's, the base of a change in 2017), never a change or share of the other periods the list names
(on main, 15% came out derived as the change of the total from 2017 to 2019). A true listed change of its own period
against the one before, and a true listed share of its own period's column, stay covered; a list whose years are the
ends of one span ('the changes in A and B from 2018 to 2019 were ..., respectively') lists rows, not periods."""

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
