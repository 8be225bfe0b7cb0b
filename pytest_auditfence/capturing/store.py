"""The trace folder on disk: the append-only journal, the sha256 content store and the folder's lifecycle.

Owns `journal.jsonl` (writing with sequence numbers, reading back with gap and broken-line detection),
`blobs/<sha[:2]>/<sha>`, and the rule that a folder never mixes two runs.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import stat
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from pytest_auditfence.errors import JournalError, TraceDirError
from pytest_auditfence.manifest import BLOBS_DIR, JOURNAL_NAME, MANIFEST_NAME, REPORT_NAME, JournalSummary

# Files whose presence means a folder already holds a run.
_RUN_MARKERS = (JOURNAL_NAME, MANIFEST_NAME)
# What finalize() materialises from the journal (rewritten on every finalize).
MATERIALIZED_ENTRIES = (MANIFEST_NAME, REPORT_NAME, "input", "nodes", "tools", "models", "retrievers", "artifacts")
# What a run writes; `replace=True` removes exactly these and nothing the user keeps beside them.
_RUN_ENTRIES = (JOURNAL_NAME, BLOBS_DIR, *MATERIALIZED_ENTRIES)


def remove_entries(trace_dir: Path, names: tuple[str, ...]) -> None:
    for name in names:
        path = trace_dir / name
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        elif path.exists() or path.is_symlink():
            path.unlink()


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def prepare_trace_dir(trace_dir: Path, *, replace: bool) -> None:
    """Refuse (or with `replace`, clear) a folder that already holds a run.

    The folder itself is created by the first write (journal, blob or report), not here: config() sits
    inside the timed run, and a folder that does not exist yet - the usual case - costs one stat."""
    try:
        is_dir = stat.S_ISDIR(os.stat(trace_dir).st_mode)
    except FileNotFoundError:
        claim_trace_dir(trace_dir)  # nothing there, so nothing to mix with: claim it
        return
    except NotADirectoryError:
        raise TraceDirError(
            f"trace_dir {str(trace_dir)!r} lies under a path that is a file, not a folder; pass a folder path "
            f"whose parents are folders (it is created if missing)."
        ) from None
    if not is_dir:
        raise TraceDirError(
            f"trace_dir {str(trace_dir)!r} exists and is not a folder; pass a folder path (it is created if "
            f"missing)."
        )
    held = [name for name in _RUN_MARKERS if (trace_dir / name).exists()]
    if held and not replace:
        raise TraceDirError(
            f"trace_dir {str(trace_dir)!r} already holds a captured run ({', '.join(held)} present); two runs are "
            f"never mixed in one folder. Use a new folder, or pass Snapshot(..., replace=True) to delete the old "
            f"run first."
        )
    if held:
        remove_entries(trace_dir, _RUN_ENTRIES)
    claim_trace_dir(trace_dir)


def claim_trace_dir(trace_dir: Path) -> None:
    """Create the journal exclusively: of two captures that passed the checks above at once, exactly one
    claims the folder and the other gets a TraceDirError (the check alone is not atomic)."""
    trace_dir.mkdir(parents=True, exist_ok=True)
    try:
        os.close(os.open(trace_dir / JOURNAL_NAME, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644))
    except FileExistsError:
        raise TraceDirError(
            f"trace_dir {str(trace_dir)!r} was claimed by another capture a moment ago ({JOURNAL_NAME} created); "
            f"two runs are never mixed in one folder. Give each run its own folder (e.g. one per test or "
            f"worker)."
        ) from None


class BlobStore:
    """Content by sha256 under `blobs/`; writing the same content twice is a no-op."""

    def __init__(self, trace_dir: Path) -> None:
        self.root = trace_dir / BLOBS_DIR
        self._known: set[str] = set()
        self._dirs: set[str] = set()
        self._lock = threading.Lock()

    def put(self, text: str) -> str:
        data = text.encode("utf-8")
        sha = hashlib.sha256(data).hexdigest()
        if sha in self._known:
            return sha
        with self._lock:
            if sha not in self._known:
                path = self.root / sha[:2] / sha
                if not path.exists():
                    if sha[:2] not in self._dirs:
                        path.parent.mkdir(parents=True, exist_ok=True)
                        self._dirs.add(sha[:2])
                    tmp = path.with_name(sha + ".tmp")
                    tmp.write_bytes(data)
                    tmp.replace(path)
                self._known.add(sha)
        return sha

    def get(self, sha: str) -> str:
        path = self.root / sha[:2] / sha
        try:
            return path.read_text(encoding="utf-8")
        except OSError as exc:
            raise JournalError(
                f"{path}: blob {sha} named by the journal is missing or unreadable ({exc}); the trace folder is "
                f"damaged - capture the run again."
            ) from exc


class JournalWriter:
    """Appends one JSON object per line, numbering events 1, 2, 3... under a lock (threads share it)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._file: TextIO | None = None
        self._seq = 0
        self._lock = threading.Lock()

    @property
    def events(self) -> int:
        return self._seq

    def append(self, event_type: str, payload: dict[str, Any], meta: dict[str, Any]) -> int:
        with self._lock:
            if self._file is None:
                # Opened on first use and again after finalize(), so a later set_report() still appends.
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self._file = self.path.open("a", encoding="utf-8")
            self._seq += 1
            record = {"seq": self._seq, "type": event_type, **payload, "meta": meta}
            self._file.write(json.dumps(record, sort_keys=True, ensure_ascii=False, default=str) + "\n")
            self._file.flush()
            return self._seq

    def close(self) -> None:
        with self._lock:
            if self._file is not None:
                self._file.close()
                self._file = None


@dataclass
class JournalRead:
    events: list[dict[str, Any]] = field(default_factory=list)
    summary: JournalSummary = field(default_factory=JournalSummary)


def read_journal(path: Path) -> JournalRead:
    """Parse `journal.jsonl`; a broken line is a `JournalError`, a seq gap is recorded in the summary."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        return JournalRead()
    except (OSError, UnicodeDecodeError) as exc:
        raise JournalError(f"{path}: unreadable ({exc}); capture the run again into a new folder.") from exc
    result = JournalRead()
    expected = 1
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            event = json.loads(line)
        except json.JSONDecodeError as exc:
            raise JournalError(
                f"{path}: line {number} is not valid JSON ({exc.msg} at column {exc.colno}). The journal is "
                f"append-only and written by the capture; it was edited or truncated. Capture the run again "
                f"(Snapshot(..., replace=True)), or delete line {number} to audit what remains (the gap is "
                f"then recorded)."
            ) from exc
        if not isinstance(event, dict) or not isinstance(event.get("seq"), int) or "type" not in event:
            raise JournalError(
                f"{path}: line {number} is not a journal event (an object with integer 'seq' and 'type'); "
                f"capture the run again (Snapshot(..., replace=True))."
            )
        seq = event["seq"]
        if seq < expected:
            raise JournalError(
                f"{path}: line {number} has seq {seq} after seq {expected - 1}; sequence numbers only grow. "
                f"Lines were reordered or two runs were mixed; capture the run again into a new folder."
            )
        if seq > expected:
            result.summary.gaps.append((expected, seq - 1))
        expected = seq + 1
        result.events.append(event)
    result.summary.events = len(result.events)
    return result
