"""What the callbacks keep alive until the flush (issue 14, the run's overhead against a no-op handler).

Every object a callback keeps until finalize() counts towards the next garbage collection of the user's run,
so the handler keeps only what the journal needs: no model result (LLMResult, its generations), no raw event
tuple, no node metadata dict. What is written stays the same; an unreadable model result still fails closed."""

from __future__ import annotations

import gc
import itertools
import json
import uuid
from pathlib import Path
from typing import Any

from capture_graphs import agent_loop
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.outputs import ChatGeneration, LLMResult
from langgraph.graph import START, MessagesState, StateGraph

from pytest_auditfence import Snapshot
from pytest_auditfence.capturing.handler import CaptureHandler


class _NoopHandler(BaseCallbackHandler):
    run_inline = True

    def on_chat_model_start(self, *args: Any, **kwargs: Any) -> None:
        return None


def _model_chain(nodes: int) -> Any:
    """`nodes` nodes in a row, each calling a chat model on the last messages of a growing state."""
    model = GenericFakeChatModel(messages=(AIMessage(content=f"finding {i}") for i in itertools.count()))

    def node(state: MessagesState) -> dict[str, Any]:
        return {"messages": [model.invoke(state["messages"][-4:])]}

    g = StateGraph(MessagesState)
    names = [f"n{i:02d}" for i in range(nodes)]
    for name in names:
        g.add_node(name, node)
    g.add_edge(START, names[0])
    for a, b in itertools.pairwise(names):
        g.add_edge(a, b)
    return g.compile()


def _alive(kind: type) -> int:
    gc.collect()
    return sum(1 for o in gc.get_objects() if type(o) is kind)


def _raw_tuples_alive() -> int:
    """Tuples led by one of the handler's resolution steps (the form raw events had before this stop)."""
    gc.collect()
    return sum(1 for o in gc.get_objects() if type(o) is tuple and o
               and getattr(o[0], "__qualname__", "").startswith("CaptureHandler."))


def test_a_run_keeps_no_model_result_and_no_raw_event_tuple_until_the_flush(tmp_path: Path) -> None:
    app = agent_loop()
    inputs = {"messages": [HumanMessage(content="price of AAPL?")]}
    before = (_alive(LLMResult), _alive(ChatGeneration))
    snap = Snapshot(tmp_path / "t")
    app.invoke(inputs, config=snap.config())
    # The run is over, nothing flushed yet: its three model results are gone, so are the raw event tuples.
    assert (_alive(LLMResult), _alive(ChatGeneration)) == before
    assert _raw_tuples_alive() == 0
    manifest = snap.finalize()
    assert manifest.complete, manifest.incomplete_reason
    # ... and what the journal says of the model calls is still there: each model_end names its blob.
    events = [json.loads(line) for line in (tmp_path / "t" / "journal.jsonl").read_text().splitlines()]
    ends = [e for e in events if e["type"] == "model_end"]
    assert len(ends) == 3 and all(e["blob"] for e in ends)


def test_net_allocations_a_capture_adds_per_node_stay_bounded(tmp_path: Path) -> None:
    """GC-tracked objects allocated and not freed during the run, capture against a no-op handler: about 17
    per node (a node's input and update copies, its run ids, the model's input list); 33 before this stop."""
    nodes = 30
    app = _model_chain(nodes)
    inputs = {"messages": [HumanMessage(content="Analyze AAPL")]}
    app.invoke(inputs, config=Snapshot(tmp_path / "warm").config())  # warm-up: imports, caches

    def net(config: dict[str, Any]) -> int:
        gc.collect()
        gc.disable()
        try:
            app.invoke(inputs, config=config)
            return gc.get_count()[0]
        finally:
            gc.enable()

    noop = min(net({"callbacks": [_NoopHandler()]}) for _ in range(2))
    captured = [Snapshot(tmp_path / f"c{i}") for i in range(2)]
    capture = min(net(s.config()) for s in captured)
    assert (capture - noop) / nodes <= 22, (capture, noop)
    for s in captured:
        assert s.finalize().complete


class _UnreadableResult:
    """A model result whose generations cannot be read."""

    @property
    def generations(self) -> Any:
        raise RuntimeError("generations unavailable")


def test_an_unreadable_model_result_is_read_again_at_the_flush_and_fails_closed(tmp_path: Path) -> None:
    snap = Snapshot(tmp_path / "t")
    handler = snap.handler
    assert isinstance(handler, CaptureHandler)
    handler.on_llm_end(_UnreadableResult(), run_id=uuid.uuid4())
    manifest = snap.finalize()
    assert manifest.complete is False
    assert "model_end" in manifest.incomplete_reason and "generations unavailable" in manifest.incomplete_reason


def test_a_readable_model_result_reported_the_same_way_keeps_the_capture_complete(tmp_path: Path) -> None:
    snap = Snapshot(tmp_path / "t")
    result = LLMResult(generations=[[ChatGeneration(message=AIMessage(content="revenue grew 4%"))]])
    snap.handler.on_llm_end(result, run_id=uuid.uuid4())
    manifest = snap.finalize()
    assert manifest.complete, manifest.incomplete_reason
    events = [json.loads(line) for line in (tmp_path / "t" / "journal.jsonl").read_text().splitlines()]
    ends = [e for e in events if e["type"] == "model_end"]
    assert len(ends) == 1 and ends[0]["blob"]
