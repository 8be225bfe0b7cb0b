"""Issue 10, stop 26: correct answers of annual-report tables that were flagged, over real captured runs (`plan` asks
for a tool, a `ToolNode` runs it, `write` returns the report) in the forms a tool returns a table in (markdown, HTML,
CSV-like text, the text of a PDF page, a JSON table, JSON records). A row of figures without a label below the rows
it adds up is the table's total. Every rule has its negative: the wrong row, period, or an invented figure is flagged,
and an unlabelled row that adds up to nothing is no total."""

from __future__ import annotations

from pathlib import Path

import pytest

from test_false_alarms_s14 import _check
from test_table_captions_s16 import FORMS, table_auditor

from pytest_auditfence.verify.tables import read_tables

TABLES: dict[str, tuple[str, list[list[str]], str]] = {
    # the regions of a revenue table and their total, on a line without a label
    "unlabelled total": ("Table 3 Revenue by geographic area (In millions)", [
        ["For the year ended", "2019", "2018", "2017"],
        ["United States", "$12,451", "$17,116", "$11,359"],
        ["Taiwan", "2,703", "3,918", "2,892"],
        ["Japan", "958", "1,265", "1,042"],
        ["Other", "1,053", "1,266", "983"],
        ["", "$17,165", "$23,565", "$16,276"]],
        ""),
    # a line without a label that adds up to nothing above it (the rows' average in each column)
    "unlabelled other line": ("Table 4 Revenue by geographic area (In millions)", [
        ["For the year ended", "2019", "2018"],
        ["United States", "$12,451", "$17,116"],
        ["Taiwan", "2,703", "3,918"],
        ["Japan", "958", "1,265"],
        ["", "5,371", "7,433"]],
        ""),
    # assets and (liabilities) netted on a line without a label: a net position, no total of the assets
    "net position": ("Table 6 (In millions)", [
        ["", "USD denominated", "Non-USD denominated"],
        ["Monetary assets, current", "27,728", "2,899"],
        ["Monetary assets, non-current", "373", "–"],
        ["Monetary liabilities, current", "(4,273)", "(14,732)"],
        ["Monetary liabilities, non-current", "(91)", "(5,739)"],
        ["", "23,737", "(17,572)"]],
        "The Group's major monetary assets and liabilities exposed to foreign exchange risk are listed below:"),
    # an Item 5 stock price table: one year's quarters as rows under 'Low | High'
    "stock prices": ("Table 2", [
        ["", "", "Common Stock Price Range 2018"],
        ["", "Low", "High"],
        ["First Quarter", "$ 5.99", "$ 8.40"],
        ["Second Quarter", "$ 4.79", "$ 6.48"],
        ["Third Quarter", "$ 2.66", "$ 4.63"],
        ["Fourth Quarter", "$ 1.88", "$ 3.39"]],
        "The following table shows the high and low sale prices per share of our common stock for each quarter."),
    # two columns headed by words only, no period: on a PDF page the header line's first cell stands over a figure
    "carrying and fair": ("Table 5 (In millions)", [
        ["", "Carrying Amount", "Fair Value"],
        ["Senior notes due 2024", "1,240.5", "1,302.8"],
        ["Term loan", "455.0", "452.1"],
        ["Revolving credit facility", "75.0", "75.0"]],
        ""),
}


@pytest.fixture
def audit(tmp_path: Path):
    return table_auditor(tmp_path, TABLES)


@pytest.mark.parametrize("form", sorted([*FORMS, "records"]))
def test_an_unlabelled_line_that_adds_up_the_rows_above_is_their_total(audit, form: str) -> None:
    # the line below the regions held no label, so 'total revenue' named no cell of it
    _check(audit, form, "unlabelled total",
           [("Total revenue in 2018 was $23,565 million.", "$23,565 million"),
            ("The percentage change in total revenue from 2018 to 2019 was -27.16%.", "-27.16%")],
           [("Total revenue in 2019 was $23,565 million.", "$23,565 million"),  # the other period
            ("Total revenue in 2018 was $23,556 million.", "$23,556 million"),  # invented
            ("Total revenue in 2018 was $1,266 million.", "$1,266 million"),  # the row above
            ("The percentage change in total revenue from 2018 to 2019 was -26.16%.", "-26.16%")])  # invented


@pytest.mark.parametrize("form", sorted(FORMS))
def test_quarter_rows_of_a_stock_price_table(audit, form: str) -> None:
    # a row named only by its quarter took no subject from its column, a stock price was no amount per share, and the
    # quarters of 2018 were no breakdown of 2018 for a claim about each of them
    _check(audit, form, "stock prices",
           [("The low sale price per share in the third quarter of 2018 was $2.66.", "$2.66"),
            ("The average quarterly low price in 2018 was $3.83.", "$3.83")],
           [("The low sale price per share in the second quarter of 2018 was $2.66.", "$2.66"),  # another quarter
            ("The low sale price per share in 2018 was $2.66.", "$2.66"),  # one quarter's price for the year
            ("The high sale price per share in the third quarter of 2018 was $2.66.", "$2.66"),  # the other column
            ("The average quarterly low price in 2018 was $3.93.", "$3.93"),  # invented
            ("The average quarterly high price in 2018 was $3.83.", "$3.83"),  # the other column
            ("The average quarterly low price in 2019 was $3.83.", "$3.83")])  # another year


@pytest.mark.parametrize("form", sorted(FORMS))
def test_a_header_line_of_words_heads_each_column_below_it(audit, form: str) -> None:
    # page text: 'Carrying Amount' was read as the labels' column of its header line, so 'Fair Value' headed both
    _check(audit, form, "carrying and fair",
           [("The carrying amount of the senior notes due 2024 was $1,240.5 million.", "$1,240.5 million"),
            ("The fair value of the term loan was $452.1 million.", "$452.1 million"),
            ("The difference between the fair value and the carrying amount of the senior notes due 2024 was $62.3 "
             "million.", "$62.3 million")],
           [("The carrying amount of the senior notes due 2024 was $1,302.8 million.", "$1,302.8 million"),  # column
            ("The fair value of the term loan was $455.0 million.", "$455.0 million"),  # the other column
            ("The fair value of the term loan was $542.1 million.", "$542.1 million"),  # invented
            ("The fair value of the senior notes due 2024 was $452.1 million.", "$452.1 million")])  # the wrong row

    # a line netting assets and (liabilities) is no total: the claim's 'total ... assets' is the sum of the asset rows
    _check(audit, form, "net position",
           [("The total USD denominated monetary assets were 28,101 million.", "28,101 million")],
           [("The total USD denominated monetary assets were 28,110 million.", "28,110 million")])  # invented


@pytest.mark.parametrize("form", ["csv", "html", "markdown", "pdf"])  # text forms: JSON is read as JSON, apart
def test_an_unlabelled_line_that_adds_up_to_nothing_is_no_total(form: str) -> None:
    # 5,371 is the mean of the three rows above it, not their sum: the line keeps no label
    caption, rows, below = TABLES["unlabelled other line"]
    cells = read_tables(FORMS[form](caption, rows, below))
    labels = {c.label.row for c in cells}
    assert "Total" not in labels
    assert {"United States", "Taiwan", "Japan"} <= labels
    caption, rows, below = TABLES["unlabelled total"]
    assert "Total" in {c.label.row for c in read_tables(FORMS[form](caption, rows, below))}
