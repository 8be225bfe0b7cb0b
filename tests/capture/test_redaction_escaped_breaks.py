"""A secret that follows a line break written as an escape ('\\n' in the repr of a dict a node puts in its
message) is redacted in every file of the trace folder, as one on a line of its own is."""

from __future__ import annotations

from langchain_core.messages import AIMessage, HumanMessage
from langgraph.graph import START, MessagesState, StateGraph

from pytest_auditfence import Snapshot

GITHUB = "ghp_" + "E5c4pE" * 6
OPENAI = "sk-proj-" + "Br3akL1ne" * 4
PASSWORD = "esc4pedPassw0rd"


def _research(state: MessagesState) -> dict:
    notes = {"notes": f"intro\n{GITHUB}\npassword: {PASSWORD}\n\t{OPENAI}", "revenue_usd_millions": 77}
    return {"messages": [AIMessage(content="Findings: " + str(notes))]}


def test_secrets_after_escaped_breaks_reach_no_trace_file(tmp_path):
    app = StateGraph(MessagesState).add_node("research", _research).add_edge(START, "research").compile()
    snap = Snapshot(tmp_path / "trace")
    app.invoke({"messages": [HumanMessage(content="Analyze")]}, config=snap.config())
    written = snap.finalize()
    assert written.files
    files = [p for p in (tmp_path / "trace").rglob("*") if p.is_file()]
    texts = {p: p.read_bytes().decode("utf-8", "replace") for p in files}
    # the node's output is in the trace, redacted: the escape and the figure beside the secrets are kept
    output = "\n".join(t for p, t in texts.items() if p.suffix == ".txt" and "revenue_usd_millions" in t)
    assert "[REDACTED:github]" in output and "[REDACTED:openai]" in output and "[REDACTED:credential]" in output
    for secret in (GITHUB, OPENAI, PASSWORD):
        assert not [p.name for p, t in texts.items() if secret in t], secret
