"""The callback handler only queues raw events during a run and works them out later (the cheap hot path):
parallel threads, mid-run resolution by wrapped tools, long runs written in batches, and values a node
changes after a callback must all come out as if each event had been recorded when it happened."""

from __future__ import annotations

import itertools
import json
from typing import Any

import pytest
from capture_graphs import State
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, HumanMessage
from langgraph.graph import START, MessagesState, StateGraph

from pytest_auditfence import Snapshot, wrap
from pytest_auditfence.capturing import handler as handler_module

LANES = 8


def lookup(lane: int, call: int) -> str:
    return f"lane {lane} call {call}"


def _lanes_app(tools: dict[str, Any]) -> Any:
    """START fans out to LANES parallel nodes; each calls a wrapped function three times."""

    def lane(i: int) -> Any:
        def run(state: State) -> dict[str, Any]:
            return {"log": [tools["lookup"](i, c) for c in range(3)]}

        return run

    g = StateGraph(State)
    for i in range(LANES):
        g.add_node(f"lane{i}", lane(i))
        g.add_edge(START, f"lane{i}")
    return g.compile()


@pytest.mark.parametrize("mode", ["invoke", "astream"])
def test_wrapped_calls_in_parallel_lanes_belong_to_their_lane(tmp_path, mode):
    # Under invoke the lanes run in worker threads: each wrapped call works out the pending events (to find
    # its node) while the other threads keep appending theirs.
    snap = Snapshot(tmp_path / "t")
    app = _lanes_app(wrap({"lookup": lookup}, snap))
    if mode == "invoke":
        app.invoke({"log": []}, config=snap.config())
    else:
        import asyncio

        async def consume() -> None:
            async for _ in app.astream({"log": []}, config=snap.config()):
                pass

        asyncio.run(consume())
    m = snap.finalize()
    assert m.complete, m.incomplete_reason
    for i in range(LANES):
        calls = m.files_of(f"lane{i}", "tool_call")
        assert len(calls) == 3, (i, [c.path for c in calls])
        for c in calls:
            assert f"lane: {i}" in (tmp_path / "t" / c.path.replace(".txt", ".arguments.txt")).read_text()
    edges = {tuple(e) for e in m.edges}
    assert all(("__input__", f"lane{i}") in edges for i in range(LANES))


def _chain(nodes: int, journal: Any) -> Any:
    """`nodes` nodes in a row, then `watch`, which notes how many journal lines are on disk mid-run."""
    seen: list[int] = []

    def make(i: int) -> Any:
        def node(state: State) -> dict[str, Any]:
            return {"log": [f"step {i} saw {len(state['log'])}"]}

        return node

    def watch(state: State) -> dict[str, Any]:
        seen.append(len(journal.read_text().splitlines()) if journal.exists() else 0)
        return {}

    g = StateGraph(State)
    names = [f"s{i:02d}" for i in range(nodes)]
    for name in names:
        g.add_node(name, make(int(name[1:])))
    g.add_node("watch", watch)
    g.add_edge(START, names[0])
    for a, b in itertools.pairwise([*names, "watch"]):
        g.add_edge(a, b)
    app = g.compile()
    app.seen = seen  # type: ignore[attr-defined]
    return app


def test_long_run_is_written_in_batches_with_the_same_result(tmp_path, read_tree, monkeypatch):
    reference = Snapshot(tmp_path / "ref")
    ref_app = _chain(30, tmp_path / "ref" / "journal.jsonl")
    ref_app.invoke({"log": []}, config=reference.config())
    reference.finalize()
    assert ref_app.seen == [0]  # by default nothing is written before the run ends

    monkeypatch.setattr(handler_module, "MAX_PENDING", 10)
    batched = Snapshot(tmp_path / "batched")
    app = _chain(30, tmp_path / "batched" / "journal.jsonl")
    app.invoke({"log": []}, config=batched.config())
    manifest = batched.finalize()

    # 30 nodes ran: their 60 start and end events are on disk, all but the last batch (up to MAX_PENDING + 1).
    assert app.seen and app.seen[0] >= 60 - 11, app.seen
    assert manifest.complete
    assert read_tree(tmp_path / "batched") == read_tree(tmp_path / "ref")
    seqs = [json.loads(line)["seq"] for line in (tmp_path / "batched" / "journal.jsonl").read_text().splitlines()]
    assert seqs == list(range(1, len(seqs) + 1))


def test_values_changed_after_a_callback_are_captured_as_they_were(tmp_path):
    model = GenericFakeChatModel(messages=iter([AIMessage(content="first answer"), AIMessage(content="second answer")]))

    def ask(state: MessagesState) -> dict[str, Any]:
        window = list(state["messages"])
        reply = model.invoke(window)
        window.append(HumanMessage(content="appended after the call"))  # the model saw one message
        state["messages"].append(HumanMessage(content="pushed into the given state"))  # bad practice, seen
        return {"messages": [reply]}

    g = StateGraph(MessagesState)
    g.add_node("ask", ask)
    g.add_edge(START, "ask")
    snap = Snapshot(tmp_path / "t")
    g.compile().invoke({"messages": [HumanMessage(content="what changed?")]}, config=snap.config())
    m = snap.finalize()
    root = tmp_path / "t"
    [model_file] = m.files_of("ask", "model_call")
    model_text = (root / model_file.path).read_text()
    assert "what changed?" in model_text and "first answer" in model_text
    assert "appended after the call" not in model_text
    [node_in] = m.files_of("ask", "node_input")
    assert "pushed into the given state" not in (root / node_in.path).read_text()
