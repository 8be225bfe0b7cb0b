"""The shape most projects start with: a `create_agent` researcher with two tools, then a summarizer node.

`build_app(llm)` takes the chat model, so tests can hand it one that replays recorded calls.
"""

from __future__ import annotations

from typing import Any

from langchain.agents import create_agent
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import tool
from langgraph.graph import START, MessagesState, StateGraph

SUMMARY_PROMPT = "Summarize the research below for an executive in three sentences. Keep every figure."


@tool
def company_fundamentals(ticker: str) -> str:
    """Reported figures of the company's last fiscal year."""
    return (f"{ticker} fiscal 2024: revenue $1,234 million; net income $151 million; "
            "gross margin 41.3%; employees 5,200")


@tool
def news_headlines(ticker: str) -> str:
    """The three most recent news headlines about the company."""
    return "\n".join([
        "2024-11-04 Halvorsen opens second plant in Gdansk",
        "2024-12-02 Halvorsen wins 310-robot order from Nordic grocer",
        "2024-12-18 Halvorsen raises dividend to $0.24 a share",
    ])


def build_app(llm: Any) -> Any:
    researcher = create_agent(llm, tools=[company_fundamentals, news_headlines],
                              system_prompt="Research the company with your tools, then report what you found.")

    def summarizer(state: MessagesState, config: RunnableConfig) -> dict[str, Any]:
        research = state["messages"][-1].content
        reply = llm.invoke([("system", SUMMARY_PROMPT), ("user", research)], config=config)
        return {"messages": [reply]}

    graph = StateGraph(MessagesState)
    graph.add_node("researcher", researcher)
    graph.add_node("summarizer", summarizer)
    graph.add_edge(START, "researcher")
    graph.add_edge("researcher", "summarizer")
    return graph.compile()
