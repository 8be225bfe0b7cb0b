"""Figures written out, checked as digits are (issue 10, stop 29), over a captured LangGraph run whose ToolNode returns
a call's prepared remarks: a decimal ('eighty-five point two billion dollars'), a fraction ('two and a half million',
'half a million', 'a third of'), a spelled range ('between six and eight percent') and 'one' as a figure ('one billion
dollars') back the claim that states them in digits or in words, and a claim of another figure is flagged."""

from __future__ import annotations

from pathlib import Path

import pytest

from tool_runs import COVERED, FLAGGED, one_section_auditor

REMARKS = """Prepared remarks

Services brought in eighty-five point two billion dollars in the quarter, a record for the segment.
Operating margin reached twelve point five percent for the quarter.
We expect organic sales to grow between six and eight percent next year.
Our foundation raised half a million dollars for local food banks.
Capital spending on the new warehouse was two and a half million dollars.
About a third of our revenue came from international markets in 2021.
Two-thirds of our employees work in manufacturing.
We issued one billion dollars of senior notes in the quarter.
We plan to open four to fifteen stores next year.
"""


@pytest.fixture
def audit(tmp_path: Path):
    """`audit(sentence, figure)`: the claim holding `figure` of a run whose ToolNode returns the remarks."""
    return one_section_auditor(tmp_path, REMARKS)


@pytest.mark.parametrize("sentence, figure", [
    ("Services brought in $85.2 billion in the quarter.", "85.2"),
    ("Services brought in $85 billion in the quarter.", "85"),  # the same figure at the precision shown
    ("Services brought in eighty-five point two billion dollars in the quarter.", "eighty-five"),
    ("Operating margin reached 12.5% for the quarter.", "12.5%"),
    ("Organic sales are expected to grow between 6% and 8% next year.", "6%"),
    ("Organic sales are expected to grow 6% to 8% next year.", "8%"),
    ("The foundation raised $500,000 for local food banks.", "500,000"),
    ("The foundation raised half a million dollars for local food banks.", "half"),
    ("Capital spending on the new warehouse was $2.5 million.", "2.5"),
    ("Capital spending on the new warehouse was two and a half million dollars.", "two and a half"),
    ("About 33% of revenue came from international markets in 2021.", "33%"),
    ("About a third of revenue came from international markets in 2021.", "a third"),
    ("About 67% of employees work in manufacturing.", "67%"),
    ("Two-thirds of employees work in manufacturing.", "Two-thirds"),
    ("The company issued $1 billion of senior notes in the quarter.", "$1 billion"),
    ("The company issued one billion dollars of senior notes in the quarter.", "one billion"),
    ("The company plans to open 4 to 15 new stores next year.", "15"),
])
def test_a_figure_the_source_writes_out_backs_the_same_figure(audit, sentence: str, figure: str) -> None:
    claim = audit(sentence, figure)
    assert claim.verdict in COVERED, (claim.verdict, claim.notes)
    assert claim.evidence, claim.notes  # cited through the fence gate


@pytest.mark.parametrize("sentence, figure", [
    ("Services brought in $82.5 billion in the quarter.", "82.5"),  # the decimal's digits swapped
    ("Services brought in eighty-two point five billion dollars in the quarter.", "eighty-two"),
    ("Services brought in $86 billion in the quarter.", "86"),  # not the figure at the precision shown
    ("Operating margin reached 15.2% for the quarter.", "15.2%"),
    ("Operating margin reached fifteen point two percent for the quarter.", "fifteen"),
    ("Organic sales are expected to grow between 5% and 8% next year.", "5%"),  # the wrong end of the range
    ("The foundation raised $700,000 for local food banks.", "700,000"),
    ("Capital spending on the new warehouse was $3.5 million.", "3.5"),
    ("Capital spending on the new warehouse was three and a half million dollars.", "three and a half"),
    ("About 40% of revenue came from international markets in 2021.", "40%"),
    ("About 60% of employees work in manufacturing.", "60%"),
    ("Three-quarters of employees work in manufacturing.", "Three-quarters"),
    ("The company issued $2 billion of senior notes in the quarter.", "$2 billion"),
    ("The company issued two billion dollars of senior notes in the quarter.", "two billion"),
])
def test_another_figure_is_flagged(audit, sentence: str, figure: str) -> None:
    claim = audit(sentence, figure)
    assert claim.verdict in FLAGGED, (claim.verdict, claim.notes)
