"""Issue 10, stop 25: correct answers of annual-report tables that were flagged, over real captured runs (`plan` asks
for a tool, a `ToolNode` runs it, `write` returns the report) in the forms a tool returns a table in (markdown, HTML,
CSV-like text, the text of a PDF page, a JSON table). A lone spanning header of words ('Percent Change') heads the
columns of words below it, not a period column beside them. A 'respectively' list of rows pairs its rows with its
figures in order. A section of percentages whose name the claim shares is no section it names for an amount.
The change of a sum of rows the claim names is derived, and the total of the shares of rows or periods it names.
A range the claim writes as the sources name a column ('91-180 days' for '91–180') says which cells it is about,
and is no figure of its own, as 'the 2 years' of a claim that names no year is the years of its rows. Every rule has its negative: the wrong row, period, scale
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
    # region rows of amounts, repeated under a section of their percentages that names the claim's word 'revenues'
    "regions": ("Table 5 (Dollars in millions)", [
        ["", "2019", "2018"],
        ["Americas", "$18,410", "$18,030"],
        ["EMEA", "9,168", "9,163"],
        ["Asia Pacific", "5,004", "4,848"],
        ["Total revenues", "32,582", "32,041"],
        ["% Revenues by Geography:", "", ""],
        ["Americas", "57%", "56%"],
        ["EMEA", "28%", "29%"],
        ["Asia Pacific", "15%", "15%"]],
        ""),
    # rows whose names share no word, one named with more words than the other
    "exchange rates": ("Table 2", [
        ["", "2019", "2018"],
        ["Swedish Krona", "9.46", "8.70"],
        ["Japanese Yen", "109.01", "110.43"],
        ["South Korean Won", "1,165.70", "1,100.50"],
        ["Taiwan Dollar", "30.90", "30.15"]],
        "The weighted-average exchange rates for the consolidated statements of operations were as follows:"),
    # each customer's share of revenue by fiscal year
    "customers": ("Table 4", [
        ["", "2019", "2018", "2017"],
        ["Apple Inc. (“Apple”)", "32%", "36%", "34%"],
        ["Huawei Technologies Co., Ltd. (“Huawei”)", "13%", "8%", "11%"],
        ["Samsung Electronics", "6%", "9%", "12%"]],
        "Revenue from significant customers, those representing 5% or more of revenue, is summarized above."),
    # shares of revenue, revenue itself at 100%
    "cost shares": ("Table 8", [
        ["", "2018", "2017"],
        ["Revenue", "100%", "100%"],
        ["Cost of revenue", "55%", "50%"],
        ["Gross margin", "45%", "50%"]],
        ""),
    # an ageing table whose columns are ranges of days
    "ageing": ("Table 6", [
        ["Days past due", "1–90", "91–180", "181–360", ">360", "Total"],
        ["Country risk: Low", "1,347", "125", "127", "313", "1,912"],
        ["Country risk: Medium", "891", "725", "600", "819", "3,035"],
        ["Country risk: High", "583", "365", "217", "1,315", "2,480"]],
        ""),
    # two years of cash flows
    "cash flows": ("Table 7 $ in millions", [
        ["", "2019", "2018", "Change (%)"],
        ["Net cash inflow from operating activities", "5,368", "5,955", "-9.9"],
        ["Net change in cash balance", "(16)", "(5)", "248.9"],
        ["Cash balance at end of year", "513", "525", "-2.3"]],
        ""),
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


@pytest.mark.parametrize("form", sorted(FORMS))
def test_the_total_of_the_shares_the_claim_names_is_derived(audit, form: str) -> None:
    # 34% + 11% (two rows of 2017); 36% + 34% (one row's 2018 and 2017)
    _check(audit, form, "customers",
           [("The total percentage of revenue from Apple and Huawei in 2017 was 45%.", "45%"),
            ("The combined share of revenue from Huawei and Samsung Electronics in 2018 came to 17 percent.", "17 percent"),
            ("The total percentage of revenue from Apple in 2017 and 2018 was 70%.", "70%")],
           [("The total percentage of revenue from Apple and Huawei in 2018 was 45%.", "45%"),  # the other period
            ("The total percentage of revenue from Apple and Samsung Electronics in 2017 was 45%.", "45%"),  # the wrong row
            ("The total percentage of revenue from Apple and Huawei in 2017 was 46%.", "46%"),  # invented
            ("The total percentage of revenue from Apple in 2018 and 2019 was 70%.", "70%")])  # the other periods
    # 50% + 55%; the whole (100%) is no part of a sum of shares
    _check(audit, form, "cost shares",
           [("The total proportion of cost of revenue as a percentage of revenue in 2017 and 2018 was 105 percent.",
             "105 percent")],
           [("The total proportion of cost of revenue as a percentage of revenue in 2017 and 2018 was 150 percent.",
             "150 percent")])


@pytest.mark.parametrize("form", sorted(FORMS))
def test_a_section_of_percentages_is_not_named_by_a_claim_of_amounts(audit, form: str) -> None:
    # '% Revenues by Geography' shares 'revenues' with the claim, and its rows took the place of the amounts' rows
    _check(audit, form, "regions",
           [("The difference between revenues from the Americas and Asia Pacific in 2018 was $13,182 million.",
             "$13,182 million"),
            ("Revenues from EMEA and Asia Pacific in 2019 totalled $14,172 million.", "$14,172 million")],
           [("The difference between revenues from the Americas and Asia Pacific in 2019 was $13,182 million.",
             "$13,182 million"),  # the other period
            ("The difference between revenues from the Americas and Asia Pacific in 2018 was $13,128 million.",
             "$13,128 million"),  # invented
            ("The difference between revenues from the Americas and EMEA in 2018 was $13,182 million.",
             "$13,182 million"),  # the wrong rows
            ("Revenues from EMEA and Asia Pacific in 2018 totalled $14,172 million.", "$14,172 million")])  # period


@pytest.mark.parametrize("form", sorted([*FORMS, "records"]))
def test_a_range_naming_a_column_is_no_figure_of_the_claim(audit, form: str) -> None:
    # '180 days' and '90 days' were looked up as figures and found in no source
    _check(audit, form, "ageing",
           [("The difference between 1-90 and 91-180 days past due in low risk country was 1,222.", "1,222"),
            ("The difference in low and medium country risk due for 1-90 days past due came to 456.", "456")],
           [("The difference between 1-90 and 91-180 days past due in low risk country was 1,212.", "1,212"),  # invented
            ("The difference between 1-90 and 91-180 days past due in medium risk country was 1,222.", "1,222"),  # row
            ("The difference between 91-180 and 181-360 days past due in low risk country was 1,222.", "1,222"),  # columns
            ("The difference between 1-90 and 91-200 days past due in low risk country was 1,222.", "200 days")])  # no column


@pytest.mark.parametrize("form", sorted([*FORMS, "records"]))
def test_the_number_of_years_of_the_named_rows_is_no_figure_of_the_claim(audit, form: str) -> None:
    # '2 years' was looked up as a figure and found only away from its subject
    _check(audit, form, "cash flows",
           [("The average net change in cash balance across the 2 years was -10.5 million.", "-10.5 million"),
            ("The average net change in cash balance across the 2 years was -10.5 million.", "2 years")],
           [("The average net change in cash balance across the 3 years was -10.5 million.", "3 years"),  # not 2
            ("The average net change in cash balance across the 2 years was -10.6 million.", "-10.6 million"),  # invented
            # the row's own word 'change' cues no difference: -16 - (-5) is no average
            ("The average net change in cash balance across the 2 years was -11.0 million.", "-11.0 million"),
            ("The average cash balance at end of year across the 2 years was -10.5 million.", "-10.5 million")])  # row
