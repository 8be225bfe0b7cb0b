"""Tests of the minimal example: the module-level app runs research then write, and reports the facts.

The first two tests are the fenced ones the README and docs/ show: the marker, then an explicit audit.
"""

from __future__ import annotations

import json

import minimal_app
import pytest

from pytest_auditfence import assert_claim_traced, assert_traceable


@pytest.fixture
def app():
    return minimal_app.app


@pytest.mark.fence(min_coverage=0.95, max_hallucinations=0)
def test_report_is_traceable(fence_snapshot, app):
    result = app.invoke({"messages": [("user", "Analyze HALV")]}, config=fence_snapshot.config())
    fence_snapshot.set_report(result["messages"][-1].content)
    # after the test body the marker audits the captured run; a shortfall fails the test


def test_evidence_chains(fence_snapshot, fence_audit, chain_snapshot, app):
    result = app.invoke({"messages": [("user", "Analyze HALV")]}, config=fence_snapshot.config())
    cascade = fence_audit(final_document=result["messages"][-1].content)  # deterministic by default
    assert_traceable(cascade, min_coverage=0.95, max_hallucinations=0)
    # the derived margin is traced down to the tool output it was computed from
    assert_claim_traced(cascade, "Net margin was 12.2%", to="lookup_company_facts")
    assert cascade.evidence_chains() == chain_snapshot  # golden file under __snapshots__/


def test_the_capture_records_both_nodes_and_the_tool_call(fence_snapshot, app) -> None:
    app.invoke({"messages": [("user", "Analyze HALV")]}, config=fence_snapshot.config())
    manifest = fence_snapshot.finalize()
    assert manifest.edges == [("__input__", "research"), ("research", "write")]
    (tool_file,) = [f for f in manifest.files if f.kind == "tool_call"]
    assert (tool_file.node, tool_file.tool) == ("research", "lookup_company_facts")
    assert "revenue_usd_millions: 1234" in (fence_snapshot.trace_dir / tool_file.path).read_text()


def test_research_then_write_produces_a_report_from_the_tool_data(app, tool_recorder) -> None:
    result = app.invoke({"messages": [("user", "Analyze HALV")]}, config={"callbacks": [tool_recorder]})
    assert [(m.type, m.name) for m in result["messages"]] == [("human", None), ("ai", "research"), ("ai", "write")]
    (call,) = tool_recorder.calls
    assert (call.node, call.tool) == ("research", "lookup_company_facts")
    facts = json.loads(call.output)
    report = result["messages"][-1].content
    assert report.startswith(f"# {facts['name']} (HALV)\n")
    assert f"- Revenue was ${facts['revenue_usd_millions']:,} million (source: company facts)." in report
    assert "- Net income was $151 million (source: company facts)." in report
    assert "- Net margin was 12.2%, net income divided by revenue." in report  # 151 / 1,234
    assert "is in the industrial machinery sector and employs 4,850 people." in report


def test_the_findings_message_carries_the_figures_the_report_uses(app) -> None:
    result = app.invoke({"messages": [("user", "Write a note on KSTR")]})
    findings, report = result["messages"][1].content, result["messages"][2].content
    for figure in ("$2,960 million", "$212 million", "11,200"):
        assert figure in findings and figure in report
    assert "Net margin was 7.2%" in report  # 212 / 2,960


def test_same_request_gives_a_byte_identical_report(app) -> None:
    request = {"messages": [("user", "Analyze HALV")]}
    assert app.invoke(request)["messages"][-1].content == app.invoke(request)["messages"][-1].content


def test_unknown_ticker_fails_naming_the_known_ones(app) -> None:
    with pytest.raises(ValueError, match=r"no sample data for ticker 'AAPL'; known tickers: HALV, KSTR"):
        app.invoke({"messages": [("user", "Analyze AAPL")]})


def test_request_without_a_ticker_fails_with_the_fix(app) -> None:
    with pytest.raises(ValueError, match=r"found no ticker.*'Analyze HALV'"):
        app.invoke({"messages": [("user", "write me something")]})
