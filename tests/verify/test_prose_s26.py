"""Fabricated swaps of an earnings call's figures (issue 10, stop 26), over a captured LangGraph run (a ToolNode
returning the transcript): a clause that continues the one before it (', growing 8.5% to 11.2%', ', which represents
growth of ...') takes that clause's qualifiers and subject, so a guidance range's end is no evidence for a quarter's
actual growth; and a figure a summary states as reached in other words than the call's ('escalated by', 'surged')
is an actual figure, no guidance ('advanced' only before its figure); and a claimed figure is a comparison base only
by its own words ('$575 million in the prior year', 'from $575 million'), not by a comparison that introduces the
next figure. Each rule is shown with the swaps it must flag and the true claims beside them."""

from __future__ import annotations

from pathlib import Path

import pytest

from tool_runs import COVERED, FLAGGED, one_section_auditor

CALL = (
    "Good morning, and welcome to the Tallmere Systems third quarter call.\n"
    "Third-quarter adjusted diluted earnings per share of $1.12 grew 14.7%.\n"
    "Third-quarter revenue of $2.418 billion grew 6.3% on a reported basis and 7.9% at constant currency.\n"
    "We now expect adjusted diluted earnings per share to be between $4.10 and $4.30, which represents "
    "year-over-year growth of 9.4% to 12.6%.\n"
    "And finally, adjusted diluted earnings per share is expected to be between $1.15 and $1.19, "
    "growing 8.5% to 11.2%.\n"
    "The average order value of systems shipped in the quarter increased 4% to about $386,000.\n"
    "Net sales were $612 million in the quarter versus $575 million in the prior year.\n"
)


@pytest.fixture
def audit(tmp_path: Path):
    """`audit(sentence, figure)`: the claim holding `figure` of a run whose ToolNode returns the transcript."""
    return one_section_auditor(tmp_path, CALL)


@pytest.mark.parametrize("sentence, figure", [
    # the continuing clause's figures are the guidance's, both ends, whatever the claim calls the growth
    ("Adjusted diluted EPS is expected to be between $4.10 and $4.30, representing growth of 9.4% to 12.6%.", "9.4%"),
    ("Adjusted diluted EPS is expected to be between $4.10 and $4.30, representing growth of 9.4% to 12.6%.", "12.6%"),
    ("Adjusted diluted EPS is expected to grow 8.5% to 11.2%.", "8.5%"),
    ("Adjusted diluted EPS is expected to grow 8.5% to 11.2%.", "11.2%"),
    # the quarter's actual figures, in the call's words and in others
    ("Third-quarter adjusted diluted earnings per share of $1.12 grew 14.7%.", "14.7%"),
    ("Third-quarter adjusted diluted earnings per share escalated by 14.7% to $1.12.", "14.7%"),
    ("Third-quarter adjusted diluted earnings per share escalated by 14.7% to $1.12.", "$1.12"),
    ("Third-quarter revenue surged 6.3% on a reported basis to $2.418 billion.", "6.3%"),
    ("The average order value of systems shipped jumped 4% to about $386,000.", "$386,000"),
    # a comparison base backs a claimed base, in the call's words or others
    ("Net sales were $612 million in the quarter versus $575 million in the prior year.", "$612 million"),
    ("Net sales were $612 million in the quarter versus $575 million in the prior year.", "$575 million"),
    ("Net sales were $575 million in the prior year.", "$575 million"),
    ("Net sales rose to $612 million from $575 million.", "$575 million"),
    ("Third-quarter adjusted diluted earnings per share advanced by 14.7%.", "14.7%"),
])
def test_a_true_claim_is_verified(audit, sentence: str, figure: str) -> None:
    claim = audit(sentence, figure)
    assert claim.verdict in COVERED, (claim.verdict, claim.notes)


@pytest.mark.parametrize("sentence, figure", [
    # a guidance range's end, stated in a clause that continues the guidance, for the quarter's actual growth
    ("Third-quarter adjusted diluted earnings per share of $1.12 grew 11.2%.", "11.2%"),
    ("Third-quarter adjusted diluted earnings per share of $1.12 grew 12.6%.", "12.6%"),
    ("Third-quarter adjusted diluted earnings per share of $1.12 grew 9.4%.", "9.4%"),
    # guidance figures for actual ones, the actual stated by a verb the call never uses
    ("Third-quarter adjusted diluted earnings per share escalated by 14.7% to $4.30.", "$4.30"),
    ("Third-quarter adjusted diluted earnings per share surged 14.7% to $1.19.", "$1.19"),
    ("Third-quarter adjusted diluted earnings per share escalated by 8.5% to $1.12.", "8.5%"),
    # the two figures of a comparison exchanged: the base stated as the quarter's figure
    ("Net sales were $575 million in the quarter versus $612 million in the prior year.", "$575 million"),
    ("Net sales were $575 million in the quarter, up from the prior year.", "$575 million"),
    # a guidance range's end for an actual figure stated by 'advanced'
    ("Third-quarter adjusted diluted earnings per share advanced by 14.7% to $4.30.", "$4.30"),
])
def test_a_swapped_figure_is_flagged(audit, sentence: str, figure: str) -> None:
    claim = audit(sentence, figure)
    assert claim.verdict in FLAGGED, (claim.verdict, claim.notes)
