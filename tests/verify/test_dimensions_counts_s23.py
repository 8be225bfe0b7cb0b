"""Issue 10, trust and units (stop 23, branch 10u), over real captured runs: percent and percentage points are
different dimensions (basis points are hundredths of a point); a small whole number with the noun it counts ('5
operating segments') is a claimed figure, checked like any other; a claim's range between two balance dates names
only the roll-forward block between them, not the year of its first date."""

from __future__ import annotations

import pytest

from pytest_auditfence import Verdict
from tool_runs import section_auditor

COVERED = (Verdict.VERIFIED, Verdict.DERIVED)
FLAGGED = (Verdict.UNSUPPORTED, Verdict.CONTRADICTED, Verdict.MISATTRIBUTED)

MARGIN = """Results of operations

In 2019 operating margin widened by 5 percentage points to 18.4% of revenue. Revenue grew 12% to $4,100 million.
"""

NETWORK = """Store network

At December 31, 2019 we operated 12 stores in 5 countries and reported 4 operating segments. We employed 830 people.
"""

RSU_CSV = """Restricted stock units
,,RSUs & PRSUs Outstanding
,Number of Shares,Weighted Average Grant Date Fair Value
,(in thousands),
"Nonvested at January 1, 2017",98,$23.52
Granted,132,19.74
Vested,(43),20.44
Forfeited,(19),—
"Nonvested at January 1, 2018",168,21.56
Granted,110,11.90
Vested,(77),19.18
Forfeited,(18),—
"Nonvested at December 30, 2018",183,17.22
Granted,353,10.77
Vested,(118),14.48
Forfeited,(41),—
"Nonvested at December 29, 2019",377,$12.55
"""

DOCUMENTS = {"margin": MARGIN, "network": NETWORK, "rsu": RSU_CSV}


@pytest.fixture
def audit(tmp_path):
    return section_auditor(tmp_path, DOCUMENTS)


# -- percent, percentage points and basis points ------------------------------------------------------------------

def test_points_back_a_claim_in_points_or_basis_points(audit):
    assert audit("margin", "Operating margin widened by 5 percentage points in 2019.", "5").verdict in COVERED
    assert audit("margin", "Operating margin widened by 500 basis points in 2019.", "500").verdict in COVERED


@pytest.mark.parametrize("sentence", ["Operating margin widened by 5% in 2019.",
                                      "Operating margin widened by 5 percent in 2019."])
def test_points_are_no_evidence_for_a_percent(audit, sentence):
    claim = audit("margin", sentence, "5")
    assert claim.verdict in FLAGGED, (claim.verdict, claim.notes)


def test_a_percent_is_no_evidence_for_points(audit):
    assert audit("margin", "Revenue grew 12% in 2019.", "12%").verdict in COVERED
    claim = audit("margin", "Revenue grew 12 percentage points in 2019.", "12")
    assert claim.verdict in FLAGGED, (claim.verdict, claim.notes)
    claim = audit("margin", "Revenue grew 1,200 basis points in 2019.", "1,200")
    assert claim.verdict in FLAGGED, (claim.verdict, claim.notes)


# -- counts with their counted noun -------------------------------------------------------------------------------

@pytest.mark.parametrize("sentence, figure", [
    ("The company reported 4 operating segments in 2019.", "4"),
    ("The company had stores in 5 countries in 2019.", "5"),
])
def test_a_true_count_is_checked_and_verified(audit, sentence, figure):
    claim = audit("network", sentence, figure)
    assert claim.verdict in COVERED, (claim.verdict, claim.notes)


@pytest.mark.parametrize("sentence, figure", [
    ("The company reported 6 operating segments in 2019.", "6"),
    ("At December 31, 2019 the company operated in 7 countries.", "7"),
    ("At December 31, 2019 the company operated 3 stores.", "3"),
])
def test_a_wrong_count_is_flagged_not_left_unchecked(audit, sentence, figure):
    claim = audit("network", sentence, figure)
    assert claim.verdict in FLAGGED, (claim.verdict, claim.notes)


def test_a_count_no_source_states_is_left_unchecked(audit):
    """A count the writer made ('3 priorities', of a list) is no figure to look up: not flagged, not verified."""
    claim = audit("network", "In 2019 the company set 3 priorities for its stores.", "3")
    assert claim.verdict is Verdict.UNVERIFIABLE, (claim.verdict, claim.notes)
    assert any("small unit-less numbers not checked: 3" in note for note in claim.notes)


# -- a range between two balance dates names the block between them ----------------------------------------------

RANGE_2019 = "between December 30, 2018 and December 29, 2019"
RANGE_2018 = "between January 1, 2018 and December 30, 2018"


@pytest.mark.parametrize("row, true, other_block", [
    ("vested", "-118", "-77"), ("granted", "353", "110"), ("forfeited", "-41", "-18")])
def test_a_range_between_balance_dates_names_only_its_block(audit, row, true, other_block):
    sentence = f"The number of nonvested shares {row} {RANGE_2019} was {{}} thousand."
    claim = audit("rsu", sentence.format(true), true)
    assert claim.verdict in COVERED, (claim.verdict, claim.notes)
    claim = audit("rsu", sentence.format(other_block), other_block)
    assert claim.verdict in FLAGGED, (claim.verdict, claim.notes)


def test_the_earlier_range_names_the_earlier_block(audit):
    sentence = f"The number of nonvested shares granted {RANGE_2018} was {{}} thousand."
    assert audit("rsu", sentence.format("110"), "110").verdict in COVERED
    claim = audit("rsu", sentence.format("353"), "353")
    assert claim.verdict in FLAGGED, (claim.verdict, claim.notes)
