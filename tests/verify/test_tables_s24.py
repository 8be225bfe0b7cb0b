"""Issue 10, stop 24: correct answers of annual-report tables that were flagged, over real captured runs (`plan` asks
for a tool, a `ToolNode` runs it, `write` returns the report) in the forms a tool returns a table in (markdown, HTML,
CSV-like text, the text of a PDF page, a JSON table, JSON records). Page text: a header line whose column names hold
numbers ('53 WEEKS') heads the table, a line of periods over its first columns heads those alone. A section ends at
its subtotal line; an HTML label is read with its character references; a deduction stated with 'came to' is its
parenthesised cell; a deduction row is averaged on its sizes. Every rule has its negative: the wrong row, period,
scale or an invented figure is flagged."""

from __future__ import annotations

from pathlib import Path

import pytest

from test_false_alarms_s14 import _check
from test_table_captions_s16 import FORMS, table_auditor

TABLES: dict[str, tuple[str, list[list[str]], str]] = {
    # a header line of periods over the first two columns, and one whose column names hold numbers ('53 WEEKS')
    "weeks": ("Table 2 $ in millions", [
        ["", "F19", "F18", "", ""],
        ["$ MILLION", "53 WEEKS", "52 WEEKS", "CHANGE", "CHANGE NORMALISED"],
        ["Sales", "1,671", "1,612", "3.7%", "1.8%"],
        ["EBITDA", "372", "361", "3.5%", "2.5%"],
        ["Funds employed", "2,068", "1,995", "3.7%", ""]],
        ""),
    # maturity buckets as column names ('1-3 years')
    "obligations": ("Table 3 (In thousands)", [
        ["", "Total", "Less than 1 year", "1-3 years", "3-5 years", "More than 5 years"],
        ["Operating lease obligations", "4,512", "1,020", "2,050", "1,442", "—"],
        ["Purchase obligations", "3,100", "2,400", "700", "—", "—"],
        ["Total contractual obligations", "7,612", "3,420", "2,750", "1,442", "—"]],
        ""),
    # a roll-forward of share awards: what it deducts in parentheses
    "awards": ("Table 4", [
        ["Non-vested awards", "Shares", "Weighted-Average Grant Date Fair Value"],
        ["Non-vested at December 31, 2018", "1,187,586", "$41.12"],
        ["Granted", "473,550", "$53.53"],
        ["Vested", "(365,223)", "$41.83"],
        ["Forfeited", "(12,632)", "$50.49"],
        ["Non-vested at December 31, 2019", "1,283,281", "$45.40"]],
        ""),
    # a deduction row in parentheses in every period
    "cost of sales": ("Table 5 Dollars in millions", [
        ["", "2019", "2018", "2017"],
        ["Cost of sales", "$(5,860)", "$(5,803)", "$(5,075)"],
        ["Gross profit", "$3,696", "$3,861", "$3,272"]],
        ""),
    # a section closed by its unlabelled subtotal line; the rows below it and the bare 'Total' stand outside it
    "included charges": ("Table 6 $ in millions", [
        ["", "2019", "2018"],
        ["Acquisition-related charges:", "", ""],
        ["Acquisition and integration costs", "$ 27", "$ 14"],
        ["Amortization of acquisition related fair value adjustments", "3", "8"],
        ["", "30", "22"],
        ["Restructuring and other charges, net", "255", "126"],
        ["Other items", "17", "—"],
        ["Total", "$ 302", "$ 148"]],
        "Operating income included the following:"),
    # row labels with an ampersand, which HTML writes as a character reference ('Grocery &amp; Snacks')
    "segment sales": ("Table 7 $ in millions", [
        ["Reporting Segment", "Fiscal 2019 Net Sales", "Fiscal 2018 Net Sales"],
        ["Grocery & Snacks", "$3,279.2", "$3,287.0"],
        ["Refrigerated & Frozen", "2,804.0", "2,753.0"],
        ["International", "793.4", "843.5"],
        ["Foodservice", "934.2", "1,054.8"],
        ["Total", "$7,810.8", "$7,938.3"]],
        ""),
}

ALL_FORMS = sorted([*FORMS, "records"])


@pytest.fixture
def audit(tmp_path: Path):
    return table_auditor(tmp_path, TABLES)


@pytest.mark.parametrize("form", ALL_FORMS)
def test_a_header_line_of_column_names_holding_numbers_heads_the_table(audit, form: str) -> None:
    # page text lost both header lines to '53 WEEKS' (digits: no header text), and with them every column's period
    _check(audit, form, "weeks",
           [("The average sales for years F19 and F18 was $1,641.5 million.", "$1,641.5 million"),
            ("The sales in F18 were $1,612 million.", "$1,612 million"),
            ("The change in EBITDA between F18 and F19 was $11 million.", "$11 million")],
           [("The average sales for years F19 and F18 was $1,614.5 million.", "$1,614.5 million"),  # invented
            ("The sales in F18 were $1,671 million.", "$1,671 million"),  # the other period
            ("The sales in F18 were $1,612 billion.", "$1,612 billion"),  # the wrong scale
            ("The average EBITDA for years F19 and F18 was $1,641.5 million.", "$1,641.5 million")])  # the wrong row


@pytest.mark.parametrize("form", ALL_FORMS)
def test_maturity_buckets_as_column_names_head_their_columns(audit, form: str) -> None:
    _check(audit, form, "obligations",
           [("The operating lease obligations due in 1-3 years were $2.05 million.", "$2.05 million"),
            ("The total contractual obligations due in less than 1 year were $3,420 thousand.", "$3,420 thousand"),
            ("The purchase obligations due in less than 1 year as a percentage of the total contractual obligations "
             "due in less than 1 year was 70.18%.", "70.18%")],
           # (a bucket claimed of another bucket's column: test_maturity_buckets_s24.py)
           [("The total contractual obligations due in less than 1 year were $3,240 thousand.", "$3,240 thousand"),  # invented
            ("The operating lease obligations due in 1-3 years were $2.05 billion.", "$2.05 billion"),  # scale
            ("The purchase obligations due in 1-3 years were $2.05 million.", "$2.05 million")])  # the wrong row


@pytest.mark.parametrize("form", ALL_FORMS)
def test_a_deduction_stated_with_came_to_or_stood_at_is_its_parenthesised_cell(audit, form: str) -> None:
    # the verb that states the figure is no word between the deduction ('forfeited') and its figure
    _check(audit, form, "awards",
           [("The number of non-vested shares forfeited in 2019 came to 12,632.", "12,632"),
            ("The number of non-vested shares vested in 2019 stood at 365,223.", "365,223"),
            ("The number of non-vested shares vested in 2019 amounted to 365,223.", "365,223")],
           [("The number of non-vested shares granted in 2019 came to 365,223.", "365,223"),  # the wrong row
            ("The number of non-vested shares forfeited in 2019 came to 365,223.", "365,223"),  # the wrong row
            ("The number of non-vested shares forfeited in 2019 came to 12,362.", "12,362")])  # invented


@pytest.mark.parametrize("form", ALL_FORMS)
def test_a_deduction_row_is_averaged_and_totalled_on_its_sizes(audit, form: str) -> None:
    # (5,860 + 5,803 + 5,075) / 3; 5,860 + 5,803
    _check(audit, form, "cost of sales",
           [("The average cost of sales from 2017 to 2019 was $5,579.33 million.", "$5,579.33 million"),
            ("The total cost of sales in 2018 and 2019 was $11,663 million.", "$11,663 million")],
           [("The average gross profit from 2017 to 2019 was $5,579.33 million.", "$5,579.33 million"),  # the wrong row
            ("The average cost of sales from 2017 to 2019 was $5,597.33 million.", "$5,597.33 million"),  # invented
            ("The average cost of sales from 2017 to 2019 was $5,579.33 billion.", "$5,579.33 billion"),  # the scale
            ("The total cost of sales in 2017 and 2019 was $11,663 million.", "$11,663 million")])  # other periods


@pytest.mark.parametrize("form", ["markdown", "html", "csv", "pdf"])
def test_an_unlabelled_subtotal_closes_its_section(audit, form: str) -> None:
    # the bare 'Total' below the closed section totals what the lead-in names: 302 - 148; (302 - 148) / 148
    _check(audit, form, "included charges",
           [("The change in total operating income from 2018 to 2019 was $154 million.", "$154 million"),
            ("The percentage change in total operating income from 2018 to 2019 was 104.05%.", "104.05%"),
            ("The total acquisition-related charges in 2019 were $30 million.", "$30 million")],
           [("The total acquisition-related charges in 2019 were $302 million.", "$302 million"),  # the wrong row
            ("The change in total operating income from 2018 to 2019 was $145 million.", "$145 million"),  # invented
            ("The change in total operating income from 2018 to 2019 was $8 million.", "$8 million"),  # the subtotal's
            ("The change in total operating income from 2018 to 2019 was $154 billion.", "$154 billion")])  # scale


@pytest.mark.parametrize("form", ALL_FORMS)
def test_a_row_label_is_read_with_its_character_references(audit, form: str) -> None:
    # HTML: 'Grocery &amp; Snacks' is the row 'Grocery & Snacks'; (3,287.0 + 2,753.0) / 7,938.3
    _check(audit, form, "segment sales",
           [("The proportion (in percentage) of the sum of Grocery & Snacks and Refrigerated & Frozen's net sales over "
             "total net sales in fiscal year 2018 was 76.09%.", "76.09%")],
           [("The proportion (in percentage) of the sum of Grocery & Snacks and Refrigerated & Frozen's net sales over "
             "total net sales in fiscal year 2018 was 76.90%.", "76.90%"),  # invented
            ("The proportion (in percentage) of the sum of Grocery & Snacks and Refrigerated & Frozen's net sales over "
             "total net sales in fiscal year 2018 was 77.88%.", "77.88%"),  # fiscal 2019's
            ("The proportion (in percentage) of the sum of International and Refrigerated & Frozen's net sales over "
             "total net sales in fiscal year 2018 was 76.09%.", "76.09%")])  # other rows
