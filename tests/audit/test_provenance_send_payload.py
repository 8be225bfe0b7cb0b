"""A step started by `Send` is given what the Send carried: an earlier step's output that the payload did not
carry is not in what it saw (unlike a ToolNode's `Send("tools", [tool_call])`, whose tools read the state).
"""

from __future__ import annotations

import operator
from pathlib import Path
from typing import Annotated, Any, TypedDict

from langchain_core.runnables import RunnableConfig
from langchain_core.tools import tool
from langgraph.graph import END, START, StateGraph
from langgraph.types import Send

from pytest_auditfence import Snapshot, Verdict
from pytest_auditfence.audit.cascade import audit_cascade_sync

FILING = "MSFT fiscal 2024: revenue $245.1 billion, 228,000 employees."


@tool
def get_filing(ticker: str) -> str:
    """The reported figures of a ticker."""
    return FILING


class Desk(TypedDict, total=False):
    filing: str
    plan: str
    lines: Annotated[list[str], operator.add]


class Task(TypedDict):
    ticker: str
    revenue: str


def _app() -> Any:
    """fetch -> plan -> Send("worker", {ticker, revenue}): the payload carries the revenue, not the headcount;
    the worker reports both."""

    def fetch(state: Desk, config: RunnableConfig) -> dict[str, Any]:
        return {"filing": get_filing.invoke({"ticker": "MSFT"}, config)}

    def plan(state: Desk) -> dict[str, Any]:
        return {"plan": "one worker per ticker"}

    def route(state: Desk) -> list[Send]:
        revenue = state["filing"].split(", 228")[0]
        return [Send("worker", {"ticker": "MSFT", "revenue": revenue})]

    def worker(task: Task) -> dict[str, Any]:
        return {"lines": ["MSFT revenue was $245.1 billion.", "MSFT had 228,000 employees."]}

    g = StateGraph(Desk)
    g.add_node("fetch", fetch)
    g.add_node("plan", plan)
    g.add_node("worker", worker)
    g.add_edge(START, "fetch")
    g.add_edge("fetch", "plan")
    g.add_conditional_edges("plan", route, ["worker"])
    g.add_edge("worker", END)
    return g.compile()


def test_a_figure_the_send_payload_did_not_carry_is_misattributed_to_the_worker(tmp_path: Path) -> None:
    snap = Snapshot(tmp_path / "t")
    result = _app().invoke({"lines": []}, config=snap.config())
    report = " ".join(result["lines"])
    snap.set_report(report)
    manifest = snap.finalize()
    [worker] = [s for s in manifest.steps if s.node == "worker"]
    assert worker.pushed and worker.upstream == ["plan r1"]
    assert "228,000" not in (snap.trace_dir / "nodes/worker/r1.input.txt").read_text()

    cascade = audit_cascade_sync(trace_dir=snap.trace_dir, final_document=report)
    revenue = cascade.trace_claim("$245.1 billion")  # carried by the payload: traced to fetch's tool call
    assert revenue.verdict is Verdict.VERIFIED and revenue.links[-1].file == "tools/fetch/r1.get_filing.1.txt"
    headcount = next(c for c in cascade.claims if "228,000" in c.claim)
    # in the filing, but not in what the worker was given: the worker did not get it from fetch
    assert headcount.verdict is Verdict.MISATTRIBUTED
    assert (headcount.introduced_by, headcount.introduced_round) == ("worker", 1)
