"""The financial pipeline under the fence: the clean run passes, the fabricated run fails naming each plant.

Each planted fabrication is asserted with its verdict and the node that introduced it; chains are golden files.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from financial_app import PLANTED, build_app

from pytest_auditfence import Cascade, FenceGroup, Snapshot, Verdict, assert_claim_traced, assert_traceable

REQUEST = {"messages": [("user", "Analyze HALV")]}
# kind of planted fabrication (financial_app.PLANTED) -> the verdict the audit must give it
EXPECTED_VERDICT = {
    "specialist_invented": Verdict.UNSUPPORTED,  # no tool ever returned the figure
    "synthesizer_altered": Verdict.CONTRADICTED,  # the sub-report holds another value for the same subject
    "misattributed": Verdict.MISATTRIBUTED,  # the figure is real but not in the source the sentence cites
}


def _claim(cascade, sentence):
    (claim,) = [c for c in cascade.claims if sentence.rstrip(".") in c.claim]
    return claim


@pytest.fixture
def fabricated(fence_snapshot, fence_audit):
    result = build_app(fabricate=True).invoke(REQUEST, config=fence_snapshot.config())
    fence_snapshot.set_report(result["messages"][-1].content)
    return fence_audit()  # audits the report recorded with set_report


# -- the clean pipeline ---------------------------------------------------------------------------------


@pytest.mark.fence(min_coverage=1.0, max_hallucinations=0)
def test_clean_report_is_traceable(fence_snapshot):
    result = build_app().invoke(REQUEST, config=fence_snapshot.config())
    fence_snapshot.set_report(result["messages"][-1].content)


def test_clean_report_evidence_chains(fence_snapshot, fence_audit, chain_snapshot):
    result = build_app().invoke(REQUEST, config=fence_snapshot.config())
    cascade = fence_audit(final_document=result["messages"][-1].content)
    assert_traceable(cascade, min_coverage=1.0, max_hallucinations=0)
    # a rescaled figure and a derived one, each traced to the filings tool that returned the inputs
    assert_claim_traced(cascade, "Revenue reached $1.2 billion", to="get_income_statement")
    assert cascade.trace_claim("up 12.0% from FY2023").verdict is Verdict.DERIVED
    assert cascade.evidence_chains() == chain_snapshot


# -- the fabricated pipeline: the failure is the thing under test ----------------------------------------


def test_fabricated_report_fails_the_fence_naming_each_planted_claim_and_node(fabricated):
    with pytest.raises(AssertionError) as failure:
        assert_traceable(fabricated, min_coverage=0.95, max_hallucinations=0)
    message = str(failure.value)
    assert message.startswith("fence audit failed: ")
    for planted in PLANTED:
        verdict = EXPECTED_VERDICT[planted["kind"]].value
        assert f'{verdict}: "{planted["sentence"]}"\n    introduced by: {planted["node"]} (round 1)\n' in message


def test_only_the_planted_claims_fail(fabricated):
    failing = sorted(c.claim for c in fabricated.failing_claims())
    assert failing == sorted(_claim(fabricated, p["sentence"]).claim for p in PLANTED)
    assert fabricated.hallucinations.numerator == len(PLANTED)


@pytest.mark.parametrize("planted", PLANTED, ids=[p["kind"] for p in PLANTED])
def test_planted_fabrication_is_named_with_its_verdict_and_origin(fabricated, chain_snapshot, planted):
    claim = _claim(fabricated, planted["sentence"])
    assert (claim.verdict, claim.introduced_by) == (EXPECTED_VERDICT[planted["kind"]], planted["node"])
    assert fabricated.policy.is_hallucination(claim.verdict)
    with pytest.raises(AssertionError) as failure:
        assert_claim_traced(fabricated, planted["sentence"])
    assert f"is {claim.verdict.value}, not traced" in str(failure.value)
    assert f"introduced by: {planted['node']}" in str(failure.value)
    assert fabricated.trace_claim(claim) == chain_snapshot  # the chain down to where it stops


@pytest.mark.fence(min_coverage=0.95, max_hallucinations=0, report_only=True)
def test_fabricated_run_in_the_session_report(fence_snapshot):
    # report_only: audited and listed (--fence-report, summary) with its failing claims, never failed
    result = build_app(fabricate=True).invoke(REQUEST, config=fence_snapshot.config())
    fence_snapshot.set_report(result["messages"][-1].content)


def test_invented_figure_chain_stops_at_the_specialist_that_wrote_it(fabricated):
    chain = fabricated.trace_claim("2.7 million shares")
    assert [link.node for link in chain.links] == ["__report__", "synthesizer", "price_history"]
    assert not chain.reaches_raw_data  # no tool output holds it


# -- the same engine outside pytest, and persistence ------------------------------------------------------


async def audit_outside_pytest(trace_dir: Path) -> Cascade:
    snap = Snapshot(trace_dir)
    result = await build_app(fabricate=True).ainvoke(REQUEST, config=snap.config())
    report = result["messages"][-1].content
    snap.set_report(report)
    snap.finalize()
    return await FenceGroup.audit_cascade(
        manifest=snap.load_manifest(), trace_dir=snap.trace_dir, final_document=report, llm=None
    )


def test_async_run_outside_pytest_gives_the_same_audit(fabricated, tmp_path):
    cascade = asyncio.run(audit_outside_pytest(tmp_path / "trace"))
    assert cascade.to_json() == fabricated.to_json()  # byte-identical: no timestamps, ids or paths


def test_audit_saved_as_json_reloads_equal(fabricated, tmp_path):
    fabricated.save(tmp_path / "audit.json")
    reloaded = Cascade.load(tmp_path / "audit.json")
    assert reloaded == fabricated
    assert reloaded.trace_claim("2.7 million shares") == fabricated.trace_claim("2.7 million shares")
