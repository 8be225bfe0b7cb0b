"""Snapshot behaviour: determinism, redaction, completeness, folder rules, damaged files, callbacks, limits."""

from __future__ import annotations

import json

import pytest
from capture_graphs import agent_loop, failing, fan_out_in, linear, map_reduce, parent_command, run
from langchain_core.callbacks import BaseCallbackHandler, CallbackManager
from langchain_core.messages import HumanMessage
from langchain_core.tools import tool

from pytest_auditfence import Snapshot
from pytest_auditfence.errors import AuditFenceError, JournalError, ManifestError, TraceDirError
from pytest_auditfence.manifest import INPUT_NODE, CaptureLevel

OPENAI_KEY = "sk-proj-" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8S9t0"
ENV_SECRET = "zq8-VeryPrivate-Value-771"


@pytest.mark.parametrize(
    ("factory", "inputs", "mode"),
    [
        (fan_out_in, {"log": []}, "invoke"),
        (fan_out_in, {"log": []}, "astream"),
        (map_reduce, {"tickers": [], "results": []}, "invoke"),
        (map_reduce, {"tickers": [], "results": []}, "ainvoke"),
        (agent_loop, {"messages": [("user", "prices?")]}, "ainvoke"),
        (parent_command, {"log": []}, "invoke"),
        (parent_command, {"log": []}, "astream"),
    ],
)
def test_reruns_into_two_folders_are_byte_identical(tmp_path, read_tree, factory, inputs, mode):
    trees = []
    for name in ("one", "two"):
        with Snapshot(tmp_path / name) as snap:
            run(factory(), inputs, snap.config(), mode)
        trees.append(read_tree(tmp_path / name))
    assert trees[0] == trees[1]
    assert "manifest.json" in trees[0] and any(p.startswith("nodes/") for p in trees[0])


def test_planted_secrets_never_reach_any_file(tmp_path, monkeypatch):
    monkeypatch.setenv("BROKER_API_TOKEN", ENV_SECRET)

    @tool
    def leaky(ticker: str) -> str:
        """A tool that leaks credentials in its output."""
        return f"{ticker} 187.32 USD (debug: key={OPENAI_KEY} auth={ENV_SECRET})"

    from capture_graphs import ToolCallingFakeModel  # noqa: PLC0415 - local to this test's graph
    from langchain_core.messages import AIMessage
    from langgraph.graph import START, MessagesState, StateGraph
    from langgraph.prebuilt import ToolNode, tools_condition

    model = ToolCallingFakeModel(messages=iter([
        AIMessage(content="", tool_calls=[{"name": "leaky", "args": {"ticker": "AAPL"}, "id": "c1"}]),
        AIMessage(content=f"done; my key is {OPENAI_KEY}"),
    ]))
    g = StateGraph(MessagesState)
    g.add_node("agent", lambda s: {"messages": [model.invoke(s["messages"])]})
    g.add_node("tools", ToolNode([leaky]))
    g.add_edge(START, "agent")
    g.add_conditional_edges("agent", tools_condition)
    g.add_edge("tools", "agent")
    with Snapshot(tmp_path / "t") as snap:
        result = g.compile().invoke({"messages": [HumanMessage(content=f"use {ENV_SECRET}")]}, config=snap.config())
        snap.set_report(result["messages"][-1].content)
    files = [p for p in (tmp_path / "t").rglob("*") if p.is_file()]
    assert len(files) > 10
    for path in files:
        data = path.read_bytes()
        assert OPENAI_KEY.encode() not in data, path
        assert ENV_SECRET.encode() not in data, path
    tool_file = snap.load_manifest().files_of("tools", "tool_call")[0]
    assert "AAPL 187.32 USD" in (tmp_path / "t" / tool_file.path).read_text()
    assert "[REDACTED" in (tmp_path / "t" / "report.md").read_text()


def test_credentials_inside_a_python_literal_string_are_redacted(tmp_path):
    # str(response) of a tool's dict lands in the state; the trace renders it as the structure it holds,
    # so its credential-named fields must be redacted as fields, whatever their values look like.
    from capture_graphs import State  # noqa: PLC0415
    from langgraph.graph import START, StateGraph

    def login(state: State) -> dict:
        return {"log": [str({"user": "ann", "password": "hunter2", "session": {"token": "tk0"}})]}

    g = StateGraph(State)
    g.add_node("login", login)
    g.add_edge(START, "login")
    with Snapshot(tmp_path / "t") as snap:
        g.compile().invoke({"log": []}, config=snap.config())
    for path in (p for p in (tmp_path / "t").rglob("*") if p.is_file()):
        data = path.read_bytes()
        assert b"hunter2" not in data and b"tk0" not in data, path
    output = (tmp_path / "t" / "nodes/login/r1.output.txt").read_text()
    assert "user: ann" in output and "password: [REDACTED" in output


def test_user_redact_hook_runs_before_writing(tmp_path, read_tree):
    with Snapshot(tmp_path / "t", redact=lambda s: s.replace("analyze", "XXXX")) as snap:
        linear().invoke({"log": []}, config=snap.config())
    assert not any(b"analyze saw" in data for data in read_tree(tmp_path / "t", skip_journal=False).values())


def test_exception_in_a_node_leaves_capture_incomplete(tmp_path):
    with pytest.raises(RuntimeError, match="data source unavailable"):
        with Snapshot(tmp_path / "t") as snap:
            failing().invoke({"log": []}, config=snap.config())
    m = snap.load_manifest()
    assert m.complete is False
    assert "RuntimeError: data source unavailable" in m.incomplete_reason
    error_file = m.files_of("boom", "node_output")[0]
    assert error_file.error and "data source unavailable" in (tmp_path / "t" / error_file.path).read_text()


def test_exception_without_context_manager_is_still_incomplete(tmp_path):
    snap = Snapshot(tmp_path / "t")
    with pytest.raises(RuntimeError):
        failing().invoke({"log": []}, config=snap.config())
    m = snap.finalize()
    assert not m.complete and "the graph run raised" in m.incomplete_reason


def test_folder_holding_a_run_is_refused_unless_replace(tmp_path):
    with Snapshot(tmp_path / "t") as snap:
        fan_out_in().invoke({"log": []}, config=snap.config())
    again = Snapshot(tmp_path / "t")
    assert again.load_manifest().edges  # reading an old run is fine
    with pytest.raises(TraceDirError, match=r"already holds a captured run.*replace=True"):
        again.config()
    (tmp_path / "t" / "keep.txt").write_text("user file")
    with Snapshot(tmp_path / "t", replace=True) as snap2:
        linear().invoke({"log": []}, config=snap2.config())
    m = snap2.load_manifest()
    assert {n.name for n in m.nodes} == {INPUT_NODE, "fetch", "analyze", "write"}
    assert not (tmp_path / "t" / "nodes" / "a").exists()
    assert (tmp_path / "t" / "keep.txt").read_text() == "user file"


def test_broken_journal_line_is_a_clear_error(tmp_path):
    snap = Snapshot(tmp_path / "t")
    linear().invoke({"log": []}, config=snap.config())
    snap.flush()
    journal = tmp_path / "t" / "journal.jsonl"
    lines = journal.read_text().splitlines()
    lines[2] = lines[2][:15]
    journal.write_text("\n".join(lines) + "\n")
    with pytest.raises(JournalError, match=r"journal\.jsonl: line 3 is not valid JSON.*Capture the run again"):
        snap.finalize()


def test_lost_journal_line_is_a_recorded_gap(tmp_path):
    snap = Snapshot(tmp_path / "t")
    linear().invoke({"log": []}, config=snap.config())
    snap.flush()
    journal = tmp_path / "t" / "journal.jsonl"
    lines = journal.read_text().splitlines()
    del lines[3]
    journal.write_text("\n".join(lines) + "\n")
    m = snap.finalize()
    assert m.journal.gaps == [(4, 4)]
    assert not m.complete and "missing seq 4" in m.incomplete_reason


def test_hand_edited_manifest_is_a_clear_error(tmp_path):
    with Snapshot(tmp_path / "t") as snap:
        linear().invoke({"log": []}, config=snap.config())
    path = tmp_path / "t" / "manifest.json"
    data = json.loads(path.read_text())
    data["edges"].append(["fetch", "ghost"])
    path.write_text(json.dumps(data))
    with pytest.raises(ManifestError, match="names node 'ghost'"):
        snap.load_manifest()
    path.write_text("{not json")
    with pytest.raises(ManifestError, match="manifest.json: not readable as JSON"):
        Snapshot(tmp_path / "t").load_manifest()


class Recording(BaseCallbackHandler):
    def __init__(self) -> None:
        self.nodes: list[str] = []

    def on_chain_start(self, serialized, inputs, *, metadata=None, **kwargs):
        if metadata and kwargs.get("name") == metadata.get("langgraph_node"):
            self.nodes.append(metadata["langgraph_node"])


@pytest.mark.parametrize("as_manager", [False, True])
def test_user_callbacks_still_called(tmp_path, as_manager):
    mine = Recording()
    callbacks = CallbackManager(handlers=[mine], inheritable_handlers=[mine]) if as_manager else [mine]
    with Snapshot(tmp_path / "t") as snap:
        config = snap.config(callbacks=callbacks, tags=["nightly"], recursion_limit=7, configurable={"k": 1})
        assert config["recursion_limit"] == 7 and config["configurable"] == {"k": 1}
        linear().invoke({"log": []}, config=config)
    assert mine.nodes == ["fetch", "analyze", "write"]
    assert len(snap.load_manifest().files_of("write", "node_output")) == 1


def test_bad_arguments_name_the_problem(tmp_path):
    with pytest.raises(AuditFenceError, match="callbacks must be LangChain callback handlers"):
        Snapshot(tmp_path / "a").config(callbacks=["nope"])
    with pytest.raises(AuditFenceError, match="max_output_chars"):
        Snapshot(tmp_path / "b", max_output_chars=0)
    with pytest.raises(AuditFenceError, match="set_report"):
        Snapshot(tmp_path / "c").set_report(None)
    with pytest.raises(AuditFenceError, match="save_artifact"):
        Snapshot(tmp_path / "d").save_artifact("../escape", {})
    (tmp_path / "file").write_text("x")
    with pytest.raises(TraceDirError, match="not a folder"):
        Snapshot(tmp_path / "file").config()


def test_long_output_is_truncated_with_a_marker(tmp_path):
    from langgraph.graph import START, StateGraph
    from typing_extensions import TypedDict

    class S(TypedDict):
        text: str

    g = StateGraph(S)
    g.add_node("dump", lambda s: {"text": "filing line\n" * 500})
    g.add_edge(START, "dump")
    with Snapshot(tmp_path / "t", max_output_chars=1000) as snap:
        g.compile().invoke({"text": ""}, config=snap.config())
    record = snap.load_manifest().files_of("dump", "node_output")[0]
    text = (tmp_path / "t" / record.path).read_text()
    assert record.truncated and len(text) < 1200
    assert "[auditfence: truncated" in text and "raise max_output_chars" in text


def test_report_artifact_and_declared_dependency(tmp_path):
    with Snapshot(tmp_path / "t") as snap:
        fan_out_in().invoke({"log": []}, config=snap.config())
        snap.save_artifact("analyst_estimates", [{"ticker": "AAPL", "eps": 6.58}, {"ticker": "MSFT", "eps": 11.8}])
        snap.declare_dependency("c", ["a", "analyst_estimates"])
        snap.set_report("AAPL EPS is 6.58.")
    m = snap.load_manifest()
    artifact = m.node("analyst_estimates")
    assert (artifact.kind, artifact.capture_level, artifact.trust_cap) == ("artifact", CaptureLevel.DECLARED, 0.4)
    assert m.node("c").capture_level == CaptureLevel.INSTRUMENTED and m.node("c").trust_cap == 1.0
    assert m.upstream("c") == ["a", "analyst_estimates"]
    assert m.declared_dependencies == {"c": ["a", "analyst_estimates"]}
    table = (tmp_path / "t" / "artifacts/analyst_estimates.txt").read_text()
    assert "eps | ticker\n6.58 | AAPL\n" in table
    assert m.report == "report.md" and (tmp_path / "t/report.md").read_text() == "AAPL EPS is 6.58."
    assert snap.finalize() == m  # idempotent


def test_finalize_after_more_runs_includes_them(tmp_path):
    snap = Snapshot(tmp_path / "t")
    linear().invoke({"log": []}, config=snap.config())
    first = snap.finalize()
    linear().invoke({"log": ["again"]}, config=snap.config())
    second = snap.finalize()
    assert first.rounds == {} and second.rounds == {"analyze": 2, "fetch": 2, "write": 2}
    assert [f.path for f in second.files_of(INPUT_NODE)] == ["input/r1.txt", "input/r2.txt"]
