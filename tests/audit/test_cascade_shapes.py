"""The cascade over real captured graphs of other shapes: subgraph, agent loop, Send map-reduce; policy."""

from __future__ import annotations

import operator
from pathlib import Path
from typing import Annotated, Any, TypedDict

import pytest
from agent_apps import in_a_row
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import tool
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition
from langgraph.types import Command, Send

from pytest_auditfence import IncompleteCaptureError, Policy, Snapshot, Verdict
from pytest_auditfence.audit.cascade import REPORT_NODE, audit_cascade_sync
from pytest_auditfence.audit.policy import OriginRule

PRICES = {"AAPL": "187.32", "MSFT": "411.07", "GOOG": "141.80"}


@tool
def get_price(ticker: str) -> str:
    """Closing price of a ticker."""
    return f"{ticker} closed at ${PRICES[ticker]} on 2024-03-28."


@tool
def get_headcount(company: str) -> str:
    """Employees at fiscal year end."""
    return f"{company} reported 164,000 full-time employees at fiscal year end."


def _capture(app: Any, inputs: Any, trace: Path, report_of: Any) -> tuple[Snapshot, str]:
    snap = Snapshot(trace)
    result = app.invoke(inputs, config=snap.config())
    report = report_of(result)
    snap.set_report(report)
    snap.finalize()
    return snap, report


# -- a compiled subgraph used as a node ---------------------------------------------------------------


class Notes(TypedDict):
    notes: Annotated[list[str], operator.add]


def _research(last: str, finish: Any) -> Any:
    """The research subgraph: `search` fetches the AAPL price with a tool, then `last` runs `finish`."""

    def search(state: Notes, config: RunnableConfig) -> dict[str, Any]:
        return {"notes": [get_price.invoke({"ticker": "AAPL"}, config)]}

    return in_a_row(Notes, ("search", search), (last, finish))


def _subgraph_app(invent: bool) -> Any:
    def summarize(state: Notes) -> dict[str, Any]:
        extra = " Its dividend yield was 2.9%." if invent else ""
        return {"notes": ["Summary: AAPL closed at $187.32 on 2024-03-28." + extra]}

    research = _research("summarize", summarize)

    def plan(state: Notes) -> dict[str, Any]:
        return {"notes": ["Plan: look up the AAPL closing price."]}

    def write(state: Notes) -> dict[str, Any]:
        summary = state["notes"][-1].removeprefix("Summary: ")
        return {"notes": [f"Report: {summary}"]}

    return in_a_row(Notes, ("plan", plan), ("research", research), ("write", write))


def test_subgraph_chain_runs_through_the_inner_nodes(tmp_path: Path) -> None:
    snap, report = _capture(_subgraph_app(invent=False), {"notes": []}, tmp_path / "t",
                            lambda r: r["notes"][-1].removeprefix("Report: "))
    cascade = audit_cascade_sync(trace_dir=snap.trace_dir, final_document=report)
    chain = cascade.trace_claim("$187.32")
    assert chain.verdict is Verdict.VERIFIED
    nodes = [link.node for link in chain.links]
    assert nodes[0] == REPORT_NODE and nodes[1] == "write"
    assert "research/summarize" in nodes and "research/search" in nodes
    assert nodes.index("research/summarize") < nodes.index("research/search")
    assert chain.links[-1].kind == "tool_call" and "187.32" in chain.links[-1].text


def test_subgraph_inner_fabrication_is_attributed_to_the_inner_node(tmp_path: Path) -> None:
    snap, report = _capture(_subgraph_app(invent=True), {"notes": []}, tmp_path / "t",
                            lambda r: r["notes"][-1].removeprefix("Report: "))
    cascade = audit_cascade_sync(trace_dir=snap.trace_dir, final_document=report)
    claim = next(c for c in cascade.claims if "2.9%" in c.claim)
    assert claim.verdict is Verdict.UNSUPPORTED
    assert claim.introduced_by == "research/summarize"
    assert cascade.hallucinations.numerator == 1


def _parent_command_app() -> Any:
    """The research subgraph's last node hands its summary to the parent with Command(graph=PARENT)."""

    def handoff(state: Notes) -> Command:
        summary = "AAPL closed at $187.32 on 2024-03-28. Its dividend yield was 2.9%."
        return Command(graph=Command.PARENT, goto="write", update={"notes": [summary]})

    def write(state: Notes) -> dict[str, Any]:
        return {"notes": [f"Report: {state['notes'][-1]}"]}

    outer = StateGraph(Notes)
    outer.add_node("research", _research("handoff", handoff))
    outer.add_node("write", write)
    outer.add_edge(START, "research")
    outer.add_edge("write", END)
    return outer.compile()


def test_a_command_handed_to_the_parent_graph_carries_the_chain(tmp_path: Path) -> None:
    snap, report = _capture(_parent_command_app(), {"notes": []}, tmp_path / "t",
                            lambda r: r["notes"][-1].removeprefix("Report: "))
    cascade = audit_cascade_sync(trace_dir=snap.trace_dir, final_document=report)
    chain = cascade.trace_claim("$187.32")
    assert chain.verdict is Verdict.VERIFIED
    assert [link.node for link in chain.links][:4] == [REPORT_NODE, "write", "research", "research/handoff"]
    assert chain.links[-1].kind == "tool_call" and "187.32" in chain.links[-1].text
    assert not any("ParentCommand" in link.text for link in chain.links)  # an update, not an error text
    invented = next(c for c in cascade.claims if "2.9%" in c.claim)
    assert invented.verdict is Verdict.UNSUPPORTED
    assert invented.introduced_by == "research/handoff"


# -- a tool-calling agent loop (agent <-> tools, several rounds) --------------------------------------


class ToolCallingFake(GenericFakeChatModel):
    def bind_tools(self, tools: Any, **kwargs: Any) -> ToolCallingFake:
        return self


def _agent_app(final_text: str) -> Any:
    script = iter([
        AIMessage(content="", tool_calls=[{"name": "get_price", "args": {"ticker": "MSFT"}, "id": "call_1"}]),
        AIMessage(content="", tool_calls=[{"name": "get_headcount", "args": {"company": "Microsoft"},
                                           "id": "call_2"}]),
        AIMessage(content=final_text),
    ])
    model = ToolCallingFake(messages=script).bind_tools([get_price, get_headcount])

    def agent(state: MessagesState) -> dict[str, Any]:
        return {"messages": [model.invoke(state["messages"])]}

    g = StateGraph(MessagesState)
    g.add_node("agent", agent)
    g.add_node("tools", ToolNode([get_price, get_headcount]))
    g.add_edge(START, "agent")
    g.add_conditional_edges("agent", tools_condition)
    g.add_edge("tools", "agent")
    return g.compile()


def test_agent_loop_claims_trace_through_the_tools_node(tmp_path: Path) -> None:
    text = ("Microsoft closed at $411.07 on 2024-03-28 and employed 164,000 people. "
            "Its market share reached 38.5% of the cloud market.")
    snap, report = _capture(_agent_app(text), {"messages": [("user", "Brief me on Microsoft")]},
                            tmp_path / "t", lambda r: r["messages"][-1].content)
    manifest = snap.load_manifest()
    assert manifest.rounds.get("agent") == 3
    cascade = audit_cascade_sync(trace_dir=snap.trace_dir, final_document=report)
    traced = cascade.trace_claim("$411.07")
    assert traced.verdict is Verdict.VERIFIED and traced.reaches_raw_data
    assert [link.node for link in traced.links][:3] == [REPORT_NODE, "agent", "tools"]
    invented = next(c for c in cascade.claims if "38.5%" in c.claim)
    assert invented.verdict is Verdict.UNSUPPORTED and invented.introduced_by == "agent"
    assert str(cascade.coverage) == "1/2 (50.0%)"


# -- Send map-reduce -----------------------------------------------------------------------------------


class Fanout(TypedDict, total=False):
    tickers: list[str]
    ticker: str
    lines: Annotated[list[str], operator.add]
    report: str


def _map_reduce_app() -> Any:
    def route(state: Fanout) -> list[Send]:
        return [Send("analyze", {"ticker": t}) for t in state["tickers"]]

    def analyze(state: Fanout, config: RunnableConfig) -> dict[str, Any]:
        return {"lines": [get_price.invoke({"ticker": state["ticker"]}, config)]}

    def reduce(state: Fanout) -> dict[str, Any]:
        body = " ".join(sorted(line.replace(" on 2024-03-28", "") for line in state["lines"]))
        return {"report": f"Closing prices: {body}"}

    g = StateGraph(Fanout)
    g.add_node("analyze", analyze)
    g.add_node("reduce", reduce)
    g.add_conditional_edges(START, route, ["analyze"])
    g.add_edge("analyze", "reduce")
    g.add_edge("reduce", END)
    return g.compile()


def test_send_map_reduce_traces_each_branch(tmp_path: Path) -> None:
    snap, report = _capture(_map_reduce_app(), {"tickers": ["AAPL", "MSFT", "GOOG"], "lines": []},
                            tmp_path / "t", lambda r: r["report"])
    cascade = audit_cascade_sync(trace_dir=snap.trace_dir, final_document=report)
    for price in PRICES.values():
        chain = cascade.trace_claim(f"${price}")
        assert chain.reaches_raw_data, chain
        assert [link.node for link in chain.links][:3] == [REPORT_NODE, "reduce", "analyze"]
    assert cascade.hallucinations.numerator == 0


# -- policy, fail-closed -------------------------------------------------------------------------------


def _two_source_app() -> Any:
    def collect(state: MessagesState, config: RunnableConfig) -> dict[str, Any]:
        a = get_price.invoke({"ticker": "GOOG"}, config)
        b = get_headcount.invoke({"company": "Alphabet"}, config)
        return {"messages": [AIMessage(content=f"{a}\n{b}")]}

    def write(state: MessagesState) -> dict[str, Any]:
        return {"messages": [AIMessage(content=(
            "Alphabet closed at $141.80 on 2024-03-28 (source: get_headcount).\n"
            "Alphabet had 164,000 full-time employees at fiscal year end.\n"
            "We expect a strong year."))]}

    g = StateGraph(MessagesState)
    g.add_node("collect", collect)
    g.add_node("write", write)
    g.add_edge(START, "collect")
    g.add_edge("collect", "write")
    return g.compile()


@pytest.fixture()
def two_sources(tmp_path: Path) -> tuple[Snapshot, str]:
    return _capture(_two_source_app(), {"messages": [("user", "Alphabet")]}, tmp_path / "t",
                    lambda r: r["messages"][-1].content)


def test_misattribution_counts_only_under_a_strict_policy(two_sources) -> None:
    snap, report = two_sources
    strict = audit_cascade_sync(trace_dir=snap.trace_dir, final_document=report)
    claim = next(c for c in strict.claims if "$141.80" in c.claim)
    assert claim.verdict is Verdict.MISATTRIBUTED
    assert strict.hallucinations.numerator == 1
    lenient = audit_cascade_sync(trace_dir=snap.trace_dir, final_document=report,
                                 policy=Policy(misattribution="lenient"))
    assert lenient.hallucinations.numerator == 0
    assert lenient.coverage == strict.coverage
    opinion = next(c for c in strict.claims if "strong year" in c.claim)
    assert opinion.verdict is Verdict.UNVERIFIABLE


def test_origin_rule_requires_the_named_tool(two_sources) -> None:
    snap, report = two_sources
    rule = OriginRule(subject=r"employees", sources=("get_price",))
    cascade = audit_cascade_sync(trace_dir=snap.trace_dir, final_document=report,
                                 policy=Policy(origin_rules=(rule,), misattribution="lenient"))
    claim = next(c for c in cascade.claims if "employees" in c.claim)
    assert claim.verdict is Verdict.MISATTRIBUTED
    assert any("origin rule" in note for note in claim.notes)
    allowed = audit_cascade_sync(trace_dir=snap.trace_dir, final_document=report,
                                 policy=Policy(origin_rules=(OriginRule(subject="employees",
                                                                        sources=("get_headcount",)),)))
    assert next(c for c in allowed.claims if "employees" in c.claim).verdict is Verdict.VERIFIED


def test_skip_patterns_are_counted_never_verified(two_sources) -> None:
    snap, report = two_sources
    cascade = audit_cascade_sync(trace_dir=snap.trace_dir, final_document=report,
                                 policy=Policy(skip_patterns=(r"full-time employees",)))
    claim = next(c for c in cascade.claims if "employees" in c.claim)
    assert claim.verdict is Verdict.SKIPPED and claim.verdict_source == "skipped"
    assert cascade.skipped.numerator == 1
    assert claim.evidence == []


def test_incomplete_capture_is_refused_unless_allowed(tmp_path: Path) -> None:
    def boom(state: MessagesState) -> dict[str, Any]:
        raise RuntimeError("upstream API down")

    g = StateGraph(MessagesState)
    g.add_node("boom", boom)
    g.add_edge(START, "boom")
    app = g.compile()
    with pytest.raises(RuntimeError):
        with Snapshot(tmp_path / "t") as snap:
            app.invoke({"messages": [("user", "x")]}, config=snap.config())
    assert snap.load_manifest().complete is False
    with pytest.raises(IncompleteCaptureError, match="incomplete"):
        audit_cascade_sync(trace_dir=snap.trace_dir, final_document="Revenue was $5 million.")
    partial = audit_cascade_sync(trace_dir=snap.trace_dir, final_document="Revenue was $5 million.",
                                 policy=Policy(allow_incomplete=True))
    assert partial.complete is False
    assert "INCOMPLETE" in partial.passport.statement


def test_passport_caps_trust_by_the_weakest_capture_level(two_sources) -> None:
    snap, report = two_sources
    cascade = audit_cascade_sync(trace_dir=snap.trace_dir, final_document=report,
                                 policy=Policy(misattribution="lenient"))
    passport = cascade.passport
    assert passport.capture_level.value == "instrumented" and passport.trust_cap == 1.0
    assert passport.verified_trust == pytest.approx(cascade.coverage.value)
    assert passport.coverage == cascade.coverage


def test_a_claim_citing_a_url_never_fetched_is_unsupported(tmp_path: Path) -> None:
    # a claim with no figure to trace: the reference check alone decides, and it fails closed
    def write(state: MessagesState) -> dict[str, Any]:
        return {"messages": [AIMessage(content=(
            "Rates are listed on the pricing page (https://example.com/pricing).\n"
            "GOOG closed at $141.80 (https://example.com/quotes)."))]}

    def fetch(state: MessagesState, config: RunnableConfig) -> dict[str, Any]:
        page = get_price.invoke({"ticker": "GOOG"}, config)
        return {"messages": [AIMessage(content=f"{page} Source: https://example.com/quotes")]}

    g = StateGraph(MessagesState)
    g.add_node("fetch", fetch)
    g.add_node("write", write)
    g.add_edge(START, "fetch")
    g.add_edge("fetch", "write")
    snap, report = _capture(g.compile(), {"messages": [("user", "GOOG")]}, tmp_path / "t",
                            lambda r: r["messages"][-1].content)
    cascade = audit_cascade_sync(trace_dir=snap.trace_dir, final_document=report)
    dangling = next(c for c in cascade.claims if "pricing page" in c.claim)
    assert dangling.verdict is Verdict.UNSUPPORTED
    assert any("appears in no source" in note for note in dangling.notes)
    # the price traces to the tool, but the URL was written by fetch: no raw data holds it
    cited = next(c for c in cascade.claims if "$141.80" in c.claim)
    assert cited.verdict is Verdict.UNSUPPORTED
    assert cited.introduced_by == "fetch"


# -- state that skips a node: a node given what an earlier node wrote ---------------------------------


class Desk(TypedDict):
    notes: Annotated[list[str], operator.add]
    draft: str  # no reducer: a later write replaces it


def _desk_app(report_of: Any) -> Any:
    """fetch (tool) -> analyze (adds a note, overwrites the draft) -> write (reports from the whole state)."""

    def fetch(state: Desk, config: RunnableConfig) -> dict[str, Any]:
        return {"notes": [get_price.invoke({"ticker": "AAPL"}, config)],
                "draft": get_headcount.invoke({"company": "Apple"}, config)}

    def analyze(state: Desk) -> dict[str, Any]:
        return {"notes": ["The calendar shows no earnings call this week."], "draft": "(cleared)"}

    def write(state: Desk) -> dict[str, Any]:
        return {"notes": [report_of(state)]}

    return in_a_row(Desk, ("fetch", fetch), ("analyze", analyze), ("write", write))


def test_a_figure_from_two_steps_back_traces_to_the_node_that_wrote_it(tmp_path: Path) -> None:
    # write quotes fetch's note, which analyze did not repeat: still in the state write was given.
    app = _desk_app(lambda s: s["notes"][0].replace("AAPL closed", "Apple shares closed") + " Volume was 51.2 million.")
    snap, report = _capture(app, {"notes": [], "draft": ""}, tmp_path / "t", lambda r: r["notes"][-1])
    cascade = audit_cascade_sync(trace_dir=snap.trace_dir, final_document=report)
    chain = cascade.trace_claim("$187.32")
    assert chain.verdict is Verdict.VERIFIED
    assert [link.node for link in chain.links] == [REPORT_NODE, "write", "fetch", "fetch"]
    assert chain.links[-1].kind == "tool_call"
    invented = next(c for c in cascade.claims if "51.2 million" in c.claim)
    assert invented.verdict is Verdict.UNSUPPORTED and invented.introduced_by == "write"


def test_an_overwritten_value_is_not_taken_as_given(tmp_path: Path) -> None:
    # fetch's headcount went into `draft`, which analyze overwrote: write was never given 164,000.
    app = _desk_app(lambda s: "Apple reported 164,000 full-time employees.")
    snap, report = _capture(app, {"notes": [], "draft": ""}, tmp_path / "t", lambda r: r["notes"][-1])
    cascade = audit_cascade_sync(trace_dir=snap.trace_dir, final_document=report)
    [claim] = [c for c in cascade.claims if c.checkable]
    assert claim.verdict is Verdict.MISATTRIBUTED  # in raw data, not on the path the report came through
    assert claim.introduced_by == "write"


# -- a subgraph invoked inside a node function ----------------------------------------------------------


def _supervisor_app(brief: str, invent_inside: bool) -> Any:
    def search(state: Notes) -> dict[str, Any]:
        extra = " Its dividend yield was 2.9%." if invent_inside else ""
        return {"notes": [f"Found: {state['notes'][-1]}{extra}"]}

    sub = in_a_row(Notes, ("search", search))

    def outer(state: Notes, config: RunnableConfig) -> dict[str, Any]:
        found = sub.invoke({"notes": [brief]}, config)["notes"][-1]  # outer's own code builds the input
        return {"notes": [found]}

    def final(state: Notes) -> dict[str, Any]:
        return {"notes": [f"Report: {state['notes'][-1]}"]}

    return in_a_row(Notes, ("outer", outer), ("final", final))


@pytest.mark.parametrize(("invent_inside", "origin"), [(False, "outer"), (True, "outer/search")])
def test_a_sub_agent_input_built_by_its_caller_is_the_caller_s_doing(tmp_path: Path, invent_inside: bool,
                                                                    origin: str) -> None:
    brief = "the AAPL target price is $240" if not invent_inside else "look up AAPL"
    snap, report = _capture(_supervisor_app(brief, invent_inside), {"notes": []}, tmp_path / "t",
                            lambda r: r["notes"][-1].removeprefix("Report: "))
    cascade = audit_cascade_sync(trace_dir=snap.trace_dir, final_document=report)
    invented = [c for c in cascade.claims if c.checkable]
    assert invented and all(c.verdict is Verdict.UNSUPPORTED for c in invented)
    assert {c.introduced_by for c in invented} == {origin}
