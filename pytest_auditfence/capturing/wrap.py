"""Capture for code that does not pass `snap.config()`: wrapped tools, the `capture` decorator, and
`instrument_graph` for graphs compiled at import time or invoked by code you do not control.

Owns the instrumented (trust 1.0) capture level outside LangChain callbacks.
"""

from __future__ import annotations

import functools
import inspect
import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from pytest_auditfence.errors import AuditFenceError
from pytest_auditfence.manifest import CaptureLevel

if TYPE_CHECKING:
    from pytest_auditfence.snapshot import Snapshot

F = TypeVar("F", bound=Callable[..., Any])
T = TypeVar("T")


def _check_snapshot(snap: Any, where: str) -> None:
    from pytest_auditfence.snapshot import Snapshot

    if not isinstance(snap, Snapshot):
        raise AuditFenceError(
            f"{where} needs the Snapshot to record into, got {type(snap).__name__}; e.g. {where.split('(')[0]}"
            f"(..., snap) with snap = Snapshot('trace/')."
        )


def _arguments(func: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """Call arguments by parameter name when the signature allows it (stable, readable in the trace)."""
    try:
        bound = inspect.signature(func).bind(*args, **kwargs)
    except (TypeError, ValueError):
        return {"args": list(args), "kwargs": kwargs}
    return dict(bound.arguments)


class _Call:
    """One recorded call: start on creation, then `done(result)` or `failed(exc)`."""

    def __init__(self, snap: Snapshot, name: str, arguments: Any) -> None:
        self.rec = snap.recorder
        task, node = snap.handler.current_task()
        self.fields = {"node": node, "tool": name, "tool_call_id": None, "level": CaptureLevel.INSTRUMENTED.value}
        self.meta = {"run_id": f"wrap-{uuid.uuid4()}", "task": task}
        self.rec.emit("tool_start", {**self.fields, "blob": self.rec.content(arguments)}, self.meta)

    def done(self, result: Any) -> None:
        self.rec.emit("tool_end", {**self.fields, "blob": self.rec.content(result)}, self.meta)

    def failed(self, exc: BaseException) -> None:
        error = self.rec.text(f"{type(exc).__name__}: {exc}")
        self.rec.emit("tool_error", {**self.fields, "error": error}, self.meta)


def _wrap_callable(func: F, snap: Snapshot, name: str | None = None) -> F:
    tool_name = name or getattr(func, "__name__", None) or type(func).__name__
    if inspect.iscoroutinefunction(func):
        @functools.wraps(func)
        async def async_wrapper(*args: Any, **kwargs: Any) -> Any:
            call = _Call(snap, tool_name, _arguments(func, args, kwargs))
            try:
                result = await func(*args, **kwargs)
            except BaseException as exc:
                call.failed(exc)
                raise
            call.done(result)
            return result

        return async_wrapper  # type: ignore[return-value]

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        call = _Call(snap, tool_name, _arguments(func, args, kwargs))
        try:
            result = func(*args, **kwargs)
        except BaseException as exc:
            call.failed(exc)
            raise
        call.done(result)
        return result

    return wrapper  # type: ignore[return-value]


def _wrap_one(tool: Any, snap: Snapshot, name: str | None = None) -> Any:
    from langchain_core.tools import BaseTool

    if isinstance(tool, BaseTool):
        # A LangChain tool reports through callbacks already; give it our handler so calls made without
        # snap.config() are captured too (the handler drops the duplicate when both are present).
        callbacks = list(tool.callbacks) if isinstance(tool.callbacks, list) else []
        if snap.handler not in callbacks:
            callbacks.append(snap.handler)
        return tool.model_copy(update={"callbacks": callbacks})
    if callable(tool):
        return _wrap_callable(tool, snap, name)
    raise AuditFenceError(
        f"wrap() got {type(tool).__name__} {tool!r}; it wraps callables, LangChain tools, or a list/dict of them."
    )


def wrap(tools: T, snap: Snapshot) -> T:
    """Return `tools` (a callable, a LangChain tool, or a list/tuple/dict of them) recording every call into
    `snap`: name, arguments, output or error, and the LangGraph node that made it (trust 1.0)."""
    _check_snapshot(snap, "wrap(tools, snap)")
    if isinstance(tools, dict):
        return {key: _wrap_one(tool, snap, str(key)) for key, tool in tools.items()}  # type: ignore[return-value]
    if isinstance(tools, list | tuple):
        return type(tools)(_wrap_one(tool, snap) for tool in tools)  # type: ignore[return-value]
    return _wrap_one(tools, snap)  # type: ignore[no-any-return]


def capture(snap: Snapshot, *, name: str | None = None) -> Callable[[F], F]:
    """Decorator form of `wrap` for one function: `@capture(snap)` or `@capture(snap, name="search")`."""
    _check_snapshot(snap, "capture(snap)")
    if name is not None and (not isinstance(name, str) or not name):
        raise AuditFenceError(f"capture(snap, name=...) must be a non-empty str, got {name!r}.")

    def decorator(func: F) -> F:
        if not callable(func):
            raise AuditFenceError(f"@capture(snap) decorates a function, got {type(func).__name__}.")
        return _wrap_callable(func, snap, name)

    return decorator


def instrument_graph(builder_or_graph: T, snap: Snapshot) -> T:
    """Capture every run of a graph into `snap` without passing `config=snap.config()` at the call site.

    A compiled graph comes back as a copy bound to the snapshot's handler (the module-level `app = ...
    .compile()` case); a `StateGraph` builder comes back with `compile()` producing such bound graphs.
    Node state of any shape (plain fields, not only messages) is recorded (trust 1.0)."""
    _check_snapshot(snap, "instrument_graph(graph, snap)")
    from langgraph.graph import StateGraph
    from langgraph.pregel import Pregel

    if isinstance(builder_or_graph, Pregel):
        return builder_or_graph.with_config(callbacks=[snap.handler])  # type: ignore[return-value]
    if isinstance(builder_or_graph, StateGraph):
        original = builder_or_graph.compile

        @functools.wraps(original)
        def compile_bound(*args: Any, **kwargs: Any) -> Any:
            return original(*args, **kwargs).with_config(callbacks=[snap.handler])

        builder_or_graph.compile = compile_bound  # type: ignore[method-assign]
        return builder_or_graph
    raise AuditFenceError(
        f"instrument_graph() takes a LangGraph StateGraph builder or a compiled graph, got "
        f"{type(builder_or_graph).__name__}; pass e.g. the object returned by StateGraph(...).compile()."
    )
