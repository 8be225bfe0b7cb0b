"""Tests of the agent loop with a scripted chat model: tools run, their results reach the model, it answers.

The fake model follows a script (call tool A, call tool B, answer) and keeps what it was sent.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import agent_loop_app
import pytest
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import Field

FINAL_ANSWER = (
    "Halvorsen Robotics Inc. reported FY2024 revenue of $1,234 million and net income of $151 million "
    "(source: get_company_fundamentals). Latest headline: \"Halvorsen wins 310-robot order from Nordic "
    'grocer" (source: get_news_headlines).'
)


class ScriptedToolModel(GenericFakeChatModel):
    """GenericFakeChatModel plus bind_tools (which fake models lack), recording every request."""

    requests: list[dict[str, Any]] = Field(default_factory=list)

    def bind_tools(self, tools, *, tool_choice=None, **kwargs):
        return self.bind(tools=[convert_to_openai_tool(t) for t in tools], **kwargs)

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):
        self.requests.append({"messages": list(messages), "tools": kwargs.get("tools")})
        return super()._generate(messages, stop=stop, run_manager=run_manager, **kwargs)


def _call(name: str, call_id: str, **args: Any) -> dict[str, Any]:
    return {"name": name, "args": args, "id": call_id, "type": "tool_call"}


def _script(*steps: AIMessage) -> ScriptedToolModel:
    return ScriptedToolModel(messages=iter(steps))


def _two_tools_then_answer() -> ScriptedToolModel:
    return _script(
        AIMessage(content="", tool_calls=[_call("get_company_fundamentals", "call_fund", ticker="HALV")]),
        AIMessage(content="", tool_calls=[_call("get_news_headlines", "call_news", ticker="HALV", limit=1)]),
        AIMessage(content=FINAL_ANSWER),
    )


REQUEST = {"messages": [("user", "Brief me on HALV")]}


def test_loop_runs_tool_a_then_tool_b_then_answers(tool_recorder) -> None:
    llm = _two_tools_then_answer()
    result = agent_loop_app.build_app(llm).invoke(REQUEST, config={"callbacks": [tool_recorder]})
    messages = result["messages"]
    assert [m.type for m in messages] == ["human", "ai", "tool", "ai", "tool", "ai"]
    assert [(c.node, c.tool) for c in tool_recorder.calls] == [
        ("tools", "get_company_fundamentals"),
        ("tools", "get_news_headlines"),
    ]
    fundamentals, news = messages[2], messages[4]
    assert (fundamentals.tool_call_id, news.tool_call_id) == ("call_fund", "call_news")
    assert json.loads(fundamentals.content)["revenue_usd_millions"] == 1234
    assert [h["title"] for h in json.loads(news.content)["headlines"]] == [
        "Halvorsen wins 310-robot order from Nordic grocer"
    ]
    assert messages[-1].content == FINAL_ANSWER
    for figure in ("1234", "151", "Halvorsen wins 310-robot order from Nordic grocer"):
        assert figure in fundamentals.content + news.content


def test_the_model_is_sent_the_prompt_the_tools_and_every_tool_result() -> None:
    llm = _two_tools_then_answer()
    agent_loop_app.build_app(llm).invoke(REQUEST)
    assert len(llm.requests) == 3  # one model call per loop round
    last = llm.requests[-1]
    assert last["messages"][0].content == agent_loop_app.SYSTEM_PROMPT
    assert [m.tool_call_id for m in last["messages"] if isinstance(m, ToolMessage)] == ["call_fund", "call_news"]
    bound = {spec["function"]["name"] for spec in last["tools"]}
    assert bound == {"get_company_fundamentals", "get_news_headlines", "get_analyst_consensus"}


def test_parallel_tool_calls_in_one_step_each_get_an_answer() -> None:
    llm = _script(
        AIMessage(
            content="",
            tool_calls=[
                _call("get_analyst_consensus", "call_a", ticker="HALV"),
                _call("get_company_fundamentals", "call_b", ticker="HALV"),
            ],
        ),
        AIMessage(content="Consensus FY2025 EPS is $2.85 (source: get_analyst_consensus)."),
    )
    messages = agent_loop_app.build_app(llm).invoke(REQUEST)["messages"]
    answers = {m.tool_call_id: json.loads(m.content) for m in messages if isinstance(m, ToolMessage)}
    assert answers["call_a"]["eps_usd"] == 2.85
    assert answers["call_b"]["gross_margin_pct"] == 41.3


def test_a_bad_tool_argument_goes_back_to_the_model_which_corrects_itself() -> None:
    llm = _script(
        AIMessage(content="", tool_calls=[_call("get_company_fundamentals", "call_1", ticker="AAPL")]),
        AIMessage(content="", tool_calls=[_call("get_company_fundamentals", "call_2", ticker="HALV")]),
        AIMessage(content="Revenue was $1,234 million (source: get_company_fundamentals)."),
    )
    messages = agent_loop_app.build_app(llm).invoke(REQUEST)["messages"]
    error, answer = [m for m in messages if isinstance(m, ToolMessage)]
    assert error.status == "error"
    assert "no sample data for ticker 'AAPL'; known tickers: HALV" in error.content
    assert llm.requests[1]["messages"][-1] == error  # the model's next request ends with the error
    assert json.loads(answer.content)["revenue_usd_millions"] == 1234


def test_async_run_gives_the_same_messages() -> None:
    sync = agent_loop_app.build_app(_two_tools_then_answer()).invoke(REQUEST)["messages"]
    result = asyncio.run(agent_loop_app.build_app(_two_tools_then_answer()).ainvoke(REQUEST))
    assert [(m.type, m.content) for m in result["messages"]] == [(m.type, m.content) for m in sync]


def test_a_model_that_cannot_bind_tools_is_refused_with_the_fix() -> None:
    with pytest.raises(TypeError, match=r"GenericFakeChatModel cannot bind tools.*such as ChatOpenAI"):
        agent_loop_app.build_app(GenericFakeChatModel(messages=iter([])))


def test_loop_runs_with_chat_openai_over_http_against_the_scripted_local_server(tool_recorder) -> None:
    from langchain_openai import ChatOpenAI
    from pytest_auditfence.testing import Reply, ScriptedOpenAIServer, ToolCall

    script = [
        Reply(tool_calls=[ToolCall("get_company_fundamentals", {"ticker": "HALV"}, id="call_fund")]),
        Reply(tool_calls=[ToolCall("get_news_headlines", {"ticker": "HALV", "limit": 1}, id="call_news")]),
        Reply(content=FINAL_ANSWER),
    ]
    with ScriptedOpenAIServer(script=script) as server:
        llm = ChatOpenAI(model="gpt-4o-mini", base_url=server.base_url, api_key="sk-test", max_retries=0)
        result = agent_loop_app.build_app(llm).invoke(REQUEST, config={"callbacks": [tool_recorder]})
        sent = [r.json for r in server.chat_requests]
    assert result["messages"][-1].content == FINAL_ANSWER
    assert [c.tool for c in tool_recorder.calls] == ["get_company_fundamentals", "get_news_headlines"]
    assert len(sent) == 3
    assert sent[0]["messages"][0] == {"role": "system", "content": agent_loop_app.SYSTEM_PROMPT}
    assert {t["function"]["name"] for t in sent[0]["tools"]} == {
        "get_company_fundamentals",
        "get_news_headlines",
        "get_analyst_consensus",
    }
    tool_replies = [m for m in sent[2]["messages"] if m["role"] == "tool"]
    assert [m["tool_call_id"] for m in tool_replies] == ["call_fund", "call_news"]
    assert json.loads(tool_replies[0]["content"])["revenue_usd_millions"] == 1234
