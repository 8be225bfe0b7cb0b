"""Prose figures of an earnings call that back another figure (issue 10, stop 23): a bare 'from' is no comparison
word ('earnings from continuing operations'); a comparison base ('up from $5.52', 'the prior-year levels of $64.2
million') backs only a claim that calls it the earlier value, whatever metric the claim names; an amount per share
needs a per-share source figure, and a whole amount is not backed by one; a figure whose own words name a subject
('raw material cost') is not backed by a figure stated for a metric ('adjusted EBITDA was up 21%'); a count is not
backed by the count of the same thing for another event. Each run is a captured LangGraph run; each rule is shown
with the swap it must flag and the true claim it must keep."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_auditfence import Verdict
from tool_runs import section_auditor

# one speaker's sentences a line; the 2nd, 3rd, 5th and 8th are longer than a short sentence line (160 characters)
CALL = (
    "Good morning, and thank you for joining the Harbor Steel call for the third quarter of fiscal 2021.\n"
    "As noted, we reported record earnings from continuing operations of $130.4 million, or $1.07 per diluted share, "
    "roughly double the prior-year levels of $64.2 million and $0.53 per diluted share.\n"
    "Our order backlog ended the quarter at 1,240 units, up from 1,150 units a year ago, and we shipped 310 units to "
    "customers in Europe, our largest region by volume this year.\n"
    "During the quarter we repurchased 1.2 million shares at an average price of $52.30, and we still have room "
    "under the program approved by the board last spring.\n"
    "Harbor Steel earned $402 million or $6.78 per diluted common share in the quarter, and $6.86 excluding "
    "adjusting items, as pricing held up in every region and our mills ran close to capacity.\n"
    "We expect earnings of $7.40 to $7.65 per diluted share for the full year.\n"
    "Organic revenues in the quarter were up 19% year-over-year, adjusted EBITDA was up 21% and adjusted earnings per "
    "share of $0.94 increased 38% versus last year.\n"
    "Our adjusted EBITDA guidance range of $455 million to $475 million remains unchanged, with pricing offsetting raw "
    "material cost increases that we now expect to exceed 10% for the fiscal year.\n"
    "For the full year we expect net interest expense in the range of $230 million to $240 million and capital "
    "expenditures of about $415 million.\n"
    "Today we announced an agreement to acquire 11 stores and one service center from a dealer group in Georgia.\n"
    "We plan to open five new stores by the end of this year and 12 new stores in 2022.\n"
)


@pytest.fixture
def audit(tmp_path: Path):
    run = section_auditor(tmp_path, {"call": CALL})  # a ToolNode returning the transcript

    def verdict(report: str, figure: str) -> Verdict:
        return run("call", report, figure).verdict

    return verdict


FLAGGED = (Verdict.UNSUPPORTED, Verdict.CONTRADICTED)


def test_the_call_has_long_sentence_lines() -> None:
    assert [len(line) > 160 for line in CALL.splitlines()] == [False, True, True, False, True, False, False, True, False, False, False]


@pytest.mark.parametrize("report, figure", [
    # the period's own figures
    ("Earnings from continuing operations were $130.4 million.", "$130.4 million"),
    ("Earnings per share from continuing operations were $1.07.", "$1.07"),
    ("The order backlog was 1,240 units at the end of the quarter.", "1,240 units"),
    ("The company shipped 310 units to customers in Europe.", "310 units"),
    # a base claimed as a base: by 'from' before a figure, by an earlier period named
    ("Earnings from continuing operations doubled from $64.2 million.", "$64.2 million"),
    ("Earnings from continuing operations were $64.2 million in the prior year.", "$64.2 million"),
    ("The order backlog rose from 1,150 units.", "1,150 units"),
    ("The order backlog was 1,150 units a year ago.", "1,150 units"),
    # an amount per share by a per-share figure: after it, after the other end of its range, or named in its clause
    ("Diluted earnings were $6.78 per share.", "$6.78"),
    ("Full-year EPS is expected at $7.40 to $7.65.", "$7.40"),
    ("The company repurchased shares at an average price of $52.30.", "$52.30"),
    # a figure of its own subject ('raw material cost') by a figure of that subject, whatever metric its clause opens with
    ("Adjusted EBITDA guidance is unchanged at $455 million to $475 million despite raw material cost increases "
     "exceeding 10% for the year.", "10%"),
    ("Adjusted EBITDA was up 21% and organic revenues rose 19%.", "21%"),
    ("Net interest expense is expected at $230 million to $240 million.", "$230 million"),
    # a count by the count of its own event
    ("The company announced an agreement to acquire 11 stores.", "11 stores"),
    ("The company plans to open 12 new stores in 2022.", "12 new stores"),
])
def test_a_figure_backs_the_claim_that_states_it_as_the_source_does(audit, report: str, figure: str) -> None:
    assert audit(report, figure) is Verdict.VERIFIED


@pytest.mark.parametrize("report, figure", [
    # 'from' in 'earnings from continuing operations' is no comparison: the prior year's figure is another period's
    ("Earnings from continuing operations were $64.2 million.", "$64.2 million"),
    ("Earnings per share from continuing operations were $0.53.", "$0.53"),
    # a base claimed as the period's figure for a subject that names no financial metric
    ("The order backlog was 1,150 units at the end of the quarter.", "1,150 units"),
    # an amount per share by a figure that is no amount per share (a share price)
    ("Diluted earnings were $52.30 per share.", "$52.30"),
    # a whole amount by a per-share figure, when the claim names EPS only for its other figure
    ("Harbor Steel reported earnings per share of $6.86 in the quarter and earned $6.78.", "$6.78"),
    # a figure of a subject its own words name ('raw material cost') by a figure stated for another metric (EBITDA)
    ("Adjusted EBITDA guidance is unchanged at $455 million to $475 million despite raw material cost increases "
     "exceeding 21% for the year.", "21%"),
    # an amount per share ('revenue per share of') by a whole amount
    ("The company reported revenue per share of $230 million.", "$230 million"),
    # a count of the same thing (stores) for another event (opened, not acquired)
    ("The company announced an agreement to acquire 12 stores.", "12 stores"),
])
def test_a_figure_stated_as_another_figure_is_flagged(audit, report: str, figure: str) -> None:
    assert audit(report, figure) in FLAGGED
