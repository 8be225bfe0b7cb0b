"""The callbacks keep a run's id as the int of its UUID until the flush, not the UUID object LangChain made:
an int is nothing the garbage collector walks, and LangChain frees the UUID when the run ends. The journal
still names every run by its UUID's text, the same text as before, each formatted once per run."""

from __future__ import annotations

import gc
import json
import uuid
from pathlib import Path
from typing import Any

from capture_graphs import agent_loop
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.messages import HumanMessage

from pytest_auditfence import Snapshot
from pytest_auditfence.capturing import handler as handler_module


class _RunIds(BaseCallbackHandler):
    """Remembers the text of every run id LangChain reports, and the parent of each."""

    run_inline = True

    def __init__(self) -> None:
        self.runs: dict[str, str | None] = {}

    def _seen(self, run_id: uuid.UUID, parent_run_id: uuid.UUID | None) -> None:
        self.runs[str(run_id)] = None if parent_run_id is None else str(parent_run_id)

    def on_chain_start(self, serialized: Any, inputs: Any, *, run_id: uuid.UUID,
                       parent_run_id: uuid.UUID | None = None, **kwargs: Any) -> None:
        self._seen(run_id, parent_run_id)

    def on_chat_model_start(self, serialized: Any, messages: Any, *, run_id: uuid.UUID,
                            parent_run_id: uuid.UUID | None = None, **kwargs: Any) -> None:
        self._seen(run_id, parent_run_id)

    def on_tool_start(self, serialized: Any, input_str: str, *, run_id: uuid.UUID,
                      parent_run_id: uuid.UUID | None = None, **kwargs: Any) -> None:
        self._seen(run_id, parent_run_id)


def _uuids_alive() -> int:
    gc.collect()
    return sum(1 for o in gc.get_objects() if isinstance(o, uuid.UUID))


def test_a_run_keeps_no_uuid_of_langchain_alive_until_the_flush(tmp_path: Path) -> None:
    inputs = {"messages": [HumanMessage(content="price of AAPL?")]}
    agent_loop().invoke(inputs)  # LangChain's own caches warmed (a fake model's replies last one run)
    app = agent_loop()
    before = _uuids_alive()
    snap = Snapshot(tmp_path / "t")
    app.invoke(inputs, config=snap.config())
    # The run is over, nothing flushed yet: none of its about 12 run ids is held as a UUID (c38155d: all of them).
    assert _uuids_alive() == before
    assert snap.finalize().complete


def test_the_journal_names_each_run_by_its_uuid_text(tmp_path: Path) -> None:
    """The negative: the ids kept as ints come out as LangChain's UUIDs, run, parent and owning node task."""
    seen = _RunIds()
    snap = Snapshot(tmp_path / "t")
    config = snap.config()
    config["callbacks"] = [*config["callbacks"], seen]
    agent_loop().invoke({"messages": [HumanMessage(content="price of AAPL?")]}, config=config)
    snap.finalize()
    events = [json.loads(line) for line in (tmp_path / "t" / "journal.jsonl").read_text().splitlines()]
    metas = [e["meta"] for e in events if e.get("meta", {}).get("run_id")]
    assert len(metas) >= 15
    for meta in metas:
        assert meta["run_id"] in seen.runs, meta
        assert meta["parent_run_id"] == seen.runs[meta["run_id"]], meta
        assert meta["task"] is None or meta["task"] in seen.runs, meta
        assert str(uuid.UUID(meta["run_id"])) == meta["run_id"]  # canonical text
    node_starts = [e for e in events if e["type"] == "node_start"]
    assert node_starts and all(e["meta"]["task"] == e["meta"]["run_id"] for e in node_starts)
    tools = [e for e in events if e["type"] == "tool_start"]
    node_runs = {e["meta"]["run_id"]: e["node"] for e in node_starts}
    assert tools and all(node_runs[e["meta"]["task"]] == "tools" for e in tools)


def test_uuid_text_is_the_uuid_str() -> None:
    for value in (uuid.UUID(int=0), uuid.UUID(int=2**128 - 1), uuid.uuid4(), uuid.UUID("00000001-0002-0003-0004-000000000005")):
        assert handler_module._uuid_text(value.int) == str(value)
