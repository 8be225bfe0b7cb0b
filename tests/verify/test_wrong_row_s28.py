"""Issue 10 (stop 28): a claim naming several days of one year with the year written once ('at June 30 and December
31, 2019', 'the quarters ended January 26 and April 27, 2019') names each of those days, so a cell dated on any of them
backs it (stop 27's `match.day_apart` read only the day written beside the year, and flagged the true change between
the two columns). A payment schedule ('2020 | 2021 | ... | 2024 | Thereafter | Total', along columns or rows) is
read as maturity buckets: the first year is 'within one year', 'Thereafter' after five years is 'after five years',
the Total is the whole; a claim naming a bucket is backed by its bucket's cell only, never by the fifth year's, the
second year's or the Total's (all three verified on 12e1f3d). Over real captured runs (`plan` asks for a tool, a `ToolNode` runs it, `write` returns the report) in
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
    # payment years as columns, closed by 'Thereafter'
    "payments": ("Table 8 Contractual obligations (in thousands)", [
        ["", "Total", "2020", "2021", "2022", "2023", "2024", "Thereafter"],
        ["Operating leases", "9,450", "1,210", "1,180", "1,120", "1,060", "990", "3,890"],
        ["Purchase obligations", "5,330", "2,015", "1,370", "845", "610", "340", "150"]],
        "Payments due by period as of December 31, 2019."),
    # payment years as rows
    "lease rows": ("Table 5 Future minimum lease payments (in thousands)", [
        ["", "Operating leases", "Finance leases"],
        ["2020", "1,210", "310"], ["2021", "1,180", "295"], ["2022", "1,120", "240"], ["2023", "1,060", "180"],
        ["2024", "990", "120"], ["Thereafter", "3,890", "75"], ["Total", "9,450", "1,220"]],
        "Maturities of lease liabilities as of December 31, 2019."),
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


@pytest.mark.parametrize("form", ALL_FORMS)
def test_payment_years_as_columns_are_maturity_buckets(audit, form: str) -> None:
    _check(audit, form, "payments",
           [("Operating lease payments due after five years are $3,890 thousand.", "$3,890"),
            ("Operating lease payments due within one year are $1,210 thousand.", "$1,210"),
            # negatives: a claim naming a year or no bucket keeps its cell
            ("Operating lease payments due in 2022 are $1,120 thousand.", "$1,120"),
            ("Operating lease payments due thereafter are $3,890 thousand.", "$3,890"),
            ("Total purchase obligations are $5,330 thousand.", "$5,330")],
           [("Operating lease payments due after five years are $990 thousand.", "$990"),  # the fifth year
            ("Operating lease payments due after five years are $9,450 thousand.", "$9,450"),  # the total
            ("Operating lease payments due within one year are $3,890 thousand.", "$3,890"),
            ("Purchase obligations due within one year are $1,370 thousand.", "$1,370")])  # the second year


@pytest.mark.parametrize("form", ALL_FORMS)
def test_payment_years_as_rows_are_maturity_buckets(audit, form: str) -> None:
    _check(audit, form, "lease rows",
           [("Operating lease payments due after five years are $3,890 thousand.", "$3,890"),
            ("Finance lease payments due after five years are $75 thousand.", "$75"),
            ("Operating lease payments due within one year are $1,210 thousand.", "$1,210"),
            ("Operating lease payments due in 2022 are $1,120 thousand.", "$1,120")],
           [("Operating lease payments due after five years are $990 thousand.", "$990"),
            ("Operating lease payments due after five years are $9,450 thousand.", "$9,450"),
            ("Finance lease payments due after five years are $120 thousand.", "$120"),
            ("Operating lease payments due within one year are $1,180 thousand.", "$1,180"),
            ("Operating lease payments due within one year are $9,450 thousand.", "$9,450")])
