"""The LangChain callback handler that records a LangGraph run into a `Recorder`.

Owns the mapping from callback events (chain/tool/model/retriever) to journal events: which chain runs
are graph nodes, which node ran a tool or model call, and the static edges of each graph that ran.
"""

from __future__ import annotations

import sys
import threading
import weakref
from collections import deque
from collections.abc import Sequence
from typing import Any
from uuid import UUID

from langchain_core.callbacks import BaseCallbackHandler
from langgraph.types import Command, Send

from pytest_auditfence.capturing.recorder import MAX_PENDING, META_FIELDS, NO_CONTENT, Deferred, Recorder

END_NODE = "__end__"
START_NODE = "__start__"
# How far up the call stack a graph's own stream()/astream() sits when it reports its chain start.
_GRAPH_FRAME_DEPTH = 12


def namespaced_name(checkpoint_ns: str | None, node: str) -> str:
    """'research:<task id>|search:<task id>' -> 'research/search'; numeric segments (a repeated call of a
    subgraph inside one node) and task ids are dropped so names are stable across runs."""
    if not checkpoint_ns or "|" not in checkpoint_ns:
        return node  # a top-level node ('write:<task id>'): the hot path of every node start
    parts = [seg.split(":", 1)[0] for seg in checkpoint_ns.split("|") if seg and not seg.isdigit()]
    return "/".join(parts) or node


def _find_running_graph() -> Any | None:
    """The Pregel whose stream()/astream() is reporting this chain start, if it is a graph run.

    A graph run's chain start is called from its own (a)stream a few frames up, before that frame has bound
    `run_manager`; a runnable inside a node also has an (a)stream up its stack, but one whose run_manager
    is set already, so it is never mistaken for a graph."""
    try:
        from langgraph.pregel import Pregel
    except ImportError:  # pragma: no cover - langgraph is a dependency
        return None
    frame = sys._getframe(2)
    for _ in range(_GRAPH_FRAME_DEPTH):
        if frame is None:
            return None
        if frame.f_code.co_name in ("stream", "astream"):
            candidate = frame.f_locals.get("self")
            if isinstance(candidate, Pregel):
                local_vars = frame.f_locals
                if local_vars.get("run_manager") is None and "graph_callback_manager" not in local_vars:
                    return candidate
                return None
        frame = frame.f_back
    return None


def static_structure(graph: Any) -> dict[str, Any]:
    """Node names, static (unconditional) edges and nodes that are compiled subgraphs of a compiled graph.

    `edges` is None when the graph does not expose them; topology then falls back to step order."""
    from langgraph.pregel import Pregel

    nodes_map = getattr(graph, "nodes", {}) or {}
    nodes = sorted(str(n) for n in nodes_map)
    subgraphs = sorted(str(n) for n, spec in nodes_map.items() if isinstance(getattr(spec, "bound", None), Pregel))
    builder = getattr(graph, "builder", None)
    edges: set[tuple[str, str]] = set()
    if builder is not None and hasattr(builder, "edges"):
        edges.update((str(a), str(b)) for a, b in builder.edges)
        for starts, end in getattr(builder, "waiting_edges", ()):
            edges.update((str(a), str(end)) for a in starts)
    else:
        try:
            drawn = graph.get_graph()
        except Exception:  # a graph that cannot draw itself still captures; topology falls back to steps
            return {"nodes": nodes, "edges": None, "subgraph_nodes": subgraphs}
        edges.update((e.source, e.target) for e in drawn.edges if not e.conditional)
    return {"nodes": nodes, "edges": [list(e) for e in sorted(edges)], "subgraph_nodes": subgraphs}


# A compiled graph does not change: its structure is worked out once per process, not once per capture
# (a test suite captures the same module-level graph many times).
_STRUCTURES: weakref.WeakKeyDictionary[Any, dict[str, Any]] = weakref.WeakKeyDictionary()


def _shared_structure(graph: Any) -> dict[str, Any]:
    try:
        cached = _STRUCTURES.get(graph)
    except TypeError:  # not weak-referenceable: compute it for this capture only
        return static_structure(graph)
    if cached is None:
        cached = _STRUCTURES[graph] = static_structure(graph)
    return cached


def _routes(value: Any) -> list[str] | None:
    """Targets named by a branch function's or Command's routing value, or None if it is not one."""
    if isinstance(value, Send):
        return [value.node]
    if isinstance(value, str):
        return [value]
    if isinstance(value, list | tuple) and value:
        targets: list[str] = []
        for item in value:
            if isinstance(item, Send):
                targets.append(item.node)
            elif isinstance(item, str):
                targets.append(item)
            else:
                return None
        return targets
    return None


def _command_parts(output: Any) -> tuple[Any, list[str]]:
    """Split a node output into (state update, Command goto targets)."""
    if isinstance(output, dict):
        return output, []
    if isinstance(output, Command):
        return output.update, _routes(output.goto) or []
    if isinstance(output, list | tuple) and any(isinstance(o, Command) for o in output):
        updates: list[Any] = []
        targets: list[str] = []
        for item in output:
            if isinstance(item, Command):
                updates.append(item.update)
                targets.extend(_routes(item.goto) or [])
            else:
                updates.append(item)
        return updates, targets
    return output, []


# Values a node, tool or retriever hands over are copied when the event happens, because a later node may
# change them in place (append to a list held in state, edit a record a tool returned). Containers are copied
# all the way down; strings, numbers and LangChain messages (which LangChain treats as immutable once made)
# are kept by reference, so the copy costs one pass over the containers and nothing per message; any other
# object (a pydantic state, a dataclass, a Document) is converted to JSON data at once.
_LEAF_TYPES: set[type] = {str, int, float, bool, type(None), bytes, complex}
_CONVERTED_TYPES: set[type] = set()
_MAX_FREEZE_DEPTH = 40


def _classify(kind: type) -> bool:
    """True if values of `kind` are kept by reference; False if they are converted to JSON data now."""
    try:
        from langchain_core.messages import BaseMessage
    except ImportError:  # pragma: no cover - langchain-core is a dependency
        BaseMessage = ()  # type: ignore[assignment,misc]  # noqa: N806
    if issubclass(kind, BaseMessage) or issubclass(kind, str | int | float | bytes):
        _LEAF_TYPES.add(kind)
        return True
    _CONVERTED_TYPES.add(kind)
    return False


def _frozen(value: Any, depth: int = 0) -> Any:
    """`value` as it is now, safe from later in-place changes (see above)."""
    kind = type(value)
    if kind in _LEAF_TYPES:
        return value
    if kind is dict:
        if _LEAF_TYPES.issuperset(map(type, value.values())):  # checked in C: the common case stays cheap
            return dict(value)
        return {k: v if type(v) in _LEAF_TYPES else _frozen(v, depth + 1) for k, v in value.items()}
    if kind is list:
        if _LEAF_TYPES.issuperset(map(type, value)):  # a list of messages: one C-level pass
            return list(value)
        copied = list(value)
        for i, item in enumerate(copied):
            if type(item) not in _LEAF_TYPES:
                copied[i] = _frozen(item, depth + 1)
        return copied
    if kind is tuple:
        return tuple(_frozen(item, depth + 1) for item in value)
    if depth > _MAX_FREEZE_DEPTH or kind in _CONVERTED_TYPES or not _classify(kind):
        from pytest_auditfence.textfmt import to_jsonable

        return to_jsonable(value)
    return value


def _changed_in_place(live: Any, before: Any) -> dict[str, Any] | None:
    """The top-level keys of a node's input whose values the node changed in place, with their new values."""
    if type(live) is not dict or type(before) is not dict:
        from pytest_auditfence.textfmt import to_jsonable

        now, then = to_jsonable(live), to_jsonable(before)
        if now == then:
            return None
        if isinstance(now, dict) and isinstance(then, dict):
            return {k: v for k, v in now.items() if then.get(k, _MISSING) != v} or None
        return {"state": now}
    try:
        if live == before:  # identical leaves compare by identity: cheap when nothing changed
            return None
        return {k: _frozen(v) for k, v in live.items() if k not in before or before[k] != v} or None
    except Exception:  # noqa: BLE001 - values whose == raises (arrays) are compared as JSON data
        from pytest_auditfence.textfmt import to_jsonable

        return _changed_in_place(to_jsonable(live), to_jsonable(before))


_MISSING: Any = object()
CHANGED_IN_PLACE = "changed in place"


def _with_changes(update: Any, changes: dict[str, Any]) -> Any:
    """A node's recorded output: its returned update plus what it changed in its input in place."""
    if isinstance(update, dict):
        return {**update, CHANGED_IN_PLACE: changes}
    if update is None:
        return {CHANGED_IN_PLACE: changes}
    return {"update": update, CHANGED_IN_PLACE: changes}


SENT = "sent"


def _sends_of(output: Any) -> list[Send]:
    commands = [output] if isinstance(output, Command) else [
        o for o in output if isinstance(o, Command)] if isinstance(output, list | tuple) else []
    sends: list[Send] = []
    for command in commands:
        goto = command.goto if isinstance(command.goto, list | tuple) else [command.goto]
        sends.extend(g for g in goto if isinstance(g, Send))
    return sends


_NO_ROUTES: tuple[str, ...] = ()


def _node_end(outputs: Any, live: tuple[Any, Any]) -> tuple[Any, Any]:
    """(update, routes) of a node's end as it was when it happened: its update (copied), its routes, what it
    changed in place. Routes are () for the usual dict output (a list is made when the event is resolved)."""
    if type(outputs) is dict:  # the usual node output: a state update, no Command routing
        update, routes = outputs, _NO_ROUTES
        frozen = _frozen(update)
    else:
        update, goto = _command_parts(outputs)
        routes = sorted(set(goto))
        frozen = _frozen(update)
        sent = _sends_of(outputs)
        if sent:  # Command(goto=[Send(node, arg)]): what the node handed each task is its output too
            frozen = {**(frozen if isinstance(frozen, dict) else {} if frozen is None else {"update": frozen}),
                      SENT: _frozen(sent)}
    changes = _changed_in_place(*live)
    return (frozen if changes is None else _with_changes(frozen, changes)), routes


# About how many values a raw event lays in the handler's deque (its step and arguments).
_VALUES_PER_EVENT = 5
_ARITIES: dict[Any, int] = {}


def _arity(step: Any) -> int:
    """How many arguments a raw event's step takes after the handler (the values that follow it)."""
    n = _ARITIES.get(step)
    if n is None:
        n = _ARITIES[step] = step.__code__.co_argcount - 1
    return n


class _Duplicate(Exception):
    """The same call reported twice (the handler was attached twice); the second report is dropped."""


def _model_parts(response: Any) -> tuple[Any, Any]:
    """(message(s) out, token usage) of an LLMResult."""
    outputs: list[Any] = []
    usage: Any = None
    for generations in getattr(response, "generations", []) or []:
        for gen in generations:
            message = getattr(gen, "message", None)
            outputs.append(message if message is not None else getattr(gen, "text", None))
            usage = usage or getattr(message, "usage_metadata", None)
    usage = usage or (getattr(response, "llm_output", None) or {}).get("token_usage")
    return (outputs[0] if len(outputs) == 1 else outputs), usage


def _model_output(response: Any) -> dict[str, Any]:
    """{'output': message(s) out, 'usage': token usage} of an LLMResult."""
    output, usage = _model_parts(response)
    return {"output": output, "usage": usage}


def _handed_to_parent(error: BaseException) -> Command | None:
    """The Command of a `Command(graph=Command.PARENT, ...)` that LangGraph raises out of a subgraph node."""
    if type(error).__name__ != "ParentCommand":
        return None
    command = error.args[0] if error.args else None
    return command if isinstance(command, Command) else None


def _error_text(error: BaseException) -> str:
    interrupts = getattr(error, "args", ())
    if type(error).__name__ in ("GraphInterrupt", "NodeInterrupt") and interrupts:
        # interrupt() pauses the node; the Interrupt's id changes per run, so only the values are kept
        values = [getattr(i, "value", i) for group in interrupts for i in (group if isinstance(group, tuple | list) else [group])]
        return f"{type(error).__name__}: interrupt({', '.join(repr(v) for v in values)})"
    return f"{type(error).__name__}: {error}"


def _in_tool_meta(meta: tuple[Any, ...], in_tool: Any) -> dict[str, Any]:
    """The meta of a run inside a tool's run, naming that tool run. A run id, so meta and not the payload:
    the payload is what the journal digest covers, and it must be the same in every rerun."""
    return {**dict(zip(META_FIELDS, meta)), "in_tool": in_tool}


def _key(run_id: Any) -> Any:
    """The handler's dict key of a run: a UUID's int (UUID.__hash__ is a Python-level call, and a node's
    callbacks hash about 17 times); importers' string ids are their own key. The callbacks keep the key, not
    the UUID: an int is no object for the garbage collector, and LangChain frees the UUID after the run."""
    return getattr(run_id, "int", run_id)


def _uuid_text(number: int) -> str:
    """`str(UUID(int=number))`, without making the UUID."""
    digits = f"{number:032x}"
    return f"{digits[:8]}-{digits[8:12]}-{digits[12:16]}-{digits[16:20]}-{digits[20:]}"


class CaptureHandler(BaseCallbackHandler):
    """Records graph nodes, tool calls, chat model calls and retriever results of any run it is attached to.

    Sync on purpose, with `run_inline`: LangChain then calls it in the event loop's own thread during
    ainvoke/astream (no executor hop), and in the worker threads of parallel branches during invoke.

    Two halves. The callbacks (the hot path, paid during the user's run) only append the raw arguments to a
    deque, plus the two things that cannot wait: a copy of a node's input state (a node may change the
    state it was given) and, for a chain that is not a node, the graph whose stream() is on the call stack.
    `resolve()` works the raw events out into journal events (which node ran a call, node names, routes,
    duplicates); the Recorder calls it before it queues anything else and before it writes, so the journal
    keeps the order in which things happened."""

    run_inline = True
    raise_error = False
    # LangChain reads these for every event and handler; plain attributes instead of the base properties.
    ignore_chain = False
    ignore_llm = False
    ignore_chat_model = False
    ignore_retriever = False
    ignore_agent = False
    ignore_retry = False
    ignore_custom_event = False

    def __init__(self, recorder: Recorder) -> None:
        super().__init__()
        self._rec = recorder
        # (resolver function, *arguments) per callback, in arrival order; deque append/popleft are atomic,
        # so parallel branches' threads append while another thread resolves.
        # Raw events laid flat, `fn, arg, arg, ...` (fn's arity tells where the next one starts): one deque
        # extend per callback keeps no tuple alive until the flush (see `_push`).
        self._raw: deque[Any] = deque()
        self._resolving = threading.RLock()
        # Keyed by _key(run id); values that name runs are such keys too (_id_text gives the journal's text).
        self._owner: dict[Any, Any] = {}  # any run -> the node task run that contains it
        self._tasks: dict[Any, str] = {}  # node task run -> namespaced node name
        self._task_graph: dict[Any, Any] = {}  # node task run -> the graph run it belongs to
        self._graph_nodes: dict[Any, frozenset[str]] = {}  # graph run -> its node names
        self._structures: dict[int, tuple[Any, dict[str, Any]]] = {}
        self._calls: dict[Any, dict[str, Any]] = {}  # tool/model/retriever run -> stable fields
        # node run -> (its input object, a copy taken at its start): what it changed in place shows at its end
        self._live: dict[Any, tuple[Any, Any]] = {}
        self._in_tool: dict[Any, Any] = {}  # any run inside a tool's run -> that tool run
        self._ended: set[Any] = set()
        self._texts: dict[Any, Any] = {}  # run key -> its text in the journal, made once per run
        recorder.add_source(self.resolve)

    # -- resolution -------------------------------------------------------------------------------
    def resolve(self) -> None:
        """Work the raw events received so far into journal events (queued on the Recorder, in order)."""
        raw = self._raw
        if not raw:
            return
        with self._resolving:
            pop = raw.popleft
            while raw:
                try:
                    step = pop()
                except IndexError:  # another thread took the last one
                    return
                # A callback's extend() is atomic, so the whole event is here once its first value is.
                args = [pop() for _ in range(_arity(step))]
                try:
                    step(self, *args)
                except _Duplicate:
                    pass
                except Exception as exc:  # noqa: BLE001 - recorded, and the capture is marked incomplete
                    self._rec.fail(getattr(step, "__name__", "callback").lstrip("_"), exc)

    def _push(self, item: tuple[Any, ...]) -> None:
        """Queue a raw event `(fn, *args)`: its values go flat into the deque (one C-level extend, atomic
        under the GIL), so the tuple is freed at once. Each object a callback keeps alive until the flush
        brings the next garbage collection of the user's run closer."""
        self._raw.extend(item)
        if len(self._raw) > _VALUES_PER_EVENT * MAX_PENDING:  # a long run: written in batches, memory bounded
            self._rec.flush()

    # -- helpers -------------------------------------------------------------------------------
    def _structure(self, graph: Any) -> dict[str, Any]:
        cached = self._structures.get(id(graph))
        if cached is None or cached[0] is not graph:
            cached = (graph, _shared_structure(graph))
            self._structures[id(graph)] = cached
        return cached[1]

    def _node_of(self, task: Any) -> str | None:
        return self._tasks.get(task) if task is not None else None

    def _id_text(self, key: Any) -> Any:
        """A run's id as the journal writes it (a UUID's canonical text; an importer's id as it is)."""
        if key is None:
            return None
        text = self._texts.get(key)
        if text is None:
            text = self._texts[key] = _uuid_text(key) if type(key) is int else key
        return text

    def _meta_of(self, run: Any, parent: Any, task: Any) -> tuple[Any, ...]:
        text = self._id_text
        return (text(run), text(parent), text(task))

    def _start_call(
        self, key: Any, parent: Any, **fields: Any
    ) -> tuple[dict[str, Any], Any]:
        """(stable fields of the call, the start event's meta) - the meta as _meta() would build it."""
        if key in self._calls:
            raise _Duplicate
        task = self._owner.get(parent) if parent is not None else None
        self._owner[key] = task
        # Never mutated afterwards, so the start and end events may share it.
        info = {"node": self._node_of(task), **fields}
        in_tool = self._in_tool.get(parent) if parent is not None else None
        self._calls[key] = info
        if "tool" in fields:
            self._in_tool[key] = key
        elif in_tool is not None:
            self._in_tool[key] = in_tool
            # A model called by a tool's own code: the tool's output is then model-derived, not observed.
            return info, _in_tool_meta(self._meta_of(key, parent, task), self._id_text(in_tool))
        return info, self._meta_of(key, parent, task)

    def _meta(self, key: Any, parent: Any) -> tuple[Any, ...]:
        # A tuple: the Recorder makes the journal's meta object of it when it writes the line.
        return self._meta_of(key, parent, self._owner.get(key))

    def current_task(self) -> tuple[str | None, str | None]:
        """(task run id, node name) of the LangGraph node running in this context, if this handler saw it."""
        from langchain_core.runnables.config import var_child_runnable_config

        config = var_child_runnable_config.get() or {}
        manager = config.get("callbacks")
        parent = getattr(manager, "parent_run_id", None)
        if parent is None:
            return (None, None)
        self.resolve()
        with self._resolving:
            task = self._owner.get(_key(parent))
            return (self._id_text(task), self._node_of(task))

    # -- chains: graphs, nodes, branch functions -------------------------------------------------
    def on_chain_start(
        self,
        serialized: dict[str, Any] | None,
        inputs: Any,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        try:
            step = metadata.get("langgraph_step") if metadata else None
            # LangGraph tags a node's own run (not the runnables inside it) with its step.
            key = getattr(run_id, "int", run_id)
            if step is not None and tags and f"graph:step:{step}" in tags:
                frozen = _frozen(inputs)
                self._live[key] = (inputs, frozen)
                # The fields it needs, not the metadata dict (a fresh one per run, freed if not kept here).
                md = metadata
                self._raw.extend((CaptureHandler._node_started, key, getattr(parent_run_id, "int", parent_run_id),
                                  md.get("langgraph_node"),
                                  md.get("langgraph_checkpoint_ns") or md.get("checkpoint_ns") or "", step,
                                  md.get("langgraph_triggers"), md.get("langgraph_path"), frozen))
                return
            # Only now, while its stream() is on the stack, can a graph run be told from a runnable in a node.
            graph = _find_running_graph()
            content = _frozen(inputs) if graph is not None else NO_CONTENT
            self._raw.extend((CaptureHandler._chain_started, key, getattr(parent_run_id, "int", parent_run_id),
                              kwargs.get("name"), graph, content))
        except Exception as exc:  # noqa: BLE001 - recorded, and the capture is marked incomplete
            self._rec.fail("on_chain_start", exc)

    def _chain_started(self, run_id: Any, parent_run_id: Any, name: str | None, graph: Any, content: Any) -> None:
        key = _key(run_id)
        if key in self._owner:
            return  # the same handler attached twice (config() and instrument_graph) sees events twice
        owner = self._owner.get(_key(parent_run_id)) if parent_run_id is not None else None
        self._owner[key] = owner
        in_tool = self._in_tool.get(_key(parent_run_id)) if parent_run_id is not None else None
        if in_tool is not None:
            self._in_tool[key] = in_tool
        if graph is None and parent_run_id is not None:
            return
        structure = self._structure(graph) if graph is not None else None
        self._graph_started(run_id, parent_run_id, name or "graph", content, structure)

    def record_graph_start(
        self, run_id: Any, parent_run_id: Any, name: str, inputs: Any, structure: dict[str, Any] | None
    ) -> None:
        """Record the start of a graph run (used by importers, which know graphs from the run tree)."""
        self._push((CaptureHandler._graph_started, _key(run_id), _key(parent_run_id), name, _frozen(inputs), structure))

    def _graph_started(
        self, run_id: Any, parent_run_id: Any, name: str, content: Any, structure: dict[str, Any] | None
    ) -> None:
        key = _key(run_id)
        owner = self._owner.get(_key(parent_run_id)) if parent_run_id is not None else None
        self._owner[key] = owner
        structure = structure or {"nodes": [], "edges": None, "subgraph_nodes": []}
        self._graph_nodes[key] = frozenset(structure["nodes"])
        payload: dict[str, Any] = {"graph": name, **structure, "node": self._node_of(owner)}
        in_tool = self._in_tool.get(key)  # an agent behind a tool: numbered by the tool call that ran it
        meta = self._meta(run_id, parent_run_id)
        self._rec.queue("graph_start", payload, meta if in_tool is None else _in_tool_meta(meta, self._id_text(in_tool)),
                        content if owner is None and content is not NO_CONTENT else NO_CONTENT)

    def _node_started(self, run_id: Any, parent_run_id: Any, node: Any, ns: str, step: Any, triggers: Any,
                      path: Any, content: Any) -> None:
        key = _key(run_id)
        if key in self._tasks:
            return
        node = str(node)
        name = namespaced_name(ns, node)
        self._owner[key] = key
        self._tasks[key] = name
        in_tool = self._in_tool.get(_key(parent_run_id)) if parent_run_id is not None else None
        if in_tool is not None:  # a graph run by a tool's code (an agent behind a tool)
            self._in_tool[key] = in_tool
        self._task_graph[key] = parent_run_id
        payload = {
            "node": name,
            "local": node,
            "step": step,
            "triggers": sorted(map(str, triggers or ())),
            "path": list(map(str, path or ())),
        }
        meta = (*self._meta_of(key, parent_run_id, key), ns)
        if node == START_NODE:  # its input is the graph's input, recorded with graph_start
            payload["blob"] = None
            self._rec.queue("node_start", payload, meta)
        else:
            self._rec.queue("node_start", payload, meta, content)

    def on_chain_end(self, outputs: Any, *, run_id: UUID, parent_run_id: UUID | None = None, **kwargs: Any) -> None:
        key = getattr(run_id, "int", run_id)
        live = self._live.pop(key, None)
        parent = getattr(parent_run_id, "int", parent_run_id)
        if live is not None:  # a node's own run: its output and its input as they are at this moment
            try:
                update, routes = _node_end(outputs, live)
            except Exception as exc:  # noqa: BLE001 - recorded, and the capture is marked incomplete
                self._rec.fail("on_chain_end", exc)
            else:  # one raw item, nothing else kept alive until the flush
                self._push((CaptureHandler._node_ended, update, routes, key, parent))
                return
        self._push((CaptureHandler._chain_ended, outputs, key, parent))

    def _node_ended(self, update: Any, routes: Any, run_id: Any, parent_run_id: Any) -> None:
        """The end of a node's own run, worked out at its callback (`_node_end`)."""
        key = _key(run_id)
        name = self._tasks.get(key)
        if name is None:  # not known as a node task after all: what any other chain end would do
            self._chain_ended(None, run_id, parent_run_id)
            return
        self._end_node(key, name, update, list(routes), run_id, parent_run_id)

    def _end_node(self, key: Any, name: str, update: Any, routes: list[str], run_id: Any,
                  parent_run_id: Any) -> None:
        """Queue a node task's end once (a second report of it is dropped). The node's own run is its task: meta
        as _meta() would build it, without the lookups."""
        if key in self._ended:
            return
        self._ended.add(key)
        self._rec.queue("node_end", {"node": name, "routes": routes}, self._meta_of(key, parent_run_id, key), update)

    def _chain_ended(self, outputs: Any, run_id: Any, parent_run_id: Any) -> None:
        key = _key(run_id)
        name = self._tasks.get(key)
        if name is not None:
            if key in self._ended:
                return
            # a node end seen only by an importer, or a hand-off raised to the parent: nothing changes it any more
            update, goto = _command_parts(outputs)
            self._end_node(key, name, update, sorted(set(goto)), run_id, parent_run_id)
            return
        if key in self._graph_nodes:
            if key not in self._ended:
                self._ended.add(key)
                self._rec.queue("graph_end", {"ok": True}, self._meta(run_id, parent_run_id))
            return
        task = self._owner.get(key)
        if task is None:
            return
        targets = _routes(outputs)
        if not targets:
            return
        task_key = _key(task)
        known = self._graph_nodes.get(_key(self._task_graph.get(task_key)), frozenset())
        if all(t in known or t == END_NODE for t in targets):
            self._rec.queue("route", {"node": self._tasks[task_key], "targets": sorted(set(targets))},
                            self._meta(run_id, parent_run_id))

    def on_chain_error(
        self, error: BaseException, *, run_id: UUID, parent_run_id: UUID | None = None, **kwargs: Any
    ) -> None:
        key, parent = _key(run_id), _key(parent_run_id)
        live = self._live.pop(key, None)
        command = _handed_to_parent(error)
        if live is not None and command is not None:  # a hand-off to the parent graph: the node's output
            try:
                self._push((CaptureHandler._node_ended, *_node_end(command, live), key, parent))
                return
            except Exception as exc:  # noqa: BLE001 - recorded, and the capture is marked incomplete
                self._rec.fail("on_chain_error", exc)
        self._push((CaptureHandler._chain_failed, error, key, parent))

    def _chain_failed(self, error: BaseException, run_id: Any, parent_run_id: Any) -> None:
        key = _key(run_id)
        if key in self._ended:
            return
        command = _handed_to_parent(error)
        if command is not None and (key in self._tasks or key in self._graph_nodes):
            # Command(graph=Command.PARENT): LangGraph raises it to hand an update and a goto to the parent
            # graph. It is how the node (and its subgraph run) ends, not an error.
            self._chain_ended(command, run_id, parent_run_id)
            return
        self._ended.add(key)
        name = self._tasks.get(key)
        if name is not None:
            payload = {"node": name, "error": self._rec.text(_error_text(error))}
            self._rec.queue("node_error", payload, self._meta(run_id, parent_run_id))
        elif key in self._graph_nodes:
            payload = {"ok": False, "error": self._rec.text(_error_text(error))}
            self._rec.queue("graph_end", payload, self._meta(run_id, parent_run_id))

    # -- tools ------------------------------------------------------------------------------------
    def on_tool_start(
        self,
        serialized: dict[str, Any] | None,
        input_str: str,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        inputs: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        tool = kwargs.get("name") or (serialized or {}).get("name") or "tool"
        args = _frozen(inputs) if inputs is not None else input_str
        self._push((CaptureHandler._tool_started, _key(run_id), _key(parent_run_id), str(tool),
                    kwargs.get("tool_call_id"), args))

    def _tool_started(self, run_id: Any, parent_run_id: Any, tool: str, call_id: Any, args: Any) -> None:
        info, meta = self._start_call(run_id, parent_run_id, tool=tool, tool_call_id=call_id)
        self._rec.queue("tool_start", info, meta, args)

    def on_tool_end(self, output: Any, *, run_id: UUID, parent_run_id: UUID | None = None, **kwargs: Any) -> None:
        # A tool returning Command (a hand-off, `transfer_to_bob`) carries what the agent wrote, not data.
        handoff = isinstance(output, Command)
        if hasattr(output, "tool_call_id") and hasattr(output, "content"):
            output = (output.tool_call_id, _frozen(output.content), getattr(output, "status", "success"))
        else:
            output = (None, _frozen(output), "success")
        self._push((CaptureHandler._tool_ended, output, handoff, _key(run_id), _key(parent_run_id)))

    def _tool_ended(self, output: tuple[Any, Any, str], handoff: bool, run_id: Any,
                    parent_run_id: Any) -> None:
        info = self._calls.pop(_key(run_id), None) or {"node": None, "tool": "tool", "tool_call_id": None}
        call_id, content, status = output
        # A ToolMessage carries the call id LangChain matched; its content is the tool's output.
        if call_id is not None:
            info = {**info, "tool_call_id": info.get("tool_call_id") or call_id}
            if status == "error":
                payload = {**info, "error": self._rec.text(str(content))}
                self._rec.queue("tool_error", payload, self._meta(run_id, parent_run_id))
                return
        if handoff:
            info = {**info, "handoff": True}
        self._rec.queue("tool_end", info, self._meta(run_id, parent_run_id), content)

    def on_tool_error(
        self, error: BaseException, *, run_id: UUID, parent_run_id: UUID | None = None, **kwargs: Any
    ) -> None:
        self._push((CaptureHandler._tool_failed, error, _key(run_id), _key(parent_run_id)))

    def _tool_failed(self, error: BaseException, run_id: Any, parent_run_id: Any) -> None:
        info = self._calls.pop(_key(run_id), None) or {"node": None, "tool": "tool", "tool_call_id": None}
        payload = {**info, "error": self._rec.text(_error_text(error))}
        self._rec.queue("tool_error", payload, self._meta(run_id, parent_run_id))

    # -- chat models ------------------------------------------------------------------------------
    def on_chat_model_start(
        self,
        serialized: dict[str, Any] | None,
        messages: list[list[Any]],
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        **kwargs: Any,
    ) -> None:
        content = messages[0] if len(messages) == 1 else messages
        self._raw.extend((CaptureHandler._model_started, getattr(run_id, "int", run_id),
                          getattr(parent_run_id, "int", parent_run_id), kwargs.get("name"), serialized, content))

    def on_llm_start(
        self,
        serialized: dict[str, Any] | None,
        prompts: list[str],
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        **kwargs: Any,
    ) -> None:
        self._push((CaptureHandler._model_started, _key(run_id), _key(parent_run_id), kwargs.get("name") or
                    (serialized or {}).get("name") or "llm", serialized, list(prompts)))

    def _model_started(
        self, run_id: Any, parent_run_id: Any, name: str | None, serialized: Any, content: Any
    ) -> None:
        model = name or (serialized or {}).get("name") or "model"
        info, meta = self._start_call(run_id, parent_run_id, model=str(model))
        self._rec.queue("model_start", info, meta, content)

    def on_llm_end(self, response: Any, *, run_id: UUID, parent_run_id: UUID | None = None, **kwargs: Any) -> None:
        # Read now, not at the flush: the result (LLMResult, its generations, their pydantic field sets) would
        # otherwise stay alive until the flush, and every object kept alive brings the next collection closer.
        # Its two parts, not their dict: the dict is made when the event is resolved.
        try:
            output, usage = _model_parts(response)
        except Exception:  # noqa: BLE001 - an odd result: read again at the flush, which records the failure
            output, usage = Deferred(_model_output, response), None
        self._push((CaptureHandler._model_ended, output, usage, getattr(run_id, "int", run_id),
                    getattr(parent_run_id, "int", parent_run_id)))

    def _model_ended(self, output: Any, usage: Any, run_id: Any, parent_run_id: Any) -> None:
        info = self._calls.pop(_key(run_id), None) or {"node": None, "model": "model"}
        content = output if type(output) is Deferred else {"output": output, "usage": usage}
        self._rec.queue("model_end", info, self._meta(run_id, parent_run_id), content)

    def on_llm_error(
        self, error: BaseException, *, run_id: UUID, parent_run_id: UUID | None = None, **kwargs: Any
    ) -> None:
        self._push((CaptureHandler._model_failed, error, _key(run_id), _key(parent_run_id)))

    def _model_failed(self, error: BaseException, run_id: Any, parent_run_id: Any) -> None:
        info = self._calls.pop(_key(run_id), None) or {"node": None, "model": "model"}
        payload = {**info, "error": self._rec.text(_error_text(error))}
        self._rec.queue("model_error", payload, self._meta(run_id, parent_run_id))

    # -- retrievers -------------------------------------------------------------------------------
    def on_retriever_start(
        self,
        serialized: dict[str, Any] | None,
        query: str,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        **kwargs: Any,
    ) -> None:
        retriever = kwargs.get("name") or (serialized or {}).get("name") or "retriever"
        self._push((CaptureHandler._retriever_started, _key(run_id), _key(parent_run_id), str(retriever), str(query)))

    def _retriever_started(self, run_id: Any, parent_run_id: Any, retriever: str, query: str) -> None:
        # Its own event, so that calls that overlapped are told from calls made one after another.
        self._rec.queue("retriever_start", *self._start_call(run_id, parent_run_id, retriever=retriever,
                                                             query=self._rec.text(query)))

    def on_retriever_end(
        self, documents: Sequence[Any], *, run_id: UUID, parent_run_id: UUID | None = None, **kwargs: Any
    ) -> None:
        self._push((CaptureHandler._retriever_ended, [_frozen(d) for d in documents], _key(run_id),
                    _key(parent_run_id)))

    def _retriever_ended(self, documents: list[Any], run_id: Any, parent_run_id: Any) -> None:
        info = self._calls.pop(_key(run_id), None) or {"node": None, "retriever": "retriever", "query": None}
        self._rec.queue("retriever_end", info, self._meta(run_id, parent_run_id), documents)
