"""The line sharer remembers a reference (shifted or not) as stretches, not one place per line, and still finds
for every line the places a line-by-line index finds (the latest _CANDIDATES of its text without leading spaces,
in the same order), so the stored files are the same bytes. The model below is that index: every line of every
file remembered in storage order, the oldest place dropped past _CANDIDATES."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from pytest_auditfence.capturing import tracefiles
from tests.capture.test_finalize_rounds import run


@pytest.fixture(autouse=True)
def stretches_from_the_first_file(monkeypatch):
    """These tests are about the stretches: built from the first file on (since stop 28 a capture with few or
    finely cut references is remembered line by line; tests/capture/test_line_sharer_s28.py tests that)."""
    monkeypatch.setattr(tracefiles, "_LINE_BY_LINE", -1)
    monkeypatch.setattr(tracefiles, "_LINES_PER_STRETCH", 0)


class LineByLine(tracefiles.LineSharer):
    """The sharer with a line-by-line index beside it: its candidates are the index's, and every lookup
    records whether the stretches gave the same answer."""

    def __init__(self) -> None:
        super().__init__()
        self.index: dict[str, list[tuple[str, int, int]]] = {}
        self.lookups = 0
        self.differences: list[tuple[str, Any, Any]] = []

    def _remember(self, path: str, lines: list[str], runs: Any = ()) -> None:
        super()._remember(path, lines, runs)
        for position, line in enumerate(lines):
            stripped = line.lstrip(" ")
            if stripped:
                places = self.index.setdefault(stripped, [])
                places.append((path, position, len(line) - len(stripped)))
                del places[:-tracefiles._CANDIDATES]

    def _candidates(self, stripped: str) -> list[tuple[str, int, int]]:
        expected = self.index.get(stripped, [])
        got = super()._candidates(stripped)
        self.lookups += 1
        if got != expected:
            self.differences.append((stripped, expected, got))
        return expected


WORDS = ["revenue", "grew", "net", "income", "margin", "HALV", "segment", "in millions", "FY2024", "cash"]


def _line(rng: random.Random) -> str:
    kind = rng.random()
    if kind < 0.08:
        return ""
    if kind < 0.16:
        return rng.choice(["messages:", "  [ai]", "  [tool name=get_filing]", "output:", "}"])  # many own places
    if kind < 0.2:
        return "[auditfence: " + rng.choice(WORDS)  # stored as a literal line
    words = " ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 14)))
    return " " * rng.choice([0, 0, 0, 2, 4]) + f"{words} {rng.randint(0, 40)}"


def _files(seed: int) -> list[tuple[str, str, bool]]:
    """A run of files that repeat earlier ones: ranges of earlier files, indented by 2 or 4 or not (the next
    range of the same file sometimes right after, indented otherwise), and lines of their own."""
    rng = random.Random(seed)
    files: list[tuple[str, str, bool]] = []
    texts: list[list[str]] = []
    for number in range(rng.randint(8, 40)):
        lines: list[str] = []
        while len(lines) < rng.randint(5, 120):
            pick = rng.random()
            if texts and pick < 0.45:
                earlier = rng.choice(texts[-6:] if rng.random() < 0.7 else texts)
                start = rng.randrange(len(earlier))
                while start < len(earlier):  # sometimes the next lines of the same file, shifted otherwise
                    end = start + rng.randint(1, 90)
                    shift = rng.choice([0, 0, 0, 2, 4])
                    lines.extend(" " * shift + ln if ln and shift else ln for ln in earlier[start:end])
                    if rng.random() < 0.7:
                        break
                    start = end
            else:
                lines.extend(_line(rng) for _ in range(rng.randint(1, 6)))
        share = rng.random() < 0.75
        files.append((f"f{number}.txt", "\n".join(lines), share))
        texts.append(lines)
    return files


def _stored(sharer: tracefiles.LineSharer, files: list[tuple[str, str, bool]]) -> dict[str, str]:
    return {path: sharer.stored(path, text, share=share) for path, text, share in files}


def test_every_lookup_finds_the_places_a_line_by_line_index_finds():
    both = {"_each_place": 0, "_latest_files": 0}
    counted = {name: getattr(tracefiles.LineSharer, name) for name in both}

    def counting(name: str) -> Any:
        def method(self: Any, *args: Any) -> Any:
            both[name] += 1
            return counted[name](self, *args)
        return method

    with pytest.MonkeyPatch.context() as patch:
        for name in both:
            patch.setattr(tracefiles.LineSharer, name, counting(name))
        lookups = 0
        for seed in range(60):
            files = _files(seed)
            model = LineByLine()
            stored = _stored(model, files)
            assert model.differences == [], (seed, model.differences[:3])
            lookups += model.lookups
            assert stored == _stored(tracefiles.LineSharer(), files), seed
            reader_text = {path: "\n".join(model.lines[path]) for path, _, _ in files}
            assert reader_text == {path: text for path, text, _ in files}
    assert lookups > 2000
    assert min(both.values()) > 100, both  # both ways of looking a text up are taken


def test_a_reference_is_remembered_as_stretches():
    """Negative beside it: a file stored as itself and a shared file's own lines are remembered line by line
    (places of their own); the lines of a reference, shifted or not, are not, and are found all the same."""
    first = "\n".join(f"row {i} of the income statement, revenue {1000 + i} in millions" for i in range(30))
    shifted = "\n".join("  " + line for line in first.split("\n"))
    sharer = LineByLine()
    stored = _stored(sharer, [("tools/r1.txt", first, False), ("nodes/r1.input.txt", "messages:\n" + shifted, True),
                              ("nodes/r2.input.txt", "messages:\n" + shifted + "\n  [ai]", True)])
    assert stored["nodes/r1.input.txt"].split("\n")[2] == "[auditfence: lines 1-30 of tools/r1.txt, indented 2]"
    assert stored["nodes/r2.input.txt"].split("\n")[1] == "[auditfence: lines 1-31 of nodes/r1.input.txt]"
    own = sum(len(places) for places in sharer._places.values())
    assert own == 30 + 1 + 1  # tools/r1 line by line; of r1.input only 'messages:', of r2.input only '[ai]'
    assert sharer._candidates("row 3 of the income statement, revenue 1003 in millions") == [
        ("tools/r1.txt", 3, 0), ("nodes/r1.input.txt", 4, 2), ("nodes/r2.input.txt", 4, 2)]
    assert sharer._candidates("messages:") == [("nodes/r1.input.txt", 0, 0), ("nodes/r2.input.txt", 0, 0)]
    assert sharer.differences == []


def _folder_files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file() and p.name != "journal.jsonl"}


@pytest.mark.parametrize("rounds", [6, 24])
def test_a_captured_looping_agent_is_stored_as_by_a_line_by_line_index(tmp_path, monkeypatch, rounds):
    """A real LangGraph agent loop (a ToolNode running get_filing each round): its trace folder is the same
    bytes with the line-by-line model's candidates, every lookup agreed, and most of its lines were not
    remembered one by one."""
    sharers: list[LineByLine] = []

    def recording() -> LineByLine:
        sharers.append(LineByLine())
        return sharers[-1]

    run(tmp_path / "stretches", rounds).finalize()
    with monkeypatch.context() as patch:
        patch.setattr(tracefiles, "LineSharer", recording)
        run(tmp_path / "model", rounds).finalize()
    (model,) = sharers
    assert model.lookups > 2 * rounds and model.differences == []
    ours, theirs = _folder_files(tmp_path / "stretches"), _folder_files(tmp_path / "model")
    assert ours.keys() == theirs.keys() and len(ours) > 4 * rounds
    assert ours == theirs
    lines = sum(len(file_lines) for file_lines in model.lines.values())
    own = sum(len(places) for places in model._places.values())
    if rounds == 24:
        assert own < lines / 3, (own, lines)
    reader = tracefiles.TraceFiles(tmp_path / "stretches")
    for path, file_lines in model.lines.items():
        assert reader.text(path) == "\n".join(file_lines), path


def test_a_line_an_earlier_file_repeats_is_found_where_it_was_last_written(tmp_path):
    """An agent loop whose replies repeat one long line: the latest places of that line are in the latest node
    inputs (references to references), which the sharer must name as a line-by-line index does."""
    snap = run(tmp_path / "t", 10)
    sharers: list[LineByLine] = []
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(tracefiles, "LineSharer", lambda: sharers.append(LineByLine()) or sharers[-1])
        snap.finalize()
    (model,) = sharers
    assert model.differences == []
    question = "Summarise HALV's filing."
    latest = tracefiles.LineSharer._candidates(model, question)  # the stretches' answer
    assert latest == model.index[question] and len(latest) == tracefiles._CANDIDATES
    assert [model._numbers[path] for path, _, _ in latest] == sorted(model._numbers[path] for path, _, _ in latest)
    own = {(model._paths[number], at) for number, at, _ in model._places[question]}
    assert own.isdisjoint((path, at) for path, at, _ in latest)  # each inside a reference without shift

