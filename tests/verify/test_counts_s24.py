"""Counts with their noun (issue 10, stop 24), over a captured LangGraph run: a count after another count's noun
('we operated 12 stores in 5 countries') shares that count's verb, so 'operated in 5 countries' is verified while a
wrong count of countries stays flagged."""

from __future__ import annotations

from functools import partial
from pathlib import Path

import pytest

from pytest_auditfence import Verdict
from tool_runs import section_auditor

NETWORK = """Store network

At December 31, 2019 we operated 12 stores in 5 countries and reported 4 operating segments. We employed 830 people.
During the year we plan to open three new stores in Spain and 2 new stores in Portugal.
"""

COVERED = (Verdict.VERIFIED, Verdict.DERIVED)
FLAGGED = (Verdict.UNSUPPORTED, Verdict.CONTRADICTED, Verdict.MISATTRIBUTED)


@pytest.fixture
def audit(tmp_path: Path):
    """`audit(sentence, figure)`: the claim holding `figure` of a run whose ToolNode returns the section."""
    return partial(section_auditor(tmp_path, {"network": NETWORK}), "network")


@pytest.mark.parametrize("sentence, figure", [
    ("At December 31, 2019 the company operated in 5 countries.", "5"),
    ("At December 31, 2019 the company operated 12 stores.", "12"),
    ("The company plans to open 2 new stores in Portugal.", "2"),
])
def test_a_count_by_its_own_verb_is_verified(audit, sentence: str, figure: str) -> None:
    claim = audit(sentence, figure)
    assert claim.verdict in COVERED, (claim.verdict, claim.notes)


def test_a_wrong_count_is_flagged(audit) -> None:
    claim = audit("At December 31, 2019 the company operated in 7 countries.", "7")
    assert claim.verdict in FLAGGED, (claim.verdict, claim.notes)

