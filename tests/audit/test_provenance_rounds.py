"""Rounds: an attempt stopped by interrupt() and resumed is one round, not two."""

from __future__ import annotations

from pathlib import Path
from typing import Any, TypedDict

from langchain_core.runnables import RunnableConfig
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, interrupt

from pytest_auditfence import Snapshot, Verdict
from pytest_auditfence.audit.cascade import audit_cascade_sync


@tool
def get_financials(ticker: str) -> str:
    """Reported figures of a ticker."""
    return f"{ticker} fiscal 2024: revenue $9.4 billion, operating income $1.2 billion."


class Review(TypedDict, total=False):
    facts: str
    report: str


def _app() -> Any:
    def fetch(state: Review, config: RunnableConfig) -> dict[str, Any]:
        return {"facts": get_financials.invoke({"ticker": "HALV"}, config)}

    def review(state: Review) -> dict[str, Any]:
        verdict = interrupt("Approve the facts?")  # paused here; the resumed run starts the node again
        return {"report": f"Revenue was $9.4 billion. The reviewer ({verdict}) put the margin at 22%."}

    g = StateGraph(Review)
    g.add_node("fetch", fetch)
    g.add_node("review", review)
    g.add_edge(START, "fetch")
    g.add_edge("fetch", "review")
    g.add_edge("review", END)
    return g.compile(checkpointer=InMemorySaver())


def test_an_interrupted_attempt_is_not_a_round_and_the_resumed_round_is_audited(tmp_path: Path) -> None:
    app = _app()
    snap = Snapshot(tmp_path / "t")
    config = {**snap.config(), "configurable": {"thread_id": "review-1"}}
    app.invoke({}, config=config)
    result = app.invoke(Command(resume="approved"), config=config)
    snap.set_report(result["report"])
    manifest = snap.finalize()

    assert "review" not in manifest.rounds  # one round: the paused attempt and its resumption
    assert manifest.node("review").rounds == 1
    paths = {f.path for f in manifest.files_of("review")}
    assert paths == {"nodes/review/r1.interrupted.txt", "nodes/review/r1.input.txt", "nodes/review/r1.output.txt"}
    assert "interrupt('Approve the facts?')" in (snap.trace_dir / "nodes/review/r1.interrupted.txt").read_text()

    cascade = audit_cascade_sync(trace_dir=snap.trace_dir, final_document=result["report"])
    assert cascade.trace_claim("$9.4 billion").verdict is Verdict.VERIFIED
    margin = next(c for c in cascade.claims if "22%" in c.claim)
    assert margin.verdict is Verdict.UNSUPPORTED and margin.introduced_by == "review"
