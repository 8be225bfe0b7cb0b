"""Rounds and instances on real compiled graphs: every round of a node and every run of a subgraph is its
own step of the cascade, given only what existed before it started.

Each app plants a fabrication at a known node and round (verdict, `introduced_by` and `introduced_round`
asserted) and reports a true figure (asserted covered): a looping node inside a subgraph, two parallel
instances of one subgraph (started by `Send`, and by `asyncio.gather` inside a node), and a subgraph
invoked inside a node that hands it only part of what it was given.
"""

from __future__ import annotations

import asyncio
import operator
from pathlib import Path
from typing import Annotated, Any, TypedDict

import pytest
from agent_apps import in_a_row
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import tool
from langgraph.graph import END, START, StateGraph
from langgraph.types import Send

from pytest_auditfence import Snapshot, Verdict, assert_traceable
from pytest_auditfence.audit.cascade import Cascade, audit_cascade_sync

FILING = "HALV fiscal 2024: revenue $9.4 billion, operating income $1.2 billion, 31,000 employees."
FILINGS = {
    "AAPL": "AAPL fiscal 2024: revenue $391.0 billion, operating margin 31.5%.",
    "MSFT": "MSFT fiscal 2024: revenue $245.1 billion, 228,000 employees.",
}


@tool
def get_financials(ticker: str) -> str:
    """Reported figures of a ticker."""
    return FILING if ticker == "HALV" else FILINGS[ticker]


def _audited(app: Any, inputs: Any, trace: Path, report_of: Any) -> tuple[Snapshot, Cascade]:
    snap = Snapshot(trace)
    result = asyncio.run(app.ainvoke(inputs, config=snap.config()))
    report = report_of(result)
    snap.set_report(report)
    snap.finalize()
    return snap, audit_cascade_sync(trace_dir=snap.trace_dir, final_document=report)


def _claim(cascade: Cascade, text: str) -> Any:
    [claim] = [c for c in cascade.claims if text in c.claim]
    return claim


# -- a looping node inside a subgraph ------------------------------------------------------------------


class Drafts(TypedDict, total=False):
    drafts: Annotated[list[str], operator.add]
    report: str


def _loop_app() -> Any:
    def draft(state: Drafts, config: RunnableConfig) -> dict[str, Any]:
        if not state.get("drafts"):
            # round 1 writes a figure before any tool has returned it (a guess that happens to be right)
            return {"drafts": ["Operating income was $1.2 billion."]}
        # round 2 looks the filing up, reports its revenue and invents a margin
        get_financials.invoke({"ticker": "HALV"}, config)
        return {"drafts": ["Revenue was $9.4 billion. Operating margin was 22%."]}

    inner = StateGraph(Drafts)
    inner.add_node("draft", draft)
    inner.add_edge(START, "draft")
    inner.add_conditional_edges("draft", lambda s: "draft" if len(s["drafts"]) < 2 else END, ["draft", END])

    def write(state: Drafts) -> dict[str, Any]:
        return {"report": "\n".join(state["drafts"])}

    return in_a_row(Drafts, ("research", inner.compile()), ("write", write))


def test_a_looping_node_inside_a_subgraph_is_audited_round_by_round(tmp_path: Path) -> None:
    snap, cascade = _audited(_loop_app(), {"drafts": []}, tmp_path / "t", lambda r: r["report"])
    manifest = snap.load_manifest()
    draft = {s.name: s for s in manifest.steps if s.node == "research/draft"}
    assert draft["research/draft r2"].upstream == ["research/draft r1"]  # fed by its own earlier round
    assert {s.within for s in draft.values()} == {"research r1"}

    true = cascade.trace_claim("$9.4 billion")
    assert true.verdict is Verdict.VERIFIED
    assert true.links[-1].file == "tools/research/draft/r2.get_financials.1.txt"
    # round 1 wrote $1.2 billion before round 2's tool call returned it: the chain may not run back in time
    guess = _claim(cascade, "$1.2 billion")
    assert guess.verdict is Verdict.MISATTRIBUTED
    assert (guess.introduced_by, guess.introduced_round) == ("research/draft", 1)
    margin = _claim(cascade, "22%")
    assert margin.verdict is Verdict.UNSUPPORTED
    assert (margin.introduced_by, margin.introduced_round) == ("research/draft", 2)
    with pytest.raises(AssertionError) as failure:
        assert_traceable(cascade, max_hallucinations=0)
    assert "introduced by: research/draft (round 1)" in str(failure.value)
    assert "introduced by: research/draft (round 2)" in str(failure.value)


# -- two parallel instances of one subgraph ---------------------------------------------------------------


class Desk(TypedDict, total=False):
    lines: Annotated[list[str], operator.add]
    report: str


class Research(TypedDict, total=False):
    ticker: str
    notes: Annotated[list[str], operator.add]
    lines: Annotated[list[str], operator.add]


def _research() -> Any:
    """search looks the ticker up; write keeps its revenue only. The MSFT writer invents a 31.5% margin,
    a figure that stands in the AAPL instance's tool output and nowhere in its own."""

    def search(state: Research, config: RunnableConfig) -> dict[str, Any]:
        return {"notes": [get_financials.invoke({"ticker": state["ticker"]}, config)]}

    def write(state: Research) -> dict[str, Any]:
        line = state["notes"][-1].split(", operating")[0].removesuffix(".") + "."
        if state["ticker"] == "MSFT":
            line += " MSFT operating margin was 31.5%."
        return {"lines": [line]}

    # a researcher hands back its lines, not its notes
    return in_a_row(Research, ("search", search), ("write", write), output_schema=Desk)


def _reduce(state: Desk) -> dict[str, Any]:
    return {"report": "\n".join(sorted(state["lines"]))}


def _send_app() -> Any:
    g = StateGraph(Desk)
    g.add_node("research", _research())
    g.add_node("reduce", _reduce)
    g.add_conditional_edges(START, lambda s: [Send("research", {"ticker": t}) for t in FILINGS], ["research"])
    g.add_edge("research", "reduce")
    g.add_edge("reduce", END)
    return g.compile()


def _gather_app() -> Any:
    sub = _research()

    async def desk(state: Desk, config: RunnableConfig) -> dict[str, Any]:
        runs = await asyncio.gather(*(sub.ainvoke({"ticker": t}, config) for t in FILINGS))
        return {"lines": [line for run in runs for line in run["lines"]]}

    return in_a_row(Desk, ("desk", desk), ("reduce", _reduce))


@pytest.mark.parametrize(("app", "host"), [(_send_app, "research"), (_gather_app, "desk")], ids=["send", "gather"])
def test_parallel_instances_of_a_subgraph_never_back_each_other(tmp_path: Path, app: Any, host: str) -> None:
    snap, cascade = _audited(app(), {"lines": []}, tmp_path / "t", lambda r: r["report"])
    manifest = snap.load_manifest()
    prefix = "research" if host == "research" else "desk"
    search = {s.round: s for s in manifest.steps if s.node == f"{prefix}/search"}
    assert len(search) == 2 and all(s.within is not None for s in search.values())
    msft = next(r for r in search if "MSFT" in (snap.trace_dir / f"nodes/{prefix}/search/r{r}.input.txt").read_text())
    aapl = 3 - msft
    if host == "desk":  # both runs in one round of the host: told apart by their instance number
        assert {s.within for s in search.values()} == {"desk r1"}
        assert sorted(s.instance for s in search.values()) == [1, 2]
    writes = {s.round: s.upstream for s in manifest.steps if s.node == f"{prefix}/write"}
    assert writes == {msft: [f"{prefix}/search r{msft}"], aapl: [f"{prefix}/search r{aapl}"]}

    true = cascade.trace_claim("$245.1 billion")
    assert true.verdict is Verdict.VERIFIED
    assert true.links[-1].file == f"tools/{prefix}/search/r{msft}.get_financials.1.txt"
    invented = _claim(cascade, "MSFT operating margin was 31.5%")
    assert invented.verdict is Verdict.MISATTRIBUTED  # in the AAPL run's tool output, not in its own
    assert (invented.introduced_by, invented.introduced_round) == (f"{prefix}/write", msft)
    assert cascade.hallucinations.numerator == 1


# -- a subgraph invoked inside a node: its entry is fed by the host that built its input -----------------


class Notes(TypedDict, total=False):
    notes: Annotated[list[str], operator.add]


def _host_app() -> Any:
    def brief(state: Notes) -> dict[str, Any]:
        # the inner writer repeats the revenue it was handed and adds a headcount it was never given
        return {"notes": [f"Revenue was {state['notes'][-1].split('revenue ')[1].split(',')[0]}. "
                          "HALV had 31,000 employees."]}

    sub = in_a_row(Notes, ("brief", brief))

    def fetch(state: Notes, config: RunnableConfig) -> dict[str, Any]:
        return {"notes": [get_financials.invoke({"ticker": "HALV"}, config)]}

    def desk(state: Notes, config: RunnableConfig) -> dict[str, Any]:
        revenue = state["notes"][-1].split(", operating")[0]  # the host hands in the revenue only
        return {"notes": [sub.invoke({"notes": [revenue]}, config)["notes"][-1]]}

    return in_a_row(Notes, ("fetch", fetch), ("desk", desk))


def test_a_subgraph_invoked_inside_a_node_is_given_only_what_the_host_handed_in(tmp_path: Path) -> None:
    snap, cascade = _audited(_host_app(), {"notes": []}, tmp_path / "t", lambda r: r["notes"][-1])
    manifest = snap.load_manifest()
    assert ("desk", "desk/brief") in manifest.edges and ("fetch", "desk/brief") not in manifest.edges
    assert {s.name: s.upstream for s in manifest.steps}["desk/brief r1"] == ["desk r1"]

    true = cascade.trace_claim("$9.4 billion")
    assert true.verdict is Verdict.VERIFIED
    assert [link.node for link in true.links] == ["__report__", "desk", "desk/brief", "fetch", "fetch"]
    # 31,000 is in fetch's tool output, which desk did not hand to the subgraph: desk/brief invented it
    headcount = _claim(cascade, "31,000 employees")
    assert headcount.verdict is Verdict.MISATTRIBUTED
    assert (headcount.introduced_by, headcount.introduced_round) == ("desk/brief", 1)
