"""The single write path of a capture: redact, serialise, store by sha256, append to the journal.

Every capture level (callbacks, wrapped tools, instrumented graphs, artifacts, importers) records through
`Recorder`, so nothing reaches disk unredacted and every event has the same shape.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pytest_auditfence.capturing.store import BlobStore, JournalWriter
from pytest_auditfence.errors import AuditFenceError
from pytest_auditfence.manifest import JOURNAL_NAME
from pytest_auditfence.redact import Redactor

def make_redactor(redact: bool | Callable[[str], str]) -> Redactor:
    """`True`: built-in rules; `False`: off; a callable: built-in rules, then the user's hook."""
    if redact is True:
        return Redactor(enabled=True)
    if redact is False:
        return Redactor(enabled=False)
    if callable(redact):
        return Redactor(enabled=True, extra=redact)
    raise AuditFenceError(
        f"Snapshot(redact=...)  must be True, False or a callable str -> str, got {redact!r} ({type(redact).__name__}); "
        f"pass redact=True to use the built-in secret rules."
    )


NO_CONTENT: Any = object()  # emit() without a payload to store


class Deferred:
    """Content worked out at flush, off the callback hot path: `make(source)`. Only for a source nobody
    changes after the callback (e.g. LangChain's LLMResult)."""

    __slots__ = ("make", "source")

    def __init__(self, make: Callable[[Any], Any], source: Any) -> None:
        self.make = make
        self.source = source


# Pending events beyond this are written at once, so a long run holds bounded memory.
MAX_PENDING = 5000
# The handler passes an event's meta as a tuple in this order (a dict per callback costs on the hot path).
META_FIELDS = ("run_id", "parent_run_id", "task", "checkpoint_ns")


class Recorder:
    """Owns the journal writer and blob store of one trace folder; thread-safe.

    `emit` only queues (the callback hot path stays cheap); `flush` redacts, serialises, stores and appends
    in arrival order. Nothing is written before it is redacted. Snapshot.finalize() flushes."""

    def __init__(self, trace_dir: Path, redactor: Redactor) -> None:
        self.trace_dir = trace_dir
        # Set by importers: every event recorded from then on carries this capture level.
        self.level: str | None = None
        self.redactor = redactor
        self.blobs = BlobStore(trace_dir)
        self.journal = JournalWriter(trace_dir / JOURNAL_NAME)
        # Failures inside callbacks are swallowed by LangChain; we keep them so the capture fails closed.
        self.failures: list[str] = []
        self._failure_lock = threading.Lock()
        self._pending: list[tuple[str, dict[str, Any], dict[str, Any] | tuple[Any, ...], Any]] = []
        self._flush_lock = threading.Lock()
        self._sources: list[Callable[[], None]] = []

    def content(self, value: Any, memo: dict[Any, Any] | None = None) -> str:
        """Store `value` (redacted, as stable JSON, its repeated parts shared) and return its sha256."""
        # Redactor.value converts with to_jsonable first, so message ids and provider metadata are gone too.
        return self.blobs.put_value(self.redactor.value(value, memo), memo)

    def text(self, value: str) -> str:
        return self.redactor.text(value)

    def add_source(self, resolve: Callable[[], None]) -> None:
        """Register a producer of deferred events (the callback handler's `resolve`): it is called before
        anything else is queued and before a flush, so the journal keeps the order things happened in."""
        self._sources.append(resolve)

    def _drain(self) -> None:
        for resolve in self._sources:
            resolve()

    def emit(
        self,
        event_type: str,
        payload: dict[str, Any],
        meta: dict[str, Any] | tuple[Any, ...] | None = None,
        content: Any = NO_CONTENT,
    ) -> None:
        """Queue an event; `content` (any value) is stored by sha256 at flush and named by `blob`. `meta` is a
        dict, or a tuple of values in META_FIELDS order. `payload` is not copied: do not change it later."""
        self._drain()
        self.queue(event_type, payload, meta, content)
        if len(self._pending) > MAX_PENDING:
            self.flush()

    def queue(self, event_type: str, payload: dict[str, Any], meta: Any = None, content: Any = NO_CONTENT) -> None:
        """`emit` for a source while it resolves (no draining, no flush: its caller bounds the queue)."""
        if self.level is not None and "level" not in payload:
            payload = {**payload, "level": self.level}
        self._pending.append((event_type, payload, meta or {}, content))  # list.append is atomic

    def flush(self) -> None:
        self._drain()
        with self._flush_lock:
            pending, self._pending = self._pending, []
            memo: dict[Any, Any] = {}  # each message converted, each string redacted once in this batch
            for event_type, payload, meta, content in pending:
                if type(meta) is tuple:
                    meta = dict(zip(META_FIELDS, meta))
                if content is not NO_CONTENT:
                    try:
                        if type(content) is Deferred:
                            content = content.make(content.source)
                        payload = {**payload, "blob": self.content(content, memo)}
                    except Exception as exc:  # noqa: BLE001 - one odd value must not lose the rest
                        self.fail(f"serialising a {event_type} payload", exc)
                        payload = {**payload, "blob": None}
                self.journal.append(event_type, payload, meta)
            self.blobs.sync()  # the blobs first: a journal line on disk names only blobs on disk
            self.journal.sync()

    def fail(self, where: str, exc: BaseException) -> None:
        message = self.redactor.text(f"{where}: {type(exc).__name__}: {exc}")
        with self._failure_lock:
            self.failures.append(message)

    def close(self) -> None:
        self.flush()
        self.blobs.close()
        self.journal.close()
