"""The scripted OpenAI-compatible server, driven by the real LangChain `ChatOpenAI` and raw HTTP."""

from __future__ import annotations

import asyncio
import http.client
import json
import threading

import openai
import pytest
from langchain_core.messages import AIMessageChunk, HumanMessage, ToolMessage
from langchain_core.tools import tool
from langchain_openai import ChatOpenAI

from pytest_auditfence.testing import ChatRequest, Reply, ScriptedOpenAIServer, ScriptError, ToolCall, count_tokens

API_KEY = "sk-test-0123456789abcdef"


def chat(server: ScriptedOpenAIServer, **kwargs: object) -> ChatOpenAI:
    return ChatOpenAI(model="gpt-4o-mini", base_url=server.base_url, api_key=API_KEY, max_retries=0, **kwargs)


@tool
def search(query: str) -> str:
    """Search the sources."""
    return query


def raw(server: ScriptedOpenAIServer, method: str, path: str, body: object = None,
        headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
    try:
        data = None if body is None else json.dumps(body).encode()
        conn.request(method, path, body=data, headers={"Authorization": "Bearer sk-x", **(headers or {})})
        response = conn.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    finally:
        conn.close()


def test_plain_reply_with_usage_and_recorded_request() -> None:
    with ScriptedOpenAIServer(script=[Reply(content="Revenue was $383.3 billion.")]) as server:
        message = chat(server).invoke([HumanMessage("What was revenue, exactly?")])
        recorded = server.requests
    assert message.content == "Revenue was $383.3 billion."
    assert message.response_metadata["finish_reason"] == "stop"
    prompt = count_tokens("What was revenue, exactly?")
    completion = count_tokens("Revenue was $383.3 billion.")
    assert message.usage_metadata["input_tokens"] == prompt == 6  # What was revenue , exactly ?
    assert message.usage_metadata["output_tokens"] == completion
    assert message.usage_metadata["total_tokens"] == prompt + completion
    assert len(recorded) == 1
    assert (recorded[0].method, recorded[0].path) == ("POST", "/v1/chat/completions")
    assert recorded[0].json["messages"] == [{"role": "user", "content": "What was revenue, exactly?"}]
    assert "authorization" not in recorded[0].headers
    assert API_KEY not in json.dumps(dict(recorded[0].headers))


def test_ids_and_created_are_derived_from_the_request() -> None:
    replies = [Reply(content="same")] * 4
    with ScriptedOpenAIServer(script=replies) as server:
        llm = chat(server)
        first, second, other = (llm.invoke(p).response_metadata["id"] for p in ("a", "a", "b"))
        body = {"model": "m", "messages": [{"role": "user", "content": "a"}]}
        _, _, data = raw(server, "POST", "/v1/chat/completions", body)
    assert first == second != other
    assert first.startswith("chatcmpl-")
    assert json.loads(data)["created"] == 1_700_000_000


def test_tool_calls_with_bind_tools_and_the_next_turn() -> None:
    script = [Reply(tool_calls=[ToolCall("search", {"query": "AAPL revenue 2023"}),
                                ToolCall("search", {"query": "AAPL margin"}, id="call_fixed")]),
              Reply(content="Done.")]
    with ScriptedOpenAIServer(script=script) as server:
        llm = chat(server).bind_tools([search])
        first = llm.invoke([HumanMessage("Analyze AAPL")])
        history = [HumanMessage("Analyze AAPL"), first,
                   *(ToolMessage(content="found", tool_call_id=c["id"]) for c in first.tool_calls)]
        second = llm.invoke(history)
        sent = server.requests
    assert [(c["name"], c["args"]) for c in first.tool_calls] == [
        ("search", {"query": "AAPL revenue 2023"}), ("search", {"query": "AAPL margin"})]
    assert first.tool_calls[0]["id"].startswith("call_") and first.tool_calls[1]["id"] == "call_fixed"
    assert first.response_metadata["finish_reason"] == "tool_calls"
    assert second.content == "Done."
    assert sent[0].json["tools"][0]["function"]["name"] == "search"
    assert [m["role"] for m in sent[1].json["messages"]] == ["user", "assistant", "tool", "tool"]
    assert sent[1].json["messages"][3]["tool_call_id"] == "call_fixed"


def test_streaming_content_in_pieces_with_usage() -> None:
    text = "Services revenue grew 9% to $85.2 billion in fiscal 2023."
    with ScriptedOpenAIServer(script=[Reply(content=text)]) as server:
        chunks = list(chat(server, stream_usage=True).stream("How did services do?"))
        body = server.requests[0].json
    assert body["stream"] is True and body["stream_options"] == {"include_usage": True}
    assert len([c for c in chunks if c.content]) > 5  # word by word, not one blob
    full = chunks[0]
    for c in chunks[1:]:
        full = full + c
    assert full.content == text
    assert full.response_metadata["finish_reason"] == "stop"
    assert full.usage_metadata["output_tokens"] == count_tokens(text)
    assert full.usage_metadata["input_tokens"] == count_tokens("How did services do?")


def test_streaming_tool_call_deltas_assemble() -> None:
    arguments = {"query": "gross margin by segment 2023", "top_k": 3}
    with ScriptedOpenAIServer(script=[Reply(tool_calls=[ToolCall("search", arguments)])]) as server:
        chunks = list(chat(server).bind_tools([search]).stream("margins?"))
    pieces = [tc for c in chunks for tc in c.tool_call_chunks]
    assert len(pieces) > 3  # id+name first, then argument fragments, as the real API streams
    full = chunks[0]
    for c in chunks[1:]:
        full = full + c
    assert isinstance(full, AIMessageChunk)
    assert full.tool_calls == [{"name": "search", "args": arguments, "id": full.tool_calls[0]["id"],
                                "type": "tool_call"}]
    assert full.response_metadata["finish_reason"] == "tool_calls"


def test_raw_stream_ends_with_usage_chunk_and_done() -> None:
    body = {"model": "m", "stream": True, "stream_options": {"include_usage": True},
            "messages": [{"role": "user", "content": "hi"}]}
    with ScriptedOpenAIServer(script=[Reply(content="hello you", finish_reason="length")]) as server:
        status, headers, data = raw(server, "POST", "/chat/completions", body)
    events = [line[len("data: "):] for line in data.decode().split("\n\n") if line]
    assert status == 200 and headers["content-type"].startswith("text/event-stream")
    assert events[-1] == "[DONE]"
    chunks = [json.loads(e) for e in events[:-1]]
    assert chunks[-1]["choices"] == [] and chunks[-1]["usage"]["total_tokens"] == 3
    assert all(c["usage"] is None for c in chunks[:-1])
    assert chunks[-2]["choices"][0]["finish_reason"] == "length"
    assert chunks[0]["choices"][0]["delta"]["role"] == "assistant"


def test_async_invoke_and_astream() -> None:
    async def run(server: ScriptedOpenAIServer) -> tuple[str, str]:
        llm = chat(server)
        first = await llm.ainvoke("one")
        streamed = "".join([c.content async for c in llm.astream("two")])
        return first.content, streamed

    async def main() -> tuple[str, str]:
        async with ScriptedOpenAIServer(script=[Reply(content="first answer"), Reply(content="second answer")]) as s:
            return await run(s)

    assert asyncio.run(main()) == ("first answer", "second answer")


def test_rule_mode_is_deterministic_under_concurrency() -> None:
    def rule(request: ChatRequest) -> Reply:
        return Reply(content=f"echo:{request.last_user_text}:{request.model}")

    prompts = [f"prompt number {i}" for i in range(8)]

    async def main(server: ScriptedOpenAIServer) -> list[str]:
        llm = chat(server)
        results = await asyncio.gather(*(llm.ainvoke(p) for p in prompts))
        return [r.content for r in results]

    with ScriptedOpenAIServer(rule=rule) as server:
        answers = asyncio.run(main(server))
        received = sorted(r.json["messages"][0]["content"] for r in server.requests)
    assert answers == [f"echo:{p}:gpt-4o-mini" for p in prompts]
    assert received == sorted(prompts)


def test_scripted_rate_limit_then_retry_succeeds() -> None:
    script = [Reply(status=429, error="Rate limit reached for gpt-4o-mini", headers={"retry-after-ms": "1"}),
              Reply(content="after retry")]
    with ScriptedOpenAIServer(script=script) as server:
        llm = ChatOpenAI(model="gpt-4o-mini", base_url=server.base_url, api_key=API_KEY, max_retries=1)
        assert llm.invoke("x").content == "after retry"
        assert len(server.requests) == 2


@pytest.mark.parametrize(("status", "error_class"), [(429, openai.RateLimitError),
                                                     (500, openai.InternalServerError),
                                                     (400, openai.BadRequestError)])
def test_scripted_errors_reach_the_client(status: int, error_class: type[Exception]) -> None:
    with ScriptedOpenAIServer(script=[Reply(status=status, error=f"scripted failure {status}")]) as server:
        with pytest.raises(error_class, match=f"scripted failure {status}"):
            chat(server).invoke("x")


def test_script_exhausted_names_the_request_index() -> None:
    with ScriptedOpenAIServer(script=[Reply(content="only one")]) as server:
        llm = ChatOpenAI(model="gpt-4o-mini", base_url=server.base_url, api_key=API_KEY)  # default retries
        llm.invoke("first")
        with pytest.raises(openai.InternalServerError, match=r"script exhausted at request #1"):
            llm.invoke("second")
        assert len(server.requests) == 2  # x-should-retry: false stopped the client from retrying


def test_rule_errors_are_reported_not_swallowed() -> None:
    def rule(request: ChatRequest) -> Reply:
        raise KeyError("no reply for this prompt")

    with ScriptedOpenAIServer(rule=rule) as server:
        with pytest.raises(openai.InternalServerError, match=r"rule raised KeyError.*request #0"):
            chat(server).invoke("x")
    with ScriptedOpenAIServer(rule=lambda request: "not a reply") as server:  # type: ignore[arg-type, return-value]
        with pytest.raises(openai.InternalServerError, match="must return a Reply"):
            chat(server).invoke("x")


def test_missing_authorization_is_401_and_still_recorded() -> None:
    with ScriptedOpenAIServer(script=[Reply(content="x")]) as server:
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
        conn.request("POST", "/v1/chat/completions", body=b'{"messages": []}')
        response = conn.getresponse()
        payload = json.loads(response.read())
        conn.close()
        assert response.status == 401
        assert payload["error"]["code"] == "missing_api_key"
        assert server.requests[0].json == {"messages": []}
        assert server.remaining == 1  # the unauthorised call did not use up the script


def test_models_unknown_paths_and_bad_bodies() -> None:
    with ScriptedOpenAIServer(script=[], models=("gpt-4o-mini",)) as server:
        status, _, data = raw(server, "GET", "/v1/models")
        assert status == 200 and [m["id"] for m in json.loads(data)["data"]] == ["gpt-4o-mini"]
        status, _, data = raw(server, "POST", "/v1/responses", {"input": "x"})
        assert status == 404 and "/v1/responses" in json.loads(data)["error"]["message"]
        status, _, data = raw(server, "GET", "/v1/chat/completions")
        assert status == 405
        status, _, data = raw(server, "POST", "/v1/chat/completions", {"model": "m"})
        assert status == 400 and "'messages'" in json.loads(data)["error"]["message"]
        assert [r.path for r in server.requests] == ["/v1/models", "/v1/responses", "/v1/chat/completions",
                                                     "/v1/chat/completions"]


def test_extend_adds_replies_to_a_running_server() -> None:
    with ScriptedOpenAIServer(script=[]) as server:
        server.extend([Reply(content="late reply")])
        assert chat(server).invoke("x").content == "late reply"
        assert server.remaining == 0


def test_stop_closes_the_port_and_leaves_no_threads() -> None:
    before = set(threading.enumerate())
    server = ScriptedOpenAIServer(script=[Reply(content="a"), Reply(content="b")]).start()
    llm = chat(server)
    llm.invoke("keep-alive connection stays open in the client pool")
    port = server.port
    server.stop()
    assert set(threading.enumerate()) <= before
    assert not server.running
    with pytest.raises(openai.APIConnectionError):
        llm.invoke("the port is closed now")
    with pytest.raises(ConnectionRefusedError):
        http.client.HTTPConnection("127.0.0.1", port, timeout=2).connect()


@pytest.mark.parametrize(("build", "message"), [
    (lambda: ScriptedOpenAIServer(), "exactly one of script"),
    (lambda: ScriptedOpenAIServer(script=[], rule=lambda r: Reply()), "exactly one of script"),
    (lambda: ScriptedOpenAIServer(script=["hello"]), r"script\[0\] is a str"),
    (lambda: Reply(status=429), "needs error="),
    (lambda: Reply(content="x", error="boom"), "needs status >= 400"),
    (lambda: Reply(finish_reason="done"), "finish_reason must be one of"),
    (lambda: Reply(tool_calls=[{"name": "search"}]), "must hold ToolCall"),
    (lambda: ToolCall(""), "non-empty string"),
    (lambda: ToolCall("search", arguments=["x"]), "dict or a JSON string"),
])
def test_bad_scripts_are_rejected_with_the_fix(build, message: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ScriptError, match=message):
        build()


def test_rule_sees_tools_and_raw_string_arguments_pass_through() -> None:
    seen: list[list[str]] = []

    def rule(request: ChatRequest) -> Reply:
        seen.append(request.tool_names)
        return Reply(tool_calls=[ToolCall("search", '{"query": "unterminated')])

    with ScriptedOpenAIServer(rule=rule) as server:
        message = chat(server).bind_tools([search]).invoke("x")
    assert seen == [["search"]]
    assert message.invalid_tool_calls[0]["args"] == '{"query": "unterminated'
