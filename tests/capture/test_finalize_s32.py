"""A finalize() after the pack has come to store blobs as lines of the tool files (a report set after a first
finalize) gives the pack those blobs' own bytes back before it removes and writes the files again: a tool file
whose write fails part-way loses no byte (the error names the file and the fix, and the retry writes the files
of a run never interrupted); a pack that cannot be rewritten then leaves the folder as it was. And the line sharer
takes the first lines of a node input or model call that begins like an earlier file (the renderer's hint,
checked) from that file instead of splitting and summing them again: the folder is the same bytes."""

from __future__ import annotations

import errno
import hashlib
import os
from collections.abc import Callable
from itertools import accumulate
from pathlib import Path
from typing import Any

import pytest

from pytest_auditfence import Snapshot, read_trace_text
from pytest_auditfence.capturing import store, topology, tracefiles
from pytest_auditfence.capturing.store import PACK_NAME, PackReader, TextRef
from pytest_auditfence.errors import TraceDirError
from pytest_auditfence.manifest import JOURNAL_NAME, MANIFEST_NAME, REPORT_NAME
from tests.capture.test_finalize_linear import ENV_SECRET, OPENAI
from tests.capture.test_finalize_s30 import _blobs_whole, _capture, _folder
from tests.capture.test_finalize_s31 import REPORT, _agent, _half_written, _real_open, _real_write_file, _texts


def _full_disk_from(monkeypatch: pytest.MonkeyPatch, failures: list[str], first: Callable[[str], bool],
                    half: bool) -> None:
    """The first file write for which `first(path)` holds fails as a full disk does (after putting half its bytes
    on disk when `half`), and so does every later write (a text file's or the pack's)."""
    write = store.write_file
    opened = store.Path.open

    def full_disk(path: Any, data: bytes) -> None:
        name = os.fspath(path)
        if failures or first(name):
            if not failures and half:
                write(path, data[:len(data) // 2])
            failures.append(name)
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        write(path, data)

    def open_full(self: Any, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
        if failures and "w" in mode:
            failures.append(str(self))
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return opened(self, mode, *args, **kwargs)

    monkeypatch.setattr(store, "write_file", full_disk)
    monkeypatch.setattr(store.Path, "open", open_full)


def _refers(root: Path) -> set[str]:
    """The files whose lines the pack's `lines` entries name."""
    with PackReader(root / "blobs") as reader:
        return {entry[0] for entry in reader.index().values() if isinstance(entry, TextRef)}


def _secret_free(folder: dict[str, bytes]) -> None:
    for path, data in folder.items():
        assert OPENAI.encode() not in data and ENV_SECRET.encode() not in data, path


def _clean_retry(monkeypatch: pytest.MonkeyPatch, snap: Snapshot, tmp_path: Path, mode: str) -> dict[str, bytes]:
    """The writes work again: finalize() gives the files of a run never interrupted (with the report set)."""
    monkeypatch.setattr(store, "write_file", _real_write_file)
    monkeypatch.setattr(store.Path, "open", _real_open)
    snap.finalize()
    clean = _capture(tmp_path / "u", mode=mode, secret_in=2)
    clean.set_report(REPORT)
    clean.finalize()
    retried = _folder(tmp_path / "t")
    clean_files = _folder(tmp_path / "u")
    assert retried.pop(MANIFEST_NAME) != b"" and clean_files.pop(MANIFEST_NAME) != b""  # run ids and times differ
    assert retried == clean_files
    assert _refers(tmp_path / "t")  # the retry stores the tool outputs as lines of their files again
    for record in snap.load_manifest().files:  # every file reads back as what the manifest's sha256 names
        text = read_trace_text(tmp_path / "t", record.path)
        assert hashlib.sha256(text.encode("utf-8")).hexdigest() == record.sha256, record.path
    _secret_free(retried)
    return retried


@pytest.mark.parametrize("mode", ["invoke", "ainvoke"])
def test_a_tool_file_write_failing_after_the_pack_referred_to_it_loses_no_byte(tmp_path, monkeypatch, mode):
    """A first finalize() stores the tool outputs' blobs as lines of the tool files; a report set after makes
    finalize() write them again, and the first tool file's write puts half its bytes on disk and fails (the disk
    stays full). The error names the file and the fix; no half folder is left (only the journal and a pack
    holding every blob's own bytes); the retry writes a clean run's files. Before, the pack still named lines of
    the half file, which was kept as their only copy, and the retry failed on a blob whose bytes were gone."""
    snap = _capture(tmp_path / "t", mode=mode, secret_in=2)
    snap.finalize()
    root = tmp_path / "t"
    assert _refers(root)
    snap.set_report(REPORT)
    failures: list[str] = []
    _full_disk_from(monkeypatch, failures, lambda name: "/tools/" in name, half=True)
    with pytest.raises(TraceDirError) as raised:
        snap.finalize()
    message = str(raised.value)
    assert failures and "/tools/" in failures[0]
    assert f"{failures[0]}: could not be written (No space left on device)" in message
    assert "fix the cause (disk space" in message and "call finalize() again" in message
    assert OPENAI not in message and ENV_SECRET not in message
    assert sorted(p.name for p in root.iterdir()) == ["blobs", JOURNAL_NAME]  # nothing materialised is left
    assert sorted(p.name for p in (root / "blobs").iterdir()) == [PACK_NAME]
    _blobs_whole(root)  # every blob's own bytes: none stored as lines of a (half) file
    _clean_retry(monkeypatch, snap, tmp_path, mode)


def test_a_pack_that_cannot_take_its_bytes_back_leaves_the_folder_as_it_was(tmp_path, monkeypatch):
    """The disk is full before the second finalize() writes anything: the pack cannot be rewritten with the
    blobs' own bytes. The error names the pack and the fix, and says nothing was removed; every file of the first
    finalize() is there with its bytes (the report aside), reads back as its manifest sha256, and no `pack.new`
    is left. Before, the files were removed and the tool files' blobs kept only in the tool files."""
    snap = _capture(tmp_path / "t", secret_in=2)
    snap.finalize()
    root = tmp_path / "t"
    before = _folder(root)
    snap.set_report(REPORT)
    failures: list[str] = []
    _half_written(monkeypatch, failures)
    with pytest.raises(TraceDirError) as raised:
        snap.finalize()
    assert len(failures) == 1 and failures[0].endswith(f"blobs/{PACK_NAME}.new")
    message = str(raised.value)
    assert f"{root / 'blobs' / PACK_NAME}: could not be rewritten (No space left on device)" in message
    assert "Nothing was removed" in message and "call finalize() again" in message
    after = _folder(root)
    assert after.pop(REPORT_NAME) == REPORT.encode()  # set_report writes it at once
    pack = f"blobs/{PACK_NAME}"
    assert after.pop(pack).startswith(before.pop(pack))  # the report's blob appended, nothing else changed
    assert after == before
    assert sorted(p.name for p in (root / "blobs").iterdir()) == [PACK_NAME]
    for record in Snapshot(root).load_manifest().files:
        text = read_trace_text(root, record.path)
        assert hashlib.sha256(text.encode("utf-8")).hexdigest() == record.sha256, record.path
    failures.clear()
    _clean_retry(monkeypatch, snap, tmp_path, "invoke")
    assert not failures


def test_a_write_failing_after_the_pack_referred_again_keeps_the_whole_tool_files(tmp_path, monkeypatch):
    """The negative of the first test's order: the tool files are written whole and the pack names their lines
    again; the manifest's write then fails and the disk stays full (the clean-up cannot give the pack its bytes
    back). The tool files are kept whole (each blob they hold reads back), the error names them, and the retry
    writes a clean run's files."""
    snap = _capture(tmp_path / "t", secret_in=2)
    snap.finalize()
    snap.set_report(REPORT)
    root = tmp_path / "t"
    failures: list[str] = []
    _full_disk_from(monkeypatch, failures, lambda name: name.endswith(MANIFEST_NAME), half=False)
    with pytest.raises(TraceDirError) as raised:
        snap.finalize()
    held = sorted(p.relative_to(root).as_posix() for p in root.rglob("*.txt"))
    assert held and all(path.startswith("tools/") for path in held) and set(held) == _refers(root)
    assert f"the pack stores blobs as lines of ({', '.join(held)})" in str(raised.value)
    with PackReader(root / "blobs") as reader:
        for sha in reader.index():
            assert hashlib.sha256(reader.data(sha)).hexdigest() == sha
    _clean_retry(monkeypatch, snap, tmp_path, "invoke")


def _starts_taken(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, int]]:
    """(path, lines) of each file whose first lines the sharer took from an earlier file's (the same str objects)."""
    taken: list[tuple[str, int]] = []
    split = tracefiles.LineSharer._split
    stored = tracefiles.LineSharer.stored

    def spying(self: Any, path: str, text: str, *, share: bool, start: Any = None) -> str:
        if share and start is not None:
            lines, _ = split(self, text, start)
            earlier = self.lines[start[0]]
            if start[2] and all(a is b for a, b in zip(lines[:start[2]], earlier[:start[2]], strict=True)):
                taken.append((path, start[2]))
        return stored(self, path, text, share=share, start=start)

    monkeypatch.setattr(tracefiles.LineSharer, "stored", spying)
    return taken


@pytest.mark.parametrize("mode", ["invoke", "ainvoke"])
def test_a_node_input_takes_the_lines_it_begins_with_from_the_earlier_file_and_the_folder_is_unchanged(
        tmp_path, monkeypatch, mode):
    """A 24-round agent (short messages, 42-line tool outputs; a secret in one reply that every later node input
    and model call repeats): every node input but the first two and every model call take their first lines from
    the earlier file they begin like (the first model call from the last node input), and the folder is the bytes
    of a finalize() with no such hint (every text split whole); the secret is redacted in every later input and
    in no byte, and every file reads back as its manifest's sha256."""
    from tests.capture.test_finalize_rounds import OPENAI as SHORT_SECRET, short_replies

    with monkeypatch.context() as patch:
        taken = _starts_taken(patch)
        _capture(tmp_path / "t", 24, mode, messages=short_replies(24, secret_in=3)).finalize()
    inputs = [path for path, _ in taken if path.startswith("nodes/")]
    models = [path for path, _ in taken if path.startswith("models/")]
    assert len(inputs) == 2 * 24 - 1 and len(models) == 24 + 1  # every node input but the first two; every model call
    assert max(count for _, count in taken) > 24 * 40  # the whole state before the last round's messages
    with monkeypatch.context() as patch:
        patch.setattr(topology._SharedStarts, "start", lambda self, path, parts: None)
        _capture(tmp_path / "whole", 24, mode, messages=short_replies(24, secret_in=3)).finalize()
    root = tmp_path / "t"
    folder = _folder(root)
    assert folder == _folder(tmp_path / "whole")
    assert not any(SHORT_SECRET.encode() in data for data in folder.values())
    texts = _texts(root)
    later = [path for path in texts if path.startswith(("nodes/", "models/")) and ".input." in path
             or path.startswith("models/")]
    redacted = [path for path in later if "[REDACTED:" in texts[path]]
    assert len(redacted) > 2 * 24 - 8 and not any(SHORT_SECRET in text for text in texts.values())
    for record in Snapshot(root).load_manifest().files:
        assert hashlib.sha256(texts[record.path].encode("utf-8")).hexdigest() == record.sha256, record.path


def test_a_start_that_does_not_hold_is_not_taken():
    """The hint is checked: a start naming lines that differ by one character, a character count that does not
    end a line, a line count that does not match the characters, or a file not stored is not taken; the stored
    forms are those of no hint, and each file's lines are its text's."""
    state = "".join(f"  - [ai]\n    Reading section {n}: revenue grew {n}.{n}% to ${n}00 million.\n" for n in range(30))
    first = "messages:\n" + state + "  - [tool]\n    done\n"
    second = "messages:\n" + state.replace("grew 7.7%", "grew 7.8%") + "  - [tool]\n    again\n"
    third = "messages:\n" + state + "  - [ai]\n    more\n"
    files = [("nodes/a/r1.input.txt", first, True), ("nodes/a/r2.input.txt", second, True),
             ("nodes/a/r3.input.txt", third, True)]
    chars, lines = len("messages:\n" + state) - 1, 1 + 2 * 30
    plain = tracefiles.share_lines(files)
    for start in [("nodes/a/r1.input.txt", chars, lines),  # right for r3; r2 differs in one character
                  ("nodes/a/r1.input.txt", chars - 3, lines),  # does not end a line
                  ("nodes/a/r1.input.txt", chars, lines - 1),  # the wrong number of lines
                  ("nodes/a/r9.input.txt", chars, lines)]:  # no such file stored
        hinted = tracefiles.share_lines(files, {"nodes/a/r2.input.txt": start, "nodes/a/r3.input.txt": start})
        assert hinted == plain, start
    sharer = tracefiles.LineSharer()
    for path, text, share in files:
        sharer.stored(path, text, share=share, start=("nodes/a/r1.input.txt", chars, lines))
        assert sharer.lines[path] == text.split("\n")
        assert list(sharer._line_ends(path)) == [0, *accumulate(map(len, text.split("\n")))]
    taken = sharer.lines["nodes/a/r3.input.txt"]
    assert all(a is b for a, b in zip(taken[:lines], sharer.lines["nodes/a/r1.input.txt"], strict=False))
    assert "grew 7.8%" in sharer.lines["nodes/a/r2.input.txt"][16] and "grew 7.7%" in plain["nodes/a/r1.input.txt"]


def test_a_restated_message_in_a_repeated_state_is_not_taken_from_the_earlier_file(tmp_path, monkeypatch):
    """The negative in a real run: a node of a 40-node chain replaces the third message with other figures (same
    id). No later node input takes the restated line from a file holding the old one: each holds the restated
    figures and not the old, and the folder is that of no hint."""
    from tests.capture.test_line_sharer_s28 import _capture_chain

    with monkeypatch.context() as patch:
        taken = _starts_taken(patch)
        _capture_chain(tmp_path / "t", 40, edit_at=20).finalize()
    assert len(taken) > 30
    texts = _texts(tmp_path / "t")
    restated = "    Finding 2 restated: revenue grew 0.2% to $1.4 billion."
    for i in range(20, 40):
        lines = texts[f"nodes/n{i:02d}/r1.input.txt"].split("\n")
        assert restated in lines and not any("Finding 2: revenue grew" in line for line in lines)
    with monkeypatch.context() as patch:
        patch.setattr(topology._SharedStarts, "start", lambda self, path, parts: None)
        _capture_chain(tmp_path / "whole", 40, edit_at=20).finalize()
    assert _folder(tmp_path / "t") == _folder(tmp_path / "whole")
