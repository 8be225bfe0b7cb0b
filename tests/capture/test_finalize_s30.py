"""finalize() writes the trace folder with fewer system calls and without reading back what it has in memory: one
mkdir per folder it makes (no lookups first), each file by open/write/close, and the pack rewritten in canonical
order from the blobs the run put (nothing read back). The folder is the same bytes as before, under invoke and
ainvoke; a write that fails is an error naming the file, and leaves no half-written folder behind."""

from __future__ import annotations

import asyncio
import errno
import hashlib
import os
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import HumanMessage
from langchain_core.tools import tool

from pytest_auditfence import Snapshot, read_trace_text
from pytest_auditfence.capturing import store
from pytest_auditfence.capturing.store import PACK_NAME, PackReader, TextRef, read_journal
from pytest_auditfence.errors import TraceDirError
from pytest_auditfence.manifest import JOURNAL_NAME, MANIFEST_NAME
from tests.capture.capture_graphs import agent_loop, chain
from tests.capture.test_finalize_linear import ENV_SECRET, OPENAI, get_filing, replies

QUESTION = {"messages": [HumanMessage(content="Summarise HALV's filing.", id="q")]}


def _capture(folder: Path, rounds: int = 4, mode: str = "invoke", secret_in: int | None = None,
             messages: Any = None) -> Snapshot:
    """A looping agent whose tool returns a 42-line filing section a round (raw files the pack refers to); its
    model's replies are `messages` if given."""
    snap = Snapshot(folder)
    app = agent_loop(tools=[get_filing], messages=replies(rounds, secret_in) if messages is None else messages)
    config = snap.config(recursion_limit=2 * rounds + 10)
    if mode == "ainvoke":
        asyncio.run(app.ainvoke(QUESTION, config=config))
    else:
        app.invoke(QUESTION, config=config)
    return snap


def _folder(root: Path) -> dict[str, bytes]:
    """Every file's bytes but the journal's (its run ids are random)."""
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and p.name != JOURNAL_NAME}


def _blobs_whole(root: Path) -> None:
    """Every blob the journal names reads back from the pack alone, its bytes matching its sha256."""
    named = {event["blob"] for event in read_journal(root / JOURNAL_NAME).events if event.get("blob")}
    with PackReader(root / "blobs") as reader:
        index = reader.index()
        assert named <= index.keys()
        assert not any(isinstance(entry, TextRef) for entry in index.values())
        for sha in index:
            assert hashlib.sha256(reader.data(sha)).hexdigest() == sha


def test_invoke_and_ainvoke_write_the_same_folder_as_a_run_whose_blobs_are_read_back(tmp_path, monkeypatch):
    runs = {}
    for mode in ("invoke", "ainvoke"):
        _capture(tmp_path / mode, mode=mode).finalize()
        runs[mode] = _folder(tmp_path / mode)
    # nothing kept in memory: materialize and the pack's rewrite read every blob back from the pack
    monkeypatch.setattr(store, "RECENT_CHARS", 0)
    _capture(tmp_path / "read", mode="invoke").finalize()
    assert runs["invoke"] == runs["ainvoke"] == _folder(tmp_path / "read")
    folder = runs["invoke"]
    assert b"\nlines " in b"\n" + folder[f"blobs/{PACK_NAME}"]  # tool outputs stored once, as lines of their files
    manifest = Snapshot(tmp_path / "invoke").load_manifest()
    for record in manifest.files:  # each file reads back as what the manifest's sha256 names
        text = read_trace_text(tmp_path / "invoke", record.path)
        assert hashlib.sha256(text.encode("utf-8")).hexdigest() == record.sha256, record.path


def test_finalize_reads_nothing_back_and_makes_each_folder_with_one_mkdir(tmp_path, monkeypatch):
    snap = _capture(tmp_path / "t")
    snap.flush()  # the run's events written: the journal and the pack are open
    calls: dict[str, list[str]] = {"mkdir": [], "index": [], "stat": []}
    mkdir, index, stat = os.mkdir, PackReader.index, os.stat

    def counting_mkdir(path: Any, *args: Any, **kwargs: Any) -> None:
        calls["mkdir"].append(os.fspath(path))
        mkdir(path, *args, **kwargs)

    def counting_index(self: PackReader) -> Any:
        calls["index"].append(str(self.path))
        return index(self)

    def counting_stat(path: Any, *args: Any, **kwargs: Any) -> Any:
        if "/nodes/" in os.fspath(path) or "/tools/" in os.fspath(path):  # not the clearing of the top level
            calls["stat"].append(os.fspath(path))
        return stat(path, *args, **kwargs)

    monkeypatch.setattr(os, "mkdir", counting_mkdir)
    monkeypatch.setattr(os, "stat", counting_stat)
    monkeypatch.setattr(PackReader, "index", counting_index)
    snap.finalize()
    monkeypatch.undo()
    root = tmp_path / "t"
    folders = sorted(p for p in root.rglob("*") if p.is_dir() and p.name != "blobs")
    assert sorted(calls["mkdir"]) == sorted(map(str, folders))  # each once, none tried before its parent
    assert calls["index"] == []  # the pack was rewritten from the blobs in memory
    assert calls["stat"] == []  # no lookup before a write
    assert (root / "blobs" / PACK_NAME).read_bytes().count(b"\nlines ") >= 4  # and still refers to tool outputs


def test_a_second_finalize_after_more_events_reads_the_pack_and_gives_its_bytes_back(tmp_path):
    """After finalize() forgets what it put, a later one (a report set after) rewrites from the pack on disk."""
    snap = _capture(tmp_path / "t")
    snap.finalize()
    snap.set_report("Revenue grew in every period.")
    snap.finalize()
    again = _capture(tmp_path / "u")
    again.set_report("Revenue grew in every period.")
    again.finalize()
    first, second = _folder(tmp_path / "t"), _folder(tmp_path / "u")
    assert first.keys() == second.keys()
    assert {k: v for k, v in first.items() if k != MANIFEST_NAME} == {
        k: v for k, v in second.items() if k != MANIFEST_NAME}


@tool
def lookup(query: str) -> str:
    """Look a query up."""
    return f"{query}: 3 results"


def _long_named_tool() -> Any:
    return lookup.model_copy(update={"name": "lookup_" + "x" * 300})  # a file name of 300+ bytes


def test_a_file_name_the_file_system_refuses_is_named_and_leaves_no_half_folder(tmp_path):
    from langchain_core.messages import AIMessage

    name = "lookup_" + "x" * 300
    messages = iter([AIMessage(content="", tool_calls=[{"name": name, "args": {"query": "HALV"}, "id": "c1"}]),
                     AIMessage(content="Done.")])
    app = agent_loop(tools=[_long_named_tool()], messages=messages)
    snap = Snapshot(tmp_path / "t")
    app.invoke(QUESTION, config=snap.config())
    with pytest.raises(TraceDirError) as raised:
        snap.finalize()
    message = str(raised.value)
    assert name in message and "File name too long" in message and "finalize() again" in message
    root = tmp_path / "t"
    assert sorted(p.name for p in root.iterdir()) == ["blobs", JOURNAL_NAME]  # nothing materialised is left
    _blobs_whole(root)


def test_a_manifest_write_that_fails_after_the_pack_refers_to_tool_files_gives_the_pack_its_bytes_back(
        tmp_path, monkeypatch):
    snap = _capture(tmp_path / "t")
    write = store.write_text_file

    def full_disk(path: Any, text: str) -> None:
        if os.fspath(path).endswith(MANIFEST_NAME):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        write(path, text)

    monkeypatch.setattr(store, "write_text_file", full_disk)
    with pytest.raises(TraceDirError) as raised:
        snap.finalize()
    assert f"{tmp_path / 't' / MANIFEST_NAME}: could not be written (No space left on device)" in str(raised.value)
    root = tmp_path / "t"
    assert sorted(p.name for p in root.iterdir()) == ["blobs", JOURNAL_NAME]
    _blobs_whole(root)  # the tool outputs' files are gone, so the pack holds their bytes again
    monkeypatch.undo()
    snap.finalize()  # the cause fixed: the same text files and pack as a run never interrupted
    _capture(tmp_path / "u").finalize()
    retried, clean = _folder(root), _folder(tmp_path / "u")
    assert {k: v for k, v in retried.items() if k != MANIFEST_NAME} == {
        k: v for k, v in clean.items() if k != MANIFEST_NAME}


def test_secrets_are_redacted_in_every_file_of_the_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("FILINGS_API_KEY", ENV_SECRET)
    snap = _capture(tmp_path / "t", rounds=5, secret_in=2)
    snap.finalize()
    root = tmp_path / "t"
    everything = b"".join(p.read_bytes() for p in root.rglob("*") if p.is_file())
    assert OPENAI.encode() not in everything and ENV_SECRET.encode() not in everything
    later = read_trace_text(root, "nodes/agent/r4.input.txt")  # every later node input repeats the message
    assert "[REDACTED:" in later and "Reading section 2." in later


def test_a_chain_writes_each_node_folder_once_and_the_same_bytes_twice(tmp_path):
    for name in ("a", "b"):
        _chain_capture(tmp_path / name).finalize()
    assert _folder(tmp_path / "a") == _folder(tmp_path / "b")
    assert len(list((tmp_path / "a" / "nodes").iterdir())) == 30


def _chain_capture(folder: Path, nodes: int = 30) -> Snapshot:
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
    from langchain_core.messages import AIMessage
    from langgraph.graph import MessagesState

    model = GenericFakeChatModel(messages=iter(
        [AIMessage(content=f"Finding {i}: revenue grew {i}.{i}% to ${100 + i}.4 billion.", id=f"m{i}")
         for i in range(nodes)]))

    def named(i: int) -> Any:
        def step(state: MessagesState) -> dict[str, Any]:
            return {"messages": [model.invoke(state["messages"][-4:])]}

        step.__name__ = f"n{i:02d}"
        return step

    snap = Snapshot(folder)
    chain(*(named(i) for i in range(nodes)), schema=MessagesState).invoke(
        {"messages": [HumanMessage(content="Analyze AAPL", id="q")]}, config=snap.config(recursion_limit=nodes + 10))
    return snap


def test_no_line_is_looked_up_where_the_rest_of_its_file_is_too_short_to_share(tmp_path, monkeypatch):
    """A node's output (one short message) and the message a node input adds are shorter than any run worth a
    reference: no earlier place of their lines is looked up, and the folder is the one every lookup gives."""
    from pytest_auditfence.capturing import tracefiles

    looked: list[tuple[int, int]] = []  # (characters from the line to the file's end, line breaks counted)
    inner = tracefiles.LineSharer._longest_run

    def counting(self: Any, lines: list[str], i: int, text: str, ends: list[int]) -> Any:
        looked.append((ends[len(lines)] - ends[i] + len(lines) - i, i))
        return inner(self, lines, i, text, ends)

    monkeypatch.setattr(tracefiles.LineSharer, "_longest_run", counting)
    _chain_capture(tmp_path / "a").finalize()
    assert looked and min(rest for rest, _ in looked) >= tracefiles.MIN_SHARED_CHARS
    outputs = [p for p in (tmp_path / "a" / "nodes").rglob("r1.output.txt")]
    assert len(outputs) == 30
    monkeypatch.setattr(tracefiles, "_last_lookup", lambda ends, n: n)  # every non-empty line looked up
    _chain_capture(tmp_path / "b").finalize()
    assert _folder(tmp_path / "a") == _folder(tmp_path / "b")
