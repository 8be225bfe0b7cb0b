"""Real agent apps for the provenance tests: create_agent workers, langgraph-supervisor, langgraph-swarm.

Every model is a real `ChatOpenAI` talking HTTP to the scripted server on 127.0.0.1; the server's rule
tells the agents apart by their system prompts, so replies depend on the request, never on arrival order.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from langchain_core.tools import tool
from langchain_openai import ChatOpenAI

from pytest_auditfence import Snapshot
from pytest_auditfence.audit.cascade import Cascade, audit_cascade_sync
from pytest_auditfence.testing import ChatRequest, Reply, ScriptedOpenAIServer, ToolCall

__all__ = ["FILING", "ToolCall", "Reply", "audited", "get_financials", "in_a_row", "roles", "scripted_model",
           "system_of"]

FILING = "HALV fiscal 2024: revenue $9.4 billion, operating income $1.2 billion, 31,000 employees."


@tool
def get_financials(query: str) -> str:
    """Look up a company's reported financial figures."""
    return FILING


def in_a_row(state: type, *nodes: tuple[str, Any], **graph: Any) -> Any:
    """START -> each (name, node) in turn -> END, compiled (`graph`: StateGraph options, e.g. output_schema)."""
    from langgraph.graph import END, START, StateGraph

    g = StateGraph(state, **graph)
    for name, node in nodes:
        g.add_node(name, node)
    names = [START, *(name for name, _ in nodes), END]
    for a, b in zip(names, names[1:], strict=False):
        g.add_edge(a, b)
    return g.compile()


def system_of(request: ChatRequest) -> str:
    first = request.messages[0] if request.messages else {}
    return str(first.get("content", "")) if first.get("role") == "system" else ""


def roles(request: ChatRequest) -> list[str]:
    return [str(m.get("role")) for m in request.messages]


@contextmanager
def scripted_model(rule: Callable[[ChatRequest], Reply]) -> Iterator[ChatOpenAI]:
    with ScriptedOpenAIServer(rule=rule) as server:
        yield ChatOpenAI(model="gpt-4o-mini", base_url=server.base_url, api_key="sk-test", max_retries=0,
                         temperature=0)


def audited(app: Any, inputs: Any, trace: Path, report_of: Callable[[Any], str] | None = None,
            **audit: Any) -> tuple[Snapshot, str, Cascade]:
    """Run `app` captured, record its report (the last message by default) and audit it deterministically."""
    snap = Snapshot(trace)
    result = app.invoke(inputs, config=snap.config())
    report = report_of(result) if report_of else result["messages"][-1].content
    snap.set_report(report)
    snap.finalize()
    return snap, report, audit_cascade_sync(trace_dir=snap.trace_dir, final_document=report, **audit)
