"""A small real LangGraph pipeline (two specialists with tools, fanning in to a writer) for CLI and HTML tests.

Owns `build_app(fabricate=...)`, `capture_run(trace_dir, ...)` and the planted fabrications' facts, and a run
whose `draft` node loops (`build_looping_app`, `capture_looping_run`): round 1 invents a margin, round 2 repeats it beside a filed figure.
"""

from __future__ import annotations

import json
import operator
from pathlib import Path
from typing import Annotated, Any, TypedDict

from langchain_core.messages import AIMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import tool
from langgraph.graph import END, START, MessagesState, StateGraph

from pytest_auditfence import Snapshot

# The fabrications `build_app(fabricate=True)` plants: figure in the report -> node that invented it.
PLANTED = {"4,100 employees": "filings", "$9.75": "writer"}


@tool
def get_prices(ticker: str) -> str:
    """Month-end closes of a (fictional) ticker, USD."""
    closes = [{"date": "2024-11-29", "close": 45.95}, {"date": "2024-12-31", "close": 46.2}]
    return json.dumps({"ticker": ticker, "currency": "USD", "closes": closes}, indent=2, sort_keys=True)


@tool
def get_filing(ticker: str) -> str:
    """Headline figures of the (fictional) FY2024 10-K, USD millions."""
    rows = {"revenue_usd_millions": 1234, "net_income_usd_millions": 151, "diluted_eps_usd": 2.41}
    return json.dumps({"ticker": ticker, "document": "10-K FY2024", **rows}, indent=2, sort_keys=True)


def build_app(*, fabricate: bool = False) -> Any:
    def prices(state: MessagesState, config: RunnableConfig) -> dict[str, Any]:
        data = json.loads(get_prices.invoke({"ticker": "HALV"}, config=config))
        last = data["closes"][-1]
        return {"messages": [AIMessage(content=f"Price note: HALV closed at ${last['close']:.2f} on {last['date']}.")]}

    def filings(state: MessagesState, config: RunnableConfig) -> dict[str, Any]:
        data = json.loads(get_filing.invoke({"ticker": "HALV"}, config=config))
        notes = [AIMessage(content=f"Filing note: revenue was ${data['revenue_usd_millions']:,} million and "
                                   f"net income ${data['net_income_usd_millions']} million in FY2024.")]
        if fabricate:  # nothing the filing tool returned mentions staff
            notes.append(AIMessage(content="Staff note: the company has 4,100 employees."))
        return {"messages": notes}

    def writer(state: MessagesState) -> dict[str, Any]:
        notes = sorted(m.content.split(":", 1)[1].strip() for m in state["messages"] if isinstance(m, AIMessage))
        lines = ["# HALV research note", "", *(f"- {note}" for note in notes)]
        if fabricate:
            lines.append("- Diluted EPS reached $9.75 in FY2024.")
        lines += ["", "We remain constructive on the name."]
        return {"messages": [AIMessage(content="\n".join(lines) + "\n")]}

    graph = StateGraph(MessagesState)
    graph.add_node("prices", prices)
    graph.add_node("filings", filings)
    graph.add_node("writer", writer)
    graph.add_edge(START, "prices")
    graph.add_edge(START, "filings")
    graph.add_edge(["prices", "filings"], "writer")
    graph.add_edge("writer", END)
    return graph.compile()


def capture_run(trace_dir: Path, *, fabricate: bool = False) -> str:
    """Run the app under a Snapshot into `trace_dir`, record its report, finalize; returns the report."""
    snap = Snapshot(trace_dir)
    result = build_app(fabricate=fabricate).invoke(
        {"messages": [("user", "Write a research note on HALV")]}, config=snap.config()
    )
    report = result["messages"][-1].content
    snap.set_report(report)
    snap.finalize()
    return report


def capture_broken_run(trace_dir: Path) -> None:
    """A run whose price feed fails mid-way: the capture is left marked incomplete (a recorded fact)."""

    @tool
    def get_prices(ticker: str) -> str:
        """A price feed that is down."""
        raise ConnectionError(f"price feed unavailable for {ticker}")

    def prices(state: MessagesState, config: RunnableConfig) -> dict[str, Any]:
        return {"messages": [AIMessage(content=get_prices.invoke({"ticker": "HALV"}, config=config))]}

    graph = StateGraph(MessagesState)
    graph.add_node("prices", prices)
    graph.add_edge(START, "prices")
    app = graph.compile()
    try:
        with Snapshot(trace_dir) as snap:
            app.invoke({"messages": [("user", "Write a research note on HALV")]}, config=snap.config())
    except ConnectionError:
        return
    raise AssertionError("the broken run was expected to raise ConnectionError")


class _Drafts(TypedDict, total=False):
    drafts: Annotated[list[str], operator.add]
    report: str


# The fabrication of `capture_looping_run`: in the report, written by round 1 of `draft`, repeated by round 2.
LOOPED_FABRICATION = "Operating margin was 22%."


def build_looping_app() -> Any:
    """`draft` runs twice (round 2 looks the filing up), then `writer` copies the last draft into `report`."""

    def draft(state: _Drafts, config: RunnableConfig) -> dict[str, Any]:
        if not state.get("drafts"):
            return {"drafts": [LOOPED_FABRICATION]}
        data = json.loads(get_filing.invoke({"ticker": "HALV"}, config=config))
        return {"drafts": [f"Revenue was ${data['revenue_usd_millions']:,} million in FY2024. {LOOPED_FABRICATION}"]}

    def writer(state: _Drafts) -> dict[str, Any]:
        return {"report": state["drafts"][-1] + "\n"}

    graph = StateGraph(_Drafts)
    graph.add_node("draft", draft)
    graph.add_node("writer", writer)
    graph.add_edge(START, "draft")
    graph.add_conditional_edges("draft", lambda s: "draft" if len(s["drafts"]) < 2 else "writer", ["draft", "writer"])
    graph.add_edge("writer", END)
    return graph.compile()


def capture_looping_run(trace_dir: Path) -> str:
    """Run `build_looping_app()` under a Snapshot into `trace_dir`, record its report, finalize; returns it."""
    snap = Snapshot(trace_dir)
    report = build_looping_app().invoke({"drafts": []}, config=snap.config())["report"]
    snap.set_report(report)
    snap.finalize()
    return report
