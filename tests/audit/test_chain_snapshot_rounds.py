"""Chain golden files name rounds: the introducer's round, and each hop's step where its node ran more than once.

A real compiled graph whose `draft` node loops: round 1 invents a margin, round 2 looks the filing up,
reports its revenue and repeats the margin; `write` (one round) joins the drafts.
"""

from __future__ import annotations

import operator
from pathlib import Path
from typing import Annotated, Any, TypedDict

from agent_apps import get_financials
from langchain_core.runnables import RunnableConfig
from langgraph.graph import END, START, StateGraph

from pytest_auditfence import Snapshot
from pytest_auditfence.audit.cascade import Cascade, audit_cascade_sync
from pytest_auditfence.chain_snapshot import serialize_chains


class Drafts(TypedDict, total=False):
    drafts: Annotated[list[str], operator.add]
    report: str


def _app() -> Any:
    def draft(state: Drafts, config: RunnableConfig) -> dict[str, Any]:
        if not state.get("drafts"):
            return {"drafts": ["Operating margin was 22%."]}
        get_financials.invoke({"query": "HALV"}, config)
        return {"drafts": ["Revenue was $9.4 billion. Operating margin was 22%."]}

    def write(state: Drafts) -> dict[str, Any]:
        return {"report": state["drafts"][-1]}

    g = StateGraph(Drafts)
    g.add_node("draft", draft)
    g.add_node("write", write)
    g.add_edge(START, "draft")
    g.add_conditional_edges("draft", lambda s: "draft" if len(s["drafts"]) < 2 else "write", ["draft", "write"])
    g.add_edge("write", END)
    return g.compile()


def _audited(trace: Path) -> Cascade:
    snap = Snapshot(trace)
    result = _app().invoke({"drafts": []}, config=snap.config())
    snap.set_report(result["report"])
    snap.finalize()
    return audit_cascade_sync(trace_dir=snap.trace_dir, final_document=result["report"])


def test_chain_golden_file_names_the_round_and_the_step_of_each_hop(tmp_path: Path, chain_snapshot: Any) -> None:
    cascade = _audited(tmp_path / "t")
    text = serialize_chains(cascade.evidence_chains())
    margin = [line for line in text.splitlines() if line.startswith("[c002]")]
    assert margin[2] == "[c002] introduced_by: draft (round 1)"
    # write ran once: named as the node; draft ran twice: each hop names its round
    assert [line.split(" @ ")[0] for line in margin[4:]] == [
        "[c002] link 1: report __report__",
        "[c002] link 2: node_output write",
        "[c002] link 3: node_output draft r2",
        "[c002] link 4: node_output draft r1",
    ]
    revenue = [line for line in text.splitlines() if line.startswith("[c001]")]
    assert revenue[2] == "[c001] introduced_by: -"
    assert revenue[-1].startswith("[c001] link 4: tool_call draft r2 @ tools/draft/r2.get_financials.1.txt:")
    assert cascade.evidence_chains() == chain_snapshot
