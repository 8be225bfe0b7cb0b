"""The template of a project's conftest: one chat model for the app (and the LLM auditor) that talks to a
server only while recording, and replays from the test's cassette with no key and no network otherwise.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest
from langchain_openai import ChatOpenAI

# Replays never reach this address (nothing listens on the discard port): a call that is not in the
# cassette is a cassette-miss error naming the command that records it, never a live call.
REPLAY_BASE_URL = "http://127.0.0.1:9/v1"


def _chat_model(base_url: str | None, api_key: str) -> ChatOpenAI:
    return ChatOpenAI(model="gpt-4o-mini", base_url=base_url, api_key=api_key, temperature=0, max_retries=0)


@pytest.fixture
def llm(request: pytest.FixtureRequest) -> Iterator[Any]:
    """`ChatOpenAI` for the app: replay by default; recording (`--fence-record-mode=once`) talks to the
    scripted server, or to the real API when RECORD_WITH_OPENAI=1 and OPENAI_API_KEY are set."""
    if (request.config.getoption("fence_record_mode") or "none") == "none":
        yield _chat_model(REPLAY_BASE_URL, api_key="replay-needs-no-key")
        return
    if os.environ.get("RECORD_WITH_OPENAI") == "1":
        yield _chat_model(None, api_key=os.environ["OPENAI_API_KEY"])  # filtered out of the cassette
        return
    from research_script import answer_app

    from pytest_auditfence.testing import ScriptedOpenAIServer

    with ScriptedOpenAIServer(rule=answer_app) as server:
        yield _chat_model(server.base_url, api_key="sk-scripted-recording")


@pytest.fixture
def fence_llm(llm: Any) -> Any:
    """The LLM auditor (mode="llm") uses the same model, and the same cassette."""
    return llm
