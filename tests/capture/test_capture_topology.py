"""Runtime topology of real compiled graphs of every shape, under invoke, ainvoke, stream and astream."""

from __future__ import annotations

import pytest
from capture_graphs import (
    MODES,
    MODULE_APP,
    agent_loop,
    command_routing,
    conditional,
    fan_out_in,
    join,
    linear,
    map_reduce,
    parallel_lanes,
    run,
    parent_command,
    subgraph_in_function,
    subgraph_node,
)
from langchain_core.messages import HumanMessage

from pytest_auditfence import Snapshot, read_trace_text
from pytest_auditfence.manifest import INPUT_NODE as IN


def capture(tmp_path, app, inputs, mode):
    with Snapshot(tmp_path / "trace") as snap:
        run(app, inputs, snap.config(), mode)
    manifest = snap.load_manifest()
    assert manifest.complete, manifest.incomplete_reason
    return manifest


@pytest.mark.parametrize("mode", MODES)
def test_linear_chain(tmp_path, mode):
    m = capture(tmp_path, linear(), {"log": []}, mode)
    assert m.edges == [(IN, "fetch"), ("analyze", "write"), ("fetch", "analyze")]
    assert m.entry_nodes == ["fetch"]
    assert m.final_node == "write"
    assert m.rounds == {}


@pytest.mark.parametrize("mode", MODES)
def test_fan_out_and_fan_in(tmp_path, mode):
    m = capture(tmp_path, fan_out_in(), {"log": []}, mode)
    assert m.edges == [(IN, "a"), (IN, "b"), ("a", "c"), ("b", "c")]
    assert m.entry_nodes == ["a", "b"]
    assert m.final_node == "c"


@pytest.mark.parametrize("mode", ["invoke", "astream"])
def test_parallel_lanes_do_not_cross(tmp_path, mode):
    m = capture(tmp_path, parallel_lanes(), {"log": []}, mode)
    assert m.edges == [(IN, "a"), (IN, "b"), ("a", "c"), ("b", "d")]


@pytest.mark.parametrize("mode", ["invoke", "ainvoke"])
def test_join_edge_names_its_sources(tmp_path, mode):
    m = capture(tmp_path, join(), {"log": []}, mode)
    assert m.edges == [(IN, "a"), (IN, "b"), ("a", "a2"), ("a2", "c"), ("b", "c")]


@pytest.mark.parametrize("mode", MODES)
def test_conditional_edge(tmp_path, mode):
    m = capture(tmp_path, conditional(), {"log": []}, mode)
    # classify adds one entry -> odd -> bear
    assert m.edges == [(IN, "classify"), ("bear", "report"), ("classify", "bear")]
    assert "bull" not in {n.name for n in m.nodes}


@pytest.mark.parametrize("mode", MODES)
def test_send_map_reduce(tmp_path, mode):
    m = capture(tmp_path, map_reduce(), {"tickers": [], "results": []}, mode)
    assert m.edges == [(IN, "plan"), ("plan", "price"), ("price", "reduce")]
    assert m.rounds == {"price": 3}
    outputs = sorted((tmp_path / "trace" / f.path).read_text() for f in m.files_of("price", "node_output"))
    assert [f.round for f in sorted(m.files_of("price", "node_output"), key=lambda f: f.path)] == [1, 2, 3]
    assert any("AAPL closed at" in text for text in outputs)
    assert any("GOOG closed at" in text for text in outputs)


@pytest.mark.parametrize("mode", MODES)
def test_command_goto(tmp_path, mode):
    m = capture(tmp_path, command_routing(), {"log": []}, mode)
    assert m.edges == [(IN, "router"), ("router", "equities")]
    router_out = (tmp_path / "trace" / m.files_of("router", "node_output")[0].path).read_text()
    assert "router picked equities" in router_out


@pytest.mark.parametrize("mode", MODES)
def test_compiled_subgraph_as_node(tmp_path, mode):
    m = capture(tmp_path, subgraph_node(), {"log": []}, mode)
    assert m.edges == [  # the edge convention: host -> inner entry, inner exit -> host
        (IN, "plan"),
        ("plan", "research"),
        ("research", "research/search"),
        ("research", "write"),
        ("research/search", "research/summarize"),
        ("research/summarize", "research"),
    ]
    assert m.node("research").kind == "subgraph"
    assert m.node("research/search").parent == "research"
    assert m.final_node == "write"
    assert (tmp_path / "trace" / "nodes/research/search/r1.output.txt").is_file()


@pytest.mark.parametrize("mode", ["invoke", "ainvoke"])
def test_subgraph_invoked_inside_a_node(tmp_path, mode):
    m = capture(tmp_path, subgraph_in_function(calls=2), {"log": []}, mode)
    assert m.edges == [  # the host that built the subgraph's input feeds its entry, not what fed the host
        (IN, "outer"),
        ("outer", "final"),
        ("outer", "outer/search"),
        ("outer/search", "outer/summarize"),
        ("outer/summarize", "outer"),
    ]
    assert m.rounds == {"outer/search": 2, "outer/summarize": 2}
    # each call of the subgraph is an instance of its own: its rounds are fed only by its own steps
    steps = {s.name: (s.within, s.instance, s.upstream) for s in m.steps}
    assert steps == {
        "outer r1": (None, None, ["__input__", "outer/summarize r1", "outer/summarize r2"]),
        "outer/search r1": ("outer r1", 1, ["outer r1"]),
        "outer/search r2": ("outer r1", 2, ["outer r1"]),
        "outer/summarize r1": ("outer r1", 1, ["outer/search r1"]),
        "outer/summarize r2": ("outer r1", 2, ["outer/search r2"]),
        "final r1": (None, None, ["outer r1"]),
    }
    first = (tmp_path / "trace/nodes/outer/search/r1.input.txt").read_text()
    second = (tmp_path / "trace/nodes/outer/search/r2.input.txt").read_text()
    assert "query 0" in first and "query 1" in second


@pytest.mark.parametrize("mode", MODES)
def test_subgraph_node_handing_a_command_to_its_parent(tmp_path, mode):
    # LangGraph raises Command(graph=Command.PARENT) out of the subgraph; the capture records it as the
    # node's update and route, not as an error (and not with the parent's task id in it).
    m = capture(tmp_path, parent_command(), {"log": []}, mode)
    assert m.edges == [
        (IN, "plan"),
        ("plan", "review"),
        ("review", "escalate"),
        ("review", "review/check"),
        ("review/check", "review"),
    ]
    assert m.node("review").kind == "subgraph"
    assert m.final_node == "escalate"
    root = tmp_path / "trace"
    for node in ("review/check", "review"):
        [output] = m.files_of(node, "node_output")
        assert not output.error
        assert (root / output.path).read_text() == "log:\n  - check found a 12% gap\n"
    assert "check found a 12% gap" in (root / "nodes/escalate/r1.input.txt").read_text()


@pytest.mark.parametrize("mode", MODES)
def test_tool_calling_agent_loop(tmp_path, mode):
    m = capture(tmp_path, agent_loop(), {"messages": [HumanMessage(content="Prices of AAPL, MSFT, GOOG?")]}, mode)
    assert m.edges == [(IN, "agent"), ("agent", "tools"), ("tools", "agent")]
    assert m.rounds == {"agent": 3, "tools": 2}
    assert m.final_node == "agent"
    calls = m.files_of("tools", "tool_call")
    assert [(f.round, f.tool, f.tool_call_id) for f in calls] == [
        (1, "get_price", "call_1"), (2, "get_price", "call_2"), (2, "get_price", "call_3")]
    texts = [(tmp_path / "trace" / f.path).read_text() for f in calls]
    assert "AAPL closed at 187.32 USD on 2024-03-28" in texts[0]
    assert "node: tools" in texts[0] and "ticker: AAPL" not in texts[0]  # arguments are model-written
    arguments = (tmp_path / "trace" / calls[0].path.replace(".txt", ".arguments.txt")).read_text()
    assert "ticker: AAPL" in arguments
    assert {f.kind for f in m.files if f.path.endswith(".arguments.txt")} == {"tool_arguments"}
    model_calls = m.files_of("agent", "model_call")
    assert len(model_calls) == 3
    last = read_trace_text(tmp_path / "trace", model_calls[-1].path)  # it shares the lines it repeats
    assert "MSFT at 411.07 USD" in last and "total_tokens: 60" in last


def test_graph_compiled_at_module_import(tmp_path):
    m = capture(tmp_path, MODULE_APP, {"log": []}, "invoke")
    assert m.edges == [(IN, "fetch"), ("analyze", "write"), ("fetch", "analyze")]
    assert [f.path for f in m.files_of(IN)] == ["input/r1.txt"]
