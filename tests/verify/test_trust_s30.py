"""Issue 10, trust (stop 30): a table cell looked up for a claim it does not state, over real captured runs (`plan`
asks for a tool, a `ToolNode` runs it, `write` returns the report) in every form a tool returns a table in.
A claim naming one of a payment schedule's years ('due in 2024') is not backed by the schedule's open bucket
('Thereafter', 'After 2024') or its Total, which sum that year with others. A cell a '%' header made a percentage
('% of penetration') backs no amount, and a bare figure only where the claim names that header or calls its figure a
rate. A year a row label names ('Final dividend for the year ended 30 June 2018') that is also a column's period
dates the claim naming it alone ('paid in 2018') by that column. A list of figures beside a list of as many years is
paired in order without 'respectively' ('in 2017, 2018 and 2019 ... X, Y and Z'), in the claim and in prose sources.
Each rule has its negatives (the open bucket, the Total, the percent column for an amount or a count, the other
year's column, two figures of a list swapped); the right cells stay covered."""

from __future__ import annotations

from pathlib import Path

import pytest

from test_false_alarms_s14 import _check
from test_table_captions_s16 import table_auditor
from test_wrong_row_s27 import ALL_FORMS

TABLES = {
    # a payment schedule closed by 'Thereafter', and one closed by 'After 2024'
    "leases": ("Table 7 Future minimum payments (in thousands)", [
        ["", "Total", "2020", "2021", "2022", "2023", "2024", "Thereafter"],
        ["Operating leases", "11,705", "2,410", "2,085", "1,730", "1,415", "1,170", "2,895"],
        ["Finance leases", "1,262", "318", "301", "276", "204", "163", "0"]],
        "Payments due by period as of December 31, 2019."),
    "leases after": ("Table 7 Future minimum payments (in thousands)", [
        ["", "Total", "2020", "2021", "2022", "2023", "2024", "After 2024"],
        ["Operating leases", "11,705", "2,410", "2,085", "1,730", "1,415", "1,170", "2,895"],
        ["Finance leases", "1,262", "318", "301", "276", "204", "163", "0"]],
        "Payments due by period as of December 31, 2019."),
    # counts and net additions beside a column of percentages that carry no '%' of their own
    "subscribers": ("Table 3 Subscriber statistics", [
        ["", "Subscribers 2019", "Net additions 2019", "Net additions 2018", "% of penetration 2019",
         "% of penetration 2018"],
        ["Broadband subscribers", "402,115", "19,870", "20,640", "48.3", "47.1"],
        ["Television subscribers", "290,410", "(3,812)", "(5,905)", "33.9", "36.2"]],
        "Penetration is the share of homes passed that subscribe."),
    # one line item over three years
    "segments": ("Table 2 Revenue by segment (in millions)", [
        ["", "2019", "2018", "2017"],
        ["Product revenue", "4,812", "4,390", "3,975"],
        ["Service revenue", "1,206", "1,118", "1,047"],
        ["Total revenue", "6,018", "5,508", "5,022"]],
        "Revenue for the years ended December 31."),
    # dividends named by the year they were declared for, paid in the column's year
    "dividends": ("Table 9 Dividends paid (in thousands)", [
        ["", "2019", "2018"],
        ["Final dividend for the year ended 30 June 2018 of 16 cents (2017: 12 cents)", "13,240", "9,870"],
        ["Interim dividend for the half year ended 31 December 2018 of 9 cents (2017: 8 cents)", "7,415", "6,580"]],
        "Dividends paid during the year."),
}


@pytest.fixture
def audit(tmp_path: Path):
    return table_auditor(tmp_path, TABLES)


@pytest.mark.parametrize("form", ALL_FORMS)
def test_a_schedule_year_is_not_its_open_bucket_nor_its_total(audit, form: str) -> None:
    _check(audit, form, "leases",
           [("Operating lease payments due in 2024 are $1,170 thousand.", "$1,170"),
            ("Operating lease payments due after 2024 are $2,895 thousand.", "$2,895"),
            ("Total operating lease payments as of December 31, 2019 are $11,705 thousand.", "$11,705"),
            ("Finance lease payments due in 2020 are $318 thousand.", "$318")],
           [("Operating lease payments due in 2024 are $2,895 thousand.", "$2,895"),  # Thereafter
            ("Operating lease payments due in 2022 are $11,705 thousand.", "$11,705"),  # the Total
            ("Finance lease payments due in 2021 are $1,262 thousand.", "$1,262")])


@pytest.mark.parametrize("form", ALL_FORMS)
def test_a_schedule_year_is_not_a_bucket_named_after_it(audit, form: str) -> None:
    _check(audit, form, "leases after",
           [("Operating lease payments due in 2024 are $1,170 thousand.", "$1,170"),
            ("Operating lease payments due after 2024 are $2,895 thousand.", "$2,895")],
           [("Operating lease payments due in 2024 are $2,895 thousand.", "$2,895"),  # 'After 2024'
            ("Operating lease payments due in 2023 are $11,705 thousand.", "$11,705")])


@pytest.mark.parametrize("form", ALL_FORMS)
def test_a_cell_a_percent_header_heads_backs_no_amount_or_count(audit, form: str) -> None:
    _check(audit, form, "subscribers",
           [("The penetration of broadband subscribers in 2018 was 47.1%.", "47.1%"),
            ("The penetration of television subscribers in 2019 was 33.9.", "33.9"),
            ("The penetration rate of broadband subscribers in 2019 was 48.3.", "48.3"),
            ("The net additions of broadband subscribers in 2018 were 20,640.", "20,640")],
           # the percent column's figure for the net additions, bare or as an amount
           [("The net additions of broadband subscribers in 2018 were 47.1.", "47.1"),
            ("The net additions of television subscribers in 2019 were 33.9.", "33.9"),
            ("The net additions of broadband subscribers in 2019 were $48.3.", "$48.3")])


@pytest.mark.parametrize("form", ALL_FORMS)
def test_a_row_year_that_is_a_columns_period_dates_the_claim_by_that_column(audit, form: str) -> None:
    _check(audit, form, "dividends",
           [("The final dividend paid in 2018 was $9,870 thousand.", "$9,870"),
            ("The final dividend paid in 2019 was $13,240 thousand.", "$13,240"),
            # the row named by its very day keeps its column of payment
            ("The final dividend for the year ended 30 June 2018 was $13,240 thousand.", "$13,240")],
           [("The final dividend paid in 2018 was $13,240 thousand.", "$13,240"),  # the 2019 column
            ("The interim dividend paid in 2018 was $7,415 thousand.", "$7,415")])


@pytest.mark.parametrize("form", ALL_FORMS)
def test_a_list_of_figures_is_paired_with_a_list_of_years_in_order(audit, form: str) -> None:
    _check(audit, form, "segments",
           [("In 2017, 2018 and 2019, product revenue was $3,975 million, $4,390 million and $4,812 million.",
             "$4,390"),
            ("Service revenue was $1,047 million, $1,118 million, and $1,206 million in 2017, 2018, and 2019.",
             "$1,206"),
            ("In 2019 and 2018, total revenue was $6,018 million and $5,508 million.", "$5,508")],
           # two figures of the list swapped: each is another year's
           [("In 2017, 2018 and 2019, product revenue was $4,390 million, $3,975 million and $4,812 million.",
             "$4,390"),
            ("Service revenue was $1,047 million, $1,206 million, and $1,118 million in 2017, 2018, and 2019.",
             "$1,206"),
            ("In 2019 and 2018, total revenue was $5,508 million and $6,018 million.", "$5,508")])
