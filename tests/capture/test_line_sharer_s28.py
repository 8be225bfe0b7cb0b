"""The line sharer remembers the lines of references one by one while they are few or would be cut into short
stretches (a chain of nodes, each adding a message to the state: a stretch per earlier message), and builds the
stretches from the files' references once they are many lines long on average (a looping agent's tool outputs).
Either way every lookup finds the places a line-by-line index finds, so the trace folder is the same bytes."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import pytest
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.tools import tool
from langgraph.graph import MessagesState

from pytest_auditfence import Snapshot
from pytest_auditfence.capturing import tracefiles
from tests.capture.capture_graphs import agent_loop, chain
from tests.capture.test_finalize_rounds import run as agent_run
from tests.capture.test_finalize_rounds import short_replies
from tests.capture.test_line_places_s27 import LineByLine, _files, _folder_files, _stored


def _chain(nodes: int, edit_at: int | None = None) -> Any:
    """`nodes` nodes in a row, each calling a chat model on the last messages of a growing state (the 50-node
    bench's shape); at node `edit_at` the node replaces the fourth message (same id) instead."""
    model = GenericFakeChatModel(messages=(
        AIMessage(content=f"Finding {i}: revenue grew {i % 17}.{i % 10}% to ${100 + i}.4 billion.", id=f"m{i}")
        for i in itertools.count()))

    def node(state: MessagesState) -> dict[str, Any]:
        if len(state["messages"]) == edit_at:
            return {"messages": [AIMessage(content="Finding 2 restated: revenue grew 0.2% to $1.4 billion.", id="m2")]}
        return {"messages": [model.invoke(state["messages"][-4:])]}

    def named(i: int) -> Any:
        def step(state: MessagesState) -> dict[str, Any]:
            return node(state)

        step.__name__ = f"n{i:02d}"
        return step

    return chain(*(named(i) for i in range(nodes)), schema=MessagesState)


def _capture_chain(folder: Path, nodes: int, edit_at: int | None = None) -> Snapshot:
    snap = Snapshot(folder)
    _chain(nodes, edit_at).invoke({"messages": [HumanMessage(content="Analyze AAPL", id="q")]},
                                  config=snap.config(recursion_limit=nodes + 10))
    return snap


def _recorded(monkeypatch: pytest.MonkeyPatch, snap: Snapshot) -> LineByLine:
    """Finalize `snap` with the line-by-line model beside the sharer (every lookup compared)."""
    sharers: list[LineByLine] = []
    with monkeypatch.context() as patch:
        patch.setattr(tracefiles, "LineSharer", lambda: sharers.append(LineByLine()) or sharers[-1])
        snap.finalize()
    (sharer,) = sharers
    return sharer


def _stretches_first(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tracefiles, "_LINE_BY_LINE", -1)
    monkeypatch.setattr(tracefiles, "_LINES_PER_STRETCH", 0)


def _walks(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """Counts of the lookups that walk stretches (both ways)."""
    counts = {"_each_place": 0, "_latest_files": 0}
    for name in counts:
        inner = getattr(tracefiles.LineSharer, name)

        def counting(self: Any, *args: Any, _name: str = name, _inner: Any = inner) -> Any:
            counts[_name] += 1
            return _inner(self, *args)

        monkeypatch.setattr(tracefiles.LineSharer, name, counting)
    return counts


def test_a_chain_of_nodes_is_remembered_line_by_line(tmp_path, monkeypatch):
    """A 60-node chain (each node input is the last one and a new message): its references are cut into a
    stretch per message, so lines stay remembered one by one; no lookup walks stretches, none were built, and
    the folder is the one the stretches give, byte for byte."""
    walks = _walks(monkeypatch)
    model = _recorded(monkeypatch, _capture_chain(tmp_path / "lines", 60))
    assert model.lookups > 100 and model.differences == []
    assert model._referenced_places is not None and model._stretches == []
    assert walks == {"_each_place": 0, "_latest_files": 0}
    assert model._referenced > 1000  # lines in references, remembered one by one
    with monkeypatch.context() as patch:
        _stretches_first(patch)
        _capture_chain(tmp_path / "stretches", 60).finalize()
    assert walks["_latest_files"] + walks["_each_place"] > 100
    ours, theirs = _folder_files(tmp_path / "lines"), _folder_files(tmp_path / "stretches")
    assert ours.keys() == theirs.keys() and len(ours) > 150
    assert ours == theirs


@tool("get_filing")
def get_long_filing(ticker: str, call: int) -> str:
    """One long section of a company's filing."""
    rows = "".join(f"| {ticker} item {call}.{i} | {1000 + 37 * i + call:,} | {900 + 29 * i:,} |\n" for i in range(300))
    return f"Income statement of {ticker}, section {call} (in millions)\n| Item | FY2024 | FY2023 |\n{rows}"


def _capture_agent(folder: Path, rounds: int) -> Snapshot:
    snap = Snapshot(folder)
    app = agent_loop(tools=[get_long_filing], messages=short_replies(rounds))
    app.invoke({"messages": [HumanMessage(content="Summarise HALV's filing.")]},
               config=snap.config(recursion_limit=2 * rounds + 10))
    return snap


def test_a_looping_agent_is_remembered_by_stretches_once_its_references_are_long(tmp_path, monkeypatch):
    """A 12-round agent loop (a ToolNode each round, 302 lines of tool output): its references stand for long
    stretches (each round's output, shifted), so the stretches are built from the recorded references once
    they hold more than _LINE_BY_LINE lines and the lines remembered one by one are dropped; every lookup
    before and after agrees with the line-by-line index, and the folder is the one a sharer that never builds
    stretches writes."""
    walks = _walks(monkeypatch)
    model = _recorded(monkeypatch, _capture_agent(tmp_path / "switched", 12))
    assert model.lookups > 24 and model.differences == []
    assert model._referenced_places is None and model._records == []
    assert len(model._stretches) == len(model._paths)
    assert walks["_latest_files"] + walks["_each_place"] > 10
    lines = sum(len(file_lines) for file_lines in model.lines.values())
    own = sum(len(places) for places in model._places.values())
    assert own < lines / 3, (own, lines)
    with monkeypatch.context() as patch:
        patch.setattr(tracefiles, "_LINE_BY_LINE", 10**9)
        never = _recorded(patch, _capture_agent(tmp_path / "never", 12))
    assert never._referenced_places is not None and never.differences == []
    assert _folder_files(tmp_path / "switched") == _folder_files(tmp_path / "never")


def test_an_agent_with_short_tool_outputs_stays_line_by_line(tmp_path, monkeypatch):
    """The agent of test_finalize_rounds (42 lines of tool output a round): a stretch per message and per tool
    output, about 11 lines each; below _LINES_PER_STRETCH, so no stretches are built, and the folder is the
    stretches' one."""
    model = _recorded(monkeypatch, agent_run(tmp_path / "lines", 24))
    assert model.differences == [] and model._referenced_places is not None and model._stretches == []
    assert model._referenced > 10 * tracefiles._LINE_BY_LINE
    with monkeypatch.context() as patch:
        _stretches_first(patch)
        agent_run(tmp_path / "stretches", 24).finalize()
    assert _folder_files(tmp_path / "lines") == _folder_files(tmp_path / "stretches")


@pytest.mark.parametrize(("limit", "per_stretch"), [(-1, 0), (40, 0), (300, 0), (300, 4), (10**9, 0)])
def test_seeded_runs_give_the_same_files_wherever_the_sharer_switches(monkeypatch, limit, per_stretch):
    """60 seeded runs of files repeating earlier ones (ranges, indented or not): with the switch to stretches at
    the first file, after a few or many lines in references, or never, every lookup finds the line-by-line
    index's places and the stored files are the same."""
    baseline = {seed: _stored(tracefiles.LineSharer(), _files(seed)) for seed in range(60)}
    monkeypatch.setattr(tracefiles, "_LINE_BY_LINE", limit)
    monkeypatch.setattr(tracefiles, "_LINES_PER_STRETCH", per_stretch)
    switched_midway = 0
    for seed in range(60):
        files = _files(seed)
        model = LineByLine()
        assert _stored(model, files) == baseline[seed], seed
        assert model.differences == [], (seed, model.differences[:3])
        if model._referenced_places is None and model._starts and model._starts[0] and limit > 0:
            switched_midway += 1
    if limit in (40, 300):
        assert switched_midway > 10, switched_midway


def test_a_message_restated_in_the_middle_is_written_as_itself(tmp_path, monkeypatch):
    """The negative: a node replaces the third message of a 40-node chain's state. Every later node input
    writes the restated line as its own text, between references, and names no range that holds the old
    line; each file reads back as rendered, and the stretches give the same folder."""
    model = _recorded(monkeypatch, _capture_chain(tmp_path / "lines", 40, edit_at=20))
    assert model.differences == [] and model._referenced_places is not None
    reader = tracefiles.TraceFiles(tmp_path / "lines")
    restated = "    Finding 2 restated: revenue grew 0.2% to $1.4 billion."
    later = [f"nodes/n{i:02d}/r1.input.txt" for i in range(20, 40)]
    for path in later:
        text = reader.text(path)
        assert text == "\n".join(model.lines[path])
        assert restated in text.split("\n") and "Finding 2: revenue grew" not in text
    first = (tmp_path / "lines" / later[0]).read_text()
    assert restated in first.split("\n") and first.startswith(tracefiles.HEADER)
    before = reader.text("nodes/n19/r1.input.txt")
    assert "Finding 2: revenue grew 2.2% to $102.4 billion." in before and "restated" not in before
    with monkeypatch.context() as patch:
        _stretches_first(patch)
        _capture_chain(tmp_path / "stretches", 40, edit_at=20).finalize()
    assert _folder_files(tmp_path / "lines") == _folder_files(tmp_path / "stretches")
