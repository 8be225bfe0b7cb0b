"""Values are recorded as they were at the event: state and tool results changed in place by a later node.

Each graph plants one fabrication at a known node (asserting its verdict and `introduced_by`) and keeps
one true figure (asserting it is covered).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, TypedDict

from langchain_core.runnables import RunnableConfig
from langchain_core.tools import tool
from langgraph.graph import END, START, StateGraph

from pytest_auditfence import Snapshot, Verdict
from pytest_auditfence.audit.cascade import audit_cascade_sync

_CACHE: dict[str, dict[str, str]] = {}


@tool
def get_financials(ticker: str) -> dict[str, str]:
    """Income statement lines of a ticker (the same record object on every call, as a cache returns it)."""
    return _CACHE.setdefault(ticker, {"revenue": "Revenue was $9.4 billion.",
                                      "income": "Operating income was $1.2 billion."})


class Desk(TypedDict):
    items: list[dict[str, str]]
    notes: list[str]
    report: str


def _app(edit: Any) -> Any:
    """fetch (tool result into state) -> edit (changes the state in place, returns {}) -> write."""

    def fetch(state: Desk, config: RunnableConfig) -> dict[str, Any]:
        return {"items": [get_financials.invoke({"ticker": "HALV"}, config)], "notes": ["Fetched HALV."]}

    def write(state: Desk) -> dict[str, Any]:
        record = state["items"][0]
        return {"report": " ".join([record["revenue"], record["income"], *state["notes"][1:]])}

    g = StateGraph(Desk)
    g.add_node("fetch", fetch)
    g.add_node("edit", edit)
    g.add_node("write", write)
    g.add_edge(START, "fetch")
    g.add_edge("fetch", "edit")
    g.add_edge("edit", "write")
    g.add_edge("write", END)
    return g.compile()


def _run(app: Any, trace: Path) -> tuple[Snapshot, str]:
    _CACHE.clear()
    snap = Snapshot(trace)
    result = app.invoke({"items": [], "notes": [], "report": ""}, config=snap.config())
    snap.set_report(result["report"])
    snap.finalize()
    return snap, result["report"]


def test_a_record_edited_in_place_is_the_editing_node_s_doing(tmp_path: Path) -> None:
    def edit(state: Desk) -> dict[str, Any]:
        state["items"][0]["revenue"] = "Revenue was $9.9 billion."  # the tool's own record, edited
        return {}

    snap, report = _run(_app(edit), tmp_path / "t")
    assert "$9.9 billion" in report
    tool_file = (snap.trace_dir / "tools/fetch/r1.get_financials.1.txt").read_text()
    assert "$9.4 billion" in tool_file and "$9.9" not in tool_file  # the result as the tool returned it
    fetched = (snap.trace_dir / "nodes/fetch/r1.output.txt").read_text()
    assert "$9.4 billion" in fetched and "$9.9" not in fetched  # fetch's output as fetch returned it
    edited = (snap.trace_dir / "nodes/edit/r1.output.txt").read_text()
    assert edited.startswith("changed in place:") and "$9.9 billion" in edited

    cascade = audit_cascade_sync(trace_dir=snap.trace_dir, final_document=report)
    fabricated = next(c for c in cascade.claims if "$9.9 billion" in c.claim)
    assert fabricated.verdict is Verdict.CONTRADICTED
    assert fabricated.introduced_by == "edit"
    true = cascade.trace_claim("$1.2 billion")
    assert true.verdict is Verdict.VERIFIED and true.reaches_raw_data
    assert true.links[-1].kind == "tool_call"


def test_a_list_appended_to_in_place_is_recorded_as_the_appending_node_s_output(tmp_path: Path) -> None:
    def edit(state: Desk) -> dict[str, Any]:
        state["notes"].append("Operating margin was 22%.")
        return {}

    snap, report = _run(_app(edit), tmp_path / "t")
    assert "22%" in report
    fetched = (snap.trace_dir / "nodes/fetch/r1.output.txt").read_text()
    assert "22%" not in fetched
    cascade = audit_cascade_sync(trace_dir=snap.trace_dir, final_document=report)
    fabricated = next(c for c in cascade.claims if "22%" in c.claim)
    assert fabricated.verdict is Verdict.UNSUPPORTED
    assert fabricated.introduced_by == "edit"
    assert cascade.trace_claim("$9.4 billion").verdict is Verdict.VERIFIED
