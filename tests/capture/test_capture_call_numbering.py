"""Tool call files are numbered in the order the calls were made wherever that order is the same in every
rerun: the model's order of tool calls for a ToolNode, call order for a node that calls a tool in a loop;
concurrent calls without ids fall back to content digests, so reruns stay byte-identical."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from capture_graphs import MODES, State, agent_loop, run
from langchain_core.messages import HumanMessage
from langgraph.graph import START, StateGraph

from pytest_auditfence import Snapshot, wrap


def _tool_texts(root: Any, manifest: Any, node: str) -> dict[str, str]:
    """Per tool call file: its text followed by that of its arguments file (the declared half of the call)."""
    return {f.path: (root / f.path).read_text() + (root / f.path.replace(".txt", ".arguments.txt")).read_text()
            for f in manifest.files_of(node, "tool_call")}


@pytest.mark.parametrize("mode", MODES)
def test_toolnode_calls_follow_the_order_the_model_asked_for(tmp_path, mode):
    # The second model message asks for MSFT (call_2), then GOOG (call_3); ToolNode runs both at once.
    with Snapshot(tmp_path / "t") as snap:
        run(agent_loop(), {"messages": [HumanMessage(content="prices?")]}, snap.config(), mode)
    texts = _tool_texts(tmp_path / "t", snap.load_manifest(), "tools")
    assert "ticker: MSFT" in texts["tools/tools/r2.get_price.1.txt"]
    assert "ticker: GOOG" in texts["tools/tools/r2.get_price.2.txt"]


def _quote(ticker: str) -> str:
    return f"{ticker} last 1{len(ticker)}.5"


def _loop_app(tools: dict[str, Any], tickers: list[str]) -> Any:
    def fetch(state: State) -> dict[str, Any]:
        return {"log": [tools["quote"](t) for t in tickers]}

    g = StateGraph(State)
    g.add_node("fetch", fetch)
    g.add_edge(START, "fetch")
    return g.compile()


def test_calls_made_one_after_another_are_numbered_in_call_order(tmp_path):
    tickers = ["MSFT", "AAPL", "GOOG", "NVDA"]  # not the order of their content digests
    snap = Snapshot(tmp_path / "t")
    _loop_app(wrap({"quote": _quote}, snap), tickers).invoke({"log": []}, config=snap.config())
    texts = _tool_texts(tmp_path / "t", snap.finalize(), "fetch")
    for number, ticker in enumerate(tickers, start=1):
        assert f"ticker: {ticker}" in texts[f"tools/fetch/r1.quote.{number}.txt"]


def test_concurrent_calls_without_ids_are_numbered_the_same_in_every_rerun(tmp_path, read_tree):
    tickers = ["MSFT", "AAPL", "GOOG", "NVDA"]

    def capture(folder: str, reverse: bool) -> None:
        snap = Snapshot(tmp_path / folder)
        started = threading.Barrier(len(tickers))

        def slow_quote(ticker: str) -> str:
            started.wait(timeout=5)  # every call has begun before any ends: they overlap for sure
            return _quote(ticker)

        quote = wrap({"quote": slow_quote}, snap)["quote"]

        def fetch(state: State) -> dict[str, Any]:
            order = list(reversed(tickers)) if reverse else tickers
            with ThreadPoolExecutor(len(tickers)) as pool:
                return {"log": list(pool.map(quote, order))}

        g = StateGraph(State)
        g.add_node("fetch", fetch)
        g.add_edge(START, "fetch")
        g.compile().invoke({"log": []}, config=snap.config())
        snap.finalize()

    capture("a", reverse=False)
    capture("b", reverse=True)
    a, b = read_tree(tmp_path / "a"), read_tree(tmp_path / "b")
    tool_files = sorted(p for p in a if p.startswith("tools/"))
    assert len(tool_files) == 8  # per call: its output and, apart, its arguments (the declared zone)
    assert {p: a[p] for p in tool_files} == {p: b[p] for p in tool_files}
