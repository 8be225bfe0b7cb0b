"""Shared pieces of the LLM auditor tests: the model, the honest auditor's plans, record-then-replay.

Cassettes and golden cascade JSON live in tests/llm/cassettes/; delete a pair to record it again.
"""

from __future__ import annotations

import asyncio
import socket
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from langchain_openai import ChatOpenAI

from pytest_auditfence.audit.cascade import Cascade
from pytest_auditfence.cassettes import use_cassette
from pytest_auditfence.testing import ChatRequest, Reply, ScriptedOpenAIServer
from pytest_auditfence.testing.auditor_rules import AuditorRule, ClaimPlan

CASSETTES = Path(__file__).parent / "cassettes"
# Planted: it must never reach a cassette or a golden file.
API_KEY = "sk-proj-PLANTEDauditfenceKEY0123456789abcdef"
CLOSED = "http://127.0.0.1:9/v1"  # replays point here: nothing listens, so a live call could not succeed


def chat_model(base_url: str, name: str = "gpt-4o-mini") -> ChatOpenAI:
    return ChatOpenAI(model=name, base_url=base_url, api_key=API_KEY, max_retries=0, temperature=0)


def port_is_closed(port: int) -> bool:
    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) != 0


# An honest auditor for the two-lane report: hop 1 cites the research summaries, hop 2 the tool notes.
HONEST = {
    "margins improved": ClaimPlan(queries=("services revenue",),
                                  evidence="services revenue grew faster than hardware revenue"),
    "shift toward services": ClaimPlan(queries=("shift toward services",),
                                       evidence="the shift toward services lifted the gross margin"),
    "component shortages eased": ClaimPlan(queries=("component shortages",),
                                           evidence="component shortages eased in the second half"),
    # the research node invented it: its hop-2 search of the raw notes finds nothing
    "competitors were hit": ClaimPlan(queries=("competitors",), evidence="Competitors were hit much harder",
                                      severity="high", confidence=0.8),
}


def recorded(name: str, rule: AuditorRule, audit: Callable[[ChatOpenAI], Any]) -> Cascade:
    """Record `audit` against the scripted server once (committed), then replay it with no server running.

    The replay must give the recorded cascade's JSON byte for byte.
    """
    cassette, golden = CASSETTES / f"{name}.yaml", CASSETTES / f"{name}.cascade.json"
    base_url = CLOSED
    if not cassette.exists():
        with ScriptedOpenAIServer(rule=rule) as server:
            base_url, port = server.base_url, server.port
            with use_cassette(cassette, "once"):
                live = asyncio.run(audit(chat_model(base_url)))
        assert port_is_closed(port)
        golden.write_text(live.to_json(), encoding="utf-8")
    with use_cassette(cassette, "none"):
        replayed = asyncio.run(audit(chat_model(base_url)))
    assert replayed.to_json() == golden.read_text(encoding="utf-8")
    return replayed


class InFlight:
    """A rule wrapper that holds each answer `hold` seconds and records the most requests served at once."""

    def __init__(self, rule: Callable[[ChatRequest], Reply], hold: float = 0.03) -> None:
        self.rule, self.hold = rule, hold
        self.now = self.most = 0
        self._lock = threading.Lock()

    def __call__(self, request: ChatRequest) -> Reply:
        with self._lock:
            self.now += 1
            self.most = max(self.most, self.now)
        try:
            threading.Event().wait(self.hold)
            return self.rule(request)
        finally:
            with self._lock:
                self.now -= 1
