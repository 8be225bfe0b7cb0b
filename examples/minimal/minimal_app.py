"""The seed's minimal app: `research -> write` over `MessagesState`, compiled at module import.

Owns the `lookup_company_facts` tool (fictional sample data), the two nodes and the module-level `app`.
"""

from __future__ import annotations

import json
import re
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import tool
from langgraph.graph import END, START, MessagesState, StateGraph

# Two fictional companies; every figure is illustrative sample data (USD millions where money).
_COMPANY_FACTS: dict[str, dict[str, Any]] = {
    "HALV": {
        "name": "Halvorsen Robotics Inc.",
        "sector": "Industrial machinery",
        "fiscal_year": "FY2024",
        "revenue_usd_millions": 1234,
        "net_income_usd_millions": 151,
        "employees": 4850,
        "headquarters": "Trondheim, Norway",
    },
    "KSTR": {
        "name": "Kestrel Foods plc",
        "sector": "Packaged foods",
        "fiscal_year": "FY2024",
        "revenue_usd_millions": 2960,
        "net_income_usd_millions": 212,
        "employees": 11200,
        "headquarters": "Leeds, United Kingdom",
    },
}


@tool
def lookup_company_facts(ticker: str) -> str:
    """Key facts about a company (name, sector, revenue and net income in USD millions, employees)."""
    facts = _COMPANY_FACTS.get(ticker)
    if facts is None:
        raise ValueError(
            f"lookup_company_facts: no sample data for ticker {ticker!r}; known tickers: "
            f"{', '.join(sorted(_COMPANY_FACTS))} (fictional companies). Ask e.g. 'Analyze HALV'."
        )
    return json.dumps({"ticker": ticker, "source": "company facts (sample data)", **facts}, indent=2, sort_keys=True)


def _requested_ticker(messages: list[BaseMessage]) -> str:
    requests = [m for m in messages if m.type == "human"]
    words = re.findall(r"\b[A-Z]{2,5}\b", str(requests[-1].content)) if requests else []
    known = [w for w in words if w in _COMPANY_FACTS]
    if known:
        return known[0]
    if words:
        return words[0]  # unknown: the tool says which tickers it has
    raise ValueError(
        "research: found no ticker in the user's request; pass e.g. {'messages': [('user', 'Analyze HALV')]}."
    )


def research(state: MessagesState, config: RunnableConfig) -> dict[str, list[BaseMessage]]:
    """Looks the company up and reports its findings, one labelled line per figure."""
    ticker = _requested_ticker(state["messages"])
    # The node's config makes the tool call a child run of this node, visible to callbacks.
    facts = json.loads(lookup_company_facts.invoke({"ticker": ticker}, config=config))
    findings = "\n".join(
        [
            f"Findings for {ticker} ({facts['fiscal_year']}):",
            f"- company: {facts['name']}",
            f"- sector: {facts['sector']}",
            f"- revenue: ${facts['revenue_usd_millions']:,} million",
            f"- net income: ${facts['net_income_usd_millions']:,} million",
            f"- employees: {facts['employees']:,}",
        ]
    )
    return {"messages": [AIMessage(content=findings, name="research")]}


def write_report(state: MessagesState) -> dict[str, list[BaseMessage]]:
    """Turns the research findings into a short markdown report."""
    findings = next((m for m in reversed(state["messages"]) if m.name == "research"), None)
    if findings is None:
        raise ValueError("write: no findings from the research node; run the graph from START.")
    text = str(findings.content)
    facts = dict(re.findall(r"^- ([a-z ]+): (.+)$", text, re.MULTILINE))
    ticker, year = re.match(r"Findings for (\w+) \((\w+)\):", text).groups()
    revenue = int(re.sub(r"[^\d]", "", facts["revenue"]))
    net_income = int(re.sub(r"[^\d]", "", facts["net income"]))
    report = "\n".join(
        [
            f"# {facts['company']} ({ticker})",
            "",
            f"{facts['company']} is in the {facts['sector'].lower()} sector and employs {facts['employees']} people.",
            "",
            f"## {year} results",
            "",
            f"- Revenue was {facts['revenue']} (source: company facts).",
            f"- Net income was {facts['net income']} (source: company facts).",
            f"- Net margin was {net_income / revenue * 100:.1f}%, net income divided by revenue.",
        ]
    )
    return {"messages": [AIMessage(content=report + "\n", name="write")]}


graph = StateGraph(MessagesState)
graph.add_node("research", research)
graph.add_node("write", write_report)
graph.add_edge(START, "research")
graph.add_edge("research", "write")
graph.add_edge("write", END)
app = graph.compile()
