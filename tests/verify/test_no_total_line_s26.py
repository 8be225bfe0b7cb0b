"""Issue 10, stop 26 (trust): a line of figures without a label below the rows of a table that does not add them up
(their average, assets netted with liabilities) is no total. It took the caption's words ('Revenue by geographic
area') as its subject, so a claim naming a total ('total revenue in 2019 was $5,371 million') was `verified` by it.
Over real captured runs (`plan` asks for a tool, a `ToolNode` runs it, `write` returns the report) in the six forms a
tool returns a table in. Negatives: a line that adds up the rows above still backs the total, a claim that names no
total keeps its verdict, and a lone unlabelled line under a caption naming a total still backs it."""

from __future__ import annotations

from pathlib import Path

import pytest

from test_false_alarms_s14 import _check
from test_table_captions_s16 import table_auditor
from test_tables_s24 import ALL_FORMS
from test_tables_s26 import TABLES as TABLES_S26

TABLES: dict[str, tuple[str, list[list[str]], str]] = {
    **TABLES_S26,
    # one line of figures without a label, under a caption that names the total: nothing above it to add up
    "lone total line": ("Table 7 Total revenue (In millions)", [
        ["For the year ended", "2019", "2018"],
        ["", "$16,112", "$22,299"]],
        ""),
}



@pytest.fixture
def audit(tmp_path: Path):
    """The six tables of issue-10c-s26's tests and a lone total line, in a captured run."""
    return table_auditor(tmp_path, TABLES)


@pytest.mark.parametrize("form", ALL_FORMS)
def test_a_line_that_adds_up_to_nothing_backs_no_total(audit, form: str) -> None:
    # 5,371 and 7,433 are the averages of the regions above them, not their sums
    _check(audit, form, "unlabelled other line",
           [("Revenue from Taiwan in 2019 was $2,703 million.", "$2,703 million")],
           [("Total revenue in 2019 was $5,371 million.", "$5,371 million"),
            ("Total revenue in 2018 was $7,433 million.", "$7,433 million"),
            ("The total revenue by geographic area in 2019 was $5,371 million.", "$5,371 million")])


@pytest.mark.parametrize("form", ALL_FORMS)
def test_a_claim_naming_no_total_keeps_its_verdict(audit, form: str) -> None:
    # the rule reads claims that name a total only: the same line for a claim without 'total' is backed as before
    _check(audit, form, "unlabelled other line",
           [("Revenue by geographic area in 2019 was $5,371 million.", "$5,371 million")],
           [("Revenue by geographic area in 2019 was $5,317 million.", "$5,317 million")])  # invented


@pytest.mark.parametrize("form", ALL_FORMS)
def test_a_true_total_line_still_backs_the_total(audit, form: str) -> None:
    # the unlabelled line that adds up the regions is their total (issue-10c-s26's rule)
    _check(audit, form, "unlabelled total",
           [("Total revenue in 2018 was $23,565 million.", "$23,565 million"),
            ("Total revenue in 2019 was $17,165 million.", "$17,165 million")],
           [("Total revenue in 2019 was $23,565 million.", "$23,565 million")])  # the other period


# CSV lines and JSON records of a one-line table do not back it on c38155d either (its caption is not read as its
# subject there): not this rule's
@pytest.mark.parametrize("form", ["html", "json", "markdown", "pdf"])
def test_a_lone_line_under_a_caption_naming_the_total_backs_it(audit, form: str) -> None:
    # nothing above the line to add up: the rule leaves it as it was
    _check(audit, form, "lone total line",
           [("Total revenue in 2019 was $16,112 million.", "$16,112 million")],
           [("Total revenue in 2018 was $16,112 million.", "$16,112 million")])  # the other period


@pytest.mark.parametrize("form", ALL_FORMS)
def test_a_net_position_line_is_no_total_of_the_assets(audit, form: str) -> None:
    # assets less (liabilities) on a line without a label: 'total ... assets' is the sum of the asset rows
    _check(audit, form, "net position",
           [("The total USD denominated monetary assets were 28,101 million.", "28,101 million")],
           [("The total USD denominated monetary assets were 23,737 million.", "23,737 million")])
