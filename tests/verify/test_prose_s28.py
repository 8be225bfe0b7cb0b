"""Fabricated swaps of an earnings call's figures along the comparison axis (issue 10, stop 28), over a captured
LangGraph run (a ToolNode returning the transcript): a change stated sequentially is another figure than one stated
year over year, and one measured from a named year ('compared to 2019') or a named quarter ('from the first quarter')
another than the year-over-year one when the sentence tells them apart; a comparison's base stated for last year's
quarter ('in Q2 of last year', 'in last year's Q2') or the linked quarter is that period's figure, and the figure
compared with it is no evidence for a claim that places it in that earlier period; the dollar value of orders is
another figure than their number ('unit net orders'); a figure stated for one quarter is no evidence for another
quarter's; and the end a move starts from ('from at least $4.20') is not the end it reaches ('to approximately
$5.10'). Each rule is shown with the swaps it must flag and the true claims beside them."""

from __future__ import annotations

from pathlib import Path

import pytest

from tool_runs import COVERED, FLAGGED, one_section_auditor

CALL = (
    "Good morning, and welcome to the Harwick Foods second quarter call.\n"
    "Organic sales in the second quarter were up 4.2% sequentially and 11.8% year-over-year.\n"
    "Same-store case volumes were up 17% year-over-year and 9% compared to 2019.\n"
    "Net interest income was $512 million in the second quarter, compared with $488 million in the linked quarter.\n"
    "Net income on an adjusted basis in the second quarter was $83.4 million or $1.12 per diluted share, that compares "
    "to $71.9 million or $0.97 per diluted share in Q2 of last year.\n"
    "GAAP net income in the second quarter was $64.1 million or $0.86 per diluted share, and that compares to $58.3 "
    "million or $0.79 per diluted share in last year's Q2.\n"
    "Gross margin expanded 60 basis points from the first quarter and 140 basis points from the year-ago quarter.\n"
    "The dollar value of our net orders increased 64% year-over-year to $1.21 billion, and unit net orders increased by "
    "46%, driven by a 52% increase in our monthly absorption rate to 5.4.\n"
    "Diluted earnings per share were $2.14 for the second quarter of 2021, improved from $1.87 in the first quarter of "
    "2021 and $1.52 in the second quarter of 2020.\n"
    "Given our strong results, we've increased our full year adjusted earnings per share outlook from at least $4.20 "
    "per share to approximately $5.10 per share.\n"
    "As Dana mentioned, we drew $220 million on our revolver during the quarter which increased our cash and "
    "short-term marketable securities to $615.8 million at quarter end.\n"
)


@pytest.fixture
def audit(tmp_path: Path):
    """`audit(sentence, figure)`: the claim holding `figure` of a run whose ToolNode returns the transcript."""
    return one_section_auditor(tmp_path, CALL)


@pytest.mark.parametrize("sentence, figure", [
    # sequential and year-over-year changes, in the call's words and in others
    ("Organic sales in the second quarter were up 4.2% sequentially and 11.8% year-over-year.", "4.2%"),
    ("Organic sales in the second quarter were up 4.2% sequentially and 11.8% year-over-year.", "11.8%"),
    ("Organic sales grew 4.2% quarter-over-quarter.", "4.2%"),
    ("Organic sales grew 11.8% versus the prior-year quarter.", "11.8%"),
    # a change from a named year beside a year-over-year one
    ("Same-store case volumes were up 17% year-over-year and 9% compared to 2019.", "17%"),
    ("Same-store case volumes were up 17% year-over-year and 9% compared to 2019.", "9%"),
    ("Same-store case volumes rose 17% from a year ago.", "17%"),
    # the linked quarter is the quarter before: its figure is the comparison's base
    ("Net interest income was $512 million in the second quarter, compared with $488 million in the linked quarter.",
     "$512 million"),
    ("Net interest income was $488 million in the linked quarter.", "$488 million"),
    ("Net interest income was $488 million in the prior quarter.", "$488 million"),
    # last year's quarter, however it is named
    ("Adjusted net income was $83.4 million in the second quarter, compared to $71.9 million in Q2 of last year.",
     "$71.9 million"),
    ("Adjusted EPS was $1.12 per diluted share, compared to $0.97 in Q2 of last year.", "$0.97"),
    ("GAAP EPS was $0.86 in the second quarter, compared to $0.79 in last year's Q2.", "$0.86"),
    ("GAAP EPS was $0.79 in last year's second quarter.", "$0.79"),
    # a change from a named quarter is a sequential one
    ("Gross margin expanded 60 basis points sequentially and 140 basis points year over year.", "60 basis points"),
    ("Gross margin expanded 60 basis points sequentially and 140 basis points year over year.", "140 basis points"),
    ("Gross margin expanded 60 basis points from the first quarter.", "60 basis points"),
    ("Gross margin expanded 140 basis points versus the year-ago quarter.", "140 basis points"),
    # the dollar value of orders and their number; a change in another thing of the same line
    ("The dollar value of net orders rose 64% to $1.21 billion.", "64%"),
    ("Unit net orders increased 46%.", "46%"),
    ("The company's unit net orders jumped 46% on a 52% increase in the monthly absorption rate.", "52%"),
    ("The monthly absorption rate increased 52%.", "52%"),
    ("The company saw a 46% increase in unit net orders.", "46%"),
    # a figure stated for its quarter, the quarter named right after it
    ("Diluted EPS was $2.14 for the second quarter of 2021, up from $1.87 in the first quarter of 2021.", "$2.14"),
    ("Diluted EPS was $2.14 for the second quarter of 2021, up from $1.87 in the first quarter of 2021.", "$1.87"),
    ("Diluted EPS was $1.52 in the second quarter of 2020.", "$1.52"),
    # the two ends of a move
    ("The company raised its adjusted EPS outlook from at least $4.20 to approximately $5.10 per share.", "$4.20"),
    ("The company raised its adjusted EPS outlook from at least $4.20 to approximately $5.10 per share.", "$5.10"),
    ("The company raised its full-year adjusted EPS outlook to $5.10 per share.", "$5.10"),
    ("The company drew $220 million on its revolver, which increased cash to $615.8 million.", "$615.8 million"),
])
def test_a_true_claim_is_verified(audit, sentence: str, figure: str) -> None:
    claim = audit(sentence, figure)
    assert claim.verdict in COVERED, (claim.verdict, claim.notes)


@pytest.mark.parametrize("sentence, figure", [
    # a sequential change for a year-over-year one, and the reverse
    ("Organic sales rose 11.8% sequentially.", "11.8%"),
    ("Organic sales rose 4.2% year over year.", "4.2%"),
    ("Organic sales grew 4.2% versus the prior-year quarter.", "4.2%"),
    ("Organic sales grew 11.8% from the previous quarter.", "11.8%"),
    # a change from 2019 for a year-over-year one, and the reverse
    ("Same-store case volumes were up 9% year-over-year.", "9%"),
    ("Same-store case volumes were up 17% compared to 2019.", "17%"),
    ("Same-store case volumes rose 9% from a year ago.", "9%"),
    # the quarter's figure placed in the linked quarter or last year's, and the base placed in this quarter
    ("Net interest income was $512 million in the linked quarter.", "$512 million"),
    ("Net interest income was $488 million in the second quarter.", "$488 million"),
    ("Adjusted net income was $83.4 million in Q2 of last year.", "$83.4 million"),
    ("Adjusted net income was $71.9 million in Q2.", "$71.9 million"),
    ("Adjusted EPS was $0.97 in the second quarter.", "$0.97"),
    ("Adjusted EPS was $0.97 per diluted share, compared to $1.12 in Q2 of last year.", "$0.97"),
    ("GAAP EPS was $0.79 in the second quarter.", "$0.79"),
    ("GAAP EPS was $0.86 in last year's Q2.", "$0.86"),
    # a change from the first quarter for a year-over-year one, and the reverse
    ("Gross margin expanded 60 basis points year over year.", "60 basis points"),
    ("Gross margin expanded 140 basis points sequentially.", "140 basis points"),
    ("Gross margin expanded 140 basis points from the first quarter.", "140 basis points"),
    # the number of orders for their dollar value, and the reverse
    ("The dollar value of net orders increased 46% year-over-year.", "46%"),
    ("Unit net orders rose 64%.", "64%"),
    # the figures of two quarters exchanged, and another year's quarter
    ("Diluted EPS was $1.87 for the second quarter of 2021, up from $2.14 in the first quarter of 2021.", "$1.87"),
    ("Diluted EPS was $1.87 for the second quarter of 2021, up from $2.14 in the first quarter of 2021.", "$2.14"),
    ("Diluted EPS was $1.52 for the second quarter of 2021.", "$1.52"),
    # the two ends of a move exchanged, and one end for the other
    ("The company raised its adjusted EPS outlook from at least $5.10 to approximately $4.20 per share.", "$5.10"),
    ("The company raised its adjusted EPS outlook from at least $5.10 to approximately $4.20 per share.", "$4.20"),
    ("The company raised its full-year adjusted EPS outlook to $4.20 per share.", "$4.20"),
    ("The company drew $615.8 million on its revolver, which increased cash to $220 million.", "$220 million"),
])
def test_a_swapped_figure_is_flagged(audit, sentence: str, figure: str) -> None:
    claim = audit(sentence, figure)
    assert claim.verdict in FLAGGED, (claim.verdict, claim.notes)
