"""Sources the audit cannot read in full: bytes outputs and outputs cut at `max_output_chars`.

UTF-8 bytes are text and back claims; other bytes are marked binary and a verdict that could not search
them says so; a cut source is named in the verdict's note with the setting that keeps more.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, TypedDict

from langchain_core.runnables import RunnableConfig
from langchain_core.tools import tool
from langgraph.graph import END, START, StateGraph

from pytest_auditfence import Snapshot, Verdict
from pytest_auditfence.audit.cascade import audit_cascade_sync

FILLER = "Segment detail line without figures of note.\n" * 30


class Desk(TypedDict, total=False):
    raw: Any
    report: str


def _app(fetch_tool: Any, report: str) -> Any:
    def fetch(state: Desk, config: RunnableConfig) -> dict[str, Any]:
        return {"raw": fetch_tool.invoke({"url": "https://example.com/halv-10k"}, config)}

    def write(state: Desk) -> dict[str, Any]:
        return {"report": report}

    g = StateGraph(Desk)
    g.add_node("fetch", fetch)
    g.add_node("write", write)
    g.add_edge(START, "fetch")
    g.add_edge("fetch", "write")
    g.add_edge("write", END)
    return g.compile()


def _audit(app: Any, trace: Path, **snapshot: Any) -> tuple[Snapshot, Any]:
    snap = Snapshot(trace, **snapshot)
    result = app.invoke({}, config=snap.config())
    snap.set_report(result["report"])
    snap.finalize()
    return snap, audit_cascade_sync(trace_dir=snap.trace_dir, final_document=result["report"])


@tool
def download(url: str) -> bytes:
    """The page's body as bytes (what `response.content` gives)."""
    return "HALV revenue was $9.4 billion in fiscal 2024 — up from $8.6 billion.".encode()


@tool
def download_chart(url: str) -> bytes:
    """The page's chart image."""
    return b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x01\x00" + bytes(range(256))


def test_utf8_bytes_are_text_and_back_claims(tmp_path: Path) -> None:
    report = "HALV revenue was $9.4 billion in fiscal 2024. Its net margin was 13%."
    snap, cascade = _audit(_app(download, report), tmp_path / "t")
    [record] = [f for f in snap.load_manifest().files if f.kind == "tool_call"]
    assert not record.binary
    assert "$9.4 billion in fiscal 2024 — up from" in (snap.trace_dir / record.path).read_text()
    chain = cascade.trace_claim("$9.4 billion")
    assert chain.verdict is Verdict.VERIFIED and chain.links[-1].file == record.path
    invented = next(c for c in cascade.claims if "13%" in c.claim)
    assert invented.verdict is Verdict.UNSUPPORTED and invented.introduced_by == "write"
    assert not any("binary" in note for note in invented.notes)


def test_binary_bytes_are_marked_and_the_verdict_says_a_source_could_not_be_searched(tmp_path: Path) -> None:
    report = "The chart shows revenue of $9.4 billion."
    snap, cascade = _audit(_app(download_chart, report), tmp_path / "t")
    [record] = [f for f in snap.load_manifest().files if f.kind == "tool_call"]
    assert record.binary
    assert "<binary: 276 bytes sha256=" in (snap.trace_dir / record.path).read_text()
    [claim] = [c for c in cascade.claims if c.checkable]
    assert claim.verdict is Verdict.UNSUPPORTED and claim.introduced_by == "write"
    assert any("binary data" in note and "could not be searched" in note and record.path in note
               for note in claim.notes)


@tool
def long_filing(url: str) -> str:
    """A long filing: the headline first, the segment table far below."""
    return "HALV revenue was $9.4 billion.\n" + FILLER + "Logistics Robotics revenue was $388 million.\n"


def test_a_truncated_source_is_named_in_the_note_with_the_setting(tmp_path: Path) -> None:
    report = "HALV revenue was $9.4 billion. Logistics Robotics revenue was $388 million."
    snap, cascade = _audit(_app(long_filing, report), tmp_path / "t", max_output_chars=400)
    [record] = [f for f in snap.load_manifest().files if f.kind == "tool_call"]
    assert record.truncated
    assert cascade.trace_claim("$9.4 billion").verdict is Verdict.VERIFIED  # before the cut
    cut = next(c for c in cascade.claims if "$388 million" in c.claim)
    assert cut.verdict is not Verdict.VERIFIED and cut.introduced_by == "write"
    assert any(record.path in note and "max_output_chars" in note and "fence_max_output_chars" in note
               for note in cut.notes)
    # with room to keep it all, the same run's figure is found
    _, whole = _audit(_app(long_filing, report), tmp_path / "whole")
    assert whole.trace_claim("$388 million").verdict is Verdict.VERIFIED
