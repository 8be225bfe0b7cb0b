"""The chat model of the agent loop's LLM-audited test: replayed from committed cassettes, recorded on request.

Owns `agent_llm` (also the `fence_llm` the auditor uses): the scripted local server runs only while recording.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from agent_loop_script import API_KEY

# Nothing listens on the discard port: a call that is not in the cassette could not be answered live.
REPLAY_BASE_URL = "http://127.0.0.1:9/v1"


def _chat_model(base_url: str) -> Any:
    from langchain_openai import ChatOpenAI

    return ChatOpenAI(model="gpt-4o-mini", base_url=base_url, api_key=API_KEY, temperature=0, max_retries=0)


@pytest.fixture
def agent_llm(request: pytest.FixtureRequest) -> Iterator[Any]:
    """`ChatOpenAI` for the agent; with `--fence-record-mode` other than none it talks to the scripted server."""
    if (request.config.getoption("fence_record_mode") or "none") == "none":
        yield _chat_model(REPLAY_BASE_URL)
        return
    from agent_loop_script import recording_rule

    from pytest_auditfence.testing import ScriptedOpenAIServer

    with ScriptedOpenAIServer(rule=recording_rule()) as server:  # type: ignore[arg-type]
        yield _chat_model(server.base_url)


@pytest.fixture
def fence_llm(agent_llm: Any) -> Any:
    """The LLM auditor and the adversarial reviewer use the same model (and the same cassette)."""
    return agent_llm
