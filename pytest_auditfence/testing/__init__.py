"""Offline test helpers shipped to users: a scripted OpenAI-compatible server on 127.0.0.1.

Point any OpenAI client (e.g. LangChain's `ChatOpenAI(base_url=server.base_url)`) at it to test an integration.
"""

from __future__ import annotations

from pytest_auditfence.testing.auditor_rules import AuditorRule, ClaimPlan, ReviewPlan
from pytest_auditfence.testing.replies import (
    ChatRequest,
    RecordedRequest,
    Reply,
    ScriptError,
    ToolCall,
    count_tokens,
)
from pytest_auditfence.testing.server import Rule, ScriptedOpenAIServer

__all__ = [
    "AuditorRule",
    "ChatRequest",
    "ClaimPlan",
    "RecordedRequest",
    "Reply",
    "ReviewPlan",
    "Rule",
    "ScriptError",
    "ScriptedOpenAIServer",
    "ToolCall",
    "count_tokens",
]
