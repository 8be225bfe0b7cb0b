"""A tool-calling agent loop: agent <-> tools (a ToolNode) until the model answers without tool calls.

Owns three sample data tools, the system prompt and `build_app(llm)`; the chat model comes from the caller.
"""

# Any LangChain chat model that can bind tools works (ChatOpenAI against a real or a local scripted
# server, or a scripted fake in tests). The company is fictional and the data illustrative.

from __future__ import annotations

import json
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage, SystemMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import tool
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.prebuilt import ToolNode, tools_condition

SYSTEM_PROMPT = (
    "You are an equity research assistant. Use the tools to look up every figure you state, "
    "cite the tool each figure came from, and answer only when you have the data."
)

_FUNDAMENTALS: dict[str, dict[str, Any]] = {
    "HALV": {
        "company": "Halvorsen Robotics Inc.",
        "fiscal_year": "FY2024",
        "revenue_usd_millions": 1234,
        "net_income_usd_millions": 151,
        "gross_margin_pct": 41.3,
        "shares_outstanding_millions": 62.7,
    },
}
_HEADLINES: dict[str, list[dict[str, str]]] = {
    "HALV": [
        {"date": "2025-01-14", "title": "Halvorsen wins 310-robot order from Nordic grocer"},
        {"date": "2025-01-09", "title": "Halvorsen opens second plant in Gdansk"},
        {"date": "2024-12-18", "title": "Halvorsen raises dividend to $0.24 a share"},
    ],
}
_CONSENSUS: dict[str, dict[str, Any]] = {
    "HALV": {"fiscal_year": "FY2025", "eps_usd": 2.85, "mean_price_target_usd": 52.0, "buy": 9, "hold": 5, "sell": 1},
}


def _sample(table: dict[str, Any], ticker: str, tool_name: str) -> Any:
    if ticker not in table:
        # Raised as ValueError so the ToolNode hands it back to the model, which can correct itself.
        raise ValueError(
            f"{tool_name}: no sample data for ticker {ticker!r}; known tickers: {', '.join(sorted(table))}."
        )
    return table[ticker]


def _answer(data: Any) -> str:
    return json.dumps(data, indent=2, sort_keys=True)


@tool
def get_company_fundamentals(ticker: str) -> str:
    """Latest fiscal year fundamentals: revenue and net income (USD millions), gross margin, share count."""
    return _answer({"ticker": ticker, **_sample(_FUNDAMENTALS, ticker, "get_company_fundamentals")})


@tool
def get_news_headlines(ticker: str, limit: int = 3) -> str:
    """The most recent news headlines about the company, newest first (limit: how many, 1 to 10)."""
    if not 1 <= limit <= 10:
        raise ValueError(f"get_news_headlines: limit must be between 1 and 10, got {limit}.")
    return _answer({"ticker": ticker, "headlines": _sample(_HEADLINES, ticker, "get_news_headlines")[:limit]})


@tool
def get_analyst_consensus(ticker: str) -> str:
    """Analysts' consensus: next fiscal year EPS, mean price target and rating counts."""
    return _answer({"ticker": ticker, **_sample(_CONSENSUS, ticker, "get_analyst_consensus")})


TOOLS = [get_company_fundamentals, get_news_headlines, get_analyst_consensus]


def build_app(llm: BaseChatModel) -> CompiledStateGraph:
    """Compile the agent loop around `llm`, a chat model that supports `bind_tools`."""
    try:
        model = llm.bind_tools(TOOLS)
    except NotImplementedError as error:
        raise TypeError(
            f"agent_loop_app.build_app: the chat model {type(llm).__name__} cannot bind tools "
            f"(bind_tools raised NotImplementedError); pass a tool-calling model such as ChatOpenAI."
        ) from error

    def agent(state: MessagesState, config: RunnableConfig) -> dict[str, list[BaseMessage]]:
        """Asks the model for the next step: tool calls, or the final answer."""
        response = model.invoke([SystemMessage(content=SYSTEM_PROMPT), *state["messages"]], config=config)
        return {"messages": [response]}

    graph = StateGraph(MessagesState)
    graph.add_node("agent", agent)
    graph.add_node("tools", ToolNode(TOOLS, handle_tool_errors=ValueError))
    graph.add_edge(START, "agent")
    graph.add_conditional_edges("agent", tools_condition)
    graph.add_edge("tools", "agent")
    return graph.compile(name="agent_loop")
