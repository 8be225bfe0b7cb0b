"""Earnings-call lines that state the call's own quarter next to another period's figure, and figures written as
fractions (issue 10, stop 30), over a captured LangGraph run whose ToolNode returns an invented call's prepared
remarks. The quarter's own figure backs a claim about the quarter; the same quarter a year before ('$1.58 in the
second quarter of 2021' beside '$2.14 for the second quarter of 2022') is its year-ago base and backs only a claim
that names that year or calls it a base; the quarter before, of the same year, backs a claim about that quarter; a
change 'above the first quarter' is measured from that quarter, not from the year-ago one; 'per common share' is
earnings per share; a change the sentence states for another thing ('driven by a 45% increase in our monthly
absorption rate') backs no claim about the thing another figure's clause names, nor the reverse. Fractions ('half of', 'a quarter of', 'a fifth', 'a third of a million', 'point five percent',
'one and a half times') back the figure in digits and are backed by it, and a share of a whole the sources state
otherwise, or only for another subject, is flagged as its digits would be."""

from __future__ import annotations

from pathlib import Path

import pytest

from tool_runs import COVERED, FLAGGED, one_section_auditor

REMARKS = """Prepared remarks

Diluted earnings per common share were $2.14 for the second quarter of 2022, up from $1.96 in the first quarter of 2022 and $1.58 in the second quarter of 2021.
Our net interest margin for the second quarter was 3.12 percent, 18 basis points higher than Q1 and 41 basis points higher than the year-ago quarter.
Online orders made up half of all orders in the quarter.
International sales were 25% of total sales in 2021.
About a third of our employees work in manufacturing.
A fifth of our revenue came from the services segment.
The foundation raised a third of a million dollars for local food banks.
Gross margin improved by point five percent in the quarter.
Return on equity was one and a half times the industry average.
Capital spending was 20% of revenue.
The dollar value of our net orders rose 64% year-over-year to $2.10 billion, and unit net orders increased by 52%, driven by a 45% increase in our monthly absorption rate to 5.2.
"""


@pytest.fixture
def audit(tmp_path: Path):
    """`audit(sentence, figure)`: the claim holding `figure` of a run whose ToolNode returns the remarks."""
    return one_section_auditor(tmp_path, REMARKS)


@pytest.mark.parametrize("sentence, figure", [
    ("Diluted EPS was $2.14 in the second quarter.", "2.14"),
    ("Diluted earnings per share were $2.14 for the second quarter of 2022.", "2.14"),
    ("Diluted EPS was $2.14.", "2.14"),
    ("Diluted EPS was $1.58 in the second quarter of 2021.", "1.58"),  # the base, for the base's own year
    ("Diluted EPS was $1.96 in the first quarter.", "1.96"),  # the quarter before, of the same year
    ("Net interest margin was 3.12%, 18 basis points above the first quarter.", "18 basis"),
    ("Net interest margin was 3.12%, 41 basis points above the year-ago quarter.", "41 basis"),
    ("Net interest margin was 3.12%, 18 basis points higher than Q1.", "18 basis"),
    ("Online orders made up 50% of all orders in the quarter.", "50%"),
    ("Online orders made up half of all orders in the quarter.", "half"),
    ("International sales were a quarter of total sales in 2021.", "a quarter"),
    ("About 33% of employees work in manufacturing.", "33%"),
    ("About 20% of revenue came from the services segment.", "20%"),
    ("Capital spending was a fifth of revenue.", "a fifth"),
    ("The foundation raised $0.33 million for local food banks.", "0.33"),
    ("The foundation raised a third of a million dollars for local food banks.", "a third"),
    ("Gross margin improved by 0.5% in the quarter.", "0.5%"),
    ("Gross margin improved by point five percent in the quarter.", "point five"),
    ("Return on equity was 1.5 times the industry average.", "1.5 times"),
    ("Return on equity was one and a half times the industry average.", "one and a half"),
    ("The dollar value of net orders rose 64% from a year earlier.", "64%"),
    ("Unit net orders increased 52%.", "52%"),
    ("The monthly absorption rate rose 45%.", "45%"),
])
def test_the_figure_stated_for_it_backs_the_claim(audit, sentence: str, figure: str) -> None:
    claim = audit(sentence, figure)
    assert claim.verdict in COVERED, (claim.verdict, claim.notes)
    assert claim.evidence, claim.notes  # cited through the fence gate


@pytest.mark.parametrize("sentence, figure", [
    ("Diluted EPS was $1.58 in the second quarter.", "1.58"),  # the year-ago quarter's, for this quarter
    ("Diluted EPS was $1.58 in the second quarter of 2022.", "1.58"),
    ("Diluted earnings per common share were $1.58 for the quarter.", "1.58"),
    ("Diluted EPS was $1.96 in the second quarter.", "1.96"),  # the quarter before's
    ("Diluted EPS was $2.14 in the first quarter.", "2.14"),
    ("Net interest margin was 3.12%, 41 basis points above the first quarter.", "41 basis"),
    ("Net interest margin was 3.12%, 18 basis points above the year-ago quarter.", "18 basis"),
    ("Net interest margin was 3.12%, 41 basis points higher than Q1.", "41 basis"),
    ("Online orders made up 40% of all orders in the quarter.", "40%"),
    ("Online orders made up a quarter of all orders in the quarter.", "a quarter"),
    ("International sales were a third of total sales in 2021.", "a third"),
    ("A third of total sales came from international markets.", "A third"),  # 'a third' is the employees'
    ("Online orders made up a third of all orders in the quarter.", "a third"),
    ("About a fifth of employees work in manufacturing.", "a fifth"),  # the services segment's share
    ("Capital spending was half of revenue.", "half"),
    ("The foundation raised half a million dollars for local food banks.", "half"),
    ("The foundation raised about $250,000 for local food banks.", "250,000"),
    ("Gross margin improved by point seven percent in the quarter.", "point seven"),
    ("Gross margin improved by 0.7% in the quarter.", "0.7%"),
    ("Return on equity was two and a half times the industry average.", "two and a half"),
    ("Return on equity was 2.5 times the industry average.", "2.5 times"),
    ("The monthly absorption rate rose 52%.", "52%"),  # unit net orders' change
    ("The monthly absorption rate rose 64%.", "64%"),  # the dollar value's
    ("Unit net orders rose 45%.", "45%"),  # the absorption rate's
    ("Net orders were up 45%.", "45%"),
])
def test_another_period_s_or_subject_s_figure_is_flagged(audit, sentence: str, figure: str) -> None:
    claim = audit(sentence, figure)
    assert claim.verdict in FLAGGED, (claim.verdict, claim.notes)
