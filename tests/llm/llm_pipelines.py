"""Real LangGraph pipelines whose reports carry semantic claims, captured for the LLM auditor tests.

Owns `capture_lanes`: two research -> write lanes (two sinks, so two report units audit concurrently), and
`capture_drafts`: one node that loops, its rounds audited step by step.
"""

from __future__ import annotations

import json
import operator
from pathlib import Path
from typing import Annotated, Any

from langchain_core.messages import AIMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import tool
from langgraph.graph import END, START, MessagesState, StateGraph

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


# -- a newsroom (the attack corpus) and a hundred-claim report (the step budget) --------------------------

NEWS_LINES = [
    "Halvorsen opens second plant in Gdansk after a year of construction.",
    "The board met twice in the spring to discuss the new plant.",
    "Management expects the Gdansk plant to supply the northern markets.",
]
BUYBACK = "The board approved a new share buyback program."
PLANT = "Halvorsen opened a second plant in Gdansk."
NEWS_REPORT = f"# Halvorsen news\n\n{BUYBACK} {PLANT}\n"

OFFICES = ("Oslo", "Lisbon", "Dublin", "Vienna", "Prague", "Madrid", "Athens", "Warsaw", "Zurich", "Munich")
TASKS = ("safety audit", "supplier review", "pricing study", "hiring plan", "tooling upgrade",
         "freight contract", "energy survey", "training course", "quality check", "software rollout")


def hundred_claims() -> list[tuple[str, str]]:
    """(report sentence, tool line) for every office and task: 100 claims without a checkable atom."""
    return [(f"The {office} office completed the {task} ahead of schedule.",
             f"{office} office: the {task} was completed ahead of schedule.")
            for office in OFFICES for task in TASKS]


@tool
def fetch_news(company: str) -> str:
    """News items about a company."""
    return "\n".join(NEWS_LINES)


@tool
def fetch_status(region: str) -> str:
    """Project status lines of every office."""
    return "\n".join(line for _, line in hundred_claims())


def _single_node_app(name: str, call: Any, argument: dict[str, str], document: str) -> Any:
    def node(state: MessagesState, config: RunnableConfig) -> dict[str, Any]:
        call.invoke(argument, config=config)
        return {"messages": [AIMessage(content=document, name=name)]}

    node.__name__ = name
    graph = StateGraph(MessagesState)
    graph.add_node(name, node)
    graph.add_edge(START, name)
    return graph.compile()


def capture_single(trace_dir: Path, which: str) -> tuple[Path, str]:
    """'news': one node that fetches the news and writes NEWS_REPORT; 'hundred': one node whose report
    holds the 100 claims of `hundred_claims()`, each backed by one line of its tool's answer."""
    if which == "news":
        app, document = _single_node_app("newsroom", fetch_news, {"company": "Halvorsen"}, NEWS_REPORT), NEWS_REPORT
    else:
        document = "# Office status\n\n" + "\n".join(sentence for sentence, _ in hundred_claims()) + "\n"
        app = _single_node_app("status", fetch_status, {"region": "europe"}, document)
    snap = Snapshot(trace_dir)
    app.invoke({"messages": [("user", "Report")]}, config=snap.config())
    snap.set_report(document)
    snap.finalize()
    return snap.trace_dir, document


# -- a looping node (the rounds of one node are steps of their own) -----------------------------------------

BRIEFING = [
    "Halvorsen opened a second plant in Gdansk after a year of construction.",
    "The board approved a new share buyback program in the spring.",
]
TRUE_PLANT = "Halvorsen opened a second plant in Gdansk."
# Round 1 writes both before any tool has returned anything: the expansion is invented (and repeated by
# round 2), the buyback a guess that round 2's tool happens to confirm, after round 1 wrote it.
INVENTED = "The company plans to enter the Japanese market."
GUESSED = "The board approved a new share buyback program."
DRAFTS = [f"{INVENTED} {GUESSED}", f"{TRUE_PLANT} {INVENTED}"]


@tool
def fetch_briefing(company: str) -> str:
    """The latest briefing lines about a company."""
    return "\n".join(BRIEFING)


class Drafts(MessagesState):
    drafts: Annotated[list[str], operator.add]


def build_drafts() -> Any:
    """START -> draft -> draft -> END: round 2 looks the company up, round 1 did not."""

    def draft(state: Drafts, config: RunnableConfig) -> dict[str, Any]:
        done = len(state.get("drafts") or [])
        if done:
            fetch_briefing.invoke({"company": "Halvorsen"}, config=config)
        return {"drafts": [DRAFTS[done]]}

    graph = StateGraph(Drafts)
    graph.add_node("draft", draft)
    graph.add_edge(START, "draft")
    graph.add_conditional_edges("draft", lambda s: "draft" if len(s["drafts"]) < len(DRAFTS) else END,
                                ["draft", END])
    return graph.compile()


def capture_drafts(trace_dir: Path) -> tuple[Path, str]:
    """Run the looping draft node under a Snapshot; the report joins every round's draft."""
    snap = Snapshot(trace_dir)
    result = build_drafts().invoke({"messages": [("user", "Brief me on Halvorsen")], "drafts": []},
                                   config=snap.config())
    document = "# Halvorsen briefing\n\n" + "\n\n".join(result["drafts"]) + "\n"
    snap.set_report(document)
    snap.finalize()
    return snap.trace_dir, document
