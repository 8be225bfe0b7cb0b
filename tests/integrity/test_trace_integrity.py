"""Integrity of trace folders (issue 12): a file, blob or journal changed after capture fails the audit
closed with the file named, and two captures racing for one folder never mix."""

from __future__ import annotations

import json
import multiprocessing
import re
from pathlib import Path

import pytest
from langchain_core.messages import AIMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import tool
from langgraph.graph import START, MessagesState, StateGraph

from pytest_auditfence import Snapshot, read_trace_text
from pytest_auditfence.audit.cascade import audit_cascade_sync
from pytest_auditfence.capturing.store import read_journal
from pytest_auditfence.errors import IntegrityError, TraceDirError
from pytest_auditfence.integrity import arrival_digest, journal_digest

REPORT = "Revenue was $1,234 million in FY2024. Halvorsen invented a $9 billion order."


@tool
def get_revenue(ticker: str) -> str:
    """Revenue of a company."""
    return f"{ticker} revenue FY2024: $1,234 million"


def _app(label: str):
    def research(state: MessagesState, config: RunnableConfig) -> dict:
        get_revenue.invoke({"ticker": label}, config=config)
        return {"messages": [AIMessage(content=f"{label} revenue FY2024: $1,234 million")]}

    graph = StateGraph(MessagesState)
    graph.add_node("research", research)
    graph.add_edge(START, "research")
    return graph.compile()


def capture(trace: Path, label: str = "HALV", report: str = REPORT) -> Path:
    snap = Snapshot(trace)
    _app(label).invoke({"messages": [("user", "Analyse")]}, config=snap.config())
    snap.set_report(report)
    snap.finalize()
    return snap.trace_dir


def test_a_clean_capture_audits(tmp_path: Path) -> None:
    cascade = audit_cascade_sync(trace_dir=capture(tmp_path / "t"))
    assert cascade.hallucinations.numerator == 1  # the invented order


def test_a_report_edited_after_capture_is_refused(tmp_path: Path) -> None:
    trace = capture(tmp_path / "t")
    (trace / "report.md").write_text("Revenue was $1,234 million in FY2024.\n", encoding="utf-8")  # fabrication cut
    with pytest.raises(IntegrityError, match=r"report\.md: sha256 is .* the manifest records"):
        audit_cascade_sync(trace_dir=trace)


def test_a_trace_file_edited_after_capture_is_refused(tmp_path: Path) -> None:
    trace = capture(tmp_path / "t")
    (tool_file,) = sorted(p for p in (trace / "tools").rglob("*.txt") if not p.name.endswith(".arguments.txt"))
    tool_file.write_text(tool_file.read_text() + "order backlog: $9 billion\n")
    with pytest.raises(IntegrityError, match=rf"{tool_file.name}: sha256"):
        audit_cascade_sync(trace_dir=trace)


@pytest.fixture
def pack(tmp_path: Path) -> Path:
    """The blob pack of a clean capture (audited through `pack.parent.parent`)."""
    return capture(tmp_path / "t") / "blobs" / "pack"


def test_a_damaged_blob_is_refused(pack: Path) -> None:
    trace, data = pack.parent.parent, pack.read_bytes()
    at = data.index(b"$1,234 million")  # a figure inside a stored value, same length after the edit
    pack.write_bytes(data[:at] + b"$9,234 million" + data[at + len(b"$1,234 million"):])
    with pytest.raises(IntegrityError, match=r"blobs/pack: blob content hashes to .*, its name says"):
        audit_cascade_sync(trace_dir=trace)


def test_a_cut_or_prefixed_pack_is_refused(pack: Path) -> None:
    trace, data = pack.parent.parent, pack.read_bytes()
    pack.write_bytes(data[:-5])
    with pytest.raises(IntegrityError, match=r"blobs/pack: the blob at byte \d+ is cut short"):
        audit_cascade_sync(trace_dir=trace)
    pack.write_bytes(b"damaged\n" + data)
    with pytest.raises(IntegrityError, match=r"blobs/pack: byte 0 is not the header of a blob"):
        audit_cascade_sync(trace_dir=trace)


def test_a_reference_file_edited_after_capture_is_refused(tmp_path: Path) -> None:
    """A node input stored by reference is checked as the text it stands for: a reference moved to other
    lines, or an edit of the file it names, is refused like an edit of the text itself."""
    snap = Snapshot(tmp_path / "t")
    big = "\n".join(f"HALV revenue FY{2000 + i}: ${1_000 + i:,} million" for i in range(20))

    @tool
    def get_history(ticker: str) -> str:
        """Revenue history of a company."""
        return big

    def research(state: MessagesState, config: RunnableConfig) -> dict:
        get_history.invoke({"ticker": "HALV"}, config=config)
        return {"messages": [AIMessage(content=big)]}

    def write(state: MessagesState) -> dict:
        return {"messages": [AIMessage(content="HALV revenue FY2019 was $1,019 million.")]}

    graph = StateGraph(MessagesState)
    graph.add_node("research", research)
    graph.add_node("write", write)
    graph.add_edge(START, "research")
    graph.add_edge("research", "write")
    graph.compile().invoke({"messages": [("user", "Analyse")]}, config=snap.config())
    snap.set_report("HALV revenue FY2019 was $1,019 million.")
    snap.finalize()
    trace = snap.trace_dir
    stored = (trace / "nodes/write/r1.input.txt").read_text()
    assert "[auditfence: lines " in stored and "$1,019 million" not in stored  # the repeat is a reference
    assert "$1,019 million" in read_trace_text(trace, "nodes/write/r1.input.txt")
    audit_cascade_sync(trace_dir=trace)
    edited = re.sub(r"lines (\d+)-(\d+)", lambda m: f"lines {m[1]}-{int(m[2]) - 1}", stored, count=1)
    (trace / "nodes/write/r1.input.txt").write_text(edited)
    with pytest.raises(IntegrityError, match=r"r1\.input\.txt: sha256 is .* the manifest records"):
        audit_cascade_sync(trace_dir=trace)
    (trace / "nodes/write/r1.input.txt").write_text(stored)
    # research's output repeats the tool's output, so the lines live in the tool's file: an edit there
    # changes what both files that name them stand for, and the first of them checked is refused
    assert "$1,019 million" not in (trace / "nodes/research/r1.output.txt").read_text()
    target = trace / "tools/research/r1.get_history.1.txt"
    target.write_text(target.read_text().replace("$1,019 million", "$9,019 million"))
    with pytest.raises(IntegrityError, match=r"nodes/research/r1\.output\.txt: sha256 is"):
        audit_cascade_sync(trace_dir=trace)


def test_a_journal_edited_after_finalize_is_refused(tmp_path: Path) -> None:
    trace = capture(tmp_path / "t")
    journal = trace / "journal.jsonl"
    lines = journal.read_text().splitlines()
    event = json.loads(lines[1])
    event["type"] = event["type"] + "_edited"
    lines[1] = json.dumps(event, sort_keys=True)
    journal.write_text("\n".join(lines) + "\n")
    with pytest.raises(IntegrityError, match=r"journal\.jsonl: its events do not match the digest"):
        audit_cascade_sync(trace_dir=trace)
    journal.write_text("\n".join(lines[:-1]) + "\n")
    with pytest.raises(IntegrityError, match=r"journal\.jsonl: holds \d+ events, the manifest records"):
        audit_cascade_sync(trace_dir=trace)


def test_the_journal_digest_is_as_stable_as_the_manifest(tmp_path: Path) -> None:
    a, b = capture(tmp_path / "a"), capture(tmp_path / "b")
    assert (a / "manifest.json").read_bytes() == (b / "manifest.json").read_bytes()
    assert json.loads((a / "manifest.json").read_text())["journal"]["digest"]


def test_a_folder_that_recorded_the_arrival_digest_of_an_earlier_version_still_audits(tmp_path: Path) -> None:
    # Earlier versions digested the events in journal order with their seq; such a folder still verifies,
    # and an edited journal is refused under either digest.
    trace = capture(tmp_path / "t")
    journal, manifest_path = trace / "journal.jsonl", trace / "manifest.json"
    events = read_journal(journal).events
    manifest = json.loads(manifest_path.read_text())
    assert manifest["journal"]["digest"] == journal_digest(events) != arrival_digest(events)
    manifest["journal"]["digest"] = arrival_digest(events)
    manifest_path.write_text(json.dumps(manifest))
    audit_cascade_sync(trace_dir=trace)
    lines = journal.read_text().splitlines()
    event = json.loads(lines[2])
    event["type"] = "graph_end_edited"
    journal.write_text("\n".join([*lines[:2], json.dumps(event), *lines[3:]]) + "\n")
    with pytest.raises(IntegrityError, match=r"journal\.jsonl: its events do not match the digest"):
        audit_cascade_sync(trace_dir=trace)


def _race(trace: str, label: str, barrier, results) -> None:
    barrier.wait()
    try:
        capture(Path(trace), label, report=f"Revenue was $1,234 million in FY2024 ({label}).")
        results.put((label, "ok"))
    except TraceDirError as exc:
        results.put((label, f"TraceDirError: {exc}"))
    except Exception as exc:  # noqa: BLE001 - the test reports whatever the loser saw
        results.put((label, f"{type(exc).__name__}: {exc}"))


def test_two_processes_racing_for_one_folder_never_mix(tmp_path: Path) -> None:
    trace = tmp_path / "shared"
    context = multiprocessing.get_context("spawn")
    rounds = []
    for attempt in range(3):
        folder = trace.with_name(f"shared{attempt}")
        barrier, results = context.Barrier(2), context.Queue()
        workers = [context.Process(target=_race, args=(str(folder), label, barrier, results)) for label in ("AAA", "BBB")]
        for w in workers:
            w.start()
        for w in workers:
            w.join(120)
        outcome = dict(results.get(timeout=5) for _ in workers)
        rounds.append((folder, outcome))
    for folder, outcome in rounds:
        winners = [label for label, result in outcome.items() if result == "ok"]
        assert len(winners) == 1, outcome
        (loser,) = set(outcome) - set(winners)
        assert outcome[loser].startswith("TraceDirError: ") and "never mixed" in outcome[loser]
        written = "\n".join(p.read_text(errors="replace") for p in sorted(folder.rglob("*")) if p.is_file())
        assert winners[0] in written and loser not in written
        audit_cascade_sync(trace_dir=folder)  # the winner's folder is whole and audits
