"""Prose figures of an earnings call told apart by what they are amounts of (issue 10, stop 23): 'of net provisions'
and 'of net charge-offs' share only the qualifier 'net', so one is no evidence for the other, while 'of charge-offs'
and 'of net charge-offs' name the same thing. Each audit is a captured LangGraph run (a ToolNode returning the
transcript); the rule is shown with the swap it must flag and the true claims it must keep, beside other figures of
the call that must keep their verdicts."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_auditfence import Verdict
from tool_runs import section_auditor

CALL = (
    "Good morning, and welcome to the Ridgeway Homes third quarter 2020 call.\n"
    "The dollar value of our net orders increased 89% year-over-year to $1.65 billion, and unit net orders increased "
    "by 73%, driven by a 70% increase in our monthly absorption rate to 6.1.\n"
    "We expect the average selling price for fourth quarter unit deliveries to again exceed $460,000.\n"
    "We are anticipating home deliveries for the fourth quarter of 2020 to reach between 2,400 and 2,600 units.\n"
    "Credit quality held up well during the quarter across all of our lending portfolios and regions.\n"
    "This reflects a $20 million recapture of previous provisions for credit losses, combined with $40 million of "
    "net charge-offs in the quarter.\n"
)


@pytest.fixture
def audit(tmp_path: Path):
    run = section_auditor(tmp_path, {"call": CALL})  # a ToolNode returning the transcript

    def claim(report: str, figure: str):
        return run("call", report, figure)

    return claim


FLAGGED = (Verdict.UNSUPPORTED, Verdict.CONTRADICTED)


def test_the_orders_line_is_a_long_transcript_line() -> None:
    assert len(CALL.splitlines()[1]) > 160 and all(len(line) <= 160 for line in CALL.splitlines()[2:])


@pytest.mark.parametrize("report, figure", [
    ("The company recorded $40 million of net charge-offs in the quarter.", "$40 million"),
    ("The company recorded $40 million of charge-offs in the quarter.", "$40 million"),
    ("The company recaptured $20 million of previous provisions for credit losses.", "$20 million"),
    ("The average selling price for unit deliveries is expected to surpass $460,000.", "$460,000"),
    ("The dollar value of net orders rose 89% to $1.65 billion.", "$1.65 billion"),
    ("Net orders were valued at $1.65 billion in the quarter.", "$1.65 billion"),
    ("Home deliveries for 4Q 2020 are predicted to hit between 2,400 and 2,600 units.", "2,400"),
])
def test_a_figure_of_its_own_thing_is_verified(audit, report: str, figure: str) -> None:
    claim = audit(report, figure)
    assert claim.verdict is Verdict.VERIFIED, (claim.verdict, claim.notes)


@pytest.mark.parametrize("report, figure", [
    # the same qualifier ('net'), another thing: provisions are not charge-offs
    ("The company charged off $40 million of net provisions for credit losses in the quarter.", "$40 million"),
    ("The company recorded $20 million of net charge-offs in the quarter.", "$20 million"),
])
def test_a_figure_of_another_thing_is_flagged(audit, report: str, figure: str) -> None:
    claim = audit(report, figure)
    assert claim.verdict in FLAGGED, (claim.verdict, claim.notes)
