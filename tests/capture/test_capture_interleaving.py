"""A rerun gives the same folder whatever order concurrent runs happened in (issue 14).

Each test captures one real LangGraph graph twice, with a `Gate` forcing its concurrent runs (a ToolNode's
parallel tool calls, `Send` tasks, agents behind parallel tools) into one order and then into the other,
and compares every file but the journal, which records arrival and nothing else compares."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from capture_graphs import MapState, agent_loop, map_reduce
from interleave import Gate, node_task, tool_call
from langchain_core.messages import AIMessage
from langchain_core.tools import tool

from pytest_auditfence import Snapshot
from pytest_auditfence.audit.cascade import audit_cascade_sync
from pytest_auditfence.capturing.store import PACK_NAME, PackReader

FILING = "".join(f"FY{2000 + i} revenue of HALV: ${1_000 + 7 * i:,} million\n" for i in range(30))
RATES = "".join(f"FY{2000 + i} rates of HALV: {3 + i / 10:.1f}%\n" for i in range(30))
REPORT = "FY2003 revenue was $1,021 million."


@tool
def get_filing(ticker: str) -> str:
    """A section of a company's filing."""
    return FILING


@tool
def get_rates(ticker: str) -> str:
    """A company's borrowing rates."""
    return RATES


def _agent_app() -> Any:
    return agent_loop([get_filing, get_rates], iter([
        AIMessage(content="Reading.", tool_calls=[
            {"name": "get_filing", "args": {"ticker": "HALV"}, "id": "c1"},
            {"name": "get_rates", "args": {"ticker": "HALV"}, "id": "c2"},
            {"name": "get_filing", "args": {"ticker": "HALV-B"}, "id": "c3"},
        ]),
        AIMessage(content=REPORT),
    ]))


def _capture(trace: Path, app: Any, inputs: Any, gate: Gate | None, mode: str = "invoke",
             report: str = REPORT) -> Path:
    snap = Snapshot(trace)
    config = snap.config()
    if gate is not None:
        config["callbacks"] = gate.around(snap.handler)
    if mode == "ainvoke":
        asyncio.run(app.ainvoke(inputs, config=config))
    else:
        app.invoke(inputs, config=config)
    assert gate is None or gate.passed(), "the gate ordered nothing: the test would prove nothing"
    snap.set_report(report)
    snap.finalize()
    return snap.trace_dir


def _differences(a: dict[str, bytes], b: dict[str, bytes]) -> list[str]:
    return sorted(p for p in set(a) | set(b) if a.get(p) != b.get(p))


@pytest.mark.parametrize("mode", ["invoke", "ainvoke"])
def test_toolnode_calls_in_either_order_give_the_same_folder(tmp_path: Path, read_tree: Any, mode: str) -> None:
    inputs = {"messages": [("user", "Summarise HALV's filing.")]}
    asked = _capture(tmp_path / "asked", _agent_app(), inputs, Gate(["c1", "c2", "c3"], tool_call,
                                                                     asynchronous=mode == "ainvoke"), mode)
    reverse = _capture(tmp_path / "reverse", _agent_app(), inputs, Gate(["c3", "c2", "c1"], tool_call,
                                                                         asynchronous=mode == "ainvoke"), mode)
    first, second = read_tree(asked), read_tree(reverse)
    assert _differences(first, second) == []
    # the gate did reverse the arrival: the journals list the tool ends in opposite orders
    ends = [[e["tool_call_id"] for e in map(json.loads, (folder / "journal.jsonl").read_text().splitlines())
             if e["type"] == "tool_end"] for folder in (asked, reverse)]
    assert ends == [["c1", "c2", "c3"], ["c3", "c2", "c1"]]
    # what is compared holds the calls: each in its file, numbered in the order the model asked for them
    assert "tool_call_id: c3" in (asked / "tools/tools/r1.get_filing.2.txt").read_text()
    assert "ticker: HALV-B" in (asked / "tools/tools/r1.get_filing.2.arguments.txt").read_text()
    assert audit_cascade_sync(trace_dir=reverse).coverage.numerator == 1


def test_the_pack_is_in_canonical_order_and_reads_back(tmp_path: Path) -> None:
    inputs = {"messages": [("user", "Summarise HALV's filing.")]}
    trace = _capture(tmp_path / "t", _agent_app(), inputs, Gate(["c3", "c1", "c2"], tool_call))
    with PackReader(trace / "blobs") as reader:
        names = list(reader.index())
        assert names == sorted(names) and len(names) > 10
        assert all(reader.data(sha) for sha in names)
    assert (trace / "blobs" / PACK_NAME).stat().st_size > 0


def test_send_tasks_in_either_order_give_the_same_folder(tmp_path: Path, read_tree: Any) -> None:
    inputs: MapState = {"tickers": [], "results": []}
    key = node_task("price", "ticker")
    one = _capture(tmp_path / "one", map_reduce(), inputs, Gate(["AAPL", "MSFT", "GOOG"], key), report="x")
    other = _capture(tmp_path / "other", map_reduce(), inputs, Gate(["GOOG", "MSFT", "AAPL"], key), report="x")
    assert _differences(read_tree(one), read_tree(other)) == []
    assert "AAPL closed at" in (one / "nodes/price/r1.output.txt").read_text()
