"""The gate ties each submission to its claim (issue 12): the attacks that used to pass, and the honest
submissions that must still pass. Every rejection names the rule it broke."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_auditfence.fence import Fence, Source
from pytest_auditfence.gate import (
    RULE_CLAIM_SPAN,
    RULE_DERIVATION,
    RULE_EVIDENCE_LENGTH,
    RULE_EVIDENCE_SUPPORTS,
    RULE_EVIDENCE_VERBATIM,
    RULE_SEARCH_FOR_CLAIM,
    RULES,
)

NEWS = (
    "headline: Halvorsen opens second plant in Gdansk\n"
    "body: The new plant will employ 800 people from next spring.\n"
    "12                              34\n"
    "Headcount rose 12% in 2024 across all regions.\n"
    "Revenue | 1,102 | 1,234\n"
    "Operating income | 160 | 198\n"
    "program: plant tours run daily for visitors\n"
)
BUYBACK = "The board approved a new share buyback program."
PLANT = "Halvorsen opened a second plant in Gdansk."
REVENUE = "Revenue grew 12% to $1.2 billion."
MARGIN = "The operating margin was 16.0%."
DOCUMENT = f"# Review\n\n{BUYBACK} {PLANT}\n\n{REVENUE} {MARGIN}\n"


@pytest.fixture
def fence(tmp_path: Path) -> Fence:
    (tmp_path / "news.txt").write_text(NEWS, encoding="utf-8")
    return Fence(tmp_path, [Source.from_file(tmp_path, "news.txt", node="news", kind="tool_call")], DOCUMENT)


def rule(reason: str | None) -> str | None:
    return None if reason is None else reason.split(":", 1)[0]


def test_evidence_of_another_claims_search_is_rejected(fence):
    fence.search("second plant in Gdansk")  # the search of the PLANT claim
    sub = fence.submit(BUYBACK, BUYBACK, "Halvorsen opens second plant in Gdansk", "supported")
    assert not sub.accepted and rule(sub.reason) == RULE_SEARCH_FOR_CLAIM


def test_evidence_that_does_not_support_the_claim_is_rejected_after_its_own_search(fence):
    fence.search("second plant in Gdansk")
    fence.search("board approved")  # the claim's own search finds nothing; it reuses the other results
    sub = fence.submit(BUYBACK, BUYBACK, "Halvorsen opens second plant in Gdansk", "supported")
    assert not sub.accepted and rule(sub.reason) == RULE_EVIDENCE_VERBATIM
    fence.search("program")  # shares a word with the claim and finds a line that says nothing of buybacks
    sub = fence.submit(BUYBACK, BUYBACK, "program: plant tours run daily for visitors", "supported")
    assert not sub.accepted and rule(sub.reason) == RULE_EVIDENCE_SUPPORTS


def test_the_honest_submission_of_the_same_fence_is_accepted(fence):
    fence.search("second plant")
    sub = fence.submit(PLANT, PLANT, "Halvorsen opens second plant in Gdansk", "supported")
    assert sub.accepted, sub.reason


def test_evidence_length_is_counted_on_normalised_text(fence):
    fence.search("12")
    sub = fence.submit(REVENUE, REVENUE, "12" + " " * 30 + "34", "supported")
    assert not sub.accepted and rule(sub.reason) == RULE_EVIDENCE_LENGTH and "(5 < 20" in sub.reason


def test_a_line_sharing_only_a_number_is_no_support(fence):
    fence.search("12%")
    sub = fence.submit(REVENUE, REVENUE, "Headcount rose 12% in 2024 across all regions.", "supported")
    assert not sub.accepted and rule(sub.reason) == RULE_EVIDENCE_SUPPORTS


def test_a_line_sharing_nothing_is_no_support(fence):
    fence.search("Gdansk")
    claim = "Halvorsen signed a supply deal with Gdansk."
    fence.set_document(f"{DOCUMENT}\n{claim}\n")
    sub = fence.submit(claim, claim, "body: The new plant will employ 800 people from next spring.", "supported")
    assert not sub.accepted and rule(sub.reason) in (RULE_EVIDENCE_VERBATIM, RULE_EVIDENCE_SUPPORTS)


def test_claim_in_document_must_be_the_claims_own_text(fence):
    fence.search("second plant")
    sub = fence.submit(PLANT, "in", "Halvorsen opens second plant in Gdansk", "supported")
    assert not sub.accepted and rule(sub.reason) == RULE_CLAIM_SPAN
    sub = fence.submit(PLANT, "Gdansk", "Halvorsen opens second plant in Gdansk", "supported")
    assert not sub.accepted and rule(sub.reason) == RULE_CLAIM_SPAN


def test_quantities_are_compared_after_normalisation(fence):
    fence.search("Revenue")
    sub = fence.submit(REVENUE, REVENUE, "Revenue | 1,102 | 1,234", "supported", atom="$1.2 billion")
    assert sub.accepted, sub.reason  # 1,234 in a table of millions is $1.2 billion at the claim's precision
    sub = fence.submit(REVENUE, REVENUE, "Revenue | 1,102 | 1,234", "supported", atom="12%")
    assert not sub.accepted and rule(sub.reason) == RULE_EVIDENCE_SUPPORTS and "12%" in sub.reason


def test_a_derivation_is_recomputed_from_operands_in_the_evidence(fence):
    fence.search("Operating income")
    evidence = "Operating income | 160 | 198"
    ok = fence.submit(MARGIN, MARGIN, evidence, "derived: 16.0%", atom="16.0%", formula="198 / 1,234 = 16.0%")
    assert ok.accepted, ok.reason
    wrong = fence.submit(MARGIN, MARGIN, evidence, "derived: 16.0%", atom="16.0%", formula="198 / 1,102 = 16.0%")
    assert not wrong.accepted and rule(wrong.reason) == RULE_DERIVATION
    foreign = fence.submit(MARGIN, MARGIN, evidence, "derived", atom="16.0%", formula="160 / 1,000 = 16.0%")
    assert foreign.accepted  # 160 is in the evidence and 160 / 1,000 is 16.0%
    not_claimed = fence.submit(MARGIN, MARGIN, evidence, "derived", atom="16.0%", formula="198 / 1,000 = 19.8%")
    assert not not_claimed.accepted and rule(not_claimed.reason) == RULE_DERIVATION
    no_operand = fence.submit(MARGIN, MARGIN, evidence, "derived", atom="16.0%", formula="48 / 300 = 16.0%")
    assert not no_operand.accepted and rule(no_operand.reason) == RULE_DERIVATION


def test_the_support_share_of_a_claim_without_quantities_is_settable(tmp_path: Path):
    (tmp_path / "notes.txt").write_text("Component shortages eased in the second half of the year.\n")
    sources = [Source.from_file(tmp_path, "notes.txt", node="notes", kind="tool_call")]
    claim = "Component shortages eased sharply for suppliers in Asia."  # 6 content words, 3 in the line
    evidence = "Component shortages eased in the second half"
    lenient = Fence(tmp_path, sources, claim, min_support_share=0.5)
    lenient.search("component shortages")
    assert lenient.submit(claim, claim, evidence, "supported").accepted
    strict = Fence(tmp_path, sources, claim, min_support_share=0.75)
    strict.search("component shortages")
    sub = strict.submit(claim, claim, evidence, "supported")
    assert not sub.accepted and rule(sub.reason) == RULE_EVIDENCE_SUPPORTS and "min_support_share" in sub.reason


def test_a_contradiction_must_be_about_the_claims_subject(fence):
    fence.search("program")
    sub = fence.submit(BUYBACK, BUYBACK, "program: plant tours run daily for visitors", "contradicted")
    assert sub.accepted  # shares 'program': the gate cannot judge more, and contradicted never counts as covered
    fence.search("Gdansk plant")
    claim = "Gdansk hosts the second plant."
    fence.set_document(claim)
    assert not fence.submit(claim, claim, "Headcount rose 12% in 2024 across all regions.", "contradicted").accepted


def test_every_rejection_names_its_rule(fence):
    attempts = [
        (BUYBACK, BUYBACK, "Halvorsen opens second plant in Gdansk", "supported"),
        (REVENUE, REVENUE, "Headcount rose 12% in 2024 across all regions.", "supported"),
        (PLANT, "in", "Halvorsen opens second plant in Gdansk", "supported"),
        (PLANT, PLANT, "12" + " " * 30 + "34", "supported"),
    ]
    reasons = [fence.submit(*a).reason for a in attempts]
    fence.search("plant")
    fence.search("12%")
    reasons += [fence.submit(*a).reason for a in attempts]
    assert all(r is not None and rule(r) in RULES for r in reasons), reasons


@pytest.mark.parametrize("formula, problem", [
    ("((1,234 / 1,000) ** (1 / 3) - 1) × 100 = 7.3%", None),  # a compound annual growth rate: a root
    ("((1,234 / 1,000) ** (1 / 3) - 1) × 100 = 9.3%", "give"),  # miscomputed: re-computed, rejected
    ("(1,234 ** 2) / 1,000 = 7.3%", "not arithmetic"),  # a power beyond a root is never computed
])
def test_the_gate_recomputes_a_root_and_no_other_power(formula, problem):
    from pytest_auditfence.gate import derivation_problem

    claim = "Revenue grew at a 7.3% CAGR from FY2021 to FY2024."
    found = derivation_problem(claim, "Revenue | 1,000 | 1,234", formula, atom=formula.rpartition("= ")[2])
    assert (found is None) if problem is None else (found is not None and problem in found), found
