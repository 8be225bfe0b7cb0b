"""Issue 10, trust (stop 26): a claim naming a month of a year ('issued in August 2019') is matched to the row of
that month ('Aug - 2019') in a table whose rows are month periods; the 'Total' row (a sum of months, never one month)
and another month's row are no evidence for it. Over real captured runs (`plan` asks for a tool, a `ToolNode` runs
it, `write` returns the report) in every form a tool returns a table in, with the negatives: a claim naming no month
(or a dated day, 'as of December 31, 2019', the date of the balance) is still backed by the Total.
A year centred over 'Low | High' in PDF page text heads both of its columns, so a year's mean over its quarter rows
is derived from page text too, of its own column and year only."""

from __future__ import annotations

from pathlib import Path

import pytest
from langchain_core.tools import tool

from test_false_alarms_s14 import _check
from test_table_captions_s16 import FORMS, table_auditor
from tool_runs import claim_of, tool_run_auditor

TABLES = {
    # warrants outstanding by the month they were issued in, closed by their total
    "warrants": ("Table 1 Warrants outstanding", [
        ["Issuance date", "Outstanding as of December 31, 2019", "Exercise price", "Exercisable through"],
        ["Aug 2007 - Jan 2011", "2,016,666", "3 - 4.35", "Nov-2022"],
        ["Jun-2018", "458,202", "9", "Dec-2020"],
        ["Mar-2019", "1,158,000", "7", "Dec-2021"],
        ["Aug - 2019", "842,000", "7", "Dec-2021"],
        ["Total", "4,474,868", "", ""]],
        "The following table sets forth the number, exercise price and expiration date of Company warrants "
        "outstanding as of December 31, 2019."),
}

ALL_FORMS = sorted([*FORMS, "records"])


@pytest.fixture
def audit(tmp_path: Path):
    return table_auditor(tmp_path, TABLES)


@pytest.mark.parametrize("form", ALL_FORMS)
def test_a_claim_naming_a_month_is_its_month_row(audit, form: str) -> None:
    _check(audit, form, "warrants",
           [("The total number of warrants outstanding as of December 31, 2019 that were issued in August 2019 "
             "was 842,000.", "842,000"),
            ("The warrants issued in March 2019 that were outstanding at year end numbered 1,158,000.", "1,158,000"),
            # negatives: no month named, or only the balance's dated day: the Total is the whole
            ("The total number of warrants outstanding as of December 31, 2019 was 4,474,868.", "4,474,868"),
            ("In total, 4,474,868 warrants were outstanding in 2019.", "4,474,868")],
           [("The total number of warrants outstanding as of December 31, 2019 that were issued in August 2019 "
             "was 4,474,868.", "4,474,868"),  # the Total row: a sum of months
            ("The warrants issued in August 2019 that were outstanding at year end numbered 1,158,000.",
             "1,158,000")])  # March's row


# page text as a PDF reader lays it out: each year centred over its 'Low' and 'High' columns
PAGE = """Table 1 Market prices of common stock

                          2019                 2018
                    Low       High       Low       High
First Quarter    $21.40    $25.10     $11.40    $15.10
Second Quarter   $22.75    $27.30     $12.75    $17.30
Third Quarter    $24.05    $29.85     $14.05    $19.85
Fourth Quarter   $19.60    $26.45     $ 9.60    $16.45

The high and low sale prices of our common stock by quarter were as follows.
"""


def test_a_year_spanning_low_and_high_in_page_text_derives_over_its_quarters(tmp_path: Path) -> None:
    @tool
    def get_page(page: int) -> str:
        """The text of one page of the annual report, as a PDF reader lays it out."""
        return PAGE

    run = tool_run_auditor(tmp_path, [get_page], "Answer the analyst's questions on the annual report.")

    def audit(form: str, table: str, sentence: str, figure: str):
        return claim_of(run([("get_page", {"page": 41})], sentence), figure)

    # (21.40 + 22.75 + 24.05 + 19.60) / 4 = 21.95; 2018's lows: 11.95; 2019's highs: 27.175
    _check(audit, "pdf", "prices",
           [("The average quarterly low sale price of the common stock in 2019 was $21.95.", "$21.95"),
            ("The average quarterly low sale price of the common stock in 2018 was $11.95.", "$11.95"),
            ("The low sale price of the common stock in the third quarter of 2018 was $14.05.", "$14.05")],
           [("The average quarterly low sale price of the common stock in 2019 was $11.95.", "$11.95"),  # 2018's
            ("The average quarterly low sale price of the common stock in 2019 was $27.18.", "$27.18"),  # the highs
            ("The low sale price of the common stock in the third quarter of 2018 was $19.85.", "$19.85")])  # high
