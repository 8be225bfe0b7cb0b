"""Each captured byte once (issue 14): a tool's output is kept in its text file, and the blob the journal
names for it is a `lines` entry of the pack that refers to that file; format 1 folders still read."""

from __future__ import annotations

import hashlib
import json
import subprocess
from pathlib import Path

import pytest
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langchain_core.tools import tool
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition

from pytest_auditfence import Snapshot, read_trace_text
from pytest_auditfence.audit.cascade import audit_cascade_sync
from pytest_auditfence.capturing.store import PACK_NAME, PackReader, TextRef
from pytest_auditfence.capturing.tracefiles import TraceFiles
from pytest_auditfence.errors import IntegrityError, ManifestError
from pytest_auditfence.manifest import load_manifest

FILING = "".join(f"FY{2000 + i} revenue of HALV: ${1_000 + 7 * i:,} million; backlog ${i}.5 billion\n"
                 for i in range(40))
# Lines longer than the 400-character wrap: the text file cannot give this back, so the pack keeps it.
WIDE = "HALV segment table " + " | ".join(f"cell {i}: ${i},000 million" for i in range(60)) + "\n"
REPORT = "FY2003 revenue was $1,021 million."


class _ToolCallingFake(GenericFakeChatModel):
    def bind_tools(self, tools: object, **kwargs: object) -> _ToolCallingFake:
        return self


@tool
def get_filing(ticker: str, wide: bool = False) -> str:
    """A section of a company's filing."""
    return WIDE if wide else FILING


def _app():
    replies = iter([
        AIMessage(content="Reading.", tool_calls=[
            {"name": "get_filing", "args": {"ticker": "HALV"}, "id": "c1"},
            {"name": "get_filing", "args": {"ticker": "HALV", "wide": True}, "id": "c2"},
        ]),
        AIMessage(content=REPORT),
    ])
    model = _ToolCallingFake(messages=replies)

    def agent(state: MessagesState) -> dict:
        return {"messages": [model.invoke(state["messages"])]}

    graph = StateGraph(MessagesState)
    graph.add_node("agent", agent)
    graph.add_node("tools", ToolNode([get_filing]))
    graph.add_edge(START, "agent")
    graph.add_conditional_edges("agent", tools_condition)
    graph.add_edge("tools", "agent")
    return graph.compile()


def capture(trace: Path) -> Snapshot:
    snap = Snapshot(trace)
    _app().invoke({"messages": [("user", "Summarise HALV's filing.")]}, config=snap.config())
    snap.set_report(REPORT)
    snap.finalize()
    return snap


def test_a_tool_output_is_stored_once_in_its_text_file(tmp_path: Path) -> None:
    trace = capture(tmp_path / "t").trace_dir
    pack = (trace / "blobs" / PACK_NAME).read_bytes()
    assert FILING.encode() not in pack  # the blob of the tool's output holds no copy of it
    tool_file = trace / "tools" / "tools" / "r1.get_filing.1.txt"
    assert "  FY2003 revenue of HALV: $1,021 million; backlog $3.5 billion\n" in tool_file.read_text()
    # a grep of the folder finds the figure in the tool's file, and nowhere else but the files that quote it
    found = subprocess.run(["grep", "-rl", "FY2003 revenue of HALV", str(trace)], capture_output=True, text=True)
    assert str(tool_file) in found.stdout.split() and str(trace / "blobs" / PACK_NAME) not in found.stdout.split()
    with PackReader(trace / "blobs") as reader:
        refs = {sha: e for sha, e in reader.index().items() if isinstance(e, TextRef)}
        assert [e[0] for e in refs.values()] == ["tools/tools/r1.get_filing.1.txt"]
        assert [reader.data(sha).decode() for sha in refs] == [FILING]
    assert audit_cascade_sync(trace_dir=trace).coverage.numerator == 1


def test_a_tool_output_its_text_file_cannot_give_back_keeps_its_bytes(tmp_path: Path) -> None:
    trace = capture(tmp_path / "t").trace_dir
    assert WIDE.encode() in (trace / "blobs" / PACK_NAME).read_bytes()


def test_a_second_finalize_and_a_rerun_give_the_same_folder(tmp_path: Path) -> None:
    snap = capture(tmp_path / "a")
    before = {p.relative_to(snap.trace_dir): p.read_bytes() for p in snap.trace_dir.rglob("*") if p.is_file()}
    snap.set_report(REPORT + " Backlog was $3.5 billion.")  # appends to the journal: finalize runs again
    snap.finalize()
    again = capture(tmp_path / "b").trace_dir
    rerun = {p.relative_to(again): p.read_bytes() for p in again.rglob("*") if p.is_file()}
    after = {p.relative_to(snap.trace_dir): p.read_bytes() for p in snap.trace_dir.rglob("*") if p.is_file()}
    changed = {str(p) for p in after if after[p] != before.get(p)}
    assert changed == {"journal.jsonl", "blobs/pack", "report.md", "manifest.json"}  # the new report's blob
    assert FILING.encode() not in after[Path("blobs/pack")]
    assert {p: rerun[p] for p in rerun if p.name != "journal.jsonl"} == {
        p: before[p] for p in before if p.name != "journal.jsonl"}
    assert audit_cascade_sync(trace_dir=snap.trace_dir).coverage.denominator == 2


def test_a_tool_file_edited_after_capture_is_refused_by_its_blob_too(tmp_path: Path) -> None:
    trace = capture(tmp_path / "t").trace_dir
    tool_file = trace / "tools" / "tools" / "r1.get_filing.1.txt"
    tool_file.write_text(tool_file.read_text().replace("$1,021 million", "$9,021 million"))
    with pytest.raises(IntegrityError, match=r"\.txt: sha256 is .* the file was edited after capture"):
        audit_cascade_sync(trace_dir=trace)
    # with the manifest made to agree, the journal's blob of the output still refuses the edited file
    manifest = json.loads((trace / "manifest.json").read_text())
    files = TraceFiles(trace)
    for record in manifest["files"]:
        record["sha256"] = hashlib.sha256(files.data(record["path"])).hexdigest()
    (trace / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(IntegrityError, match=r"r1\.get_filing\.1\.txt: blob content hashes to"):
        audit_cascade_sync(trace_dir=trace)


def _as_format_1(trace: Path) -> None:
    """Rewrite a folder the way format 1 stored it: every blob's bytes in the pack."""
    pack = trace / "blobs" / PACK_NAME
    with PackReader(trace / "blobs") as reader:
        entries = [(sha, reader.data(sha)) for sha in reader.index()]
    pack.write_bytes(b"".join(b"sha256 %s %d\n%s\n" % (sha.encode(), len(data), data) for sha, data in entries))
    manifest = json.loads((trace / "manifest.json").read_text())
    manifest["format_version"] = 1
    (trace / "manifest.json").write_text(json.dumps(manifest))


def test_a_format_1_folder_still_reads_and_a_later_format_is_refused(tmp_path: Path) -> None:
    trace = capture(tmp_path / "t").trace_dir
    audit = audit_cascade_sync(trace_dir=trace).to_json()
    _as_format_1(trace)
    assert FILING.encode() in (trace / "blobs" / PACK_NAME).read_bytes()
    assert load_manifest(trace).format_version == 1
    assert audit_cascade_sync(trace_dir=trace).to_json() == audit
    assert read_trace_text(trace, "tools/tools/r1.get_filing.1.txt").count("FY2003 revenue") == 1
    manifest = json.loads((trace / "manifest.json").read_text())
    manifest["format_version"] = 3
    (trace / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(ManifestError, match=r"format_version 3, this pytest-auditfence reads 1 and 2; capture"):
        load_manifest(trace)


def test_a_damaged_lines_entry_is_refused(tmp_path: Path) -> None:
    trace = capture(tmp_path / "t").trace_dir
    pack = trace / "blobs" / PACK_NAME
    data = pack.read_bytes()
    at = data.index(b"lines ")
    end = data.index(b"\n", at)
    pack.write_bytes(data[:at] + data[at:end].replace(b"tools/tools/", b"../../etc/") + data[end:])
    with pytest.raises(IntegrityError, match=r"blobs/pack: byte \d+ is not a well-formed 'lines' header"):
        audit_cascade_sync(trace_dir=trace)
