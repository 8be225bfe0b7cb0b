"""finalize() cleans up after a pack rewrite that fails part-way (no partial `blobs/pack.new` is left), the flush
converts each message once, and the folder stays the same bytes under invoke and ainvoke."""

from __future__ import annotations

import errno
import os
from typing import Any

import pytest

from pytest_auditfence import Snapshot
from pytest_auditfence.capturing import store
from pytest_auditfence.capturing.store import PACK_NAME
from pytest_auditfence.errors import TraceDirError
from pytest_auditfence.manifest import JOURNAL_NAME, MANIFEST_NAME
from tests.capture.test_finalize_s30 import _blobs_whole, _capture, _folder


def _half_written(monkeypatch: pytest.MonkeyPatch, failures: list[str], times: int = 1_000) -> None:
    """The first `times` writes of `blobs/pack.new` put half their bytes on disk, then fail as a full disk does."""
    write = store.write_file
    opened = store.Path.open

    def full_disk(path: Any, data: bytes) -> None:
        if os.fspath(path).endswith(PACK_NAME + ".new") and len(failures) < times:
            write(path, data[:len(data) // 2])
            failures.append(os.fspath(path))
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        write(path, data)

    class HalfFile:
        def __init__(self, file: Any) -> None:
            self.file = file

        def write(self, data: bytes) -> int:
            self.file.write(data[:len(data) // 2])
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

        def __enter__(self) -> HalfFile:
            return self

        def __exit__(self, *exc: object) -> None:
            self.file.close()

    def open_half(self: Any, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
        file = opened(self, mode, *args, **kwargs)
        if self.name == PACK_NAME + ".new" and "w" in mode and len(failures) < times:
            failures.append(str(self))
            return HalfFile(file)
        return file

    monkeypatch.setattr(store, "write_file", full_disk)
    monkeypatch.setattr(store.Path, "open", open_half)


@pytest.mark.parametrize("from_disk", [False, True], ids=["pack-in-memory", "pack-read-back"])
def test_a_pack_rewrite_that_fails_while_writing_leaves_no_partial_file_and_the_pack_whole(
        tmp_path, monkeypatch, from_disk):
    """A full disk while `blobs/pack.new` is written (from the blobs in memory, or with every blob read back from
    the pack on disk): the error names the pack, no `pack.new` is left, the pack holds every blob whole, and
    finalize() once the cause is gone writes the files of a run never interrupted."""
    if from_disk:
        monkeypatch.setattr(store, "RECENT_CHARS", 0)
    snap = _capture(tmp_path / "t")
    failures: list[str] = []
    _half_written(monkeypatch, failures)
    with pytest.raises(TraceDirError) as raised:
        snap.finalize()
    root = tmp_path / "t"
    assert failures and all(path.endswith(f"blobs/{PACK_NAME}.new") for path in failures)
    assert f"{root / 'blobs' / PACK_NAME}: could not be rewritten (No space left on device)" in str(raised.value)
    assert "finalize() again" in str(raised.value)
    assert sorted(p.name for p in root.iterdir()) == ["blobs", JOURNAL_NAME]  # nothing materialised is left
    assert sorted(p.name for p in (root / "blobs").iterdir()) == [PACK_NAME]  # no partial pack.new beside it
    _blobs_whole(root)
    monkeypatch.setattr(store, "write_file", failures.clear() or _real_write_file)
    monkeypatch.setattr(store.Path, "open", _real_open)
    snap.finalize()
    assert not failures
    _capture(tmp_path / "u").finalize()
    retried, clean = _folder(root), _folder(tmp_path / "u")
    assert {k: v for k, v in retried.items() if k != MANIFEST_NAME} == {
        k: v for k, v in clean.items() if k != MANIFEST_NAME}
    assert b"\nlines " in b"\n" + retried[f"blobs/{PACK_NAME}"]  # the retry refers to the tool files again


def test_a_rewrite_that_fails_after_the_pack_referred_to_tool_files_leaves_no_partial_file_and_the_pack_whole(
        tmp_path, monkeypatch):
    """The pack already names lines of the tool files (a finalize that succeeded); a report set after makes the
    next finalize rewrite it, and that write fails (the space freed after): no `pack.new` is left, the clean-up
    gives every blob its own bytes again before the tool files are removed, and the retry writes a clean run's
    files."""
    snap = _capture(tmp_path / "t")
    snap.finalize()
    snap.set_report("Revenue grew in every period.")
    failures: list[str] = []
    _half_written(monkeypatch, failures, times=1)
    with pytest.raises(TraceDirError):
        snap.finalize()
    root = tmp_path / "t"
    assert failures
    assert sorted(p.name for p in root.iterdir()) == ["blobs", JOURNAL_NAME]
    assert sorted(p.name for p in (root / "blobs").iterdir()) == [PACK_NAME]
    _blobs_whole(root)
    monkeypatch.setattr(store, "write_file", _real_write_file)
    monkeypatch.setattr(store.Path, "open", _real_open)
    snap.finalize()
    again = _capture(tmp_path / "u")
    again.set_report("Revenue grew in every period.")
    again.finalize()
    retried, clean = _folder(root), _folder(tmp_path / "u")
    assert {k: v for k, v in retried.items() if k != MANIFEST_NAME} == {
        k: v for k, v in clean.items() if k != MANIFEST_NAME}


_real_write_file = store.write_file
_real_open = store.Path.open
