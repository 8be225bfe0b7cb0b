"""Issue 10, derivation (stop 28): correct computed answers over real captured runs (`plan` asks for a tool, a
`ToolNode` runs it, `write` returns the report), in every form a tool returns a table in.
A share of the total that the rows a claim names make up, where the total is a bare 'Total' row of their column
('(Taiwan + Japan) / Total'): a bare 'Total' names no subject, so it is never a row the claim names, and is the base
only of a claim that says 'total' and a share. Each rule has its negatives: a row the claim does not name, another
year's column, a figure off at its shown precision, a claim naming no total, are flagged."""

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
