"""The captured run the end-to-end verifier tests audit: a compiled LangGraph graph (`plan` asks for tools,
a `ToolNode` runs them, `write` returns the report), captured with a `Snapshot` and audited by the cascade,
as a user's test would."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any

from langchain_core.messages import AIMessage
from langchain_core.tools import tool
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode

from pytest_auditfence import Snapshot, Verdict
from pytest_auditfence.audit.cascade import Cascade, audit_cascade_sync
from pytest_auditfence.models import ClaimRecord

Calls = list[tuple[str, dict[str, Any]]]


def tool_app(tools: Sequence[Any], calls: Calls, report: str) -> Any:
    """`plan` calls each (tool name, arguments) of `calls` at once, the tools answer, `write` returns `report`."""

    def plan(state: MessagesState) -> dict[str, Any]:
        tool_calls = [{"name": name, "args": args, "id": f"call_{i}"} for i, (name, args) in enumerate(calls)]
        return {"messages": [AIMessage(content="", tool_calls=tool_calls)]}

    def write(state: MessagesState) -> dict[str, Any]:
        return {"messages": [AIMessage(content=report)]}

    graph = StateGraph(MessagesState)
    graph.add_node("plan", plan)
    graph.add_node("tools", ToolNode(list(tools)))
    graph.add_node("write", write)
    graph.add_edge(START, "plan")
    graph.add_edge("plan", "tools")
    graph.add_edge("tools", "write")
    graph.add_edge("write", END)
    return graph.compile()


def tool_run_auditor(tmp_path: Path, tools: Sequence[Any], ask: str) -> Callable[..., Cascade]:
    """`run(calls, report, ask=...) -> Cascade`: one captured run of `tool_app` per call, each in its own
    trace folder under `tmp_path`, its report audited."""
    runs = iter(range(1000))

    def run(calls: Calls, report: str, ask: str = ask) -> Cascade:
        snap = Snapshot(tmp_path / f"trace{next(runs)}")
        result = tool_app(tools, calls, report).invoke({"messages": [("user", ask)]}, config=snap.config())
        assert result["messages"][-1].content == report
        snap.set_report(report)
        snap.finalize()
        return audit_cascade_sync(trace_dir=snap.trace_dir, final_document=report)

    return run


def claim_of(cascade: Cascade, fragment: str) -> ClaimRecord:
    """The first claim of the audit holding `fragment`."""
    found = [c for c in cascade.claims if fragment in c.claim]
    assert found, f"no claim holds {fragment!r}: {[c.claim for c in cascade.claims]}"
    return found[0]


def section_auditor(tmp_path: Path, documents: dict[str, str]) -> Callable[[str, str, str], ClaimRecord]:
    """`audit(section, sentence, figure)`: one captured run whose document tool returns `documents[section]` and
    whose report is `sentence`; the audited claim holding `figure`."""

    @tool
    def get_filing_section(section: str) -> str:
        """One section of an annual report: its table and the paragraphs around it."""
        return documents[section]

    run = tool_run_auditor(tmp_path, [get_filing_section], "Answer the questions on the annual report.")

    def audit(section: str, sentence: str, figure: str) -> ClaimRecord:
        return claim_of(run([("get_filing_section", {"section": section})], sentence), figure)

    return audit


COVERED = (Verdict.VERIFIED, Verdict.DERIVED)
FLAGGED = (Verdict.UNSUPPORTED, Verdict.CONTRADICTED, Verdict.MISATTRIBUTED)


def one_section_auditor(tmp_path: Path, document: str) -> Callable[[str, str], ClaimRecord]:
    """`audit(sentence, figure)`: `section_auditor` over one section, `document`."""
    return partial(section_auditor(tmp_path, {"section": document}), "section")
