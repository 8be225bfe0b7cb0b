"""Issue 10, trust (stop 31): a claim naming one row of a table in full is not backed by a longer row that holds
the claim's words and more ('Total current assets' for a claim about total assets, 'Total other non-current assets'
for one about 'Other', 'Net debt to EBITDA' for one about net debt), over real captured runs in every form a tool
returns a table in; nor is a change computed from a row under a section row the claim does not name, where it names
a row of the table in full ('Current year' under 'Overseas current tax expense' for the total current tax expense). The mechanism was found by eval/tatqa_cells.py (every cell of the TAT-QA tuning tables as a
claim, its neighbouring row's value as a fabrication). The right cells stay covered, and so does a claim naming a
row by fewer words when no row of the table is named in full."""

from __future__ import annotations

from pathlib import Path

import pytest

from test_false_alarms_s14 import _check
from test_table_captions_s16 import table_auditor
from test_wrong_row_s27 import ALL_FORMS

TABLES = {
    # a balance sheet's subtotals beside its totals
    "balance": ("Table 4 Balance sheet of the parent (in thousands)", [
        ["", "2019", "2018"],
        ["Total current assets", "121,041", "73,202"],
        ["Total assets", "383,665", "336,032"],
        ["Total current liabilities", "154,619", "90,392"],
        ["Total liabilities", "155,521", "92,364"]],
        "The parent's assets and liabilities at the end of each year."),
    # an 'Other' line above the total that holds its word
    "other assets": ("Table 6 Other non-current assets (in thousands)", [
        ["", "December 31, 2019", "December 31, 2018"],
        ["Deferred contract acquisition costs", "3,297", "3,184"],
        ["Deposits", "2,338", "1,975"],
        ["Other", "3,197", "3,461"],
        ["Total other non-current assets", "8,832", "8,620"]],
        "Other non-current assets at the end of each year."),
    # a line item beside a ratio of it
    "leverage": ("Table 2 Net debt (in millions)", [
        ["", "2019 £m", "2018 £m"],
        ["Adjusted operating profit", "282.7", "264.9"],
        ["EBITDA", "317.0", "297.8"],
        ["Net debt", "295.2", "235.8"],
        ["Net debt to EBITDA", "0.9", "0.8"]],
        "Leverage at the year end."),
    # a part whose words a total repeats, and no row named by fewer words
    "revenue": ("Table 3 Revenue (in millions)", [
        ["", "2019", "2018"],
        ["License", "3,181", "3,042"],
        ["Subscription and SaaS", "1,877", "1,303"],
        ["Total license and subscription and SaaS", "5,058", "4,345"],
        ["Professional services", "999", "917"]],
        "Revenue by type."),
    # a short row label under a section row, above a total the claim names in full
    "tax": ("Table 5 Income tax expense (in millions)", [
        ["", "2019", "2018"],
        ["Domestic current tax expense:", "", ""],
        ["Current year", "21", "70"],
        ["Prior years", "(9)", "(5)"],
        ["Overseas current tax expense:", "", ""],
        ["Current year", "1,098", "1,055"],
        ["Prior years", "(48)", "(102)"],
        ["Total current tax expense", "1,062", "1,018"]],
        "Tax charged in the income statement."),
}


@pytest.fixture
def audit(tmp_path: Path):
    return table_auditor(tmp_path, TABLES)


@pytest.mark.parametrize("form", ALL_FORMS)
def test_a_total_is_not_its_subtotal(audit, form: str) -> None:
    _check(audit, form, "balance",
           [("Total assets were $383,665 thousand in 2019.", "$383,665"),
            ("Total current assets were $121,041 thousand in 2019.", "$121,041"),
            ("In 2018, total liabilities came to $92,364 thousand.", "$92,364"),
            # a row named by fewer of its words, no row named in full beside it
            ("Current liabilities were $154,619 thousand in 2019.", "$154,619")],
           [("Total assets were $121,041 thousand in 2019.", "$121,041"),  # the current assets
            ("In 2018, total liabilities came to $90,392 thousand.", "$90,392"),  # the current liabilities
            ("Total assets were $336,032 thousand in 2019.", "$336,032")])  # the other year


@pytest.mark.parametrize("form", ALL_FORMS)
def test_other_is_not_the_total_of_other_assets(audit, form: str) -> None:
    _check(audit, form, "other assets",
           [("Other was $3,197 thousand as of December 31, 2019.", "$3,197"),
            ("Total other non-current assets were $8,620 thousand as of December 31, 2018.", "$8,620")],
           [("Other was $8,832 thousand as of December 31, 2019.", "$8,832"),
            ("Other was $8,620 thousand as of December 31, 2018.", "$8,620")])


@pytest.mark.parametrize("form", ALL_FORMS)
def test_a_line_item_is_not_its_ratio(audit, form: str) -> None:
    _check(audit, form, "leverage",
           [("Net debt was £295.2 million in 2019.", "£295.2"),
            ("Net debt to EBITDA was 0.9 in 2019.", "0.9")],
           [("Net debt was £0.9 million in 2019.", "£0.9"),
            ("Net debt was £0.8 million in 2018.", "£0.8")])


@pytest.mark.parametrize("form", ALL_FORMS)
def test_a_part_is_not_the_total_that_repeats_its_words(audit, form: str) -> None:
    _check(audit, form, "revenue",
           [("Subscription and SaaS revenue was $1,877 million in 2019.", "$1,877"),
            ("Total license and subscription and SaaS revenue was $4,345 million in 2018.", "$4,345"),
            ("License revenue was $3,042 million in 2018.", "$3,042")],
           [("Subscription and SaaS revenue was $5,058 million in 2019.", "$5,058"),
            ("License revenue was $4,345 million in 2018.", "$4,345")])


@pytest.mark.parametrize("form", ALL_FORMS)
def test_a_change_is_of_the_row_named_with_its_section(audit, form: str) -> None:
    _check(audit, form, "tax",
           [("Total current tax expense rose 4.3 percent from 2018 to 2019.", "4.3 percent"),
            ("Total current tax expense rose by $44 million from 2018 to 2019.", "$44 million"),
            ("Overseas current tax expense for the current year rose 4.1 percent from 2018 to 2019.", "4.1 percent")],
           # the overseas current year's change, claimed for the total
           [("Total current tax expense rose 4.1 percent from 2018 to 2019.", "4.1 percent"),
            ("Total current tax expense rose by $43 million from 2018 to 2019.", "$43 million")])
