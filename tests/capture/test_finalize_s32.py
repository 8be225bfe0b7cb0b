"""A finalize() after the pack has come to store blobs as lines of the tool files (a report set after a first
finalize) gives the pack those blobs' own bytes back before it removes and writes the files again: a tool file
whose write fails part-way loses no byte (the error names the file and the fix, and the retry writes the files
of a run never interrupted); a pack that cannot be rewritten then leaves the folder as it was."""

from __future__ import annotations

import errno
import hashlib
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pytest_auditfence import Snapshot, read_trace_text
from pytest_auditfence.capturing import store
from pytest_auditfence.capturing.store import PACK_NAME, PackReader, TextRef
from pytest_auditfence.errors import TraceDirError
from pytest_auditfence.manifest import JOURNAL_NAME, MANIFEST_NAME, REPORT_NAME
from tests.capture.test_finalize_linear import ENV_SECRET, OPENAI
from tests.capture.test_finalize_s30 import _blobs_whole, _capture, _folder
from tests.capture.test_finalize_s31 import REPORT, _half_written, _real_open, _real_write_file


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

