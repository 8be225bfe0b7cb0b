"""What the scripted OpenAI-compatible server answers: replies, tool calls, and the request views.

Turns a `Reply` into the exact JSON (or SSE chunks) the OpenAI Chat Completions API would send.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pytest_auditfence.errors import AuditFenceError

# `created` is fixed so that responses are byte-identical from run to run (2023-11-14T22:13:20Z).
CREATED = 1_700_000_000
SYSTEM_FINGERPRINT = "fp_scripted"
FINISH_REASONS = ("stop", "tool_calls", "length", "content_filter")
_ARGUMENT_CHUNK = 8  # characters of tool-call arguments per streamed delta, like the real API's few tokens
_TOKEN = re.compile(r"\w+|[^\w\s]")
_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "invalid_request_error",
    403: "permission_error",
    404: "not_found_error",
    429: "rate_limit_exceeded",
}


class ScriptError(AuditFenceError, ValueError):
    """A reply, tool call or server script was built with values the server cannot serve."""


@dataclass(frozen=True)
class ToolCall:
    """One tool call the scripted model makes.

    `arguments` is a dict (sent JSON-encoded, keys sorted) or a raw string (sent as is, so a test can
    script malformed arguments). `id` defaults to a stable id derived from the request and position.
    """

    name: str
    arguments: Mapping[str, Any] | str = field(default_factory=dict)
    id: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise ScriptError(f"ToolCall.name must be a non-empty string, got {self.name!r}; pass the tool's name")
        if not isinstance(self.arguments, (str, Mapping)):
            raise ScriptError(
                f"ToolCall({self.name!r}).arguments must be a dict or a JSON string, "
                f"got {type(self.arguments).__name__}; pass e.g. {{'query': 'revenue'}}"
            )

    def arguments_json(self) -> str:
        if isinstance(self.arguments, str):
            return self.arguments
        return json.dumps(dict(self.arguments), sort_keys=True, ensure_ascii=False)


@dataclass(frozen=True)
class Reply:
    """One answer of the scripted server.

    - `content` and/or `tool_calls`: an assistant message. `finish_reason` defaults to "tool_calls"
      when there are tool calls, else "stop"; pass "length" to script a truncated answer.
    - `status` >= 400 with `error`: an API error with OpenAI's error body
      (`{"error": {"message", "type", "param", "code"}}`); the OpenAI client raises e.g.
      `RateLimitError` for 429 and retries 429/5xx on its own unless you set `max_retries=0` or send
      `headers={"x-should-retry": "false"}` (`{"retry-after-ms": "1"}` makes retries fast).
    - `prompt_tokens` / `completion_tokens` override the deterministic counts in `usage`
      (by default: words and punctuation marks of the request messages and of the reply).
    - `headers`: extra response headers.
    """

    content: str | None = None
    tool_calls: Sequence[ToolCall] = ()
    finish_reason: str | None = None
    status: int = 200
    error: str | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    headers: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "tool_calls", tuple(self.tool_calls))
        for call in self.tool_calls:
            if not isinstance(call, ToolCall):
                raise ScriptError(
                    f"Reply.tool_calls must hold ToolCall objects, got {type(call).__name__}; "
                    "write tool_calls=[ToolCall('search', {'query': 'x'})]"
                )
        if not 200 <= self.status <= 599:
            raise ScriptError(f"Reply.status must be an HTTP status 200-599, got {self.status!r}")
        if self.status >= 400 and not self.error:
            raise ScriptError(f"Reply(status={self.status}) needs error='...': the message the client will see")
        if self.status < 400 and self.error:
            raise ScriptError(f"Reply(error={self.error!r}) needs status >= 400 (e.g. 429 or 500), got {self.status}")
        if self.finish_reason is not None and self.finish_reason not in FINISH_REASONS:
            raise ScriptError(
                f"Reply.finish_reason must be one of {', '.join(FINISH_REASONS)}, got {self.finish_reason!r}"
            )
        for name in ("prompt_tokens", "completion_tokens"):
            value = getattr(self, name)
            if value is not None and (not isinstance(value, int) or value < 0):
                raise ScriptError(f"Reply.{name} must be a non-negative int, got {value!r}")

    @property
    def is_error(self) -> bool:
        return self.status >= 400

    def resolved_finish_reason(self) -> str:
        if self.finish_reason is not None:
            return self.finish_reason
        return "tool_calls" if self.tool_calls else "stop"


@dataclass(frozen=True)
class RecordedRequest:
    """A request the server received: `headers` have lower-case names and never `authorization`."""

    index: int
    method: str
    path: str
    headers: Mapping[str, str]
    json: Any


@dataclass(frozen=True)
class ChatRequest:
    """The parsed chat-completions request a `rule` receives to decide its `Reply`."""

    index: int
    model: str
    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]]
    stream: bool
    body: dict[str, Any]

    @property
    def tool_names(self) -> list[str]:
        return [t.get("function", {}).get("name", "") for t in self.tools if isinstance(t, dict)]

    @property
    def last_user_text(self) -> str:
        """Text of the last user message ("" if none), the usual key of a rule."""
        for message in reversed(self.messages):
            if message.get("role") == "user":
                return message_text(message)
        return ""

    @property
    def last_message(self) -> dict[str, Any]:
        return self.messages[-1] if self.messages else {}


def message_text(message: Mapping[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # content parts: [{"type": "text", "text": ...}, ...]
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return ""


def count_tokens(text: str) -> int:
    """Deterministic stand-in for a tokenizer: words and punctuation marks."""
    return len(_TOKEN.findall(text))


def _request_text(body: Mapping[str, Any]) -> str:
    parts: list[str] = []
    for message in body.get("messages") or []:
        if isinstance(message, dict):
            parts.append(message_text(message))
            for call in message.get("tool_calls") or []:
                function = call.get("function", {}) if isinstance(call, dict) else {}
                parts.append(f"{function.get('name', '')} {function.get('arguments', '')}")
    return "\n".join(parts)


def _digest(*parts: str) -> str:
    return hashlib.sha256("\x1f".join(parts).encode("utf-8")).hexdigest()[:24]


def request_key(body: Mapping[str, Any]) -> str:
    """Stable digest of a request body: ids derive from it, never from arrival order."""
    return _digest(json.dumps(body, sort_keys=True, ensure_ascii=False, default=str))


def _tool_call_ids(reply: Reply, key: str) -> list[str]:
    return [call.id or f"call_{_digest(key, str(i), call.name)}" for i, call in enumerate(reply.tool_calls)]


def usage_for(reply: Reply, body: Mapping[str, Any]) -> dict[str, int]:
    prompt = reply.prompt_tokens if reply.prompt_tokens is not None else count_tokens(_request_text(body))
    if reply.completion_tokens is not None:
        completion = reply.completion_tokens
    else:
        text = (reply.content or "") + "".join(f" {c.name} {c.arguments_json()}" for c in reply.tool_calls)
        completion = count_tokens(text)
    return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}


def completion_body(reply: Reply, body: Mapping[str, Any], model: str) -> dict[str, Any]:
    """The non-streaming `chat.completion` object for `reply`."""
    key = request_key(body)
    message: dict[str, Any] = {"role": "assistant", "content": reply.content, "refusal": None}
    if reply.tool_calls:
        message["tool_calls"] = [
            {"id": call_id, "type": "function", "function": {"name": call.name, "arguments": call.arguments_json()}}
            for call_id, call in zip(_tool_call_ids(reply, key), reply.tool_calls, strict=True)
        ]
    return {
        "id": f"chatcmpl-{key}",
        "object": "chat.completion",
        "created": CREATED,
        "model": model,
        "system_fingerprint": SYSTEM_FINGERPRINT,
        "choices": [{"index": 0, "message": message, "logprobs": None, "finish_reason": reply.resolved_finish_reason()}],
        "usage": usage_for(reply, body),
    }


def stream_chunks(reply: Reply, body: Mapping[str, Any], model: str) -> list[dict[str, Any]]:
    """The `chat.completion.chunk` objects for `reply`, split the way the real API streams.

    Content arrives a word at a time; each tool call opens with its id and name and then streams
    its arguments in pieces, all keyed by the tool call's `index`. With
    `stream_options.include_usage` every chunk carries `"usage": null` and a last chunk with empty
    `choices` carries the usage.
    """
    key = request_key(body)
    include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
    base = {"id": f"chatcmpl-{key}", "object": "chat.completion.chunk", "created": CREATED, "model": model,
            "system_fingerprint": SYSTEM_FINGERPRINT}

    def chunk(delta: dict[str, Any], finish_reason: str | None = None) -> dict[str, Any]:
        out = {**base, "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish_reason}]}
        if include_usage:
            out["usage"] = None
        return out

    chunks = [chunk({"role": "assistant", "content": "", "refusal": None})]
    for piece in re.findall(r"\s*\S+\s*|\s+", reply.content or ""):
        chunks.append(chunk({"content": piece}))
    for position, (call_id, call) in enumerate(zip(_tool_call_ids(reply, key), reply.tool_calls, strict=True)):
        chunks.append(chunk({"tool_calls": [{"index": position, "id": call_id, "type": "function",
                                             "function": {"name": call.name, "arguments": ""}}]}))
        arguments = call.arguments_json()
        for start in range(0, len(arguments), _ARGUMENT_CHUNK):
            piece = arguments[start:start + _ARGUMENT_CHUNK]
            chunks.append(chunk({"tool_calls": [{"index": position, "function": {"arguments": piece}}]}))
    chunks.append(chunk({}, reply.resolved_finish_reason()))
    if include_usage:
        chunks.append({**base, "choices": [], "usage": usage_for(reply, body)})
    return chunks


def error_body(status: int, message: str, code: str | None = None) -> dict[str, Any]:
    """OpenAI's error shape, so the OpenAI client raises the matching `APIStatusError` subclass."""
    error_type = _ERROR_TYPES.get(status, "server_error" if status >= 500 else "invalid_request_error")
    return {"error": {"message": message, "type": error_type, "param": None, "code": code}}
