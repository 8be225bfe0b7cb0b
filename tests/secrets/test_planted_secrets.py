"""Planted secrets never leave (issue 12): a fenced session with a dozen kinds of secret in tool output,
the report, a document passed directly to fence_audit, a failing assertion, a chain snapshot and an LLM
call recorded into a cassette; every file the session writes is then scanned for every secret."""

from __future__ import annotations

from pathlib import Path

import pytest

# name -> (the planted text, the part of it that must never appear in a written file)
SECRETS: dict[str, tuple[str, str]] = {
    "openai": ("sk-proj-PLANTopenai0123456789abcdefXYZ", "PLANTopenai"),
    "anthropic": ("sk-ant-api03-PLANTanthropic0123456789abc", "PLANTanthropic"),
    "github": ("ghp_PLANTgithub0123456789abcdefABCDEF", "PLANTgithub"),
    "aws": ("AKIAPLANTAWSKEY12345", "AKIAPLANTAWSKEY12345"),
    "slack": ("xoxb-PLANTslack-0123456789", "PLANTslack"),
    "stripe": ("sk_live_PLANTstripe0123456789ab", "PLANTstripe"),
    "jwt": ("Bearer eyJhbGciOiJIUzI1NiJ9.eyJQTEFOVGp3dCI6MX0.PLANTjwtSignature", "PLANTjwtSignature"),
    "url": ("postgres://admin:PLANTdbpass@db.internal:5432/prod", "PLANTdbpass"),
    "short-password": ("password: plantedshortpw", "plantedshortpw"),
    "python-literal": ("{'client_secret': 'planted python literal'}", "planted python literal"),
    "double-json": ('"{\\"client_secret\\": \\"PLANTdoublejson\\"}"', "PLANTdoublejson"),
    "env": ("PLANTenvValue0123", "PLANTenvValue0123"),
    "query": ("apikey=PLANTqueryKey0123456789", "PLANTqueryKey0123456789"),
    "header": ("PLANTheaderToken0123", "PLANTheaderToken0123"),
}
IN_TEXT = [k for k in SECRETS if k not in ("query", "header")]

PROJECT = '''
import asyncio
import os

import pytest
from langchain_core.messages import AIMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import tool
from langchain_openai import ChatOpenAI
from langgraph.graph import START, MessagesState, StateGraph

from pytest_auditfence import assert_traceable
from pytest_auditfence.cassettes import use_cassette
from pytest_auditfence.testing import ChatRequest, Reply, ScriptedOpenAIServer

PLANTED = {planted!r}
LINES = [f"credential sample {{name}}: {{text}}" for name, text in sorted(PLANTED.items())]


@tool
def fetch_config(service: str) -> str:
    """Configuration of a service."""
    return "revenue was $1,234 million in FY2024\\n" + "\\n".join(LINES)


def research(state: MessagesState, config: RunnableConfig) -> dict:
    out = fetch_config.invoke({{"service": "billing"}}, config=config)
    return {{"messages": [AIMessage(content="Findings: " + out)]}}


graph = StateGraph(MessagesState)
graph.add_node("research", research)
graph.add_edge(START, "research")
app = graph.compile()
REPORT = "Revenue was $1,234 million in FY2024.\\n" + "\\n".join(f"Leaked {{line}} costs $9 billion." for line in LINES)


@pytest.mark.fence(min_coverage=0.0, max_hallucinations=0)
def test_marker_fails_with_the_secrets_in_its_claims(fence_snapshot):
    app.invoke({{"messages": [("user", "Check " + PLANTED["openai"])]}}, config=fence_snapshot.config())
    fence_snapshot.set_report(REPORT)


def test_direct_document_and_chain_snapshot(fence_snapshot, fence_audit, chain_snapshot):
    app.invoke({{"messages": [("user", "Check")]}}, config=fence_snapshot.config())
    cascade = fence_audit(final_document=REPORT)
    cascade.to_json_file = None
    open("saved_cascade.json", "w").write(cascade.to_json())
    assert cascade.evidence_chains() == chain_snapshot
    assert_traceable(cascade, min_coverage=0.0, max_hallucinations=0)


def test_llm_call_recorded_into_a_cassette():
    def rule(request: ChatRequest) -> Reply:
        return Reply(content="noted")

    with ScriptedOpenAIServer(rule=rule) as server:
        model = ChatOpenAI(model="gpt-4o-mini", base_url=server.base_url, api_key=PLANTED["openai"], max_retries=0,
                           default_headers={{"X-Auth-Token": {header!r}, "X-Trace": "Bearer " + PLANTED["jwt"][7:]}},
                           default_query={{"apikey": {query!r}, "page": "1"}})
        with use_cassette("cassettes/llm_call.yaml", "once"):
            model.invoke("Summarise: " + PLANTED["url"] + " " + PLANTED["short-password"])
'''


def test_no_planted_secret_reaches_any_file_the_session_writes(pytester: pytest.Pytester,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BILLING_SERVICE_TOKEN", SECRETS["env"][0])
    planted = {name: SECRETS[name][0] for name in IN_TEXT}
    pytester.makepyfile(test_session=PROJECT.format(planted=planted, header=SECRETS["header"][0],
                                                    query=SECRETS["query"][0].split("=", 1)[1]))
    result = pytester.runpytest_subprocess(
        "-p", "no:randomly", "--fence-trace-dir=traces", "--fence-report=report.json",
        "--fence-md-summary=summary.md", "--fence-html=page.html", "--junitxml=junit.xml", "--snapshot-update",
    )
    outcomes = result.parseoutcomes()
    assert outcomes.get("failed") == 2 and outcomes.get("passed") == 1, result.stdout.str()[-3000:]
    written = [p for p in sorted(pytester.path.rglob("*")) if p.is_file() and p.suffix not in (".py", ".pyc")]
    kinds = {p.relative_to(pytester.path).parts[0] for p in written}
    assert {"traces", "cassettes", "__snapshots__", "report.json", "summary.md", "page.html", "junit.xml",
            "saved_cascade.json"} <= kinds, kinds
    leaks = sorted((name, str(p.relative_to(pytester.path))) for p in written
                   for name, (_, needle) in SECRETS.items() if needle in p.read_text(errors="replace"))
    print(f"secrets planted: {len(SECRETS)}, files scanned: {len(written)}, leaked: {len(leaks)}")
    assert leaks == [], "\n".join(map(str, leaks))
    # the secrets were really there to leak: the captured tool output holds every marker kind
    captured = "\n".join(p.read_text() for p in (pytester.path / "traces").rglob("*.txt"))
    assert captured.count("[REDACTED:") >= len(IN_TEXT)
