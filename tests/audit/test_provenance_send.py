"""A node that routes with `Command(goto=[Send(...)])` is recorded with what it sent each task."""

from __future__ import annotations

import operator
from pathlib import Path
from typing import Annotated, Any, TypedDict

from langchain_core.runnables import RunnableConfig
from langchain_core.tools import tool
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, Send

from pytest_auditfence import Snapshot, Verdict
from pytest_auditfence.audit.cascade import audit_cascade_sync

PRICES = {"AAPL": "187.32", "MSFT": "411.07"}


@tool
def get_price(ticker: str) -> str:
    """Closing price of a ticker."""
    return f"{ticker} closed at ${PRICES[ticker]} on 2024-03-28."


class Desk(TypedDict, total=False):
    ticker: str
    brief: str
    lines: Annotated[list[str], operator.add]
    report: str


def _app() -> Any:
    def plan(state: Desk) -> Command:
        # the planner invents a target price and hands it to each worker in its Send
        return Command(goto=[Send("analyze", {"ticker": t, "brief": f"{t} target price is $240."}) for t in PRICES])

    def analyze(state: Desk, config: RunnableConfig) -> dict[str, Any]:
        return {"lines": [f"{get_price.invoke({'ticker': state['ticker']}, config)} {state['brief']}"]}

    def reduce(state: Desk) -> dict[str, Any]:
        return {"report": " ".join(sorted(state["lines"]))}

    g = StateGraph(Desk)
    g.add_node("plan", plan)
    g.add_node("analyze", analyze)
    g.add_node("reduce", reduce)
    g.add_edge(START, "plan")
    g.add_edge("analyze", "reduce")
    g.add_edge("reduce", END)
    return g.compile()


def test_a_figure_handed_out_in_a_send_is_the_sender_s(tmp_path: Path) -> None:
    snap = Snapshot(tmp_path / "t")
    result = _app().invoke({"lines": []}, config=snap.config())
    snap.set_report(result["report"])
    snap.finalize()
    sent = (snap.trace_dir / "nodes/plan/r1.output.txt").read_text()
    assert sent.startswith("sent:") and "AAPL target price is $240." in sent and "node: analyze" in sent
    cascade = audit_cascade_sync(trace_dir=snap.trace_dir, final_document=result["report"])
    for price in PRICES.values():
        assert cascade.trace_claim(f"${price}").verdict is Verdict.VERIFIED
    targets = [c for c in cascade.claims if "$240" in c.claim]
    assert targets and all(c in cascade.failing_claims() for c in targets)  # unsupported or contradicted
    assert {c.introduced_by for c in targets} == {"plan"}
