"""Issue 10, derivation (stop 28): correct computed answers over real captured runs (`plan` asks for a tool, a
`ToolNode` runs it, `write` returns the report), in every form a tool returns a table in.
A share of the total that the rows a claim names make up, where the total is a bare 'Total' row of their column
('(Taiwan + Japan) / Total'): a bare 'Total' names no subject, so it is never a row the claim names, and is the base
only of a claim that says 'total' and a share.
The operands of a derived figure are cited through the fence gate, which asks that the search for an operand's line
belongs to the claim: a CSV row ('Industrial Solutions,80,66,14') holds its cells' figures, a formula's operand among
them, though prose reading runs '80,66,14' together. A column named by every word of its header is the claim's, not
one that shares some of them ('Total Expected Charges' for 'the remaining expected charges').
The mean or total over the periods a claim names of one prose sentence's figures of its subject, one per period, each
attached to its year by the words after it or by a 'respectively' list; a claim naming three years is no sum of two,
and a pair of the sentence's figures of other years is no total of the years named.
Each rule has its negatives: a row, a column or a year the claim does not name, a figure off at its shown precision,
a claim naming no total, are flagged."""

from __future__ import annotations

from pathlib import Path

import pytest

from test_false_alarms_s14 import _check
from test_table_captions_s16 import FORMS, table_auditor

TABLES = {
    # '$' on the first and the total rows only, a bare 'Total' closing each column
    "geography": ("Table 2 Revenue by geography (in millions)", [
        ["", "2019", "2018"],
        ["United States", "$12,451", "$17,116"],
        ["Taiwan", "2,703", "3,918"],
        ["Hong Kong", "1,614", "1,761"],
        ["Japan", "958", "1,265"],
        ["Other", "5,680", "6,331"],
        ["Total", "$23,406", "$30,391"]],
        "Revenue by the location of the customer's headquarters."),
    # a breakdown by segment whose middle rows carry no '$': a CSV row of them reads '80,66,14'
    "charges": ("Table 4 Restructuring charges by segment (in millions)", [
        ["", "Total Expected Charges", "Cumulative Costs Incurred", "Remaining Expected Charges"],
        ["Transportation Solutions", "$ 160", "$ 144", "$ 16"],
        ["Industrial Solutions", "80", "66", "14"],
        ["Communications Solutions", "49", "44", "5"],
        ["Total", "$ 289", "$ 254", "$ 35"]],
        "Charges of the restructuring programme."),
    # a table of another subject, and prose stating one subject's figure for each of two or three years
    "prose series": ("Table 6 Headcount by function", [
        ["", "2019", "2018"],
        ["Engineering", "1,210", "1,105"],
        ["Sales", "640", "598"]],
        "The pension plan held about $41 million of Northwind Utility bonds, or 0.18% of plan assets, at December 31, "
        "2019 and about $57 million of Northwind Utility bonds, or 0.26% of plan assets, at December 31, 2018.\n\n"
        "For the years ended December 31, 2019, 2018 and 2017, the Company recognized $1.4 million, $0.7 million and "
        "$0.5 million, respectively, of amortization expense related to capitalized software."),
}

ALL_FORMS = sorted([*FORMS, "records"])


@pytest.fixture
def audit(tmp_path: Path):
    return table_auditor(tmp_path, TABLES)


@pytest.mark.parametrize("form", ALL_FORMS)
def test_a_share_of_named_rows_is_over_the_bare_total_of_their_column(audit, form: str) -> None:
    # 2,703 / 23,406 = 11.548%; (2,703 + 958) / 23,406 = 15.641%; (3,918 + 1,265) / 30,391 = 17.054%
    _check(audit, form, "geography",
           [("The percentage of revenue from Taiwan over total revenue in 2019 was 11.55%.", "11.55%"),
            ("The percentage of total revenue from Taiwan and Japan in 2019 was 15.64%.", "15.64%"),
            ("Taiwan and Japan made up 17.05% of total revenue in 2018.", "17.05%")],
           [("The percentage of total revenue from Taiwan and Hong Kong in 2019 was 15.64%.", "15.64%"),  # wrong row
            ("The percentage of total revenue from Taiwan and Japan in 2018 was 15.64%.", "15.64%"),  # 2019's column
            ("The percentage of total revenue from Taiwan and Japan in 2019 was 15.46%.", "15.46%"),  # digits swapped
            ("The percentage of total revenue from Taiwan and Japan in 2019 was 16.2%.", "16.2%"),  # off
            ("The percentage of revenue from Taiwan over Japan in 2019 was 15.64%.", "15.64%")])  # no total named


@pytest.mark.parametrize("form", ALL_FORMS)
def test_a_mean_of_csv_cells_is_cited_through_the_gate(audit, form: str) -> None:
    # (160 + 80 + 49) / 3 = 96.33; the wrong column (144 + 66 + 44) / 3 = 84.67
    _check(audit, form, "charges",
           [("The average amount of total expected charges per segment was $96.33 million.", "$96.33 million"),
            ("The average remaining expected charges per segment were $11.67 million.", "$11.67 million")],
           [("The average amount of total expected charges per segment was $96.83 million.", "$96.83 million"),
            ("The average amount of total expected charges per segment was $84.67 million.", "$84.67 million"),
            ("The average remaining expected charges per segment were $96.33 million.", "$96.33 million")])


@pytest.mark.parametrize("form", ALL_FORMS)
def test_a_mean_or_total_of_a_prose_sentences_figures_over_the_claimed_years(audit, form: str) -> None:
    # (41 + 57) / 2 = 49; 1.4 + 0.7 + 0.5 = 2.6; 1.4 + 0.7 = 2.1; (1.4 + 0.7 + 0.5) / 3 = 0.87
    _check(audit, form, "prose series",
           [("The average Northwind Utility bonds held by the plan for 2018 and 2019 was $49 million.", "$49 million"),
            ("The total amortization expense related to capitalized software from 2017 to 2019 was $2.6 million.",
             "$2.6 million"),
            ("The total amortization expense related to capitalized software for 2018 and 2019 was $2.1 million.",
             "$2.1 million"),
            ("The average amortization expense related to capitalized software from 2017 to 2019 was $0.87 million.",
             "$0.87 million")],
           [("The average Northwind Utility bonds held by the plan for 2018 and 2019 was $50 million.", "$50 million"),
            ("The average Northwind Utility bonds held by the plan for 2018 and 2019 was $98 million.", "$98 million"),
            # two of the three years the claim names
            ("The total amortization expense related to capitalized software from 2017 to 2019 was $2.1 million.",
             "$2.1 million"),
            # 2019 and 2017, not the years named
            ("The total amortization expense related to capitalized software for 2018 and 2019 was $1.9 million.",
             "$1.9 million"),
            # another subject's sentence
            ("The average amortization expense related to capitalized software for 2018 and 2019 was $49 million.",
             "$49 million")])


def test_a_search_for_a_csv_row_belongs_to_a_claim_by_its_cells() -> None:
    from pytest_auditfence.gate import query_belongs

    claim = "The average amount of total expected charges per segment was $96.33 million."
    assert query_belongs("Industrial Solutions,80,66,14", claim, "(160 + 80 + 49) / 3 ")
    # negatives: no operand among the row's cells; a page-text row is read by prose reading, not as CSV
    assert not query_belongs("Industrial Solutions,81,66,14", claim, "(160 + 80 + 49) / 3 ")
    assert not query_belongs("Industrial Solutions,80,66,14", claim, "(160 + 82 + 49) / 3 ")
