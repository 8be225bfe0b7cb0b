"""Issue 10, stop 23: correct answers of annual-report tables that were flagged, over real captured runs (`plan` asks
for a tool, a `ToolNode` runs it, `write` returns the report) in the forms a tool returns a table in (markdown,
HTML, CSV-like text, the text of a PDF page, a JSON table). A period series broken by a second column of one period
under another footnote mark is read by its mark. Every rule has its negative: the operand from the other series,
the wrong period or an invented figure is flagged."""

from __future__ import annotations

from pathlib import Path

import pytest

from test_false_alarms_s14 import _check
from test_table_captions_s16 import FORMS, table_auditor

TABLES: dict[str, tuple[str, list[list[str]], str]] = {
    # one year twice: '**' marks the comparable group (both years), '***' the full group of the earlier year only;
    # a spanning header stands over the two earlier columns alone
    "marked years": ("Table 2", [
        ["", "", "Tonnes of CO2e*", ""],
        ["Usage from:", "FY21**", "FY20**", "FY20***"],
        ["Site energy (Scope 1)", "41,210", "44,905", "52,300"],
        ["Purchased power (Scope 2)", "18,334", "21,090", "39,712"],
        ["Total gross usage", "59,544", "65,995", "92,012"]],
        "* Reported under the group's own protocol. ** Comparable group only. *** Full group."),
    # share counts beside their fair values under a caption stating a dollar scale
    "share awards": ("Table 3 $ in millions", [
        ["", "2019", "", "2018", ""],
        ["", "Number of Shares", "Weighted Average Fair Value", "Number of Shares", "Weighted Average Fair Value"],
        ["Unvested at beginning of year", "412,080", "$3.12", "377,410", "$3.40"],
        ["Shares granted", "164,220", "2.95", "121,300", "3.61"],
        ["Shares vested", "96,415", "3.05", "86,630", "3.22"],
        ["Unvested at end of year", "479,885", "$3.06", "412,080", "$3.12"]],
        ""),
    # the same counts under a caption with no currency, which may scale them
    "share awards in thousands": ("Table 3 (In thousands)", [
        ["", "2019", "2018"],
        ["Number of shares granted", "164", "121"],
        ["Number of shares vested", "96", "87"]],
        ""),
    # a deduction row written in parentheses, and a row whose sign changes
    "receivables": ("Table 4 (In thousands)", [
        ["", "2019", "2018", "2017"],
        ["Trade receivables", "6,120", "5,480", "4,975"],
        ["Allowance for doubtful accounts", "(412)", "(96)", "(150)"],
        ["Other income (expense)", "150", "(40)", "(62)"],
        ["Trade receivables, net", "5,708", "5,384", "4,825"]],
        ""),
    # each line as a percentage of revenue: the claim names the base row 'Revenue' in full, its own row otherwise
    "percent of revenue": ("Table 5", [
        ["", "Year Ended December 31,", ""],
        ["", "2019", "2018"],
        ["Revenue", "100.0 %", "100.0 %"],
        ["Cost of revenue", "61.2", "58.9"],
        ["Interest income (expense), net", "1.4", "0.2"],
        ["Net income", "9.8 %", "8.1 %"]],
        ""),
    # small counts, one row label repeated under three section rows
    "store openings": ("Table 6", [
        ["", "2019", "2018", "2017"],
        ["Group (Europe and Asia)", "", "", ""],
        ["Flagship stores", "6", "9", "4"],
        ["Outlet stores", "14", "3", "8"],
        ["Europe Only", "", "", ""],
        ["Flagship stores", "2", "5", "1"],
        ["Outlet stores", "8", "2", "6"],
        ["Asia Only", "", "", ""],
        ["Flagship stores", "4", "4", "3"],
        ["Outlet stores", "6", "1", "2"]],
        ""),
    # a row that was nil in the earlier year, and one that fell to nil
    "tariffs": ("Table 7 (In thousands)", [
        ["", "2019", "2018", "2017"],
        ["Energy purchased", "31,480", "33,120", "35,904"],
        ["Green tariff credit", "(4,210)", "0", "300"],
        ["Legacy supply contract", "0", "1,575", "1,920"],
        ["Net energy cost", "27,270", "34,695", "38,124"]],
        ""),
    # a bare 'Total' row, named by the line below the table that introduces it without a scale
    "charges": ("Table 8 (In millions)", [
        ["", "2019", "2018"],
        ["Integration costs", "$ 31", "$ 17"],
        ["Restructuring charges", "214", "109"],
        ["Asset write-offs", "12", "4"],
        ["Total", "$ 257", "$ 130"]],
        "Cost of sales included the following:"),
    # the same table, the line below it introducing nothing
    "charges, prose below": ("Table 8 (In millions)", [
        ["", "2019", "2018"],
        ["Integration costs", "$ 31", "$ 17"],
        ["Restructuring charges", "214", "109"],
        ["Asset write-offs", "12", "4"],
        ["Total", "$ 257", "$ 130"]],
        "Cost of sales rose with volume in both years."),
}


@pytest.fixture
def audit(tmp_path: Path):
    return table_auditor(tmp_path, TABLES)


@pytest.mark.parametrize("form", sorted(FORMS))
def test_a_series_broken_by_a_marked_column_of_one_period_is_read_by_its_mark(audit, form: str) -> None:
    # (18,334 + 21,090) / 2 and (41,210 + 44,905) / 2 within the '**' series
    _check(audit, form, "marked years",
           [("The average purchased power (Scope 2) for FY20 and FY21 was 19,712.", "19,712"),
            ("The average site energy (Scope 1) for FY20 and FY21 was 43,057.5.", "43,057.5")],
           # the '***' column's year for the earlier one: (18,334 + 39,712) / 2, (41,210 + 52,300) / 2; invented
           [("The average purchased power (Scope 2) for FY20 and FY21 was 29,023.", "29,023"),
            ("The average site energy (Scope 1) for FY20 and FY21 was 46,755.", "46,755"),
            ("The average site energy (Scope 1) for FY20 and FY21 was 43,507.5.", "43,507.5")])


@pytest.mark.parametrize("form", sorted(FORMS))
def test_a_change_within_the_marked_series_not_across_it(audit, form: str) -> None:
    _check(audit, form, "marked years",
           [("The change in the total gross usage from FY20 to FY21 was -6,451.", "-6,451")],
           # 59,544 - 92,012 takes the full group's year; 65,995 - 92,012 is no change of the claim's periods
           [("The change in the total gross usage from FY20 to FY21 was -32,468.", "-32,468"),
            ("The change in the total gross usage from FY20 to FY21 was -26,017.", "-26,017")])


@pytest.mark.parametrize("form", sorted(FORMS))
def test_a_dollar_caption_does_not_scale_a_column_of_share_counts(audit, form: str) -> None:
    # 164,220 - 121,300; (96,415 + 86,630) / 2
    _check(audit, form, "share awards",
           [("The change in the number of shares granted between 2018 and 2019 was 42,920.", "42,920"),
            ("The average shares vested between 2018 and 2019 was 91,522.5.", "91,522.5"),
            ("The number of shares granted in 2019 was 164,220.", "164,220")],
           # millions of shares; the wrong period's count; an invented change
           [("The number of shares granted in 2019 was 164,220 million.", "164,220 million"),
            ("The number of shares granted in 2019 was 121,300.", "121,300"),
            ("The change in the number of shares granted between 2018 and 2019 was 42,290.", "42,290")])


@pytest.mark.parametrize("form", sorted(FORMS))
def test_a_caption_without_a_currency_still_scales_counts(audit, form: str) -> None:
    _check(audit, form, "share awards in thousands",
           [("The number of shares granted in 2019 was 164 thousand.", "164 thousand"),
            ("The change in the number of shares granted between 2018 and 2019 was 43 thousand.", "43 thousand")],
           [("The number of shares granted in 2019 was 164 million.", "164 million"),
            ("The change in the number of shares granted between 2018 and 2019 was 34 thousand.", "34 thousand")])


@pytest.mark.parametrize("form", sorted(FORMS))
def test_the_change_of_a_deduction_row_is_read_on_its_size_too(audit, form: str) -> None:
    # the allowance grew from (96) to (412): by 316 in size, by -316 signed
    _check(audit, form, "receivables",
           [("The change in allowance for doubtful accounts from 2018 to 2019 was $316 thousand.", "$316 thousand"),
            ("The change in allowance for doubtful accounts from 2018 to 2019 was -$316 thousand.", "-$316 thousand")],
           # invented; the 2017 column for 2018 (412 - 150); a row that changes sign is read signed only (150 - 40)
           [("The change in allowance for doubtful accounts from 2018 to 2019 was $326 thousand.", "$326 thousand"),
            ("The change in allowance for doubtful accounts from 2018 to 2019 was $262 thousand.", "$262 thousand"),
            ("The change in other income (expense) from 2018 to 2019 was $110 thousand.", "$110 thousand"),
            ("The change in allowance for doubtful accounts from 2018 to 2019 was $316 million.", "$316 million")])


@pytest.mark.parametrize("form", sorted(FORMS))
def test_a_row_named_in_other_words_beside_the_base_of_its_share(audit, form: str) -> None:
    # 1.4 - 0.2: 'net interest income' is the row 'Interest income (expense), net'; 'revenue' names the base row
    _check(audit, form, "percent of revenue",
           [("The change in percentage of revenue represented by net interest income between 2018 and 2019 was "
             "1.2 percent.", "1.2 percent"),
            ("The change in percentage of revenue represented by net income between 2018 and 2019 was 1.7 percent.",
             "1.7 percent")],
           # 'net income' is a row named in full: the interest row's change is not its change; invented; cost's change
           [("The change in percentage of revenue represented by net income between 2018 and 2019 was 1.2 percent.",
             "1.2 percent"),
            ("The change in percentage of revenue represented by net interest income between 2018 and 2019 was "
             "1.3 percent.", "1.3 percent"),
            ("The change in percentage of revenue represented by net interest income between 2018 and 2019 was "
             "2.3 percent.", "2.3 percent")])


@pytest.mark.parametrize("form", sorted(FORMS))
def test_small_counts_of_a_row_under_the_section_the_claim_names(audit, form: str) -> None:
    # 6 - 9; (14 + 3 + 8) / 3; 2 - 5; 6 - 1
    _check(audit, form, "store openings",
           [("The group change in flagship stores from 2018 to 2019 was -3.", "-3"),
            ("The average group outlet stores from 2017 to 2019 was 8.33.", "8.33"),
            ("The Europe change in flagship stores from 2018 to 2019 was -3.", "-3"),
            ("The Asia change in outlet stores from 2018 to 2019 was 5.", "5")],
           # Europe's change for Asia (8 - 2); the wrong periods (6 - 4 is 2); Europe's mean for the group's
           [("The Asia change in outlet stores from 2018 to 2019 was 6.", "6"),
            ("The group change in flagship stores from 2017 to 2019 was -3.", "-3"),
            ("The average group outlet stores from 2017 to 2019 was 5.33.", "5.33")])


@pytest.mark.parametrize("form", sorted(FORMS))
def test_a_change_from_or_to_a_nil_cell_is_the_other_cell(audit, form: str) -> None:
    # (4,210) - 0; 0 - 1,575
    _check(audit, form, "tariffs",
           [("The change in the green tariff credit from 2018 to 2019 was -$4,210 thousand.", "-$4,210 thousand"),
            ("The change in the legacy supply contract from 2018 to 2019 was -$1,575 thousand.", "-$1,575 thousand")],
           # the wrong periods (0 - 300; 1,575 - 1,920); invented
           [("The change in the green tariff credit from 2017 to 2018 was -$4,210 thousand.", "-$4,210 thousand"),
            ("The change in the legacy supply contract from 2017 to 2018 was -$1,575 thousand.", "-$1,575 thousand"),
            ("The change in the green tariff credit from 2018 to 2019 was -$4,120 thousand.", "-$4,120 thousand")])


@pytest.mark.parametrize("form", ["markdown", "html", "csv", "pdf"])
def test_a_line_below_the_table_that_introduces_it_names_its_total(audit, form: str) -> None:
    # 257 - 130 = 127: the 'Total' row totals what 'Cost of sales included the following:' names
    _check(audit, form, "charges",
           [("The change in total cost of sales from 2018 to 2019 was $127 million.", "$127 million")],
           # invented; the wrong scale
           [("The change in total cost of sales from 2018 to 2019 was $137 million.", "$137 million"),
            ("The change in total cost of sales from 2018 to 2019 was $127 billion.", "$127 billion")])
    # a line below that introduces nothing names no row
    _check(audit, form, "charges, prose below", [],
           [("The change in total cost of sales from 2018 to 2019 was $127 million.", "$127 million")])
