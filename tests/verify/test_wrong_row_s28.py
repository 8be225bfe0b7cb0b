"""Issue 10 (stop 28): a claim naming several days of one year with the year written once ('at June 30 and December
31, 2019', 'the quarters ended January 26 and April 27, 2019') names each of those days, so a cell dated on any of them
backs it (stop 27's `match.day_apart` read only the day written beside the year, and flagged the true change between
the two columns). Over real captured runs (`plan` asks for a tool, a `ToolNode` runs it, `write` returns the report) in
every form a tool returns a table in. Negatives: a day the list does not name is still another day's balance, an
invented change is flagged, and the balance of a day of another year stays apart."""

from __future__ import annotations

from pathlib import Path

import pytest

from test_false_alarms_s14 import _check
from test_table_captions_s16 import table_auditor
from test_wrong_row_s27 import ALL_FORMS

TABLES = {
    # an acquisition's purchase price, measured at two days of one year
    "two days": ("Table 4 Purchase consideration (in thousands)", [
        ["", "June 30, 2019", "December 31, 2019"],
        ["Cash paid", "2,400", "2,400"],
        ["Contingent consideration", "1,357", "1,377"],
        ["Total fair value of consideration", "3,757", "3,777"]],
        "The consideration of the acquisition, remeasured at year end."),
    # quarters named by the day they end, one year written in the header
    "quarter ends": ("Table 6 Quarterly results (in millions)", [
        ["", "Quarter ended January 26, 2019", "Quarter ended April 27, 2019", "Quarter ended July 27, 2019"],
        ["Revenue", "3,110", "3,420", "3,505"],
        ["Net income", "150", "372", "301"]],
        "Unaudited quarterly results."),
}


@pytest.fixture
def audit(tmp_path: Path):
    return table_auditor(tmp_path, TABLES)


@pytest.mark.parametrize("form", ALL_FORMS)
def test_a_list_of_days_before_one_year_names_each_day(audit, form: str) -> None:
    _check(audit, form, "two days",
           [("The total fair value of consideration at June 30 and December 31, 2019 was $3,757 thousand and "
             "$3,777 thousand, respectively.", "$3,757"),
            ("The total fair value of consideration at June 30 and December 31, 2019 was $3,757 thousand and "
             "$3,777 thousand, respectively.", "$3,777"),
            ("The change in contingent consideration between June 30 and December 31, 2019 was $20 thousand.", "$20"),
            ("Contingent consideration at 30 June and 31 December 2019 was $1,357 thousand and $1,377 thousand.",
             "$1,357")],
           [("The total fair value of consideration at June 30 and December 31, 2019 was $3,775 thousand and "
             "$3,777 thousand, respectively.", "$3,775"),  # invented
            ("The change in contingent consideration between June 30 and December 31, 2019 was $30 thousand.",
             "$30"),  # invented
            # a day the claim does not name: the balance of June 30 backs no claim as of December 31 alone
            ("The total fair value of consideration at December 31, 2019 was $3,757 thousand.", "$3,757"),
            # a list of days of another year: neither column's
            ("The total fair value of consideration at June 30 and December 31, 2018 was $3,757 thousand and "
             "$3,777 thousand, respectively.", "$3,757")])


@pytest.mark.parametrize("form", ALL_FORMS)
def test_quarters_named_by_their_last_days_in_one_year(audit, form: str) -> None:
    _check(audit, form, "quarter ends",
           [("The change in net income between the quarters ended January 26 and April 27, 2019 was $222 million.",
             "$222"),
            ("Revenue for the quarters ended April 27 and July 27, 2019 was $3,420 million and $3,505 million.",
             "$3,420")],
           [("The change in net income between the quarters ended January 26 and April 27, 2019 was $151 million.",
             "$151"),  # July's quarter less January's
            ("Revenue for the quarter ended July 27, 2019 was $3,420 million.", "$3,420"),  # April's column
            ("Revenue for the quarters ended April 27 and July 27, 2019 was $3,110 million and $3,505 million.",
             "$3,110")])  # January's column, a day the list does not name
