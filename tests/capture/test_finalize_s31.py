"""finalize() cleans up after a pack rewrite that fails part-way (no partial `blobs/pack.new` is left), the flush
converts each message once whatever the depths it sits at, and the line sharer notes the places inside a repeated
state by slices of the referenced file's; the folder stays the same bytes under invoke and ainvoke."""

from __future__ import annotations

import errno
import hashlib
import os
from typing import Any

import pytest

from pytest_auditfence import Snapshot, read_trace_text, textfmt
from pytest_auditfence.capturing import store, tracefiles
from pytest_auditfence.capturing.store import PACK_NAME
from pytest_auditfence.errors import TraceDirError
from pytest_auditfence.manifest import JOURNAL_NAME, MANIFEST_NAME
from tests.capture.test_finalize_linear import ENV_SECRET, OPENAI
from tests.capture.test_finalize_s30 import QUESTION, _blobs_whole, _capture, _folder


def _half_written(monkeypatch: pytest.MonkeyPatch, failures: list[str], times: int = 1_000, skip: int = 0) -> None:
    """The first `times` writes of `blobs/pack.new` after the first `skip` put half their bytes on disk, then fail
    as a full disk does."""
    write = store.write_file
    opened = store.Path.open
    seen = [0]

    def failing() -> bool:
        seen[0] += 1
        return seen[0] > skip and len(failures) < times

    def full_disk(path: Any, data: bytes) -> None:
        if os.fspath(path).endswith(PACK_NAME + ".new") and failing():
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
        if self.name == PACK_NAME + ".new" and "w" in mode and failing():
            failures.append(str(self))
            return HalfFile(file)
        return file

    monkeypatch.setattr(store, "write_file", full_disk)
    monkeypatch.setattr(store.Path, "open", open_half)


REPORT = "Revenue grew in every period."


def _retried_as_a_clean_run(monkeypatch: pytest.MonkeyPatch, snap: Snapshot, tmp_path: Any,
                            report: str | None = None) -> dict[str, bytes]:
    """The writes work again: finalize() of `snap` (captured into tmp_path/t) gives the files of a run never
    interrupted (tmp_path/u, with `report` set); returns the retried folder's files."""
    monkeypatch.setattr(store, "write_file", _real_write_file)
    monkeypatch.setattr(store.Path, "open", _real_open)
    snap.finalize()
    again = _capture(tmp_path / "u")
    if report is not None:
        again.set_report(report)
    again.finalize()
    retried, clean = _folder(tmp_path / "t"), _folder(tmp_path / "u")
    assert {k: v for k, v in retried.items() if k != MANIFEST_NAME} == {
        k: v for k, v in clean.items() if k != MANIFEST_NAME}
    return retried


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
    failures.clear()
    retried = _retried_as_a_clean_run(monkeypatch, snap, tmp_path)
    assert not failures
    assert b"\nlines " in b"\n" + retried[f"blobs/{PACK_NAME}"]  # the retry refers to the tool files again


def test_a_rewrite_that_fails_after_the_pack_referred_to_tool_files_leaves_no_partial_file_and_the_pack_whole(
        tmp_path, monkeypatch):
    """The pack already names lines of the tool files (a finalize that succeeded); a report set after makes the
    next finalize rewrite it, and that write fails (the space freed after): no `pack.new` is left, the clean-up
    gives every blob its own bytes again before the tool files are removed, and the retry writes a clean run's
    files. (Since stop 32 the pack takes its bytes back before the files are removed, test_finalize_s32: the
    rewrite that fails here is the one after the tool files were written again.)"""
    snap = _capture(tmp_path / "t")
    snap.finalize()
    snap.set_report(REPORT)
    failures: list[str] = []
    _half_written(monkeypatch, failures, times=1, skip=1)
    with pytest.raises(TraceDirError):
        snap.finalize()
    root = tmp_path / "t"
    assert failures
    assert sorted(p.name for p in root.iterdir()) == ["blobs", JOURNAL_NAME]
    assert sorted(p.name for p in (root / "blobs").iterdir()) == [PACK_NAME]
    _blobs_whole(root)
    _retried_as_a_clean_run(monkeypatch, snap, tmp_path, REPORT)


def test_when_the_disk_stays_full_after_the_rewrite_fails_no_file_holds_a_blobs_only_copy(tmp_path, monkeypatch):
    """The disk stays full: the rewrite after a second finalize fails, and so would the clean-up's. Before stop
    32 the tool files whose lines the pack named held those blobs' only copy and were kept; now the pack took
    every blob's bytes back before the files were removed (test_finalize_s32), so the clean-up has nothing to
    rewrite, nothing materialised is left, no `pack.new` either, and finalize() once the cause is gone writes a
    clean run's files. (A failure after the pack referred again keeps the tool files: test_finalize_s32.)"""
    snap = _capture(tmp_path / "t")
    snap.finalize()
    snap.set_report(REPORT)
    failures: list[str] = []
    _half_written(monkeypatch, failures, skip=1)
    with pytest.raises(TraceDirError) as raised:
        snap.finalize()
    root = tmp_path / "t"
    assert len(failures) == 1  # the rewrite after the files were written; the clean-up needs none
    assert "the pack stores blobs as lines of" not in str(raised.value)
    assert sorted(p.name for p in root.iterdir()) == ["blobs", JOURNAL_NAME]
    assert sorted(p.name for p in (root / "blobs").iterdir()) == [PACK_NAME]
    _blobs_whole(root)
    _retried_as_a_clean_run(monkeypatch, snap, tmp_path, REPORT)


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


def _noted_one_by_one(monkeypatch: pytest.MonkeyPatch) -> None:
    """The line sharer before stop 31: each line inside a reference has its place appended to its text's list one
    by one (tracefiles._note), the lists cut to their latest places at every append."""

    def note_each(self: Any, index: Any, number: int, lines: list[str], runs: Any) -> None:
        tracefiles._note(index, number, lines, ((i, i + length) for i, _, _, length, _ in runs),
                         2 * tracefiles._CANDIDATES)

    monkeypatch.setattr(tracefiles.LineSharer, "_note_references", note_each)


def _agent(folder: Any, rounds: int, mode: str) -> Snapshot:
    """test_finalize_rounds' agent (short messages, 42-line tool outputs: an uncapped state the sharer keeps line
    by line), under invoke or ainvoke."""
    from tests.capture.test_finalize_rounds import short_replies

    return _capture(folder, rounds, mode, messages=short_replies(rounds))


@pytest.mark.parametrize("mode", ["invoke", "ainvoke"])
def test_the_places_inside_a_repeated_state_are_noted_by_slices_and_the_folder_is_unchanged(
        tmp_path, monkeypatch, mode):
    """Each node input of a 24-round agent repeats the whole state: the places of its referenced lines are taken
    from the referenced file's (slices, not a line at a time), and the folder is the bytes of the sharer that
    notes them one by one, and of one that cuts the lists to their latest places after every file; every file
    reads back as its manifest's sha256."""
    noted: list[int] = []
    inner = tracefiles.LineSharer._note_references

    def counting(self: Any, index: Any, number: int, lines: list[str], runs: Any) -> None:
        noted.append(sum(run[3] for run in runs))
        inner(self, index, number, lines, runs)

    with monkeypatch.context() as patch:
        patch.setattr(tracefiles.LineSharer, "_note_references", counting)
        _agent(tmp_path / "t", 24, mode).finalize()
    assert len(noted) > 100 and sum(noted) > 10 * tracefiles._LINE_BY_LINE  # line by line throughout
    with monkeypatch.context() as patch:
        _noted_one_by_one(patch)
        _agent(tmp_path / "each", 24, mode).finalize()
    with monkeypatch.context() as patch:
        patch.setattr(tracefiles, "_CUT_AFTER", -10**9)
        _agent(tmp_path / "cut", 24, mode).finalize()
    root = tmp_path / "t"
    assert _folder(root) == _folder(tmp_path / "each") == _folder(tmp_path / "cut")
    for path, text in _texts(root).items():
        record = next(r for r in Snapshot(root).load_manifest().files if r.path == path)
        assert hashlib.sha256(text.encode("utf-8")).hexdigest() == record.sha256, path


def test_a_restated_figure_in_a_repeated_state_is_written_as_itself(tmp_path, monkeypatch):
    """The negative: a node of a 40-node chain replaces the third message with other figures (same id). The
    later node inputs hold the restated figures and not the old ones (no reference reaches the old line), the
    earlier ones the old figures, and the folder is that of the sharer noting places one by one."""
    from tests.capture.test_line_sharer_s28 import _capture_chain

    _capture_chain(tmp_path / "t", 40, edit_at=20).finalize()
    texts = _texts(tmp_path / "t")
    restated = "    Finding 2 restated: revenue grew 0.2% to $1.4 billion."
    for i in range(20, 40):
        lines = texts[f"nodes/n{i:02d}/r1.input.txt"].split("\n")
        assert restated in lines and not any("Finding 2: revenue grew" in line for line in lines)
    assert "Finding 2: revenue grew 2.2% to $102.4 billion." in texts["nodes/n19/r1.input.txt"]
    _noted_one_by_one(monkeypatch)
    _capture_chain(tmp_path / "each", 40, edit_at=20).finalize()
    assert _folder(tmp_path / "t") == _folder(tmp_path / "each")
