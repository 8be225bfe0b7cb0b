"""Counts with their noun (issue 10, stop 25), over a captured LangGraph run: a count names the table row 'Number of
<noun>' ('6 countries' is checked against it, and a wrong count is contradicted), and a source count of another noun
is no evidence for it ('acquire 130 stores' by 'targeting over 130 total locations')."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_auditfence import Verdict
from tool_runs import COVERED, FLAGGED, one_section_auditor

OPERATIONS = """Operating data

| | 2019 | 2018 |
|---|---|---|
| Number of countries | 6 | 5 |
| Number of stores | 120 | 110 |
| Revenue | 5,400 | 5,100 |

Today we signed an agreement to acquire 11 stores in South Carolina.
We plan to open 12 new stores in 2022, targeting over 130 total locations by the end of 2026.
Our target is to have over 140 stores in operation from coast to coast by the end of 2027.
Plant 3 or 4 marigolds with each tomato to help keep bugs away.
Lay two intersecting chalk lines over the floor. Use a square so each angle is 90 degrees. Peel the paper backing off
your first tile. Press it to the floor at one corner of the intersection, so two edges of the tile meet the lines.
"""


@pytest.fixture
def audit(tmp_path: Path):
    """`audit(sentence, figure)`: the claim holding `figure` of a run whose ToolNode returns the section."""
    return one_section_auditor(tmp_path, OPERATIONS)


@pytest.mark.parametrize("sentence, figure", [
    ("In 2019 the company operated in 6 countries.", "6"),
    ("In 2019 the company operated in six countries.", "six"),
    ("In 2019 the company operated 120 stores.", "120"),
    ("The company targets over 130 total locations by the end of 2026.", "130"),
    ("The company aims to have over 140 stores in operation by the end of 2027.", "140"),
    ("Plant 4 marigold seedlings with each tomato to help keep bugs away.", "4"),  # 'marigolds' counts them too
])
def test_a_count_of_its_own_noun_is_verified(audit, sentence: str, figure: str) -> None:
    claim = audit(sentence, figure)
    assert claim.verdict in COVERED, (claim.verdict, claim.notes)


@pytest.mark.parametrize("sentence, figure", [
    ("In 2019 the company operated in 7 countries.", "7"),
    ("In 2019 the company operated in seven countries.", "seven"),
    ("In 2019 the company operated 125 stores.", "125"),
])
def test_a_wrong_count_of_a_number_row_is_contradicted(audit, sentence: str, figure: str) -> None:
    claim = audit(sentence, figure)
    assert claim.verdict is Verdict.CONTRADICTED, (claim.verdict, claim.notes)
    assert "Number of" in " ".join(claim.notes)  # the note names the row it read


def test_a_count_of_another_noun_is_no_evidence(audit) -> None:
    claim = audit("The company signed an agreement to acquire 130 stores in South Carolina.", "130")
    assert claim.verdict in FLAGGED, (claim.verdict, claim.notes)


def test_a_count_in_words_is_not_contradicted_by_a_figure_of_other_things(audit) -> None:
    # 'two edges' by '90 degrees' of the same sentence: no count of edges, so nothing contradicts the claim
    claim = audit("Press the first tile to the floor at one corner of the intersection, making sure two perpendicular "
                  "edges of the tile are bordered by the two lines.", "two")
    assert claim.verdict not in FLAGGED, (claim.verdict, claim.notes)
