"""Stage 1, reading sources: each file's quantities parsed once (cached by sha256) with their lines, table
labels and field keys, what the file can be cited as, and the `SourceIndex` that searches them by value.
"""

from __future__ import annotations

import heapq
import re
from array import array
from bisect import bisect_left, bisect_right
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from itertools import accumulate, compress, islice, repeat
from math import floor, inf, isfinite, log10, nextafter
from operator import le, mul, ne, truediv
from pathlib import Path
from typing import NamedTuple, overload

from pytest_auditfence.claims import quantities
from pytest_auditfence.fence import Fence, FileStore, LoadedFile, Source
from pytest_auditfence.models import Quantity
from pytest_auditfence.verify.tables import Cell, CellLabel, Period, periods_in, read_tables


# Small unit-less integers ("three segments", "2 analysts") match something in almost any corpus and
# prove nothing; they are weak atoms: never checked, and alone they leave a claim unverifiable.
WEAK_LIMIT = 10.0


# Words that name no subject: verbs of change, function words, scale and unit words, months. 'grow' and
# 'increase' are left out: in how-to text they name what is done ('grow 3 to 5 feet', 'increase the heat').
STOPWORDS = frozenset(
    """a an and are as at be been by for from had has have in into is it its of on or than that the their
    this to was were which with while about above after against also among around before below between
    both but during each over per same since such under until up down via what when where who whose will
    would year years quarter quarters fiscal fy q1 q2 q3 q4 total totaled totalled reached reaching rose
    rise risen fell fall fallen grew increased decreased decrease decreases
    declined decline up compared versus vs approximately about roughly nearly almost around some more less
    million millions billion billions thousand thousands trillion bn mn usd dollars dollar percent pct
    points basis bps january february march april may june july august september october november
    december reported report reports according said says stated company companys""".split()
)


_WORD = re.compile(r"[A-Za-z][A-Za-z&\-]+")


class FileIndex:
    """Quantities of one file (by sha256) with their lines, and content words of lines holding numbers.

    Stored as columns (offsets, values in `array`s, lengths and lines in the narrowest that fits; kind, unit,
    scale, sign and tolerance as a code into the file's few distinct forms): about 20 bytes a figure where a
    `Quantity` object kept per figure took about 400. A figure's `Quantity` is built when it is read (`quantity`,
    or `quantities[item]`), its text sliced from the file's; `values[item]` reads the value alone."""

    __slots__ = ("text", "starts", "lengths", "values", "codes", "forms", "lines", "words", "line_words",
                 "alternatives", "labels", "_label_at", "texts", "_forms", "_literals", "eager", "ordered",
                 "deferred", "line_starts", "run_digits", "run_decimals", "run_firsts", "_done", "_firsts", "_parsed",
                 "number_words", "_vocabulary", "_asked", "memo")

    parsed_late = 0  # deferred lines parsed so far, by every file: a `SourceIndex` takes their figures in when it moves

    def __init__(self, text: str, line_starts: Sequence[int] | None = None) -> None:
        self.text = text  # the file's text, shared with the store's `LoadedFile`
        self.line_starts = line_starts  # where each line of the text starts (the `LoadedFile`'s, shared)
        # offsets as unsigned 32-bit columns: a file of more than 4G characters overflows, loudly
        self.starts, self.lengths = array("I"), array("I")
        self.values = array("d")
        # position in `forms`: a tolerance follows from the digits shown and the scale, so a file has few
        self.codes = array("I")
        self.forms: list[tuple[str, str | None, float, bool, float]] = []  # (kind, unit, scale, negative, tolerance)
        self._forms: dict[tuple[str, str | None, float, bool, float], int] = {}
        self.lines = array("I")  # ascending: the figures of one line are a slice
        # the words of table cells' labels: word -> the cells' items, ascending
        self.words: dict[str, array[int]] = {}
        # the words of other lines: word -> the lines (ascending, each once) whose figures it names; every figure
        # read on a line (not a cell, not a second reading) has its line's words, so a word is kept once a line
        # where a list by figure repeated it for each of the line's figures. Once the file is read (`narrow`), a
        # word on many of the file's lines is kept as an int whose bit n is line n, where that is smaller than the
        # array: `lines_with` reads either
        self.line_words: dict[str, array[int] | int] = {}
        # items that are a second reading of a bare number (a declared scale or unit): matched directly,
        # never used as operands of a derivation or as a contradicting value
        self.alternatives: frozenset[int] = frozenset()
        # items that are table cells: their row, column, period, scale (by item; by offset through `label_at`)
        self.labels: dict[int, CellLabel] = {}
        self._label_at: dict[int, CellLabel] | None = None  # only where the offsets do not ascend with the items
        self.texts: dict[int, str] = {}  # a figure whose text is not the file's slice at its span (none known)
        self._literals: array[int] | None = None
        # The lazy front: prose lines whose figures can only be plain numbers times a scale (`quantities.plain_runs`)
        # are not parsed when the file is indexed. Their line numbers (ascending) are kept, and each number they may
        # hold (its digits as an integer and its decimals shown, `run_digits` and `run_decimals`: the value as
        # written is digits / 10**decimals, `run_value`; a line's first number by its place in `deferred`,
        # `run_firsts`), so that a value lookup parses only the lines that can hold the value. A line holding no
        # such number holds no figure: it is not kept at all.
        # A deferred line, once parsed, adds its figures after every item there is (`_firsts`: the first of them, by
        # the line's place in `deferred`; they run while their line is that line).
        # The items read when the file was indexed are `eager` (items below it, in the order of the text).
        self.eager = 0
        self.ordered = True  # do the starts of the first `eager` items ascend (position order is item order)?
        self.deferred = array("I")
        # 4 bytes a number, 8 where one does not fit them; the values themselves ('d') where one has more than
        # `_EXACT_DIGITS` digits or more than 22 decimals (digits / 10**decimals is then not always the value)
        self.run_digits = array("I")
        self.run_decimals = array("B")
        self.run_firsts = array("I")
        self._done = bytearray()
        self._firsts = array("I")
        self._parsed = 0  # deferred lines parsed so far
        # may the text hold a number written as a word (`quantities.number_word_lines`)? False only where the
        # pre-pass's letter runs say it cannot
        self.number_words = True
        # The content words of deferred lines are not read when the file is indexed: `lines_with(word)` finds the
        # deferred lines holding `word` when a subject search first asks for it (`_deferred_lines_with`), kept in
        # `_asked`; `_vocabulary` (the deferred lines' ASCII letter runs, lower-cased, each once, space-joined; built
        # at the first ask) answers at once for a word no deferred line can hold
        self._vocabulary: bytes | None = None
        self._asked: dict[str, tuple[int, ...]] = {}
        # what the stages work out from this file's text and figures alone (its spelled figures, its tables' rows, the
        # periods it names), kept with the file: every index of an audit that holds the file (one an audit unit, the
        # files shared through `IndexCache` by sha256) reads it, so it is worked out once a file for the audit
        self.memo: dict[object, object] = {}

    def append(self, q: Quantity, line: int) -> int:
        """Store a parsed figure; its item number."""
        item = len(self.starts)
        if not self._parsed:
            self.eager = item + 1
        self.starts.append(q.start)
        form = (q.kind, q.unit, q.scale, q.negative, float(q.tolerance))  # a float, as a 'd' column kept it
        code = self._forms.get(form)
        if code is None:
            code = self._forms[form] = len(self.forms)
            self.forms.append(form)
        self._put("lengths", q.end - q.start)
        self._put("codes", code)
        self._put("lines", line)
        self.values.append(q.value)
        if q.end - q.start != len(q.text) or not self.text.startswith(q.text, q.start):  # compared in place
            self.texts[item] = q.text
        return item

    def _put(self, name: str, value: int) -> None:
        """Append to a narrowed column, widened to 4 bytes where a figure parsed late does not fit it."""
        column = getattr(self, name)
        try:
            column.append(value)
        except OverflowError:
            column = array("I", column)
            column.append(value)
            setattr(self, name, column)

    def narrow(self) -> None:
        """Once the file is read: item lists, lines, lengths and form codes in 2 or 1 bytes where their values
        fit; the offset map of the labels only where a bisection of `starts` cannot stand for it."""
        if len(self.starts) <= 0xFFFF:
            for word, items in self.words.items():
                self.words[word] = array("H", items)
        narrow_lines = self.text.count("\n") < 0xFFFF  # every line number of the file, a deferred line's too, fits
        if narrow_lines:
            self.lines = array("H", self.lines)
            self.deferred = array("H", self.deferred)
        line_words = self.line_words
        for word, lines in line_words.items():
            line_words[word] = _line_set(lines, narrow_lines)
        if len(self.run_decimals) <= 0xFFFF:  # a deferred line's first number by its place among them
            self.run_firsts = array("H", self.run_firsts)
        for name in ("lengths", "codes"):
            column = getattr(self, name)
            top = max(column, default=0)
            if top <= 0xFFFF:
                setattr(self, name, array("B" if top <= 0xFF else "H", column))
        starts = self.starts
        if not all(map(le, starts, islice(starts, 1, None))):
            self.ordered = False
            self._label_at = {starts[i]: label for i, label in self.labels.items()}
        self._done = bytearray(len(self.deferred))
        # a parsed line's first item, by its place in `deferred` (2 bytes while the items fit, widened by `_put`)
        self._firsts = array("H", bytes(2 * len(self.deferred)))

    def defer(self, line: int, values: Sequence[float], decimals: Sequence[int]) -> None:
        """Keep a prose line unparsed with the numbers it may hold (at least one) and their decimals shown (at most
        255): `quantities.plain_runs`, as `quantities.PlainRuns.of_line` gives them. A number as written with d
        decimals is its digits m over 10**d, and `m / 10.0**d` is the same correctly rounded double as the value
        read from the text where m < 2**53 and d <= 22 (both exact, one division): the digits are kept where every
        number has at most `_EXACT_DIGITS` digits (`round(value * 10**d)` gives m exactly there)."""
        self.deferred.append(line)
        self.run_firsts.append(len(self.run_decimals))
        self._keep_numbers(values, decimals)

    def defer_block(self, lines: range, firsts: Iterable[int], values: Sequence[float], decimals: Sequence[int]
                    ) -> None:
        """`defer` of consecutive lines at once: `lines`, each holding at least one of the numbers, whose first
        number is at each of `firsts` (ascending places among `values`, the first 0)."""
        self.deferred.extend(lines)
        self.run_firsts.extend(map(len(self.run_decimals).__add__, firsts))
        self._keep_numbers(values, decimals)

    def _keep_numbers(self, values: Sequence[float], decimals: Sequence[int]) -> None:
        self.run_decimals.extend(decimals)
        column = self.run_digits
        if column.typecode != "d":
            if max(decimals, default=0) <= 22:  # (C-level maps: a block holds thousands of numbers)
                digits = list(map(round, map(mul, values, map(_POW10.__getitem__, decimals))))
            else:
                digits = [round(value * _POW10[d]) if d <= 22 else _TOO_MANY for value, d in zip(values, decimals)]
            top = max(digits, default=0)
            if top < _TOO_MANY:
                if top > 0xFFFFFFFF and column.typecode == "I":
                    # widened before: an array's `extend` that overflows has appended the numbers before the one that
                    # does not fit (a line holding '5' and then '12,345,678,901' kept the 5 twice)
                    self.run_digits = column = array("Q", column)
                column.extend(digits)
                return
            self.run_digits = column = array("d", map(self.run_value, range(len(column))))
        column.extend(values)

    def run_value(self, place: int) -> float:
        """The value as written of the deferred number at `place`."""
        column = self.run_digits
        if column.typecode == "d":
            return column[place]
        return column[place] / _POW10[self.run_decimals[place]]

    @property
    def runs(self) -> Sequence[float]:
        """The values as written of the deferred numbers, in order (read from `run_digits`)."""
        return _Column(lambda: len(self.run_decimals), self.run_value)

    def run_line(self, place: int) -> int:
        """The place in `deferred` of the line holding the deferred number at `place`."""
        return bisect_right(self.run_firsts, place) - 1

    def materialize(self, k: int) -> None:
        """Parse the k-th deferred line (once): its figures become items after every item there is, in the order
        the scanner reads them."""
        if self._done[k]:
            return
        self._done[k] = 1
        line = self.deferred[k]
        start = self._line_starts()[line - 1]
        end = self.text.find("\n", start)
        try:
            self._firsts[k] = len(self.starts)
        except OverflowError:
            self._firsts = array("I", self._firsts)
            self._firsts[k] = len(self.starts)
        self._parsed += 1
        for q in quantities.parse_prose_line(self.text, start, len(self.text) if end < 0 else end):
            self.append(q, line)
        FileIndex.parsed_late += 1

    def spells(self, k: int, pattern: re.Pattern[str]) -> bool:
        """Does the k-th deferred line hold a match of `pattern` (searched in the line's text alone)?"""
        start = self._line_starts()[self.deferred[k] - 1]
        end = self.text.find("\n", start)
        return pattern.search(self.text[start:len(self.text) if end < 0 else end]) is not None

    def materialize_all(self) -> None:
        """Parse every deferred line (a file read whole, as before the lazy front)."""
        for k in range(len(self.deferred)):
            self.materialize(k)

    def items_on_line(self, line: int) -> range:
        """Every item read on `line` (cells and second readings too), in item order; a deferred line is parsed."""
        k = bisect_left(self.deferred, line)
        if k < len(self.deferred) and self.deferred[k] == line:
            self.materialize(k)
            first = end = self._firsts[k]
            lines, n = self.lines, len(self.starts)
            while end < n and lines[end] == line:
                end += 1
            return range(first, end)
        return range(bisect_left(self.lines, line, 0, self.eager), bisect_right(self.lines, line, 0, self.eager))

    def position(self, item: int) -> tuple[int, int]:
        """Where the item stands among the file's figures: the order a full parse gives them (item order where the
        file was read whole; a deferred line's figures start inside it, where no other figure starts)."""
        return (self.starts[item], item) if self.ordered else (0, item)

    @property
    def ends(self) -> _Column:
        """Each figure's end offset (start + length)."""
        return _Column(lambda: len(self.starts), lambda item: self.starts[item] + self.lengths[item])

    @property
    def tolerances(self) -> _Column:
        """Each figure's tolerance (kept in its form)."""
        return _Column(lambda: len(self.starts), lambda item: self.forms[self.codes[item]][4])

    def label_at(self, offset: int) -> CellLabel | None:
        """The label of the table cell whose figure starts at `offset` (the last such item's), or None."""
        if self._label_at is not None:
            return self._label_at.get(offset)
        starts, labels = self.starts, self.labels
        found = None
        # cells are read when the file is indexed: among the first `eager` items, whose starts ascend
        for item in range(bisect_left(starts, offset, 0, self.eager), bisect_right(starts, offset, 0, self.eager)):
            found = labels.get(item, found)
        return found

    def lines_with(self, word: str) -> Iterable[int]:
        """The lines (ascending) whose figures `word` names: the lines read when the file was indexed, as
        `line_words` keeps them (an array or a bit set), and the deferred lines holding it (`_deferred_lines_with`)."""
        lines: Iterable[int] = self.line_words.get(word, ())
        if isinstance(lines, int):
            ones = format(lines, "b")[::-1].encode().translate(_BIT_FLAGS)  # byte n is 1 where line n is in the set
            lines = compress(range(len(ones)), ones)
        late = self._deferred_lines_with(word) if len(self.deferred) else ()
        return sorted((*lines, *late)) if late else lines  # (a deferred line is never one read when indexed)

    def _deferred_lines_with(self, word: str) -> tuple[int, ...]:
        """The deferred lines (ascending) among whose `content_words` `word` is, found on first ask and kept (a
        claim's words are asked of every file, and claims of one subject ask the same words)."""
        found = self._asked.get(word)
        if found is None:
            if len(self._asked) >= _ASKED_MEMO:
                self._asked.clear()
            found = self._asked[word] = self._find_deferred(word)
        return found

    def _find_deferred(self, word: str) -> tuple[int, ...]:
        """A content word is part of a token of ASCII letters, '&' and '-', lower-cased: each of its letter runs is
        part of a letter run of its line (the vocabulary's test, at C speed), and the word is in its line's text,
        case aside (a search of the text; each line found is confirmed by `content_words` of its text, the reading
        the index made of every deferred line before it was lazy)."""
        pieces = _LETTER_PIECES.findall(word)
        if not pieces or not word.isascii():
            return ()  # a content word starts with an ASCII letter
        if self._vocabulary is None:
            self._vocabulary = self._deferred_vocabulary()
        if not all(piece.lower().encode() in self._vocabulary for piece in pieces):
            return ()
        text, starts, deferred = self.text, self._line_starts(), self.deferred
        found: list[int] = []
        last = 0
        for hit in re.finditer(re.escape(word), text, re.IGNORECASE | re.ASCII):
            line = bisect_right(starts, hit.start())
            if line == last:
                continue
            last = line
            k = bisect_left(deferred, line)
            if k < len(deferred) and deferred[k] == line:
                start = starts[line - 1]
                end = text.find("\n", start)
                if word in content_words(text[start:len(text) if end < 0 else end]):
                    found.append(line)
        return tuple(found)

    def _deferred_vocabulary(self) -> bytes:
        """The deferred lines' maximal ASCII letter runs, lower-cased, each once, joined by spaces. The text is
        sliced once per block of consecutive deferred lines (found by C-level maps), not once per line."""
        text, starts, deferred = self.text, self._line_starts(), self.deferred
        count = len(deferred)
        # where a block starts: the first deferred line, and each one that does not follow the one before it
        firsts = [0, *compress(range(1, count), map(ne, islice(deferred, 1, None), map((1).__add__, deferred)))]
        ends = [*(k - 1 for k in islice(firsts, 1, None)), count - 1]
        held = "\n".join([text[starts[deferred[a] - 1]:starts[deferred[b]] if deferred[b] < len(starts) else len(text)]
                          for a, b in zip(firsts, ends)])
        runs = set(held.encode("utf-8", "replace").translate(quantities.LETTERS_ONLY).lower().split())
        return b" ".join(sorted(runs))

    def _line_starts(self) -> Sequence[int]:
        """Where each line of the text starts (the `LoadedFile`'s where it was given; else computed once)."""
        if self.line_starts is None:
            self.line_starts = array("I", accumulate((len(part) + 1 for part in self.text.split("\n")), initial=0))
        return self.line_starts

    def on_line(self, line: int) -> Iterator[int]:
        """The items read on `line` that carry the line's words (not cells, not second readings)."""
        labels, alternatives = self.labels, self.alternatives
        for item in self.items_on_line(line):
            if item not in labels and item not in alternatives:
                yield item

    def quantity(self, item: int) -> Quantity:
        """The figure as the parser read it (a new `Quantity`, equal to the parser's)."""
        start = self.starts[item]
        end = start + self.lengths[item]
        kind, unit, scale, negative, tolerance = self.forms[self.codes[item]]
        text = self.texts.get(item) if self.texts else None
        return Quantity.model_construct(
            text=self.text[start:end] if text is None else text, start=start, end=end, value=self.values[item],
            kind=kind, unit=unit, scale=scale, tolerance=tolerance, negative=negative,
        )

    @property
    def quantities(self) -> Figures:
        """The figures as a read-only sequence of `Quantity`, each built when read."""
        return Figures(self)

    def holds_literal(self, written: str) -> bool:
        """Is `written` (digits as written, thousands commas dropped) one of the file's digit runs? The runs are
        kept as a sorted column of their distinct hashes (32 bits, built on first use, 4 bytes a run); a hash found
        is confirmed by a search of the text for the run (`_run_written`), so the answer is exact."""
        if self._literals is None:
            self._literals = array("I", sorted({hash(run.replace(",", "")) & 0xFFFFFFFF
                                                for run in LITERAL_NUMBER.findall(self.text)}))
        hashes = self._literals
        wanted = hash(written) & 0xFFFFFFFF
        at = bisect_left(hashes, wanted)
        return at < len(hashes) and hashes[at] == wanted and _run_written(self.text, written)


_BIT_FLAGS = bytes.maketrans(b"01", b"\x00\x01")
# a word's ASCII letter runs (`FileIndex._find_deferred`)
_LETTER_PIECES = re.compile(r"[A-Za-z]+")
# words whose deferred lines a file keeps once found; past this the memo starts again
_ASKED_MEMO = 4096


def _line_set(lines: array[int], narrow: bool) -> array[int] | int:
    """A word's lines (ascending, each once) as the smaller of an array (2 bytes a line where every line number of
    the file fits them, else 4) and an int whose bit n is line n (about 4 bytes for 30 lines of the file up to the
    last one; both with their object's header). The bits are set by C-level loops: digits '1' written at the
    lines into a string of '0's, read backwards as a base-2 number."""
    count = len(lines)
    size = 2 if narrow else 4
    last = max(lines, default=0)
    if not count or 28 + 4 * (last // 30 + 1) >= 64 + size * count:
        return array("H", lines) if narrow else lines
    digits = bytearray(b"0") * (last + 1)
    deque(map(digits.__setitem__, lines, repeat(49)), maxlen=0)  # 49: '1'
    digits.reverse()
    return int(digits, 2)


def _run_written(text: str, written: str) -> bool:
    """Is `written` a digit run of `text` as `LITERAL_NUMBER.finditer` cuts them, with its commas dropped? A C-speed
    search for the digits with any commas between them finds where it may be written; a place counts where the run
    read from it is `written` and a run starts there. A place after a digit is inside a run (a run takes every digit
    that follows it), so the search skips those."""
    if _RUN_FORM.fullmatch(written) is None:
        return False  # a run without its commas is digits, a point and digits at most
    whole, _, fraction = written.partition(".")
    pattern = ",*".join(re.escape(digit) for digit in whole) + ",*" + (r"\." + re.escape(fraction) if fraction else "")
    search = re.compile(r"(?<!\d)" + pattern).search
    place = search(text)
    while place is not None:  # places may overlap ('2,22' holds one at '2' and one at '22'): each is tried
        at = place.start()
        run = LITERAL_NUMBER.match(text, at)
        if run is not None and run.group().replace(",", "") == written and _run_starts_at(text, at):
            return True
        place = search(text, at + 1)
    return False


def _run_starts_at(text: str, at: int) -> bool:
    """Does one of `LITERAL_NUMBER.finditer(text)`'s runs start at `at`? A run holds digits, commas and points only,
    so the cut is the same from the last character before `at` that is none of them: the runs are read again from
    there."""
    restart = at
    while restart > 0 and (text[restart - 1] in ",." or text[restart - 1].isdecimal()):
        restart -= 1
    for run in LITERAL_NUMBER.finditer(text, restart):
        if run.start() >= at:
            return run.start() == at
    return False


_RUN_FORM = re.compile(r"\d+(?:\.\d+)?")


# Powers of ten exact as doubles (10**22 is the last); digits of a deferred number kept as an integer: below 2**50,
# so that `round(value * 10**d)` is the integer (the product is within half of it) and below 2**53 (exact)
_POW10 = tuple(10.0 ** d for d in range(23))
_TOO_MANY = 1 << 50


class _Column(Sequence[float]):
    """A column a file's index no longer keeps, read per item from the ones it keeps (ends from starts and lengths,
    tolerances from forms, deferred numbers' values from their digits)."""

    __slots__ = ("_size", "_read")

    def __init__(self, size: Callable[[], int], read: Callable[[int], float]) -> None:
        self._size, self._read = size, read

    def __len__(self) -> int:
        return self._size()

    def __getitem__(self, item):  # type: ignore[no-untyped-def]
        if isinstance(item, slice):
            return [self._read(i) for i in range(*item.indices(len(self)))]
        return self._read(item)


class Figures(Sequence[Quantity]):
    """A file's figures read as `Quantity` objects, each made on access from the file's columns."""

    __slots__ = ("_index",)

    def __init__(self, index: FileIndex) -> None:
        self._index = index

    def __len__(self) -> int:
        return len(self._index.starts)

    @overload
    def __getitem__(self, item: int) -> Quantity: ...

    @overload
    def __getitem__(self, item: slice) -> list[Quantity]: ...

    def __getitem__(self, item: int | slice) -> Quantity | list[Quantity]:
        if isinstance(item, slice):
            return [self._index.quantity(i) for i in range(*item.indices(len(self)))]
        if item < 0:
            item += len(self)
        if not 0 <= item < len(self):
            raise IndexError("figure index out of range")
        return self._index.quantity(item)


class IndexCache:
    """Per-file indexes keyed by sha256: a file shared by several audit units is parsed once."""

    def __init__(self) -> None:
        self._by_sha: dict[str, FileIndex] = {}

    def get(self, sha256: str) -> FileIndex | None:
        return self._by_sha.get(sha256)

    def put(self, sha256: str, index: FileIndex) -> None:
        self._by_sha[sha256] = index

    def __len__(self) -> int:
        return len(self._by_sha)


def content_words(text: str) -> list[str]:
    """Lower-case words that can name a subject ('revenue', 'gross', 'margin'), in order, each once. A
    camelCase field name also gives its parts ('dividendYield' -> 'dividendyield', 'dividend', 'yield'), as
    the JSON of many data APIs names its fields so."""
    seen: dict[str, None] = {}
    for word in _WORD.findall(text):
        for lowered in _word_parts(word):
            seen.setdefault(lowered, None)
    return list(seen)


@lru_cache(maxsize=1 << 16)
def _word_parts(word: str) -> tuple[str, ...]:
    """The content words one token gives, in order (memoised: a corpus repeats its vocabulary on every line)."""
    parts = [word]
    if CAMEL.search(word):
        parts += CAMEL.sub(" ", word).split()
    kept = []
    for part in parts:
        lowered = part.lower().strip("-")
        if len(lowered) >= 3 and lowered not in STOPWORDS:
            kept.append(lowered)
    return tuple(kept)


CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")


# Two capitals standing alone name a subject as a word does ('UK', 'US', 'EU' as a row of a revenue by country
# table), though `content_words` keeps words of three letters or more only
_ABBREVIATION = re.compile(r"(?<![A-Za-z0-9$€£¥])[A-Z]{2}(?![A-Za-z0-9$€£¥])")


def abbreviations(text: str) -> list[str]:
    """The two-capital abbreviations of `text`, lower-cased, in order, each once ('from UK' -> ['uk']); a
    stopword is none ('FY', 'Q1', 'BN' name no subject)."""
    found = (m.group().lower() for m in _ABBREVIATION.finditer(text))
    return list(dict.fromkeys(word for word in found if word not in STOPWORDS))


def _index_file(loaded: LoadedFile, *, lazy: bool = True) -> FileIndex:
    """Parse the file once. Table cells (every form `tables.read_tables` knows) are read with their table's
    scale and unit and labelled with their row, column and period; their words are the label's, not the
    line's. Everything else is read by the claims layer's scanner, line by line, but for the prose lines whose
    figures can only be plain numbers times a scale (`lazy`): those are kept unparsed with their words and the
    numbers they may hold (`FileIndex.defer`), and parsed when a lookup can reach them."""
    index = _read_file(loaded, lazy)
    if not index.ordered and len(index.deferred):
        index = _read_file(loaded, False)  # items that do not follow the text: read whole, in the scanner's order
    return index


def _read_file(loaded: LoadedFile, lazy: bool) -> FileIndex:
    text = loaded.text
    cells = read_tables(text)
    index = FileIndex(text, loaded.starts)
    words, line_words, labels = index.words, index.line_words, index.labels
    alternatives: set[int] = set()
    worded_line = 0  # the last line whose words are kept
    shared: dict[object, object] = {}  # the labels' columns and periods, each value once

    def add(q: Quantity, line: int, item_words: Sequence[str], alternative: bool, label: CellLabel | None) -> None:
        nonlocal worded_line
        item = index.append(q, line)
        if label is not None:
            labels[item] = label
        if alternative:
            alternatives.add(item)
            return
        if label is None:  # a figure of a line: its words are the line's, kept once a line (lines ascend)
            if line == worded_line:
                return
            worded_line, keyed, key = line, line_words, line
        else:  # a cell: its label's words
            keyed, key = words, item
        for word in item_words:
            keys = keyed.get(word)
            if keys is None:
                keys = keyed[word] = array("I")
            keys.append(key)

    next_cell = 0
    current_line, current_words = 0, []
    # the scanner need not parse what is read as a cell below (its figures there are dropped); overlapping
    # cells (two readers of one table) keep the full scan, where the first cell not yet passed decides
    spans = [(cell.start, cell.end) for cell in cells]
    disjoint = all(a[1] <= b[0] for a, b in zip(spans, spans[1:]))
    # the cells by start, with the furthest end of those up to each: does a cell meet a line, by one bisection
    by_start = sorted(spans)
    cell_starts = [a for a, _ in by_start]
    reach = list(accumulate((b for _, b in by_start), max))

    def defer(line: int, start: int, end: int) -> bool:
        """Keep a prose line for later: no cell on it (a cell's reading replaces the scanner's there)."""
        before = bisect_left(cell_starts, end)
        if text.find("|", start, end) >= 0 or before and reach[before - 1] > start:
            return False
        runs = prepass.of_line(line, start, end)
        if runs is None:
            return False
        if not len(runs[0]):
            return True  # no number the parser can read: no figure, nothing to keep
        index.defer(line, *runs)  # its words are read when a subject search asks (`FileIndex.lines_with`)
        return True

    prepass = quantities.PlainRuns(text, loaded.starts) if lazy else None
    blocks: list[tuple[int, int, int]] = []
    if prepass is not None:
        blocks = _prose_blocks(loaded, prepass, spans)
        places = prepass.offsets
        line_starts = loaded.starts

        def defer_block(first: int, last: int) -> None:
            """Keep the prose block's lines for later, with their numbers (every line holds one)."""
            a = bisect_left(places, line_starts[first - 1])
            b = bisect_left(places, line_starts[last]) if last < len(line_starts) else len(places)
            firsts = map(a.__rsub__, map(bisect_left, repeat(places), islice(line_starts, first - 1, last)))
            index.defer_block(range(first, last + 1), firsts, prepass.values[a:b], prepass.decimals[a:b])

    scanner = quantities.QuantityScanner()
    for scanned in scanner.iter_scan(text, read_elsewhere=spans if disjoint else (), defer=defer if lazy else None,
                                     prose_blocks=blocks, defer_block=defer_block if blocks else None):
        q = scanned.quantity
        while next_cell < len(cells) and cells[next_cell].end <= q.start:
            _add_cell(loaded, cells[next_cell], add, shared)
            next_cell += 1
        if next_cell < len(cells) and cells[next_cell].start <= q.start < cells[next_cell].end:
            continue  # read as a cell of its table
        if scanned.line != current_line:
            current_line, current_words = scanned.line, content_words(loaded.line_text(scanned.line))
        add(q, scanned.line, current_words, scanned.alternative, None)
    for cell in cells[next_cell:]:
        _add_cell(loaded, cell, add, shared)
    index.alternatives = frozenset(alternatives)
    index.number_words = prepass is None or prepass.number_words
    index.narrow()
    return index


def _prose_blocks(loaded: LoadedFile, prepass: quantities.PlainRuns, spans: Sequence[tuple[int, int]]
                  ) -> list[tuple[int, int, int]]:
    """Runs of consecutive lines that the scanner would hand to `_read_file`'s `defer` and that it would keep
    unparsed (first line, last line, where the line after them starts): lines holding a number of the pre-pass,
    none of them risky to it, with no '|', no cell of a table, no caption (`quantities.caption_lines`) and no
    numeric field (`quantities.numeric_field_lines`), not the first, found by C-speed searches and maps. A line
    left out is read by the scanner, line by line, as before: the tests here need only be sufficient."""
    starts = loaded.starts
    count = len(starts)
    held = bytearray(count + 1)  # byte n: line n holds a number of the pre-pass
    deque(map(held.__setitem__, map(bisect_right, repeat(starts), prepass.offsets), repeat(1)), maxlen=0)
    text = loaded.text

    def drop(lines: Iterable[int]) -> None:
        deque(map(held.__setitem__, lines, repeat(0)), maxlen=0)

    held[1] = 0  # the first line: `caption_lines` leaves it out
    drop(prepass.risky)
    drop(quantities.caption_lines(text, starts))
    drop(quantities.numeric_field_lines(text, starts))
    at = text.find("|")
    while at >= 0:  # a line holding a pipe
        line = bisect_right(starts, at)
        held[line] = 0
        at = text.find("|", starts[line]) if line < count else -1
    for start, end in spans:  # every line a table cell meets
        drop(range(bisect_right(starts, start), bisect_right(starts, max(start, end - 1)) + 1))
    blocks = []
    for run in _HELD_RUN.finditer(held):
        first, last = run.start(), run.end() - 1
        blocks.append((first, last, starts[last] if last < count else len(text)))
    return blocks


_HELD_RUN = re.compile(rb"\x01+")


@lru_cache(maxsize=4096)
def _label_words(row: str, section: str, columns: tuple[str, ...], caption: str) -> tuple[str, ...]:
    """A cell label's words: its subject's, its column's and its caption's. Memoised by the label's own strings
    (the memo holds references to what the labels hold, where a key of the text joined held a copy of it)."""
    text = f"{f'{row} {section}'.strip()} {' '.join(columns)} {caption}"
    return tuple(content_words(text) + abbreviations(text))


def _shared_label(label: CellLabel, shared: dict[object, object]) -> CellLabel:
    """The label with its columns and periods shared with the file's equal ones: the cells of one column or one
    period hold equal tuples and sets, one object each cell where one a file is enough (frozen, so shared
    safely)."""
    columns = shared.setdefault(label.columns, label.columns)
    periods = shared.setdefault(label.periods, label.periods)
    if columns is label.columns and periods is label.periods:
        return label
    return replace(label, columns=columns, periods=periods)


def _add_cell(loaded: LoadedFile, cell: Cell, add: Callable[..., None], shared: dict[object, object]) -> None:
    """A table cell's figure at its table's scale and unit, and (when the scale came from the table, not the
    cell) the bare figure as an alternative reading, both labelled with the cell's row, column and period."""
    text = loaded.text[cell.start:cell.end]
    label = _shared_label(cell.label, shared)
    read = quantities.parse_quantities(text, scale_context=label.scale, unit_context=label.unit, offset=cell.start,
                                       years=False, cell=True)
    if len(read) != 1:
        return
    line = loaded.line_of(cell.start)
    cell_words = _label_words(label.row, f"{label.section} {label.title}".strip(), label.columns, label.caption)
    add(read[0], line, cell_words, False, label)
    if label.scale is not None or label.unit is not None:
        bare = quantities.parse_quantities(text, offset=cell.start, years=False, cell=True)
        if len(bare) == 1 and bare[0].value != read[0].value or len(bare) == 1 and bare[0].kind != read[0].kind:
            add(bare[0], line, cell_words, True, label)


# Decimals shown by which a corpus's deferred numbers are kept apart (the last group: that many or more): a figure's
# tolerance is at most half a unit of its last decimal times its scale
_RUN_DECIMALS = 4


def _corpus_runs(files: Sequence[FileIndex], kept: Sequence[Iterable[int]] | None = None
                 ) -> list[tuple[array[float], array[int], array[int]]]:
    """The numbers every file's deferred lines may hold, by decimals shown, in (value, file, place) order: per
    group a sparse column of every `_FENCE`-th value and two columns, each number's file and its place in that
    file's `FileIndex.runs`. The numbers themselves stay in the files (stored once): a lookup bisects the sparse
    column, then a block of `_FENCE` rows reading the files' values. Empty where no line is deferred.
    Each file's numbers of a group are put in order on their own (a column of places) and the files merged, so
    that no tuple is held per number of the corpus at once (a sort of every row did, 3x the text at its peak).
    `kept`: per file, the places (ascending) of the only numbers to put in (`_expected_places`); the rows are then
    those of the whole corpus's columns that hold one of them, in the same order."""
    if not any(len(fi.run_decimals) for fi in files):
        return []
    top = _RUN_DECIMALS - 1
    orders: list[list[array[int]]] = [[] for _ in range(_RUN_DECIMALS)]
    for f, fi in enumerate(files):
        groups: list[list[int]] = [[] for _ in range(_RUN_DECIMALS)]
        run_decimals = fi.run_decimals
        for i in range(len(run_decimals)) if kept is None else kept[f]:  # ascending places either way
            groups[min(run_decimals[i], top)].append(i)
        for group, positions in zip(orders, groups):
            # stable: equal values stay in position order, which is line order (a line's numbers are appended together)
            group.append(array("I", sorted(positions, key=fi.run_value)))
    file_code = "H" if len(files) <= 0x10000 else "I"
    place_code = "H" if max(len(fi.run_decimals) for fi in files) <= 0x10000 else "I"
    out = []
    for group in orders:
        fence, in_file, places = array("d"), array(file_code), array(place_code)
        for value, f, i in heapq.merge(*(_by_value(files[f].run_value, f, order) for f, order in enumerate(group))):
            if not len(in_file) % _FENCE:
                fence.append(value)
            in_file.append(f)
            places.append(i)
        out.append((fence, in_file, places))
    return out


# Rows of a corpus's deferred numbers between two values of its sparse column (`_corpus_runs`)
_FENCE = 32


def _fenced(fence: array[float], rows: range, key: Callable[[int], float], value: float, right: bool) -> int:
    """`bisect_left` (or `bisect_right`) of `value` in `rows` by `key`, narrowed first to the block of rows between
    two values of `fence` (every `_FENCE`-th row's)."""
    j = (bisect_right if right else bisect_left)(fence, value)
    lo = (j - 1) * _FENCE + 1 if j else 0
    hi = min(j * _FENCE, len(rows))
    return (bisect_right if right else bisect_left)(rows, value, lo, hi, key=key)


def expected_lookups(figures: Iterable[Quantity]) -> list[tuple[float, float]]:
    """(value, tolerance) of the value lookups (`SourceIndex.near`) the verifier makes for claimed figures, known
    before the sources are read: each figure's value, its value as written (`quantities.displayed_value`), that
    as a fraction (a percentage a source gives as 0.061) and a Fahrenheit figure in Celsius (the signs do not
    matter: `_reach` reads |value|). A lookup of another value is still answered (`SourceIndex._reach`)."""
    found: dict[tuple[float, float], None] = {}
    for q in figures:
        shown, tol = quantities.displayed_value(q)
        for pair in ((q.value, q.tolerance), (shown, tol), (shown / 100.0, tol / 100.0 + 1e-12),
                     ((shown - 32.0) * 5.0 / 9.0, tol)):
            found[(abs(pair[0]), float(pair[1]))] = None
    return list(found)


def _reach_windows(value: float, tolerance: float, decimals: int) -> Iterator[tuple[float, float]]:
    """The ranges of deferred numbers of a group of decimals shown (`_corpus_runs`) that `_reach` bisects for a
    lookup of `value`, at every plain scale, in the same arithmetic as `_reach`'s."""
    v = abs(value)
    reach = tolerance + 2e-9 * max(1.0, v)
    for scale in quantities.PLAIN_SCALES:
        centre = v / scale
        half = reach / scale + 0.5 * 10.0 ** -decimals
        yield centre - half, centre + half


def _merged_windows(lookups: Iterable[tuple[float, float]]) -> tuple[array[float], ...]:
    """Per group of decimals shown, the union of the lookups' `_reach_windows` as disjoint ranges, ascending,
    flattened (low, high, low, ...); a lookup that is not a finite number is left out (it is not expected)."""
    finite = [(value, tolerance) for value, tolerance in lookups if isfinite(value) and isfinite(tolerance)]
    out = []
    for decimals in range(_RUN_DECIMALS):
        merged: list[float] = []
        for lo, hi in sorted(w for value, tolerance in finite for w in _reach_windows(value, tolerance, decimals)):
            if merged and lo <= merged[-1]:
                merged[-1] = max(merged[-1], hi)
            else:
                merged += (lo, hi)
        out.append(array("d", merged))
    return tuple(out)


def _covered(windows: tuple[array[float], ...], value: float, tolerance: float) -> bool:
    """Do the merged ranges hold every range `_reach` bisects for this lookup, in each group of decimals?"""
    for decimals, merged in enumerate(windows):
        for lo, hi in _reach_windows(value, tolerance, decimals):
            j = bisect_right(merged, lo)  # odd: lo is in the ((j - 1) / 2)-th range, which ends at merged[j]
            if not (j % 2 and hi <= merged[j]):
                return False
    return True


def _window_ends(windows: tuple[array[float], ...]) -> tuple[array[float], ...]:
    """By decimals shown (0 to 255), the ends of their group's merged ranges, the high ends moved up by one float
    (so that a number at or above a low end and below the moved high end, an odd count of ends at or below it, is
    inside); built once for the index (a copy per file held every file's at once until its places were read)."""
    ends = []
    for merged in windows:
        moved = array("d", merged)
        for k in range(1, len(moved), 2):
            moved[k] = nextafter(moved[k], inf)
        ends.append(moved)
    return tuple(ends[min(d, _RUN_DECIMALS - 1)] for d in range(256))


def _expected_places(fi: FileIndex, by_decimals: tuple[array[float], ...]) -> Iterator[int]:
    """The places (ascending) of the file's deferred numbers inside one of their group's merged ranges (ends
    included), found by C-level maps: a number's value as `FileIndex.run_value` reads it, and a bisection of its
    group's ends (`_window_ends`)."""
    column, decimals = fi.run_digits, fi.run_decimals
    values = column if column.typecode == "d" else map(truediv, column, map(_POW10.__getitem__, decimals))
    return compress(range(len(decimals)), map((1).__and__, map(bisect_right, map(by_decimals.__getitem__, decimals),
                                                                values)))


# A table cell of the index as one integer: its file times this, plus its item (a file's items fit 32 bits)
_CELL_CODE = 1 << 32


# Figures whose `Quantity` an index keeps once read; past this the memo starts again (about 2 MB at most)
_QUANTITY_MEMO = 4096
# Lookups whose deferred lines `_reach` has parsed already; past this the memo starts again
_REACH_MEMO = 4096


class Observed(NamedTuple):
    """A figure of the index: its value and where it is. A named tuple, not a dataclass: the stages make one
    per cell or figure they look at, often thousands per claim on a large capture."""

    value: float
    file: int  # position of the source in the index
    item: int  # position of the quantity in that file's index


def _by_value(value: Callable[[int], float], f: int, order: array[int]) -> Iterator[tuple[float, int, int]]:
    """(value, file, place) of one file's figures or deferred numbers in `order` (sorted by value, then place)."""
    for i in order:
        yield value(i), f, i


class SourceIndex:
    """The quantities of a set of source files, searchable by value; built once per set of files."""

    def __init__(self, root: Path, sources: list[Source], files: list[FileIndex], store: FileStore,
                 expected: Iterable[tuple[float, float]] | None = None) -> None:
        self.root = root
        self.sources = sources
        # each source's number by its path (a match names its file by path: `AtomMatch.source`)
        self.numbers = {s.path: f for f, s in enumerate(sources)}
        self.files = files
        self.store = store
        self._names: dict[int, _SourceNames] = {}
        self._labelled: dict[str, array[int]] = {}
        # results of the stages' searches per claim (subject cells), kept for the index's life (one audit unit)
        self.memo: dict[object, object] = {}
        self._quantities: dict[tuple[int, int], Quantity] = {}
        # observations bucketed by the order of magnitude of their tolerance, each bucket sorted by
        # (value, file, item): a value lookup stays a few bisections however large the corpus. A bucket is
        # two columns (files, items; a row's value is its file's); an `Observed` is made only for what a lookup
        # returns.
        # Each file's figures of one magnitude are sorted by value on their own (stable: equal values stay in item
        # order), then the files are merged: only a 4-byte column per figure is held beside the result, where one
        # sort of the whole bucket held a key and an int object per figure.
        by_magnitude: dict[int, list[tuple[int, array[int]]]] = {}
        widest: dict[int, float] = {}
        for f, index in enumerate(files):
            groups: dict[int, list[int]] = {}
            # a figure's tolerance is its form's: the magnitude is worked out once a form
            magnitudes = []
            for form in index.forms:
                tolerance = form[4]
                magnitude = -400 if tolerance <= 0 else floor(log10(tolerance))
                magnitudes.append(magnitude)
                if tolerance > widest.get(magnitude, -1.0):
                    widest[magnitude] = tolerance
            for i, code in enumerate(islice(index.codes, index.eager)):  # figures parsed late: `_take_late`
                magnitude = magnitudes[code]
                group = groups.get(magnitude)
                if group is None:
                    group = groups[magnitude] = []
                group.append(i)
            for magnitude, group in groups.items():
                group.sort(key=index.values.__getitem__)
                by_magnitude.setdefault(magnitude, []).append((f, array("I", group)))
        # files and items in 2 bytes where every number fits (a bucket holds a row per figure of the corpus)
        file_code = "H" if len(files) <= 0x10000 else "I"
        item_code = "H" if max((len(index.starts) for index in files), default=0) <= 0x10000 else "I"
        self._buckets: list[tuple[int, float, array[int], array[int]]] = []
        for magnitude in sorted(by_magnitude):
            in_file, items = array(file_code), array(item_code)
            for _, f, i in heapq.merge(*(_by_value(files[f].values.__getitem__, f, order)
                                         for f, order in by_magnitude.pop(magnitude))):
                in_file.append(f)
                items.append(i)
            self._buckets.append((magnitude, widest[magnitude], in_file, items))
        self._values = [index.values for index in files]  # each file's value column, by file: the buckets' values
        # Figures parsed late (deferred lines, `FileIndex.materialize`), by magnitude: two columns (files, items)
        # in (value, file, position, item) order, kept sorted as they come (a lookup parses few lines); a row's
        # value is its file's, as in the buckets
        self._late: dict[int, tuple[array[int], array[int]]] = {}
        self._taken = [index.eager for index in files]  # items of each file in the buckets or `_late`
        self._seen_late = -1
        self._reached: set[tuple[float, float]] = set()  # (|value|, tolerance) of the lookups `_reach` has served
        self.unexpected = 0  # lookups outside the expected ones (each time, every deferred number was put in)
        # The numbers deferred lines may hold, for the whole index: by decimals shown (0, 1, 2, 3 or more), the
        # file and place of each in value order, and every `_FENCE`-th value (`_reach`). Where the lookups to come
        # are `expected` (the claims' figures, `expected_lookups`), only the numbers they can reach are put in
        # (`_windows`: the ranges of numbers they bisect); a lookup outside them puts every number in first
        self._windows: tuple[array[float], ...] | None = None
        kept = None
        if expected is not None:
            self._windows = _merged_windows(expected)
            ends = _window_ends(self._windows)
            kept = [_expected_places(index, ends) if len(index.run_decimals) else () for index in files]
        self._runs = self._corpus_runs(kept)

    def _corpus_runs(self, kept: Sequence[Iterable[int]] | None
                     ) -> list[tuple[array[float], range, array[int], array[int], Callable[[int], float]]]:
        numbers = [index.run_value for index in self.files]

        def number_of(in_file: array[int], places: array[int]) -> Callable[[int], float]:
            return lambda j: numbers[in_file[j]](places[j])

        return [(fence, range(len(in_file)), in_file, places, number_of(in_file, places))
                for fence, in_file, places in _corpus_runs(self.files, kept)]

    @classmethod
    def build(
        cls,
        root: str | Path,
        sources: Sequence[Source],
        cache: IndexCache | None = None,
        *,
        store: FileStore | None = None,
        expected: Iterable[tuple[float, float]] | None = None,
    ) -> SourceIndex:
        """The index of `sources` (each file read once, through `cache`). `expected`: the (value, tolerance) lookups
        the audit will make, where it knows them before the files are read (`expected_lookups` of the claims'
        figures): the index then keeps by value only the deferred numbers those can reach. Every lookup is
        answered the same either way."""
        root_path = Path(root).resolve()
        store = store if store is not None and store.root == root_path else FileStore(root_path)
        # the same sandbox as the fence: an index never reads what a fence would refuse
        Fence(root_path, sources, "", store=store)
        files: list[FileIndex] = []
        for source in sources:
            cached = cache.get(source.sha256) if cache is not None else None
            if cached is None:
                cached = _index_file(store.load(source))
                if cache is not None:
                    cache.put(source.sha256, cached)
            files.append(cached)
        return cls(root_path, list(sources), files, store, expected)

    def quantity(self, observed: Observed) -> Quantity:
        """The observed figure's `Quantity`, kept in a bounded memo: a claim's stages read the same few figures
        over and over (54k reads of 1,065 figures for 1,000 claims of the 1 MB bench corpus)."""
        key = (observed.file, observed.item)
        found = self._quantities.get(key)
        if found is None:
            if len(self._quantities) >= _QUANTITY_MEMO:
                self._quantities.clear()
            found = self._quantities[key] = self.files[observed.file].quantity(observed.item)
        return found

    def holds_literal(self, written: str) -> bool:
        """Is `written` (digits as written, no thousands commas) a digit run of one of the sources? (Memoised for the
        index's life: claims of one figure ask it again.)"""
        key = ("holds literal", written)
        found = self.memo.get(key)
        if found is None:
            found = self.memo[key] = any(fi.holds_literal(written) for fi in self.files)
        return found  # type: ignore[return-value]

    def labelled_with(self, word: str) -> list[tuple[int, int]]:
        """(file, item) of the table cells whose label holds `word`, in source order (memoised per word)."""
        return [divmod(cell, _CELL_CODE) for cell in self._labelled_codes(word)]

    def _labelled_codes(self, word: str) -> array[int]:
        """The cells of `labelled_with(word)` as file * `_CELL_CODE` + item, ascending (8 bytes a cell where a
        list of tuples held 64 or more)."""
        cells = self._labelled.get(word)
        if cells is None:  # built per word asked (a claim's words), not for every word of the corpus
            cells = self._labelled[word] = array("Q", [f * _CELL_CODE + i for f, fi in enumerate(self.files)
                                                       for i in fi.words.get(word, ()) if i in fi.labels])
        return cells

    def labelled_with_any(self, words: Iterable[str]) -> Iterator[tuple[int, int]]:
        """(file, item) of the table cells whose label holds one of `words`, each once, in source order: the
        words' lists (each in source order) merged lazily, so a caller that wants the first few stops early."""
        previous = None
        for cell in heapq.merge(*(self._labelled_codes(word) for word in words)):
            if cell != previous:
                previous = cell
                yield divmod(cell, _CELL_CODE)

    def label(self, observed: Observed) -> CellLabel | None:
        """The table cell an observed figure is, with its row, column and period; None outside tables."""
        return self.files[observed.file].labels.get(observed.item)

    def label_at(self, file: int, offset: int) -> CellLabel | None:
        return self.files[file].label_at(offset)

    def line(self, observed: Observed) -> int:
        return self.files[observed.file].lines[observed.item]

    def loaded(self, file: int) -> LoadedFile:
        return self.store.load(self.sources[file])

    def flat_text(self, file: int) -> str:
        """The source's text lower-cased with whitespace runs collapsed (computed once per file for the audit)."""
        memo = self.files[file].memo
        cached = memo.get(_FLAT_TEXT)
        if cached is None:
            cached = memo[_FLAT_TEXT] = " ".join(self.files[file].text.lower().split())
        return cached  # type: ignore[return-value]

    def names(self, file: int) -> _SourceNames:
        """What the source can be cited as (computed once per source of this index)."""
        cached = self._names.get(file)
        if cached is None:
            cached = self._names[file] = _source_names(self.sources[file], self.loaded(file),
                                                       self._arguments_text(file))
        return cached

    def _arguments_text(self, file: int) -> str:
        """The text of the tool call's own arguments file, beside its result ('r1.fetch.1.arguments.txt'), or ''.

        Capture keeps a call's arguments apart from its result (they are model-written, never evidence); they
        still say what the call fetched, so a citation ('passage 2', a URL) resolves to the call by them."""
        path = self.sources[file].path
        if not path.endswith(".txt") or path.endswith(".arguments.txt"):
            return ""
        sibling = self.root / (path.removesuffix(".txt") + ".arguments.txt")
        try:
            return sibling.read_text(encoding="utf-8", errors="replace")[:4000] if sibling.is_file() else ""
        except OSError:
            return ""

    def position(self, observed: Observed) -> tuple[int, int, int]:
        """Where a figure stands in the sources: (file, then the order a full parse of the file gives it)."""
        return (observed.file, *self.files[observed.file].position(observed.item))

    def near(self, value: float, tolerance: float) -> Iterable[Observed]:
        """Observations whose value matches `value` within both sides' tolerances (the sum), by the order of
        magnitude of their own tolerance, then by value and position. Deferred lines that can hold such a figure
        are parsed first (`_reach`)."""
        self._reach(value, tolerance)
        slack = 1e-9 * max(1.0, abs(value))
        files = self.files
        late = self._late
        buckets = self._buckets
        if late:
            eager = {bucket[0]: bucket for bucket in buckets}
            buckets = [eager.get(m, (m, 0.0, (), ())) for m in sorted(eager.keys() | late.keys())]
        for magnitude, widest, in_file, items in buckets:
            found = self._within(in_file, items, value, tolerance, tolerance + widest + slack, slack)
            parsed_late = late.get(magnitude)
            if parsed_late is not None:
                width = tolerance + (10.0 ** (magnitude + 1) if magnitude > -400 else 0.0) + slack
                extra = self._within(*parsed_late, value, tolerance, width, slack)
                if extra:
                    merged = [(v, f, files[f].position(i), i) for v, f, i in found + extra]
                    merged.sort()
                    found = [(v, f, i) for v, f, _, i in merged]
            for found_value, f, i in found:
                yield Observed(found_value, f, i)

    def _within(self, in_file: Sequence[int], items: Sequence[int], value: float, tolerance: float, width: float,
                slack: float) -> list[tuple[float, int, int]]:
        """(value, file, item) of the rows, in (value, file, position) order, within `width` of `value` by a
        bisection, then within `tolerance` + the figure's own + `slack`."""
        columns, files = self._values, self.files
        rows = range(len(in_file))

        def value_of(k: int) -> float:
            return columns[in_file[k]][items[k]]

        found = []
        # the rows' values are read from the files' own columns: a bisection reads about 2 log2(n) of them,
        # where a column of the values beside the rows held 8 bytes more a figure
        for k in range(bisect_left(rows, value - width, key=value_of), bisect_right(rows, value + width, key=value_of)):
            f, i = in_file[k], items[k]
            fi = files[f]
            found_value = columns[f][i]
            if abs(found_value - value) <= tolerance + fi.forms[fi.codes[i]][4] + slack:
                found.append((found_value, f, i))
        return found

    def _reach(self, value: float, tolerance: float) -> None:
        """Parse the deferred lines that can hold a figure within `tolerance` (and its own) of `value`: a number
        on them, times a plain scale, within the sum (`quantities.plain_runs`); then take in what any lookup
        parsed late. A lookup served before is not bisected again: its lines stay parsed (the stages of a claim,
        and claims of one figure, look the same value up several times)."""
        v = abs(value)
        if self._runs and (v, tolerance) not in self._reached:
            if len(self._reached) >= _REACH_MEMO:
                self._reached.clear()
            self._reached.add((v, tolerance))
            if self._windows is not None and not _covered(self._windows, v, tolerance):
                self._windows = None  # not expected: every deferred number by value, as without expectations
                self._runs = self._corpus_runs(None)
                self.unexpected += 1
            reach = tolerance + 2e-9 * max(1.0, v)  # the lookup's slack, and the float error of a scaled value
            files = self.files
            for scale in quantities.PLAIN_SCALES:
                centre = v / scale
                # a line reached at a scale other than 1 is parsed only where it spells that scale: without the word,
                # none of its figures carries the scale (`quantities.SCALE_SPELLINGS`), and a figure of it at another
                # scale that is near the value is reached at that scale
                spelled = quantities.SCALE_SPELLINGS.get(scale)
                for decimals, (fence, rows, in_file, places, number) in enumerate(self._runs):
                    half = reach / scale + 0.5 * 10.0 ** -decimals
                    for j in range(_fenced(fence, rows, number, centre - half, False),
                                   _fenced(fence, rows, number, centre + half, True)):
                        fi = files[in_file[j]]
                        k = fi.run_line(places[j])
                        if not fi._done[k] and (spelled is None or fi.spells(k, spelled)):
                            fi.materialize(k)
        if self._seen_late != FileIndex.parsed_late:
            self._take_late()

    def _take_late(self) -> None:
        """Put the figures the files parsed late, since the last call, into `_late`."""
        self._seen_late = FileIndex.parsed_late
        files = self.files
        for f, fi in enumerate(files):
            n = len(fi.starts)
            for i in range(self._taken[f], n):
                tolerance = fi.forms[fi.codes[i]][4]
                magnitude = -400 if tolerance <= 0 else floor(log10(tolerance))
                late = self._late.get(magnitude)
                if late is None:
                    late = self._late[magnitude] = (array("I"), array("I"))
                in_file, items = late

                def row(k: int, in_file: array[int] = in_file, items: array[int] = items
                        ) -> tuple[float, int, tuple[int, int], int]:
                    g, j = in_file[k], items[k]
                    return files[g].values[j], g, files[g].position(j), j

                at = bisect_right(range(len(in_file)), (fi.values[i], f, fi.position(i), i), key=row)
                in_file.insert(at, f)
                items.insert(at, i)
            self._taken[f] = n

    def spelled_near(self, value: float, tolerance: float) -> list[tuple[int, Quantity]]:
        """(file, figure) of the figures the sources write as words ('open five new stores', 'twenty percent' on a
        line without digits) within either tolerance of `value`, in source order. Apart from the index's own figures
        and built on first use (`_spelled_column`): a lookup asks it only when no figure of the index matched, so
        the evidence of every figure the index holds is what it was."""
        column = self.memo.get(_SPELLED)
        if column is None:
            column = self.memo[_SPELLED] = _spelled_column(self)
        slack = 1e-9 * max(1.0, abs(value))
        # the looser of the two tolerances, not their sum: 'one billion' (to 0.5 billion) is not near 'two billion'
        return [(f, q) for f, q in column if abs(q.value - value) <= max(tolerance, q.tolerance) + slack]

    def with_words(self, words: Sequence[str], *, limit: int = 50) -> list[tuple[int, Observed]]:
        """The `limit` observations on lines holding most of `words`, best first, then in source order (memoised
        for the index's life: the atoms of one claim, and claims of one subject, ask it with the same words)."""
        key = ("with words", tuple(words), limit)
        cached = self.memo.get(key)
        if cached is None:
            cached = self.memo[key] = self._with_words(words, limit)
        return list(cached)

    def _with_words(self, words: Sequence[str], limit: int) -> list[tuple[int, Observed]]:
        scored: dict[tuple[int, int], int] = {}
        for f, index in enumerate(self.files):
            for word in words:
                for item in index.words.get(word, ()):
                    key = (f, item)
                    scored[key] = scored.get(key, 0) + 1
                for line in index.lines_with(word):
                    for item in index.on_line(line):
                        key = (f, item)
                        scored[key] = scored.get(key, 0) + 1
        files = self.files
        # ties in the order of the text (a deferred line's figures are items after the file's others)
        best = heapq.nsmallest(limit, ((-score, f, files[f].position(i)) for (f, i), score in scored.items()))
        return [(-neg, Observed(files[f].values[i], f, i)) for neg, f, (_, i) in best]


_SPELLED = "spelled figures"  # the memo key of `SourceIndex.spelled_near`'s column, and of a file's part of it
_FLAT_TEXT = "flat text"  # the file memo's key of `SourceIndex.flat_text`


def _spelled_column(index: SourceIndex) -> list[tuple[int, Quantity]]:
    """The figures written as words of each source, by line: counts before their noun, and spelled figures with a
    percent, currency or scale (`quantities.spelled_figures`). On a line with digits the index holds those of its
    spelled figures that hold a number word already (not a fraction: 'a third of revenue in 2021'); the column is
    asked only where no figure of the index matched, so a figure in both is never offered twice. Each file's figures
    are read once for the audit (`_spelled_figures`, kept in its `FileIndex.memo`)."""
    return [(f, q) for f, fi in enumerate(index.files) for q in _spelled_figures(fi)]


def _spelled_figures(fi: FileIndex) -> tuple[Quantity, ...]:
    """One file's figures written as words, in the order of its text (`_spelled_column`)."""
    found = fi.memo.get(_SPELLED)
    if found is None:
        figures: list[Quantity] = []
        if fi.number_words:  # else no letter run of the text is a number word: no line to read
            text = fi.text
            for a, b in _number_word_blocks(text, fi._line_starts()):
                for start, end in quantities.number_word_lines(text[a:b]):
                    figures.extend(quantities.spelled_figures(text[a + start:a + end], a + start))
        found = fi.memo[_SPELLED] = tuple(figures)
    return found  # type: ignore[return-value]


# The words one of which every match of `quantities.number_word_lines` holds as a whole ASCII letter run (lower-cased):
# a number word (its first word), a fraction's ('half', 'a quarter', 'two-thirds', 'a fifth'), a lone decimal's 'point'
_NUMBER_LINE_RUNS = frozenset({*quantities.NUMBER_LINE_WORDS, "zero", "one", "half", "quarter", "quarters", "third",
                               "thirds", "fifth", "fifths", "point"})
# fraction words that a match holds only after a number word (on the same line: a line holding it anyway) or after an
# 'a' and spaces, tabs or hyphens ('a quarter of a million', 'a third of', 'were a quarter of'); 'half' stands alone
_AFTER_A_OR_NUMBER = frozenset({"quarter", "quarters", "third", "thirds", "fifth", "fifths"})
_ASCII_LETTERS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
_FRACTION_GAP = " \t\u2010-"


def _number_word_blocks(text: str, starts: Sequence[int]) -> list[tuple[int, int]]:
    """(start, end) of the runs of lines of `text` that `quantities.number_word_lines` of each gives what it gives of
    the whole text, between them: the lines holding one of `_NUMBER_LINE_RUNS` as a whole ASCII letter run (a
    fraction word of `_AFTER_A_OR_NUMBER` only after an 'a'), found by `str.find` in the lower-cased text for the
    words among its letter runs (`quantities.LETTERS_ONLY`, at C speed). Every pattern there matches such a run on
    its first line; only its 'hundred' after a number word may follow on a later line, past blank lines, so runs of
    lines apart by whitespace alone are one. A block ends at its last line's end, before the line break, and starts at
    its first line's start, where the patterns' look-behinds and word boundaries read the same as after a line break;
    its lower-cased text has the lengths of the whole one. A text whose lower-casing changes its length (read without
    lower-casing there) is one block."""
    lowered = text.lower()
    if len(lowered) != len(text):
        return [(0, len(text))]
    runs = lowered.encode("utf-8", "replace").translate(quantities.LETTERS_ONLY).decode("ascii").split()
    present = _NUMBER_LINE_RUNS.intersection(runs)
    letters = _ASCII_LETTERS
    lines: set[int] = set()
    for word in present:
        size = len(word)
        after_a = word in _AFTER_A_OR_NUMBER
        at = lowered.find(word)
        while at >= 0:
            end = at + size
            if (not at or lowered[at - 1] not in letters) and (end == len(lowered) or lowered[end] not in letters):
                if after_a:  # the last character before the spaces, tabs and hyphens before it
                    before = at - 1
                    while before >= 0 and lowered[before] in _FRACTION_GAP:
                        before -= 1
                    if before < 0 or lowered[before] != "a":
                        at = lowered.find(word, end)
                        continue
                lines.add(bisect_right(starts, at))
            at = lowered.find(word, end)
    blocks: list[tuple[int, int]] = []
    for line in sorted(lines):
        start = starts[line - 1]
        end = text.find("\n", start)
        end = len(text) if end < 0 else end
        if blocks and (blocks[-1][1] >= start or text[blocks[-1][1]:start].isspace()):
            blocks[-1] = (blocks[-1][0], end)
        else:
            blocks.append((start, end))
    return blocks


# Lines that name what a file is: "source: 10-K", "document: Form 10-K ...", "title: ...".
_DECLARED_NAME = re.compile(
    r"(?im)^[ \t]*(?:source|sources|document|doc|document_type|form|filing|publisher|provider|dataset|title)"
    r"[ \t]*:[ \t]*(?P<name>\S[^\n]{0,200})$"
)


# How far into a file its name may be declared: rendered tool results sort their keys, so a
# "source:" line can follow a long table; past this a file is content, not a name.
_NAME_WINDOW = 20_000


_HEAD_LINES = 12


def flat_name(text: str) -> str:
    return re.sub(r"[\s_\-]+", "", text.lower())


@dataclass(frozen=True)
class _SourceNames:
    """What a source can be cited as: its label, node and file names, declared names, leading lines."""

    flat_names: tuple[str, ...]
    declared: tuple[str, ...]
    head: tuple[str, ...]
    # the tool call's arguments as 'key: value' lines ('n: 2', 'url: https://...'): what it fetched
    arguments: tuple[str, ...] = ()


def _source_names(source: Source, loaded: LoadedFile, arguments_text: str = "") -> _SourceNames:
    window = loaded.text[:_NAME_WINDOW]
    head = []
    for ln in window[:4000].splitlines():
        ln = ln.strip().lower()
        if ln:
            # "output: passage 3: ...": the content of a rendered tool result starts after its key
            head.append(re.sub(r"^(?:output|content|text|result)\s*:\s*", "", ln))
        if len(head) >= _HEAD_LINES:
            break
    names = [source.label or "", source.node, Path(source.path).stem]
    arguments = _ARGUMENTS.search(window[:4000]) or _ARGUMENTS.search(arguments_text)
    return _SourceNames(
        flat_names=tuple(flat_name(n) for n in names if n),
        declared=tuple(m.group("name").strip().lower() for m in _DECLARED_NAME.finditer(window)),
        head=tuple(head),
        arguments=tuple(
            " ".join(ln.split()).lower() for ln in re.split(r"\n|,\s*", arguments.group("body")) if ln.strip()
        ) if arguments else (),
    )


# The arguments block capture writes first: 'arguments:' and its indented lines, or 'args: n=2, url=...'.
_ARGUMENTS = re.compile(r"(?m)^(?:arguments|args|input|inputs):(?P<body>[ \t]+[^\n]+|(?:\n[ \t]+[^\n]*)+)")


def label_of(loaded: LoadedFile, offset: int) -> str:
    """What a number in a structured field is labelled: a table cell's column header and row label, or the
    key of a `key: value` line (a snake_case or camelCase name, or a short caption); '' for other lines,
    whose words are prose and name more than one thing."""
    table = table_words(loaded, offset)
    if table:
        return table
    line = loaded.line_of(offset)
    m = _FIELD_KEY.match(loaded.line_text(line))
    return m.group("key") if m and offset - loaded.line_span(line)[0] > m.end("key") else ""


_FIELD_KEY = re.compile(r"^[ \t]*(?:[-*][ \t]+)?(?P<key>[A-Za-z][A-Za-z0-9_ ]{0,40}?)[ \t]*:[ \t]")


def table_words(loaded: LoadedFile, offset: int) -> str:
    """For a number in a table row: its column's header cell and the row's cells that hold no number (its
    label), the words that say what the number is; '' when the line is not a table row. The header is the
    top of the run of rows above with the same number of cells."""
    split = quantities.split_table_row
    line = loaded.line_of(offset)
    start, _ = loaded.line_span(line)
    row = loaded.line_text(line)
    cells = split(row)
    if len(cells) < 2 or "|" not in row:
        return ""
    column = next((i for i, (a, b) in enumerate(cells) if a <= offset - start <= b), None)
    if column is None:
        return ""
    top = line
    while top > 1:
        above = loaded.line_text(top - 1)
        if "|" not in above or len(split(above)) != len(cells):
            break
        top -= 1
    header = split(loaded.line_text(top)) if top != line else []
    words = [loaded.line_text(top)[a:b] for a, b in header[column:column + 1]]
    words += [row[a:b] for a, b in cells if not any(ch.isdigit() for ch in row[a:b])]
    return " ".join(words)


LITERAL_NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?")


# A field of a record that dates the record: 'fiscal_year: 2023', 'period: Q3 2024', 'as_of: 2024-12-31'.
_PERIOD_FIELD = re.compile(
    r"^(?P<indent>[ \t]*)(?:- )?(?:fiscal[_ ]?year|year|fy|period|fiscal[_ ]?period|quarter|as[_ ]?of|date|report[_ ]?date"
    r"|period[_ ]?end(?:ing)?)[ \t]*:[ \t]*(?P<value>[^\n]{1,40})$", re.I)
_RECORD_REACH = 40


def record_periods(loaded: LoadedFile, offset: int) -> frozenset[Period]:
    """The periods of the record a `key: value` figure belongs to: a period field among the lines of its own
    indentation around it (a fiscal_year key sorted before or after the figure's key). Memoised by the file's
    sha256 and the line (a claim's candidates share their records' lines; the memo holds no text)."""
    line = loaded.line_of(offset)
    key = (loaded.sha256, line)
    found = _RECORD_PERIODS.get(key)
    if found is None:
        if len(_RECORD_PERIODS) >= _RECORD_PERIODS_LIMIT:
            _RECORD_PERIODS.clear()
        found = _RECORD_PERIODS[key] = _record_periods(loaded, line)
    return found


_RECORD_PERIODS: dict[tuple[str, int], frozenset[Period]] = {}
_RECORD_PERIODS_LIMIT = 1 << 16


def _record_periods(loaded: LoadedFile, line: int) -> frozenset[Period]:
    text = loaded.line_text(line)
    depth = len(text) - len(text.lstrip(" \t-"))
    found: set[Period] = set()
    for step in (-1, 1):
        n = line
        for _ in range(_RECORD_REACH):
            n += step
            if n < 1 or n > loaded.line_count:
                break
            other = loaded.line_text(n)
            if not other.strip():
                continue
            indent = len(other) - len(other.lstrip(" \t-"))
            if indent < depth:
                break
            m = _PERIOD_FIELD.match(other)
            if m is not None and indent == depth:
                found.update(periods_in(m.group("value").replace("-", " ")))
    return frozenset(found)
