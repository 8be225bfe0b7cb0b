"""The adversarial pass (seed 002): each rule, through real ChatOpenAI calls recorded into cassettes."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from llm_helpers import HONEST, InFlight, chat_model, recorded

from pytest_auditfence.audit.adversarial import apply_verdict, parse_verdict, review_cascade, severity_at_or_above
from pytest_auditfence.audit.cascade import FenceGroup
from pytest_auditfence.audit.llm import DEFAULT_PRICES
from pytest_auditfence.audit.prompts import ADVERSARIAL_PROMPT_VERSION
from pytest_auditfence.cassettes import use_cassette
from pytest_auditfence.errors import AuditError, CassetteMissError
from pytest_auditfence.models import AdversarialVerdict, LlmFinding
from pytest_auditfence.testing import ScriptedOpenAIServer
from pytest_auditfence.testing.auditor_rules import AuditorRule, ClaimPlan, ReviewPlan

PLANS = {
    "margins improved": ClaimPlan(queries=("services revenue",), severity="medium", confidence=0.6,
                                  evidence="services revenue grew faster than hardware revenue"),
    "shift toward services": ClaimPlan(queries=("shift toward services",), severity="high", confidence=0.9,
                                       evidence="the shift toward services lifted the gross margin"),
    "component shortages eased": ClaimPlan(queries=("component shortages",), severity="critical",
                                           evidence="component shortages eased in the second half"),
    "competitors were hit": ClaimPlan(queries=("competitors",), severity="high", confidence=0.8,
                                      evidence="Competitors were hit much harder"),
}
REVIEWS = {
    # a favourable reading that would raise confidence
    "margins improved": ReviewPlan(revised_confidence=0.95, caveats=("services are one of several drivers",)),
    "shift toward services": ReviewPlan(stands=False, revised_confidence=0.4, recommendation="reject",
                                        weakening_evidence="the notes give no size for the margin effect"),
    "component shortages eased": ReviewPlan(fail=True),
    "competitors were hit": ReviewPlan(raw="I would keep this finding as it is."),
}


def review_run(lanes: tuple[Path, str], seen: dict[str, Any]) -> Any:
    async def run(llm: Any) -> Any:
        before = await FenceGroup.audit_cascade(trace_dir=lanes[0], final_document=lanes[1], llm=llm)
        seen["before"] = before
        return await review_cascade(before, llm=llm, concurrency=2)

    return run


def test_adversarial_rules_end_to_end(lanes: tuple[Path, str]) -> None:
    seen: dict[str, Any] = {}
    after = recorded("adversarial_rules", AuditorRule(PLANS, REVIEWS), review_run(lanes, seen))
    before = seen["before"]
    old = {f.id: f for f in before.result.llm.findings}
    new = {f.id: f for f in after.result.llm.findings}
    summary = after.result.llm.adversarial
    by_claim = {cid: [f for f in new.values() if f.claim_id == cid] for cid in ("c004", "c005", "c007", "c008")}
    # never silently dropped: same findings, same claim verdicts
    assert list(new) == list(old)
    assert [(c.id, c.verdict) for c in after.claims] == [(c.id, c.verdict) for c in before.claims]
    # confidence never increases, caveats noted
    margins = by_claim["c004"][0]
    assert (margins.confidence, margins.review.revised_confidence) == (0.6, 0.95)
    assert margins.notes == ["[Adversarial review - keep, with caveats] services are one of several drivers"]
    assert not margins.flagged_for_review
    # reject flags the finding for the reviewer; it stays, confidence goes down
    for finding in by_claim["c005"]:
        assert finding.flagged_for_review and finding.confidence == 0.4 and finding.finding == "supported"
        assert finding.notes[0].startswith("[Adversarial review - recommendation: reject] the notes give no size")
    assert set(summary.flagged) == {f.id for f in by_claim["c005"]}
    assert any("FLAGGED for the reviewer" in n for n in after.result.claims[4].notes)
    # a failed call and an unparsable answer leave the finding as it was, and are logged
    for finding in by_claim["c007"] + by_claim["c008"]:
        assert finding == old[finding.id]
    failed = [f.id for f in by_claim["c007"] + by_claim["c008"]]
    assert sorted(summary.failed) == sorted(failed)
    log = "\n".join(summary.log)
    assert log.count("model call failed") == 2 and log.count("the answer holds no JSON object") == 2
    # below the threshold: not examined
    low = [f.id for f in new.values() if f.severity == "low"]
    assert low and summary.below_threshold == low and not set(low) & set(summary.examined)
    # cost of the pass, on top of the audit's
    assert summary.prompt_version == ADVERSARIAL_PROMPT_VERSION and summary.input_tokens > 0
    price_in, price_out = DEFAULT_PRICES["gpt-4o-mini"]
    assert summary.cost_usd == pytest.approx((summary.input_tokens * price_in + summary.output_tokens * price_out) / 1e6)
    assert after.usage.input_tokens == before.usage.input_tokens + summary.input_tokens
    assert after.usage.cost_usd == pytest.approx(before.usage.cost_usd + summary.cost_usd)


def test_reviewed_findings_are_not_reviewed_again_and_concurrency_is_bounded(lanes: tuple[Path, str]) -> None:
    seen: dict[str, Any] = {}
    first = recorded("adversarial_rules", AuditorRule(PLANS, REVIEWS), review_run(lanes, seen))
    summary = first.result.llm.adversarial
    counting = InFlight(AuditorRule(PLANS, {}), hold=0.05)  # every review now succeeds

    with ScriptedOpenAIServer(rule=counting) as server:
        second = asyncio.run(review_cascade(first, llm=chat_model(server.base_url), concurrency=2))
        requested = len(server.requests)
    again = second.result.llm.adversarial
    assert sorted(again.already_reviewed) == sorted(set(summary.examined) - set(summary.failed))
    assert sorted(again.examined) == sorted(summary.failed) and requested == len(summary.failed)
    assert counting.most <= 2
    assert again.failed == [] and second.usage.input_tokens > first.usage.input_tokens
    for f in second.result.llm.findings:  # the earlier verdicts were kept, not replaced
        earlier = next(e for e in first.result.llm.findings if e.id == f.id)
        if earlier.review is not None and earlier.review.succeeded:
            assert f == earlier


def test_adversarial_flag_on_the_audit_uses_the_threshold(lanes: tuple[Path, str]) -> None:
    def run(llm: Any) -> Any:
        return FenceGroup.audit_cascade(trace_dir=lanes[0], final_document=lanes[1], llm=llm, adversarial=True,
                                        severity_threshold="high")

    cascade = recorded("adversarial_flag", AuditorRule(HONEST), run)
    summary = cascade.result.llm.adversarial
    high = [f.id for f in cascade.result.llm.findings if f.severity == "high"]
    assert summary.severity_threshold == "high" and summary.examined == high and len(high) == 2
    assert all(f.review is not None and f.review.succeeded for f in cascade.result.llm.findings if f.id in high)


def test_a_cassette_miss_in_the_review_propagates(lanes: tuple[Path, str], tmp_path: Path) -> None:
    seen: dict[str, Any] = {}
    first = recorded("adversarial_rules", AuditorRule(PLANS, REVIEWS), review_run(lanes, seen))
    with pytest.raises(CassetteMissError), use_cassette(tmp_path / "empty.yaml", "none"):
        asyncio.run(review_cascade(seen["before"], llm=chat_model("http://127.0.0.1:9/v1")))
    with pytest.raises(AuditError, match="no LLM findings"):
        from pytest_auditfence.audit.cascade import audit_cascade_sync

        asyncio.run(review_cascade(audit_cascade_sync(trace_dir=lanes[0], final_document=lanes[1]),
                                   llm=chat_model("http://127.0.0.1:9/v1")))
    assert first.result.llm.adversarial is not None


def finding(confidence: float = 0.7, **extra: Any) -> LlmFinding:
    return LlmFinding(id="f001", claim_id="c001", unit="llm:x", hop=1, claim="Margins improved.",
                      finding="supported", severity="high", confidence=confidence,
                      original_confidence=confidence, **extra)


@pytest.mark.parametrize(("answer", "error"), [
    ("no json here", "holds no JSON object"),
    ('{"stands": "yes", "revised_confidence": 0.5, "recommendation": "keep"}', "'stands' must be true or false"),
    ('{"stands": true, "revised_confidence": 1.5, "recommendation": "keep"}', "'revised_confidence' must be a number"),
    ('{"stands": true, "revised_confidence": 0.5, "recommendation": "delete"}', "'recommendation' must be one of"),
    ('{"stands": true, "revised_confidence": 0.5, "recommendation": "keep", "caveats": [1]}', "'caveats' must be"),
    ("[1, 2]", "holds no JSON object"),
])
def test_unparsable_verdicts_fail_and_change_nothing(answer: str, error: str) -> None:
    verdict = parse_verdict("f001", answer)
    assert not verdict.succeeded and error in (verdict.error or "") and verdict.raw_response == answer
    assert apply_verdict(finding(), verdict) == finding()


def test_verdict_parsing_and_application() -> None:
    fenced = '```json\n{"stands": false, "revised_confidence": 0.2, "recommendation": "refine", ' \
             '"caveats": "only one quarter", "weakening_evidence": "the source hedges"}\n```'
    verdict = parse_verdict("f001", fenced)
    assert verdict.succeeded and verdict.caveats == ["only one quarter"]
    refined = apply_verdict(finding(), verdict)
    assert refined.confidence == 0.2 and refined.flagged_for_review  # does not stand: the reviewer must look
    assert refined.notes == ["[Adversarial review - recommendation: refine] the source hedges only one quarter"]
    keep = AdversarialVerdict(finding_id="f001", stands=True, revised_confidence=0.99, succeeded=True)
    assert apply_verdict(finding(0.3), keep).confidence == 0.3 and apply_verdict(finding(0.3), keep).notes == []
    with pytest.raises(AuditError, match="applied to finding"):
        apply_verdict(finding(), keep.model_copy(update={"finding_id": "f002"}))
    assert severity_at_or_above("medium", "medium") and severity_at_or_above("critical", "high")
    assert not severity_at_or_above("low", "medium")
    with pytest.raises(AuditError, match="choose one of low, medium, high, critical"):
        severity_at_or_above("urgent", "medium")
