"""A word's lines in the lean index (`FileIndex.line_words`) kept as a bit set (an int whose bit n is line n) where
that is smaller than the array of line numbers: `lines_with` reads the same lines either way, on the bench's files
and on a captured LangGraph run, and the audit's verdicts and `with_words` rankings are those of the arrays."""

from __future__ import annotations

import random
import sys
from array import array
from pathlib import Path

import pytest
from langchain_core.tools import tool

from pytest_auditfence.fence import FileStore, Source
from pytest_auditfence.models import COVERED_VERDICTS
from pytest_auditfence.verify import sources as sources_module
from pytest_auditfence.verify.sources import SourceIndex, _index_file, _line_set, content_words

from test_compact_index import _bench_corpus
from tool_runs import claim_of, tool_run_auditor


def _as_arrays(monkeypatch: pytest.MonkeyPatch) -> None:
    """Keep every word's lines as the array (the storage before bit sets)."""
    monkeypatch.setattr(sources_module, "_line_set", lambda lines, narrow: array("H" if narrow else "I", lines))


def test_a_line_set_reads_back_its_lines_and_is_the_smaller_form() -> None:
    rng = random.Random(25)
    for _ in range(400):
        last = rng.choice([1, 29, 30, 31, 700, 5000, 70000])
        lines = sorted(rng.sample(range(last + 1), rng.randint(1, min(last + 1, rng.choice([1, 3, 40, 900])))))
        for narrow in (max(lines) < 0xFFFF, False):
            kept = _line_set(array("I", lines), narrow)
            assert isinstance(kept, (int, array))
            if isinstance(kept, int):  # only where it is smaller than the array it replaces
                assert sys.getsizeof(kept) < 64 + (2 if narrow else 4) * len(lines) + 8
            holder = sources_module.FileIndex("")
            holder.line_words["w"] = kept
            assert list(holder.lines_with("w")) == lines
    assert isinstance(_line_set(array("I", [3000]), True), array)  # one line far down: the array, 66 bytes
    assert _line_set(array("I", [3]), True) == 8  # one line near the top: bit 3
    assert isinstance(_line_set(array("I", range(0, 600, 2)), True), int)  # every other line: 28 + 80 bytes
    assert list(sources_module.FileIndex("").lines_with("absent")) == []


def test_the_bench_files_keep_most_words_as_bits_and_read_the_same_lines(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    root, bench = _bench_corpus(tmp_path)
    store = FileStore(root)
    kept_bytes = array_bytes = bits = 0
    for source in bench[:6]:
        # read whole: since stop 27 the words of deferred lines (here every prose line) are found when asked, not kept
        fi = _index_file(store.load(source), lazy=False)
        with monkeypatch.context() as m:
            _as_arrays(m)
            before = _index_file(store.load(source), lazy=False)
        assert fi.line_words.keys() == before.line_words.keys()
        for word, lines in before.line_words.items():
            assert list(fi.lines_with(word)) == list(lines), word
            kept_bytes += sys.getsizeof(fi.line_words[word])
            array_bytes += sys.getsizeof(lines)
            bits += isinstance(fi.line_words[word], int)
    assert bits and kept_bytes < 0.5 * array_bytes, (bits, kept_bytes, array_bytes)


FILING = "".join(f"Segment {n} revenue was ${1000 + 37 * n:,} million in fiscal 2024.\n" for n in range(60)) + \
    "The backlog reached $12.3 billion at year end.\n"


@tool
def get_segment_report(company: str) -> str:
    """The company's segment report."""
    return FILING


def test_a_captured_run_ranks_and_verifies_as_with_arrays(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    report = ("Segment 7 revenue was $1,259 million.\n"  # true: a line among sixty naming 'revenue'
              "The backlog reached $12.3 billion.\n"  # true: the one line naming 'backlog'
              "Segment 8 revenue was $1,297 million.\n"  # invented (it was $1,296 million)
              "The backlog reached $12.8 billion.\n")  # invented
    cascade = tool_run_auditor(tmp_path, [get_segment_report], "Write a note.")(
        [("get_segment_report", {"company": "NORD"})], report)
    for true in ("$1,259 million", "$12.3 billion"):
        assert claim_of(cascade, true).verdict in COVERED_VERDICTS, true
    for wrong in ("$1,297 million", "$12.8 billion"):
        assert claim_of(cascade, wrong).verdict not in COVERED_VERDICTS, wrong
    trace = tmp_path / "trace0"
    sources = [Source.from_file(trace, str(p.relative_to(trace)), node="tools", kind="tool_call")
               for p in sorted(trace.rglob("*.txt")) if "Segment 7 revenue" in p.read_text(encoding="utf-8")]
    assert sources
    index = _read_whole(trace, sources)
    with monkeypatch.context() as m:
        _as_arrays(m)
        before = _read_whole(trace, sources)
    revenue, = content_words("revenue")
    for fi, arrays in zip(index.files, before.files):
        assert isinstance(fi.line_words[revenue], int)  # on every line but the last: bits
        for word, lines in arrays.line_words.items():
            assert list(fi.lines_with(word)) == list(lines)
            assert sys.getsizeof(fi.line_words[word]) <= sys.getsizeof(lines)
    for words in (["revenue"], ["segment", "revenue", "fiscal"], ["backlog"], ["backlog", "revenue"], ["nothing"]):
        for limit in (3, 50):
            assert index.with_words(words, limit=limit) == before.with_words(words, limit=limit), words


def _read_whole(trace: Path, sources: list[Source]) -> SourceIndex:
    """An index of files read whole: since stop 27 the words of deferred lines are found when asked, not kept in
    `line_words`, whose storage these tests measure."""
    store = FileStore(trace)
    return SourceIndex(trace, sources, [_index_file(store.load(source), lazy=False) for source in sources], store)
