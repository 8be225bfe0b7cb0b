"""Trace text files stored once: lines that repeat an earlier file are written as a reference to it.

Owns the stored form (`share_lines`, used by finalize) and the one loader every reader goes through
(`TraceFiles`, `read_trace_text`): what a reader gets is the file's text with every reference resolved,
byte for byte the text the capture rendered, which is what the manifest's sha256 names.
"""

# A node's input is the whole state again: every message earlier nodes wrote plus the last node's update,
# and a model call is given the same messages. Written out in full, a looping agent's folder grows with
# the square of its rounds. Stored here, such a file is a header line and then, line by line, either its
# own text or `[auditfence: lines 3-412 of nodes/tools/r2.input.txt]` (optionally `, indented 2`: every
# non-empty line of the range with two more spaces in front, as a tool's output sits one level deeper
# in the message that carries it). A reference names a file stored before it, so there are no cycles;
# references to references are resolved in order, without recursion, each file once per reader.

from __future__ import annotations

import gc
import re
from collections.abc import Iterable, Mapping, Sequence
from array import array
from bisect import bisect_left, bisect_right
from collections import deque
from itertools import accumulate, islice, repeat
from operator import add
from pathlib import Path, PurePosixPath

from pytest_auditfence.errors import IntegrityError

HEADER = ("[auditfence: stored by reference to earlier trace files; its text is what "
          "pytest_auditfence.read_trace_text returns]")
_HEADER_BYTES = HEADER.encode("utf-8")
_PREFIX = "[auditfence: "
_LITERAL = "[auditfence: line] "  # a line of the file's own text that begins with _PREFIX
_REFERENCE = re.compile(r"\[auditfence: lines (\d+)-(\d+) of (\S+?)(?:, indented (\d+))?\]")
_RECAPTURE = "The trace folder was changed after capture; capture the run again into a new folder."

# The kinds of file that may be stored by reference: what nodes and models were given and returned (the
# declared zone). Raw data (tool output, the user's input, retrieved documents) and the report are always
# written as themselves, so that a grep of the folder finds every figure in the file it came from.
SHARING_KINDS: frozenset[str] = frozenset({"node_input", "node_output", "model_call"})
# A run of lines is written as a reference only when it saves bytes: at least this many characters.
MIN_SHARED_CHARS = 160
# Runs that may be longer than this are first compared whole (_common_run).
_LONG_RUN = 16
# Earlier places remembered per distinct line (the most recent ones): the longest run among them wins.
_CANDIDATES = 4
# Lines are remembered one by one (a dict of lines: a dict probe and a tuple per line) until references hold
# this many lines and each stretch the references would be cut into stands for _LINES_PER_STRETCH lines or more
# on average; then as stretches (LineSharer). A chain of nodes each adding a message to the state is cut into a
# stretch per earlier message (two lines), and each stretch costs more than its lines did one by one: the
# 50-node bench's 2,768 lines in references made 1,415 stretches, a looping agent's 20 rounds 148,566 lines 707.
_LINE_BY_LINE = 1_000
_LINES_PER_STRETCH = 16
# The lists of places inside references are cut to their latest _CANDIDATES once this many places more than four
# per text were added since the last cut (LineSharer._note_references).
_CUT_AFTER = 4096


def _reference_line(start: int, end: int, path: str, indent: int) -> str:
    shift = f", indented {indent}" if indent else ""
    return f"[auditfence: lines {start}-{end} of {path}{shift}]"


class LineSharer:
    """Chooses, for each file in the order they are stored, which runs of its lines repeat a file stored
    before it (`share_lines` drives it); keeps the lines of every file and where each line can be found."""

    # A line's candidates are the latest places (file, position, indent) where its text without leading
    # spaces was written, as if every line of every file had been remembered one by one. Most of a looping
    # agent's lines sit in references, so lines are not remembered one by one: a file is cut into
    # stretches, each either lines of its own text or lines equal to a stretch of an earlier file's own
    # lines, with `shift` more spaces in front of each non-empty one (a reference is followed down to the
    # file whose own lines it repeats when it is remembered). Own lines are remembered by themselves
    # (`_places`); a line's other places are where a later stretch repeats one of them.
    # While the references are few or cut into short stretches (`_LINE_BY_LINE`), the lines of a reference
    # are remembered one by one instead (`_referenced_places`: their latest places) and each file's references
    # are kept as records; once past, the stretches are built from the records and those places dropped.

    def __init__(self) -> None:
        self.lines: dict[str, list[str]] = {}
        self._texts: dict[str, str] = {}  # the text of each file (as given to `stored`)
        self._ends: dict[str, array[int]] = {}  # path -> `_line_ends`, made when first asked
        self._paths: list[str] = []  # a file's number (the order it was stored in) -> its path
        self._numbers: dict[str, int] = {}
        # stripped text -> every place it is a file's own line: (file number, position, indent), in order
        self._places: dict[str, list[tuple[int, int, int]]] = {}
        # per file number: where its stretches start, and each one's (length, file number, position, shift):
        # the file whose own lines it is (the file itself, shift 0, for its own lines) and where they start
        self._starts: list[list[int]] = []
        self._stretches: list[list[tuple[int, int, int, int]]] = []
        # per file number: {start of a stretch of its own lines: the later stretches repeating lines of it,
        # (file number, start, where they start here, length, shift) in the order they were stored}
        self._copies: list[dict[int, list[tuple[int, int, int, int, int]]]] = []
        # Until the stretches are built (None after): stripped text -> its latest places inside references, in
        # order; per file its references; how many lines they hold; about how many stretches each file makes.
        self._referenced_places: dict[str, list[tuple[int, int, int]]] | None = {}
        # Until then too, per file number: for each of its non-empty lines in order, its position, its indent and
        # its stripped text's list in `_referenced_places` (`_note_references`); how many places were added to
        # those lists since they were last cut to their latest _CANDIDATES.
        self._line_slots: list[tuple[list[int], list[int], list[list[tuple[int, int, int]]]]] = []
        self._added = 0
        self._records: list[Sequence[tuple[int, str, int, int, int]]] = []
        self._referenced = 0
        self._cut: list[float] = []
        self._cut_total = 0.0

    def _remember(self, path: str, lines: list[str], runs: Sequence[tuple[int, str, int, int, int]] = ()) -> None:
        """Remember the lines of `path`, which has just been stored; `runs` are its references in file order,
        (i, target, j, length, shift): lines[i:i + length] are the target's from line j, shifted."""
        number = len(self._paths)
        self._paths.append(path)
        self._numbers[path] = number
        self._own_lines(number, lines, runs)
        index = self._referenced_places
        if index is None:
            self._stretch(number, len(lines), runs)
            return
        self._records.append(runs)
        self._referenced += sum(run[3] for run in runs)
        self._cut.append(self._stretches_of(len(lines), runs))
        self._cut_total += self._cut[-1]
        if self._referenced > _LINE_BY_LINE and self._referenced >= _LINES_PER_STRETCH * self._cut_total:
            self._referenced_places = None
            for earlier, their_runs in enumerate(self._records):
                self._stretch(earlier, len(self.lines[self._paths[earlier]]), their_runs)
            self._records, self._cut, self._line_slots = [], [], []
            return
        self._note_references(index, number, lines, runs)

    def _note_references(self, index: dict[str, list[tuple[int, int, int]]], number: int, lines: list[str],
                         runs: Sequence[tuple[int, str, int, int, int]]) -> None:
        """Append the place of each non-empty line inside a reference of file `number` to its stripped text's list
        in `index` (the places `_note` would append, in the same order), and keep the file's line slots.

        A reference's lines are the target's lines (the same stripped texts, `shift` more indent), so their
        slots, positions and indents are slices of the target's, and the places are appended at C speed (a node
        input repeating the whole state is a few slices, not a loop over every line). The lists are cut to their
        latest _CANDIDATES now and then (`_candidates` reads no more than those)."""
        at: list[int] = []
        indents: list[int] = []
        slots: list[list[tuple[int, int, int]]] = []
        position = 0
        for i, target, j, length, shift in (*runs, (len(lines), "", 0, 0, 0)):
            for p in range(position, i):  # own lines: their slots (places go to `_places`, `_own_lines`)
                line = lines[p]
                stripped = line.lstrip(" ")
                if stripped:
                    slot = index.get(stripped)
                    if slot is None:
                        slot = index[stripped] = []
                    at.append(p)
                    indents.append(len(line) - len(stripped))
                    slots.append(slot)
            if length:
                their_at, their_indents, their_slots = self._line_slots[self._numbers[target]]
                low, high = bisect_left(their_at, j), bisect_left(their_at, j + length)
                moved = their_at[low:high] if i == j else list(map(add, their_at[low:high], repeat(i - j)))
                shifted = their_indents[low:high] if not shift else list(map(add, their_indents[low:high],
                                                                                repeat(shift)))
                theirs = their_slots[low:high]
                deque(map(list.append, theirs, zip(repeat(number), moved, shifted)), maxlen=0)
                self._added += high - low
                at += moved
                indents += shifted
                slots += theirs
            position = i + length
        self._line_slots.append((at, indents, slots))
        if self._added > 4 * len(index) + _CUT_AFTER:  # memory stays bounded: every list cut to its latest places
            for places in index.values():
                if len(places) > _CANDIDATES:
                    del places[:-_CANDIDATES]
            self._added = 0

    def _own_lines(self, number: int, lines: list[str], runs: Sequence[tuple[int, str, int, int, int]]) -> None:
        """Remember each line of file `number` outside its references in `_places`."""
        ends = (i for i, _, _, _, _ in (*runs, (len(lines), "", 0, 0, 0)))
        starts = (0, *(i + length for i, _, _, length, _ in runs))
        _note(self._places, number, lines, zip(starts, ends), 0)

    def _stretches_of(self, size: int, runs: Sequence[tuple[int, str, int, int, int]]) -> float:
        """About how many stretches a file of `size` lines would be cut into: one per part of its own lines, and
        for a reference the stretches of its target in proportion to the lines it repeats (at least one)."""
        cut, position = 0.0, 0
        for i, target, _, length, _ in runs:
            number = self._numbers[target]
            cut += (position < i) + max(1.0, self._cut[number] * length / len(self.lines[target]))
            position = i + length
        return cut + (position < size)

    def _stretch(self, number: int, count: int, runs: Sequence[tuple[int, str, int, int, int]]) -> None:
        """Cut file `number` (of `count` lines) into stretches and note, in each earlier file's `_copies`, the
        stretches that repeat its own lines."""
        starts: list[int] = []
        stretches: list[tuple[int, int, int, int]] = []
        position = 0
        for i, target, j, length, shift in (*runs, (count, "", 0, 0, 0)):
            if position < i:
                starts.append(position)
                stretches.append((i - position, number, position, 0))
            if length:
                self._follow(self._numbers[target], j, j + length, i - j, shift, starts, stretches)
            position = i + length
        self._starts.append(starts)
        self._stretches.append(stretches)
        self._copies.append({})
        for start, (size, source, at, shift) in zip(starts, stretches):
            if source != number:
                theirs = self._starts[source]
                copies = self._copies[source].setdefault(theirs[bisect_right(theirs, at) - 1], [])
                copies.append((number, start, at, size, shift))

    def _follow(self, target: int, j: int, end: int, offset: int, shift: int, starts: list[int],
                stretches: list[tuple[int, int, int, int]]) -> None:
        """Append the stretches that lines j to end - 1 of file `target` are, moved by `offset` and shifted
        by `shift`, to a new file's (`starts`, `stretches`); one that goes on where the last ended joins it."""
        theirs, their_stretches = self._starts[target], self._stretches[target]
        k = bisect_right(theirs, j) - 1
        while k < len(theirs) and theirs[k] < end:
            first, (size, source, at, their_shift) = max(theirs[k], j), their_stretches[k]
            last = min(theirs[k] + size, end)
            here, there, moved = first + offset, at + first - theirs[k], their_shift + shift
            if stretches and stretches[-1][1] == source and stretches[-1][3] == moved \
                    and starts[-1] + stretches[-1][0] == here and stretches[-1][2] + stretches[-1][0] == there:
                stretches[-1] = (stretches[-1][0] + last - first, source, stretches[-1][2], moved)
            else:
                starts.append(here)
                stretches.append((last - first, source, there, moved))
            k += 1

    def _candidates(self, stripped: str) -> list[tuple[str, int, int]]:
        """The latest places of `stripped`, at most _CANDIDATES, oldest first."""
        paths = self._paths
        own = self._places.get(stripped)
        if self._referenced_places is not None:  # places in order: the latest of both lists are the latest
            referenced = self._referenced_places.get(stripped)
            found = sorted([*own[-_CANDIDATES:], *referenced[-_CANDIDATES:]]) if own and referenced \
                else own or referenced or ()
            return [(paths[number], at, indent) for number, at, indent in found[-_CANDIDATES:]]
        if not own:
            return []
        # Every place is an own place or later than one: none is older than the oldest own place, and
        # none among the latest is older than the _CANDIDATES-th latest own place.
        oldest = own[-_CANDIDATES][0] if len(own) >= _CANDIDATES else own[0][0]
        if len(self._paths) - oldest < len(own):
            found = self._latest_files(own, oldest)
        else:
            found = self._each_place(own)
        return [(paths[number], at, indent) for number, at, indent in found[-_CANDIDATES:]]

    def _each_place(self, own: list[tuple[int, int, int]]) -> list[tuple[int, int, int]]:
        """The places of a text from each of its own places: itself and the latest stretches repeating it."""
        found: list[tuple[int, int, int]] = []
        for place in own:
            number, at, indent = place
            found.append(place)
            starts = self._starts[number]
            copies = self._copies[number].get(starts[bisect_right(starts, at) - 1], ())
            taken = 0
            for copy, start, there, size, shift in reversed(copies):
                if there <= at < there + size:
                    found.append((copy, start + at - there, indent + shift))
                    taken += 1
                    if taken == _CANDIDATES:
                        break
        found.sort()
        return found

    def _latest_files(self, own: list[tuple[int, int, int]], oldest: int) -> list[tuple[int, int, int]]:
        """The latest places of a text with many own places: the files from the latest back, each one's
        stretches from its last, until _CANDIDATES are found (never past file `oldest`)."""
        found: list[tuple[int, int, int]] = []
        for number in range(len(self._paths) - 1, oldest - 1, -1):
            starts, stretches = self._starts[number], self._stretches[number]
            for k in range(len(starts) - 1, -1, -1):
                size, source, at, shift = stretches[k]
                low, high = bisect_left(own, (source, at)), bisect_left(own, (source, at + size))
                for _, position, indent in reversed(own[low:high]):
                    found.append((number, starts[k] + position - at, indent + shift))
                    if len(found) == _CANDIDATES:
                        found.reverse()
                        return found
        found.reverse()
        return found

    def stored(self, path: str, text: str, *, share: bool, start: tuple[str, int, int] | None = None) -> str:
        """The stored form of `text` (the text itself unless it shares lines or begins like a stored file).
        `start`: (an earlier file, characters, lines) whose first lines the text may begin with (checked)."""
        if not share:
            lines = text.split("\n")
            self.lines[path] = lines
            self._texts[path] = text
            self._remember(path, lines)
            if not text.startswith(_PREFIX):
                return text
            return "\n".join([HEADER, *(_LITERAL + ln if ln.startswith(_PREFIX) else ln for ln in lines)])
        lines, ends = self._split(text, start)
        self.lines[path] = lines
        self._texts[path] = text
        self._ends[path] = ends
        out: list[str] = [HEADER]
        shared = False
        runs: list[tuple[int, str, int, int, int]] = []
        i, n = 0, len(lines)
        last = _last_lookup(ends, n)  # no line from this one on starts a run long enough: none is looked up
        while i < n:
            line = lines[i]
            run = self._longest_run(lines, i, text, ends) if line and i < last else None
            if run is not None:
                target, j, indent, length = run
                out.append(_reference_line(j + 1, j + length, target, indent))
                shared = True
                runs.append((i, target, j, length, indent))
                if not indent:
                    # The same lines as the target's: keep its str objects and let this file's copies go.
                    lines[i:i + length] = self.lines[target][j:j + length]
                i += length
                continue
            out.append(_LITERAL + line if line.startswith(_PREFIX) else line)
            i += 1
        # remembered only now: a file refers to files stored before it, never to its own lines (a reader
        # would meet a reference to the file it is resolving)
        self._remember(path, lines, runs)
        if not shared and not text.startswith(_PREFIX):
            return text
        return "\n".join(out)

    def _split(self, text: str, start: tuple[str, int, int] | None) -> tuple[list[str], array[int]]:
        """`text.split("\\n")` and its `_line_ends`. When `text` begins with the first `count` lines of an earlier
        file (`start`: its path, those lines' characters with the breaks between them, `count`; checked here at C
        speed), those lines and their ends are taken from that file's instead of splitting and summing them again:
        a node input repeating the whole state costs its new lines only (and one comparison of its start)."""
        if start is not None:
            earlier, chars, count = start
            theirs = self._texts.get(earlier)
            if theirs is not None and 0 < count <= len(self.lines[earlier]) and chars < min(len(text), len(theirs)) \
                    and text[chars] == "\n" == theirs[chars]:
                ends = self._line_ends(earlier)[:count + 1]
                if ends[count] + count - 1 == chars and text.startswith(theirs[:chars]):
                    rest = text[chars + 1:].split("\n")
                    ends.extend(islice(accumulate(map(len, rest), initial=ends[count]), 1, None))
                    return [*self.lines[earlier][:count], *rest], ends
        lines = text.split("\n")
        return lines, array("q", [0, *accumulate(map(len, lines))])  # ends[k]: characters of lines[:k]

    def _line_ends(self, path: str) -> array[int]:
        """ends[k]: the characters of a file's lines[:k], without line breaks (kept as an array: 8 bytes a line)."""
        ends = self._ends.get(path)
        if ends is None:
            ends = self._ends[path] = array("q", [0, *accumulate(map(len, self.lines[path]))])
        return ends

    def _longest_run(self, lines: list[str], i: int, text: str,
                     ends: Sequence[int]) -> tuple[str, int, int, int] | None:
        line = lines[i]
        stripped = line.lstrip(" ")
        indent = len(line) - len(stripped)
        best: tuple[str, int, int, int] | None = None
        best_chars = MIN_SHARED_CHARS - 1
        n = len(lines)
        need = 0  # the fewest lines from i on longer than best_chars (0: not known yet)
        for target, j, target_indent in reversed(self._candidates(stripped)):
            shift = indent - target_indent
            if shift < 0:
                continue
            theirs = self.lines[target]
            most = min(n - i, len(theirs) - j)
            if ends[i + most] - ends[i] + most <= best_chars:
                continue  # even a run to the end of either file would not be longer than the best so far
            if not need:
                need = bisect_right(range(i, n + 1), ends[i] + i + best_chars, key=lambda q: ends[q] + q)
            if shift == 0:  # the common case, compared as text (C speed, not a line at a time)
                k = _common_run(text, ends, i, self._texts[target], self._line_ends(target), j, most, need)
                chars = ends[i + k] - ends[i] + k
                if chars > best_chars:
                    best, best_chars, need = (target, j, 0, k), chars, 0
                continue
            pad = " " * shift
            mine, old = lines[i + need - 1], theirs[j + need - 1]
            if mine != (pad + old if old else old):
                continue  # the run is shorter than `need` lines
            k, chars = 0, 0
            while i + k < n and j + k < len(theirs):
                mine, old = lines[i + k], theirs[j + k]
                if old:
                    if len(mine) != len(old) + shift or not mine.endswith(old) or not mine.startswith(pad):
                        break
                elif mine:
                    break
                chars += len(mine) + 1
                k += 1
            if chars > best_chars:
                best, best_chars, need = (target, j, shift, k), chars, 0
        return best


def _last_lookup(ends: Sequence[int], n: int) -> int:
    """The first line of a file of `n` lines (`ends` as in `_line_ends`) from which the rest of the file, line
    breaks counted as _longest_run counts them, is shorter than MIN_SHARED_CHARS: no run starting there can be
    worth a reference, whatever earlier file it is looked up in."""
    return bisect_right(range(n + 1), ends[n] + n - MIN_SHARED_CHARS, key=lambda q: ends[q] + q)


def _note(places: dict[str, list[tuple[int, int, int]]], number: int, lines: list[str],
          ranges: Iterable[tuple[int, int]], keep: int) -> None:
    """Append the place (file `number`, position, indent) of each non-empty line of lines[start:stop], for each
    (start, stop) of `ranges`, to its stripped text's list in `places`; `keep` > 0: a list longer than `keep`
    is cut to its latest _CANDIDATES."""
    for start, stop in ranges:
        for at in range(start, stop):
            line = lines[at]
            stripped = line.lstrip(" ")
            if not stripped:
                continue
            known = places.get(stripped)
            if known is None:
                places[stripped] = [(number, at, len(line) - len(stripped))]
            else:
                known.append((number, at, len(line) - len(stripped)))
                if keep and len(known) > keep:
                    del known[:-_CANDIDATES]


def _common_run(mine: str, ends: Sequence[int], i: int, theirs: str, their_ends: Sequence[int], j: int,
                most: int, need: int = 1) -> int:
    """How many lines (at most `most`) from line i of text `mine` on equal those from line j of `theirs` on
    (doubling, then halving the step); `ends` and `their_ends` are the texts' `_line_ends`. Lines are
    compared as the text they span (without its last line break): at C speed over contiguous characters,
    not string by string, and not at all when the lengths differ."""

    def equal(start: int, stop: int) -> bool:  # lines i + start to i + stop - 1 with j + start to j + stop - 1
        first, end = ends[i + start] + i + start, ends[i + stop] + i + stop - 1
        their_first = their_ends[j + start] + j + start
        return (end - first == their_ends[j + stop] + j + stop - 1 - their_first
                and theirs.startswith(mine[first:end], their_first))

    if need > 1 and not equal(0, need):
        return 0  # shorter than `need` lines
    if most > _LONG_RUN:
        # A long run usually goes on to the end of the shorter file, or to its last line (a text ends with a
        # line break, so its last line is empty): two comparisons instead of the search's dozen.
        for guess in (most, most - 1):
            if equal(0, guess):
                return guess
    good, step = 0, 1
    while good + step <= most and equal(good, good + step):
        good += step
        step *= 2
    while step > 1:
        step //= 2
        if good + step <= most and equal(good, good + step):
            good += step
    return good


def share_lines(files: Iterable[tuple[str, str, bool]],
                starts: Mapping[str, tuple[str, int, int]] | None = None) -> dict[str, str]:
    """{path: stored form} for (path, text, may_share) in the order they are stored; a file that may share
    references lines of the files before it in this order. `starts` (topology.Materialized.starts): per path, an
    earlier file whose first lines its text may begin with (a hint, checked: the stored forms are the same)."""
    starts = starts or {}
    sharer = LineSharer()
    # The line index makes a tuple per line of every file, none part of a cycle; a full pass of the garbage
    # collector started by them walks every object of the process (a long agent's rendered state included),
    # which made share_lines of a 40-round agent cost 3.5 times that of 20 rounds. Collection waits until
    # they are gone.
    collecting = gc.isenabled()
    gc.disable()
    try:
        return {path: sharer.stored(path, text, share=share, start=starts.get(path)) for path, text, share in files}
    finally:
        if collecting:
            gc.enable()


def _checked_target(owner: str, target: str) -> str:
    parts = PurePosixPath(target).parts
    if target.startswith("/") or ".." in parts or "\\" in target or not parts:
        raise IntegrityError(f"{owner}: a reference names {target!r}, which is not a file of the trace folder. "
                             f"{_RECAPTURE}")
    return target


class TraceFiles:
    """The loader of one trace folder's text files: `text(path)` is a file's text with its references
    resolved; each file is read and resolved once per loader."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)
        self._lines: dict[str, list[str]] = {}

    def stored_by_reference(self, path: str) -> bool:
        """Whether the file on disk holds references (a search tool run over the folder does not see
        the lines they stand for; read it through this loader)."""
        try:
            with (self.root / path).open("rb") as file:
                return file.read(len(_HEADER_BYTES)) == _HEADER_BYTES
        except OSError:
            return False

    def data(self, path: str) -> bytes:
        """The file's content as bytes: for a file stored as itself, exactly its bytes on disk."""
        raw = (self.root / path).read_bytes()
        if not raw.startswith(_HEADER_BYTES):
            return raw
        return "\n".join(self.lines(path)).encode("utf-8")

    def text(self, path: str) -> str:
        return "\n".join(self.lines(path))

    def lines(self, path: str) -> list[str]:
        """The file's text split at '\\n' (the last item is '' when the text ends with a line break)."""
        done = self._lines.get(path)
        if done is not None:
            return done
        parsed: dict[str, list[str | tuple[int, int, str, int]]] = {}
        stack, on_stack = [path], {path}
        while stack:
            current = stack[-1]
            if current not in parsed:
                try:
                    parsed[current] = self._parse(current)
                except OSError as exc:
                    if current == path:
                        raise
                    raise IntegrityError(f"{self.root / stack[-2]}: refers to lines of {current}, which cannot be "
                                         f"read ({exc.strerror or exc}). {_RECAPTURE}") from exc
            waiting = [entry[2] for entry in parsed[current] if isinstance(entry, tuple)
                       and entry[2] not in self._lines]
            if waiting:
                target = waiting[0]
                if target in on_stack:
                    raise IntegrityError(f"{self.root / current}: its references lead back to {target}. {_RECAPTURE}")
                stack.append(target)
                on_stack.add(target)
                continue
            self._lines[current] = self._build(current, parsed.pop(current))
            stack.pop()
            on_stack.discard(current)
        return self._lines[path]

    def _parse(self, path: str) -> list[str | tuple[int, int, str, int]]:
        text = (self.root / path).read_bytes().decode("utf-8", errors="replace")
        lines = text.split("\n")
        if lines[0] != HEADER:
            self._lines[path] = lines
            return []
        entries: list[str | tuple[int, int, str, int]] = []
        for line in lines[1:]:
            if line.startswith(_LITERAL):
                entries.append(line[len(_LITERAL):])
            elif line.startswith(_PREFIX):
                match = _REFERENCE.fullmatch(line)
                if match is None:
                    raise IntegrityError(f"{self.root / path}: line {line[:80]!r} is neither text nor a reference "
                                         f"to lines of another trace file. {_RECAPTURE}")
                start, end, target, indent = match.groups()
                entries.append((int(start), int(end), _checked_target(str(self.root / path), target),
                                int(indent or 0)))
            else:
                entries.append(line)
        return entries

    def _build(self, path: str, entries: list[str | tuple[int, int, str, int]]) -> list[str]:
        if path in self._lines:  # stored as itself (set by _parse)
            return self._lines[path]
        out: list[str] = []
        for entry in entries:
            if isinstance(entry, str):
                out.append(entry)
                continue
            start, end, target, indent = entry
            theirs = self._lines[target]
            if not 1 <= start <= end <= len(theirs):
                raise IntegrityError(f"{self.root / path}: a reference names lines {start}-{end} of {target}, "
                                     f"which has {len(theirs)}. {_RECAPTURE}")
            if indent:
                pad = " " * indent
                out.extend(pad + ln if ln else ln for ln in theirs[start - 1:end])
            else:
                out.extend(theirs[start - 1:end])
        return out


def read_trace_text(trace_dir: str | Path, path: str) -> str:
    """The text of trace file `path` (relative to `trace_dir`), references resolved."""
    return TraceFiles(trace_dir).text(path)
