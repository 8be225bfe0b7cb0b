"""Real compiled LangGraph graphs of every topology shape the capture must resolve, shared by the tests.

`MODULE_APP` is compiled at import time on purpose (the "module-level compile" pattern).
"""

from __future__ import annotations

import asyncio
import operator
from collections.abc import Callable, Iterator
from typing import Annotated, Any, TypedDict

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langchain_core.tools import tool
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition
from langgraph.types import Command, Send


class State(TypedDict):
    log: Annotated[list, operator.add]


def step(name: str) -> Callable[[State], dict[str, Any]]:
    def run(state: State) -> dict[str, Any]:
        return {"log": [f"{name} saw {len(state['log'])} entries"]}

    run.__name__ = name
    return run


def chain(*nodes: Callable[[Any], dict[str, Any]], schema: Any = State) -> Any:
    """A graph of `schema` that runs `nodes` one after another, each named after its function."""
    g = StateGraph(schema)
    for node in nodes:
        g.add_node(node.__name__, node)
    for a, b in zip([START, *(n.__name__ for n in nodes)], [n.__name__ for n in nodes], strict=False):
        g.add_edge(a, b)
    return g.compile()


def linear() -> Any:
    g = StateGraph(State)
    for n in ("fetch", "analyze", "write"):
        g.add_node(n, step(n))
    g.add_edge(START, "fetch")
    g.add_edge("fetch", "analyze")
    g.add_edge("analyze", "write")
    return g.compile()


def fan_out_in() -> Any:
    g = StateGraph(State)
    for n in ("a", "b", "c"):
        g.add_node(n, step(n))
    g.add_edge(START, "a")
    g.add_edge(START, "b")
    g.add_edge("a", "c")
    g.add_edge("b", "c")
    return g.compile()


def parallel_lanes() -> Any:
    """Two lanes that never join: a->c and b->d run in the same steps; edges must not cross lanes."""
    g = StateGraph(State)
    for n in ("a", "b", "c", "d"):
        g.add_node(n, step(n))
    g.add_edge(START, "a")
    g.add_edge(START, "b")
    g.add_edge("a", "c")
    g.add_edge("b", "d")
    return g.compile()


def join() -> Any:
    """A waiting edge: c runs once both a and b (of unequal length) are done."""
    g = StateGraph(State)
    for n in ("a", "a2", "b", "c"):
        g.add_node(n, step(n))
    g.add_edge(START, "a")
    g.add_edge(START, "b")
    g.add_edge("a", "a2")
    g.add_edge(["a2", "b"], "c")
    return g.compile()


def conditional() -> Any:
    g = StateGraph(State)
    for n in ("classify", "bull", "bear", "report"):
        g.add_node(n, step(n))
    g.add_edge(START, "classify")

    def choose(state: State) -> str:
        return "bear" if len(state["log"]) % 2 else "bull"

    g.add_conditional_edges("classify", choose, ["bull", "bear"])
    g.add_edge("bull", "report")
    g.add_edge("bear", "report")
    return g.compile()


class MapState(TypedDict):
    tickers: list[str]
    results: Annotated[list, operator.add]


def map_reduce() -> Any:
    def plan(state: MapState) -> dict[str, Any]:
        return {"tickers": ["AAPL", "MSFT", "GOOG"]}

    def price(arg: dict[str, Any]) -> dict[str, Any]:
        ticker = arg["ticker"]
        return {"results": [f"{ticker} closed at {100 + len(ticker) * 7 + ord(ticker[0])}.25 USD"]}

    def reduce(state: MapState) -> dict[str, Any]:
        return {"results": [f"summary of {len(state['results'])} prices"]}

    g = StateGraph(MapState)
    g.add_node("plan", plan)
    g.add_node("price", price)
    g.add_node("reduce", reduce)
    g.add_edge(START, "plan")
    g.add_conditional_edges("plan", lambda s: [Send("price", {"ticker": t}) for t in s["tickers"]], ["price"])
    g.add_edge("price", "reduce")
    return g.compile()


def command_routing() -> Any:
    def router(state: State) -> Command:
        return Command(goto="equities", update={"log": ["router picked equities"]})

    g = StateGraph(State)
    g.add_node("router", router, destinations=("equities", "bonds"))
    g.add_node("equities", step("equities"))
    g.add_node("bonds", step("bonds"))
    g.add_edge(START, "router")
    return g.compile()


def _research_subgraph() -> Any:
    sg = StateGraph(State)
    sg.add_node("search", step("search"))
    sg.add_node("summarize", step("summarize"))
    sg.add_edge(START, "search")
    sg.add_edge("search", "summarize")
    return sg.compile()


def subgraph_node() -> Any:
    g = StateGraph(State)
    g.add_node("plan", step("plan"))
    g.add_node("research", _research_subgraph())
    g.add_node("write", step("write"))
    g.add_edge(START, "plan")
    g.add_edge("plan", "research")
    g.add_edge("research", "write")
    return g.compile()


def subgraph_in_function(calls: int = 2) -> Any:
    sub = _research_subgraph()

    def outer(state: State) -> dict[str, Any]:
        found = [sub.invoke({"log": [f"query {i}"]})["log"][-1] for i in range(calls)]
        return {"log": found}

    async def aouter(state: State) -> dict[str, Any]:
        found = [(await sub.ainvoke({"log": [f"query {i}"]}))["log"][-1] for i in range(calls)]
        return {"log": found}

    from langchain_core.runnables import RunnableLambda

    g = StateGraph(State)
    g.add_node("outer", RunnableLambda(outer, afunc=aouter))
    g.add_node("final", step("final"))
    g.add_edge(START, "outer")
    g.add_edge("outer", "final")
    return g.compile()


def parent_command() -> Any:
    """A subgraph node that hands its update to the parent graph with Command(graph=Command.PARENT)."""

    def check(state: State) -> Command:
        return Command(graph=Command.PARENT, goto="escalate", update={"log": ["check found a 12% gap"]})

    review = StateGraph(State)
    review.add_node("check", check)
    review.add_edge(START, "check")

    def escalate(state: State) -> dict[str, Any]:
        return {"log": [f"escalated: {state['log'][-1]}"]}

    g = StateGraph(State)
    g.add_node("plan", step("plan"))
    g.add_node("review", review.compile())
    g.add_node("escalate", escalate)
    g.add_edge(START, "plan")
    g.add_edge("plan", "review")
    g.add_edge("escalate", END)
    return g.compile()


# -- tool-calling agent -------------------------------------------------------------------------------
PRICES = {"AAPL": "187.32", "MSFT": "411.07", "GOOG": "141.80"}


@tool
def get_price(ticker: str) -> str:
    """Closing price of a ticker."""
    return f"{ticker} closed at {PRICES[ticker]} USD on 2024-03-28"


class ToolCallingFakeModel(GenericFakeChatModel):
    """GenericFakeChatModel that accepts bind_tools (the stock fake models do not)."""

    def bind_tools(self, tools: Any, **kwargs: Any) -> ToolCallingFakeModel:
        return self


def agent_messages() -> Iterator[AIMessage]:
    return iter([
        AIMessage(content="", tool_calls=[{"name": "get_price", "args": {"ticker": "AAPL"}, "id": "call_1"}],
                  usage_metadata={"input_tokens": 12, "output_tokens": 5, "total_tokens": 17}),
        AIMessage(content="", tool_calls=[{"name": "get_price", "args": {"ticker": "MSFT"}, "id": "call_2"},
                                          {"name": "get_price", "args": {"ticker": "GOOG"}, "id": "call_3"}]),
        AIMessage(content="AAPL closed at 187.32 USD; MSFT at 411.07 USD; GOOG at 141.80 USD.",
                  usage_metadata={"input_tokens": 40, "output_tokens": 20, "total_tokens": 60}),
    ])


def agent_loop(tools: list[Any] | None = None, messages: Iterator[AIMessage] | None = None) -> Any:
    """A model asking for tools (its `messages`, by default agent_messages()) and a ToolNode running them."""
    model = ToolCallingFakeModel(messages=messages or agent_messages()).bind_tools(tools or [get_price])

    def agent(state: MessagesState) -> dict[str, Any]:
        return {"messages": [model.invoke(state["messages"])]}

    g = StateGraph(MessagesState)
    g.add_node("agent", agent)
    g.add_node("tools", ToolNode(tools or [get_price]))
    g.add_edge(START, "agent")
    g.add_conditional_edges("agent", tools_condition)
    g.add_edge("tools", "agent")
    return g.compile()


def failing() -> Any:
    def boom(state: State) -> dict[str, Any]:
        raise RuntimeError("data source unavailable")

    g = StateGraph(State)
    g.add_node("fetch", step("fetch"))
    g.add_node("boom", boom)
    g.add_edge(START, "fetch")
    g.add_edge("fetch", "boom")
    g.add_edge("boom", END)
    return g.compile()


# Compiled at import, as many real projects do (`app = builder.compile()` at module level).
MODULE_APP = linear()


MODES = ("invoke", "ainvoke", "stream", "astream")


def run(app: Any, inputs: Any, config: Any, mode: str) -> Any:
    """Run `app` once in `mode`; returns the final state (or the last streamed chunk)."""
    if mode == "invoke":
        return app.invoke(inputs, config=config)
    if mode == "stream":
        return list(app.stream(inputs, config=config))[-1]
    if mode == "ainvoke":
        return asyncio.run(app.ainvoke(inputs, config=config))

    async def consume() -> Any:
        return [chunk async for chunk in app.astream(inputs, config=config)][-1]

    if mode == "astream":
        return asyncio.run(consume())
    raise ValueError(mode)
