"""Real LangGraph pipelines whose reports carry semantic claims, captured for the LLM auditor tests.

Owns `capture_lanes`: two research -> write lanes (two sinks, so two report units audit concurrently).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from langchain_core.messages import AIMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import tool
from langgraph.graph import START, MessagesState, StateGraph

from pytest_auditfence.snapshot import Snapshot

# Raw data the tools return; every semantic sentence of the report leans on one of these lines.
NOTES = {
    "services": [
        "Services revenue grew faster than hardware revenue during the year.",
        "The shift toward services lifted the gross margin of the company.",
    ],
    "supply": [
        "Component shortages eased in the second half of the year.",
        "Management expects the new factory to open next spring.",
    ],
}

# What each research node writes about its notes (the second sentence of "supply" is invented by
# the research node: no note says anything about competitors).
RESEARCH = {
    "services": "Research summary: services revenue grew faster than hardware revenue during the year, "
                "and the shift toward services lifted the gross margin of the company.",
    "supply": "Research summary: component shortages eased in the second half of the year. "
              "Competitors were hit much harder by the shortages than the company was.",
}

SECTIONS = {
    "services": ["Margins improved because services grew faster than hardware.",
                 "The shift toward services lifted the gross margin."],
    "supply": ["Component shortages eased in the second half.",
               "Competitors were hit much harder by the shortages."],
}


@tool
def fetch_notes(topic: str) -> str:
    """Analyst notes about one topic."""
    return json.dumps({"topic": topic, "notes": NOTES[topic]}, indent=2, sort_keys=True)


def _research(topic: str) -> Any:
    def research(state: MessagesState, config: RunnableConfig) -> dict[str, Any]:
        fetch_notes.invoke({"topic": topic}, config=config)
        return {"messages": [AIMessage(content=RESEARCH[topic], name=f"research_{topic}")]}

    research.__name__ = f"research_{topic}"
    return research


def _write(topic: str) -> Any:
    def write(state: MessagesState) -> dict[str, Any]:
        return {"messages": [AIMessage(content=" ".join(SECTIONS[topic]), name=f"write_{topic}")]}

    write.__name__ = f"write_{topic}"
    return write


def build_lanes() -> Any:
    graph = StateGraph(MessagesState)
    for topic in ("services", "supply"):
        graph.add_node(f"research_{topic}", _research(topic))
        graph.add_node(f"write_{topic}", _write(topic))
        graph.add_edge(START, f"research_{topic}")
        graph.add_edge(f"research_{topic}", f"write_{topic}")
    return graph.compile()


def report(topics: tuple[str, ...] = ("services", "supply")) -> str:
    """The final document: one markdown section per lane, as a caller would assemble it."""
    parts = ["# Annual review", "", "Revenue was $1,234 million in FY2024.", ""]
    for topic in topics:
        parts += [f"## {topic.title()}", "", " ".join(SECTIONS[topic]), ""]
    return "\n".join(parts)


def capture_lanes(trace_dir: Path, document: str | None = None) -> tuple[Path, str]:
    """Run the two-lane pipeline under a Snapshot; returns the trace folder and the report."""
    snap = Snapshot(trace_dir)
    build_lanes().invoke({"messages": [("user", "Review the year")]}, config=snap.config())
    text = document if document is not None else report()
    snap.set_report(text)
    snap.finalize()
    return snap.trace_dir, text
