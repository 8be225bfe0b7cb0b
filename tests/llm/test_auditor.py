"""The LLM auditor through the fence: real ChatOpenAI over HTTP to the scripted server, recorded, replayed offline."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from llm_helpers import API_KEY, CASSETTES, HONEST, InFlight, chat_model, recorded
from llm_pipelines import capture_lanes, report

from pytest_auditfence.audit.cascade import FenceGroup, audit_cascade_sync
from pytest_auditfence.audit.llm import DEFAULT_PRICES, price_for
from pytest_auditfence.audit.prompts import PROMPT_VERSION
from pytest_auditfence.cassettes import use_cassette
from pytest_auditfence.errors import AuditError, CassetteMissError
from pytest_auditfence.fence import REASON_NO_MATCH, REASON_NO_SEARCH, REASON_NOT_IN_DOCUMENT
from pytest_auditfence.models import Verdict
from pytest_auditfence.testing import ChatRequest, Reply, ScriptedOpenAIServer
from pytest_auditfence.testing.auditor_rules import AuditorRule, ClaimPlan

def audit(lanes: tuple[Path, str], **options: Any) -> Any:
    trace, document = lanes

    def run(llm: Any) -> Any:
        return FenceGroup.audit_cascade(trace_dir=trace, final_document=document, llm=llm, **options)

    return run


def by_id(cascade: Any) -> dict[str, Any]:
    return {c.id: c for c in cascade.claims}


def test_clean_audit_traces_semantic_claims_to_raw_data_and_replays_byte_identical(lanes: tuple[Path, str]) -> None:
    cascade = recorded("clean_audit", AuditorRule(HONEST), audit(lanes))
    claims = by_id(cascade)
    deterministic = by_id(audit_cascade_sync(trace_dir=lanes[0], final_document=lanes[1]))
    # atom-bearing and heading claims keep their deterministic verdicts
    for cid in ("c001", "c002", "c003", "c006"):
        assert claims[cid] == deterministic[cid]
    assert claims["c002"].verdict is Verdict.UNSUPPORTED and claims["c002"].verdict_source == "deterministic"
    for cid in ("c004", "c005", "c007"):
        claim = claims[cid]
        assert (claim.verdict, claim.verdict_source, claim.introduced_by) == (Verdict.VERIFIED, "llm", None)
        assert [e.file.split("/")[0] for e in claim.evidence] == ["nodes", "tools"]  # research output, then raw
        chain = cascade.trace_claim(cid)
        assert chain.reaches_raw_data and [lk.kind for lk in chain.links] == ["report", "node_output", "tool_call"]
        for evidence in claim.evidence:  # verbatim in the captured file at the recorded offset
            text = (lanes[0] / evidence.file).read_text()
            assert text[evidence.offset:evidence.offset + len(evidence.text)] == evidence.text
    invented = claims["c008"]
    assert (invented.verdict, invented.introduced_by) == (Verdict.UNSUPPORTED, "research_supply")
    assert cascade.trace_claim("c008").links[-1].node == "research_supply"
    assert cascade.complete and cascade.errors == []
    assert (cascade.coverage.numerator, cascade.coverage.denominator) == (3, 5)
    assert cascade.hallucinations.numerator == 2
    llm = cascade.result.llm
    assert llm.prompt_version == PROMPT_VERSION and llm.model == "gpt-4o-mini"
    assert [(u.unit, u.hop, u.claims) for u in llm.units] == [
        ("llm:write_services r1", 1, ["c004", "c005"]), ("llm:write_supply r1", 1, ["c007", "c008"]),
        ("llm:research_services r1:output", 2, ["c004", "c005"]), ("llm:research_supply r1:output", 2, ["c007", "c008"]),
    ]
    assert cascade.rejections == []
    # usage is summed from the recorded responses; cost follows the price table
    assert sum(u.input_tokens for u in llm.units) == cascade.usage.input_tokens > 0
    price_in, price_out = DEFAULT_PRICES["gpt-4o-mini"]
    expected = (cascade.usage.input_tokens * price_in + cascade.usage.output_tokens * price_out) / 1e6
    assert cascade.usage.cost_usd == pytest.approx(expected) and cascade.usage.cost_usd > 0
    assert cascade.usage.total_tokens == cascade.usage.input_tokens + cascade.usage.output_tokens


def test_gate_rejects_a_fabricating_auditor_which_recovers_after_the_tool_errors(lanes: tuple[Path, str]) -> None:
    tricks = ("no_search", "invented_evidence", "echoed_query", "claim_not_in_document")
    plans = {**HONEST, "margins improved": ClaimPlan(queries=("services revenue",), fabricate=tricks,
                                                     evidence="services revenue grew faster than hardware revenue")}
    cascade = recorded("fabricating_auditor", AuditorRule(plans), audit(lanes))
    rejected = [(r.reason, r.evidence) for r in cascade.rejections]
    assert [reason for reason, _ in rejected] == [REASON_NO_SEARCH, REASON_NO_MATCH, REASON_NO_MATCH,
                                                  REASON_NOT_IN_DOCUMENT]
    assert rejected[1][1].startswith("The analyst notes confirm")  # evidence from no search
    assert rejected[2][1].startswith("proof that Margins improved")  # the query echoed back
    assert {r.unit for r in cascade.rejections} == {"llm:write_services r1"}
    unit = cascade.group.unit("llm:write_services r1")
    assert (unit.submissions, unit.accepted) == (6, 2)  # 4 rejected, then c004 and c005 accepted
    assert len(cascade.result.llm.units[0].tool_errors) == 4
    # recovered: the claim is verified, with evidence the gate located in a searched file
    claim = by_id(cascade)["c004"]
    assert claim.verdict is Verdict.VERIFIED and claim.evidence[0].text == \
        "services revenue grew faster than hardware revenue"
    # the rejection reached the model as a tool result, and its next move was a fresh search
    interactions = yaml.safe_load((CASSETTES / "fabricating_auditor.yaml").read_text())["interactions"]
    bodies = [json.loads(i["request"]["body"]) for i in interactions]
    after = [b for b in bodies if any(m.get("role") == "tool" and m["content"].startswith(f"REJECTED: {REASON_NO_SEARCH}")
                                      for m in b["messages"])]
    first = min(after, key=lambda b: len(b["messages"]))
    assert first["messages"][-1]["content"].startswith(f"REJECTED: {REASON_NO_SEARCH}")


def test_step_limit_leaves_the_audit_incomplete_with_what_was_done(lanes: tuple[Path, str]) -> None:
    plans = {**HONEST, "competitors were hit": ClaimPlan(endless=True)}
    cascade = recorded("step_limit", AuditorRule(plans), audit(lanes, max_steps=6))
    assert not cascade.complete
    assert cascade.errors == [
        "LLM unit 'llm:write_supply r1' (hop 1): step limit reached (6 model calls); claims without a finding: c008 "
        "(counted unsupported). Raise max_steps= or lower section_claims=."
    ]
    claims = by_id(cascade)
    assert claims["c007"].verdict is Verdict.VERIFIED  # done before the limit: kept
    assert claims["c008"].verdict is Verdict.UNSUPPORTED and claims["c008"].introduced_by == "write_supply"
    assert any("not reached by the LLM auditor" in n and "step limit" in n for n in claims["c008"].notes)
    run = next(u for u in cascade.result.llm.units if u.unit == "llm:write_supply r1")
    assert (run.stopped, run.model_calls) == ("step_limit", 6)
    assert cascade.passport.complete is True and cascade.result.complete is False


def test_timeout_leaves_the_audit_incomplete(lanes: tuple[Path, str]) -> None:
    # the honest lane needs well under the timeout even on a loaded 2-core machine (at 0.75 s it timed out too
    # at load 10); the held-up lane's delay is twice the timeout
    plans = {**HONEST, "competitors were hit": ClaimPlan(delay=5.0, queries=("competitors",))}
    with ScriptedOpenAIServer(rule=AuditorRule(plans)) as server:
        cascade = asyncio.run(audit(lanes, unit_timeout=2.5)(chat_model(server.base_url)))
    assert not cascade.complete
    assert any(e.startswith("LLM unit 'llm:write_supply r1' (hop 1): timed out after 2.5 s") for e in cascade.errors)
    claims = by_id(cascade)
    assert claims["c008"].verdict is Verdict.UNSUPPORTED and "timed out" in " ".join(claims["c008"].notes)
    assert claims["c004"].verdict is Verdict.VERIFIED  # the other lane was not held up


def test_concurrent_units_replay_their_own_responses_in_sections(tmp_path: Path) -> None:
    # one claim per section: each unit receives its claims over several user messages
    trace, document = capture_lanes(tmp_path / "trace")
    counting = InFlight(AuditorRule(HONEST), hold=0.02)

    def run(concurrency: int) -> Any:
        def go(llm: Any) -> Any:
            return FenceGroup.audit_cascade(trace_dir=trace, final_document=document, llm=llm,
                                            concurrency=concurrency, section_claims=1)
        return go

    first = recorded("concurrent_units", counting, run(4))  # type: ignore[arg-type]
    with use_cassette(CASSETTES / "concurrent_units.yaml", "none"):
        one_at_a_time = asyncio.run(run(1)(chat_model("http://127.0.0.1:9/v1")))
    assert one_at_a_time.to_json() == first.to_json()
    for unit in first.result.llm.units:
        assert unit.sections == 2
        lane = unit.node.split("_", 1)[1]
        for finding in (f for f in first.result.llm.findings if f.unit == unit.unit):
            assert finding.claim_id in unit.claims
            assert finding.evidence is None or lane in finding.evidence.node
    bodies = [json.loads(i["request"]["body"]) for i in
              yaml.safe_load((CASSETTES / "concurrent_units.yaml").read_text())["interactions"]]
    for body in bodies:
        user = [m["content"] for m in body["messages"] if m["role"] == "user"]
        assert all(text.count("\n[c0") == 1 for text in user)  # never the whole document at once
    assert counting.most <= 4


def test_concurrency_bound_holds_live(lanes: tuple[Path, str]) -> None:
    counting = InFlight(AuditorRule(HONEST))
    with ScriptedOpenAIServer(rule=counting) as server:
        cascade = asyncio.run(audit(lanes, concurrency=1)(chat_model(server.base_url)))
    assert counting.most == 1 and cascade.complete


def test_cassette_miss_propagates_unchanged(lanes: tuple[Path, str], tmp_path: Path) -> None:
    with pytest.raises(CassetteMissError, match="does not exist"), use_cassette(tmp_path / "none.yaml", "none"):
        asyncio.run(audit(lanes)(chat_model("http://127.0.0.1:9/v1")))


def test_cassettes_and_golden_files_hold_no_secret() -> None:
    files = sorted(CASSETTES.glob("*"))
    assert len(files) >= 8
    for path in files:
        text = path.read_text()
        for secret in (API_KEY, "PLANTED", "sk-proj", "Bearer", "org-scripted", "proj_scripted", "scripted-session"):
            assert secret not in text, (path.name, secret)
        assert "/tmp" not in text and str(Path.home()) not in text


def test_unknown_model_costs_zero_with_a_note_and_prices_override(lanes: tuple[Path, str]) -> None:
    with ScriptedOpenAIServer(rule=AuditorRule(HONEST), models=("house-model-7",)) as server:
        unknown = asyncio.run(audit(lanes)(chat_model(server.base_url, "house-model-7")))
        priced = asyncio.run(audit(lanes, prices={"house-model-7": (1.0, 2.0)})(chat_model(server.base_url, "house-model-7")))
    assert unknown.usage.cost_usd == 0 and unknown.usage.input_tokens > 0
    assert any("no price for model 'house-model-7'" in n for n in unknown.result.llm.cost_notes)
    usage = priced.usage
    assert usage.cost_usd == pytest.approx((usage.input_tokens * 1.0 + usage.output_tokens * 2.0) / 1e6)
    assert priced.result.llm.cost_notes == []
    assert price_for("gpt-4o-mini-2024-07-18", DEFAULT_PRICES) == DEFAULT_PRICES["gpt-4o-mini"]
    assert price_for("gpt-4o-2024-08-06", DEFAULT_PRICES) == DEFAULT_PRICES["gpt-4o"]


def test_a_failing_model_is_an_audit_error_not_a_short_audit(lanes: tuple[Path, str]) -> None:
    def broken(request: ChatRequest) -> Reply:
        return Reply(status=400, error="model overloaded", headers={"x-should-retry": "false"})

    with ScriptedOpenAIServer(rule=broken) as server:
        cascade = asyncio.run(audit(lanes)(chat_model(server.base_url)))
    assert not cascade.complete and len(cascade.errors) == 2
    assert all("the model call failed (" in e and "400 - model overloaded" in e for e in cascade.errors)
    semantic = [c for c in cascade.claims if c.verdict_source == "llm"]
    assert len(semantic) == 4 and all(c.verdict is Verdict.UNSUPPORTED for c in semantic)


@pytest.mark.parametrize(("options", "message"), [
    ({"llm": object()}, "needs a LangChain chat model with bind_tools"),
    ({"severity_threshold": "severe"}, "severity_threshold='severe': choose one of low, medium, high, critical"),
    ({"max_steps": 0}, "max_steps=0: expected an int >= 1"),
    ({"unit_timeout": -1}, "unit_timeout=-1: expected a positive number"),
    ({"prices": {"m": (1.0,)}}, r"prices\['m'\] = \(1.0,\): expected \(input_usd, output_usd\)"),
])
def test_bad_options_are_clear_errors(lanes: tuple[Path, str], options: dict[str, Any], message: str) -> None:
    llm = options.pop("llm", None) or chat_model("http://127.0.0.1:9/v1")
    with pytest.raises(AuditError, match=message):
        asyncio.run(FenceGroup.audit_cascade(trace_dir=lanes[0], final_document=lanes[1], llm=llm, **options))


def test_deterministic_json_has_no_llm_section(lanes: tuple[Path, str]) -> None:
    cascade = audit_cascade_sync(trace_dir=lanes[0], final_document=report())
    assert '"llm"' not in cascade.to_json() and cascade.result.llm is None


def test_a_custom_extractor_decides_which_claims_the_agents_see(lanes: tuple[Path, str]) -> None:
    from pytest_auditfence.claims.extract import extract_claims

    def without_competitors(document: str) -> list[Any]:
        return [c for c in extract_claims(document) if "Competitors" not in c.claim]

    with ScriptedOpenAIServer(rule=AuditorRule(HONEST)) as server:
        cascade = asyncio.run(audit(lanes, extractor=without_competitors)(chat_model(server.base_url)))
    assert [c.id for c in cascade.claims if c.verdict_source == "llm"] == ["c004", "c005", "c007"]
    assert all(u.claims != ["c007", "c008"] for u in cascade.result.llm.units)


def test_two_sync_llm_audits_in_one_process_share_a_live_model(lanes: tuple[Path, str]) -> None:
    # langchain-openai caches its async HTTP client per base_url; a closed event loop under it broke the
    # second audit of a test ("Event loop is closed") before audits shared one long-lived loop.
    from pytest_auditfence.audit.cascade import audit_cascade_sync

    trace, document = lanes
    with ScriptedOpenAIServer(rule=AuditorRule(HONEST)) as server:
        llm = chat_model(server.base_url)
        first = audit_cascade_sync(trace_dir=trace, final_document=document, llm=llm)
        second = audit_cascade_sync(trace_dir=trace, final_document=document, llm=llm)
    assert first.complete and second.complete, (first.errors, second.errors)
    assert first.to_json() == second.to_json()
