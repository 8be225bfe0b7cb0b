"""Trace folders written before `manifest.steps` existed: audited one step per node while every node ran
once, refused (naming the folder, the format and the fix) when a node ran more than once.

Each folder is captured with today's code from a real compiled graph, then its manifest is rewritten the
way an earlier version wrote it: format_version 1 (steps came before format 2's tool outputs stored once),
no 'steps' key.
"""

from __future__ import annotations

import asyncio
import json
import operator
import shutil
from pathlib import Path
from typing import Annotated, Any, TypedDict

import pytest
from agent_apps import get_financials, in_a_row
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import tool
from langgraph.graph import END, START, StateGraph
from langgraph.types import Send

from pytest_auditfence import Snapshot, Verdict
from pytest_auditfence.audit.cascade import Cascade, audit_cascade_sync
from pytest_auditfence.errors import ManifestError


class Notes(TypedDict, total=False):
    notes: Annotated[list[str], operator.add]


def _captured(app: Any, inputs: Any, trace: Path) -> tuple[Path, str]:
    snap = Snapshot(trace)
    result = asyncio.run(app.ainvoke(inputs, config=snap.config()))
    report = result["notes"][-1]
    snap.set_report(report)
    snap.finalize()
    return snap.trace_dir, report


def _as_written_before_steps(trace: Path) -> Path:
    old = trace.with_name(trace.name + "-before-steps")
    shutil.copytree(trace, old)
    manifest = json.loads((old / "manifest.json").read_text(encoding="utf-8"))
    assert manifest.pop("steps") and manifest["format_version"] == 2
    manifest["format_version"] = 1
    (old / "manifest.json").write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return old


def _verdicts(cascade: Cascade) -> list[tuple[str, Verdict, str | None, int | None]]:
    return [(c.claim, c.verdict, c.introduced_by, c.introduced_round) for c in cascade.claims]


def _desk_app() -> Any:
    """fetch looks the filing up; the `desk` subgraph's `brief` repeats the revenue and invents a margin."""

    def fetch(state: Notes, config: RunnableConfig) -> dict[str, Any]:
        return {"notes": [get_financials.invoke({"query": "HALV"}, config)]}

    def brief(state: Notes) -> dict[str, Any]:
        return {"notes": ["Revenue was $9.4 billion. Operating margin was 22%."]}

    return in_a_row(Notes, ("fetch", fetch), ("desk", in_a_row(Notes, ("brief", brief))))


def test_a_folder_without_steps_whose_nodes_ran_once_is_audited_as_before(tmp_path: Path) -> None:
    trace, report = _captured(_desk_app(), {"notes": []}, tmp_path / "t")
    current = audit_cascade_sync(trace_dir=trace, final_document=report)
    old = audit_cascade_sync(trace_dir=_as_written_before_steps(trace), final_document=report)
    assert _verdicts(old) == [
        ("Revenue was $9.4 billion.", Verdict.VERIFIED, None, None),
        ("Operating margin was 22%.", Verdict.UNSUPPORTED, "desk/brief", 1),
    ]
    assert _verdicts(old) == _verdicts(current)
    assert old.trace_claim("$9.4 billion").links[-1].file == "tools/fetch/r1.get_financials.1.txt"
    assert old.complete and old.errors == []


def _instances_app() -> Any:
    """Two `Send` instances of one researcher; the MSFT writer takes a margin only the AAPL filing holds."""

    filings = {"AAPL": "AAPL fiscal 2024: revenue $391.0 billion, operating margin 31.5%.",
               "MSFT": "MSFT fiscal 2024: revenue $245.1 billion."}

    @tool
    def get_filing(ticker: str) -> str:
        """The reported figures of a ticker."""
        return filings[ticker]

    class Research(TypedDict, total=False):
        ticker: str
        found: Annotated[list[str], operator.add]
        notes: Annotated[list[str], operator.add]

    def search(state: Research, config: RunnableConfig) -> dict[str, Any]:
        return {"found": [get_filing.invoke({"ticker": state["ticker"]}, config)]}

    def write(state: Research) -> dict[str, Any]:
        line = state["found"][-1].split(", operating")[0].removesuffix(".") + "."
        return {"notes": [line + (" MSFT operating margin was 31.5%." if state["ticker"] == "MSFT" else "")]}

    researcher = in_a_row(Research, ("search", search), ("write", write), output_schema=Notes)

    def reduce(state: Notes) -> dict[str, Any]:
        return {"notes": ["\n".join(sorted(state["notes"]))]}

    g = StateGraph(Notes)
    g.add_node("research", researcher)
    g.add_node("reduce", reduce)
    g.add_conditional_edges(START, lambda s: [Send("research", {"ticker": t}) for t in filings], ["research"])
    g.add_edge("research", "reduce")
    g.add_edge("reduce", END)
    return g.compile()


def test_a_folder_without_steps_whose_subgraph_ran_twice_is_refused_naming_folder_format_and_fix(
        tmp_path: Path) -> None:
    trace, report = _captured(_instances_app(), {"notes": []}, tmp_path / "t")
    margin = next(c for c in audit_cascade_sync(trace_dir=trace, final_document=report).claims if "31.5%" in c.claim)
    assert margin.verdict is Verdict.MISATTRIBUTED  # with steps: the AAPL instance does not back MSFT's claim
    old = _as_written_before_steps(trace)
    # Without steps the two instances would merge and the AAPL filing would back the MSFT writer: refused.
    with pytest.raises(ManifestError) as refused:
        audit_cascade_sync(trace_dir=old, final_document=report)
    message = str(refused.value)
    assert message.startswith(f"{old}: the manifest (format_version 1) has no 'steps'")
    assert "research/write ran more than once" in message.replace("research/search, ", "")
    assert message.endswith("Capture the run again with this version (rerun the test or script that wrote the folder).")
