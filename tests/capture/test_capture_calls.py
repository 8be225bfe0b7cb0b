"""Capture of retriever results, interrupt() and resume, and chat model calls with token usage."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from langchain_core.documents import Document
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langchain_core.retrievers import BaseRetriever
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.types import Command, interrupt

from pytest_auditfence import Snapshot
from pytest_auditfence.capturing.store import read_journal
from pytest_auditfence.capturing.topology import materialize


class Filings(BaseRetriever):
    def _get_relevant_documents(self, query: str, *, run_manager: Any = None) -> list[Document]:
        return [Document(page_content=f"10-K: revenue was $1,234 million ({query})", metadata={"source": "10-K"}),
                Document(page_content="10-Q: revenue was $311 million", metadata={"source": "10-Q"})]


def _app() -> Any:
    def fetch(state: MessagesState, config: RunnableConfig) -> dict[str, Any]:
        docs = Filings().invoke("HALV revenue", config)
        return {"messages": [AIMessage(content=" ".join(d.page_content for d in docs))]}

    def approve(state: MessagesState) -> dict[str, Any]:
        answer = interrupt("approve the note?")
        return {"messages": [AIMessage(content=f"approved: {answer}")]}

    g = StateGraph(MessagesState)
    g.add_node("fetch", fetch)
    g.add_node("approve", approve)
    g.add_edge(START, "fetch")
    g.add_edge("fetch", "approve")
    g.add_edge("approve", END)
    return g.compile(checkpointer=InMemorySaver())


def _run(trace: Path) -> Snapshot:
    app = _app()
    snap = Snapshot(trace)
    config = snap.config(configurable={"thread_id": "review-1"})
    first = app.invoke({"messages": [("user", "Draft the HALV note")]}, config=config)
    assert "__interrupt__" in first
    app.invoke(Command(resume="yes"), config=config)
    snap.finalize()
    return snap


def test_retriever_results_are_raw_data_of_the_node_that_ran_them(tmp_path: Path) -> None:
    snap = _run(tmp_path / "t")
    manifest = snap.load_manifest()
    [record] = [f for f in manifest.files if f.kind == "retriever"]
    assert record.node == "fetch"
    text = (snap.trace_dir / record.path).read_text()
    assert "page_content: 10-K: revenue was $1,234 million (HALV revenue)" in text
    assert "query: HALV revenue" in text
    assert record in manifest.raw_files()


def test_interrupted_node_runs_again_on_resume_in_the_same_round(tmp_path: Path) -> None:
    # The paused attempt is not a round of its own (issue 11): it is kept beside the round that completed it.
    snap = _run(tmp_path / "t")
    manifest = snap.load_manifest()
    assert manifest.complete
    assert manifest.rounds == {}
    assert ("fetch", "approve") in manifest.edges
    outputs = sorted(f.path for f in manifest.files if f.node == "approve" and f.kind == "node_output")
    assert outputs == ["nodes/approve/r1.output.txt"]
    assert "interrupt('approve the note?')" in (snap.trace_dir / "nodes/approve/r1.interrupted.txt").read_text()
    assert "approved: yes" in (snap.trace_dir / outputs[0]).read_text()


def test_interrupt_and_resume_capture_is_byte_identical_across_runs(tmp_path: Path) -> None:
    a, b = _run(tmp_path / "a"), _run(tmp_path / "b")
    files = sorted(p.relative_to(a.trace_dir) for p in a.trace_dir.rglob("*.txt"))
    assert files
    for rel in files:
        assert (a.trace_dir / rel).read_bytes() == (b.trace_dir / rel).read_bytes(), rel
    assert (a.trace_dir / "manifest.json").read_bytes() == (b.trace_dir / "manifest.json").read_bytes()


def test_chat_model_call_records_messages_output_and_token_usage(tmp_path: Path) -> None:
    model = GenericFakeChatModel(messages=iter([AIMessage(
        content="HALV revenue was $1,234 million.",
        usage_metadata={"input_tokens": 21, "output_tokens": 9, "total_tokens": 30})]))

    def write(state: MessagesState) -> dict[str, Any]:
        return {"messages": [model.invoke(state["messages"])]}

    g = StateGraph(MessagesState)
    g.add_node("write", write)
    g.add_edge(START, "write")
    with Snapshot(tmp_path / "t") as snap:
        g.compile().invoke({"messages": [("user", "Summarise HALV")]}, config=snap.config())
    [call] = [f for f in snap.load_manifest().files if f.kind == "model_call"]
    assert call.node == "write"
    text = (snap.trace_dir / call.path).read_text()
    assert "Summarise HALV" in text and "HALV revenue was $1,234 million." in text
    assert "input_tokens: 21" in text and "total_tokens: 30" in text


def test_a_journal_of_an_earlier_version_without_retriever_starts_gives_the_same_files(tmp_path: Path) -> None:
    snap = _run(tmp_path / "t")
    events = read_journal(snap.trace_dir / "journal.jsonl").events
    assert [e["type"] for e in events].count("retriever_start") == 1
    load = snap.recorder.blobs.reader().value
    now = materialize(events, load)
    earlier = materialize([e for e in events if e["type"] != "retriever_start"], load)
    assert earlier.files == now.files
    assert "10-Q: revenue was $311 million" in now.files["retrievers/fetch/r1.Filings.1.txt"]
