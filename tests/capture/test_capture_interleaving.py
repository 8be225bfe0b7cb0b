"""A rerun gives the same folder whatever order concurrent runs happened in (issue 14).

Each test captures one real LangGraph graph twice, with a `Gate` forcing its concurrent runs (a ToolNode's
parallel tool calls, `Send` tasks, agents behind parallel tools) into one order and then into the other,
and compares every file but the journal, which records arrival and nothing else compares."""

from __future__ import annotations

import asyncio
import json
import operator
import threading
from pathlib import Path
from typing import Annotated, Any, TypedDict

import pytest
from capture_graphs import MapState, State, agent_loop, chain, map_reduce, step
from interleave import Gate, node_task, retrieval, tool_call
from langchain_core.documents import Document
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.retrievers import BaseRetriever
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.types import Command, Send, interrupt

from pytest_auditfence import Snapshot
from pytest_auditfence.audit.cascade import audit_cascade_sync
from pytest_auditfence.capturing.store import PACK_NAME, BlobStore, PackReader, read_journal
from pytest_auditfence.capturing.topology import materialize
from pytest_auditfence.manifest import load_manifest

FILING = "".join(f"FY{2000 + i} revenue of HALV: ${1_000 + 7 * i:,} million\n" for i in range(30))
RATES = "".join(f"FY{2000 + i} rates of HALV: {3 + i / 10:.1f}%\n" for i in range(30))
REPORT = "FY2003 revenue was $1,021 million."


@tool
def get_filing(ticker: str) -> str:
    """A section of a company's filing."""
    return FILING


@tool
def get_rates(ticker: str) -> str:
    """A company's borrowing rates."""
    return RATES


def _agent_app(asked: tuple[str, ...] = ("c1", "c2", "c3")) -> Any:
    """The model asks for three calls at once, in the order `asked`; ToolNode runs them in parallel."""
    calls = {"c1": {"name": "get_filing", "args": {"ticker": "HALV"}, "id": "c1"},
             "c2": {"name": "get_rates", "args": {"ticker": "HALV"}, "id": "c2"},
             "c3": {"name": "get_filing", "args": {"ticker": "HALV-B"}, "id": "c3"}}
    return agent_loop([get_filing, get_rates], iter([
        AIMessage(content="Reading.", tool_calls=[calls[c] for c in asked]),
        AIMessage(content=REPORT),
    ]))


def _capture(trace: Path, app: Any, inputs: Any, gate: Gate | None, mode: str = "invoke",
             report: str = REPORT) -> Path:
    snap = Snapshot(trace)
    config = snap.config()
    if gate is not None:
        config["callbacks"] = gate.around(snap.handler)
    if mode == "ainvoke":
        asyncio.run(app.ainvoke(inputs, config=config))
    else:
        app.invoke(inputs, config=config)
    assert gate is None or gate.passed(), "the gate ordered nothing: the test would prove nothing"
    snap.set_report(report)
    snap.finalize()
    return snap.trace_dir


def _differences(a: dict[str, bytes], b: dict[str, bytes]) -> list[str]:
    return sorted(p for p in set(a) | set(b) if a.get(p) != b.get(p))


@pytest.mark.parametrize("mode", ["invoke", "ainvoke"])
def test_toolnode_calls_in_either_order_give_the_same_folder(tmp_path: Path, read_tree: Any, mode: str) -> None:
    inputs = {"messages": [("user", "Summarise HALV's filing.")]}
    asked = _capture(tmp_path / "asked", _agent_app(), inputs, Gate(["c1", "c2", "c3"], tool_call,
                                                                     asynchronous=mode == "ainvoke"), mode)
    reverse = _capture(tmp_path / "reverse", _agent_app(), inputs, Gate(["c3", "c2", "c1"], tool_call,
                                                                         asynchronous=mode == "ainvoke"), mode)
    first, second = read_tree(asked), read_tree(reverse)
    assert _differences(first, second) == []
    # the gate did reverse the arrival: the journals list the tool ends in opposite orders
    ends = [[e["tool_call_id"] for e in map(json.loads, (folder / "journal.jsonl").read_text().splitlines())
             if e["type"] == "tool_end"] for folder in (asked, reverse)]
    assert ends == [["c1", "c2", "c3"], ["c3", "c2", "c1"]]
    # what is compared holds the calls: each in its file, numbered in the order the model asked for them
    assert "tool_call_id: c3" in (asked / "tools/tools/r1.get_filing.2.txt").read_text()
    assert "ticker: HALV-B" in (asked / "tools/tools/r1.get_filing.2.arguments.txt").read_text()
    assert audit_cascade_sync(trace_dir=reverse).coverage.numerator == 1
    # the order the model asked in is a fact of the run: asked the other way round, the calls swap numbers
    swapped = read_tree(_capture(tmp_path / "swapped", _agent_app(("c3", "c2", "c1")), inputs, None, mode))
    assert {"tools/tools/r1.get_filing.1.txt", "tools/tools/r1.get_filing.2.txt"} <= set(_differences(first, swapped))


def test_the_pack_is_in_canonical_order_and_reads_back(tmp_path: Path) -> None:
    inputs = {"messages": [("user", "Summarise HALV's filing.")]}
    trace = _capture(tmp_path / "t", _agent_app(), inputs, Gate(["c3", "c1", "c2"], tool_call))
    with PackReader(trace / "blobs") as reader:
        names = list(reader.index())
        assert names == sorted(names) and len(names) > 10
        assert all(reader.data(sha) for sha in names)
    assert (trace / "blobs" / PACK_NAME).stat().st_size > 0


@pytest.mark.parametrize("mode", ["invoke", "ainvoke"])
def test_send_tasks_in_either_order_give_the_same_folder(tmp_path: Path, read_tree: Any, mode: str) -> None:
    inputs: MapState = {"tickers": [], "results": []}
    key, later = node_task("price", "ticker"), mode == "ainvoke"
    one = _capture(tmp_path / "one", map_reduce(), inputs, Gate(["AAPL", "MSFT", "GOOG"], key, asynchronous=later),
                   mode, report="x")
    other = _capture(tmp_path / "other", map_reduce(), inputs,
                     Gate(["GOOG", "MSFT", "AAPL"], key, asynchronous=later), mode, report="x")
    assert _differences(read_tree(one), read_tree(other)) == []
    assert "AAPL closed at" in (one / "nodes/price/r1.output.txt").read_text()


class _Priced(TypedDict):
    ticker: str
    results: Annotated[list, operator.add]


def test_send_tasks_to_a_subgraph_node_in_either_order_give_the_same_folder(tmp_path: Path, read_tree: Any) -> None:
    def look(state: _Priced) -> dict[str, Any]:
        return {"results": [f"{state['ticker']} looked up"]}

    def note(state: _Priced) -> dict[str, Any]:
        return {"results": [f"{state['ticker']} closed at {100 + len(state['ticker'])}.25 USD"]}

    def app() -> Any:
        graph = StateGraph(MapState)
        graph.add_node("plan", lambda state: {"tickers": ["AAPL", "MSFT", "GOOG"]})
        graph.add_node("price", chain(look, note, schema=_Priced))
        graph.add_edge(START, "plan")
        graph.add_conditional_edges("plan", lambda s: [Send("price", {"ticker": t, "results": []})
                                                       for t in s["tickers"]], ["price"])
        return graph.compile()

    inputs: MapState = {"tickers": [], "results": []}
    key = node_task("price", "ticker")
    one = _capture(tmp_path / "one", app(), inputs, Gate(["AAPL", "MSFT", "GOOG"], key), report="x")
    other = _capture(tmp_path / "other", app(), inputs, Gate(["GOOG", "MSFT", "AAPL"], key), report="x")
    assert _differences(read_tree(one), read_tree(other)) == []
    notes = "".join((one / f"nodes/price/note/r{n}.output.txt").read_text() for n in (1, 2, 3))
    assert all(f"{t} closed at" in notes for t in ("AAPL", "MSFT", "GOOG"))


def _research_agent() -> Any:
    """A small graph a tool runs (an agent behind a tool): what it finds depends on the topic it is given."""

    def search(state: State) -> dict[str, Any]:
        return {"log": [f"{state['log'][0]}: " + " ".join(f"page {i} of {state['log'][0]}" for i in range(40))]}

    def summarize(state: State) -> dict[str, Any]:
        return {"log": [f"{state['log'][0]} revenue was ${len(state['log'][0]) * 111:,} million"]}

    return chain(search, summarize)


def test_agents_behind_parallel_tools_in_either_order_give_the_same_folder(tmp_path: Path, read_tree: Any) -> None:
    agent = _research_agent()

    @tool
    def research(topic: str, config: RunnableConfig) -> str:
        """Research a topic with the research agent."""
        return agent.invoke({"log": [topic]}, config)["log"][-1]

    def app() -> Any:
        return agent_loop([research], iter([
            AIMessage(content="", tool_calls=[{"name": "research", "args": {"topic": "HALV"}, "id": "r1"},
                                              {"name": "research", "args": {"topic": "KORB"}, "id": "r2"}]),
            AIMessage(content="HALV revenue was $444 million."),
        ]))

    inputs = {"messages": [("user", "Research HALV and KORB.")]}
    one = _capture(tmp_path / "one", app(), inputs, Gate(["r1", "r2"], tool_call),
                   report="HALV revenue was $444 million.")
    other = _capture(tmp_path / "other", app(), inputs, Gate(["r2", "r1"], tool_call),
                     report="HALV revenue was $444 million.")
    assert _differences(read_tree(one), read_tree(other)) == []
    # each run of the agent is a round of its nodes, numbered by the tool call that ran it (r1, then r2)
    assert "HALV revenue was $444 million" in (one / "nodes/tools/summarize/r1.output.txt").read_text()
    assert "KORB revenue was $444 million" in (one / "nodes/tools/summarize/r2.output.txt").read_text()


class _Summariser(BaseChatModel):
    """A chat model whose reply depends on what it is asked only (not on how many calls came before)."""

    @property
    def _llm_type(self) -> str:
        return "summariser"

    def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None,
                  **kwargs: Any) -> ChatResult:
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=f"Summary: {messages[-1].content}"))])


class _Pages(BaseRetriever):
    def _get_relevant_documents(self, query: str, *, run_manager: Any = None) -> list[Document]:
        return [Document(page_content=f"A page on {query}: its revenue grew {len(query)}% in FY2024.")]


def test_models_and_retrievers_called_by_parallel_tools_in_either_order_give_the_same_folder(
        tmp_path: Path, read_tree: Any) -> None:
    def app() -> Any:
        @tool
        def read_web(topic: str) -> str:
            """Read web pages about a topic and summarise them."""
            pages = _Pages().invoke(topic)
            return _Summariser().invoke([("user", pages[0].page_content)]).content

        return agent_loop([read_web, get_filing], iter([
            AIMessage(content="", tool_calls=[{"name": "read_web", "args": {"topic": "HALV"}, "id": "w1"},
                                              {"name": "get_filing", "args": {"ticker": "HALV"}, "id": "w2"},
                                              {"name": "read_web", "args": {"topic": "KORB A"}, "id": "w3"}]),
            AIMessage(content=REPORT),
        ]))

    inputs = {"messages": [("user", "Summarise HALV's filing.")]}
    one = _capture(tmp_path / "one", app(), inputs, Gate(["w1", "w2", "w3"], tool_call))
    other = _capture(tmp_path / "other", app(), inputs, Gate(["w3", "w2", "w1"], tool_call))
    assert _differences(read_tree(one), read_tree(other)) == []
    derived = {f.path: f.model_derived for f in load_manifest(one).files if f.kind == "tool_call"}
    assert derived == {"tools/tools/r1.get_filing.1.txt": False, "tools/tools/r1.read_web.1.txt": True,
                       "tools/tools/r1.read_web.2.txt": True}
    # the model and retriever calls a tool's code made take the place of the tool call that made them
    assert "Summary: A page on HALV:" in (one / "models/tools/r1._Summariser.1.txt").read_text()
    assert "Summary: A page on KORB A:" in (one / "models/tools/r1._Summariser.2.txt").read_text()
    assert "query: HALV" in (one / "retrievers/tools/r1._Pages.1.txt").read_text()
    assert "query: KORB A" in (one / "retrievers/tools/r1._Pages.2.txt").read_text()
    # a journal of an earlier version named the tool run of a model call in its payload: read the same way
    events = read_journal(one / "journal.jsonl").events
    earlier = read_journal(one / "journal.jsonl").events
    moved = 0
    for event in earlier:
        if event["type"] == "model_start" and "in_tool" in event["meta"]:
            event["in_tool"] = event["meta"].pop("in_tool")
            moved += 1
    assert moved == 2
    load = BlobStore(one).reader().value
    manifests = [materialize(journal, load).manifest for journal in (events, earlier)]
    assert manifests[0] == manifests[1] and any(f.model_derived for f in manifests[1].files)


def test_retrievers_run_at_once_give_the_same_folder_whichever_ends_first(tmp_path: Path, read_tree: Any) -> None:
    def app() -> Any:
        both_started = threading.Barrier(2)

        class Overlapping(_Pages):
            def _get_relevant_documents(self, query: str, *, run_manager: Any = None) -> list[Document]:
                both_started.wait(timeout=10)  # each call has begun before either ends: they overlap
                return super()._get_relevant_documents(query)

        def read(state: State, config: RunnableConfig) -> dict[str, Any]:
            found = Overlapping().batch(["HALV", "KORB A"], config)
            return {"log": [docs[0].page_content for docs in found]}

        return chain(read)

    one = _capture(tmp_path / "one", app(), {"log": []}, Gate(["HALV", "KORB A"], retrieval, at_end=True), report="x")
    other = _capture(tmp_path / "other", app(), {"log": []}, Gate(["KORB A", "HALV"], retrieval, at_end=True),
                     report="x")
    assert _differences(read_tree(one), read_tree(other)) == []
    texts = [(one / f"retrievers/read/r1.Overlapping.{n}.txt").read_text() for n in (1, 2)]
    assert sorted("query: HALV\n" in t for t in texts) == [False, True]


def _review_app() -> Any:
    """Two branches in one step; `approve` pauses with interrupt() until the run is resumed."""

    def approve(state: State) -> dict[str, Any]:
        return {"log": [f"approved: {interrupt('approve the note?')}"]}

    graph = StateGraph(State)
    graph.add_node("fetch", step("fetch"))
    graph.add_node("approve", approve)
    graph.add_node("write", step("write"))
    graph.add_edge(START, "fetch")
    graph.add_edge(START, "approve")
    graph.add_edge(["fetch", "approve"], "write")
    return graph.compile(checkpointer=InMemorySaver())


def test_an_interrupt_beside_a_parallel_branch_in_either_order_gives_the_same_folder(tmp_path: Path,
                                                                                     read_tree: Any) -> None:
    def capture(trace: Path, order: list[str]) -> Path:
        app, snap = _review_app(), Snapshot(trace)
        config = snap.config(configurable={"thread_id": "review-1"})
        gate = Gate(order, node_task(None))
        config["callbacks"] = gate.around(snap.handler)
        assert "__interrupt__" in app.invoke({"log": []}, config=config)
        assert gate.passed()
        config["callbacks"] = [snap.handler]
        app.invoke(Command(resume="yes"), config=config)
        snap.set_report("x")
        snap.finalize()
        return trace

    one, other = capture(tmp_path / "one", ["fetch", "approve"]), capture(tmp_path / "other", ["approve", "fetch"])
    assert _differences(read_tree(one), read_tree(other)) == []
    assert "approved: yes" in (one / "nodes/approve/r1.output.txt").read_text()
    assert (one / "nodes/approve/r1.interrupted.txt").is_file()
