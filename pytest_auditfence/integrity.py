"""Integrity of a captured trace folder: what the audit checks before it reads a byte of it.

Owns `journal_digest` (recorded in the manifest at finalize) and `verify_trace` (every file the manifest
lists, the blobs behind them and the journal must be what the capture wrote; `IntegrityError` names the file).
"""

# The digest covers every journal event without its `seq` and `meta`, in a canonical order (sorted by the
# event's own bytes), so it is as byte-stable as the manifest itself: two captures of the same run record the
# same digest. The journal is an append-only record of arrival: `seq` numbers events as they came, and
# concurrent runs (a ToolNode's parallel calls, `Send` tasks, branches) come in any order; `meta` holds what
# differs per run (run ids). The digest proves that no event was added, dropped or changed; the order of
# arrival is the journal's own record (seq only grows, a gap is a recorded fact), not part of the folder's
# canonical parts. Blobs are content-addressed: a blob's name is the sha256 of its bytes.

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pytest_auditfence.errors import IntegrityError, JournalError
from pytest_auditfence.manifest import BLOBS_DIR, JOURNAL_NAME, Manifest
from pytest_auditfence.textfmt import dump_event

if TYPE_CHECKING:
    from pytest_auditfence.capturing.store import PackReader

_RECAPTURE = "The trace folder was changed after capture; capture the run again into a new folder."


def journal_digest(events: Iterable[dict[str, Any]]) -> str:
    """sha256 over the journal's events, each as sorted JSON without its `seq` and `meta`, in sorted order:
    the same for every order in which concurrent events arrived."""
    lines = sorted(dump_event({k: v for k, v in event.items() if k not in _ARRIVAL}) for event in events)
    digest = hashlib.sha256()
    for line in lines:
        digest.update(line.encode("utf-8"))
        digest.update(b"\n")
    return digest.hexdigest()


_ARRIVAL = frozenset({"seq", "meta"})


def arrival_digest(events: Iterable[dict[str, Any]]) -> str:
    """The digest folders captured before `journal_digest` was canonical recorded: the events in journal
    order, each with its `seq`, without its `meta`."""
    digest = hashlib.sha256()
    for event in events:
        digest.update(dump_event({k: v for k, v in event.items() if k != "meta"}).encode("utf-8"))
        digest.update(b"\n")
    return digest.hexdigest()


def _blob_shas(value: Any) -> Iterable[str]:
    """Every blob reference ('blob': '<sha>' at any depth) of a journal event."""
    if isinstance(value, dict):
        for key, item in value.items():
            if key == "blob" and isinstance(item, str):
                yield item
            elif key != "meta":
                yield from _blob_shas(item)
    elif isinstance(value, list):
        for item in value:
            yield from _blob_shas(item)


def _check_blob(blobs: PackReader, sha: str, named_by: str, checked: set[str]) -> None:
    """The stored value `sha` and every blob it names (a value shares its long parts: capturing/store.py)."""
    from pytest_auditfence.capturing.store import blob_refs

    pending = [(sha, named_by, True)]
    while pending:
        sha, named_by, is_value = pending.pop()
        if sha in checked:
            continue
        try:
            data = blobs.data(sha)
        except OSError as exc:
            raise IntegrityError(f"{blobs.path}: blob {sha[:12]}... named by {named_by} is missing "
                                 f"({exc.strerror or exc}). {_RECAPTURE}") from exc
        actual = hashlib.sha256(data).hexdigest()
        if actual != sha:
            raise IntegrityError(f"{blobs.where(sha)}: blob content hashes to {actual[:12]}..., its name says "
                                 f"{sha[:12]}... (named by {named_by}). {_RECAPTURE}")
        checked.add(sha)
        if is_value and b"\\u0000" in data:  # names other blobs (their markers begin with NUL)
            try:
                value = json.loads(data)
            except (UnicodeDecodeError, json.JSONDecodeError) as exc:
                raise IntegrityError(f"{blobs.where(sha)}: blob {sha[:12]}... named by {named_by} is not a stored "
                                     f"value ({exc}). {_RECAPTURE}") from exc
            pending.extend((child, f"blob {sha[:12]}...", holds_value) for child, holds_value in blob_refs(value))


def verify_trace(trace_dir: str | Path, manifest: Manifest) -> None:
    """Refuse a trace folder whose files, blobs or journal disagree with `manifest` (`IntegrityError`).

    Checks: every listed file (the report included) hashes to its recorded sha256 (a file stored by
    reference: the text it resolves to, so an edited reference or an edited file it names is refused);
    the journal has the recorded number of events and digest, and every blob it names, and every blob
    those name, is intact."""
    from pytest_auditfence.capturing.store import PackReader, read_journal

    from pytest_auditfence.capturing.tracefiles import TraceFiles

    root = Path(trace_dir)
    files = TraceFiles(root)  # a file stored by reference is hashed as the text it stands for
    checked: set[str] = set()
    for record in manifest.files:
        path = root / record.path
        try:
            actual = hashlib.sha256(files.data(record.path)).hexdigest()
        except FileNotFoundError as exc:
            raise IntegrityError(f"{path}: listed in the manifest but missing from the trace folder. "
                                 f"{_RECAPTURE}") from exc
        except OSError as exc:
            raise IntegrityError(f"{path}: listed in the manifest but unreadable ({exc.strerror or exc}). "
                                 f"{_RECAPTURE}") from exc
        if actual != record.sha256:
            raise IntegrityError(
                f"{path}: sha256 is {actual[:12]}..., the manifest records {record.sha256[:12]}...: the file was "
                f"edited after capture. {_RECAPTURE}"
            )
    journal = root / JOURNAL_NAME
    recorded = manifest.journal
    if not journal.is_file():
        if recorded.events:
            raise IntegrityError(f"{journal}: missing, the manifest records {recorded.events} events. {_RECAPTURE}")
        return
    try:
        read = read_journal(journal)
    except JournalError as exc:
        raise IntegrityError(str(exc)) from exc
    if read.summary.events != recorded.events:
        raise IntegrityError(f"{journal}: holds {read.summary.events} events, the manifest records "
                             f"{recorded.events}. {_RECAPTURE}")
    # A folder of an earlier version recorded the arrival digest; either matching is a preimage of the
    # recorded sha256, so accepting both is no weaker than the canonical one alone.
    if recorded.digest is not None and recorded.digest not in (journal_digest(read.events),
                                                               arrival_digest(read.events)):
        raise IntegrityError(f"{journal}: its events do not match the digest the manifest records "
                             f"({recorded.digest[:12]}...): the journal was edited after capture. {_RECAPTURE}")
    with PackReader(root / BLOBS_DIR) as blobs:
        try:
            blobs.index()
        except JournalError as exc:
            raise IntegrityError(str(exc)) from exc
        for event in read.events:
            for sha in _blob_shas(event):
                _check_blob(blobs, sha, f"journal event {event['seq']}", checked)
