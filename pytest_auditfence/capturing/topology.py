"""Materialisation: a pure function from journal events to the manifest and the grep-friendly text files.

Owns who-fed-whom (steps, triggers, routes, static edges, subgraph namespaces), rounds, the stable file
names and the order of everything; no clock, no run ids and no order of concurrent events reach its output.
"""

from __future__ import annotations

import functools
import json
import re
from bisect import bisect_left
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from itertools import repeat
from typing import Any

from pytest_auditfence.capturing.store import sha256_text
from pytest_auditfence.manifest import (
    INPUT_NODE,
    REPORT_NAME,
    CaptureLevel,
    FileRecord,
    JournalSummary,
    Manifest,
    NodeRecord,
    StepRecord,
)
from pytest_auditfence.textfmt import (
    BINARY_MARKER,
    Placement,
    RenderCache,
    found_in_parts,
    render_parts,
    truncate,
    truncate_lines,
)

START_NODE = "__start__"
REPORT_NODE = "__report__"
_ENTRY = "\x00entry"  # placeholder sender: "whatever fed this graph instance"
_LEVEL_ORDER = list(CaptureLevel)


@dataclass
class _Graph:
    run: str
    seq: int
    owner: str | None  # the node task run that contains this graph run (None: a top-level run)
    edges: set[tuple[str, str]] | None
    subgraph_nodes: frozenset[str]
    input_blob: str | None
    level: str = CaptureLevel.INSTRUMENTED.value  # an imported run's input is as trustworthy as the import
    ok: bool | None = None
    error: str | None = None
    key: tuple[Any, ...] = ()
    in_tool: str | None = None  # the tool run whose code ran this graph (an agent behind a tool)
    end_seq: int | None = None


@dataclass
class _Task:
    run: str
    seq: int
    name: str
    local: str
    step: int
    triggers: list[str]
    path: str
    graph: str | None
    in_blob: str | None
    level: str
    out_blob: str | None = None
    error: str | None = None
    routes: set[str] = field(default_factory=set)
    ended: bool = False
    key: tuple[Any, ...] = ()
    round: int = 0

    @property
    def interrupted(self) -> bool:
        return self.error is not None and self.error.startswith(("GraphInterrupt", "NodeInterrupt"))


@dataclass
class _Call:
    kind: str  # tool | model | retriever
    run: str
    task: str | None
    node: str | None
    label: str  # tool name, model name or retriever name
    level: str
    start: dict[str, Any] = field(default_factory=dict)
    end: dict[str, Any] | None = None
    in_tool: str | None = None  # the tool run whose code made this call


@dataclass
class Materialized:
    manifest: Manifest
    files: dict[str, str]  # path relative to the trace folder -> text
    # path -> where the long strings of its rendered value sit in it (the text may since have been redacted
    # or cut: a hint to check against the text, see store.text_references)
    placed: dict[str, list[Placement]] = field(default_factory=dict)
    # path -> (an earlier file, characters, lines): the text's first lines are that file's first lines, as
    # rendered (a node's input repeats the state an earlier input began with): a hint the line sharer checks
    starts: dict[str, tuple[str, int, int]] = field(default_factory=dict)


class _SharedStarts:
    """Which earlier rendered file a file's text begins like: the last one whose parts (textfmt.render_parts)
    began with the same first part and the same second part object (a reused block: the first message of a
    repeated state), and how many characters and lines their common leading parts hold. Work at C speed only
    (list comparisons, which take identical parts as equal at once; counts of line breaks)."""

    def __init__(self) -> None:
        self._last: dict[tuple[str, int], tuple[str, list[str]]] = {}

    def start(self, path: str, parts: list[str]) -> tuple[str, int, int] | None:
        if len(parts) < 2:
            return None
        key = (parts[0], id(parts[1]))
        hit = self._last.get(key)
        self._last[key] = (path, parts)  # keeps parts[1] alive, so its id names it
        if hit is None:
            return None
        earlier, theirs = hit
        # a line break must follow the common parts in both texts: at most all but the last part of either
        low, high = 1, min(len(parts), len(theirs)) - 1
        if parts[:high] != theirs[:high]:
            while low < high:  # parts[:low] are common, parts[:high + 1] are not
                middle = (low + high + 1) // 2
                if parts[:middle] == theirs[:middle]:
                    low = middle
                else:
                    high = middle - 1
        count = high
        if count < 2:
            return None
        common = parts[:count]
        return earlier, sum(map(len, common)) + count - 1, sum(map(str.count, common, repeat("\n"))) + count


def _meta(event: dict[str, Any], key: str) -> Any:
    return (event.get("meta") or {}).get(key)


class _Builder:
    def __init__(self, events: list[dict[str, Any]], load: Callable[[str], Any]) -> None:
        self.load = load
        self.graphs: dict[str, _Graph] = {}
        self.tasks: dict[str, _Task] = {}
        self.calls: dict[str, _Call] = {}
        self.artifacts: dict[str, tuple[str, str]] = {}  # name -> (blob, level)
        self.report_blob: str | None = None
        self.dependencies: dict[str, list[str]] = {}
        self.capture_end: dict[str, Any] | None = None
        self.open_problems: list[str] = []
        self.model_runs_in_tools: set[str] = set()  # tool runs whose own run called a chat model
        self.call_numbers: dict[str, int] = {}  # call run -> its number among its node's calls (assign_keys)
        for event in events:
            handler = getattr(self, "_on_" + str(event.get("type")), None)
            if handler is not None:
                handler(event)

    # -- folding events ---------------------------------------------------------------------------
    def _on_graph_start(self, e: dict[str, Any]) -> None:
        run = str(_meta(e, "run_id"))
        edges = e.get("edges")
        self.graphs[run] = _Graph(
            run=run, seq=e["seq"], owner=_meta(e, "task"),
            edges=None if edges is None else {(str(a), str(b)) for a, b in edges},
            subgraph_nodes=frozenset(e.get("subgraph_nodes") or ()), input_blob=e.get("blob"),
            level=e.get("level") or CaptureLevel.INSTRUMENTED.value,
            in_tool=None if _meta(e, "in_tool") is None else str(_meta(e, "in_tool")),
        )

    def _on_graph_end(self, e: dict[str, Any]) -> None:
        graph = self.graphs.get(str(_meta(e, "run_id")))
        if graph is not None:
            graph.ok = bool(e.get("ok"))
            graph.error = e.get("error")
            graph.end_seq = e["seq"]

    def _on_node_start(self, e: dict[str, Any]) -> None:
        run = str(_meta(e, "run_id"))
        self.tasks[run] = _Task(
            run=run, seq=e["seq"], name=e["node"], local=e.get("local") or e["node"].rsplit("/", 1)[-1],
            step=int(e.get("step") or 0), triggers=list(e.get("triggers") or ()), path="|".join(e.get("path") or ()),
            graph=_meta(e, "parent_run_id"), in_blob=e.get("blob"),
            level=e.get("level") or CaptureLevel.INSTRUMENTED.value,
        )

    def _on_node_end(self, e: dict[str, Any]) -> None:
        task = self.tasks.get(str(_meta(e, "run_id")))
        if task is not None:
            task.out_blob, task.ended = e.get("blob"), True
            task.routes.update(e.get("routes") or ())

    def _on_node_error(self, e: dict[str, Any]) -> None:
        task = self.tasks.get(str(_meta(e, "run_id")))
        if task is not None:
            task.error, task.ended = e.get("error") or "error", True

    def _on_route(self, e: dict[str, Any]) -> None:
        task = self.tasks.get(str(_meta(e, "task")))
        if task is not None:
            task.routes.update(e.get("targets") or ())

    def _call_start(self, kind: str, label_key: str, e: dict[str, Any]) -> None:
        run = str(_meta(e, "run_id"))
        in_tool = _meta(e, "in_tool") or e.get("in_tool")  # in the payload in journals of earlier versions
        self.calls[run] = _Call(kind=kind, run=run, task=_meta(e, "task"), node=e.get("node"),
                                label=str(e.get(label_key) or kind), level=e.get("level") or "instrumented",
                                start=e, in_tool=None if in_tool is None else str(in_tool))

    def _call_end(self, e: dict[str, Any]) -> None:
        call = self.calls.get(str(_meta(e, "run_id")))
        if call is not None:
            call.end = e

    def _on_tool_start(self, e: dict[str, Any]) -> None:
        self._call_start("tool", "tool", e)

    _on_tool_end = _on_tool_error = _on_model_end = _on_model_error = _call_end

    def _on_model_start(self, e: dict[str, Any]) -> None:
        self._call_start("model", "model", e)
        in_tool = self.calls[str(_meta(e, "run_id"))].in_tool
        if in_tool:
            self.model_runs_in_tools.add(in_tool)

    def _on_retriever_start(self, e: dict[str, Any]) -> None:
        self._call_start("retriever", "retriever", e)

    def _on_retriever_end(self, e: dict[str, Any]) -> None:
        run = str(_meta(e, "run_id"))
        if run not in self.calls:  # a journal of an earlier version: the end was the call's only event
            self._call_start("retriever", "retriever", e)
        self.calls[run].end = e

    def _on_artifact(self, e: dict[str, Any]) -> None:
        self.artifacts[str(e["name"])] = (e["blob"], e.get("level") or CaptureLevel.DECLARED.value)

    def _on_report(self, e: dict[str, Any]) -> None:
        self.report_blob = e["blob"]

    def _on_dependency(self, e: dict[str, Any]) -> None:
        self.dependencies[str(e["node"])] = sorted({str(u) for u in e.get("upstream") or ()})

    def _on_capture_end(self, e: dict[str, Any]) -> None:
        self.capture_end = e

    # -- ordering -----------------------------------------------------------------------------------
    def assign_keys(self) -> None:
        """Sort keys that depend only on stable facts (step, name, Send index, content digests)."""
        for task in self.tasks.values():
            if task.graph is not None and task.graph not in self.graphs:
                # A graph whose start we could not see: its own instance, ordered by first sighting.
                self.graphs[task.graph] = _Graph(run=task.graph, seq=task.seq, owner=None, edges=None,
                                                 subgraph_nodes=frozenset(), input_blob=None)
        self.call_numbers = {call.run: number for call, number in _number_calls(self.calls.values(), self.load,
                                                                                 self.tasks)}
        siblings: dict[str | None, list[_Graph]] = defaultdict(list)
        for graph in self.graphs.values():
            siblings[graph.owner if graph.owner in self.tasks else None].append(graph)
        index = {g.run: i for group in siblings.values() for i, g in enumerate(self._instance_order(group))}

        def graph_key(graph: _Graph) -> tuple[Any, ...]:
            if not graph.key:
                owner = self.tasks.get(graph.owner) if graph.owner else None
                graph.key = (task_key(owner) if owner else ()) + ((index[graph.run],),)
            return graph.key

        def task_key(task: _Task) -> tuple[Any, ...]:
            if not task.key:
                graph = self.graphs.get(task.graph) if task.graph else None
                prefix = graph_key(graph) if graph else ((-1,),)
                task.key = prefix + ((task.step, task.local, task.path, task.in_blob or "", task.out_blob or ""),)
            return task.key

        for graph in self.graphs.values():
            graph_key(graph)
        by_name: dict[str, list[_Task]] = defaultdict(list)
        for task in self.tasks.values():
            task_key(task)
            if task.local != START_NODE:
                by_name[task.name].append(task)
        for group in by_name.values():
            # An attempt stopped by interrupt() is not a round: after the resume the node runs again from its
            # start. It shares the number of the round that completed it (a run left paused: the next one).
            number, paused = 0, []
            for task in sorted(group, key=lambda t: t.key):
                if task.interrupted:
                    paused.append(task)
                    continue
                number += 1
                for attempt in [*paused, task]:
                    attempt.round = number
                paused = []
            for attempt in paused:
                attempt.round = number + 1

    def _instance_order(self, graphs: list[_Graph]) -> list[_Graph]:
        """The graph runs of one host task (or the top-level runs) in an order every rerun shares: those a
        tool ran by the order of its call (an agent behind each of a ToolNode's parallel calls); then runs
        of which each ended before the next began (a subgraph invoked twice in a node, a run resumed after
        interrupt()) in that order; runs that overlapped (a batch in threads) by their input's digest."""
        groups: dict[tuple[Any, ...], list[_Graph]] = defaultdict(list)
        for graph in graphs:
            call = self.calls.get(graph.in_tool or "")
            groups[() if call is None else (call.kind, call.label, self.call_numbers[call.run])].append(graph)
        ordered: list[_Graph] = []
        for position in sorted(groups):
            group = sorted(groups[position], key=lambda g: g.seq)
            if any(a.end_seq is None or a.end_seq > b.seq for a, b in zip(group, group[1:], strict=False)):
                group.sort(key=lambda g: (g.input_blob or "", g.seq))
            ordered.extend(group)
        return ordered

    # -- topology -----------------------------------------------------------------------------------
    def edges(self) -> tuple[set[tuple[str, str]], dict[str, str], dict[str, set[str]]]:
        """(node edges, parent of each inner node, upstream steps of each step) from the runtime facts of
        every graph instance.

        One convention for every way into and out of a subgraph (a compiled subgraph used as a node, a
        subgraph invoked inside a node function, a hand-off between agents): the host node feeds the inner
        nodes of the subgraph's first step, and the inner nodes of its last step feed the host; what fed
        the host feeds the host; a hand-off (`Command(graph=Command.PARENT, goto=...)`) is an edge of the
        graph it routes in, from the node that handed over to the node it named. A step is one round of a
        node (`<node> r<round>`); its senders are steps of its own graph instance or its host's step, so a
        step is never fed by another instance of its subgraph or by anything that ran after it."""
        steps: dict[str, set[str]] = {}
        parents: dict[str, str] = {}
        senders_of: dict[str, set[str]] = {}  # task run -> the steps it was fed by
        members: dict[str, list[_Task]] = defaultdict(list)
        for task in self.tasks.values():
            members[task.graph or ""].append(task)
        for graph in sorted(self.graphs.values(), key=lambda g: g.key):
            tasks = sorted(members.get(graph.run, []), key=lambda t: t.key)
            # a graph's task keys begin with its own key, then the step: sorted by key is sorted by step
            at_step = [t.step for t in tasks]
            owner = self.tasks.get(graph.owner) if graph.owner else None
            entry = {INPUT_NODE} if owner is None else {step_name(owner)}
            for task in tasks:
                if task.local == START_NODE:
                    continue
                senders = self._senders(task, tasks, at_step, graph, entry)
                senders_of[task.run] = senders
                steps.setdefault(step_name(task), set()).update(senders)
            real = [t for t in tasks if t.local != START_NODE]
            if owner is not None and real:
                for task in real:
                    parents.setdefault(task.name, owner.name)
                last = max(t.step for t in real)
                steps.setdefault(step_name(owner), set()).update(step_name(t) for t in real if t.step == last)
        edges = {(_node_of_step(a), _node_of_step(b)) for b, ups in steps.items() for a in ups}
        return edges, parents, steps

    def _senders(self, task: _Task, tasks: list[_Task], at_step: list[int], graph: _Graph,
                 entry: set[str]) -> set[str]:
        """The steps that fed `task`; `tasks` are its graph's, in step order (`at_step`: their steps)."""
        found: set[str] = set()

        def add(sender: _Task) -> None:
            found.update(entry if sender.local == START_NODE else {step_name(sender)})

        first = bisect_left(at_step, task.step)  # a slice, not a scan of every task: linear in the steps
        earlier = tasks[:first]
        previous = tasks[bisect_left(at_step, task.step - 1, 0, first):first]
        for trigger in task.triggers:
            if trigger.startswith("join:"):
                sources = trigger.split(":")[1].split("+")
                for source in sources:
                    runs = [t for t in earlier if t.local == source]
                    if runs:
                        add(max(runs, key=lambda t: t.key))
        if task.path.startswith("__pregel_push"):
            for sender in previous:
                if task.local in sender.routes:
                    add(sender)
        elif any(t.startswith("branch:to:") for t in task.triggers) or not found:
            for sender in previous:
                static = graph.edges is not None and (sender.local, task.local) in graph.edges
                if task.local in sender.routes or static:
                    add(sender)
            if not found and graph.edges is None:
                for sender in previous:
                    if not sender.routes:
                        add(sender)
        if not found:
            if not earlier:
                found.update(entry)
            else:
                for sender in previous or [max(earlier, key=lambda t: t.key)]:
                    add(sender)
        return found


def step_name(task: _Task) -> str:
    """A step of the cascade: one round of a node, named after its files (`nodes/<node>/r<round>.*`)."""
    return f"{task.name} r{task.round}"


def _node_of_step(step: str) -> str:
    return _STEP_ROUND.sub("", step)


_STEP_ROUND = re.compile(r" r\d+$")


def _number_calls(
    calls: Iterable[_Call], load: Callable[[str], Any], tasks: dict[str, _Task]
) -> list[tuple[_Call, int]]:
    """Counter per (owner, kind, label), in the order the calls were made where that order is a fact
    of every rerun, never in the order their events happened to arrive:
    - calls that answer the tool calls of one model message (ToolNode runs them in parallel): the order of
      their ids in the node's input, i.e. the order the model asked for them;
    - calls a tool's own code made (a model or retriever behind each of a ToolNode's parallel calls): first by
      the number of the tool call that made them, then as below;
    - calls of which each ended before the next began (a node calling a tool in a loop): that order;
    - otherwise (concurrent calls without ids): by content digests."""
    groups: dict[tuple[Any, ...], list[_Call]] = defaultdict(list)
    by_run: dict[str, _Call] = {}
    for call in calls:
        groups[(call.task or "", call.node or "", call.kind, call.label)].append(call)
        by_run[call.run] = call
    numbers: dict[str, int] = {}
    # Groups without a call made inside a tool first: they hold every tool call, whose numbers place the rest.
    for group in sorted(groups.values(), key=lambda g: any(c.in_tool for c in g)):
        places: dict[tuple[Any, ...], list[_Call]] = defaultdict(list)
        for call in group:
            tool = by_run.get(call.in_tool or "")
            places[() if tool is None else (tool.label, numbers.get(tool.run, 0))].append(call)
        ordered = [c for place in sorted(places) for c in _made_order(places[place], load, tasks)]
        numbers.update((c.run, n) for n, c in enumerate(ordered, start=1))
    return [(by_run[run], number) for run, number in numbers.items()]


def _made_order(calls: list[_Call], load: Callable[[str], Any], tasks: dict[str, _Task]) -> list[_Call]:
    ordered = _requested_order(calls, load, tasks) or _sequential_order(calls)
    if ordered is not None:
        return ordered

    def digests(c: _Call) -> tuple[str, ...]:
        end = c.end or {}
        return (c.start.get("blob") or "", str(c.start.get("tool_call_id") or ""), end.get("blob") or "",
                str(end.get("error") or ""))

    return sorted(calls, key=digests)


def _requested_order(group: list[_Call], load: Callable[[str], Any], tasks: dict[str, _Task]) -> list[_Call] | None:
    if len(group) < 2:
        return None
    ids = [str(c.start.get("tool_call_id") or (c.end or {}).get("tool_call_id") or "") for c in group]
    task = tasks.get(group[0].task or "")
    if not all(ids) or len(set(ids)) != len(ids) or task is None or task.in_blob is None:
        return None
    # Stable JSON keeps list order, so the ids appear in the order of the message's tool_calls.
    text = json.dumps(load(task.in_blob), sort_keys=True, ensure_ascii=False)
    positions = [text.find(json.dumps(i, ensure_ascii=False)) for i in ids]
    if min(positions) < 0:
        return None
    return [c for _, c in sorted(zip(positions, group, strict=True), key=lambda pc: pc[0])]


def _sequential_order(group: list[_Call]) -> list[_Call] | None:
    by_start = sorted(group, key=lambda c: c.start.get("seq", 0))
    for before, after in zip(by_start, by_start[1:], strict=False):
        if before.end is None or before.end.get("seq", 0) > after.start.get("seq", 0):
            return None  # they overlapped (or one never ended): their order is not a fact of every run
    return by_start


# The structure in front of a rendered line's text (indentation, list markers, a 'key: ' label).
_LINE_HEAD = re.compile(r"^(\s*(?:- )*(?:[\w .\-]{1,40}: )?)")
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]]*\s+")


def _is_question(sentence: str) -> bool:
    return sentence.rstrip("\"')] ").endswith("?") and len(sentence.strip()) > 1


def split_questions(text: str, questions_file: str) -> tuple[str, str]:
    """(the text with each question replaced by a pointer to `questions_file`, the questions one a line)."""
    questions: list[str] = []
    lines: list[str] = []
    for line in text.split("\n"):
        head = _LINE_HEAD.match(line).group(1)  # type: ignore[union-attr]
        body = line[len(head):]
        if "?" not in body:
            lines.append(line)
            continue
        kept: list[str] = []
        position = 0
        for boundary in [*_SENTENCE_END.finditer(body), None]:
            stop = boundary.end() if boundary else len(body)
            sentence = body[position:stop]
            position = stop
            if _is_question(sentence):
                questions.append(sentence.strip())
                kept.append(f"[question {len(questions)}: see {questions_file}]" + (" " if boundary else ""))
            elif sentence:
                kept.append(sentence)
        lines.append(head + "".join(kept))
    return "\n".join(lines), "".join(f"{q}\n" for q in questions)


@functools.lru_cache(maxsize=4096)  # a run names the same nodes, tools and labels in file after file
def _safe(part: str) -> str:
    cleaned = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in part)
    return cleaned.strip(".") or "_"


@functools.lru_cache(maxsize=4096)
def _path_of(name: str) -> str:
    return "/".join(_safe(p) for p in name.split("/"))


# A rendered file shorter than this is scanned whole: its parts, remembered, would cost more than they save.
_WHOLE_TEXT_BELOW = 16_384


def materialize(
    events: list[dict[str, Any]],
    load: Callable[[str], Any],
    *,
    journal: JournalSummary | None = None,
    max_output_chars: int = 200_000,
    wrap_at: int = 400,
    redact_text: Callable[[str], str] | None = None,
    unredacted: Callable[[list[str]], bool] | None = None,
) -> Materialized:
    """Fold journal events into the manifest and the text files; same events -> same bytes.

    `unredacted(parts)`, when given, says from a rendered file's `render_parts` whether `redact_text` would
    leave its text as it is: a node's input repeats every earlier message, and the parts let each repeated
    message be scanned (for secrets, binary data and the truncation point) once, not once per later file."""
    b = _Builder(events, load)
    b.assign_keys()
    edges, parents, step_upstream = b.edges()
    files: dict[str, str] = {}
    records: list[FileRecord] = []
    node_files: dict[str, list[str]] = defaultdict(list)
    node_levels: dict[str, set[str]] = defaultdict(set)
    kinds: dict[str, str] = {}

    def value(blob: str | None) -> Any:
        return None if blob is None else load(blob)

    # Every value here is JSON data already (loaded from the blobs), and a node's input repeats the messages
    # of earlier files: rendered without a second conversion, each repeated message and long string once.
    cache = RenderCache()
    placed: dict[str, list[Placement]] = {}
    starts: dict[str, tuple[str, int, int]] = {}
    shared_starts = _SharedStarts()
    binary_parts: dict[str, bool] = {}  # long parts (repeated messages) by whether they show binary data

    def render(content: Any, path: str | None = None) -> list[str]:
        parts, strings = render_parts(content, wrap_at=wrap_at, cache=cache)
        if path is not None:
            if strings:
                placed[path] = strings
            start = shared_starts.start(path, parts)
            if start is not None:
                starts[path] = start
        return parts

    def shows_binary(parts: list[str]) -> bool:
        return found_in_parts(parts, lambda text: BINARY_MARKER in text, binary_parts)  # a marker has no break

    def write(path: str, content: Any, *, raw_text: bool = False, **fields: Any) -> None:
        parts = None if raw_text else render(content, path)
        if parts is not None and unredacted is not None and sum(map(len, parts)) >= _WHOLE_TEXT_BELOW \
                and unredacted(parts):  # nothing to redact: searched and cut part by part
            binary = shows_binary(parts)
            text, cut = truncate_lines(parts, max_output_chars)
        else:
            text = content if parts is None else "\n".join(parts) + "\n"
            if redact_text is not None:
                text = redact_text(text)
            binary = BINARY_MARKER in text
            text, cut = truncate(text, max_output_chars)
        files[path] = text
        records.append(FileRecord(path=path, sha256=sha256_text(text), truncated=cut, binary=binary, **fields))
        node_files[fields["node"]].append(path)

    roots = sorted((g for g in b.graphs.values() if g.input_blob is not None), key=lambda g: g.key)
    for number, graph in enumerate(roots, start=1):
        # The user's questions apart from the rest of the input: an echo of "Did revenue grow 14%?" is not
        # evidence that revenue grew 14% (Policy.questions_are_evidence says whether the audit may use them).
        statements, questions = split_questions("\n".join(render(value(graph.input_blob))) + "\n",
                                                f"input/r{number}.questions.txt")
        write(f"input/r{number}.txt", statements, raw_text=True, kind="input", node=INPUT_NODE, round=number)
        if questions:
            write(f"input/r{number}.questions.txt", questions, raw_text=True, kind="input_question",
                  node=INPUT_NODE, round=number)
        kinds[INPUT_NODE] = "input"
        node_levels[INPUT_NODE].add(graph.level)

    tasks = sorted((t for t in b.tasks.values() if t.local != START_NODE), key=lambda t: t.key)
    for task in tasks:
        kinds.setdefault(task.name, "node")
        node_levels[task.name].add(task.level)
        base = f"nodes/{_path_of(task.name)}/r{task.round}"
        common = {"node": task.name, "round": task.round, "step": task.step}
        if task.interrupted:  # what the paused attempt was given, and the interrupt that paused it
            write(f"{base}.interrupted.txt", {"input": value(task.in_blob), "interrupted": task.error},
                  kind="node_input", **common)
            continue
        if task.in_blob is not None:
            write(f"{base}.input.txt", value(task.in_blob), kind="node_input", **common)
        if task.error is not None:
            write(f"{base}.output.txt", {"error": task.error}, kind="node_output", error=True, **common)
        elif task.ended:
            write(f"{base}.output.txt", value(task.out_blob), kind="node_output", **common)
    for name in set(parents.values()):
        kinds[name] = "subgraph"

    rounds_of = {t.run: t for t in b.tasks.values()}
    for call, number in sorted(((c, b.call_numbers[c.run]) for c in b.calls.values()),
                               key=lambda cn: (cn[0].node or "", cn[0].kind, cn[0].label, cn[1])):
        owner = rounds_of.get(call.task) if call.task else None
        node = owner.name if owner else (call.node or call.label)
        if owner is None and node not in kinds:
            kinds[node] = "tool" if call.kind == "tool" else "node"
        node_levels[node].add(call.level)
        round_ = owner.round if owner else 1
        step = owner.step if owner else None
        folder = {"tool": "tools", "model": "models", "retriever": "retrievers"}[call.kind]
        path = f"{folder}/{_path_of(node)}/r{round_}.{_safe(call.label)}.{number}.txt"
        end = call.end or {}
        if call.kind == "tool":
            # Two files per call, one per zone: what the tool returned (observed) and the arguments it was
            # given (declared: a model or the node's code wrote them), so an argument never backs a claim.
            head: dict[str, Any] = {"tool": call.label, "node": node,
                                    "tool_call_id": call.start.get("tool_call_id") or end.get("tool_call_id")}
            fields = {"node": node, "round": round_, "step": step, "tool": call.label,
                      "tool_call_id": head["tool_call_id"]}
            body: dict[str, Any] = dict(head)
            if "error" in end:
                body["error"] = end["error"]
            elif call.end is None:
                body["error"] = "no result recorded (the run stopped during this call)"
            else:
                body["output"] = value(end.get("blob"))
            derived = call.run in b.model_runs_in_tools
            if derived:
                body["model-derived"] = "this tool's run called a chat model; its output is model-written"
            write(path, body, kind="handoff" if end.get("handoff") else "tool_call", error="output" not in body,
                  model_derived=derived, **fields)
            write(path.removesuffix(".txt") + ".arguments.txt", {**head, "arguments": value(call.start.get("blob"))},
                  kind="tool_arguments", **fields)
        elif call.kind == "model":
            body = {"model": call.label, "node": node, "messages": value(call.start.get("blob"))}
            if "error" in end:
                body["error"] = end["error"]
            else:
                body.update(value(end.get("blob")) or {})
            write(path, body, kind="model_call", node=node, round=round_, step=step, error="error" in body)
        else:
            body = {"retriever": call.label, "node": node, "query": call.start.get("query"),
                    "documents": value(end.get("blob"))}
            write(path, body, kind="retriever", node=node, round=round_, step=step)

    for name in sorted(b.artifacts):
        blob, level = b.artifacts[name]
        write(f"artifacts/{_path_of(name)}.txt", value(blob), kind="artifact", node=name)
        kinds.setdefault(name, "artifact")
        node_levels[name].add(level)

    report = None
    if b.report_blob is not None:
        write(REPORT_NAME, value(b.report_blob), raw_text=True, kind="report", node=REPORT_NODE)
        report = REPORT_NAME

    # declared dependencies replace what the run showed for that node (every round of it, fed by every
    # round of what it declares)
    steps_of: dict[str, list[str]] = defaultdict(list)
    for step in step_upstream:
        steps_of[_node_of_step(step)].append(step)
    for node, upstream in b.dependencies.items():
        edges = {(a, c) for a, c in edges if c != node} | {(u, node) for u in upstream}
        for end in (node, *upstream):
            if end != INPUT_NODE:
                kinds.setdefault(end, "node")
        declared = {s for u in upstream for s in (steps_of.get(u) or [u])}
        for step in steps_of.get(node, []):
            step_upstream[step] = declared

    task_rounds: dict[str, int] = defaultdict(int)
    for task in tasks:
        task_rounds[task.name] = max(task_rounds[task.name], 0 if task.interrupted else task.round)
    nodes: list[NodeRecord] = []
    for name in sorted(kinds):
        levels = node_levels.get(name) or {
            CaptureLevel.INSTRUMENTED.value if kinds[name] != "artifact" else CaptureLevel.DECLARED.value}
        level = max((CaptureLevel(lv) for lv in levels), key=_LEVEL_ORDER.index)  # weakest level decides
        nodes.append(NodeRecord(
            name=name, kind=kinds[name], capture_level=level, trust_cap=level.trust_cap,  # type: ignore[arg-type]
            files=sorted(node_files.get(name, [])), rounds=task_rounds.get(name, 1), parent=parents.get(name),
        ))

    steps = _step_records(tasks, b, step_upstream)
    top = [t for t in tasks if b.graphs.get(t.graph or "") is None or b.graphs[t.graph or ""].owner is None]
    finished = [t for t in top if t.ended]
    final_node = max(finished, key=lambda t: t.key).name if finished else None

    complete, reason = _completeness(b, journal)
    manifest = Manifest(
        complete=complete,
        incomplete_reason=reason,
        nodes=nodes,
        edges=sorted(edges),
        entry_nodes=sorted({c for a, c in edges if a == INPUT_NODE}),
        final_node=final_node,
        rounds={n: r for n, r in sorted(task_rounds.items()) if r > 1},
        declared_dependencies=dict(sorted(b.dependencies.items())),
        steps=steps,
        files=sorted(records, key=lambda r: r.path),
        report=report,
        journal=journal or JournalSummary(events=len(events)),
    )
    return Materialized(manifest=manifest, files=files, placed=placed, starts=starts)


def _step_records(tasks: list[_Task], b: _Builder, upstream: dict[str, set[str]]) -> list[StepRecord]:
    """One record per round of a node: where it ran (the host step and which of the host's subgraph runs)
    and the steps that fed it."""
    records: dict[str, StepRecord] = {}
    for task in tasks:
        name = step_name(task)
        if name in records:
            continue  # an attempt paused by interrupt() and the run that completed it: one round
        graph = b.graphs.get(task.graph or "")
        owner = b.tasks.get(graph.owner) if graph is not None and graph.owner else None
        records[name] = StepRecord(
            name=name, node=task.name, round=task.round, step=task.step,
            within=step_name(owner) if owner is not None else None,
            instance=graph.key[-1][0] + 1 if owner is not None and graph is not None else None,
            upstream=sorted(upstream.get(name, ())), pushed=task.path.startswith("__pregel_push"),
        )
    return sorted(records.values(), key=lambda r: (r.node, r.round))


def _completeness(b: _Builder, journal: JournalSummary | None) -> tuple[bool, str | None]:
    reasons: list[str] = []
    end = b.capture_end or {}
    if not b.capture_end:
        reasons.append("the capture was not finalized (no capture_end event in the journal)")
    elif not end.get("ok"):
        reasons.append(str(end.get("reason") or "the run raised"))
    for graph in sorted(b.graphs.values(), key=lambda g: g.key):
        if graph.owner is None and graph.ok is False:
            reasons.append(f"the graph run raised: {graph.error}")
    open_tasks = sorted({t.name for t in b.tasks.values() if not t.ended and t.local != START_NODE})
    if open_tasks:
        reasons.append(f"node(s) started but never finished: {', '.join(open_tasks)}")
    if journal is not None and journal.gaps:
        spans = ", ".join(f"{a}-{c}" if a != c else str(a) for a, c in journal.gaps)
        reasons.append(f"journal events lost (missing seq {spans})")
    unique = list(dict.fromkeys(reasons))
    return (not unique, "; ".join(unique) or None)

