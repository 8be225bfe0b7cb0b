"""The agent loop audited by the LLM auditor, adversarial pass on, every model call replayed from a cassette.

Re-record (after changing the app, its prompt or the script): see examples/README.md, "Re-recording".
"""

from __future__ import annotations

from pathlib import Path

import agent_loop_app
import pytest
from agent_loop_script import API_KEY, FINAL_ANSWER, PLANTED, QUESTION

from pytest_auditfence import assert_claim_traced

CASSETTES = Path(__file__).parent / "cassettes" / "test_agent_loop_llm_audit"
SEMANTIC = {
    "Halvorsen opened a second manufacturing plant in Gdansk.": "Halvorsen opens second plant in Gdansk",
    "The company won a large robot order from a Nordic grocery chain.":
        "Halvorsen wins 310-robot order from Nordic grocer",
    "The board raised the dividend in December.": "Halvorsen raises dividend to $0.24 a share",
}


@pytest.fixture
def fence_config():
    """The explicit `fence_audit()` below audits the same way as the marker: LLM auditor, adversarial pass."""
    return {"mode": "llm", "adversarial": True}


def run_agent(agent_llm, fence_snapshot):
    result = agent_loop_app.build_app(agent_llm).invoke({"messages": [("user", QUESTION)]},
                                                        config=fence_snapshot.config())
    assert [m.type for m in result["messages"]] == ["human"] + ["ai", "tool"] * 3 + ["ai"]
    answer = result["messages"][-1].content
    assert answer == FINAL_ANSWER
    fence_snapshot.set_report(answer)


@pytest.mark.fence(mode="llm", adversarial=True, min_coverage=0.8, max_hallucinations=1)
def test_agent_answer_passes_the_fence_with_one_known_hallucination(fence_snapshot, agent_llm):
    run_agent(agent_llm, fence_snapshot)
    # after the body the marker audits the run: 5 of 6 claims covered >= 0.8, 1 hallucination allowed


def test_the_invented_claim_is_caught_and_the_node_that_wrote_it_named(fence_snapshot, fence_audit, agent_llm):
    run_agent(agent_llm, fence_snapshot)
    cascade = fence_audit()
    claims = {c.claim: c for c in cascade.claims}
    # figures: the deterministic pass traces them to the tools' JSON
    for figure in ("$1,234 million", "$151 million", "41.3%", "$2.85"):
        claim = next(c for c in cascade.claims if figure in c.claim)
        assert (claim.verdict.value, claim.verdict_source) == ("verified", "deterministic"), figure
    assert_claim_traced(cascade, "revenue of $1,234 million", to="get_company_fundamentals")
    # semantic claims: only the LLM auditor can judge them. Its evidence is verbatim, first in the tools
    # node's output the agent read, then one hop deeper in the raw get_news_headlines output.
    for text, headline in SEMANTIC.items():
        claim = claims[text]
        assert (claim.verdict.value, claim.verdict_source, claim.introduced_by) == ("verified", "llm", None)
        assert [e.file.split("/")[0] for e in claim.evidence] == ["nodes", "tools"]
        assert all(e.text.endswith(headline) for e in claim.evidence)
        assert [link.kind for link in cascade.trace_claim(claim.id).links] == ["report", "node_output", "tool_call"]
    # the planted claim: nothing backs it, and the node that wrote it is named
    planted = claims[PLANTED]
    assert (planted.verdict.value, planted.verdict_source, planted.introduced_by) == ("unsupported", "llm", "agent")
    assert planted.introduced_round == 4  # the answer: the fourth round of the agent loop, after three tool calls
    assert (cascade.coverage.numerator, cascade.coverage.denominator) == (5, 6)
    assert (cascade.hallucinations.numerator, cascade.hallucinations.denominator) == (1, 6)

    # the adversarial pass reviewed the medium and high findings; confidence never went up
    findings = [f for f in cascade.result.llm.findings if f.hop == 1]
    assert len(findings) == 4 and all(f.review is not None and f.review.succeeded for f in findings)
    assert all(f.confidence <= f.original_confidence for f in findings)
    by_claim = {f.claim: f for f in findings}
    dividend = by_claim["The board raised the dividend in December."]
    assert (dividend.review.recommendation, dividend.confidence) == ("refine", 0.6)
    invented = by_claim[PLANTED]
    assert (invented.finding, invented.review.recommendation, invented.confidence) == ("unsupported", "keep", 0.85)
    assert cascade.complete and cascade.usage.input_tokens > 0


def test_the_committed_cassettes_hold_every_call_and_no_secret():
    files = sorted(CASSETTES.glob("*.yaml"))
    assert [f.stem for f in files] == ["test_agent_answer_passes_the_fence_with_one_known_hallucination",
                                       "test_the_invented_claim_is_caught_and_the_node_that_wrote_it_named"]
    for file in files:
        text = file.read_text(encoding="utf-8")
        for call in ("get_company_fundamentals", '"submit"', "Claim:"):  # the agent, the auditor, the reviewer
            assert call in text, (file.name, call)
        for secret in (API_KEY, "sk-proj", "Bearer", "authorization", "org-scripted", "scripted-session"):
            assert secret not in text, (file.name, secret)
