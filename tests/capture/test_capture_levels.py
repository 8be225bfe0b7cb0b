"""Capture levels outside live callbacks: wrapped tools, @capture, instrument_graph, and the importers."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from capture_graphs import State, agent_loop, fan_out_in, get_price, step, subgraph_node
from langchain_core.tracers.run_collector import RunCollectorCallbackHandler
from langgraph.graph import START, StateGraph

from pytest_auditfence import Snapshot, capture, import_debug_events, import_run_tree, instrument_graph, wrap
from pytest_auditfence.errors import AuditFenceError
from pytest_auditfence.manifest import INPUT_NODE as IN
from pytest_auditfence.manifest import CaptureLevel


def quote_api(ticker: str, field: str = "close") -> dict[str, Any]:
    return {"ticker": ticker, field: 187.32}


def test_wrapped_function_called_in_a_node_belongs_to_that_node(tmp_path):
    snap = Snapshot(tmp_path / "t")
    tools = wrap({"quotes": quote_api}, snap)

    def fetch(state: State) -> dict[str, Any]:
        return {"log": [str(tools["quotes"]("AAPL"))]}

    g = StateGraph(State)
    g.add_node("fetch", fetch)
    g.add_edge(START, "fetch")
    g.compile().invoke({"log": []}, config=snap.config())
    m = snap.finalize()
    [call] = m.files_of("fetch", "tool_call")
    assert call.path == "tools/fetch/r1.quotes.1.txt" and call.tool == "quotes"
    text = (tmp_path / "t" / call.path).read_text()
    assert "ticker: AAPL" in text and "close: 187.32" in text and "node: fetch" in text
    assert m.node("fetch").capture_level == CaptureLevel.INSTRUMENTED


def test_capture_decorator_outside_a_graph_and_errors(tmp_path):
    snap = Snapshot(tmp_path / "t")

    @capture(snap, name="filings")
    def filings(ticker: str) -> str:
        if ticker == "XXX":
            raise LookupError("unknown ticker XXX")
        return f"{ticker} 10-K: revenue $383.3 billion"

    @capture(snap)
    async def news(ticker: str) -> list[str]:
        return [f"{ticker} beats estimates"]

    assert filings("AAPL").startswith("AAPL 10-K")
    assert asyncio.run(news("AAPL")) == ["AAPL beats estimates"]
    with pytest.raises(LookupError):
        filings("XXX")
    m = snap.finalize()
    node = m.node("filings")
    assert (node.kind, node.capture_level, node.trust_cap) == ("tool", CaptureLevel.INSTRUMENTED, 1.0)
    records = m.files_of("filings", "tool_call")
    assert [r.error for r in records] == [False, True]
    texts = [(tmp_path / "t" / r.path).read_text() for r in records]
    assert "revenue $383.3 billion" in texts[0] and "LookupError: unknown ticker XXX" in texts[1]
    assert m.files_of("news", "tool_call")
    with pytest.raises(AuditFenceError, match="needs the Snapshot"):
        wrap(quote_api, "trace/")


def test_wrapped_langchain_tool_records_without_config(tmp_path):
    snap = Snapshot(tmp_path / "t")
    [priced] = snap.wrap([get_price])
    assert priced.invoke({"ticker": "MSFT"}) == "MSFT closed at 411.07 USD on 2024-03-28"
    m = snap.finalize()
    [record] = m.files_of("get_price", "tool_call")
    assert "MSFT closed at 411.07 USD" in (tmp_path / "t" / record.path).read_text()


def test_instrument_compiled_graph_captures_without_config(tmp_path):
    snap = Snapshot(tmp_path / "t")
    app = instrument_graph(fan_out_in(), snap)
    app.invoke({"log": []})  # the call site passes no config
    m = snap.finalize()
    assert m.edges == [(IN, "a"), (IN, "b"), ("a", "c"), ("b", "c")]
    assert all(n.capture_level == CaptureLevel.INSTRUMENTED for n in m.nodes)


def test_instrument_builder_and_no_duplicates_with_config(tmp_path):
    snap = Snapshot(tmp_path / "t")
    g = StateGraph(State)
    g.add_node("only", step("only"))
    g.add_edge(START, "only")
    app = instrument_graph(g, snap).compile()
    app.invoke({"log": []}, config=snap.config())  # handler attached twice: still one record per event
    m = snap.finalize()
    assert m.rounds == {} and len(m.files_of("only", "node_output")) == 1
    with pytest.raises(AuditFenceError, match="StateGraph builder or a compiled graph"):
        instrument_graph(object(), snap)


def test_import_debug_events_of_fan_out_with_subgraph(tmp_path):
    app = subgraph_node()
    events = list(app.stream({"log": []}, stream_mode="debug", subgraphs=True))
    m = import_debug_events(events, tmp_path / "t", graph=app)
    assert m.complete
    assert m.edges == [
        (IN, "plan"), ("plan", "research"), ("research", "research/search"), ("research", "write"),
        ("research/search", "research/summarize"), ("research/summarize", "research"),
    ]
    node = m.node("research/search")
    assert (node.capture_level, node.trust_cap) == (CaptureLevel.LOG_STRUCTURED, 0.85)
    assert {n.capture_level for n in m.nodes} == {CaptureLevel.LOG_STRUCTURED}  # the input node too
    assert "summarize saw" in (tmp_path / "t/nodes/research/summarize/r1.output.txt").read_text()


def test_import_debug_events_without_graph_uses_steps(tmp_path):
    events = list(fan_out_in().stream({"log": []}, stream_mode="debug"))
    m = import_debug_events(events, tmp_path / "t")
    assert m.edges == [(IN, "a"), (IN, "b"), ("a", "c"), ("b", "c")]
    with pytest.raises(AuditFenceError, match="event 1 is str"):
        import_debug_events(["junk"], tmp_path / "u")


def test_import_run_tree_of_an_agent_loop(tmp_path):
    collector = RunCollectorCallbackHandler()
    agent_loop().invoke({"messages": [("user", "prices?")]}, config={"callbacks": [collector]})
    [root] = collector.traced_runs
    m = import_run_tree(root, tmp_path / "t")
    assert m.complete, m.incomplete_reason
    assert m.edges == [(IN, "agent"), ("agent", "tools"), ("tools", "agent")]
    assert m.rounds == {"agent": 3, "tools": 2}
    assert all(n.capture_level == CaptureLevel.LOG_STRUCTURED for n in m.nodes if n.name != IN)
    texts = [(tmp_path / "t" / f.path).read_text() for f in m.files_of("tools", "tool_call")]
    assert any("GOOG closed at 141.80 USD" in t for t in texts)
