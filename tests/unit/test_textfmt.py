"""textfmt: deterministic JSON-able conversion, grep-friendly rendering, truncation."""

from __future__ import annotations

import dataclasses
import datetime as dt
import decimal
import enum
import hashlib
import json
import operator
import re
import subprocess
import sys
import uuid
from pathlib import PurePosixPath
from typing import Annotated, Any, NamedTuple, TypedDict

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from langchain_core.documents import Document
from langchain_core.messages import AIMessage, AIMessageChunk, AnyMessage, HumanMessage, ToolMessage
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import add_messages
from langgraph.types import Command, Interrupt, Send
from pydantic import BaseModel

from pytest_auditfence.errors import AuditFenceError
from pytest_auditfence.textfmt import (
    CYCLE_MARKER,
    DEPTH_MARKER,
    MAX_DEPTH,
    dump_event,
    dump_indented,
    dump_json,
    is_message,
    render_text,
    stable_json,
    to_jsonable,
    truncate,
)

ADDRESS = re.compile(r"0x[0-9a-fA-F]{6,}")


def normalised(text: str) -> str:
    return " ".join(text.split())


def max_line(text: str) -> int:
    return max(len(line) for line in text.split("\n"))


# ---------------------------------------------------------------------------------------------
# to_jsonable


class Colour(enum.Enum):
    RED = "red"
    BLUE = 2


@dataclasses.dataclass
class Quote:
    ticker: str
    price: decimal.Decimal
    tags: tuple[str, ...] = ()


class Point(NamedTuple):
    x: int
    y: int


class Filing(BaseModel):
    company: str
    revenue_usd_bn: float
    filed: dt.date
    quotes: list[Quote] = []


class ReportState(TypedDict):
    ticker: str
    messages: list[Any]


class Opaque:
    pass


def test_plain_values_become_sorted_json_data() -> None:
    value = {
        "b": (1, 2.5, None),
        "a": {3, 1, 2},
        2: "int key",
        ("x", 1): "tuple key",
        "nested": {"z": True, "y": [frozenset({"q", "p"})]},
    }
    result = to_jsonable(value)
    assert list(result) == sorted(result)
    assert result == {
        "2": "int key",
        '["x",1]': "tuple key",
        "a": [1, 2, 3],
        "b": [1, 2.5, None],
        "nested": {"y": [["p", "q"]], "z": True},
    }
    assert list(result["nested"]) == ["y", "z"]


def test_special_scalars_are_strings() -> None:
    data = b"\x00\x01quarterly filing bytes"
    ident = uuid.UUID("12345678-1234-5678-1234-567812345678")
    result = to_jsonable(
        {
            "bytes": data,
            "when": dt.datetime(2024, 3, 1, 12, 30, tzinfo=dt.timezone.utc),
            "day": dt.date(2024, 3, 1),
            "amount": decimal.Decimal("383.30"),
            "uuid": ident,
            "path": PurePosixPath("data/10-K.txt"),
            "red": Colour.RED,
            "blue": Colour.BLUE,
            "error": ValueError("ticker not found: XYZ"),
            "bare_error": KeyError(),
            "nan": float("nan"),
            "inf": float("-inf"),
        }
    )
    digest = hashlib.sha256(data).hexdigest()
    assert result["bytes"] == f"<binary: {len(data)} bytes sha256={digest[:16]}>"  # NULs: not text
    assert result["when"] == "2024-03-01T12:30:00+00:00"
    assert result["day"] == "2024-03-01"
    assert result["amount"] == "383.30"
    assert result["uuid"] == str(ident)
    assert result["path"] == "data/10-K.txt"
    assert result["red"] == "red"
    assert result["blue"] == "Colour.BLUE"
    assert result["error"] == "ValueError: ticker not found: XYZ"
    assert result["bare_error"] == "KeyError"
    assert (result["nan"], result["inf"]) == ("NaN", "-Infinity")
    json.dumps(result, allow_nan=False)  # strict JSON, no NaN literals


def test_objects_become_reprs_without_addresses() -> None:
    def helper() -> None:
        pass

    result = to_jsonable({"obj": Opaque(), "func": helper, "lam": lambda: 1})
    assert result["obj"].startswith("<") and "Opaque object" in result["obj"]
    assert "helper" in result["func"]
    for text in result.values():
        assert not ADDRESS.search(text), text
        assert " at " not in text


def test_broken_repr_and_raising_mapping_do_not_raise() -> None:
    class BadRepr:
        def __repr__(self) -> str:
            raise RuntimeError("boom")

    class BadMapping(dict):  # type: ignore[type-arg]
        def items(self):  # type: ignore[no-untyped-def]
            raise RuntimeError("cannot iterate")

    result = to_jsonable({"a": BadRepr(), "b": BadMapping(x=1)})
    assert result["a"] == "<BadRepr (repr failed)>"
    assert result["b"] == "{'x': 1}"  # degraded to its repr instead of raising


def test_cycles_and_depth_are_markers() -> None:
    loop: dict[str, Any] = {"name": "loop"}
    loop["self"] = loop
    items: list[Any] = [1]
    items.append(items)
    shared = {"v": 1}
    assert to_jsonable(loop) == {"name": "loop", "self": CYCLE_MARKER}
    assert to_jsonable(items) == [1, CYCLE_MARKER]
    # the same object twice side by side is not a cycle
    assert to_jsonable([shared, shared]) == [{"v": 1}, {"v": 1}]

    deep: Any = "bottom"
    for _ in range(MAX_DEPTH + 50):
        deep = [deep]
    flat = json.dumps(to_jsonable(deep))
    assert DEPTH_MARKER in flat and "bottom" not in flat


def test_dataclass_namedtuple_pydantic_typeddict() -> None:
    filing = Filing(
        company="Apple",
        revenue_usd_bn=383.3,
        filed=dt.date(2023, 11, 3),
        quotes=[Quote("AAPL", decimal.Decimal("189.50"), ("nasdaq",))],
    )
    state: ReportState = {"ticker": "AAPL", "messages": [Point(1, 2)]}
    assert to_jsonable(filing) == {
        "company": "Apple",
        "filed": "2023-11-03",
        "quotes": [{"price": "189.50", "tags": ["nasdaq"], "ticker": "AAPL"}],
        "revenue_usd_bn": 383.3,
    }
    assert to_jsonable(state) == {"messages": [{"x": 1, "y": 2}], "ticker": "AAPL"}


def test_messages_keep_content_and_drop_volatile_metadata() -> None:
    ai = AIMessage(
        content="Revenue was $383.3 billion.",
        name="analyst",
        id="run-7f3c0c9e-volatile",
        tool_calls=[{"name": "get_filing", "args": {"ticker": "AAPL", "year": 2023}, "id": "call_1"}],
        usage_metadata={"input_tokens": 12, "output_tokens": 7, "total_tokens": 19},
        response_metadata={
            "model_name": "gpt-4o-mini",
            "token_usage": {"total_tokens": 19},
            "id": "chatcmpl-123",
            "created": 1717171717,
            "created_at": "2024-06-01T00:00:00Z",
            "system_fingerprint": "fp_abc",
            "request_id": "req_1",
            "total_duration": 12345,
            "finish_reason": "tool_calls",
        },
        additional_kwargs={"refusal": None, "id": "x"},
    )
    tool = ToolMessage(content='{"revenue": 383.3}', tool_call_id="call_1", name="get_filing", id="tool-msg-id")
    human = HumanMessage("Analyze AAPL", id="3f0b5b8e-uuid")
    result = to_jsonable([human, ai, tool])
    assert result == [
        {"content": "Analyze AAPL", "type": "human"},
        {
            "content": "Revenue was $383.3 billion.",
            "name": "analyst",
            "response_metadata": {
                "finish_reason": "tool_calls",
                "model_name": "gpt-4o-mini",
                "token_usage": {"total_tokens": 19},
            },
            "tool_calls": [{"args": {"ticker": "AAPL", "year": 2023}, "id": "call_1", "name": "get_filing"}],
            "type": "ai",
            "usage_metadata": {"input_tokens": 12, "output_tokens": 7, "total_tokens": 19},
        },
        {
            "content": '{"revenue": 383.3}',
            "name": "get_filing",
            "status": "success",
            "tool_call_id": "call_1",
            "type": "tool",
        },
    ]
    assert all(is_message(m) for m in result)
    assert not is_message({"type": "ai", "content": "x", "ticker": "AAPL"})


def test_message_chunks_fold_into_their_type() -> None:
    chunk = AIMessageChunk(content="part one") + AIMessageChunk(content=" and two")
    assert to_jsonable(chunk) == {"content": "part one and two", "type": "ai"}


def test_real_chat_openai_message_loses_run_id_and_response_id() -> None:
    from langchain_openai import ChatOpenAI

    from pytest_auditfence.testing import Reply, ScriptedOpenAIServer, ToolCall

    reply = Reply(content="Checking the filing.", tool_calls=[ToolCall(name="get_filing", arguments={"ticker": "AAPL"})])
    with ScriptedOpenAIServer(script=[reply]) as server:
        llm = ChatOpenAI(model="gpt-4o-mini", base_url=server.base_url, api_key="sk-test-0123456789abcdef", max_retries=0)
        message = llm.invoke("Analyze AAPL")
    result = to_jsonable(message)
    flat = stable_json(message)
    assert message.id and message.id not in flat
    assert message.response_metadata["id"] not in flat
    assert "system_fingerprint" not in flat
    assert result["response_metadata"]["model_name"] == "gpt-4o-mini"
    assert "token_usage" in result["response_metadata"]
    assert result["tool_calls"][0]["name"] == "get_filing"
    assert result["tool_calls"][0]["args"] == {"ticker": "AAPL"}


def test_document_send_command_interrupt() -> None:
    doc = Document(page_content="Net sales were $383.3 billion.", metadata={"source": "10-K"}, id="d-1")
    assert to_jsonable(doc) == {"metadata": {"source": "10-K"}, "page_content": "Net sales were $383.3 billion."}
    assert to_jsonable(Send("analyst", {"ticker": "AAPL"})) == {
        "arg": {"ticker": "AAPL"},
        "node": "analyst",
        "type": "send",
    }
    command = Command(goto=[Send("a", 1), "b"], update={"done": True}, graph=Command.PARENT)
    assert to_jsonable(command) == {
        "goto": [{"arg": 1, "node": "a", "type": "send"}, "b"],
        "graph": "__parent__",
        "type": "command",
        "update": {"done": True},
    }
    assert to_jsonable(Command(resume="yes")) == {"resume": "yes", "type": "command"}
    assert to_jsonable(Interrupt(value="approve?", id="ns-hash")) == {"type": "interrupt", "value": "approve?"}


class ChatState(TypedDict):
    messages: Annotated[list[AnyMessage], add_messages]
    sources: Annotated[list[Document], operator.add]


def _run_graph() -> dict[str, Any]:
    def research(state: ChatState) -> dict[str, Any]:
        return {
            "messages": [AIMessage("Apple's net sales were $383.3 billion in fiscal 2023.")],
            "sources": [Document(page_content="Total net sales $ 383,285 million", metadata={"page": 21})],
        }

    builder = StateGraph(ChatState)
    builder.add_node("research", research)
    builder.add_edge(START, "research")
    builder.add_edge("research", END)
    graph = builder.compile()
    return graph.invoke({"messages": [("user", "Analyze AAPL")], "sources": []})


def test_real_graph_state_serialises_byte_identically_across_runs() -> None:
    first, second = _run_graph(), _run_graph()
    # add_messages gave every message a fresh uuid: the raw states differ...
    assert [m.id for m in first["messages"]] != [m.id for m in second["messages"]]
    # ...but nothing we write does
    assert stable_json(first) == stable_json(second)
    assert render_text(first) == render_text(second)
    for message in first["messages"]:
        assert message.id not in stable_json(first)
    assert "[human]\n    Analyze AAPL" in render_text(first)


def test_to_jsonable_does_not_import_langchain_or_langgraph() -> None:
    code = (
        "import sys, pytest_auditfence.textfmt as t, pytest_auditfence.redact as r\n"
        "t.render_text({'a': [1, {'b': object()}]}); r.Redactor(env={}).value({'k': b'x'})\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in "
        "('langchain_core', 'langgraph', 'langchain_openai', 'pydantic', 'vcr', 'syrupy', 'pytest'))\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_stable_json_is_compact_sorted_unicode() -> None:
    assert stable_json({"b": "€", "a": (1, 2)}) == '{"a":[1,2],"b":"€"}'


# ---------------------------------------------------------------------------------------------
# render_text


def test_dict_renders_as_sorted_key_value_lines_with_nesting() -> None:
    value = {"ticker": "AAPL", "metrics": {"revenue": 383.3, "margin": {"gross": 0.44}}, "ok": True, "none": None}
    assert render_text(value) == (
        "metrics:\n"
        "  margin:\n"
        "    gross: 0.44\n"
        "  revenue: 383.3\n"
        "none: null\n"
        "ok: true\n"
        "ticker: AAPL\n"
    )


def test_records_render_as_a_table() -> None:
    rows = [
        {"year": 2023, "revenue": "383.3B", "segment": "total"},
        {"year": 2022, "revenue": "394.3B", "segment": "total"},
        {"year": 2021, "revenue": "365.8B"},
    ]
    assert render_text({"rows": rows}) == (
        "rows:\n"
        "  revenue | segment | year\n"
        "  383.3B | total | 2023\n"
        "  394.3B | total | 2022\n"
        "  365.8B |  | 2021\n"
    )


def test_records_with_multiline_cells_fall_back_to_nested_form() -> None:
    rows = [{"title": "10-K", "text": "Line one.\nLine two."}, {"title": "10-Q", "text": "Short."}]
    assert render_text(rows) == (
        "- text:\n"
        "    Line one.\n"
        "    Line two.\n"
        "  title: 10-K\n"
        "- text: Short.\n"
        "  title: 10-Q\n"
    )


def test_other_lists_render_as_items() -> None:
    assert render_text({"tickers": ["AAPL", "MSFT"], "mixed": [1, {"a": 2}, [3, 4]]}) == (
        "mixed:\n"
        "  - 1\n"
        "  - a: 2\n"
        "  - - 3\n"
        "    - 4\n"
        "tickers:\n"
        "  - AAPL\n"
        "  - MSFT\n"
    )


def test_json_strings_are_decoded_into_structure() -> None:
    payload = json.dumps({"results": [{"url": "https://example.com/a", "score": 0.9}, {"url": "https://example.com/b", "score": 0.7}]})
    text = render_text({"tool_output": payload, "not_json": "{broken", "array": "[1, 2]"})
    assert text == (
        "array:\n"
        "  - 1\n"
        "  - 2\n"
        "not_json: {broken\n"
        "tool_output:\n"
        "  results:\n"
        "    score | url\n"
        "    0.9 | https://example.com/a\n"
        "    0.7 | https://example.com/b\n"
    )


def test_python_literal_strings_are_decoded_too_but_never_run() -> None:
    # `str(result)` of a tool's dict is a common way data reaches a message: a Python literal, not JSON.
    literal = str({"ticker": "AAPL", "revenue_usd_millions": 94930, "flags": ("a", None, True)})
    text = render_text({"as_repr": literal, "code": "{__import__('os').getcwd()}", "prose": "{'unclosed"})
    assert text == (
        "as_repr:\n"
        "  flags:\n"
        "    - a\n"
        "    - null\n"
        "    - true\n"
        "  revenue_usd_millions: 94930\n"
        "  ticker: AAPL\n"
        "code: {__import__('os').getcwd()}\n"
        "prose: {'unclosed\n"
    )


def test_multiline_string_lines_stay_whole_lines() -> None:
    filing = (
        "Item 7. Management's Discussion\n"
        "Total net sales decreased 3% or $11.0 billion during 2023 compared to 2022.\n"
        "\n"
        "iPhone net sales were $200.6 billion.\r\n"
        "Services reached a new all-time record."
    )
    text = render_text({"doc": {"body": filing}})
    lines = text.split("\n")
    for source_line in filing.splitlines():
        if source_line:
            assert f"    {source_line}" in lines
    assert lines[:2] == ["doc:", "  body:"]
    assert "" in lines  # the blank line of the source is kept


def test_messages_render_as_headed_blocks() -> None:
    state = {
        "messages": [
            HumanMessage("Analyze AAPL"),
            AIMessage(
                content="",
                tool_calls=[{"name": "get_price", "args": {"ticker": "AAPL", "days": 5}, "id": "call_9"}],
            ),
            ToolMessage(content='{"price": 189.5, "currency": "USD"}', tool_call_id="call_9", name="get_price"),
            AIMessage(content="AAPL trades at $189.50.\nThat is up 2%.", name="writer"),
        ]
    }
    assert render_text(state) == (
        "messages:\n"
        "  [human]\n"
        "    Analyze AAPL\n"
        "  [ai]\n"
        '    tool_call: get_price({"days":5,"ticker":"AAPL"}) id=call_9\n'
        "  [tool name=get_price id=call_9]\n"
        "    currency: USD\n"
        "    price: 189.5\n"
        "  [ai name=writer]\n"
        "    AAPL trades at $189.50.\n"
        "    That is up 2%.\n"
    )


def test_tool_error_and_content_blocks() -> None:
    error = ToolMessage(content="Error: ticker XYZ not found", tool_call_id="c1", name="get_price", status="error")
    blocks = AIMessage(content=[{"type": "text", "text": "Revenue rose.\nMargins held."}, {"type": "image_url", "image_url": {"url": "x"}}])
    text = render_text([error, blocks])
    assert text == (
        "[tool name=get_price id=c1 status=error]\n"
        "  Error: ticker XYZ not found\n"
        "[ai]\n"
        "  Revenue rose.\n"
        "  Margins held.\n"
        "  - image_url:\n"
        "      url: x\n"
        "    type: image_url\n"
    )


def test_long_lines_wrap_at_word_boundaries_and_stay_searchable() -> None:
    sentence = (
        "Apple reported total net sales of $383.3 billion for fiscal 2023, a decrease of 3% compared "
        "with the prior year, driven by lower iPhone and Mac sales in Greater China and Europe."
    )
    body = " ".join([sentence] * 12)
    for wrap_at in (40, 80, 400):
        text = render_text({"report": {"body": body}}, wrap_at=wrap_at)
        assert max_line(text) <= wrap_at
        assert sentence in normalised(text)
        # wrapping happened at spaces: every word survives intact
        assert set(normalised(text).split()) >= set(sentence.split())


def test_unbreakable_tokens_are_split_hard_and_recoverable_without_whitespace() -> None:
    token = "A" * 1000 + "-end"
    text = render_text({"blob": token}, wrap_at=100)
    assert max_line(text) <= 100
    assert token in re.sub(r"\s+", "", text)


def test_deep_nesting_keeps_lines_within_wrap_at() -> None:
    deep: Any = "leaf value with several words in it to wrap"
    for i in range(60):
        deep = {f"level{i}": deep}
    text = render_text(deep, wrap_at=40)
    assert max_line(text) <= 40
    assert "leaf value with several words in it to wrap" in normalised(text)


def test_output_is_deterministic_and_has_no_addresses() -> None:
    value = {"obj": Opaque(), "set": {"b", "a"}, "when": dt.date(2024, 1, 1), "f": _run_graph}
    first = render_text(value)
    second = render_text({"when": dt.date(2024, 1, 1), "f": _run_graph, "set": {"a", "b"}, "obj": Opaque()})
    assert first == second
    assert first.encode() == second.encode()
    assert not ADDRESS.search(first)
    assert first.endswith("\n") and not first.endswith("\n\n")


def test_control_characters_are_escaped_so_grep_sees_text() -> None:
    text = render_text({"raw": "before\x00after\x1b[31mred"})
    assert "\x00" not in text and "\x1b" not in text
    assert "before\\x00after\\x1b[31mred" in text


def test_scalars_and_empties() -> None:
    assert render_text("plain") == "plain\n"
    assert render_text("") == '""\n'
    assert render_text(3) == "3\n"
    assert render_text({}) == "{}\n"
    assert render_text({"a": [], "b": {}, "c": ""}) == 'a: []\nb: {}\nc: ""\n'


@pytest.mark.parametrize("wrap_at", [0, 5, 19, -1, "80", 80.0, True])
def test_bad_wrap_at_is_a_clear_error(wrap_at: Any) -> None:
    with pytest.raises(AuditFenceError, match=r"wrap_at.*at least 20"):
        render_text({"a": 1}, wrap_at=wrap_at)


# ---------------------------------------------------------------------------------------------
# truncate


def test_truncate_keeps_short_text() -> None:
    assert truncate("short", 100) == ("short", False)
    assert truncate("exact", 5) == ("exact", False)


def test_truncate_marks_what_it_dropped_and_cuts_on_a_line() -> None:
    text = "".join(f"row {i}: revenue 383.3\n" for i in range(100))
    kept, cut = truncate(text, 500)
    assert cut
    head, marker = kept.rstrip("\n").rsplit("\n", 1)
    dropped = len(text) - len(head) - 1  # the newline ending the last kept row
    assert marker == (
        f"[auditfence: truncated {dropped} of {len(text)} characters; raise max_output_chars to keep more]"
    )
    assert len(head) <= 500
    assert text.startswith(head + "\n")
    assert all(line in text.splitlines() for line in head.splitlines())  # no row cut in two


def test_truncate_without_line_breaks_cuts_at_a_space() -> None:
    text = "word " * 100
    kept, cut = truncate(text, 52)
    assert cut
    head = kept.split("\n")[0]
    assert head == " ".join(["word"] * 10)


def test_truncate_zero_and_bad_limits() -> None:
    kept, cut = truncate("abc", 0)
    assert cut and kept == "[auditfence: truncated 3 of 3 characters; raise max_output_chars to keep more]\n"
    with pytest.raises(AuditFenceError, match="max_chars"):
        truncate("abc", -1)


# ---------------------------------------------------------------------------------------------
# properties

_keys = st.text(max_size=12)
_leaves = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=300)
    | st.binary(max_size=20)
    | st.dates()
    | st.decimals(allow_nan=False)
    | st.sampled_from(['{"a": [1, 2]}', "[3]", "line one\nline two", "x" * 500, ("word " * 120)])
)
_data = st.recursive(
    _leaves,
    lambda children: st.lists(children, max_size=5)
    | st.dictionaries(_keys, children, max_size=5)
    | st.tuples(children, children)
    | st.frozensets(st.integers() | st.text(max_size=5), max_size=4),
    max_leaves=40,
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(value=_data, wrap_at=st.integers(min_value=20, max_value=200))
def test_render_never_raises_and_respects_wrap_at(value: Any, wrap_at: int) -> None:
    text = render_text(value, wrap_at=wrap_at)
    assert text.endswith("\n")
    assert max_line(text) <= wrap_at
    assert "\x00" not in text
    assert render_text(value, wrap_at=wrap_at) == text


@settings(max_examples=150, deadline=None)
@given(value=_data)
def test_to_jsonable_is_json_and_idempotent(value: Any) -> None:
    once = to_jsonable(value)
    json.dumps(once, allow_nan=False)
    assert to_jsonable(once) == once
    assert stable_json(once) == stable_json(value)


def test_a_shared_memo_converts_each_message_once_with_the_same_result():
    # A capture converts every node's input; later inputs hold the earlier messages again.
    history = [HumanMessage(content="Analyze AAPL", id="h1")]
    inputs = []
    for i in range(6):
        history = [*history, AIMessage(content=f"step {i}: revenue $1{i}.4 billion", id=f"a{i}",
                                       tool_calls=[{"name": "quote", "args": {"t": "AAPL"}, "id": f"c{i}"}])]
        inputs.append({"messages": history, "nested": [[history[-1]]]})  # the same message one level deeper too
    memo: dict[int, Any] = {}
    shared = [to_jsonable(value, memo) for value in inputs]
    assert shared == [to_jsonable(value) for value in inputs]
    # one entry per message object (7), whatever the number of conversions and the depths it sits at (the
    # last 6 also one level deeper: converted once, stop 31)
    assert len(memo) == 7
    deep: Any = history[-1]
    for _ in range(MAX_DEPTH + 2):
        deep = [deep]
    assert to_jsonable(deep, memo) == to_jsonable(deep)  # the depth limit still applies to a known message


def test_rendering_with_a_shared_cache_gives_the_same_text_as_without() -> None:
    """A materialisation renders every node input through one RenderCache: a message or long string seen
    before (the same object, at any indent, first in a list item or not) gives the text it gives alone."""
    from pytest_auditfence.textfmt import RenderCache, render_jsonable

    long_text = "\n".join(f"FY{2000 + i} revenue ${i},000 million" for i in range(30))
    wide = "x " * 300  # one line, wrapped
    tool = {"type": "tool", "content": long_text, "name": "get_filing", "tool_call_id": "c1", "status": "success"}
    ai = {"type": "ai", "content": "Reading.", "tool_calls": [{"name": "get_filing", "args": {"t": 1}, "id": "c1"}]}
    values = [
        {"messages": [ai, tool]},
        {"messages": [ai, tool, {"type": "ai", "content": long_text}], "notes": [long_text, wide, {"k": long_text}]},
        {"nested": {"deeper": {"messages": [tool]}}, "mixed": [tool, {"a": 1}, long_text]},
        [long_text, [long_text, tool]],
        {"output": long_text, "wide": wide},
    ]
    cache = RenderCache()
    for _ in range(2):  # the second pass is all cache hits
        for value in values:
            assert render_jsonable(value, cache=cache, wrap_at=60) == render_text(value, wrap_at=60)
            assert render_jsonable(value, cache=cache) == render_text(value)


_json_data = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=40),
    lambda children: st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=8), children, max_size=5),
    max_leaves=40,
)


@settings(max_examples=200, deadline=None)
@given(value=_json_data | st.dictionaries(st.integers(), st.integers(), max_size=3))
def test_the_encoders_built_once_write_what_json_dumps_writes(value: Any) -> None:
    # manifest.json, the blobs and the journal must stay byte-identical to what json.dumps gave before.
    assert dump_indented(value) == json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False)
    assert dump_event(value) == json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)
    try:
        expected = json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    except ValueError:  # NaN and infinities are refused, as before (to_jsonable never hands them over)
        with pytest.raises(ValueError):
            dump_json(value)
    else:
        assert dump_json(value) == expected


def test_the_journal_encoder_writes_objects_as_their_str():
    run = uuid.UUID(int=7)
    assert dump_event({"meta": {"run_id": run}, "seq": 1}) == '{"meta": {"run_id": "%s"}, "seq": 1}' % run


def test_message_fields_are_read_from_fields_and_from_extras_alike():
    # to_jsonable reads a message's optional fields without pydantic's AttributeError for those its class
    # lacks; an extra given to the message (extra="allow") must still be found, and a missing one left out.
    extra_role = to_jsonable(AIMessage(content="e", role="analyst", tool_call_id="c9"))
    assert extra_role["role"] == "analyst" and extra_role["tool_call_id"] == "c9"
    assert "role" not in to_jsonable(AIMessage(content="e")) and "artifact" not in to_jsonable(HumanMessage("h"))
    tool = to_jsonable(ToolMessage(content="z", tool_call_id="c1", artifact={"rows": 2}))
    assert tool["tool_call_id"] == "c1" and tool["artifact"] == {"rows": 2} and tool["status"] == "success"
