"""finalize() cleans up after a pack rewrite that fails part-way (no partial `blobs/pack.new` is left), the flush
converts each message once, and the folder stays the same bytes under invoke and ainvoke."""

from __future__ import annotations

import errno
import os
from typing import Any

import pytest

from pytest_auditfence import Snapshot, read_trace_text, textfmt
from pytest_auditfence.capturing import store
from pytest_auditfence.capturing.store import PACK_NAME
from pytest_auditfence.errors import TraceDirError
from pytest_auditfence.manifest import JOURNAL_NAME, MANIFEST_NAME
from tests.capture.test_finalize_linear import ENV_SECRET, OPENAI
from tests.capture.test_finalize_s30 import QUESTION, _blobs_whole, _capture, _folder


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


def _per_depth(monkeypatch: pytest.MonkeyPatch) -> None:
    """The conversion before stop 31: a message met at another depth than the one it was converted at is
    converted again (its memo entry served only the depth it was made at)."""
    fitting = textfmt._Converter._fitting

    def same_depth_only(self: Any, hit: Any, depth: int) -> Any:
        return fitting(self, hit, depth) if depth == hit[1] else textfmt._NOT_HANDLED

    monkeypatch.setattr(textfmt._Converter, "_fitting", same_depth_only)


def _conversions(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The ids of the messages converted from here on (one entry per conversion)."""
    seen: list[int] = []
    message = textfmt._Converter._message

    def counting(self: Any, value: Any, depth: int) -> Any:
        seen.append(id(value))
        return message(self, value, depth)

    monkeypatch.setattr(textfmt._Converter, "_message", counting)
    return seen


def _texts(root: Any) -> dict[str, str]:
    """Every trace file's text as the audit reads it (shared lines resolved), by path."""
    return {record.path: read_trace_text(root, record.path) for record in Snapshot(root).load_manifest().files}


@pytest.mark.parametrize("mode", ["invoke", "ainvoke"])
def test_the_flush_converts_each_message_once_and_writes_the_folder_of_one_conversion_per_depth(
        tmp_path, monkeypatch, mode):
    """A looping agent's messages sit in every later node input and, a level deeper, in every model call's input:
    each message object is converted once, and the folder (secrets redacted) is the bytes of a capture that
    converts each message again at each depth it meets it at."""
    monkeypatch.setenv("FILINGS_API_KEY", ENV_SECRET)
    snap = _capture(tmp_path / "t", rounds=5, mode=mode, secret_in=2)
    seen = _conversions(monkeypatch)
    snap.finalize()
    assert seen and len(seen) == len(set(seen))  # no message object converted twice
    monkeypatch.undo()
    monkeypatch.setenv("FILINGS_API_KEY", ENV_SECRET)
    _per_depth(monkeypatch)
    old = _capture(tmp_path / "old", rounds=5, mode=mode, secret_in=2)
    seen = _conversions(monkeypatch)
    old.finalize()
    assert len(seen) > len(set(seen))  # the same messages met at two depths: converted twice there
    root = tmp_path / "t"
    assert _folder(root) == _folder(tmp_path / "old")
    everything = b"".join(p.read_bytes() for p in root.rglob("*") if p.is_file())
    assert OPENAI.encode() not in everything and ENV_SECRET.encode() not in everything
    calls = {path: text for path, text in _texts(root).items() if path.startswith("models/agent/r") and
             int(path.split("/r")[1].split(".")[0]) > 3}  # model calls after the round that held the secret
    assert calls and all("[REDACTED:" in text and "Reading section 2." in text for text in calls.values())


def _nested(levels: int) -> Any:
    value: Any = "innermost figure 41.7"
    for _ in range(levels):
        value = {"k": value}
    return value


@pytest.mark.parametrize(("levels", "whole", "cut"),
                         [(56, True, False), (60, True, False), (61, True, True), (62, False, True)])
def test_a_message_nested_near_the_depth_limit_is_cut_where_a_conversion_at_that_depth_cuts_it(
        tmp_path, monkeypatch, levels, whole, cut):
    """A message whose metadata nests so deep that it reaches MAX_DEPTH at one depth and not at another (61
    levels: whole in the node output, cut a level deeper in the next model call's input): the conversion made at
    one depth is not taken at a depth where it would differ, and the folder is that of one conversion per
    depth."""
    from langchain_core.messages import AIMessage

    from tests.capture.capture_graphs import agent_loop
    from tests.capture.test_finalize_linear import get_filing

    def run(folder: Any) -> None:
        messages = iter([AIMessage(content="Reading.", additional_kwargs={"deep": _nested(levels)},
                                   tool_calls=[{"name": "get_filing", "args": {"ticker": "HALV", "call": 1},
                                                "id": "c1"}]),
                         AIMessage(content="Done.")])
        snap = Snapshot(folder)
        agent_loop(tools=[get_filing], messages=messages).invoke(QUESTION, config=snap.config())
        snap.finalize()

    run(tmp_path / "t")
    _per_depth(monkeypatch)
    run(tmp_path / "old")
    assert _folder(tmp_path / "t") == _folder(tmp_path / "old")
    texts = _texts(tmp_path / "t").values()
    assert any("innermost figure 41.7" in text for text in texts) == whole
    assert any(textfmt.DEPTH_MARKER in text for text in texts) == cut
