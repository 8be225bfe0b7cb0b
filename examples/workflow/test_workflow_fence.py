"""The workflow graph (TypedDict state, no messages) captured with `instrument_graph` and audited.

Its corpus search is a plain function: wrapped, its results are raw data; left alone, `gather` is the origin.
"""

from __future__ import annotations

import pytest
import workflow_app

from pytest_auditfence import (
    CaptureLevel,
    Verdict,
    assert_claim_traced,
    audit_cascade_sync,
    import_debug_events,
    instrument_graph,
    wrap,
)

TOPIC = {"topic": "warehouse robotics"}


@pytest.mark.fence(min_coverage=1.0, max_hallucinations=0)
def test_summary_is_traceable(fence_snapshot, monkeypatch):
    # gather() looks search_corpus up at call time, so the wrapped copy records every search
    monkeypatch.setattr(workflow_app, "search_corpus", wrap(workflow_app.search_corpus, fence_snapshot))
    app = instrument_graph(workflow_app.app, fence_snapshot)  # the module-level compiled graph
    result = app.invoke(TOPIC)  # no config=... at the call site
    fence_snapshot.set_report(result["summary"])


def test_quotes_trace_through_every_node_to_the_search_results(fence_snapshot, fence_audit, monkeypatch):
    monkeypatch.setattr(workflow_app, "search_corpus", wrap(workflow_app.search_corpus, fence_snapshot))
    result = instrument_graph(workflow_app.app, fence_snapshot).invoke(TOPIC)
    cascade = fence_audit(final_document=result["summary"])
    chain = assert_claim_traced(cascade, "22% fewer lifting injuries", to="search_corpus")
    assert [link.node for link in chain.links] == ["__report__", "summarize", "gather", "gather"]
    assert chain.links[-1].kind == "tool_call" and chain.reaches_raw_data
    manifest = fence_snapshot.load_manifest()
    assert manifest.edges == [("__input__", "plan"), ("gather", "summarize"), ("plan", "gather")]


def test_an_uncaptured_data_function_makes_its_node_the_origin(fence_snapshot, fence_audit):
    # Without the wrapper the documents first appear in gather's output: nothing captured backs them.
    result = instrument_graph(workflow_app.app, fence_snapshot).invoke(TOPIC)
    cascade = fence_audit(final_document=result["summary"])
    quoted = [c for c in cascade.claims if c.claim.endswith(("[1]", "[2]", "[3]"))]
    assert len(quoted) == 3
    assert {(c.verdict, c.introduced_by) for c in quoted} == {(Verdict.UNSUPPORTED, "gather")}


def test_an_exported_run_imports_at_the_log_structured_level(tmp_path):
    # What a client of a remote deployment has: the debug event stream, not the process.
    events = list(workflow_app.app.stream(TOPIC, stream_mode="debug"))
    manifest = import_debug_events(events, tmp_path / "trace", graph=workflow_app.app)
    graph_nodes = {n.name: n.capture_level for n in manifest.nodes if n.kind == "node"}
    assert graph_nodes == dict.fromkeys(["gather", "plan", "summarize"], CaptureLevel.LOG_STRUCTURED)
    assert manifest.edges == [("__input__", "plan"), ("gather", "summarize"), ("plan", "gather")]
    summary = events[-1]["payload"]["result"]["summary"]
    cascade = audit_cascade_sync(trace_dir=tmp_path / "trace", final_document=summary)
    assert (cascade.passport.capture_level, cascade.passport.trust_cap) == (CaptureLevel.LOG_STRUCTURED, 0.85)
    assert cascade.passport.verified_trust <= 0.85
