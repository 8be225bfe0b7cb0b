"""The LLM auditor audits a looping node round by round: each round only against what existed when it began.

A real compiled graph whose `draft` node runs twice (round 2 calls a tool, round 1 did not), audited by
ChatOpenAI over HTTP to the scripted server, recorded once and replayed offline (tests/llm/cassettes).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from llm_helpers import recorded
from llm_pipelines import GUESSED, INVENTED, TRUE_PLANT, capture_drafts

from pytest_auditfence import assert_traceable
from pytest_auditfence.audit.cascade import FenceGroup
from pytest_auditfence.models import Verdict
from pytest_auditfence.testing.auditor_rules import AuditorRule, ClaimPlan

PLANS = {
    "Japanese market": ClaimPlan(queries=("Japanese market",), evidence=INVENTED.removesuffix("."),
                                 severity="high"),
    "share buyback": ClaimPlan(queries=("share buyback",), evidence=GUESSED.removesuffix("."), severity="high"),
    "second plant": ClaimPlan(queries=("second plant",), evidence=TRUE_PLANT.removesuffix(".")),
}


def _claims(cascade: Any, text: str) -> list[Any]:
    return [c for c in cascade.claims if c.claim == text]


def test_the_llm_auditor_names_the_round_that_wrote_a_planted_sentence(tmp_path: Path) -> None:
    trace, document = capture_drafts(tmp_path / "trace")

    def audit(llm: Any) -> Any:
        return FenceGroup.audit_cascade(trace_dir=trace, final_document=document, llm=llm)

    cascade = recorded("looping_drafts", AuditorRule(PLANS), audit)

    # true: round 2 wrote it from round 2's own tool call
    [plant] = _claims(cascade, TRUE_PLANT)
    assert (plant.verdict, plant.verdict_source, plant.introduced_by) == (Verdict.VERIFIED, "llm", None)
    assert [e.file for e in plant.evidence] == ["tools/draft/r2.fetch_briefing.1.txt"]

    # invented in round 1, repeated by round 2: round 2 was given it, so the trail goes back to round 1
    invented = _claims(cascade, INVENTED)
    assert len(invented) == 2
    for claim in invented:
        assert claim.verdict is Verdict.UNSUPPORTED and claim.verdict_source == "llm"
        assert (claim.introduced_by, claim.introduced_round) == ("draft", 1)
        chain = cascade.trace_claim(claim.id)
        assert (chain.introduced_by, chain.introduced_round) == ("draft", 1)
        assert [(link.file, link.step) for link in chain.links][1:] == [("nodes/draft/r1.output.txt", "draft r1")]

    # written by round 1 before round 2's tool returned it: the later tool output does not back round 1
    [guessed] = _claims(cascade, GUESSED)
    assert guessed.verdict is Verdict.UNSUPPORTED
    assert (guessed.introduced_by, guessed.introduced_round) == ("draft", 1)
    assert not any(e.kind == "tool_call" for e in cascade.trace_claim(guessed.id).links)

    # each round is its own unit: round 1's sources hold nothing round 2 or its tool wrote
    units = {u.unit: u for u in cascade.result.llm.units}
    assert set(units) == {"llm:draft r1", "llm:draft r2", "llm:draft r1:output"}
    round_one = cascade.group.unit("llm:draft r1")
    assert not any("r2." in source for source in round_one.sources), round_one.sources
    with pytest.raises(AssertionError) as failure:
        assert_traceable(cascade, max_hallucinations=0)
    assert "introduced by: draft (round 1)" in str(failure.value)
