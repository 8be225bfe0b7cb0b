"""The trace folder on disk: the append-only journal, the sha256 content store and the folder's lifecycle.

Owns `journal.jsonl` (writing with sequence numbers, reading back with gap and broken-line detection),
`blobs/<sha[:2]>/<sha>`, and the rule that a folder never mixes two runs.
"""

from __future__ import annotations

import hashlib
import json
import mmap
import os
import shutil
import stat
import threading
from collections.abc import Container, Iterable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from pytest_auditfence.errors import JournalError, TraceDirError
from pytest_auditfence.manifest import BLOBS_DIR, JOURNAL_NAME, MANIFEST_NAME, REPORT_NAME, JournalSummary
from pytest_auditfence.textfmt import PREFIX_MIN, dump_event, dump_json, extended_from

# Files whose presence means a folder already holds a run.
_RUN_MARKERS = (JOURNAL_NAME, MANIFEST_NAME)
# What finalize() materialises from the journal (rewritten on every finalize).
MATERIALIZED_ENTRIES = (MANIFEST_NAME, REPORT_NAME, "input", "nodes", "tools", "models", "retrievers", "artifacts")
# What a run writes; `replace=True` removes exactly these and nothing the user keeps beside them.
_RUN_ENTRIES = (JOURNAL_NAME, BLOBS_DIR, *MATERIALIZED_ENTRIES)


def remove_entries(trace_dir: Path, names: tuple[str, ...], keep: Container[str] = ()) -> None:
    """Remove each of `names` (files or folders) from `trace_dir`, but for the files `keep` names (paths relative
    to `trace_dir` with '/' between their parts) and the folders holding them."""
    for name in names:
        path = trace_dir / name
        if path.is_dir() and not path.is_symlink():
            if not keep:
                shutil.rmtree(path)
                continue
            for folder, dirs, files in os.walk(path, topdown=False):
                for file in files:
                    if PurePosixPath(Path(folder, file).relative_to(trace_dir)).as_posix() not in keep:
                        os.unlink(os.path.join(folder, file))
                for inner in dirs:
                    inner_path = os.path.join(folder, inner)
                    if os.path.islink(inner_path):
                        os.unlink(inner_path)
                    elif not os.listdir(inner_path):
                        os.rmdir(inner_path)
            if not os.listdir(path):
                os.rmdir(path)
        elif (path.exists() or path.is_symlink()) and name not in keep:
            path.unlink()


def write_text_file(path: str | Path, text: str) -> None:
    """`path.write_text(text, encoding="utf-8")` without the buffered text layers: finalize() writes some
    hundred files and each `open()` builds a TextIOWrapper around a BufferedWriter around the file."""
    write_file(path, text.encode("utf-8"))


def write_file(path: str | Path, data: bytes) -> None:
    """`path.write_bytes(data)` in three system calls (open, write, close) for a file of usual size."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o666)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
    finally:
        os.close(fd)


def blob_entry(sha: str, data: bytes) -> bytes:
    """A blob's entry in the pack as stored whole: its header line ('sha256 <sha> <length>') and its bytes."""
    return b"sha256 %s %d\n%s\n" % (sha.encode("ascii"), len(data), data)


def write_trace_files(trace_dir: Path, files: Iterable[tuple[str, str]]) -> None:
    """Write each (path relative to `trace_dir` with '/' between its parts, text) in turn: the folders a path
    names are made the first time one does, by one mkdir a level, nothing looked up before; each file by
    write_text_file. A failure is a TraceDirError naming the file or folder and the system's reason."""
    root = os.fspath(trace_dir)
    made: set[str] = {""}
    for rel, text in files:
        folder = rel.rpartition("/")[0]
        target = folder
        try:
            if folder not in made:
                parts = folder.split("/")
                for depth in range(1, len(parts) + 1):
                    target = "/".join(parts[:depth])
                    if target not in made:
                        try:
                            os.mkdir(f"{root}/{target}")
                        except FileExistsError:
                            if not os.path.isdir(f"{root}/{target}"):
                                raise
                        made.add(target)
            target = rel
            write_text_file(f"{root}/{target}", text)
        except OSError as exc:
            raise TraceDirError(f"{root}/{target}: could not be {'written' if target == rel else 'made'} "
                                f"({exc.strerror or exc})") from exc


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


# A stored value shares what it repeats (seed 003's content-addressed store, applied inside values): a long
# string is its own blob, so a tool's output and the message that carries it, and every later state that
# holds that message, name one blob; a large dict is its own blob; a long list is cut into chunks at item
# boundaries chosen by the items' own digests, so a list that grew by a few items (a node's input: the
# whole state again, plus the last node's messages) shares every chunk but its last with the list before.
# A reference is a one-key dict whose key begins with NUL, which no captured value has unescaped.
TEXT_REF = "\x00text"  # {"\x00text": sha}: a string, stored as its UTF-8 bytes
VALUE_REF = "\x00value"  # {"\x00value": sha}: a dict or list, stored as JSON (which may hold references)
CHUNKS = "\x00chunks"  # {"\x00chunks": [sha, ...]}: a list, the concatenation of the lists those blobs hold
ESCAPED = "\x00dict"  # {"\x00dict": {...}}: a captured dict with a key beginning with NUL, kept as it was
_MARKERS = frozenset({TEXT_REF, VALUE_REF, CHUNKS, ESCAPED})
# Strings and containers shorter than this (as JSON) stay inline: a reference costs about 80 bytes.
SHARE_MIN = 256
# One item in CHUNK_SPREAD ends a chunk (on average), at every level of the chunk tree.
CHUNK_SPREAD = 8


def blob_refs(value: Any) -> Iterable[tuple[str, bool]]:
    """(sha, holds a stored value) for each blob a stored value names directly: TEXT_REF names the raw
    text of a string, VALUE_REF and CHUNKS name stored values (which may name blobs in turn)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            if len(item) == 1:
                key, inner = next(iter(item.items()))
                if key in (TEXT_REF, VALUE_REF) and isinstance(inner, str):
                    yield inner, key == VALUE_REF
                    continue
                if key == CHUNKS and isinstance(inner, list):
                    yield from ((sha, True) for sha in inner if isinstance(sha, str))
                    continue
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


# Blobs live in one pack, `blobs/pack`: each is a header line `sha256 <hex> <bytes>`, its bytes and a line
# break. One file instead of one per blob: creating a file (and its folder) costs more than writing the bytes,
# and a run stores hundreds of small blobs. The pack is appended to while the run goes on; finalize() then
# rewrites it once, so that a long string that a raw-data text file holds line for line (a tool's output) is
# not stored twice: its entry becomes a header line only, `lines <hex> <bytes> <start> <end> <indent> <nl>
# <path>`: the blob is lines start-end of that trace file with `indent` spaces taken off every non-empty
# line, joined by line breaks, and one more line break when <nl> is 1. The text file is the stored copy
# (a grep of the folder finds the tool's text in it); the blob refers to it, and its sha256 still names it.
PACK_NAME = "pack"
# Blobs this process wrote are kept in memory up to this many characters, so finalize() reads none back.
RECENT_CHARS = 64_000_000
NO_VALUE: Any = object()  # BlobStore.recent_value: nothing kept for that sha


class TextRef(tuple):  # type: ignore[type-arg]
    """A pack entry whose bytes are lines of a trace text file: (path, start, end, indent, newline, length)."""

    __slots__ = ()

    def __new__(cls, path: str, start: int, end: int, indent: int, newline: bool, length: int) -> TextRef:
        return super().__new__(cls, (path, start, end, indent, newline, length))

    def header(self, sha: str) -> bytes:
        path, start, end, indent, newline, length = self
        return f"lines {sha} {length} {start} {end} {indent} {int(newline)} {path}\n".encode()


def _text_ref(header: bytes) -> TextRef | None:
    parts = header[:-1].decode("utf-8", "replace").split(" ", 7)
    if len(parts) != 8 or not header.endswith(b"\n") or len(parts[1]) != 64:
        return None
    numbers, path = parts[2:7], parts[7]
    if not all(n.isdigit() for n in numbers) or numbers[4] not in ("0", "1"):
        return None
    length, start, end, indent, newline = (int(n) for n in numbers)
    pure = PurePosixPath(path)
    if not path or path.startswith("/") or "\\" in path or ".." in pure.parts or not 1 <= start <= end:
        return None
    return TextRef(path, start, end, indent, bool(newline), length)


def text_lines(text: str, ref: TextRef) -> str:
    """The blob a `lines` entry stands for, cut out of the text of the file it names (see PACK_NAME).

    Lines that are missing or lack the indent give other bytes, which the blob's sha256 then refuses."""
    _, start, end, indent, newline, _ = ref
    body = _unindented(text.split("\n")[start - 1:end], indent)
    return body + "\n" if newline else body


def _unindented(lines: list[str], indent: int) -> str:
    """`lines` joined by line breaks, `indent` spaces taken off each line that has them."""
    pad = " " * indent
    return "\n".join(ln[indent:] if ln.startswith(pad) else ln for ln in lines)


class PackReader:
    """Reads blobs from a folder's pack by sha256 (and from `blobs/<sha[:2]>/<sha>`, the layout of older
    captures); the index of the pack is built once, by reading its header lines."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.path = root / PACK_NAME
        self._index: dict[str, tuple[int, int] | TextRef] | None = None
        self._file: Any = None
        self._texts: dict[str, str] = {}

    def index(self) -> dict[str, tuple[int, int] | TextRef]:
        """sha256 -> (offset, length) of every blob in the pack, or the TextRef of one stored as lines of a
        trace file, in the pack's order; a damaged pack is a `JournalError`."""
        if self._index is None:
            index: dict[str, tuple[int, int] | TextRef] = {}
            try:
                file = self.path.open("rb")
            except FileNotFoundError:
                self._index = index
                return index
            with file:
                size = os.fstat(file.fileno()).st_size
                while (start := file.tell()) < size:
                    header = file.readline(4200)
                    if header.startswith(b"lines "):
                        ref = _text_ref(header)
                        if ref is None:
                            raise JournalError(f"{self.path}: byte {start} is not a well-formed 'lines' header "
                                               f"('lines <hex> <length> <start> <end> <indent> <0|1> <path>'); the "
                                               f"pack was edited or cut. Capture the run again.")
                        index[header.split(b" ", 2)[1].decode("ascii")] = ref
                        continue
                    parts = header.split(b" ")
                    if len(parts) != 3 or parts[0] != b"sha256" or not header.endswith(b"\n") or not (
                        parts[2][:-1].isdigit() and len(parts[1]) == 64):
                        raise JournalError(f"{self.path}: byte {start} is not the header of a blob "
                                           f"('sha256 <hex> <length>'); the pack was edited or cut. Capture the "
                                           f"run again.")
                    length = int(parts[2])
                    offset = file.tell()
                    if offset + length + 1 > size:
                        raise JournalError(f"{self.path}: the blob at byte {start} is cut short; the pack was "
                                           f"edited or cut. Capture the run again.")
                    index[parts[1].decode("ascii")] = (offset, length)
                    file.seek(offset + length + 1)
            self._index = index
        return self._index

    def data(self, sha: str) -> bytes:
        """The bytes stored under `sha`; `FileNotFoundError` when no blob has that name (or the trace file a
        `lines` entry names is gone)."""
        where = self.index().get(sha)
        if where is None:
            return (self.root / sha[:2] / sha).read_bytes()
        if isinstance(where, TextRef):
            text = self._texts.get(where[0])
            if text is None:
                text = self._texts[where[0]] = (self.root.parent / where[0]).read_bytes().decode("utf-8", "replace")
            return text_lines(text, where).encode("utf-8")
        if self._file is None:
            self._file = self.path.open("rb")
        self._file.seek(where[0])
        return self._file.read(where[1])

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None

    def __enter__(self) -> PackReader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def where(self, sha: str) -> Path:
        """The file that holds the blob's bytes: the pack, the trace file a `lines` entry names, or the blob
        file of an older capture."""
        entry = self.index().get(sha)
        if isinstance(entry, TextRef):
            return self.root.parent / entry[0]
        return self.path if entry is not None else self.root / sha[:2] / sha


def text_references(files: Iterable[tuple[str, str, list[tuple[str, int, int, int]]]],
                    stored: Container[str]) -> dict[str, TextRef]:
    """For (path, text, placements) of the trace files written as themselves, in the order they are written:
    the blobs among `stored` (sha256s) that such a file holds line for line, each as a TextRef to the first
    file that does. A placement is only a hint (textfmt.Placement): it counts when its lines give the blob's
    text back exactly (a wrapped, cut or redacted string does not, and keeps its bytes in the pack)."""
    refs: dict[str, TextRef] = {}
    for path, text, placements in files:
        lines: list[str] | None = None
        for string, at, count, indent in placements:
            sha = hashlib.sha256(string.encode("utf-8")).hexdigest()
            if sha in refs or sha not in stored:
                continue
            if lines is None:
                lines = text.split("\n")
            pad = " " * indent
            part = lines[at:at + count]
            if len(part) != count or not all(ln.startswith(pad) or not ln for ln in part):
                continue
            body = _unindented(part, indent)
            if string == body or string == body + "\n":
                refs[sha] = TextRef(path, at + 1, at + count, indent, string != body, len(string.encode("utf-8")))
    return refs


class _AppendedFile:
    """A file this process appends to under a lock, written out on `sync` and at `close`."""

    def __init__(self) -> None:
        self._file: Any = None
        self._lock = threading.Lock()

    def sync(self) -> None:
        """Write what was buffered (the recorder does it once per flushed batch, not per line or blob)."""
        with self._lock:
            if self._file is not None:
                self._file.flush()

    def close(self) -> None:
        with self._lock:
            if self._file is not None:
                self._file.close()
                self._file = None


class BlobStore(_AppendedFile):
    """Content by sha256 in `blobs/pack`; writing the same content twice is a no-op.

    `put_value` and `reader().value` store and load JSON data with shared parts (see TEXT_REF above);
    `put`/`get` are the text of one blob."""

    def __init__(self, trace_dir: Path) -> None:
        super().__init__()
        self.root = trace_dir / BLOBS_DIR
        self.path = self.root / PACK_NAME
        self._known: set[str] = set()
        self._recent: dict[str, str] = {}
        self._recent_chars = 0
        # The data put_value stored since the last forget_recent(), by the top blob's sha: finalize() renders
        # from it instead of parsing and resolving the blobs it has just written.
        self._recent_values: dict[str, Any] = {}
        self._reader: PackReader | None = None
        self._referring = False  # whether the pack holds `lines` entries (set by rewrite)
        # Whether the pack's entries are in canonical order (each sha256 greater than the one before); `_last`
        # is the greatest sha256 in it.
        self._in_order, self._last = True, ""

    def put(self, text: str) -> str:
        data = text.encode("utf-8")
        sha = hashlib.sha256(data).hexdigest()
        if sha in self._known:
            return sha
        with self._lock:
            if sha not in self._known:
                if self._file is None:
                    self.root.mkdir(parents=True, exist_ok=True)
                    self._file = (self.root / PACK_NAME).open("ab")
                self._file.write(blob_entry(sha, data))
                self._known.add(sha)
                if sha > self._last:
                    self._last = sha
                else:
                    self._in_order = False
                if self._recent_chars + len(text) <= RECENT_CHARS:
                    self._recent[sha] = text
                    self._recent_chars += len(text)
        return sha

    def close(self) -> None:
        super().close()
        with self._lock:
            if self._reader is not None:
                self._reader.close()
                self._reader = None

    def referred_files(self) -> frozenset[str]:
        """The trace files (paths relative to the trace folder) whose lines the pack's `lines` entries name."""
        if not self._referring:
            return frozenset()
        with PackReader(self.root) as reader:
            return frozenset(entry[0] for entry in reader.index().values() if isinstance(entry, TextRef))

    @property
    def referring(self) -> bool:
        """Whether the pack holds `lines` entries (blobs stored as lines of trace text files)."""
        return self._referring

    def stored(self) -> frozenset[str]:
        """The sha256 of every blob in the pack (a store always starts a new pack: prepare_trace_dir)."""
        with self._lock:
            return frozenset(self._known)

    def referenced_bytes(self) -> dict[str, bytes]:
        """The bytes of every blob whose pack entry names lines of a trace file, read now (finalize() calls it
        before it rewrites the text files, and keeps them for `rewrite`)."""
        out: dict[str, bytes] = {}
        if not self._referring:
            return out
        with PackReader(self.root) as reader:
            for sha, entry in reader.index().items():
                if isinstance(entry, TextRef):
                    data = reader.data(sha)
                    if hashlib.sha256(data).hexdigest() != sha:
                        raise JournalError(f"{reader.where(sha)}: lines {entry[1]}-{entry[2]} no longer hold blob "
                                           f"{sha} (the file was edited after capture). Capture the run again.")
                    out[sha] = data
        return out

    def rewrite(self, kept: dict[str, bytes], refs: dict[str, TextRef]) -> None:
        """Write the pack again in its canonical order (by sha256), each blob of `refs` as a `lines` entry and
        every other one with its bytes (`kept`: those of old `lines` entries, see referenced_bytes); one rename
        replaces it. Nothing is written when no entry changes and the pack is in that order already.

        The run appends blobs in the order their events arrived, and concurrent runs (a ToolNode's parallel
        calls, `Send` tasks) arrive in any order; sorted, the finalized pack is the same bytes in every rerun."""
        if not refs and not self._referring and self._in_order:
            return  # nothing refers, nothing is to, and the appends came in order: the pack stays as it is
        with self._lock:
            if self._file is not None:
                self._file.close()
                self._file = None
            if self._reader is not None:
                self._reader.close()
                self._reader = None
            temporary = self.root / (PACK_NAME + ".new")
            try:
                names = self._write_sorted(temporary, kept, refs)
                if names is None:
                    return
                os.replace(temporary, self.path)
            except BaseException:
                # a failed write (a full disk) leaves no partial `pack.new` beside the pack, which is untouched
                try:
                    os.unlink(temporary)
                except OSError:
                    pass
                raise
            self._referring = bool(refs)
            self._in_order, self._last = True, max(names, default="")

    def _write_sorted(self, temporary: Path, kept: dict[str, bytes], refs: dict[str, TextRef]) -> list[str] | None:
        """Write the pack in canonical order to `temporary` (see rewrite); the sha256s it holds, or None (and
        nothing written) when the pack on disk is that pack already."""
        recent = self._recent
        if not self._referring and all(sha in recent for sha in self._known):
            # every blob of the pack was put since it began and is still in memory: nothing read back
            names = sorted(self._known)
            write_file(temporary, b"".join(
                ref.header(sha) if (ref := refs.get(sha)) is not None
                else blob_entry(sha, recent[sha].encode("utf-8"))
                for sha in names))
            return names
        with PackReader(self.root) as reader:
            index = reader.index()
            if self._in_order and all(
                    (sha in refs) == isinstance(entry, TextRef) and (sha not in refs or refs[sha] == entry)
                    for sha, entry in index.items()):
                return None
            # the old pack mapped, not read blob by blob (a seek and a read each) nor whole into memory
            with self.path.open("rb") as old, mmap.mmap(old.fileno(), 0, access=mmap.ACCESS_READ) as mapped, \
                    temporary.open("wb") as out:
                for sha in sorted(index):
                    entry, ref = index[sha], refs.get(sha)
                    if ref is not None:
                        out.write(ref.header(sha))
                        continue
                    data = kept[sha] if isinstance(entry, TextRef) else mapped[entry[0]:entry[0] + entry[1]]
                    out.write(blob_entry(sha, data))
            return list(index)

    def forget_recent(self) -> None:
        with self._lock:
            self._recent, self._recent_chars, self._recent_values = {}, 0, {}

    def recent_value(self, sha: str) -> Any:
        """The data put_value stored under `sha` since the last forget_recent(), else NO_VALUE."""
        return self._recent_values.get(sha, NO_VALUE)

    def get(self, sha: str) -> str:
        text = self._recent.get(sha)
        if text is not None:
            return text
        self.sync()
        with self._lock:
            if self._reader is None or sha not in self._reader.index():
                if self._reader is not None:
                    self._reader.close()
                self._reader = PackReader(self.root)  # the pack grew since the last read
            reader = self._reader
        try:
            return reader.data(sha).decode("utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise JournalError(
                f"{reader.where(sha)}: blob {sha} named by the journal is missing or unreadable ({exc}); the trace "
                f"folder is damaged - capture the run again."
            ) from exc

    # -- values with shared parts --------------------------------------------------------------------
    def put_value(self, data: Any, memo: dict[Any, Any] | None = None) -> str:
        """Store JSON data (`to_jsonable` output) with its long strings, large dicts and long lists shared;
        returns the sha256 of the top blob. `memo` (a batch's, shared with the redactor) keeps each long
        string hashed and each message encoded once per batch."""
        batch = memo.setdefault(_ENCODED, _Encoded()) if memo is not None else _Encoded()
        sha = self.put(dump_json(self._encode(data, batch, top=True)))
        if sha in self._recent:  # kept as long as its text is (the same bound on memory)
            self._recent_values[sha] = data
        return sha

    def _encode(self, data: Any, batch: _Encoded, top: bool = False) -> Any:
        if isinstance(data, str):
            if len(data) < SHARE_MIN:
                return data
            sha = batch.strings.get(data)
            if sha is None:
                sha = batch.strings[data] = self.put(data)
            return {TEXT_REF: sha}
        if isinstance(data, dict):
            # the redactor hands every later state the same dict for a message: encode it once
            shared = not top and "content" in data and "type" in data
            if shared:
                hit = batch.messages.get(id(data))
                if hit is not None and hit[0] is data:
                    return hit[1]
            out: Any = {key: self._encode(item, batch) for key, item in data.items()}
            if any(key[:1] == "\x00" for key in out):
                out = {ESCAPED: out}
            done = self._shared(out, batch, top)
            if shared:
                batch.messages[id(data)] = (data, done)
            return done
        if isinstance(data, list):
            if len(data) >= PREFIX_MIN:
                return self._shared(self._extended_list(data, batch), batch, top)
            return self._shared([self._encode(item, batch) for item in data], batch, top)
        return data

    def _extended_list(self, data: list[Any], batch: _Encoded) -> list[Any]:
        """`[self._encode(item, batch) for item in data]`, the items it shares with the last list of messages
        encoded that began with the same message taken from that list's encoding (each is the batch's
        encoding of that message either way): a node's state repeats every earlier message."""
        out, done = extended_from(batch.lists.get(id(data[0])), data, lambda item: self._encode(item, batch))
        rest = data[done:] if done else data
        if all(type(item) is dict and "content" in item and "type" in item for item in rest):
            batch.lists[id(data[0])] = (list(data), out[:])  # the items kept alive: their ids stay theirs
        return out

    def _shared(self, out: Any, batch: _Encoded, top: bool) -> Any:
        if isinstance(out, list) and len(out) > CHUNK_SPREAD:
            chunked = self._chunked(out, batch)
            if chunked is None:
                return out
            return chunked if top else {VALUE_REF: self.put(dump_json(chunked))}
        if top:
            return out  # the top blob holds it whatever its size: its JSON is not needed to decide
        text = dump_json(out)
        return out if len(text) < SHARE_MIN else {VALUE_REF: self.put(text)}

    def _chunked(self, items: list[Any], batch: _Encoded) -> dict[str, list[str]] | None:
        """A long list as a tree of chunks whose boundaries depend only on the items (so equal prefixes give
        equal chunks): level 0 holds the items, every level above the shas of the level below. None (and
        nothing stored) when the list is shorter than SHARE_MIN as JSON."""
        ends = batch.ends_of(items)
        parts: list[list[Any]] = []
        start = 0
        for i, end in enumerate(ends):
            if end or i == len(ends) - 1:
                parts.append(items[start:i + 1])
                start = i + 1
        texts = [batch.chunk_text(part) for part in parts]
        if sum(len(text) for text in texts) < SHARE_MIN:
            return None
        chunks = [batch.chunk_sha(part, text, self.put) for part, text in zip(parts, texts, strict=True)]
        while len(chunks) > CHUNK_SPREAD:
            level, chunks, start = chunks, [], 0
            for i, sha in enumerate(level):
                if int(sha[:8], 16) % CHUNK_SPREAD == 0 or i == len(level) - 1:
                    chunks.append(self.put(dump_json({CHUNKS: level[start:i + 1]})))
                    start = i + 1
        return {CHUNKS: chunks}

    def reader(self) -> BlobReader:
        return BlobReader(self)


class BlobReader:
    """Loads values `BlobStore.put_value` stored, each shared blob read and decoded once (one reader per
    materialisation or integrity check: it keeps what it read)."""

    def __init__(self, blobs: BlobStore) -> None:
        self.blobs = blobs
        self._texts: dict[str, str] = {}
        self._values: dict[str, Any] = {}

    def value(self, sha: str) -> Any:
        """The JSON data stored under `sha`, every reference resolved (shared parts are shared objects: do
        not change what this returns)."""
        recent = self.blobs.recent_value(sha)
        if recent is not NO_VALUE:  # put by this process: the same data the blobs decode to
            return recent
        return self._decode(self._json(sha))

    def _json(self, sha: str) -> Any:
        try:
            return json.loads(self.blobs.get(sha))
        except json.JSONDecodeError as exc:
            raise JournalError(f"{self.blobs.root / sha[:2] / sha}: blob {sha} is not JSON ({exc.msg}); the trace "
                               f"folder is damaged - capture the run again.") from exc

    def _shared(self, sha: str) -> Any:
        cached = self._values.get(sha)
        if cached is None:
            cached = self._values[sha] = self._decode(self._json(sha))
        return cached

    def _text(self, sha: str) -> str:
        cached = self._texts.get(sha)
        if cached is None:
            cached = self._texts[sha] = self.blobs.get(sha)
        return cached

    def _decode(self, data: Any) -> Any:
        if isinstance(data, list):
            return [self._decode(item) for item in data]
        if not isinstance(data, dict):
            return data
        if len(data) == 1:
            key, inner = next(iter(data.items()))
            if key in _MARKERS:
                if key == TEXT_REF:
                    return self._text(inner)
                if key == VALUE_REF:
                    return self._shared(inner)
                if key == CHUNKS:
                    joined: list[Any] = []
                    for sha in inner:
                        joined.extend(self._shared(sha))
                    return joined
                return {k: self._decode(v) for k, v in inner.items()}
        return {key: self._decode(item) for key, item in data.items()}


class _Encoded:
    """What one batch has stored already: long strings by value, messages by the redacted dict's id."""

    __slots__ = ("strings", "messages", "ends", "chunks", "lists", "list_ends")

    def __init__(self) -> None:
        self.strings: dict[str, str] = {}
        self.messages: dict[int, tuple[Any, Any]] = {}
        self.ends: dict[int, tuple[Any, bool]] = {}
        # the last list of messages by its first item's id: its items and their encodings (_extended_list),
        # and the last encoded list by its first item's id: its items and where chunks end (ends_of)
        self.lists: dict[int, tuple[list[Any], list[Any]]] = {}
        self.list_ends: dict[int, tuple[list[Any], list[bool]]] = {}
        # a chunk of the same item objects as before (the next state's list): its JSON and blob name again
        self.chunks: dict[tuple[int, ...], tuple[list[Any], str, list[str]]] = {}

    def chunk_text(self, part: list[Any]) -> str:
        key = tuple(map(id, part))
        hit = self.chunks.get(key)
        if hit is not None and all(a is b for a, b in zip(hit[0], part, strict=True)):
            return hit[1]
        text = dump_json(part)
        self.chunks[key] = (part, text, [])  # the entry keeps the items alive, so their ids stay theirs
        return text

    def chunk_sha(self, part: list[Any], text: str, put: Any) -> str:
        entry = self.chunks[tuple(map(id, part))]
        if not entry[2]:
            entry[2].append(put(text))
        return entry[2][0]

    def ends_of(self, items: list[Any]) -> list[bool]:
        """`[self.ends_chunk(item) for item in items]`, the ends of the items it shares with the last list
        that began with the same item taken from that list's (each item's end depends on it alone)."""
        if len(items) < PREFIX_MIN:
            return [self.ends_chunk(item) for item in items]
        out, _ = extended_from(self.list_ends.get(id(items[0])), items, self.ends_chunk)
        self.list_ends[id(items[0])] = (list(items), out[:])  # the items kept alive: their ids stay theirs
        return out

    def ends_chunk(self, item: Any) -> bool:
        """Whether a chunk ends after `item`: one item in CHUNK_SPREAD, decided by the item's digest alone."""
        if isinstance(item, dict):
            hit = self.ends.get(id(item))
            if hit is not None and hit[0] is item:
                return hit[1]
        end = hashlib.sha256(dump_json(item).encode("utf-8")).digest()[0] % CHUNK_SPREAD == 0
        if isinstance(item, dict):
            self.ends[id(item)] = (item, end)
        return end


_ENCODED = "\x00encoded"  # the key of a batch memo's _Encoded


class JournalWriter(_AppendedFile):
    """Appends one JSON object per line, numbering events 1, 2, 3... under a lock (threads share it)."""

    def __init__(self, path: Path) -> None:
        super().__init__()
        self.path = path
        self._seq = 0

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
            self._file.write(dump_event(record) + "\n")
            return self._seq


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
