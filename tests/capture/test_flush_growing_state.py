"""The flush converts and stores a node's state of messages by what it adds: every node's input holds the
earlier messages again, so a list that begins with the items of the last such list (the same objects) takes
their conversion and encoding from it and visits only the new items. A list that changed in the middle (a
message replaced or removed) is converted in full; the folder is the same either way."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage, RemoveMessage
from langgraph.graph import START, MessagesState, StateGraph
from test_capture_kept_alive import _model_chain

from pytest_auditfence import Snapshot, textfmt
from pytest_auditfence.capturing import store
from pytest_auditfence.capturing.tracefiles import read_trace_text


def _visits(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, nodes: int) -> int:
    """Values the flush converts and encodes (each call of the two recursive steps) after a `nodes` chain."""
    calls = [0]

    def counting(inner: Any) -> Any:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            calls[0] += 1
            return inner(*args, **kwargs)

        return wrapper

    snap = Snapshot(tmp_path / f"n{nodes}")
    _model_chain(nodes).invoke({"messages": [HumanMessage(content="Analyze AAPL")]}, config=snap.config())
    with monkeypatch.context() as patch:
        patch.setattr(textfmt._Converter, "convert", counting(textfmt._Converter.convert))
        patch.setattr(store.BlobStore, "_encode", counting(store.BlobStore._encode))
        snap.flush()
    assert snap.finalize().complete
    return calls[0]


def test_a_growing_state_is_converted_and_encoded_once_per_new_message(tmp_path, monkeypatch):
    # c38155d visited every message of every node's state again: 1,102 -> 3,002 visits from 20 to 40 nodes (x2.7;
    # 778 -> 1,498 now)
    small, large = _visits(tmp_path, monkeypatch, 20), _visits(tmp_path, monkeypatch, 40)
    assert large / small < 2.2, (small, large)


def _editing_graph() -> Any:
    """Nodes that append, then one that replaces a middle message (same id) and removes another."""
    counter = itertools.count()

    def add(state: MessagesState) -> dict[str, Any]:
        n = next(counter)
        return {"messages": [AIMessage(content=f"finding {n}: revenue grew {n}.5%", id=f"m{n}")]}

    def edit(state: MessagesState) -> dict[str, Any]:
        return {"messages": [AIMessage(content="finding 3 corrected: revenue grew 9.9%", id="m3"),
                             RemoveMessage(id="m5")]}

    g = StateGraph(MessagesState)
    names = [*(f"a{i:02d}" for i in range(12)), "edit", *(f"b{i:02d}" for i in range(4))]
    for name in names:
        g.add_node(name, edit if name == "edit" else add)
    g.add_edge(START, names[0])
    for a, b in itertools.pairwise(names):
        g.add_edge(a, b)
    return g.compile()


def _files(folder: Path) -> dict[str, str]:
    snap = Snapshot(folder)
    _editing_graph().invoke({"messages": [HumanMessage(content="Analyze AAPL", id="q")]}, config=snap.config())
    manifest = snap.finalize()
    assert manifest.complete
    return {record.path: record.sha256 for record in manifest.files}


def test_a_state_changed_in_the_middle_is_converted_in_full(tmp_path, monkeypatch):
    """The negative: after a message is replaced and another removed, the later inputs show the change, and
    every file is the one written with no list taken from an earlier one."""
    reused = _files(tmp_path / "reused")
    with monkeypatch.context() as patch:
        patch.setattr(textfmt, "PREFIX_MIN", 10**9, raising=False)  # absent before this stop
        patch.setattr(store, "PREFIX_MIN", 10**9, raising=False)
        whole = _files(tmp_path / "whole")
    assert reused == whole
    text = read_trace_text(tmp_path / "reused", "nodes/b02/r1.input.txt")
    assert "finding 3 corrected: revenue grew 9.9%" in text
    assert "finding 3: revenue grew 3.5%" not in text and "finding 5: revenue grew 5.5%" not in text
    assert "finding 4: revenue grew 4.5%" in text and "finding 13: revenue grew 13.5%" in text
