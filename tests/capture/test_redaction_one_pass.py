"""A captured value is converted and redacted in one pass (Redactor.value with a batch memo): it must give what
redacting the converted value afterwards gives, and no secret may reach a trace file on the way."""

from __future__ import annotations

import enum
import operator
from typing import Annotated, Any, TypedDict

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from langchain_core.messages import AIMessage, HumanMessage
from langgraph.graph import START, StateGraph

from pytest_auditfence import Snapshot
from pytest_auditfence.redact import Redactor
from pytest_auditfence.textfmt import ConversionHookError, to_jsonable

OPENAI = "sk-proj-" + "Zq4" * 10
GITHUB = "ghp_" + "Wx8" * 10
PLAIN_KEY = "plainvalue-98231"  # no pattern: only the credential-named key it sits under marks it
SECRETS = (OPENAI, GITHUB, PLAIN_KEY, "hunter2-Q9z")


class Tier(enum.Enum):
    GOLD = f"tier {GITHUB}"


def awkward_value() -> dict[Any, Any]:
    """Secrets where each part of the conversion meets them: a credential-named key (also as a record key
    and as the key of a None), set items whose order the redaction would change, tuple and int keys, an enum,
    bytes, an exception, a JSON string, a message and the same message again deeper down."""
    message = AIMessage(content=f"use {OPENAI}", additional_kwargs={"api_key": PLAIN_KEY})
    return {
        "api_key": PLAIN_KEY,
        "token": None,
        "records": [{"password": "hunter2-Q9z", "user": "ann"}, {"password": "x", "user": f"bob {OPENAI}"}],
        "tags": frozenset({f"k {OPENAI}", "k b", f"mm {GITHUB}"}),  # redacted, 'k [REDACTED' sorts first
        ("pair", OPENAI): "tuple key",
        7: f"int key {GITHUB}",
        "tier": Tier.GOLD,
        "raw": f"bytes {OPENAI}".encode(),
        "error": RuntimeError(f"failed with {GITHUB}"),
        "json": '{"client_secret": "hunter2-Q9z", "rows": [1, 2]}',
        "messages": [message, HumanMessage(content="hi")],
        "call": {"messages": [[message]]},
    }


def test_one_pass_gives_what_redacting_the_converted_value_gives():
    redactor = Redactor(env={})
    value = awkward_value()
    one_pass = redactor.value(value, {})
    assert one_pass == redactor.value(value)  # no memo: converted first, then walked
    text = repr(one_pass)
    assert not [s for s in SECRETS if s in text]
    assert one_pass["api_key"] == "[REDACTED:api_key]" and one_pass["token"] is None
    assert one_pass["tags"] == ["k b", "k [REDACTED:openai]", "mm [REDACTED:github]"]  # in their unredacted order


_secretish = st.sampled_from([OPENAI, GITHUB, "password: hunter2-Q9z", f'{{"api_key": "{PLAIN_KEY}"}}', "plain"])
_keys = st.sampled_from(["api_key", "Authorization", "note", "token", "x"]) | st.text(max_size=6)
_values = st.recursive(
    st.none() | st.integers() | st.text(max_size=20) | _secretish,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(_keys, children, max_size=4)
    | st.frozensets(_secretish | st.text(max_size=4), max_size=4) | st.tuples(children, children),
    max_leaves=25,
)


@settings(max_examples=150, deadline=None)
@given(value=_values)
def test_one_pass_equals_two_passes_for_any_value(value: Any) -> None:
    redactor = Redactor(env={})
    assert redactor.value(value, {}) == redactor.value(value)


def test_a_failing_hook_leaves_the_conversion_instead_of_a_repr():
    # A repr of the value would carry it past the hook; the conversion must fail instead.
    def refuse(text: str) -> str:
        raise ValueError("refused")

    with pytest.raises(ConversionHookError) as caught:
        to_jsonable({"outer": [{"inner": Tier.GOLD}]}, strings=refuse)
    assert isinstance(caught.value.__cause__, ValueError)


class State(TypedDict):
    log: Annotated[list, operator.add]


def test_no_secret_reaches_a_trace_file_of_a_captured_run(tmp_path):
    def research(state: State) -> dict[str, Any]:
        return {"log": [awkward_value()]}

    def write(state: State) -> dict[str, Any]:
        return {"log": [f"summary of {len(state['log'])} findings"]}

    graph = StateGraph(State)
    graph.add_node("research", research)
    graph.add_node("write", write)
    graph.add_edge(START, "research")
    graph.add_edge("research", "write")
    with Snapshot(tmp_path / "trace") as snap:
        graph.compile().invoke({"log": [f"task for {OPENAI}"]}, config=snap.config())
    files = [p for p in (tmp_path / "trace").rglob("*") if p.is_file()]
    assert len(files) > 5
    leaks = [(p.name, s) for p in files for s in SECRETS if s.encode() in p.read_bytes()]
    assert leaks == []
    output = (tmp_path / "trace" / "nodes" / "research" / "r1.output.txt").read_text()
    assert "[REDACTED:api_key]" in output and "[REDACTED:openai]" in output
