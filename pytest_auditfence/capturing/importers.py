"""Importers for runs that were not captured live: a LangGraph `stream_mode="debug"` event list (what a
client of a remote deployment receives) and an exported run tree (LangSmith-style nested runs).

Both replay the export through the live callback handler, so the journal, topology and files have the
same shape as a live capture; every node carries the log-structured level (trust 0.85).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from pytest_auditfence.errors import AuditFenceError
from pytest_auditfence.manifest import CaptureLevel, Manifest


class RemoteError(Exception):
    """An error the exported run recorded (its text, as the export gave it)."""


def _snapshot(trace_dir: str | Path, redact: Any, replace: bool) -> Any:
    from pytest_auditfence.snapshot import Snapshot

    snap = Snapshot(trace_dir, redact=redact, replace=replace)
    snap.recorder.level = CaptureLevel.LOG_STRUCTURED.value
    return snap


def _split_debug_event(item: Any, number: int) -> tuple[tuple[str, ...], Mapping[str, Any]]:
    namespace: Any = ()
    event = item
    if isinstance(item, list | tuple) and len(item) == 2 and isinstance(item[1], Mapping):
        namespace, event = item  # stream(..., subgraphs=True) yields (namespace, event)
    if not isinstance(event, Mapping) or "type" not in event or not isinstance(event.get("payload"), Mapping):
        raise AuditFenceError(
            f"import_debug_events: event {number} is {type(event).__name__} {str(event)[:80]!r}, not a debug event "
            f"(a dict with 'type', 'step' and 'payload'); pass the list that graph.stream(..., "
            f"stream_mode='debug') yields (with or without subgraphs=True)."
        )
    if not isinstance(namespace, list | tuple) or not all(isinstance(s, str) for s in namespace):
        raise AuditFenceError(f"import_debug_events: event {number} has namespace {namespace!r}; expected a tuple of str.")
    return tuple(namespace), event


def import_debug_events(
    events: Iterable[Any],
    trace_dir: str | Path,
    *,
    graph: Any | None = None,
    redact: Any = True,
    replace: bool = False,
) -> Manifest:
    """Capture a run from its `stream_mode="debug"` events into `trace_dir` and return the manifest.

    Pass the compiled `graph` when you have it: its static edges then decide who fed whom exactly;
    without it, a node is taken to be fed by the nodes of the step before it."""
    from pytest_auditfence.capturing.handler import static_structure

    snap = _snapshot(trace_dir, redact, replace)
    handler = snap.handler
    structure = static_structure(graph) if graph is not None else None
    graphs: dict[str, str] = {}
    failed: str | None = None
    for number, item in enumerate(events, start=1):
        namespace, event = _split_debug_event(item, number)
        payload = event["payload"]
        if event["type"] not in ("task", "task_result"):
            continue
        task_id, name = str(payload.get("id")), str(payload.get("name"))
        graph_run = "graph:" + "|".join(namespace)
        if event["type"] == "task":
            if graph_run not in graphs:
                owner = namespace[-1].split(":", 1)[-1] if namespace else None
                handler.record_graph_start(graph_run, owner, "graph", payload.get("input"),
                                           structure if not namespace else None)
                graphs[graph_run] = name
            step = event.get("step")
            triggers = list(payload.get("triggers") or ())
            path = ["__pregel_push"] if "__pregel_push" in triggers else ["__pregel_pull", name]
            metadata = {"langgraph_node": name, "langgraph_step": step, "langgraph_triggers": triggers,
                        "langgraph_path": path, "langgraph_checkpoint_ns": "|".join((*namespace, f"{name}:{task_id}"))}
            handler.on_chain_start(None, payload.get("input"), run_id=task_id, parent_run_id=graph_run,
                                   tags=[f"graph:step:{step}"], metadata=metadata)
        elif payload.get("error"):
            handler.on_chain_error(RemoteError(str(payload["error"])), run_id=task_id, parent_run_id=graph_run)
            if not namespace:
                failed = str(payload["error"])
        else:
            handler.on_chain_end(payload.get("result"), run_id=task_id, parent_run_id=graph_run)
    for graph_run in graphs:
        if failed is not None and graph_run == "graph:":
            handler.on_chain_error(RemoteError(failed), run_id=graph_run)
        else:
            handler.on_chain_end(None, run_id=graph_run)
    return snap.finalize()  # type: ignore[no-any-return]


def _as_mapping(run: Any, where: str) -> Mapping[str, Any]:
    if isinstance(run, Mapping):
        return run
    for method in ("model_dump", "dict"):
        if callable(getattr(run, method, None)):
            dumped = dict(getattr(run, method)())
            # langsmith's RunTree leaves its children out of the dump; they are on the object.
            if "child_runs" not in dumped and getattr(run, "child_runs", None) is not None:
                dumped["child_runs"] = list(run.child_runs)
            return dumped
    raise AuditFenceError(
        f"import_run_tree: {where} is {type(run).__name__}, not a run (a dict with 'id', 'name', 'run_type', "
        f"'inputs', 'outputs' and 'child_runs'); pass an exported run tree such as RunTree.dict()."
    )


def _step_tag(run: Mapping[str, Any]) -> bool:
    return any(str(t).startswith("graph:step:") for t in run.get("tags") or ())


def import_run_tree(
    run_tree: Any, trace_dir: str | Path, *, redact: Any = True, replace: bool = False
) -> Manifest:
    """Capture a run from an exported run tree (nested runs with run_type chain/tool/llm/retriever)."""
    snap = _snapshot(trace_dir, redact, replace)
    handler = snap.handler

    def visit(raw: Any, parent: str | None, where: str) -> None:
        run = _as_mapping(raw, where)
        if "id" not in run:
            raise AuditFenceError(f"import_run_tree: {where} has no 'id'; every run of the tree needs one.")
        run_id, kind = str(run["id"]), str(run.get("run_type") or "chain")
        name = str(run.get("name") or kind)
        inputs, outputs = run.get("inputs") or {}, run.get("outputs") or {}
        error = run.get("error")
        metadata = dict((run.get("extra") or {}).get("metadata") or run.get("metadata") or {})
        tags = list(run.get("tags") or ())
        children = [_as_mapping(c, f"{where}.child_runs[{i}]") for i, c in enumerate(run.get("child_runs") or ())]
        children.sort(key=lambda c: str(c.get("dotted_order") or c.get("start_time") or ""))
        if kind == "tool":
            handler.on_tool_start(None, str(inputs.get("input", inputs)), run_id=run_id, parent_run_id=parent,
                                  inputs=inputs, name=name, tool_call_id=metadata.get("tool_call_id"))
            if error:
                handler.on_tool_error(RemoteError(str(error)), run_id=run_id, parent_run_id=parent)
            else:
                handler.on_tool_end(outputs.get("output", outputs), run_id=run_id, parent_run_id=parent)
            return
        if kind in ("llm", "chat_model"):
            messages = inputs.get("messages") or [inputs.get("prompts") or []]
            handler.on_chat_model_start(None, messages if messages and isinstance(messages[0], list) else [messages],
                                        run_id=run_id, parent_run_id=parent, name=name)
            if error:
                handler.on_llm_error(RemoteError(str(error)), run_id=run_id, parent_run_id=parent)
            else:
                generations = [[SimpleNamespace(message=g.get("message", g), text=g.get("text")) for g in batch]
                               for batch in outputs.get("generations") or [[outputs]]]
                handler.on_llm_end(SimpleNamespace(generations=generations, llm_output=outputs.get("llm_output")),
                                   run_id=run_id, parent_run_id=parent)
            return
        if kind == "retriever":
            handler.on_retriever_start(None, str(inputs.get("query", "")), run_id=run_id, parent_run_id=parent, name=name)
            handler.on_retriever_end(outputs.get("documents") or [], run_id=run_id, parent_run_id=parent)
            return
        if not _step_tag(run) and any(_step_tag(c) for c in children):
            handler.record_graph_start(run_id, parent, name, inputs, None)
        else:
            handler.on_chain_start(None, inputs, run_id=run_id, parent_run_id=parent, tags=tags, metadata=metadata,
                                   name=name)
        for index, child in enumerate(children):
            visit(child, run_id, f"{where}.child_runs[{index}]")
        if error:
            handler.on_chain_error(RemoteError(str(error)), run_id=run_id, parent_run_id=parent)
        else:
            handler.on_chain_end(outputs, run_id=run_id, parent_run_id=parent)

    visit(run_tree, None, "run_tree")
    return snap.finalize()  # type: ignore[no-any-return]
