"""Zones on real agent apps: only what tools, retrievers and the user supplied backs a claim.

Model-written text (tool-call arguments, hand-off payloads, an agent's messages) never does; a tool that
calls a chat model is evidence at a lower trust; an echo of the user's question is not evidence for its
answer. Each app plants a fabrication at a known node (verdict and `introduced_by` asserted) and reports
a true figure from a tool (asserted covered). Apps: a `create_agent` researcher then a summarizer (the
first app a user writes), langgraph-supervisor and langgraph-swarm over `create_agent` workers.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from agent_apps import FILING, Reply, ToolCall, audited, get_financials, roles, scripted_model, system_of
from langchain.agents import create_agent
from langchain_core.tools import tool
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph_supervisor import create_supervisor
from langgraph_swarm import create_handoff_tool, create_swarm

from pytest_auditfence import Policy, Verdict

MARGIN_QUERY = {"query": "HALV revenue and 22% operating margin"}  # the model's words, not the tool's


def _first_app_rule(request: Any) -> Reply:
    if "Summarize" in system_of(request):
        return Reply(content="HALV revenue was $9.4 billion. HALV had 31,000 employees. Operating margin was 22%.")
    if "tool" in roles(request):
        return Reply(content="HALV reported revenue of $9.4 billion and operating income of $1.2 billion.")
    return Reply(tool_calls=[ToolCall("get_financials", MARGIN_QUERY)])


def test_the_first_app_a_user_writes_passes_and_a_margin_from_a_tool_argument_does_not(tmp_path: Path) -> None:
    # A create_agent researcher as a node, then a summarizer: 31,000 employees is in the researcher's own
    # tool output (its final answer does not repeat it); 22% exists only in the model's tool-call argument.
    with scripted_model(_first_app_rule) as llm:
        researcher = create_agent(llm, [get_financials], system_prompt="You research companies.")

        def summarizer(state: MessagesState) -> dict[str, Any]:
            brief = state["messages"][-1].content
            return {"messages": [llm.invoke([("system", "Summarize the research."), ("user", brief)])]}

        g = StateGraph(MessagesState)
        g.add_node("researcher", researcher)
        g.add_node("summarizer", summarizer)
        g.add_edge(START, "researcher")
        g.add_edge("researcher", "summarizer")
        g.add_edge("summarizer", END)
        snap, _, cascade = audited(g.compile(), {"messages": [("user", "Research HALV")]}, tmp_path / "t")

    for figure in ("$9.4 billion", "31,000 employees"):
        chain = cascade.trace_claim(figure)
        assert chain.verdict is Verdict.VERIFIED, (figure, chain)
        assert chain.links[-1].kind == "tool_call" and chain.links[-1].node == "researcher/tools"
    margin = next(c for c in cascade.claims if "22%" in c.claim)
    assert margin.verdict is Verdict.UNSUPPORTED
    assert (margin.introduced_by, margin.introduced_round) == ("researcher/model", 1)  # its tool-call argument
    arguments = [f for f in snap.load_manifest().files if f.kind == "tool_arguments"]
    assert [f.tool for f in arguments] == ["get_financials"]
    assert "22% operating margin" in (snap.trace_dir / arguments[0].path).read_text()


def _supervisor_rule(request: Any) -> Reply:
    system = system_of(request)
    fetched = any(m.get("role") == "tool" and FILING in str(m.get("content")) for m in request.messages)
    if "You research" in system:
        if fetched:
            return Reply(content="HALV reported revenue of $9.4 billion.")
        return Reply(tool_calls=[ToolCall("get_financials", MARGIN_QUERY)])
    # the supervisor: hand to the researcher once, then write the answer
    if not any(m.get("name") == "researcher" for m in request.messages if m.get("role") == "assistant"):
        return Reply(tool_calls=[ToolCall("transfer_to_researcher", {})])
    return Reply(content="HALV revenue was $9.4 billion. Operating margin was 22%.")


# langgraph-supervisor 0.0.31 still builds its own agent with the deprecated create_react_agent
@pytest.mark.filterwarnings("ignore:create_react_agent has been moved")
def test_supervisor_app_a_figure_only_in_a_tool_argument_is_unsupported(tmp_path: Path) -> None:
    with scripted_model(_supervisor_rule) as llm:
        researcher = create_agent(llm, [get_financials], system_prompt="You research companies (researcher).",
                                  name="researcher")
        app = create_supervisor([researcher], model=llm, prompt="You are the supervisor.").compile()
        _, _, cascade = audited(app, {"messages": [("user", "Brief me on HALV")]}, tmp_path / "t")

    assert cascade.trace_claim("$9.4 billion").verdict is Verdict.VERIFIED
    margin = next(c for c in cascade.claims if "22%" in c.claim)
    assert margin.verdict is Verdict.UNSUPPORTED
    assert (margin.introduced_by, margin.introduced_round) == ("supervisor/agent", 2)  # its answer, after the hand-off
    assert not any(link.kind == "tool_call" and "22%" in link.text for link in cascade.trace_claim("22%").links)


def _swarm_rule(request: Any) -> Reply:
    if "Alice" in system_of(request):
        if "tool" not in roles(request):
            return Reply(tool_calls=[ToolCall("get_financials", {"query": "HALV revenue"})])
        # Alice invents the margin in the message that hands over to Bob
        return Reply(content="Revenue was $9.4 billion; operating margin was 22%.",
                     tool_calls=[ToolCall("transfer_to_bob", {})])
    return Reply(content="HALV revenue was $9.4 billion and it had 31,000 employees. Operating margin was 22%.")


def test_swarm_hand_off_payload_is_declared_not_raw_data(tmp_path: Path) -> None:
    # langgraph-swarm's handoff tool returns Command(graph=PARENT, update={"messages": [...all so far...]}):
    # Alice's own words travel in the tool's "output", and must not back the claim.
    with scripted_model(_swarm_rule) as llm:
        alice = create_agent(llm, [get_financials, create_handoff_tool(agent_name="bob")],
                             system_prompt="You are Alice, a researcher.", name="alice")
        bob = create_agent(llm, [], system_prompt="You are Bob, a writer.", name="bob")
        app = create_swarm([alice, bob], default_active_agent="alice").compile()
        snap, _, cascade = audited(app, {"messages": [("user", "Research HALV")]}, tmp_path / "t")

    manifest = snap.load_manifest()
    assert {f.tool: f.kind for f in manifest.files if f.kind in ("tool_call", "handoff")} == {
        "get_financials": "tool_call", "transfer_to_bob": "handoff"}
    margin = next(c for c in cascade.claims if "22%" in c.claim)
    assert margin.verdict is Verdict.UNSUPPORTED
    assert margin.introduced_by == "alice/model"
    assert margin.introduced_round == 2  # the message that handed over, not the one that called the tool
    true = cascade.trace_claim("31,000 employees")
    assert true.verdict is Verdict.VERIFIED and true.links[-1].kind == "tool_call"
    # the hand-off is an edge of the graph it routes in, from the agent that handed over to the one it named
    assert {("alice", "bob"), ("bob", "bob/model")} <= set(manifest.edges)


def _analyst_rule(request: Any) -> Reply:
    system = system_of(request)
    if "summarise web pages" in system:
        return Reply(content="The pages say HALV holds a 12% share of the warehouse robot market.")
    if "tool" not in roles(request):
        return Reply(tool_calls=[ToolCall("get_financials", {"query": "HALV"}),
                                 ToolCall("search_web", {"topic": "HALV market share"})])
    return Reply(content="HALV revenue was $9.4 billion. HALV holds a 12% share of the warehouse robot market. "
                         "Its net margin was 13%.")


def test_a_tool_that_calls_a_chat_model_is_model_derived_evidence(tmp_path: Path) -> None:
    with scripted_model(_analyst_rule) as llm:
        @tool
        def search_web(topic: str) -> str:
            """Search the web and summarise the pages found."""
            pages = "HALV market overview page (fetched)."
            return llm.invoke([("system", "You summarise web pages."), ("user", pages)]).content

        analyst = create_agent(llm, [get_financials, search_web], system_prompt="You analyse companies.")
        g = StateGraph(MessagesState)
        g.add_node("analyst", analyst)
        g.add_edge(START, "analyst")
        snap, _, cascade = audited(g.compile(), {"messages": [("user", "Analyse HALV")]}, tmp_path / "t")

    derived = {f.tool: f.model_derived for f in snap.load_manifest().files if f.kind == "tool_call"}
    assert derived == {"get_financials": False, "search_web": True}
    share = next(c for c in cascade.claims if "12%" in c.claim)
    assert share.verdict is Verdict.VERIFIED
    assert any("model-derived evidence: search_web" in note for note in share.notes)
    revenue = next(c for c in cascade.claims if "$9.4 billion" in c.claim)
    assert revenue.verdict is Verdict.VERIFIED and not any("model-derived" in n for n in revenue.notes)
    invented = next(c for c in cascade.claims if "13%" in c.claim)
    assert invented.verdict is Verdict.UNSUPPORTED and invented.introduced_by == "analyst/model"
    assert cascade.passport.trust_cap == 0.5 and "model-derived tool output" in cascade.passport.statement


def _echo_rule(request: Any) -> Reply:
    if "tool" not in roles(request):
        return Reply(tool_calls=[ToolCall("get_financials", {"query": "HALV revenue growth"})])
    return Reply(content="HALV revenue grew 14% in fiscal 2024. Revenue was $9.4 billion.")


def _echo_app(llm: Any) -> Any:
    g = StateGraph(MessagesState)
    g.add_node("analyst", create_agent(llm, [get_financials], system_prompt="You analyse companies."))
    g.add_edge(START, "analyst")
    return g.compile()


def test_an_echo_of_the_user_s_question_is_not_evidence_for_its_answer(tmp_path: Path) -> None:
    question = {"messages": [("user", "Did HALV revenue grow 14% in fiscal 2024? Answer from the filing.")]}
    with scripted_model(_echo_rule) as llm:
        snap, report, cascade = audited(_echo_app(llm), question, tmp_path / "t")
    assert "14%" not in FILING
    files = {f.kind: f.path for f in snap.load_manifest().files if f.node == "__input__"}
    assert (snap.trace_dir / files["input_question"]).read_text() == "Did HALV revenue grow 14% in fiscal 2024?\n"
    assert "Answer from the filing." in (snap.trace_dir / files["input"]).read_text()
    echo = next(c for c in cascade.claims if "14%" in c.claim)
    assert echo.verdict is Verdict.UNSUPPORTED
    assert echo.introduced_by == "analyst/model"
    assert cascade.trace_claim("$9.4 billion").verdict is Verdict.VERIFIED

    # the policy is settable: a team that treats the user's questions as given data says so
    from pytest_auditfence.audit.cascade import audit_cascade_sync

    lenient = audit_cascade_sync(trace_dir=snap.trace_dir, final_document=report,
                                 policy=Policy(questions_are_evidence=True))
    chain = lenient.trace_claim("14%")
    assert chain.verdict is Verdict.VERIFIED
    assert chain.links[-1].kind == "input_question" and chain.links[-1].node == "__input__"
