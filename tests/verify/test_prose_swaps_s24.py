"""Fabricated swaps of an earnings call's figures told apart by what the source figure is (issue 10, stop 24): a single
figure is no end of a claimed range (the two ends of a change 'from X to Y' aside),
an amount a figure moved by is no level of it, an amount of a thing the claim never names is no evidence for it, and
an expected figure (guidance) and one that happened are two figures.
Each audit is a captured LangGraph run (a ToolNode returning the transcript); each rule is shown with the swaps it
must flag and the true claims beside them that must stay verified."""

from __future__ import annotations

from functools import partial
from pathlib import Path

import pytest

from pytest_auditfence import Verdict
from tool_runs import section_auditor

CALL = (
    "Good morning, and welcome to the Harrowgate Instruments fourth quarter call.\n"
    "Fourth-quarter adjusted diluted earnings per share of $2.55 grew 20.9%.\n"
    "Operating margin improved from 18.2% to 19.6% on higher volumes.\n"
    "Net earnings of $192.6 million or $3.50 per diluted share increased $55.4 million or $1.01 per share from 2020 "
    "levels.\n"
    "Net interest income was $971 million in the quarter.\n"
    "This reflects a $20 million recapture of earlier provisions, combined with $40 million of net charge-offs.\n"
    "In maintaining this outlook, we absorbed a $70 million revenue headwind from currency.\n"
    "For the first quarter, revenue is expected to be between $3.515 billion and $3.575 billion.\n"
    "We now expect adjusted diluted earnings per share to be between $9.95 and $10.25, which represents growth of "
    "10.2% to 13.5%.\n"
    "We expect the average selling price for fourth quarter deliveries to again exceed $460,000.\n"
    "The average selling price of homes delivered during the quarter increased 6% to about $466,000.\n"
    "Service revenue grew 8% to $1.2 billion, better than expected.\n"
)


FLAGGED = (Verdict.UNSUPPORTED, Verdict.CONTRADICTED)


@pytest.fixture
def audit(tmp_path: Path):
    """`audit(report, figure)`: the claim holding `figure` of a run whose ToolNode returns the transcript."""
    return partial(section_auditor(tmp_path, {"call": CALL}), "call")

TRUE_CLAIMS = [
    # ranges: each end with its other end; the two ends of a change are no range, each is a figure of its own
    ("Fourth-quarter adjusted diluted earnings per share increased 20.9% to $2.55.", "$2.55"),
    ("For the year, adjusted diluted earnings per share is expected to be between $9.95 and $10.25.", "$9.95"),
    ("For the year, adjusted diluted earnings per share is expected to be between $9.95 and $10.25.", "$10.25"),
    ("Full-year adjusted EPS is guided to grow 10.2% to 13.5%.", "13.5%"),
    ("First-quarter revenue is projected to be between $3.515 billion and $3.575 billion.", "$3.575 billion"),
    ("First-quarter revenue is projected at $3.515 billion to $3.575 billion.", "$3.515 billion"),
    ("Operating margin was 19.6% in the quarter.", "19.6%"),
    ("Operating margin improved from 18.2% to 19.6%.", "18.2%"),
    # a move backs a move, a level a level
    ("Earnings per share rose by $1.01 from 2020.", "$1.01"),
    ("Net earnings increased $55.4 million from 2020.", "$55.4 million"),
    ("Diluted earnings per share of $3.50 were reported for the quarter.", "$3.50"),
    # an amount of its own thing
    ("Net interest income was $971 million in the quarter.", "$971 million"),
    ("Net charge-offs were $40 million in the quarter.", "$40 million"),
    ("The bank recorded $40 million of charge-offs.", "$40 million"),
    # guidance by guidance, actuals by actuals
    ("The average selling price is expected to exceed $460,000 in the fourth quarter.", "$460,000"),
    ("The average selling price of homes delivered rose 6% to about $466,000.", "$466,000"),
    ("The average selling price was about $466,000 in the quarter.", "$466,000"),
    ("Service revenue increased 8% to $1.2 billion in the quarter.", "$1.2 billion"),
]

SWAPS = [
    # a single figure (of another thing) for one end of a claimed range
    ("First-quarter revenue is projected to be between $70 million and $3.575 billion.", "$70 million"),
    ("First-quarter revenue is projected at $70 million to $3.575 billion.", "$70 million"),
    # an amount a figure moved by for its level
    ("The company reported diluted earnings per share of $1.01 for the quarter.", "$1.01"),
    ("The company reported net earnings of $55.4 million for the quarter.", "$55.4 million"),
    # an amount of another thing
    ("Net interest income was $40 million in the quarter.", "$40 million"),
    # an actual figure for guidance, and a guidance range's end for the quarter's actual figure
    ("The average selling price is expected to surpass $466,000 in the fourth quarter.", "$466,000"),
    ("The average selling price for deliveries is projected to exceed $466,000.", "$466,000"),
    ("Fourth-quarter adjusted diluted earnings per share increased 20.9% to $9.95.", "$9.95"),
    ("Fourth-quarter adjusted diluted earnings per share rose 20.9% to $10.25.", "$10.25"),
]


@pytest.mark.parametrize("report, figure", TRUE_CLAIMS)
def test_a_true_claim_is_verified(audit, report: str, figure: str) -> None:
    claim = audit(report, figure)
    assert claim.verdict is Verdict.VERIFIED, (claim.verdict, claim.notes)


@pytest.mark.parametrize("report, figure", SWAPS)
def test_a_swapped_figure_is_flagged(audit, report: str, figure: str) -> None:
    claim = audit(report, figure)
    assert claim.verdict in FLAGGED, (claim.verdict, claim.notes)
