"""A value that repeats its own lines is stored whole, never by reference to itself.

Found on RAGTruth runs: a node's output listing passages where a later passage repeats a line of an earlier one
was written as `[auditfence: lines 6-6 of <its own file>]`, and reading it back raised IntegrityError ("its
references lead back to ...") on an untouched folder: the audit of a true run failed.
"""

from __future__ import annotations

from pathlib import Path
from typing import TypedDict

from langgraph.graph import START, StateGraph

from pytest_auditfence import Snapshot, read_trace_text
from pytest_auditfence.audit.cascade import audit_cascade_sync

LINE = ("Whisk the flour, 3 tablespoons of sugar and 1 1/2 teaspoons of baking powder in a medium bowl until smooth, "
        "then fold in the milk, the melted butter and one egg until just combined; some lumps are fine at this point.")


class Notes(TypedDict, total=False):
    notes: list[str]
    report: str


def test_a_node_output_repeating_its_own_lines_reads_back_and_audits(tmp_path: Path) -> None:
    def gather(state: Notes) -> Notes:
        return {"notes": [f"step 1: {LINE}", LINE, "something else entirely, long enough to be a line", LINE]}

    def write(state: Notes) -> Notes:
        return {"report": "Use 3 tablespoons of sugar."}

    app = StateGraph(Notes).add_sequence([gather, write]).add_edge(START, "gather").compile()
    snap = Snapshot(tmp_path / "trace")
    out = app.invoke({}, config=snap.config())
    snap.set_report(out["report"])
    snap.finalize()

    output = read_trace_text(snap.trace_dir, "nodes/gather/r1.output.txt")
    assert output.count(LINE) == 3
    stored = (snap.trace_dir / "nodes/gather/r1.output.txt").read_text(encoding="utf-8")
    assert "of nodes/gather/r1.output.txt" not in stored  # no reference to itself
    for record in snap.load_manifest().files:  # every file reads back on the untouched folder
        read_trace_text(snap.trace_dir, record.path)
    cascade = audit_cascade_sync(trace_dir=snap.trace_dir)
    assert [c.claim for c in cascade.claims] == ["Use 3 tablespoons of sugar."]
