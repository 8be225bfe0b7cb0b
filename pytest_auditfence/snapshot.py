"""`Snapshot`: the user-facing capture of one run into a trace folder.

Owns the lifecycle (lazy folder preparation, config(), set_report/save_artifact/declare_dependency,
finalize, context manager); recording lives in `capturing/`, materialisation in `capturing/topology.py`.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

from pytest_auditfence.errors import AuditFenceError, TraceDirError
from pytest_auditfence.manifest import INPUT_NODE, MANIFEST_NAME, CaptureLevel, Manifest, load_manifest

if TYPE_CHECKING:
    from langchain_core.runnables import RunnableConfig

    from pytest_auditfence.capturing.handler import CaptureHandler
    from pytest_auditfence.capturing.recorder import Recorder

_ARTIFACT_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-/]*$")


class Snapshot:
    """Capture a LangGraph run (and declared data) into `trace_dir`.

    The folder is prepared on the first write, so `Snapshot(existing_dir).load_manifest()` reads an old
    run without touching it; writing into a folder that holds a run needs `replace=True`."""

    def __init__(
        self,
        trace_dir: str | Path,
        *,
        redact: bool | Callable[[str], str] = True,
        replace: bool = False,
        max_output_chars: int = 200_000,
        wrap_at: int = 400,
    ) -> None:
        if not isinstance(trace_dir, str | Path) or not str(trace_dir):
            raise AuditFenceError(
                f"Snapshot(trace_dir=...) must be a non-empty folder path (str or Path), got {trace_dir!r}."
            )
        if isinstance(max_output_chars, bool) or not isinstance(max_output_chars, int) or max_output_chars < 1:
            raise AuditFenceError(
                f"Snapshot(max_output_chars=...) must be a positive int, got {max_output_chars!r}; the default "
                f"is 200_000 characters per trace file."
            )
        if isinstance(wrap_at, bool) or not isinstance(wrap_at, int) or wrap_at < 20:
            raise AuditFenceError(f"Snapshot(wrap_at=...) must be an int >= 20, got {wrap_at!r}; the default is 400.")
        from pytest_auditfence.capturing.recorder import make_redactor

        self._trace_dir = Path(trace_dir)
        self._redactor = make_redactor(redact)
        self._replace = bool(replace)
        self._max_output_chars = max_output_chars
        self._wrap_at = wrap_at
        self._recorder_obj: Recorder | None = None
        self._handler_obj: CaptureHandler | None = None
        self._run_error: str | None = None
        self._manifest: Manifest | None = None
        self._finalized_seq = -1  # journal seq at the last finalize: unchanged means nothing to redo

    # -- properties ---------------------------------------------------------------------------------
    @property
    def trace_dir(self) -> Path:
        return self._trace_dir

    @property
    def recorder(self) -> Recorder:
        """The write path of this snapshot (prepares the folder on first use)."""
        if self._recorder_obj is None:
            from pytest_auditfence.capturing.recorder import Recorder
            from pytest_auditfence.capturing.store import prepare_trace_dir

            prepare_trace_dir(self._trace_dir, replace=self._replace)
            self._recorder_obj = Recorder(self._trace_dir, self._redactor)
        return self._recorder_obj

    @property
    def handler(self) -> CaptureHandler:
        """The LangChain callback handler that records into this snapshot."""
        if self._handler_obj is None:
            from pytest_auditfence.capturing.handler import CaptureHandler

            self._handler_obj = CaptureHandler(self.recorder)
        return self._handler_obj

    # -- capture --------------------------------------------------------------------------------------
    def config(self, **kwargs: Any) -> RunnableConfig:
        """A RunnableConfig that captures the run; `callbacks` (a list or a manager) are kept and still called,
        every other key (configurable, tags, recursion_limit, ...) passes through unchanged."""
        from langchain_core.callbacks import BaseCallbackHandler, BaseCallbackManager

        handler = self.handler
        user = kwargs.pop("callbacks", None)
        callbacks: Any
        if user is None:
            callbacks = [handler]
        elif isinstance(user, BaseCallbackManager):
            callbacks = user.copy()
            if handler not in callbacks.handlers:
                callbacks.add_handler(handler, inherit=True)
        elif isinstance(user, list | tuple):
            bad = [c for c in user if not isinstance(c, BaseCallbackHandler)]
            if bad:
                raise AuditFenceError(
                    f"Snapshot.config(callbacks=...) got {type(bad[0]).__name__} in the list; callbacks must be "
                    f"LangChain callback handlers (BaseCallbackHandler) or a callback manager."
                )
            callbacks = [*user, *([] if handler in user else [handler])]
        else:
            raise AuditFenceError(
                f"Snapshot.config(callbacks=...) must be a list of callback handlers or a callback manager, got "
                f"{type(user).__name__}."
            )
        config: dict[str, Any] = dict(kwargs)
        config["callbacks"] = callbacks
        return config  # type: ignore[return-value]

    def wrap(self, tools: Any) -> Any:
        """`capture.wrap(tools, self)`: record every call of plain functions or LangChain tools."""
        from pytest_auditfence.capturing.wrap import wrap

        return wrap(tools, self)

    def set_report(self, text: str) -> None:
        """Record the final document under audit; written (redacted) as `report.md` by finalize()."""
        if not isinstance(text, str):
            raise AuditFenceError(
                f"Snapshot.set_report() takes the report text as a str, got {type(text).__name__}; pass e.g. "
                f"result['messages'][-1].content."
            )
        rec = self.recorder
        rec.emit("report", {"blob": rec.content(text)})
        self._write_report_now(rec.text(text))

    def _write_report_now(self, text: str) -> None:
        from pytest_auditfence.manifest import REPORT_NAME

        self._trace_dir.mkdir(parents=True, exist_ok=True)
        (self._trace_dir / REPORT_NAME).write_text(text, encoding="utf-8")

    def save_artifact(self, name: str, content: Any) -> None:
        """Record declared data (what the agent says it used) as a node of level 'declared' (trust 0.4)."""
        if not isinstance(name, str) or not _ARTIFACT_NAME.match(name) or ".." in name.split("/"):
            raise AuditFenceError(
                f"Snapshot.save_artifact(name=...) got {name!r}; use letters, digits, '_', '-', '.', '/' "
                f"(no leading '/', no '..'), e.g. 'analyst_estimates'."
            )
        rec = self.recorder
        rec.emit("artifact", {"name": name, "blob": rec.content(content), "level": CaptureLevel.DECLARED.value})

    def declare_dependency(self, node: str, upstream: list[str]) -> None:
        """Replace the upstream set of `node` with `upstream` (use INPUT_NODE for the user's input)."""
        if not isinstance(node, str) or not node or node == INPUT_NODE:
            raise AuditFenceError(
                f"Snapshot.declare_dependency(node=...) must be a node name such as 'write', got {node!r}."
            )
        if isinstance(upstream, str) or not isinstance(upstream, list | tuple) or not all(
            isinstance(u, str) and u for u in upstream
        ):
            raise AuditFenceError(
                f"Snapshot.declare_dependency({node!r}, upstream=...) must be a list of node names, got "
                f"{upstream!r}; e.g. declare_dependency('write', ['research', 'prices'])."
            )
        if node in upstream:
            raise AuditFenceError(f"Snapshot.declare_dependency({node!r}, ...): a node cannot feed itself.")
        self.recorder.emit("dependency", {"node": node, "upstream": sorted(set(upstream))})

    # -- finishing ------------------------------------------------------------------------------------
    def flush(self) -> None:
        """Write queued events to `journal.jsonl` and `blobs/` now (finalize() does it too). Callbacks only
        queue, so a run pays for redaction, serialisation and disk writes after it, not during it."""
        if self._recorder_obj is not None:
            self._recorder_obj.flush()

    def finalize(self) -> Manifest:
        """Materialise the journal into text files and `manifest.json`; calling it again is harmless."""
        rec = self.recorder
        rec.flush()
        if self._manifest is not None and rec.journal.events == self._finalized_seq:
            return self._manifest
        from pytest_auditfence.capturing.store import (
            MATERIALIZED_ENTRIES,
            read_journal,
            remove_entries,
            text_references,
            write_trace_files,
        )
        from pytest_auditfence.capturing.topology import materialize
        from pytest_auditfence.capturing.tracefiles import SHARING_KINDS, share_lines
        from pytest_auditfence.integrity import journal_digest
        from pytest_auditfence.manifest import JOURNAL_NAME

        problems = [*([self._run_error] if self._run_error else []), *rec.failures]
        rec.emit("capture_end", {"ok": not problems, "reason": "; ".join(problems) or None})
        rec.close()
        read = read_journal(self._trace_dir / JOURNAL_NAME)
        read.summary.digest = journal_digest(read.events)  # the audit refuses a journal edited after this
        result = materialize(
            read.events,
            rec.blobs.reader().value,
            journal=read.summary,
            max_output_chars=self._max_output_chars,
            wrap_at=self._wrap_at,
            redact_text=self._redactor.text,
            unredacted=functools.partial(self._redactor.leaves_lines, clean={}),
        )
        kept = rec.blobs.referenced_bytes()  # blobs stored as lines of the text files about to be rewritten
        if kept:
            # Those files are removed and written again below, and a write failing part-way (a full disk) would
            # leave a half file holding a blob's only copy: the pack takes the blobs' own bytes back first.
            try:
                rec.blobs.rewrite(kept, {})
            except OSError as exc:
                raise TraceDirError(
                    f"finalize() of {str(self._trace_dir)!r} failed: {rec.blobs.path}: could not be rewritten "
                    f"({exc.strerror or exc}). Nothing was removed: the folder is as the last finalize() left it "
                    f"(the report aside); fix the cause (disk space, permissions) and call finalize() again."
                ) from exc
        remove_entries(self._trace_dir, MATERIALIZED_ENTRIES)
        kinds = {record.path: record.kind for record in result.manifest.files}
        # Raw data first and always as itself (it is what a grep of the folder should find); node inputs and
        # outputs and model calls then name the lines they repeat instead of writing them again.
        ordered = sorted(result.files.items(), key=lambda item: kinds.get(item[0]) in SHARING_KINDS)
        stored = share_lines(((rel, text, kinds.get(rel) in SHARING_KINDS) for rel, text in ordered), result.starts)
        rewritten = False
        try:
            write_trace_files(self._trace_dir, stored.items())
            # A long string that a raw-data file now holds line for line (a tool's output) keeps one copy: the
            # file's. Its blob becomes a reference to those lines (store.PACK_NAME says how).
            raw = ((rel, text, result.placed[rel]) for rel, text in ordered
                   if rel in result.placed and kinds.get(rel) not in SHARING_KINDS and stored[rel] is text)
            refs = text_references(raw, rec.blobs.stored())
            try:
                rec.blobs.rewrite(kept, refs)
            except OSError as exc:
                raise TraceDirError(f"{rec.blobs.path}: could not be rewritten ({exc.strerror or exc})") from exc
            rewritten = True
            write_trace_files(self._trace_dir, [(MANIFEST_NAME, result.manifest.to_json())])
        except TraceDirError as exc:
            held = self._discard_materialized(kept, rewritten)
            removed = (f"The text files and manifest it had written were removed again (the journal and blobs/ are "
                       f"kept whole, so no half-written folder is left)" if not held else
                       f"The manifest and the text files it had written were removed again but for {len(held)} the "
                       f"pack stores blobs as lines of ({', '.join(held)}): the pack could not be rewritten with "
                       f"those blobs' own bytes either, so these files hold their only copy")
            raise TraceDirError(
                f"finalize() of {str(self._trace_dir)!r} failed: {exc}. {removed}; fix the cause (disk space, "
                f"permissions, a name the file system refuses) and call finalize() again."
            ) from exc
        self._manifest = result.manifest
        self._finalized_seq = rec.journal.events
        rec.blobs.forget_recent()  # what finalize() read back; a later finalize() reads the pack
        return result.manifest

    def _discard_materialized(self, kept: dict[str, bytes], rewritten: bool) -> list[str]:
        """After a failed write: the pack made whole again (every blob with its own bytes, none naming lines of
        a text file), then every materialised entry removed; returns the text files kept because that rewrite
        failed too (a disk still full) and the pack names their lines. Best effort: the write's error is what is
        raised."""
        from pytest_auditfence.capturing.store import MATERIALIZED_ENTRIES, remove_entries

        blobs = self.recorder.blobs
        held: frozenset[str] = frozenset()
        try:
            if blobs.referring:
                blobs.rewrite(blobs.referenced_bytes() if rewritten else kept, {})
        except (OSError, AuditFenceError):
            pass
        try:
            held = blobs.referred_files()  # none once the pack holds every blob's bytes
        except (OSError, AuditFenceError):
            pass
        try:
            remove_entries(self._trace_dir, MATERIALIZED_ENTRIES, keep=held)
        except OSError:
            pass
        return sorted(held)

    def load_manifest(self) -> Manifest:
        """Read and validate this folder's `manifest.json` (a `ManifestError` names any problem)."""
        return load_manifest(self._trace_dir)

    def __enter__(self) -> Snapshot:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if exc is not None:
            self._run_error = self._redactor.text(f"the run raised {exc_type.__name__}: {exc}")  # type: ignore[union-attr]
        self.finalize()

    def __repr__(self) -> str:
        return f"Snapshot({str(self._trace_dir)!r})"
