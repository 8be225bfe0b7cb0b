"""Issue 10, stop 25: correct answers of annual-report tables that were flagged, over real captured runs (`plan` asks
for a tool, a `ToolNode` runs it, `write` returns the report) in the forms a tool returns a table in (markdown, HTML,
CSV-like text, the text of a PDF page, a JSON table). A lone spanning header of words ('Percent Change') heads the
columns of words below it, not a period column beside them. A 'respectively' list of rows pairs its rows with its
figures in order. The change of a sum of rows the claim names is derived. Every rule has its negative: the wrong row, period, scale
or an invented figure is flagged."""

from __future__ import annotations

from pathlib import Path

import pytest

from test_false_alarms_s14 import _check
from test_table_captions_s16 import FORMS, table_auditor
from test_tables_s24 import TABLES as TABLES_S24

TABLES: dict[str, tuple[str, list[list[str]], str]] = {
    # 'Percent Change' spans 'Actual | Constant', written in the first column it covers; '2018' stands beside them
    "percent change": ("Table 1 (Dollars in millions)", [
        ["Year Ended May 31,", "", "", "", ""],
        ["", "", "Percent Change", "", ""],
        ["", "2019", "Actual", "Constant", "2018"],
        ["Americas", "$18,410", "2%", "3%", "$18,030"],
        ["EMEA", "9,168", "0%", "4%", "9,163"],
        ["Asia Pacific", "5,004", "3%", "7%", "4,848"],
        ["Total revenues", "32,582", "2%", "4%", "32,041"]],
        ""),
    # rows whose names share no word, one named with more words than the other
    "exchange rates": ("Table 2", [
        ["", "2019", "2018"],
        ["Swedish Krona", "9.46", "8.70"],
        ["Japanese Yen", "109.01", "110.43"],
        ["South Korean Won", "1,165.70", "1,100.50"],
        ["Taiwan Dollar", "30.90", "30.15"]],
        "The weighted-average exchange rates for the consolidated statements of operations were as follows:"),
}


@pytest.fixture
def audit(tmp_path: Path):
    return table_auditor(tmp_path, {**TABLES, "segment sales": TABLES_S24["segment sales"]})


@pytest.mark.parametrize("form", sorted(FORMS))
def test_a_spanning_header_of_words_does_not_head_a_period_column_beside_its_own(audit, form: str) -> None:
    # 'Percent Change' carried over '2018' made its amounts percentages, with no scale
    _check(audit, form, "percent change",
           [("Revenues from the Americas in 2018 were $18,030 million.", "$18,030 million"),
            ("The total revenues in 2019 and 2018 came to $64,623 million.", "$64,623 million"),
            ("The difference between revenues from the Americas and Asia Pacific in 2018 was $13,182 million.",
             "$13,182 million"),
            ("The constant currency percent change in revenues from EMEA was 4%.", "4%")],
           [("Revenues from the Americas in 2019 were $18,030 million.", "$18,030 million"),  # the other period
            ("Revenues from the Americas in 2018 were $18,030 billion.", "$18,030 billion"),  # the wrong scale
            ("Revenues from EMEA in 2018 were $18,030 million.", "$18,030 million"),  # the wrong row
            ("The total revenues in 2019 and 2018 came to $64,263 million.", "$64,263 million"),  # invented
            ("The constant currency percent change in revenues from EMEA was 7%.", "7%")])  # the wrong row


@pytest.mark.parametrize("form", sorted(FORMS))
def test_a_respectively_list_of_rows_pairs_each_row_with_its_figure_in_order(audit, form: str) -> None:
    # 'South Korean Won' names more of the claim's words than 'Japanese Yen', and outnamed its row for 110.43
    def rates(rows: str, year: str, figures: str) -> str:
        return f"The weighted-average exchange rates for {rows} for the year ended December 31, {year} were {figures}, " \
               "respectively."

    _check(audit, form, "exchange rates",
           [(rates("Japanese Yen and South Korean Won", "2018", "110.43 and 1,100.50"), "110.43"),
            (rates("Japanese Yen and South Korean Won", "2018", "110.43 and 1,100.50"), "1,100.50"),
            (rates("South Korean Won and Swedish Krona", "2019", "1,165.70 and 9.46"), "9.46")],
           [(rates("Japanese Yen and South Korean Won", "2018", "1,100.50 and 110.43"), "110.43"),  # the rows swapped
            (rates("Japanese Yen and South Korean Won", "2018", "1,100.50 and 110.43"), "1,100.50"),
            (rates("Taiwan Dollar and South Korean Won", "2018", "110.43 and 1,100.50"), "110.43"),  # the wrong row
            (rates("Japanese Yen and South Korean Won", "2019", "110.43 and 1,100.50"), "110.43"),  # the other period
            (rates("Japanese Yen and South Korean Won", "2018", "110.34 and 1,100.50"), "110.34")])  # invented


@pytest.mark.parametrize("form", sorted(FORMS))
def test_the_change_of_a_sum_of_named_rows_is_derived(audit, form: str) -> None:
    # ((793.4 + 934.2) - (843.5 + 1,054.8)) / (843.5 + 1,054.8) = -8.99%; 1,727.6 - 1,898.3 = -170.7
    _check(audit, form, "segment sales",
           [("The percentage change in total net sales of International and Foodservice from fiscal year 2018 to "
             "2019 came to -8.99 percent.", "-8.99 percent"),
            ("The change in the combined net sales of International and Foodservice from fiscal 2018 to fiscal 2019 "
             "was -$170.7 million.", "-$170.7 million")],
           [("The percentage change in total net sales of International and Foodservice from fiscal year 2018 to "
             "2019 came to -8.89 percent.", "-8.89 percent"),  # invented
            ("The percentage change in total net sales of International and Foodservice from fiscal year 2018 to "
             "2019 came to -8.99 percentage points.", "-8.99 percentage points"),  # the wrong unit
            ("The percentage change in total net sales of Refrigerated & Frozen and Foodservice from fiscal year "
             "2018 to 2019 came to -8.99 percent.", "-8.99 percent"),  # the wrong rows
            ("The change in the combined net sales of International and Foodservice from fiscal 2018 to fiscal 2019 "
             "was -$170.7 billion.", "-$170.7 billion"),  # the wrong scale
            ("The change in the combined net sales of Grocery & Snacks and Foodservice from fiscal 2018 to fiscal "
             "2019 was -$170.7 million.", "-$170.7 million")])  # the wrong rows
