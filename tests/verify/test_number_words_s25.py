"""Numbers written as words (issue 10, stop 25), over a captured LangGraph run: a count before its noun ('five stores')
and a spelled figure with its unit ('twenty percent') are read in a claim, and in a source apart from the index's
figures (asked only when no figure the index reads matched), so a spelled claim finds a digit source and a digit
claim a spelled one; a wrong count of the source's own subject is flagged, also when the claim says 'they'."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_auditfence import Verdict
from tool_runs import COVERED, FLAGGED, one_section_auditor

NETWORK = """Store network

Today we signed an agreement to acquire 11 stores and one collision center in South Carolina.
We plan to open five new stores by the end of this year and 12 new stores in 2022.
Membership revenue grew twenty percent in the year, the best result of the decade.
The board of directors has nine members, two of whom joined this year.
"""

@pytest.fixture
def audit(tmp_path: Path):
    """`audit(sentence, figure)`: the claim holding `figure` of a run whose ToolNode returns the section."""
    return one_section_auditor(tmp_path, NETWORK)


@pytest.mark.parametrize("sentence, figure", [
    ("The company plans to open five new stores by the end of this year.", "five"),  # words by words
    ("The company plans to open 5 new stores by the end of this year.", "5"),  # digits by words
    ("They signed an agreement to acquire eleven stores and one collision center.", "eleven"),  # words by digits
    ("Membership revenue grew 20% in the year.", "20%"),  # a line without digits
    ("Membership revenue grew twenty percent in the year.", "twenty"),
    ("The board of directors has 9 members.", "9"),
])
def test_a_figure_in_words_or_digits_is_verified_by_either(audit, sentence: str, figure: str) -> None:
    claim = audit(sentence, figure)
    assert claim.verdict in COVERED, (claim.verdict, claim.notes)
    assert claim.evidence, claim.notes  # cited through the fence gate


@pytest.mark.parametrize("sentence, figure", [
    ("They signed an agreement to acquire five stores and one collision center.", "five"),
    ("They signed an agreement to acquire 7 stores and one collision center.", "7"),  # 'they' names no subject
    ("Membership revenue grew 30% in the year.", "30%"),
    # stop 26: a spelled figure with a unit that no source states, in digits or in words, is flagged as its digits are
    ("Membership revenue grew thirty percent in the year.", "thirty"),
])
def test_a_wrong_figure_is_flagged(audit, sentence: str, figure: str) -> None:
    claim = audit(sentence, figure)
    assert claim.verdict in FLAGGED, (claim.verdict, claim.notes)


@pytest.mark.parametrize("sentence, figure", [
    # a count the sources state for no noun of the claim's is the writer's, not checked (as a digit count is)
    ("The company named three priorities for the year.", "three"),
    # another subject's count is no contradiction, pronoun or not
    ("They opened 7 restaurants in the year.", "7"),
])
def test_a_figure_no_source_states_is_not_flagged(audit, sentence: str, figure: str) -> None:
    claim = audit(sentence, figure)
    assert claim.verdict is Verdict.UNVERIFIABLE, (claim.verdict, claim.notes)


@pytest.mark.parametrize("text, counts", [
    ("acquire five stores and one collision center", [5.0]),
    ("Twenty-five people joined", [25.0]),
    ("four to fifteen stores", [4.0, 15.0]),  # both ends of a range of counts (stop 29)
    ("two-thirds of people", []),
    ("the twenty-first century stores", []),
    ("ten thousand people", []),
    ("two of our mills", []),
    ("in two weeks, five times", []),
    ("one of the stores", []),
])
def test_spelled_counts_are_numbers_before_their_noun(text: str, counts: list[float]) -> None:
    from pytest_auditfence.claims.quantities import spelled_counts

    assert [q.value for q in spelled_counts(text)] == counts
