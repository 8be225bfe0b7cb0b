"""A small real LangGraph app (deterministic nodes and a @tool) written into pytester projects."""

from __future__ import annotations

import pytest

# pytester's in-process runs drop modules first imported inside them; importing the heavy ones here
# keeps them loaded across runs (about a second saved per run on a small machine).
import langchain_core.tools  # noqa: F401
import langgraph.graph  # noqa: F401
import pytest_auditfence.audit.cascade  # noqa: F401
import pytest_auditfence.snapshot  # noqa: F401

GRAPH_APP = '''
from typing import TypedDict

from langchain_core.tools import tool
from langgraph.graph import END, START, StateGraph


@tool
def lookup_revenue(ticker: str) -> str:
    """Return the company's reported revenue figures."""
    return f"{ticker} revenue fiscal 2023: $383.3 billion\\nservices revenue fiscal 2023: $85.2 billion"


class State(TypedDict, total=False):
    ticker: str
    invent: bool
    findings: str
    report: str


def research(state: State) -> dict:
    return {"findings": lookup_revenue.invoke({"ticker": state["ticker"]})}


def write(state: State) -> dict:
    lines = [f"# {state['ticker']}", "", "Revenue was $383.3 billion in fiscal 2023."]
    if state.get("invent"):
        # the write node invents a figure: research found $85.2 billion
        lines.append("Services revenue was $99.9 billion in fiscal 2023.")
    return {"report": "\\n".join(lines) + "\\n"}


builder = StateGraph(State)
builder.add_node("research", research)
builder.add_node("write", write)
builder.add_edge(START, "research")
builder.add_edge("research", "write")
builder.add_edge("write", END)
app = builder.compile()


def run(snapshot, invent=False):
    out = app.invoke({"ticker": "AAPL", "invent": invent}, config=snapshot.config())
    snapshot.set_report(out["report"])
    return out["report"]
'''


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    """A pytester folder holding `graphapp.py` (importable by the test files written into it)."""
    pytester.makepyfile(graphapp=GRAPH_APP)
    pytester.syspathinsert()
    return pytester
