"""Forcing the order in which concurrent runs happen, so a test can capture the same graph under two
interleavings and compare the folders.

`Gate(order, key_of)` is a pair of real LangChain callback handlers: `before` sits in front of the capture
handler and holds a run's start until every run named earlier in `order` has ended; `after` sits behind it
and marks a run ended once the capture handler has seen its end. So the capture handler receives whole
runs in `order` (start, inner events, end; then the next), whatever the threads or the event loop would
have done. `key_of(kind, arguments)` names the run an event starts ('tool', 'chain' or 'retriever'), or
None for runs the gate leaves alone."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from typing import Any

from langchain_core.callbacks import AsyncCallbackHandler, BaseCallbackHandler

WAIT_SECONDS = 20.0


class _Order:
    def __init__(self, order: list[str], key_of: Callable[[str, dict[str, Any]], str | None]) -> None:
        self.order = order
        self.key_of = key_of
        self.runs: dict[Any, str] = {}  # run id -> key, for the runs the gate holds
        self.ended: set[str] = set()
        self.changed = threading.Condition()

    def ready(self, key: str) -> bool:
        return all(k in self.ended for k in self.order[:self.order.index(key)])

    def start(self, kind: str, run_id: Any, arguments: dict[str, Any]) -> str | None:
        key = self.key_of(kind, arguments)
        if key is None or key not in self.order:
            return None
        with self.changed:
            self.runs[run_id] = key
        return key

    def end(self, run_id: Any) -> None:
        with self.changed:
            key = self.runs.pop(run_id, None)
            if key is not None:
                self.ended.add(key)
                self.changed.notify_all()


class _Before(BaseCallbackHandler):
    run_inline = True

    def __init__(self, order: _Order, at_end: bool) -> None:
        self._order = order
        self._at_end = at_end

    def _hold(self, kind: str, run_id: Any, arguments: dict[str, Any]) -> None:
        key = self._order.start(kind, run_id, arguments)
        if key is not None and not self._at_end:
            self._wait(key)

    def _wait(self, key: str) -> None:
        with self._order.changed:
            if not self._order.changed.wait_for(lambda: self._order.ready(key), timeout=WAIT_SECONDS):
                raise AssertionError(f"gate: {key} waited {WAIT_SECONDS} s for {self._order.order}")

    def on_tool_start(self, serialized: Any, input_str: str, *, run_id: Any, **kwargs: Any) -> None:
        self._hold("tool", run_id, {"input": input_str, **kwargs})

    def on_chain_start(self, serialized: Any, inputs: Any, *, run_id: Any, **kwargs: Any) -> None:
        self._hold("chain", run_id, {"inputs": inputs, **kwargs})

    def on_retriever_start(self, serialized: Any, query: str, *, run_id: Any, **kwargs: Any) -> None:
        self._hold("retriever", run_id, {"query": query, **kwargs})

    def on_retriever_end(self, documents: Any, *, run_id: Any, **kwargs: Any) -> None:
        key = self._order.runs.get(run_id)
        if key is not None and self._at_end:  # the runs overlap; only their ends come in `order`
            self._wait(key)


class _After(BaseCallbackHandler):
    run_inline = True

    def __init__(self, order: _Order) -> None:
        self._order = order

    def on_tool_end(self, output: Any, *, run_id: Any, **kwargs: Any) -> None:
        self._order.end(run_id)

    def on_retriever_end(self, documents: Any, *, run_id: Any, **kwargs: Any) -> None:
        self._order.end(run_id)

    def on_chain_end(self, outputs: Any, *, run_id: Any, **kwargs: Any) -> None:
        self._order.end(run_id)

    def on_tool_error(self, error: BaseException, *, run_id: Any, **kwargs: Any) -> None:
        self._order.end(run_id)

    def on_chain_error(self, error: BaseException, *, run_id: Any, **kwargs: Any) -> None:
        self._order.end(run_id)  # interrupt() ends a node's run this way too


class _AsyncBefore(AsyncCallbackHandler):
    """The same hold for a run on one event loop: it awaits instead of blocking the loop's thread."""

    run_inline = True

    def __init__(self, order: _Order) -> None:
        self._order = order

    async def _hold(self, kind: str, run_id: Any, arguments: dict[str, Any]) -> None:
        key = self._order.start(kind, run_id, arguments)
        deadline = time.monotonic() + WAIT_SECONDS
        while key is not None and not self._order.ready(key):
            if time.monotonic() > deadline:
                raise AssertionError(f"gate: {key} waited {WAIT_SECONDS} s for {self._order.order}")
            await asyncio.sleep(0.002)

    async def on_tool_start(self, serialized: Any, input_str: str, *, run_id: Any, **kwargs: Any) -> None:
        await self._hold("tool", run_id, {"input": input_str, **kwargs})

    async def on_chain_start(self, serialized: Any, inputs: Any, *, run_id: Any, **kwargs: Any) -> None:
        await self._hold("chain", run_id, {"inputs": inputs, **kwargs})


class Gate:
    def __init__(self, order: list[str], key_of: Callable[[str, dict[str, Any]], str | None], *,
                 asynchronous: bool = False, at_end: bool = False) -> None:
        """`at_end`: hold a run's end instead of its start (runs that overlap, whose ends come in `order`;
        retrievers only)."""
        self.order = _Order(order, key_of)
        self.before: BaseCallbackHandler = _AsyncBefore(self.order) if asynchronous else _Before(self.order, at_end)
        self.after = _After(self.order)

    def around(self, capture: BaseCallbackHandler) -> list[BaseCallbackHandler]:
        """The callbacks list of a run: the gate's hold, the capture handler, the gate's release."""
        return [self.before, capture, self.after]

    def passed(self) -> bool:
        """Whether every run the gate was to order did run (a test that ordered nothing proves nothing)."""
        return self.order.ended == set(self.order.order)


def tool_call(kind: str, arguments: dict[str, Any]) -> str | None:
    """Key a tool run by its tool call id."""
    return arguments.get("tool_call_id") if kind == "tool" else None


def node_task(node: str | None, field: str | None = None) -> Callable[[str, dict[str, Any]], str | None]:
    """Key a node's task by one field of its input (a Send's argument), or (`node` None) by the node's name."""

    def key(kind: str, arguments: dict[str, Any]) -> str | None:
        metadata = arguments.get("metadata") or {}
        name = metadata.get("langgraph_node")
        if kind != "chain" or f"graph:step:{metadata.get('langgraph_step')}" not in (arguments.get("tags") or []):
            return None  # not a node's own run
        if node is None:
            return str(name)
        inputs = arguments.get("inputs")
        return str(inputs.get(field)) if name == node and isinstance(inputs, dict) else None

    return key


def retrieval(kind: str, arguments: dict[str, Any]) -> str | None:
    """Key a retriever run by its query."""
    return arguments.get("query") if kind == "retriever" else None
