"""Stage 3, matching: `find_atom` (by value at the precision shown) and the subject tests that keep only
source figures about the claim's subject (its sentence, its table row and column, its field key).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import NamedTuple, TypeVar

from pytest_auditfence.claims import quantities, vocabulary
from pytest_auditfence.claims.extract import find_references
from pytest_auditfence.errors import FenceError
from pytest_auditfence.fence import LoadedFile
from pytest_auditfence.models import ClaimRecord, Quantity, Quote, Reference
from pytest_auditfence.verify.normalise import (
    DECIMALS, DEGREE_MARK, FRACTION_LIMIT, NEGATIVE_CUE, PER_UNIT, QUOTE_CHARS, QUOTE_CLASS, SOURCE_DEGREE, UNIT_BEARING, counts_a_noun,
)
from pytest_auditfence.verify.tables import (
    CALENDAR_MONTH, ORDINAL_QUARTER, CellLabel, Period, balance_day, calendar_months, column_periods, parts_named, percent_label, schedule_years, dated_days, dated_ranges, periods_in, when_label, within_year, without_parts, words_besides_periods,
)
from pytest_auditfence.verify.results import Atom, AtomMatch, How
from pytest_auditfence.verify.sources import CAMEL, LITERAL_NUMBER, Observed, STOPWORDS, SourceIndex, WEAK_LIMIT, abbreviations, content_words, label_of, record_periods, table_words


# A source line up to this long is a structured field ("price: 1,234", a table row): a number on it is
# about what the line says. In longer prose a number is only about the words of its own sentence.
SHORT_LINE = 160


# At most this many words either side of a number count as its sentence (run-on text has no full stops).
PROXIMITY_WORDS = 25


_SENTENCE_END = re.compile(r"[.!?](?=\s)|\n|\s{2,}(?=\d+\s)")


# Words about the answer itself ("based on the given passages, the answer is ..."), not its subject.
_META_WORDS = frozenset(
    """answer answers question questions passage passages based given provided according information mentioned
    mention mentions states note therefore however also context text source sources""".split()
)
# 'state' is a meta word only as the verb of a text ('the passages state', 'it does not state'); the noun names a
# subject ('Current: State' of an income tax table, 'state tax', 'the state of Texas')
_VERB_STATE = re.compile(r"(?i)((?:\b(?:passages|sources|documents|texts|articles|reports|filings|they|does\s+not|"
                         r"do\s+not|did\s+not|clearly|explicitly|specifically)|n[’']t)\s+)state\b")


# Words either side of a number that count as its neighbourhood even across a full stop: recipe and
# how-to passages are runs of short steps ("1 Preheat the oven to 400 degrees. 2 Cut the potatoes ...").
MIN_NEIGHBOURHOOD = 10


_INFLECTIONS = ("ing", "ed", "e")


@lru_cache(maxsize=1 << 16)
def subject_stem(word: str) -> str:
    """A crude stem ('donors' ~ 'donor', 'baked' ~ 'bake', 'growing' ~ 'grow', 'pre-heat' ~ 'preheat'):
    enough to tell the same subject in two texts (memoised: each claim stems the unit words again)."""
    word = word.replace("-", "")
    if word.endswith("s") and len(word) > 3:
        word = word[:-1]
    for ending in _INFLECTIONS:
        if word.endswith(ending) and len(word) - len(ending) >= 3:
            word = word[: -len(ending)]
            break
    return word[:5]


def subject_keys(text: str) -> set[str]:
    """Stems of the content words of `text` that can name a subject (see `_subject_keys`); a new set."""
    return set(_subject_keys(text))


@lru_cache(maxsize=8192)
def _subject_keys(text: str) -> frozenset[str]:
    """Stems of the content words of `text` that can name a subject (unit, scale and meta words cannot),
    plus the initials of runs of capitalised words ('Body Mass Index' -> 'bmi'), so an abbreviation in a
    claim finds the spelled-out subject in a source."""
    units = quantities.UNIT_WORDS
    words = content_words(_VERB_STATE.sub(r"\1", text)) if "tate" in text else content_words(text)
    keys = {subject_stem(w) for w in words if w not in units and w not in _META_WORDS}
    keys.update(abbreviations(text))
    for run in _CAPITALISED_RUN.finditer(text):
        initials = "".join(w[0] for w in run.group().split()).lower()
        for size in range(3, len(initials) + 1):
            keys.update(initials[i:i + size] for i in range(len(initials) - size + 1))
    return frozenset(keys)


_CAPITALISED_RUN = re.compile(r"\b[A-Z][a-z]+(?:[ \t]+[A-Z][a-z]+){1,3}\b")


# A short line that reads as a sentence ('Our common equity Tier 1 capital ratio was 13.8 percent at the end of
# the quarter.': words ending in a full stop, no 'key:' field name, no table cell separators) is prose, not a
# structured field: a transcript or an article written one sentence a line is as much prose as a paragraph.
_FIELD_LINE = re.compile(r"^\s*(?:[-*•]\s+)?[\w .'/()-]{1,40}:(?:\s|$)|[|\t]")
_SENTENCE_LINE = re.compile(r"[.!?][\"'”)]?\s*$")
SENTENCE_WORDS = 6


def prose_line(loaded: LoadedFile, offset: int) -> bool:
    """Is the line at `offset` a sentence of prose (long, or short and written as a sentence)?"""
    a, b = loaded.line_span(loaded.line_of(offset))
    return b - a > SHORT_LINE or sentence_line(loaded, offset)


def sentence_line(loaded: LoadedFile, offset: int) -> bool:
    """Is the line at `offset` short and written as whole sentences (a transcript's line), not a structured field
    nor a piece of a wrapped paragraph (which starts in lower case or after a line that ends mid-sentence)?"""
    number = loaded.line_of(offset)
    a, b = loaded.line_span(number)
    if b - a > SHORT_LINE:
        return False
    line = loaded.text[a:b]
    if _FIELD_LINE.search(line) or not _SENTENCE_LINE.search(line) or len(line.split()) < SENTENCE_WORDS:
        return False
    previous = loaded.text[slice(*loaded.line_span(number - 1))].strip() if a > 0 else ""
    return not line.lstrip()[:1].islower() and (not previous or previous.endswith(_LINE_ENDS))


_LINE_ENDS = (".", "!", "?", ":", '"', "'", "”", ")")


def long_sentence_line(loaded: LoadedFile, offset: int) -> bool:
    """Is the line at `offset` longer than SHORT_LINE and one speaker's whole sentences, as an earnings-call
    transcript is captured (no field name, no cell separators, starting a sentence and ending one)? On such a line
    a figure is matched in paraphrase mode: about what its own clause says (`_about_figure`), not about any word
    of the line."""
    number = loaded.line_of(offset)
    a, b = loaded.line_span(number)
    line = loaded.text[a:b].strip()
    if b - a <= SHORT_LINE or _FIELD_LINE.search(line) or not _SENTENCE_LINE.search(line) or line[:1].islower():
        return False
    previous = loaded.text[slice(*loaded.line_span(number - 1))].strip() if a > 0 else ""
    return not previous or previous.endswith(_LINE_ENDS)


_T = TypeVar("_T")
_ABSENT = object()


def per_figure(loaded: LoadedFile, read: Callable[[LoadedFile, int, int], _T], start: int, end: int) -> _T:
    """`read(loaded, start, end)` for the source figure at [start, end), kept in the file's `LoadedFile.memo`: for
    what follows from the file's text alone (the figure's sentence words, its clause, its periods), which every claim
    the figure matches asks again. `read` is a module-level function (the memo's key with the figure's span)."""
    memo = loaded.memo
    key = (read, start, end)
    found = memo.get(key, _ABSENT)
    if found is _ABSENT:
        found = memo[key] = read(loaded, start, end)
    return found  # type: ignore[return-value]


def _window_keys(loaded: LoadedFile, start: int, end: int) -> frozenset[str] | None:
    """Subject stems of the sentence around [start, end) (bounded by PROXIMITY_WORDS words each side), or
    None when the number stands on a short structured line, where proximity is not asked for."""
    return per_figure(loaded, _read_window_keys, start, end)


def _read_window_keys(loaded: LoadedFile, start: int, end: int) -> frozenset[str] | None:
    text = per_figure(loaded, _window_text, start, end)
    return None if text is None else frozenset(subject_keys(text))


def _window_text(loaded: LoadedFile, start: int, end: int) -> str | None:
    """The words of the sentence around [start, end) that `_window_keys` reads, or None on a short structured line."""
    a, b = loaded.line_span(loaded.line_of(start))
    if not prose_line(loaded, start):
        return None
    text = loaded.text
    before_all = text[max(a, start - 400):start]
    ends = [m.end() for m in _SENTENCE_END.finditer(before_all)]
    before = before_all[ends[-1]:] if ends else before_all
    after_all = text[end:min(b, end + 400)]
    stop = _SENTENCE_END.search(after_all)
    after = after_all[: stop.start()] if stop else after_all
    words_before = before.split()[-PROXIMITY_WORDS:]
    if len(words_before) < MIN_NEIGHBOURHOOD:
        words_before = before_all.split()[-MIN_NEIGHBOURHOOD:]
    words_after = after.split()[:PROXIMITY_WORDS]
    if len(words_after) < MIN_NEIGHBOURHOOD:
        words_after = after_all.split()[:MIN_NEIGHBOURHOOD]
    return " ".join(words_before + words_after)


def near_subject(
    loaded: LoadedFile, start: int, end: int, keys: set[str], *, structured_ok: bool = True,
    implied: frozenset[str] = frozenset(),
) -> bool:
    """Does the source figure at [start, end) stand near one of the claim's subject stems? On a short
    structured line it does unless `structured_ok` is False (then the line's own words must share one).
    `implied`: stems the figure's own unit stands for ('68 degrees' is a temperature)."""
    if not keys:
        return True  # a claim that names no subject ('456', '$50,000 x 4% = $2,000') cannot be placed by one
    if implied & keys:
        return True
    window = _window_keys(loaded, start, end)
    if window is None:
        if structured_ok:
            return True
        window = _line_keys(loaded, start)
    return bool(window & keys)


def subject_around(loaded: LoadedFile, start: int, end: int) -> set[str]:
    """Subject stems around the source figure at [start, end): its sentence's (see `_window_keys`), or on a
    short structured line the line's own."""
    window = _window_keys(loaded, start, end)
    return _line_keys(loaded, start) if window is None else window


def _line_keys(loaded: LoadedFile, offset: int) -> set[str]:
    return subject_keys(loaded.line_text(loaded.line_of(offset)))


# The subject a unit names by itself: a figure in degrees is a temperature whether or not the word stands
# near it ('The Long Beach forecast for Apr 25 is 68 degrees and Sunny' for 'Temperature: 68 °F').
_DIMENSION_KEYS = {"temperature": frozenset({"tempe"})}


def _quote_pattern(text: str) -> re.Pattern[str]:
    parts = []
    for token in text.split():
        parts.append("".join(QUOTE_CLASS if ch in QUOTE_CHARS else re.escape(ch) for ch in token))
    return re.compile(r"\s+".join(parts), re.IGNORECASE)


def _match_at(index: SourceIndex, file: int, start: int, end: int, atom: str, how: How) -> AtomMatch:
    source = index.sources[file]
    loaded = index.loaded(file)
    # built from fields of the right types (the source's, the file's, ints of a bisection): not validated again, as a
    # lookup makes one a figure it matches
    return AtomMatch.model_construct(
        atom=atom,
        source=source.path,
        node=source.node,
        kind=source.kind,
        line=loaded.line_of(start),
        offset=start,
        text=loaded.text[start:end],
        how=how,
        sha256=source.sha256,
    )


def _find_quantity(q: Quantity, index: SourceIndex) -> list[AtomMatch]:
    matches: list[tuple[int, int, AtomMatch]] = []
    for observed in index.near(q.value, q.tolerance):
        o = index.quantity(observed)
        if not quantities.quantities_match(q, o):
            continue
        if o.text == q.text:
            how: How = "exact"
        elif o.unit and q.unit and o.unit != q.unit:
            how = "converted"
        else:
            how = "normalised"
        match = _match_at(index, observed.file, o.start, o.end, q.text, how)
        matches.append((observed.file, o.start, match))
    matches.sort(key=lambda m: (m[0], m[1]))
    return [m for _, _, m in matches]


def _find_pattern(pattern: re.Pattern[str], atom: str, index: SourceIndex, how: How) -> list[AtomMatch]:
    found: list[AtomMatch] = []
    for f in range(len(index.sources)):
        for m in pattern.finditer(index.loaded(f).text):
            exact = m.group() == atom
            found.append(_match_at(index, f, m.start(), m.end(), atom, "exact" if exact else how))
    return found


def find_atom(atom: Atom, index: SourceIndex) -> list[AtomMatch]:
    """Every place an atom stands in the sources, in source order then offset order.

    Quantities match by value within the precision shown (scale captions and unit conversions included),
    quotes verbatim after whitespace, quote-mark and case normalisation, URLs literally; bracket, passage
    and named references are not content and are resolved with `resolve_reference` instead.
    """
    if isinstance(atom, Quantity):
        return _find_quantity(atom, index)
    if isinstance(atom, Quote):
        return _find_pattern(_quote_pattern(atom.text), atom.text, index, "normalised")
    if isinstance(atom, Reference):
        if atom.kind != "url":
            return []
        url = atom.target.rstrip("/.,;)")
        return _find_pattern(re.compile(re.escape(url) + r"/?", re.IGNORECASE), atom.text, index, "normalised")
    raise FenceError(f"find_atom: {type(atom).__name__} is not an atom; pass a Quantity, Quote or Reference.")


def stands_by_subject(index: SourceIndex, o: Observed, keys: set[str]) -> bool:
    """Does the observed figure stand by one of the claim's subject stems (a table cell's row, section and
    column; its own line's words when the line is a short structured one)?"""
    label = index.label(o)
    if label is not None:
        return bool(keys & subject_keys(f"{label.subject_text} {label.column_text}"))
    observed = index.quantity(o)
    return near_subject(index.loaded(o.file), observed.start, observed.end, keys, structured_ok=False)


# -- a claim's subject and period, and the table cells they name ----------------------------------------------

_PERIOD_RANGE = re.compile(
    r"(?i)\b(?:(?:from|between)\s+(?:fiscal\s+(?:years?\s+)?|FY\s*)?(\d{4})\s+(?:to|and|through)\s+"
    r"|(?:from|between|over|across|in|during)\s+(?:fiscal\s+(?:years?\s+)?|FY\s*)?(\d{4})(?:\s+(?:to|through)\s+|\s*[-–]\s*))"
    r"(?:fiscal\s+|FY\s*)?(\d{4})\b")
_MAX_RANGE_YEARS = 12


@dataclass(frozen=True)
class ClaimSubject:
    """What a claim is about: its subject stems, the financial metrics it names, the periods it names."""

    keys: frozenset[str]
    metrics: frozenset[str]
    periods: frozenset[Period]
    sides: frozenset[tuple[str, str]] = frozenset()  # the sides of label axes it names (see `label_sides`)
    months: frozenset[int] = frozenset()  # the months it names by rank ('the second to third month': 2 and 3)
    calendar: frozenset[tuple[int, int]] = frozenset()  # the months of a year it names ('in August 2019': (2019, 8))
    days: frozenset[tuple[int, int, int]] = frozenset()  # the days it names ('as of December 31, 2019')
    after: int = 0  # the year it names payments after ('due after 2024', '2025 and thereafter': 2024), see `AFTER_YEAR`


# a claim about what falls due after a year ('due after 2024', 'beyond 2024', '2025 and thereafter'): that year is no
# period of its figure, which is the bucket after it (`schedule_apart`)
AFTER_YEAR = re.compile(r"(?i)\b(?:after|beyond|later\s+than|subsequent\s+to)\s+(?:fiscal\s+(?:year\s+)?|FY\s*)?"
                        r"(?P<after>(?:19|20)\d\d)\b|\b(?P<from>(?:19|20)\d\d)\s+(?:and|&)\s+(?:thereafter|beyond|later)\b")


def after_year(text: str) -> tuple[int, list[tuple[int, int]]]:
    """The year a text names what falls due after (see `AFTER_YEAR`; 0 for none), and the spans naming it."""
    found = list(AFTER_YEAR.finditer(text))
    if not found:
        return 0, []
    m = found[-1]
    return (int(m.group("after")) if m.group("after") else int(m.group("from")) - 1), [x.span() for x in found]


def claim_subject(claim: ClaimRecord) -> ClaimSubject:
    """The claim's subject stems and metrics (its sentence and heading) and the periods its sentence names
    ('in 2019', 'FY2024', 'Q3 2023', 'from 2017 to 2019' names each year of the range); the heading's
    periods when the sentence names none. Read from the sentence and heading alone: memoised by them (the stages of
    a claim ask it again, and a cascade checks the claim in several units)."""
    return _claim_subject(claim.claim, claim.context)


@lru_cache(maxsize=4096)
def _claim_subject(text: str, context: str | None) -> ClaimSubject:
    claim = _Worded(text, context)
    # a range between two dates names the years between them only (see `dated_ranges`), not its first date's
    ranges = dated_ranges(text)
    after, after_spans = after_year(text)
    periods = set(periods_in(_blanked(text, [(a, b) for a, b, _ in ranges] + after_spans)))
    for _, _, years in ranges:
        periods.update(years)
    for m in _PERIOD_RANGE.finditer(text):
        lo, hi = sorted((int(m.group(1) or m.group(2)), int(m.group(3))))
        if hi - lo <= _MAX_RANGE_YEARS:
            periods.update((year, "") for year in range(lo, hi + 1))
    if not periods and claim.context:
        periods.update(periods_in(claim.context))
    # 'the change between the second and first quarter in fiscal 2019': that year's quarters, as 'Q2 2019' is
    keys = _claim_keys(claim) | ({TOTAL_KEY} if _TOTAL.search(text) else set())
    return ClaimSubject(frozenset(keys), frozenset(metrics_of(text + "\n" + (claim.context or ""))),
                        every_quarter(within_year(frozenset(periods), text), text), label_sides(text),
                        ordinal_months(text), calendar_months(text), dated_days(text), after)


# a claim about each quarter of a year, not one of them ('for each quarter in 2018', 'the average quarterly low price
# in 2018', 'in all four quarters of 2019')
_EVERY_QUARTER = re.compile(r"(?i)\b(?:(?:each|every|all(?:\s+(?:the|four))?|the\s+four)\s+quarters?|quarterly)\b")


def every_quarter(periods: frozenset[Period], text: str) -> frozenset[Period]:
    """The years a claim names with each of their quarters, where it speaks of every quarter of them ('the low sale
    price for each quarter in 2018 ... respectively': the rows 'First Quarter' ... 'Fourth Quarter' under 2018 are
    (2018, 'Q1') ... (2018, 'Q4')); `periods` as they are when the claim names a part itself ('the second quarter') or
    no year."""
    if not periods or any(part for _, part in periods) or not _EVERY_QUARTER.search(text):
        return periods
    return periods | {(year, f"Q{n}") for year, _ in periods for n in range(1, 5)}


_ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth", "eleventh",
             "twelfth")
_ORDINAL = "(" + "|".join(_ORDINALS) + ")"
_ORDINAL_MONTHS = re.compile(r"(?i)\b" + _ORDINAL + r"(?:\s*(?:to|and|through|-|–)\s*(?:the\s+)?" + _ORDINAL
                             + r")?\s+months?\b")


def ordinal_months(text: str) -> frozenset[int]:
    """The months a text names by rank ('the first month' 1, 'the second to third month period' 2 and 3): the rows
    of a table of consecutive month periods, counted from its first ('January 26, 2019 - February 22, 2019')."""
    months: set[int] = set()
    for m in _ORDINAL_MONTHS.finditer(text):
        lo = _ORDINALS.index(m.group(1).lower()) + 1
        hi = _ORDINALS.index(m.group(2).lower()) + 1 if m.group(2) else lo
        months.update(range(lo, max(lo, hi) + 1))
    return frozenset(months)


def month_rank(index: SourceIndex, file: int, start: int, label: CellLabel) -> int | None:
    """The rank of a cell's row among the rows of its column that are month periods, in source order: rows labelled
    by their dates alone ('January 26, 2019 - February 22, 2019', read as the period 2019 with no words left), two
    or more of them within one year. None for any other row (a 'Total', a row of years)."""
    fi = index.files[file]
    key = ("month rows", label.caption, label.columns)  # the file's own: kept with it for the audit
    ranks = fi.memo.get(key)
    if ranks is None:
        starts = sorted({fi.starts[item] for item, other in fi.labels.items()
                        if other.caption == label.caption and other.columns == label.columns and not other.row
                        and other.periods})
        periods = {fi.label_at(at).periods for at in starts}
        ranks = fi.memo[key] = {at: n for n, at in enumerate(starts, 1)} if len(periods) < len(starts) else {}
    return ranks.get(start) if not label.row and label.periods else None


def calendar_month_apart(subject: ClaimSubject, file: int, label: CellLabel, index: SourceIndex) -> bool:
    """Is a cell looked up for a claim naming a month of a year ('issued in August 2019') in another row than that
    month's, in a column whose rows are months of years ('Jun-2018', 'Aug - 2019', 'Total')? Another month's cell is
    no evidence, nor is the 'Total' (a sum of months, never one month). A column whose rows name no month is left to
    the claim's other words (a balance row 'Balance at August 31, 2019' is a date, not a month row). The same holds
    across: a cell of another column than the claim's month's, in a row whose columns are months of years ('Aug 2019
    | Sep 2019 | Total')."""
    if not subject.calendar:
        return False
    if not label.months & subject.calendar \
            and subject.calendar & _month_rows(file, index).get((label.caption, label.columns), frozenset()):
        return True
    return not _column_months(label) & subject.calendar \
        and bool(subject.calendar & _month_columns(file, index).get(_row_of(label), frozenset()))


def _months_alone(text: str) -> bool:
    """Does a label name months of years and no other word ('Aug - 2019', 'Aug 2007 - Jan 2011')?"""
    return not re.search(r"[^\W\d_]", CALENDAR_MONTH.sub(" ", text))


def _month_rows(file: int, index: SourceIndex) -> dict[tuple[str, tuple[str, ...]], frozenset[tuple[int, int]]]:
    """The months of years that rows labelled by months alone ('Aug - 2019', 'Aug 2007 - Jan 2011', no other word)
    name, by column of a source (asked once per source)."""
    return _gathered(index, file, "month rows of columns", lambda label: (label.caption, label.columns),
                     lambda label: label.months if label.months and _months_alone(label.row) else ())


def _column_months(label: CellLabel) -> frozenset[tuple[int, int]]:
    """The months of years a cell's column headers name ('Aug 2019')."""
    return calendar_months(label.column_text)


def _month_columns(file: int, index: SourceIndex) -> dict[tuple[str, str, str], frozenset[tuple[int, int]]]:
    """The months of years that columns headed by months alone ('Aug 2019 | Sep 2019 | Total': not 'Three months
    ended September 30, 2019', a quarter) name, by row of a source (asked once per source)."""
    return _gathered(index, file, "month columns of rows", _row_of,
                     lambda label: _column_months(label) if label.columns and _months_alone(label.columns[-1]) else ())


def _gathered(index: SourceIndex, file: int, name: str, group: Callable[[CellLabel], tuple],
              values: Callable[[CellLabel], Iterable]) -> dict[tuple, frozenset]:
    """The `values` of a source's table cells gathered by `group` of their labels (a row, a column), built once per
    source and kept in its `FileIndex.memo` under `name` (for the audit)."""
    memo = index.files[file].memo
    gathered = memo.get(name)
    if gathered is None:
        found: dict[tuple, set] = {}
        for label in index.files[file].labels.values():
            found.setdefault(group(label), set()).update(values(label))
        gathered = memo[name] = {key: frozenset(items) for key, items in found.items()}
    return gathered


def month_apart(subject: ClaimSubject, file: int, start: int, label: CellLabel, index: SourceIndex) -> bool:
    """Is the cell's row a month period of another rank than every one the claim names ('the first month' is not
    the row of February 23 - March 22, the second)? A row of no month period (a 'Total') is not apart here."""
    if not subject.months:
        return False
    rank = month_rank(index, file, start, label)
    return rank is not None and rank not in subject.months


def _blanked(text: str, spans: list[tuple[int, int]]) -> str:
    """`text` with each span replaced by spaces (so the offsets of the rest stay)."""
    for a, b in spans:
        text = text[:a] + " " * (b - a) + text[b:]
    return text


_LABEL_AXES = [(axis, side, re.compile(r"\b(?:" + "|".join(patterns) + r")\b"))
               for axis, sides in vocabulary.LABEL_AXES.items() for side, patterns in sides.items()]


@lru_cache(maxsize=8192)
def label_sides(text: str) -> frozenset[tuple[str, str]]:
    """The (axis, side) pairs of vocabulary.LABEL_AXES that a text names ('Due after more than one year' names
    ('maturity', 'after'); 'Diluted' names ('shares', 'diluted')), and the ranges of numbers it names as sides of
    the axis 'range' ('91–180' of an ageing table's column, '91-180 days' of a claim)."""
    low = text.lower()
    return frozenset((axis, side) for axis, side, pattern in _LABEL_AXES if pattern.search(low)) | maturity_spans(low) \
        | frozenset(("range", f"{m.group(1)}-{m.group(2)}") for m in NUMBER_RANGE.finditer(low) if not _years(m))


def _years(m: re.Match[str]) -> bool:
    """Is a range of numbers one of years ('2017 to 2019', '2018-2019')? Periods tell those apart, not the axis."""
    return all(1900 <= int(g) <= 2100 for g in m.groups())


# a range of two whole numbers ('1–90', '91-180 days', '181 to 360')
NUMBER_RANGE = re.compile(r"(?<![\d.,])(\d{1,4})\s*(?:-|–|—|to)\s*(\d{1,4})(?![\d.,])")


_MATURITY_SPANS = [(kind, re.compile(r"\b" + pattern + r"\b")) for kind, pattern in vocabulary.MATURITY_SPANS]


def _months(number: str, unit: str) -> int:
    n = vocabulary.NUMBER_WORDS.get(number) or int(number)
    return n if unit.startswith("month") else 12 * n


def without_maturity_spans(text: str) -> str:
    """`text` with the maturity buckets it names blanked, offsets kept: 'less than one year' and 'between 2-5 years'
    say which bucket, and cue no difference."""
    low = text.lower()
    spans = [m.span() for _, pattern in _MATURITY_SPANS for m in pattern.finditer(low)]
    return _blanked(text, spans) if spans else text


def maturity_spans(low: str) -> frozenset[tuple[str, str]]:
    """The maturity buckets a lower-case text names, as sides of the 'maturity' axis in months ('1-3 years' is
    ('maturity', '12-36'), 'less than 1 year' ('maturity', '0-12'), 'more than 5 years' ('maturity', '60-')): a
    bucket between two spans names neither 'within' nor 'after', yet is no other bucket either."""
    spans = set()
    for kind, pattern in _MATURITY_SPANS:
        for m in pattern.finditer(low):
            if kind == "range":
                lo, hi = _months(m.group(1), m.group(3)), _months(m.group(2), m.group(3))
                if lo < hi:
                    spans.add(f"{lo}-{hi}")
            elif kind == "within":
                spans.add(f"0-{_months(m.group(1), m.group(2))}")
            else:
                spans.add(f"{_months(m.group(1), m.group(2))}-")
    return frozenset(("maturity", span) for span in spans)


def sides_apart(claimed: frozenset[tuple[str, str]], labelled: frozenset[tuple[str, str]]) -> bool:
    """Does a label name only other sides of an axis than the claim names? ('within one year' for a claim
    about 'after more than one year'.) An axis one of them leaves unnamed, or that both name a side of in
    common, sets nothing apart: the one line item split in two is the claim's only when it is the claim's side."""
    if not claimed or not labelled:
        return False
    if _spans_overlap(claimed, labelled):
        return False  # '1-3 years' is a part of 'after more than one year' (a sum of buckets), not another bucket
    axes = {axis for axis, _ in claimed} & {axis for axis, _ in labelled}
    return any(not {s for a, s in claimed if a == axis} & {s for a, s in labelled if a == axis} for axis in axes)


def _span(side: str) -> tuple[int, float] | None:
    lo, dash, hi = side.partition("-")
    return (int(lo), float(hi) if hi else float("inf")) if dash and lo.isdigit() else None


def _spans_overlap(claimed: frozenset[tuple[str, str]], labelled: frozenset[tuple[str, str]]) -> bool:
    """Do a maturity bucket the claim names and one the label names overlap ('after more than one year' and
    '1-3 years')? Buckets apart ('less than 1 year' and '1-3 years') share no month."""
    spans = [[s for a, side in sides if a == "maturity" and (s := _span(side))] for sides in (claimed, labelled)]
    return any(a[0] < b[1] and b[0] < a[1] for a in spans[0] for b in spans[1])


def cell_sides(label: CellLabel) -> frozenset[tuple[str, str]]:
    """The sides of label axes a cell's row label, section row and column headers name, and the maturity bucket of
    its place in a payment schedule ('2021' after '2020': '12-24')."""
    sides = label_sides(f"{label.row} | {label.section} | {label.column_text}")
    return sides | {("maturity", label.maturity)} if label.maturity else sides


def other_period(subject: ClaimSubject, label: CellLabel) -> bool:
    """Does the cell belong to another period than every one the claim names? Years its row label names besides
    its column's period (`named_years`) are the row's name, not the cell's period: a claim naming them and another
    period is compared by that period ('the Term Loan due July 2022 at December 31, 2019' is no claim about the
    2018 column of that row); a claim naming only the row's years is left to them, as any period in common."""
    if not (subject.periods and label.periods):
        return False
    named = named_years(label)
    claimed = subject.periods - named
    if named and claimed:
        return not claimed & (label.periods - named)
    return not subject.periods & label.periods


@lru_cache(maxsize=8192)
def _row_years(row: str) -> frozenset[Period]:
    return periods_in(row)


def named_years(label: CellLabel) -> frozenset[Period]:
    """The periods a row label names where the cell's column names another period: 'July 2022' of 'Term Loan A
    Facility due July 2022' under 'December 31, 2019', '2018' of 'Final dividend for the year ended 30 June 2018'
    under '2019'. They say which row, not when the cell is; none where the row's label is the cell's only period
    ('Balance at December 31, 2018' beside 'Amount') or its column's period is the row's own."""
    own = _row_years(label.row)
    return own if own and label.periods - own else frozenset()


def _year_apart(subject: ClaimSubject, label: CellLabel, other: CellLabel) -> bool:
    """Do two rows differ only by the periods their labels name ('Term Loan A Facility due July 2022' and '... due
    July 2023'), the claim naming the other row's and none of this one's? Their words alike, the year tells which
    row the claim is about."""
    mine, theirs = _row_years(label.row), _row_years(other.row)
    return bool(mine and theirs and mine != theirs and theirs & subject.periods and not mine & subject.periods
                and words_besides_periods(label.row) == words_besides_periods(other.row))


def row_year_column_apart(subject: ClaimSubject, label: CellLabel, file: int, index: SourceIndex) -> bool:
    """Is a cell of another column than the one a claim's year dates, where that year is also one its row label names
    ('the final dividend paid in 2018' and the 2019 column of 'Final dividend for the year ended 30 June 2018')?
    Where the row has a column of that year, a claim naming the year alone is about that column; a claim naming the
    row's very day ('for the year ended 30 June 2018') names the row by it, and is left to its periods."""
    named = named_years(label)
    if not (subject.periods and named and subject.periods <= named):
        return False
    if subject.days & dated_days(label.row):
        return False
    own = column_periods(label.columns)
    if own & subject.periods:
        return False
    dated = _gathered(index, file, "row column periods", _row_of, lambda other: column_periods(other.columns))
    return bool(dated.get(_row_of(label), frozenset()) & subject.periods)


def schedule_apart(subject: ClaimSubject, label: CellLabel) -> bool:
    """Does a cell fall due in other years than a claim about what falls due after a year names ('due after 2024')?
    A cell of that year or an earlier one, a schedule's Total, or a bucket starting before the claim's (outside a
    schedule, a cell dated no later than that year). (A claim naming one of a schedule's years is left to its period:
    keeping the Total from its subject cells opened a chance pair of the prose pool, see docs/benchmarks.md.)"""
    if not subject.after:
        return False
    years = schedule_years(label)
    if years is None:
        return bool(label.periods) and all(year <= subject.after for year, _ in label.periods)
    return years[0] <= subject.after


def after_part(subject: ClaimSubject, label: CellLabel) -> bool:
    """Is a schedule's cell only a part of what a claim says falls due after a year (the 2024 column or a
    'Thereafter' after 2024 for 'due after 2022')? A part is an operand of a sum, never the claim's figure itself."""
    years = schedule_years(label)
    return bool(subject.after) and years is not None and years != (subject.after + 1, 0)


def open_bucket_apart(subject: ClaimSubject, label: CellLabel) -> bool:
    """Is a schedule's open bucket (its 'Thereafter', 'After 2024' or Total cell) no figure of a claim naming one of
    the schedule's years ('due in 2024')? Such a bucket sums several years, the claim's and others. A look-up rule
    only: the cell stays among the claim's subject cells, so the table still carries the claim's subject."""
    if subject.after:
        return False  # 'due after 2024' is the bucket after that year (`schedule_apart`)
    years = schedule_years(label)
    return years is not None and not years[1] and any(year >= label.schedule_start for year, _ in subject.periods)


def percent_cell_apart(claim: ClaimRecord, q: Quantity, subject: ClaimSubject, label: CellLabel) -> bool:
    """Is a cell its header made a percentage ('% of penetration') looked up, by its bare number, for a claimed figure
    with no unit of its own ('net additions were 47.1', '$47.1')? It is a percentage: it backs an amount never, and a
    bare figure only where the claim names what the header does ('penetration') or calls its figure a rate."""
    if label.unit != "%" or quantities.percent_dimension(q) is not None:
        return False
    if q.kind == "currency":
        return True
    if q.kind != "number" or q.unit is not None or percent_label(label.row):
        return False  # (a row a rate, 'Gross margin %', is named by the claim or backs nothing: `cell_backs`)
    header = _subject_keys(_undated(label.column_text))  # ('% of penetration 2018': its words besides the year)
    return not (header & subject.keys or "%" in claim.claim
                or vocabulary.RATE_WORDS.intersection(w.lower() for w in re.findall(r"[A-Za-z]+", claim.claim)))


def day_apart(subject: ClaimSubject, label: CellLabel) -> bool:
    """Is a cell dated by its row or column on another day of a year than every day of that year the claim names
    ('Nonvested at January 1, 2017' for a claim about the shares nonvested at December 31, 2017; a column 'January
    1, 2019' of an adoption table for a claim as of December 31, 2019)? Its year is the claim's, its balance is not.
    A cell dated by no day, or by a day of a year the claim names no day of, is left to its period."""
    if not subject.days:
        return False
    own = balance_day(label)
    return any((claimed := {d for d in subject.days if d[0] == year}) and not claimed & own
               for year in {d[0] for d in own})


def cell_backs(subject: ClaimSubject, label: CellLabel) -> bool:
    """May this table cell back a claim about `subject`? Its period must be one the claim names (when both
    name one), its row (or, for a row without words, its column) must name the claim's subject (a stem in
    common, or a synonym of one financial metric), and a row of one metric never backs a claim of others."""
    if schedule_apart(subject, label):
        return False  # 'due after 2024' is not the 2024 column's, 'due in 2024' not the Thereafter's
    # (a schedule's open bucket is dated by the years it covers, not the year of its header: 'After 2024')
    if other_period(subject, label) and (schedule_years(label) or (0, 1))[1] or day_apart(subject, label):
        return False
    if sides_apart(subject.sides, cell_sides(label)):
        return False  # 'within one year' backs no claim about 'after more than one year', 'basic' none of 'diluted'
    row_metrics = metrics_of(label.subject_text)
    if row_metrics and subject.metrics and not row_metrics & subject.metrics:
        return False
    if not subject.keys:
        return True
    if label.no_total and TOTAL_KEY in subject.keys:
        return False  # a line below the rows that does not add them up backs no claim naming a total
    # a row named only by its quarter ('First Quarter' under '2018 | Low | High') says when, as a column's year does:
    # the claim's subject is then the column's
    # so is a row of a payment schedule named by when alone ('Thereafter' below '2020' ... '2024')
    row = "" if label.maturity and when_label(label.row) else without_parts(label.row)
    row_keys = _subject_keys(f"{row} {label.section} {titled(subject, label)}".strip())
    if row_keys:
        return bool(row_keys & subject.keys or row_metrics & subject.metrics)
    column_keys = _subject_keys(_undated(f"{label.column_text} | {label.caption}"))
    return bool(column_keys & subject.keys or metrics_of(label.column_text) & subject.metrics)


def titled(subject: ClaimSubject, label: CellLabel) -> str:
    """The section title that names a balance row dated alone ('At 31 December' of '18 Investment in associates'), for
    a claim naming the row's day ('the investment in associates at 31 December 2019'); '' for any other claim (a
    claim naming a year alone does not say which balance of it) or row."""
    return label.title if label.title and subject.days & balance_day(label) else ""


def _undated(text: str) -> str:
    """A header's words that say what, not when: a date in words ('Year Ended December 31, 2019') names no subject,
    neither by its words ('ended') nor by the initials of its capitalised run ('yed')."""
    return " ".join(sorted(words_besides_periods(text)))


# the stem a count with its noun adds to the words that name its row: '6 countries' names 'Number of countries'
NUMBER_KEY = subject_stem("number")


def figure_keys(claim: ClaimRecord, q: Quantity) -> frozenset[str]:
    """The stems that say what the figure is (`subject_words`), and 'number' for a count of the noun after it."""
    keys = {subject_stem(w) for w in subject_words(claim, q)}
    if counts_a_noun(claim.claim, q, claim.start):
        keys.add(NUMBER_KEY)
    return frozenset(keys)


def subject_words(claim: ClaimRecord, q: Quantity) -> list[str]:
    """Content words of the clause around a quantity: from the previous quantity (or the claim's start,
    for table rows always the row label) up to the quantity, then the words right after it."""
    text = claim.claim
    at, end = q.start - claim.start, q.end - claim.start
    if not (0 <= at <= end <= len(text)):
        return content_words(text)
    words = content_words(" ".join(clause_parts(claim, q)))
    if claim.context and claim.kind == "table_row":
        words += content_words(claim.context)
    return list(dict.fromkeys(words))[:8]


_TOTAL = re.compile(r"(?i)\btotal\b")
# a row labelled 'Total' and nothing else (its subject is its column's or its section's)
_BARE_TOTAL = re.compile(r"(?i)^\W*total\W*$")
# the key a claim or a row label holds when it says 'total': 'total' is a stopword (it names no subject on its
# own), but a total row ('Total current tax expense') is another row than its parts ('UK current tax expense')
TOTAL_KEY = "total"


def row_stems(label: CellLabel) -> frozenset[str]:
    """The stems that name a cell's row: its label's own words (not the initials `subject_keys` adds, 'oblo' of
    'Operating Lease Obligations', which a claim spelling the words out never holds), 'total' for a row of
    other words that begins with it; a label that defines a short name is named by it; for a row without words,
    its column's. (Memoised by row and columns: a claim's stages ask it for every cell they look at, and a table
    repeats its rows' labels column by column.)"""
    return _row_stems(label.row, label.columns, label.title)


def label_stems(text: str) -> frozenset[str]:
    """The stems that name a row label or a section row standing alone (see `row_stems`; no column to fall back on)."""
    return _row_stems(text, ())


@lru_cache(maxsize=8192)
def _row_stems(row: str, columns: tuple[str, ...], title: str = "") -> frozenset[str]:
    alias = _ALIAS.search(row)
    named = _NOTE_REFERENCE.sub(" ", alias.group(1) if alias else row)
    stems = ({subject_stem(w) for w in content_words(named)} | set(abbreviations(named))) & subject_keys(named)
    if stems and _TOTAL.match(row.lstrip(" -–—*_:")):
        stems.add(TOTAL_KEY)
    # a balance row dated alone is named by its section's title (its day by the claim's, see `titled`)
    return frozenset(stems) if stems else _subject_keys(title or _undated(" ".join(columns)))


def clause_parts(claim: ClaimRecord, q: Quantity, *, past_figures: bool = False) -> tuple[str, str]:
    """The words of the claim before a quantity (from the previous quantity, or with `past_figures` from the
    clause's start) and right after it, as written: what says what the quantity is (see `subject_words`)."""
    text = claim.claim
    at, end = q.start - claim.start, q.end - claim.start
    begin = 0
    if claim.kind != "table_row":
        earlier = [o.end - claim.start for o in claim.quantities if o.end - claim.start <= at]
        begin = 0 if past_figures else max(earlier, default=0)
        clause = max(text.rfind(sep, begin, at) for sep in (";", ". ", ": "))
        begin = max(begin, clause + 1)
    after = re.split(r"[;,.()|]", text[end : end + 40], maxsplit=1)[0]
    return text[begin:at], after


# a label's reference to a note ('Deferred tax assets (see Note 16)') names no subject: a claim never writes it
_NOTE_REFERENCE = re.compile(r"(?i)\(\s*(?:see\s+)?notes?\s+\d+[a-z]?(?:\s*(?:and|,)\s*\d+[a-z]?)*\s*\)")
# a label defining the short name the document uses for it ('Huawei Technologies Co., Ltd. (“Huawei”)') is named
# by that name
_ALIAS = re.compile(r"\(\s*[“\"‘']([^”\"’'()]{2,40})[”\"’']\s*\)")


def row_named(subject: ClaimSubject, label: CellLabel) -> bool:
    """Does the claim name the cell's row itself: every stem of the row label (see `row_stems`) among the
    claim's? A looser overlap may back a found figure but never makes a different figure a contradiction."""
    keys = row_stems(label)
    return bool(keys) and keys <= subject.keys


# Words that make a claimed figure an aggregate of cells ('the average rate over 2017 to 2019', 'the ratio of
# current to non-current', 'the change in X from 2018 to 2019'): one cell holding the same digits is a chance.
_AGGREGATE = re.compile(
    r"(?i)\b(?:ratio|difference|cagr|compound(?:ed)?\s+annual|percent(?:age)?\s+change|change\s+(?:in|of|between|from)"
    r"|(?:increase|decrease)\s*(?:/\s*\(?(?:increase|decrease)\)?\s*)?(?:in|of)\s)")
# 'the increase / (decrease) in X' is a change: a column of changes ('Increase (Decrease)', 'Change') names it
_CHANGE_FAMILY = {"increase": "change", "decrease": "change"}
_CHANGE_COLUMN = re.compile(r"(?i)\b(?:change|increase|decrease)\b")
# a figure the claim states as the size of a move ('UK decreased by £24.5 million from 2018 to 2019', 'fell 10.0%',
# 'was up 3%'); 'rose 5% to $3.50' states the level reached after 'to', which is no move
_MOVE_SIZE = re.compile(r"(?i)\b(?:" + "|".join(vocabulary.move_verbs("moved_by")) + r"|(?:was|were|is|are)\s+(?:up|down))"
                        r"\s+(?:by\s+)?(?:(?:approximately|about|nearly|almost|roughly)\s+)?[-+−]?[$€£¥]?\s?$")
# what names a cell a move: its row, section, column or caption ('Change', 'Increase (decrease)', 'Variance', '% growth')
_MOVE_NAMED = re.compile(r"(?i)\b(?:change[sd]?|increase[sd]?|decrease[sd]?|variances?|growth|movements?)\b")
# a column of signed changes, whose positive figures are rises ('% Change', 'Increase (Decrease)'); a column named
# 'Decrease' alone may state the sizes of falls
_SIGNED_CHANGE_COLUMN = re.compile(r"(?i)\b(?:change|increase)\b")
# 'average' and 'mean' name a metric as often ('average life expectancy', 'weighted-average exchange rate'):
# an aggregate only over the several periods the claim names for one figure ('the average rate from 2017 to 2019')
_MEAN = re.compile(r"(?i)\b(?:average|mean|median)\b")


def aggregated(claim: ClaimRecord, q: Quantity, label: CellLabel) -> bool:
    """Does the claim call its figure an aggregate (see _AGGREGATE), or the size of a move (`_MOVE_SIZE`: 'fell by
    £24.5 million from 2018 to 2019'), that the cell's own row label and column header do not name? Then the cell is
    not that figure, whatever its digits ('2.0%' of 2018 is no average over 2017-2019, 24.5 of 2019 no fall from
    2018 to 2019); a row or column that is the aggregate ('Weighted average price', '% CHANGE') is."""
    before = claim.claim[:max(0, q.start - claim.start)]
    own = f"{label.row} {label.section} {label.column_text} {label.caption}"

    def kind(words: str) -> str:
        first = words.lower().split()[0]
        return _CHANGE_FAMILY.get(first, first)

    named = {kind(w) for w in _AGGREGATE.findall(own)} | ({"change"} if _CHANGE_COLUMN.search(own) else set())
    if any(kind(w) not in named for w in _AGGREGATE.findall(before)):
        return True
    if _MOVE_SIZE.search(before[-80:]) and not _MOVE_NAMED.search(own):
        return True  # the size of a move is no level of one period's column, whatever its digits
    return (_MEAN.search(before) is not None and _MEAN.search(own) is None and "respectively" not in claim.claim
            and len(claim_subject(claim).periods) > 1)


def outnamed(claim: ClaimRecord, subject: ClaimSubject, label: CellLabel, file: int, index: SourceIndex) -> bool:
    """Is there a row of the same source the claim names better: every word of its label among the claim's,
    more of the claim's words than this cell's row shares, and a cell in the claim's period? Then that row is
    the claim's ('Outstanding at end of period' for a claim about the end of period, not 'Outstanding at start
    of period', whose value is last year's closing one)."""
    shared = _shared(subject, label)
    own = subject_keys(label.subject_text) & subject.keys
    for o in subject_cells(claim, index, subject, limit=200):
        other = index.label(o)
        if o.file != file or other is None or (other.row, other.section) == (label.row, label.section):
            continue
        if _flow_beside_its_balance(subject, label, other):
            return True
        sided = _sided_better(subject, label, other)
        # a row named all but one word outnames only a row whose every shared word it shares too ('Power - Cable
        # Installation' shares only 'power' with a claim about power operations, maintenance and construction)
        if not row_named(subject, other) and not (_nearly_named(subject, other)
                                                  and own <= subject_keys(other.subject_text)) and not sided:
            continue
        if subject.periods and not other.periods & subject.periods:
            continue
        if calendar_month_apart(subject, o.file, other, index):
            continue  # the 'Total' of a table of months outnames no row of the claim's month
        theirs = _shared(subject, other)
        if theirs > shared or sided:
            return True
        if theirs == shared and (_balance_of_another_day(subject, label, other) or _year_apart(subject, label, other)):
            return True
        # the claim names the other row by every word of its label, and this one only by the words they share: a
        # longer label is another line item ('Total current assets' for a claim about total assets, 'Total other
        # non-current assets' for one about 'Other', 'Net debt to EBITDA' for one about net debt)
        if theirs == shared and row_named(subject, other) and not row_named(subject, label) \
                and own <= subject_keys(other.subject_text):
            return True
        # two rows under one section row ('Interest income' and 'Interest expense' under 'Other income (expense)')
        # share its words alike: the tie is broken by the words of their own labels
        if theirs == shared and (other.section, other.caption) == (label.section, label.caption) and label.section \
                and _shared(subject, replace(other, section="")) > _shared(subject, replace(label, section="")):
            return True
    return False


def _balance_of_another_day(subject: ClaimSubject, label: CellLabel, other: CellLabel) -> bool:
    """Is the cell's row a balance dated by a day the claim does not name ('Nonvested at January 1, 2017'), where
    the claim names every word of an undated row ('Granted') as well? Then the claim is about that row's flow ('the
    nonvested shares granted in 2017'), not the balance the flow starts from."""
    own = dated_days(label.row)
    return bool(own) and not own & subject.days and not dated_days(other.row) and row_named(subject, other)


def _flow_beside_its_balance(subject: ClaimSubject, label: CellLabel, other: CellLabel) -> bool:
    """Is the cell's row a balance dated by a day the claim names ('Nonvested at January 1, 2017'), where the claim
    names every word of an undated row of the table as well ('Granted')? The claim is about that row's flow from the
    balance ('the nonvested shares granted on January 1, 2017'): a balance is never granted, vested or forfeited."""
    return bool(dated_days(label.row) & subject.days) and other.caption == label.caption \
        and not dated_days(other.row) and row_named(subject, other)


def _sided_better(subject: ClaimSubject, label: CellLabel, other: CellLabel) -> bool:
    """Does another row name the side of an axis the claim names ('non-current' of 'Derivative financial
    instruments, non-current liability') where the cell's row, section and columns name no side of that axis (a
    'Total' of the derivative liabilities), share a word of the claim besides, and every word of the claim that the
    cell's own row label holds? Then it is the claim's row. ('Inventory' under a section 'Deferred tax assets' that
    a list of records drops stays the claim's about the deferred tax assets for inventory: 'Net deferred tax
    assets' lacks 'inventory'.)"""
    own = {axis for axis, _ in cell_sides(label)}
    theirs = cell_sides(other)
    return any(axis not in own and (axis, side) in theirs for axis, side in subject.sides) \
        and bool(row_stems(other) & subject.keys - _side_stems(subject)) \
        and subject_keys(label.row) & subject.keys <= subject_keys(other.subject_text)


def _side_stems(subject: ClaimSubject) -> frozenset[str]:
    return frozenset(subject_keys(" ".join(side for _, side in subject.sides)))


def _nearly_named(subject: ClaimSubject, label: CellLabel) -> bool:
    """Does the claim name a row of three stems or more by all of them but one ('Power - Operations, Maintenance &
    Construction Support' for 'power operations, maintenance and construction')? The one left out is never
    'total': a claim that does not say it names a part, not the total row ('Total deferred tax assets')."""
    keys = row_stems(label)
    missing = keys - subject.keys
    return len(keys) >= 3 and len(missing) == 1 and TOTAL_KEY not in missing


def _shared(subject: ClaimSubject, label: CellLabel) -> int:
    """How many of the claim's stems a cell's row and section share, its 'total' among them when both say it: for
    a claim about 'total other assets' the row 'Total other assets' is named better than 'Other assets', and for
    one about 'total warrants outstanding' a row 'Total' alone better than a row of the column 'Outstanding'
    labelled by a date ('Aug - 2019')."""
    total = TOTAL_KEY in subject.keys and (TOTAL_KEY in row_stems(label) or _BARE_TOTAL.match(label.row) is not None)
    return len(subject_keys(label.subject_text) & subject.keys) + total


def column_keys(label: CellLabel) -> frozenset[str]:
    """Stems of the column headers of a cell that name no period ('Fair Value' of 'December 31, 2019 / Fair Value')."""
    text = " ".join(c for c in label.columns if not periods_in(c))
    # the words themselves: a header's initials ('tec' of 'Total Expected Charges') are no word a claim writes
    return frozenset(subject_stem(w) for w in content_words(text) if w not in quantities.UNIT_WORDS and w not in _META_WORDS)


def column_outnamed(subject: ClaimSubject, label: CellLabel, file: int, index: SourceIndex) -> bool:
    """Does the claim name another column of the cell's row by every word of its header, two words or more
    ('fair value'), and none of the words that set the cell's own apart ('Carrying Amount')? Then the cell is the other column's neighbour,
    not the claim's figure. Words of the row label are the row's, not a column's."""
    own = column_keys(label)
    if not own or own <= subject.keys:
        return False
    by_row = _gathered(index, file, "row columns", _row_of, lambda other: (column_keys(other),))
    row_keys = subject_keys(label.subject_text)
    # the claim names none of the words by which the cell's column differs from the other one
    return any(len(other - row_keys) >= 2 and other - row_keys <= subject.keys and other != own
               and not (own - other) & subject.keys
               for other in by_row.get((label.row, label.section, label.caption), ()))


def _bucket_spans(sides: frozenset[tuple[str, str]]) -> frozenset[str]:
    return frozenset(side for axis, side in sides if axis == "maturity" and _span(side))


def bucket_unnamed(subject: ClaimSubject, label: CellLabel, file: int, index: SourceIndex) -> bool:
    """Is a cell looked up for a claim naming a maturity bucket a cell of another bucket that overlaps it ('1-3 years'
    for 'after more than one year'), or one naming no bucket (a 'Total' column) in a row whose other columns hold the
    claim's very bucket ('Less than 1 year' for 'due within one year')? Either is a part or the sum of buckets
    (derive.py keeps it as an operand), never the claim's figure. A 'Total' of a row without the claim's bucket is
    left to the claim's other words ('due within five years' may be the whole when the later buckets are nil)."""
    claimed = _bucket_spans(subject.sides)
    if not claimed:
        return False
    own = _bucket_spans(cell_sides(label))
    if own:
        return not own & claimed
    return bool(claimed & _row_buckets(file, index).get((label.row, label.section, label.caption), frozenset()))


def _row_buckets(file: int, index: SourceIndex) -> dict[tuple[str, str, str], frozenset[str]]:
    """The maturity buckets the columns of each table row of a source name, by row (asked once per source)."""
    return _gathered(index, file, "row buckets", _row_of, lambda other: _bucket_spans(cell_sides(other)))


def part_of_total(subject: ClaimSubject, label: CellLabel, file: int, index: SourceIndex) -> bool:
    """Is a cell looked up for a claim naming a total ('Total dividends paid') on a row that is none ('Interim dividend
    ...'), with words the claim does not say, while another row of its table shares the very words of the claim it
    shares ('Final dividend ...')? Then it is one of the parts the claim adds up, never the total: that is a total row
    or the sum of the parts. A row the claim names by every word ('Revenue' for 'total revenue') stays its own."""
    if TOTAL_KEY not in subject.keys or _BARE_TOTAL.match(label.row) or not label.row:
        return False
    own = row_stems(label)
    if TOTAL_KEY in own or own <= subject.keys:
        return False
    shared = part_words(subject, label.row)
    if not shared:
        return False  # a row named by none of the claim's words ('First Quarter' under 'Net revenue') is its column's
    rows = _gathered(index, file, "caption rows", lambda other: (other.caption,), lambda other: (other.row,))
    return any(row != label.row and part_words(subject, row) == shared
               for row in rows.get((label.caption,), ()) if row and not _TOTAL.match(row.lstrip(" -–—*_:")))


def part_words(subject: ClaimSubject, row: str) -> frozenset[str]:
    """The claim's words a row label shares, but for the side of an axis it names: the parts of one total differ by
    those ('Monetary assets, current' and 'Monetary assets, non-current' are both the claim's 'monetary assets')."""
    sides = _subject_keys(" ".join(side for _, side in label_sides(row)))
    return (_row_stems(row, ()) & subject.keys) - sides


def _row_of(label: CellLabel) -> tuple[str, str, str]:
    """A table row of a source: its label, section and caption."""
    return label.row, label.section, label.caption


def subject_cells(claim: ClaimRecord, index: SourceIndex, subject: ClaimSubject, *, limit: int) -> list[Observed]:
    """Table cells (their primary readings) whose row or column names the claim's subject and whose period
    is one the claim names (when both name one), in source order, at most `limit`."""
    text = uncited_text(claim)  # a cited source's name ('the filing') names no row, nor a file's line naming its tool
    words = content_words(text + "\n" + (claim.context or "")) + abbreviations(text)
    key = ("subject cells", tuple(words), subject, limit)  # claims of one subject in other words share it
    cached = index.memo.get(key)
    if cached is not None:
        return cached
    result: list[Observed] = []
    backs: dict[CellLabel, bool] = {}  # the sources of one capture repeat their rows' labels, period by period
    for f, item in index.labelled_with_any(words) if limit > 0 else ():
        label = index.files[f].labels[item]
        ok = backs.get(label)
        if ok is None:
            ok = backs[label] = cell_backs(subject, label) and not column_outnamed(subject, label, f, index)
        # (rows of month periods share one label: their rank is the cell's, not the label's)
        if ok and not month_apart(subject, f, index.files[f].starts[item], label, index):
            result.append(Observed(index.files[f].quantities[item].value, f, item))
            if len(result) == limit:
                break
    index.memo[key] = result
    return result


# Words that make a claimed figure a computation over the cells it names ('the average revenue', 'the change
# in other'): its subject is not the cell's, so another cell value does not contradict it.
COMPUTED = re.compile(
    r"(?i)\b(?:average|mean|median|change|changes|changed|difference|differences|increase[sd]?|decrease[sd]?"
    r"|growth|grew|grow|ratio|proportion|percentage|share|sum|combined|total|totals|per|cagr|compound|margin"
    r"|rate|yield|times|fraction|multiple|between|from|vs|versus|compared|higher|lower|more|less)\b"
)


def conflicting_cell(
    claim: ClaimRecord, q: Quantity, index: SourceIndex
) -> tuple[Observed, CellLabel, Period | None] | None:
    """The table cell that states the claim's own subject in the claim's own period and dimension with
    another value, or None. The claim must name the cell's row, use no computing word outside the row label
    ('average', 'change'), and no second row may fit as well. A claim naming one period is contradicted by
    that period's cell; a claim naming none only when no period of the row holds its figure (the cell
    cited is the nearest value); a claim naming several periods is a comparison, never contradicted here."""
    subject = claim_subject(claim)
    if len(subject.periods) > 1:
        return None
    period = next(iter(subject.periods), None)
    # the row must be named by the figure's own clause ('capex hit $9.9 billion' is not about net income)
    own_bucket = {side for side in subject.sides if side[0] == "maturity"}
    # (past the figure of the bucket's span: '1 year' of 'due in less than 1 year were $2.05 million')
    if own_bucket:
        words = content_words(" ".join(clause_parts(claim, q, past_figures=True)))
        own = replace(subject, keys=frozenset(subject_stem(w) for w in words))
    else:
        own = replace(subject, keys=figure_keys(claim, q))
    named_rows: set[str] = set()
    best: list[tuple[int, Observed, CellLabel]] = []
    for o in subject_cells(claim, index, subject, limit=200):
        label = index.label(o)
        if label is None or o.item in index.files[o.file].alternatives:
            continue
        if period is not None and label.periods != {period}:
            continue
        if own_bucket and not own_bucket <= cell_sides(label):
            continue  # the cell of the claim's own maturity bucket, not the next bucket's nor the total
        if after_part(subject, label):
            continue  # one of the buckets after the claim's year: a part of its figure, no other value of it
        if calendar_month_apart(subject, o.file, label, index):
            continue  # the row of the claim's own month, not another month's nor the total
        if not row_named(own, label) or not quantities.comparable(q, index.quantity(o)):
            continue
        named_rows.add(label.row)
        best.append((len(row_stems(label)), o, label))
    row_words = {w.lower() for row in named_rows for w in re.findall(r"[A-Za-z]+", row)}  # each row's words once
    # ('less than' and 'between' of the claim's maturity bucket compute nothing)
    stated = claim.claim.lower()
    for _, pattern in _MATURITY_SPANS if own_bucket else ():
        stated = pattern.sub(" ", stated)
    if not best or any(w.lower() not in row_words for w in COMPUTED.findall(stated)):
        return None
    top = max(score for score, _, _ in best)
    winners = [(o, label) for score, o, label in best if score == top]
    rows = {(o.file, label.row, label.section, label.caption) for o, label in winners}
    if len(rows) != 1:
        return None  # two rows fit as well: no one cell is the claim's
    if period is None and any(quantities.quantities_match(q, index.quantity(o)) for o, _ in winners):
        return None
    o, label = min(winners, key=lambda w: (abs(index.quantity(w[0]).value - q.value), w[0].file, w[0].item))
    if quantities.quantities_match(q, index.quantity(o)):
        return None  # the cell holds the claimed figure (at its scale): no other value
    return o, label, period


def _other_value_cell(claim: ClaimRecord, q: Quantity, index: SourceIndex) -> Observed | None:
    """The cell of the claim's own subject and period that holds another value than the claimed figure
    (`conflicting_cell`), but not one that holds it as a negative ('net losses stood at 4,697' for '(4,697)'), nor
    the cell of a row whose label holds the figure ('1' of 'Scope 1' names the row, it is no value of it)."""
    conflict = conflicting_cell(claim, q, index)
    if conflict is None or quantities.quantities_match(q.model_copy(update={"value": -q.value}), index.quantity(conflict[0])):
        return None
    if re.search(r"(?<![\d.,])" + re.escape(q.text.strip()) + r"(?![\d.,]*\d)", conflict[1].row):
        return None
    if conflict[1].months and not claim_subject(claim).calendar:
        return None  # a month's cell ('Jan - 2024 | 40') is no value of the year a claim names ('12 new stores in 2024')
    return conflict[0]


# The metrics a sentence of prose can be said to be about by name; a price ('last', 'close') and a headcount
# ('people') are named by words prose uses for anything.
PROSE_METRICS = frozenset(vocabulary.METRIC_GROUPS) - {"price", "headcount", "volume"}


_CLAUSE_STOP = re.compile(r"[,;:!?](?=\s)|\.(?=\s)|\d(?=[\d,.]*\D)")
_AFTER_STOP = re.compile(r"[;,.()|\d]|\b(?:and|while|whereas|but)\b")
_STATEMENT_STOP = re.compile(r"[;!?](?=\s)|\.(?=\s)")
# ('versus $82 million or $0.91 per share': the second figure of a pair restated after the comparison word; 'compared
# with $1.02 billion and $198 million': the second base of a pair of metrics)
_BASE_BEFORE = re.compile(r"(?i)(?:" + "|".join(vocabulary.BASE_BEFORE) + r")\s+(?:the\s+|an?\s+)?(?:[a-z]+\s+of\s+)?"
                          r"(?:[$€£¥]?\s*[\d.,]+(?:\s+(?:million|billion|thousand))?\s+(?:or|and)\s+)?(?:[$€£¥]\s*)?$")
_BASE_AFTER = re.compile(r"(?i)\s*(?:" + "|".join(vocabulary.BASE_AFTER) + r")\b")


def source_clause(loaded: LoadedFile, start: int, end: int) -> str:
    """The words of a prose source figure's own clause: back to the previous figure or clause break on its line
    (past the figures before it when those words name nothing: 'net earnings of $192.6 million or $3.50 per
    diluted share'), then the words right after it."""
    a, b = loaded.line_span(loaded.line_of(start))
    text = loaded.text
    region = text[max(a, start - 300):start]
    # a year is a period, no previous figure: 'the low sale price per share in 2018 came to $5.99' is one clause
    stops = [m.end() for m in _CLAUSE_STOP.finditer(_LISTED_YEAR.sub(lambda y: "y" * len(y.group()), region))]
    before = region[stops[-1]:] if stops else region
    # a clause that continues the one before it (', which represents year-over-year growth of 10.2%') is about
    # that clause's subject, as one that names nothing is
    if not subject_keys(before) - _NOT_A_SUBJECT or (stops and _CONTINUES.match(before)):
        breaks = [m.end() for m in _STATEMENT_STOP.finditer(region)]
        before = region[breaks[-1]:] if breaks else region
    after = _AFTER_STOP.split(text[end:min(b, end + 40)], maxsplit=1)[0]
    return f"{before} {after}"


def stated_metrics(loaded: LoadedFile, start: int, end: int) -> frozenset[str]:
    """The metrics a prose source figure is stated for: those its own clause names (an amount per share is also
    earnings per share unless the clause names the dividend); for a comparison base whose clause names none ('EPS
    was $5.52 compared to a loss of $1.46'), those of the figure it is compared with."""
    stated = metrics_of(source_clause(loaded, start, end)) & PROSE_METRICS
    if _A_SHARE.match(loaded.text, end, min(len(loaded.text), end + 40)):
        # '$212.4 million or $3.85 per diluted share': an amount per share is earnings per share, or the dividend
        return stated if stated & _PER_SHARE_METRICS else stated | {"eps"}
    if stated or not comparison_base(loaded, start, end):
        return stated
    a = loaded.line_span(loaded.line_of(start))[0]
    return metrics_of(loaded.text[max(a, sentence_start(loaded.text, start)):start]) & PROSE_METRICS


def prose_operand(claim: ClaimRecord, q: Quantity, index: SourceIndex, o: Observed) -> bool:
    """May the observed figure `o` be an operand of a change the claim states with `q`? A change of a metric is
    computed from that metric's own figures: a prose figure whose clause names only other metrics is no operand
    ('revenue rose 9%' is not the change of an EPS pair on the same line; a field 'eps: 2.18' neither). Table
    cells are judged by their rows."""
    if index.label(o) is not None:
        return True
    own = figure_subject(claim, q).metrics
    if not own:
        return True
    observed = index.quantity(o)
    stated = stated_metrics(index.loaded(o.file), observed.start, observed.end)
    return not stated or bool(own & stated)


def comparison_base(loaded: LoadedFile, start: int, end: int) -> bool:
    """Is the prose figure the earlier value a change is measured from ('up 40.6% from last year's $2.40',
    '$1.2 billion a year ago'; see vocabulary.BASE_BEFORE / BASE_AFTER)?"""
    text = loaded.text
    return (_BASE_BEFORE.search(text, max(0, start - 60), start) is not None
            or _BASE_AFTER.match(text, end, min(len(text), end + 40)) is not None
            or year_ago_quarter(loaded, start, end))


# Stems that say a figure's unit or its period, never what it measures (see vocabulary.PERIOD_WORDS).
_NOT_A_SUBJECT = frozenset(subject_stem(w) for w in quantities.UNIT_WORDS | vocabulary.PERIOD_WORDS | vocabulary.CHANGE_WORDS
                           | vocabulary.LINK_WORDS)


@dataclass(frozen=True)
class FigureSubject:
    """What a claimed figure's own clause says it is: subject stems (no unit or period words), the metrics it
    names, and whether it names a comparison or an earlier period ('from', 'a year ago', 'prior')."""

    keys: frozenset[str]
    metrics: frozenset[str]
    compared: bool
    quarters: frozenset[str] = frozenset()
    per_share: bool = True
    of_what: frozenset[str] = frozenset()
    named: frozenset[str] = frozenset()  # the metrics the figure's own words name ('EPS of $3.50', not 'and earned')
    a_share: bool = False  # the figure is an amount per share by its own words ('$3.85 per share', 'EPS of $3.85')
    own_keys: frozenset[str] = frozenset()  # subject stems of its own phrase (since the figure or comma before it)
    counted: str | None = None  # a whole count's noun, stemmed ('12 stores': 'store')


def figure_subject(claim: ClaimRecord, q: Quantity) -> FigureSubject:
    """The subject of a claimed figure's own clause: the words before it (past the figures before it when those
    words name nothing: '19% and 38% respectively', '$3.5 billion to $3.6 billion') and right after it."""
    if not 0 <= q.start - claim.start <= q.end - claim.start <= len(claim.claim):
        return FigureSubject(frozenset(), frozenset(), True)
    before, after = clause_parts(claim, q)
    clause = clause_parts(claim, q, past_figures=True)[0]
    wide = f"{clause} {after}"
    # the subject words of the clause back to its start ('... $3.5 billion, signifying growth of 4.8%' names no
    # subject between the figures), the metrics and period of the figure's own words when they name one, else
    # of the nearest words before it that do ('revenue for the first quarter is expected to be between $3.5
    # billion and $3.6 billion': the first quarter's revenue, not the EPS the clause opened with)
    near = _named_before(claim, q, len(clause))
    text = f"{near} {after}"
    words = set(re.findall(r"[a-z][a-z-]*", text.lower()))
    named = metrics_of(text) & PROSE_METRICS
    metrics = named or metrics_of(wide) & PROSE_METRICS
    # a bare 'from' compares only before a figure or a period ('up 9% from $2.40', 'from last year'), not in
    # 'earnings from continuing operations'; a 'from' right before the figure introduces it as a base. Words after
    # the figure make it a base only as a base's own words ('$2.40 a year ago', 'from last year'): in '$0.91 in the
    # quarter versus $3.13 in the prior year' the comparison introduces the next figure, the base, not this one
    before_words = set(re.findall(r"[a-z][a-z-]*", near.lower()))
    compared = bool(before_words & (vocabulary.COMPARISON_WORDS - {"from"})) or _compares_from(near) \
        or _compares_from(after) or _BASE_AFTER.match(after, _UNIT_WORD.match(after).end()) is not None
    # its own words: since the previous figure, past that figure's unit ('$1.07 per diluted share on net sales of')
    opening = _A_SHARE.match(before)
    own = before[opening.end():] if opening else before
    # the figure's own words speak of shares ('$3.85 per diluted share', 'EPS of $3.85');
    # a per-share metric named elsewhere in the clause ('EPS of $6.86 in the quarter and earned $3.1 billion') does
    # not make '$3.1 billion' one
    a_share = q.kind == "currency" and (_A_SHARE.match(after) is not None or _PER_SHARE_BEFORE.search(own) is not None
                                        or metrics_of(f"{own} {after}") & PROSE_METRICS == {"eps"})
    return FigureSubject(frozenset(subject_keys(wide) - _NOT_A_SUBJECT), metrics, compared, frozenset(_quarters(text)),
                         bool(words & _SHARE_WORDS or named & _PER_SHARE_METRICS), _of_what(after), named, a_share,
                         frozenset(subject_keys(f"{_PHRASE_BREAK.split(own)[-1]} {after}") - _NOT_A_SUBJECT),
                         _counted(claim, q))


# the word a figure may carry before the words after it ('1,150 units a year ago')
_UNIT_WORD = re.compile(r"\s*(?:[A-Za-z]+(?=\s+(?:a|one|in|for|during|the|prior|previous|last|same)\b))?")


def _counted(claim: ClaimRecord, q: Quantity) -> str | None:
    """The stem of the noun a whole count counts, the word right after it ('acquire 11 stores': 'store'), or None."""
    if q.kind != "number" or q.unit is not None or q.value != int(q.value) or q.value < 2:
        return None
    word = _word_after(claim.claim, q.end - claim.start)
    return subject_stem(word) if word else None


# where a figure's own phrase begins: after the last comma, colon or semicolon of the words before it ('$3.575 billion
# range, representing growth of 4.8%': 'range' is the previous figure's)
_PHRASE_BREAK = re.compile(r"[,;:](?=\s)")


# 'revenue per share of $2.30', 'per diluted share was $1.07': the figure's own words before it name an amount per share
_PER_SHARE_BEFORE = re.compile(r"(?i)\bper\s+(?:[a-z]+\s+){0,2}?share\b[^$€£¥\d]{0,30}$")


# 'from' followed by a figure or a period: the base of a comparison ('from $2.40', 'from last year's', 'from 2019',
# 'from a loss of $1.46', 'from the year-ago quarter'); 'from' at the end of the words before a figure introduces it
_FROM_BASE = re.compile(
    r"(?i)\bfrom(?:\s+(?:the|a|an|its|our|their|this|that)\b)?(?:\s+(?:loss|deficit|levels?|low|high)\s+of\b)?"
    r"\s*(?:$|[$€£¥(]|[-+]?\d|q[1-4]\b|fy|(?:"
    + "|".join(sorted(vocabulary.PERIOD_WORDS | {"same", "year-ago", "prior-year"} | set(vocabulary.MONTH_NAMES),
                      key=len, reverse=True)) + r")\b)")


def _compares_from(text: str) -> bool:
    """Does a 'from' of `text` introduce a base figure or period (see _FROM_BASE)?"""
    return _FROM_BASE.search(text.rstrip()) is not None


# a change names what moved after its noun ('a 70% increase in our monthly absorption rate')
_OF_WHAT = re.compile(r"(?i)\s*(?:(?:increase|decrease|growth|decline|rise|drop|gain|improvement|reduction|jump)\s+in"
                      r"|(?:[a-z]+\s+)?of)\s+(?:(?:the|our|its|their|this|that)\s+)?(.+)")


def _of_what(after: str) -> frozenset[str]:
    """The subject stems of the 'of ...' right after a figure ('$40 million of net charge-offs'), or of what its
    change is in ('a 70% increase in the absorption rate'), if any."""
    m = _OF_WHAT.match(_AFTER_STOP.split(after, maxsplit=1)[0])
    return frozenset(subject_keys(m.group(1)) - _NOT_A_SUBJECT) if m else frozenset()


# words that say which amount of a thing a figure is (vocabulary.FIGURE_QUALIFIERS: 'net', 'gross', 'adjusted',
# 'diluted') or how much of it ('total'), not what thing: '$40 million of net provisions' and '$40 million of net
# charge-offs' share only 'net'
_QUALIFIER_STEMS = frozenset(subject_stem(w) for w in (
    "net", "gross", "operating", "adjusted", "diluted", "basic", "total", "reported", "underlying"))


def _same_things(claimed: frozenset[str], stated: frozenset[str]) -> bool:
    """Do two 'of ...' phrases name the same things? They must share a stem besides the qualifiers of an amount
    (`_QUALIFIER_STEMS`), when both name something besides them; else any shared stem will do."""
    own, theirs = claimed - _QUALIFIER_STEMS, stated - _QUALIFIER_STEMS
    return bool(own & theirs) if own and theirs else bool(claimed & stated)


def _of_another(text: str, end: int, keys: set[str]) -> bool:
    """Does a prose figure say it is an amount of something the claim never names ('$2.3 million of impairments'
    for a claim about state licenses)?"""
    stated_of = _of_what(text[end:min(len(text), end + 60)])
    return bool(stated_of) and not stated_of & keys


def _row_carries(claim: ClaimRecord, subject: ClaimSubject, index: SourceIndex) -> bool:
    """Does a table row of the sources carry the claim's subject (every word of its label among the claim's)?
    Then the claim's figure is that row's, and a prose amount of another thing is no evidence for it; without
    such a row, prose is all there is and its wording is left to the window tests."""
    return any((label := index.label(o)) is not None and row_named(subject, label)
               for o in subject_cells(claim, index, subject, limit=200))


# An amount per share ('$6.78 per diluted common share') is another figure than the whole amount a claim states
# ('earned $6.78'): the claimed figure's own words must speak of shares (or a per-share metric) for it.
_PER_SHARE = re.compile(r"(?i)\s*per\s+(?:[a-z]+\s+){0,2}?shares?\b")
_A_SHARE = re.compile(r"(?i)\s*(?:per|a|an)\s+(?:[a-z]+\s+){0,2}?shares?\b")
_SHARE_WORDS = frozenset({"share", "shares", "eps"})
_PER_SHARE_METRICS = frozenset({"eps", "dividend"})


def amount_per_counted(claim: ClaimRecord, q: Quantity) -> bool:
    """Is the claimed figure an amount per counted thing, by its own clause ('the cost per employee was ...',
    '$2.0 million per employee')?"""
    before, after = clause_parts(claim, q)
    return _per_counted(before) or _per_counted(after, at_start=True)


def label_per_counted(label: CellLabel) -> bool:
    """Does a cell's row or column name an amount per counted thing ('Revenue per employee')?"""
    return _per_counted(f"{label.subject_text} {label.column_text}")


def label_per_share(label: CellLabel) -> bool:
    """Does a cell's row, section, columns or caption name an amount per share ('Diluted earnings per share', a
    section 'Net income per share:', 'EPS', 'Dividends')? A caption's '(in thousands, except per share data)' names
    the table's other rows, not this one ('except percentages and per share data' too)."""
    text = f"{label.subject_text} {label.column_text} {_EXCEPT_PER_SHARE.sub(' ', label.caption)}"
    return _SHARE_NAMED.search(text) is not None or bool(metrics_of(text) & _PER_SHARE_METRICS)


_EXCEPT_PER_SHARE = re.compile(r"(?i)\b(?:except|excluding)\b[^().;]{0,40}?\bper[\s-]+(?:[a-z]+\s+){0,2}?shares?\b")


def _per_counted(text: str, *, at_start: bool = False) -> bool:
    """Does `text` name an amount per counted thing ('cost per employee', '$/employee'; per share apart, see
    `_PER_SHARE`)? Such an amount is another figure than the whole it divides: a cell whose row and columns name
    no 'per' ('Employee termination costs' 53.0) is no evidence for 'cost per employee of $0.05 million'."""
    found = [PER_UNIT.match(text.lstrip())] if at_start else list(PER_UNIT.finditer(text))
    return any(m is not None and not _PER_SHARE.match(m.string, m.start()) for m in found) or (
        not at_start and re.search(r"[a-z$]\s*/\s*(?!share)[a-z]{3,}", text.lower()) is not None)


def _named_before(claim: ClaimRecord, q: Quantity, reach: int) -> str:
    """The claim's words from the nearest gap between figures before `q` (within `reach` characters: its
    clause) that names a subject, up to `q`; the whole reach when none does."""
    at = q.start - claim.start
    lo = at - reach
    figures = sorted((o.start - claim.start, o.end - claim.start) for o in claim.quantities
                     if lo <= o.start - claim.start and o.end - claim.start <= at)
    gap_end = at
    for start, end in reversed(figures):
        if subject_keys(claim.claim[end:gap_end]) - _NOT_A_SUBJECT:
            return claim.claim[end:at]
        gap_end = start
    return claim.claim[lo:at]


def figure_clause(claim: ClaimRecord, q: Quantity) -> tuple[str, str]:
    """The words of the figure's own clause before it (from the previous figure or clause break) and after
    it (up to the next figure or clause break)."""
    text = claim.claim
    at, end = q.start - claim.start, q.end - claim.start
    if not 0 <= at <= end <= len(text):
        return text, ""
    begin = max([o.end - claim.start for o in claim.quantities if o.end - claim.start <= at] + [0])
    begin = max(begin, *(text.rfind(sep, begin, at) + len(sep) for sep in ("; ", ". ", ": ", ", ")))
    later = [o.start - claim.start for o in claim.quantities if o.start - claim.start >= end]
    stop = min(later + [len(text)])
    after = re.split(r"[;,.()]", text[end:stop], maxsplit=1)[0]
    return text[begin:at], after


_DIRECTION_WORDS = {direction: "|".join(words) for direction, words in vocabulary.CHANGE_DIRECTIONS.items()}
_DIRECTION = re.compile(r"(?i)\b(?:(?P<up>" + _DIRECTION_WORDS[1] + r")|(?P<down>" + _DIRECTION_WORDS[-1] + r"))\b")
# right after the figure, its noun or comparative ('a 28.0% decline', '$8.6 million lower than'), a word between
_DIRECTION_AFTER = re.compile(r"(?i)^\s*(?:[a-z-]+\s+)?(?=(?:" + _DIRECTION_WORDS[1] + "|" + _DIRECTION_WORDS[-1]
                              + r")\b)")
# words of both directions joined name a signed change, no direction ('the increase / (decrease) in revenue',
# 'increase (decrease)', 'increase or decrease')
_BOTH_WAYS = re.compile(r"(?i)\b(?:" + _DIRECTION_WORDS[1] + "|" + _DIRECTION_WORDS[-1] + r")\)?\s*"
                        r"(?:/|\bor\b|\band\b)?\s*\(?\s*(?:" + _DIRECTION_WORDS[1] + "|" + _DIRECTION_WORDS[-1] + r")\b")
_GAP = re.compile(r"(?i)\b(?:difference|differ(?:s|ed)?|gap)\b")


def change_direction(claim: ClaimRecord, q: Quantity) -> int | None:
    """The direction the figure's own clause gives the change it states: +1 a rise, -1 a fall ('fell 28.0%', 'was
    down 28%', 'a decrease of $8.6 million', 'a 28% decline'), None where its words name no direction ('changed by',
    'the increase / (decrease)') or a gap ('the difference in revenue growth'). The word right after the figure
    first, else the last one before it in its clause."""
    before, after = (_BOTH_WAYS.sub(" ", words) for words in figure_clause(claim, q))
    if _GAP.search(before):
        return None  # 'the difference in revenue growth': a gap of either sign, whose words name what differs
    at = _DIRECTION_AFTER.match(after)
    found = [_DIRECTION.match(after, at.end())] if at is not None else list(_DIRECTION.finditer(before))[-1:]
    if not found:
        return None
    return 1 if found[0].group("up") else -1


def about_subject(claim: ClaimRecord, q: Quantity, matches: list[AtomMatch], index: SourceIndex) -> list[AtomMatch]:
    """The matches that stand near the claim's subject: in long prose a figure that matches by value
    but sits among other words ('rest for 30 minutes' for 'bake for 30 minutes') is a chance match."""
    if not matches:
        return matches
    keys = _claim_keys(claim)
    position = index.numbers
    word = _word_after(claim.claim, q.end - claim.start)
    implied = _DIMENSION_KEYS.get(q.kind, frozenset())
    partners = _range_partners(claim.claim, q.start - claim.start, q.end - claim.start)
    metrics = metrics_of(claim.claim + "\n" + (claim.context or ""))
    subject = claim_subject(claim)
    # a figure of a 'respectively' list is stated for its own period of the list ('12%, 9% and 13% in 2017, 2018
    # and 2019, respectively': the 12% is 2017's)
    paired = claimed_period(claim, q)
    if paired:
        subject = replace(subject, periods=paired)
    figure = figure_subject(claim, q)
    # the quarters the claim states this figure for: its own clause's ('Q4 EPS grew 21%, and revenue for the first
    # quarter is expected to be $3.5 billion'), else its sentence's up to the end of the figure's clause
    quarters = figure.quarters or sentence_quarters(claim.claim, q.start - claim.start, q.end - claim.start)
    qualified = _claim_qualifiers(claim, q)
    per_counted = amount_per_counted(claim, q)
    tabled: bool | None = None  # does a table row carry the claim's subject (asked once, when needed)
    own_cell: list[Observed | None] = []  # the claim's own period's cell of another value (asked once)
    kept = []
    listed = respective_rows(claim, q, subject, index)
    falls = q.value > 0 and change_direction(claim, q) == -1
    for m in matches:
        label = index.label_at(position[m.source], m.offset)
        if label is not None and listed and (position[m.source], label.row, label.section) in listed[1]:
            # a figure of a 'respectively' list of rows is its own row's, whichever row the claim names better
            if (position[m.source], label.row, label.section) == listed[0] and cell_backs(subject, label) \
                    and not aggregated(claim, q, label):
                kept.append(m)
            continue
        if label is not None:  # a table cell: by its row, column and period, not by words on its line
            if falls and _SIGNED_CHANGE_COLUMN.search(" ".join(label.columns)):
                continue  # 'fell 28.0%' by '28.0%' in a column of signed changes ('% Change'): a rise of 28.0%
            if cell_backs(subject, label) and not month_apart(subject, position[m.source], m.offset, label, index) \
                    and not outnamed(claim, subject, label, position[m.source], index) \
                    and not column_outnamed(subject, label, position[m.source], index) and not aggregated(claim, q, label) \
                    and not bucket_unnamed(subject, label, position[m.source], index) \
                    and not after_part(subject, label) and not open_bucket_apart(subject, label) \
                    and not percent_cell_apart(claim, q, subject, label) \
                    and not row_year_column_apart(subject, label, position[m.source], index) \
                    and not part_of_total(subject, label, position[m.source], index) \
                    and not calendar_month_apart(subject, position[m.source], label, index) \
                    and not (per_counted and not label_per_counted(label)) \
                    and not (figure.a_share and not label_per_share(label)):
                kept.append(m)  # '$795 per share' is not the '795' of a row of whole amounts
            continue
        loaded = index.loaded(position[m.source])
        end = m.offset + len(m.text)
        # '70 degrees' for '70 degrees', '34 area codes' for '34 area codes': the word a bare number
        # counts is its subject
        if clause_outnamed(loaded, m.offset, end, keys):
            continue  # 'X accounted for 13%, ...; Y accounted for 11%, 12% ..., respectively' is Y's for a claim about X
        if (word and _word_after(loaded.text, end) == word) or near_subject(loaded, m.offset, end, keys, implied=implied):
            window = per_figure(loaded, _window_text, m.offset, end)
            if window is None:
                labelled = metrics_of(label_of(loaded, m.offset)) if metrics else set()
                if labelled and not labelled & metrics:
                    continue  # a structured field of another metric: 'Revenue | 1234' for a net income claim
                if subject.periods and (dated := record_periods(loaded, m.offset)) and not dated & subject.periods:
                    continue  # a field of a record of another period: 'fiscal_year: 2023' for a 2022 claim
            own = figure_periods(loaded, m.offset, end) if subject.periods else frozenset()
            if own and not own & subject.periods:
                continue  # '13.0% compared to 18.3% for 2018': the 2018 figure is no evidence for a 2019 claim
            if subject.periods and not own and not (window is None and record_periods(loaded, m.offset)):
                if not own_cell:
                    own_cell.append(_other_value_cell(claim, q, index))
                if own_cell[0] is not None:
                    continue  # a figure of no period read ('between $14.8 billion and $16.7 billion per year') is no
                    # evidence for a dated claim whose own period's cell holds another value: that cell contradicts it
            stated = per_figure(loaded, _figure_quarters, m.offset, end) if quarters else set()
            if stated and not stated & quarters:
                continue  # 'revenue in the second quarter was $260 million' is no evidence for a Q3 claim
            # on a sentence a line (a transcript) the figure's own clause must say what the claim's does; a long
            # passage keeps the window test above, where a paraphrase names its subject in other words
            # (a figure stated for the period the claim names is that period's, a comparison base or not)
            if window is not None and sentence_line(loaded, m.offset) \
                    and not _same_figure(figure, loaded, m.offset, end, window, dated=bool(own), quarters=quarters):
                continue
            # the paraphrase-mode rules below are for a figure of a financial metric (PROSE_METRICS) the claim names
            if window is not None and figure.metrics and long_sentence_line(loaded, m.offset) \
                    and not _about_figure(figure, loaded, m.offset, end, dated=bool(own), quarters=quarters):
                continue
            # a comparison base and a per-share amount are other figures whatever the claim's metric
            if window is not None and (base_apart(figure, loaded, m.offset, end, dated=bool(own), quarters=quarters)
                                       or later_apart(claim, q, loaded, m.offset, end, dated=bool(own))
                                       or quarter_apart(claim.claim, q.end - claim.start, loaded.text, end)
                                       or move_end_apart(claim.claim, q.start - claim.start, loaded.text, m.offset)
                                       or per_share_apart(figure, loaded, m.offset, end)
                                       or change_apart(claim, q, loaded.text, m.offset)):
                continue  # '$64.2 million' by 'roughly double the prior-year levels of $64.2 million'
            if window is not None and (long_sentence_line(loaded, m.offset) or sentence_line(loaded, m.offset)) \
                    and another_s_change(figure, loaded, m.offset, end):
                continue  # 'the absorption rate rose 73%' by 'unit net orders increased by 73%, driven by a 70% increase
                # in our monthly absorption rate'
            if window is not None and (long_sentence_line(loaded, m.offset) or sentence_line(loaded, m.offset)) \
                    and count_apart(figure, loaded, m.offset, end):
                continue  # 'acquire 12 stores' by 'open five new stores this year and 12 new stores in 2022'
            if window is not None and other_noun_counted(claim, q, loaded, m.offset, end):
                continue  # 'acquire 130 stores' by 'targeting over 130 total locations'
            if window is not None and figure.metrics and range_apart(claim.claim, q.start - claim.start, q.end - claim.start,
                                                                      loaded.text, m.offset, end):
                continue  # '10.2% to 6.6%' by '10.2% to 13.5%': one end of a range is evidence only with its other end
            if window is not None and figure.metrics and base_year_apart(claim.claim, q.start - claim.start,
                                                                          q.end - claim.start, loaded.text, m.offset, end):
                continue  # 'up 16.3% from the previous year' by '(in 2021) increased ... 16.3% from 2019 levels'
            if window is not None and qualified and qualified_apart(qualified, _source_qualifiers(loaded, m.offset, end)):
                continue  # 'GAAP diluted earnings per share was $1.63' is no evidence for adjusted EPS of $1.63
            if window is not None and _of_another(loaded.text, end, keys) and (
                    tabled := tabled if tabled is not None else _row_carries(claim, subject, index)):
                continue  # '$2.3 million of impairments' for 'state licenses were $2.3 million', a row of the table
            kept.append(m)
        elif partners and partners & _range_partners(loaded.text, m.offset, end):
            # the same range, both ends ('20 to 25 minutes'), whatever words the source puts around it
            kept.append(m)
        elif implied and near_subject(loaded, m.offset, end, set(implied)):
            # a claimed temperature ('Warmest month: July (12°C)') by a source sentence about temperature
            # ('the hottest month ... an average temperature of 12°C'): both name the same dimension
            kept.append(m)
    return kept


# a range's end, in digits or written out ('between five and seven percent')
_NUMBER = r"([$€£¥]?)\(?(\d[\d,]*(?:\.\d+)?|" + quantities.SPELLED_NUMBER + r")\)?(\s?%|\s+percent\b)?"
_SCALE_WORD = r"(?:\s+(?:thousand|million|billion|trillion))?"
_BARE = re.compile(r"\(?\d[\d,]*(?:\.\d+)?\)?")
_RANGE_AFTER = re.compile(r"\s?(?:-|–|to|through)\s?" + _NUMBER)
_RANGE_BEFORE = re.compile(_NUMBER + _SCALE_WORD + r"\s?(?:-|–|to|through)\s?(?:[$€£¥]\s?)?$")
# 'between $9.95 and $10.25': a range joined by 'and' only after 'between'
_BETWEEN = re.compile(r"(?i)\bbetween\s+(?:[$€£¥]\s?)?$")
_AND_AFTER = re.compile(r"\s+and\s+" + _NUMBER)
_BETWEEN_BEFORE = re.compile(r"(?i)\bbetween\s+" + _NUMBER + _SCALE_WORD + r"\s+and\s+(?:[$€£¥]\s?)?$")
# 'from 18.2% to 19.6%' is a change, its figures the two ends of a move, not a range of values
_FROM_FIRST = re.compile(r"(?i)\bfrom\s+(?:[$€£¥]\s?)?\(?$")
_FROM_SECOND = re.compile(r"(?i)\bfrom\s+" + _NUMBER + _SCALE_WORD + r"\s?(?:-|–|to|through)\s?(?:[$€£¥]\s?)?$")


def range_ends(text: str, start: int, end: int) -> dict[str, float]:
    """The other end of the range whose one end is the figure at [start, end) of `text`, by side ('4.8% to 6.6%':
    {'after': 6.6} for the 4.8%; 'between $9.95 and $10.25': {'before': 9.95} for the $10.25); an end of another
    unit is no range ('grew 20.9% to $2.55')."""
    if not 0 <= start <= end <= len(text):
        return {}
    figure = text[start:end]
    money, percent = figure.lstrip("(")[:1] in "$€£¥", figure.rstrip().endswith(("%", "percent"))
    between = _BETWEEN.search(text, max(0, start - 12), start) is not None
    after = _RANGE_AFTER.match(text, end) or (_AND_AFTER.match(text, end) if between else None)
    before = _RANGE_BEFORE.search(text, max(0, start - 40), start) or _BETWEEN_BEFORE.search(text, max(0, start - 60), start)
    # '4' of '4-7%' takes its partner's unit, as 'five' of 'between five and seven percent' does
    bare = _BARE.fullmatch(figure) is not None or quantities.spelled_value(figure) is not None
    ends: dict[str, float] = {}
    for side, m in (("after", after), ("before", before)):
        if m is not None and (not m.group(1) or money or bare) and (not m.group(3) or percent or bare):
            value = quantities.spelled_value(m.group(2)) if m.group(2)[:1].isalpha() else float(m.group(2).replace(",", ""))
            if value is not None:
                ends[side] = value
    return ends


def _a_change(text: str, start: int, ends: dict[str, float]) -> bool:
    """Are the ends found for the figure at `start` those of a change 'from X to Y', not of a range?"""
    return ("after" in ends and _FROM_FIRST.search(text, max(0, start - 12), start) is not None) or (
        "before" in ends and _FROM_SECOND.search(text, max(0, start - 60), start) is not None)


def range_apart(claimed: str, a: int, b: int, source: str, start: int, end: int) -> bool:
    """Is the claimed figure one end of a range whose other end differs from the source range's, on the same side, or
    that the source states as a single figure ('$70 million' is no evidence for 'between $70 million and $3.575
    billion')? The two ends of a change ('from 18.2% to 19.6%') are no range. (A source range's end for a claimed
    single figure is left alone: a summary may state one end, 'EPS of at least $9.95'.)"""
    mine = range_ends(claimed, a, b)
    if not mine:
        return False
    theirs = range_ends(source, start, end)
    if any(side in theirs and abs(value - theirs[side]) > 1e-9 for side, value in mine.items()):
        return True
    return not theirs and not _a_change(claimed, a, mine)


# The period a change is measured from, named right after its figure ('16.3% from 2019 levels', 'up 9% year over year')
_BASE_YEAR = re.compile(r"(?i)\s*(?:,\s*)?(?:\w+\s+){0,2}?(?:from|over|versus|vs\.?|compared\s+(?:to|with))\s+(?:the\s+)?"
                        r"(?:(?:fiscal|calendar)\s+)?(?:year\s+)?'?((?:19|20)\d\d)\b")
_PREVIOUS_YEAR = re.compile(r"(?i)\s*(?:,\s*)?(?:\w+\s+){0,2}?(?:(?:from|over|versus|vs\.?|compared\s+(?:to|with))\s+"
                            r"(?:the\s+)?(?:previous|prior|last|preceding)\s+year|year[- ]over[- ]year|a\s+year\s+(?:ago|earlier))")


def base_year_apart(claimed: str, a: int, b: int, source: str, start: int, end: int) -> bool:
    """Does the claimed change name another base period than the source figure's? A source change measured from a
    named year ('diluted EPS of $3.50 in 2021 increased 34.6% from 2020 and 16.3% from 2019') is from that year: no
    evidence for a change claimed from another year, nor from the previous year when its sentence names a later
    year than the one after the base ('from the previous year' in 2021 is from 2020, not 2019)."""
    if not 0 <= a <= b <= len(claimed):
        return False
    base = _BASE_YEAR.match(source, end, min(len(source), end + 60))
    if base is None:
        return False
    year = int(base.group(1))
    named = _BASE_YEAR.match(claimed, b, min(len(claimed), b + 60))
    if named is not None:
        return int(named.group(1)) != year
    if not _PREVIOUS_YEAR.match(claimed, b, min(len(claimed), b + 60)):
        return False
    years = [int(y) for y in _YEAR.findall(sentence_around(source, start, end) + source[end:base.end()])]
    return bool(years) and max(years) > year + 1


_QUALIFIERS = {axis: [(name, re.compile(r"\b(?:" + "|".join(patterns) + r")\b")) for name, patterns in values.items()]
               for axis, values in vocabulary.FIGURE_QUALIFIERS.items()}
_QUALIFIERS_BY_NAME = {name: pattern for rows in _QUALIFIERS.values() for name, pattern in rows}
_FIGURE_TOKEN = re.compile(r"[$€£¥]?\d[\d,.]*")
_PART_STOP = re.compile(r"[,;:!?](?=\s)|\.(?=\s|$)")
_JOINER = re.compile(r"(?i)\b(?:and|or|while|whereas|but|versus|vs|compared\s+(?:to|with))\b")
_RANGE_JOIN = re.compile(r"(?i)[%\s]*(?:percent\s+)?(?:to|and|-|–|through)\s*")
# a clause that continues the one before it: a participle ('growing 10.1%', 'representing growth of 4.8%') or a
# relative clause ('which represents growth of 10.2%'), not a clause with a subject of its own
_CONTINUES = re.compile(r"(?i)\s*(?:(?:which|that)\s+(?:would\s+|will\s+)?[a-z]+\b"
                        r"|(?!(?:during|nothing|something|anything|everything|morning|evening|spring)\b)[a-z]{3,}ing\b)")


def _named_qualifiers(text: str) -> dict[str, frozenset[str]]:
    low = text.lower()
    named = {axis: frozenset(name for name, pattern in rows if pattern.search(low)) for axis, rows in _QUALIFIERS.items()}
    return {axis: names for axis, names in named.items() if names}


def figure_qualifiers(text: str, start: int, end: int, lo: int, hi: int, *, claimed: bool = False
                      ) -> dict[str, frozenset[str]]:
    """The qualifiers (vocabulary.FIGURE_QUALIFIERS) of the figure at [start, end) in the sentence [lo, hi) of
    `text`, axis by axis from the nearest words that name one: right after it (to the next figure or clause stop,
    past the other end of a range: '4.8% to 6.6% on a constant-currency basis'), before it back to the previous
    figure, back to its clause's start, then the sentence's leading clause ('Excluding these items, diluted
    earnings per share of $3.50'). A `claimed` figure's change from a named year is from that year alone (see
    `_compared_against`)."""
    region = text[end:hi]
    stop = _PART_STOP.search(region)
    cut = stop.start() if stop else len(region)
    figure = _FIGURE_TOKEN.search(region, 0, cut)
    if figure and _RANGE_JOIN.fullmatch(region, 0, figure.start()):
        nxt = _FIGURE_TOKEN.search(region, figure.end(), cut)
        after = region[figure.end():nxt.start() if nxt else cut]
    else:
        after = region[:figure.start() if figure else cut]
    after = _JOINER.split(after, maxsplit=1)[0]  # '41.5% and operating margin was 18.2%': 'operating' is the next's
    stops = [m.end() for m in _PART_STOP.finditer(text, lo, start)]
    clause = stops[-1] if stops else lo
    figures = list(_FIGURE_TOKEN.finditer(text, clause, start))
    # its own words since the previous figure's ('10.2% on a reported basis and 11.6%': 'reported' is the 10.2%'s)
    own = text[figures[-1].end() if figures else clause:start]
    joined = list(_JOINER.finditer(own))
    tiers = [after, own[joined[-1].end():] if joined else own, text[clause:figures[0].start() if figures else start]]
    first = _PART_STOP.search(text, lo, start)
    if first and not _FIGURE_TOKEN.search(text, lo, first.start()):
        tiers.append(text[lo:first.start()])
    if _CONTINUES.match(text, clause, start) and stops:
        # ', growing 10.1% to 12.8%' and ', which represents growth of 10.2% to 13.5%' continue the clause before
        # them ('EPS is expected to be between $2.40 and $2.46'): its qualifiers are theirs where their own name none
        earlier = [m.end() for m in _PART_STOP.finditer(text, lo, stops[-1] - 1)]
        tiers.append(text[earlier[-1] if earlier else lo:stops[-1]])
    found: dict[str, frozenset[str]] = {}
    against = _compared_against(text, start, end, lo, hi, claimed=claimed)
    if against:
        found["comparison"] = against
    for tier in tiers:
        for axis, names in _named_qualifiers(tier).items():
            found.setdefault(axis, names)
    return found


def _compared_against(text: str, start: int, end: int, lo: int, hi: int, *, claimed: bool) -> frozenset[str]:
    """The comparison qualifier of a change measured from what the words right after it name. A named year ('up 20%
    compared to 2019', '16.3% from 2019 levels'): that year; for a source figure also the year-over-year comparison
    (the year may be the one before the call's) unless its sentence [lo, hi) tells the two apart, by a change of
    another figure stated year over year ('up 28% year-over-year and 20% compared to 2019') or by a later year than
    the one after the base ('in 2021 ... 16.3% from 2019'); a claim that names the year says which base it means. A
    quarter named without a year ('60 basis points from the first quarter', 'higher than Q2'): that quarter, which is
    the quarter before or another, never the year-ago one. Otherwise what the comparison's words name ('versus the
    prior-year quarter', 'compared to the linked quarter'): a comparison that follows a figure is the figure's own,
    not the next figure's. Empty when no comparison follows the figure."""
    limit = min(hi, end + 60)
    base = _BASE_YEAR.match(text, end, limit)
    if base is not None:
        year = int(base.group(1))
        named = frozenset({f"against {year}"})
        if claimed:
            return named
        rest = text[lo:start] + " " + text[base.end():hi]
        later = any(int(y) > year + 1 for y in _YEAR.findall(rest))
        if later or _QUALIFIERS_BY_NAME["year-over-year"].search(rest.lower()):
            return named
        return named | {"year-over-year"}
    quarter = _BASE_QUARTER.match(text, end, limit)
    if quarter is not None:
        return frozenset({f"against {_quarter_key(quarter)}", "sequential"})
    phrase = _COMPARED_AFTER.match(text, end, limit)
    if phrase is None:
        return frozenset()
    words = _PART_STOP.split(text[phrase.end():limit], maxsplit=1)[0]
    figure = _FIGURE_TOKEN.search(words)
    return _named_qualifiers(words[:figure.start()] if figure else words).get("comparison", frozenset())


# a comparison right after a figure ('up 3% versus the prior-year quarter', '60 basis points higher than Q2')
_COMPARED = r"\s*(?:,\s*)?(?:[a-z]+\s+){0,2}?(?:from|over|versus|vs\.?|compared\s+(?:to|with)|than|against|above|below)\s+"
_COMPARED_AFTER = re.compile(r"(?i)" + _COMPARED)
# a quarter named by its ordinal word (group 1) or digit (group 2), and what places it in the year before
_QUARTER_NAMED = r"(?:(first|second|third|fourth)[-\s]quarter|q([1-4]))\b"
_OF_YEAR_BEFORE = r"(?:the\s+)?(?:last|prior|previous|preceding)\s+year|a\s+year"
_BASE_QUARTER = re.compile(
    r"(?i)" + _COMPARED + r"(?:the\s+)?" + _QUARTER_NAMED +
    r"(?!\s*(?:,\s*)?(?:of\s+)?(?:(?:fiscal\s+|calendar\s+|the\s+)?(?:19|20)\d\d|'\d\d|" + _OF_YEAR_BEFORE + r"))")


def _quarter_key(m: re.Match[str]) -> str:
    """'Q2' for a match of `_QUARTER_NAMED` (its ordinal word, 'second', or its digit)."""
    return ORDINAL_QUARTER[m.group(1).lower()] if m.group(1) else f"Q{m.group(2)}"


def _claim_qualifiers(claim: ClaimRecord, q: Quantity) -> dict[str, frozenset[str]]:
    text = claim.claim
    at, end = q.start - claim.start, q.end - claim.start
    if not 0 <= at <= end <= len(text):
        return {}
    after = _SENTENCE_BREAK.search(text, end)
    return figure_qualifiers(text, at, end, sentence_start(text, at), after.start() if after else len(text),
                             claimed=True)


def _source_qualifiers(loaded: LoadedFile, start: int, end: int) -> dict[str, frozenset[str]]:
    a, b = loaded.line_span(loaded.line_of(start))
    text = loaded.text
    after = _SENTENCE_BREAK.search(text, end, b)
    return figure_qualifiers(text, start, end, max(a, sentence_start(text, start)), after.start() if after else b)


def qualified_apart(claimed: dict[str, frozenset[str]], stated: dict[str, frozenset[str]]) -> bool:
    """Do the two figures carry different qualifiers of one axis ('adjusted' and 'GAAP', 'diluted' and 'basic')?"""
    return any(axis in stated and not names & stated[axis] for axis, names in claimed.items())


def _same_figure(
    own: FigureSubject, loaded: LoadedFile, start: int, end: int, window: str, *, dated: bool, quarters: set[str],
) -> bool:
    """May the prose source figure at [start, end), in the sentence `window`, be the claimed figure whose own
    clause says `own`? Not when the sentence shares no subject word or metric with that clause ('the capital
    ratio was 6.35%' by 'the net interest margin was 6.35%'), when the figure's own clause names only other
    metrics ('earnings per share of $192.6 million' by 'net earnings of $192.6 million'), or when the figure is
    a comparison base the claim does not call one ('EPS of $2.40' by 'up 40.6% from last year's $2.40') nor
    states for the base's own period: `dated` ('18.3% for 2018' for a 2018 claim) or one of the claim's
    `quarters` named right after it ('compared with $946 million in the second quarter'; the quarter its
    sentence opens with is the other figure's)."""
    if own.keys and not (own.keys & subject_keys(window) or own.metrics & metrics_of(window)):
        return False
    return _about_figure(own, loaded, start, end, dated=dated, quarters=quarters)


def _about_figure(own: FigureSubject, loaded: LoadedFile, start: int, end: int, *, dated: bool, quarters: set[str]) -> bool:
    """The paraphrase-mode half of `_same_figure`, which alone applies on a long transcript line (where the
    sentence around a figure holds many subjects): the source figure's own clause must not name only other metrics,
    nor state a per-share amount for a whole one, nor the amount of another thing, nor a comparison base the claim
    does not call one."""
    stated = stated_metrics(loaded, start, end)
    if own.metrics and stated and not own.metrics & stated:
        return False
    if not own.per_share and _PER_SHARE.match(loaded.text, end, min(len(loaded.text), end + 40)):
        return False  # 'earned $6.78' by '$6.78 per diluted common share'
    if own.named == {"eps"} and "eps" not in stated and not _stated_per_share(loaded.text, end):
        return False  # 'EPS rose 28%' by 'pre-owned units were up 28%': a figure of EPS alone by one stated for EPS
    if per_share_apart(own, loaded, start, end):
        return False  # 'earnings per share of $55.4 million' by 'net earnings ... increased $55.4 million'
    if not own.named and own.own_keys and stated and not own.own_keys & subject_keys(source_clause(loaded, start, end)):
        # 'raw material cost increases exceeding 21%' by 'adjusted EBITDA was up 21%': a figure whose own words name a
        # subject of their own takes no metric from its clause's start ('Adjusted EBITDA guidance ... despite'), and a
        # source figure stated for a metric is no evidence for it unless its clause shares a word of that subject
        return False
    if things_apart(own, loaded, start, end):
        return False
    return not base_apart(own, loaded, start, end, dated=dated, quarters=quarters)


def things_apart(own: FigureSubject, loaded: LoadedFile, start: int, end: int) -> bool:
    """Is the source figure an amount of things, or a change in a thing, that the claimed figure's own clause never
    names? '$40 million of previous provisions' by '$40 million of net charge-offs'; 'net interest income was $40
    million' by the same; 'unit net orders rose 70%' by 'driven by a 70% increase in our monthly absorption rate'. And
    the reverse: a claimed change in a thing ('a 73% increase in the absorption rate') by a figure whose own clause
    names other things ('unit net orders increased by 73%')."""
    text = loaded.text
    stated_of = _of_what(text[end:min(len(text), end + 60)])
    if stated_of:
        return bool(own.of_what or own.keys) and not _same_things(own.of_what or own.keys, stated_of)
    clause = subject_keys(source_clause(loaded, start, end)) - _NOT_A_SUBJECT
    return bool(own.of_what) and bool(clause) and not _same_things(own.of_what, frozenset(clause))


_PERCENT_SIGN = re.compile(r"(?i)\s?(?:%|percent\b)?")
# what a change is in, named right after it ('a 70% increase in our monthly absorption rate'); not the 'of ...' of any
# amount (`_OF_WHAT`: '7-8 hours of sleep')
_CHANGE_IN = re.compile(r"(?i)\s*(?:increase|decrease|growth|decline|rise|drop|gain|improvement|reduction|jump)s?\s+in"
                        r"\s+(?:(?:the|our|its|their|this|that)\s+)?(.+)")


def _change_in(text: str, end: int) -> frozenset[str]:
    """The subject stems of what the change whose figure ends at `end` is in, named right after it, if any."""
    after = _PERCENT_SIGN.match(text, end).end()
    m = _CHANGE_IN.match(_AFTER_STOP.split(text[after:min(len(text), after + 60)], maxsplit=1)[0])
    return frozenset(subject_keys(m.group(1)) - _NOT_A_SUBJECT) if m else frozenset()


def another_s_change(own: FigureSubject, loaded: LoadedFile, start: int, end: int) -> bool:
    """Is the claimed figure's subject, in the source figure's sentence, another figure's: what another figure's change
    is in ('driven by a 70% increase in our monthly absorption rate') while the figure's own clause names other things
    ('unit net orders increased by 73%'), or what another figure's clause names while this figure is a change in other
    things ('unit net orders rose 70%' by 'unit net orders increased by 73%, driven by a 70% increase in our monthly
    absorption rate')?"""
    subject = own.of_what or own.own_keys or own.keys
    if not subject:
        return False
    text = loaded.text
    stated_in = _change_in(text, end)
    own_clause = stated_in
    if not stated_in:
        # its own words, past the previous figure's 'per diluted share' ('$3.85 per diluted share increased $61.2
        # million'); a clause that names nothing else is about its sentence's subject
        clause = source_clause(loaded, start, end)
        opening = _A_SHARE.match(clause)
        own_clause = frozenset(subject_keys(clause[opening.end():] if opening else clause) - _NOT_A_SUBJECT)
    if not own_clause or _same_things(subject, own_clause):
        return False
    a, b = loaded.line_span(loaded.line_of(start))
    for m in _other_figures(text, start, a, b):
        theirs = _change_in(text, m.end()) or (frozenset(
            subject_keys(source_clause(loaded, m.start(), m.end())) - _NOT_A_SUBJECT) if stated_in else frozenset())
        if theirs and _same_things(subject, theirs):
            return True
    return False


def per_share_apart(own: FigureSubject, loaded: LoadedFile, start: int, end: int) -> bool:
    """Is the claimed figure an amount per share (by its own words: '$3.85 per diluted share', 'EPS of $3.85') and
    the source figure not one? A per-share amount is backed only by a source figure followed by 'per (diluted)
    share' or stated as earnings per share or a dividend ('EPS, $3.85'): the same digits as a whole amount
    ('net earnings ... increased $55.4 million') are another figure."""
    if not own.a_share or _stated_per_share(loaded.text, end):
        return False
    # 'diluted earnings per common share of $1.04': 'per ... share' or EPS in its own clause (not the 'per diluted
    # share' the clause opens with, the previous figure's: '$3.85 per diluted share increased $61.2 million')
    clause = source_clause(loaded, start, end)
    opening = _A_SHARE.match(clause)
    clause = clause[opening.end():] if opening else clause
    return not (stated_metrics(loaded, start, end) & _PER_SHARE_METRICS or _SHARE_NAMED.search(clause))


def _stated_per_share(text: str, end: int) -> bool:
    """Is the source figure ending at `end` followed by 'per (diluted) share', itself or past the other end of its
    range ('$1.20 to $1.30 per diluted share'; '$61.2 million or $1.12 per share' is a whole amount restated per
    share)?"""
    if _A_SHARE.match(text, end, min(len(text), end + 40)):
        return True
    other = _OTHER_END.match(text, end, min(len(text), end + 60))
    return other is not None and _A_SHARE.match(text, other.end(), min(len(text), other.end() + 40)) is not None


_OTHER_END = re.compile(r"(?i)\s*(?:-|–|to)\s*[$€£¥]?\d[\d,]*(?:\.\d+)?")
# a price of stock is per share ('Common Stock Price Range 2018' over 'Low | High', 'Share price')
_SHARE_NAMED = re.compile(r"(?i)\bper\s+(?:[a-z]+\s+){0,2}?shares?\b|\beps\b|\b(?:stock|share)\s+prices?\b")


def count_apart(own: FigureSubject, loaded: LoadedFile, start: int, end: int) -> bool:
    """Is the source figure a count of the same thing for another event ('acquire 12 stores' by 'we plan to open ...
    12 new stores in 2022')? A count is told apart by what happens to the things counted, not by the things: when
    the source figure's own clause counts the claim's noun, the words of the claimed count's own phrase other than
    that noun ('announced an agreement to acquire') must share a stem with the clause's other words, when both
    have some."""
    if own.counted is None:
        return False
    event = own.own_keys - {own.counted}
    clause = subject_keys(source_clause(loaded, start, end)) - _NOT_A_SUBJECT
    if not event or own.counted not in clause:
        return False
    theirs = clause - {own.counted}
    listed = _LISTED_COUNT.search(loaded.text, max(0, start - 60), start)
    if listed and theirs <= {subject_stem(listed.group(1).lower())}:
        # '(we operated) 12 stores in 5 countries': a count after another count's noun shares that count's verb
        sentence = loaded.text[sentence_start(loaded.text, start):start]
        theirs |= subject_keys(sentence) - _NOT_A_SUBJECT - _MONTH_STEMS - {own.counted}
    return bool(theirs) and not event & theirs


def counted_words(text: str, end: int) -> frozenset[str] | None:
    """The stems of the words a whole number ending at `end` counts ('12 new stores': 'new', 'store'; '3 marigold
    seedlings': 'marigold', 'seedling'), or None where no plural noun follows it (`COUNTED_NOUN`)."""
    m = vocabulary.COUNTED_NOUN.match(text, end)
    if m is None:
        return None
    return frozenset(subject_stem(w) for w in m.group().lower().split() if w not in STOPWORDS)


def other_noun_counted(claim: ClaimRecord, q: Quantity, loaded: LoadedFile, start: int, end: int) -> bool:
    """Is the source figure a count of other things than the claimed count's, things its clause does not name
    ('acquire 130 stores' by 'targeting over 130 total locations'; '3 marigold seedlings' and '3 marigolds' count one
    thing)? Only a source number right before its noun counts (`COUNTED_NOUN`), not one after a colon or in a range
    ('Romans 12:17', 'ages 19-30', '2-3 digit numbers')."""
    if not counts_a_noun(claim.claim, q, claim.start):
        return False
    claimed = counted_words(claim.claim, q.end - claim.start)
    text = loaded.text
    if not claimed or text[start - 1:start] in (":", "-", "\u2013") or text[end:end + 1] in (":", "-", "\u2013"):
        return False
    stated = counted_words(text, end)
    return stated is not None and not stated & claimed and not claimed & subject_keys(source_clause(loaded, start, end))


# a count right after another count's noun and a preposition ('12 stores in 5 countries'): the group is that noun
_LISTED_COUNT = re.compile(r"\d\s+([A-Za-z]+)\s+(?:in|across|at|over|from)\s+$")
_MONTH_STEMS = frozenset(subject_stem(m) for m in vocabulary.MONTH_NAMES)


# An amount a figure moved by ('net earnings ... increased $55.4 million or $1.01 per share'): the change verb right
# before it, past a first amount it restates ('or'); 'increased 12% to $3.50' states the level reached, not a move
_MOVED_BY = re.compile(
    r"(?i)\b(?:" + "|".join(vocabulary.move_verbs("moved_by")) + r")\s+(?:by\s+)?"
    r"(?:(?:approximately|about|nearly|almost|roughly)\s+)?(?:[$€£¥]?\s?\d[\d,.]*" + _SCALE_WORD
    + r"(?:\s+per\s+(?:[a-z]+\s+)?share)?\s+or\s+)?[$€£¥]?\s?$")
# 'earnings per share of $3.50': a figure named by '<metric> of' is the metric's level; 'a rise of $1.01' is a move
_LEVEL_OF = re.compile(r"(?i)\b([a-z][a-z-]*)\s+of\s+(?:approximately\s+|about\s+|nearly\s+)?[$€£¥]?\s?$")
_MOVE_NOUNS = frozenset("""increase increases decrease decreases rise rises growth gain gains decline declines drop
    drops improvement change changes jump reduction reductions expansion contraction swing""".split())


def change_apart(claim: ClaimRecord, q: Quantity, source: str, start: int) -> bool:
    """Is the source amount one a figure moved by ('increased $55.4 million or $1.01 per share', `_MOVED_BY`) and the
    claimed amount a level by its own words ('earnings per share of $1.01')? A change is no evidence for the level
    of the same metric, whatever its digits."""
    at = q.start - claim.start
    if q.kind != "currency" or not 0 <= at <= len(claim.claim):
        return False
    level = _LEVEL_OF.search(claim.claim, max(0, at - 60), at)
    if level is None or level.group(1).lower() in _MOVE_NOUNS:
        return False
    return _MOVED_BY.search(source, max(0, start - 80), start) is not None


def base_apart(
    own: FigureSubject, loaded: LoadedFile, start: int, end: int, *, dated: bool, quarters: set[str],
) -> bool:
    """Is the source figure a comparison base, the earlier period's value ('up from $5.52', '$64.2 million a year
    ago'), that the claim does not call one? A base backs only a claim that names a comparison or an earlier period
    in its figure's own clause (`FigureSubject.compared`), or states the figure for the base's own period: `dated`
    ('18.3% for 2018' for a 2018 claim) or one of the claim's `quarters` named right after the base ('compared with
    $946 million in the second quarter'; a year named there is left to `dated`). This holds for every claimed figure,
    whatever metric its clause names: a base is the wrong period's value of the same thing."""
    if dated or own.compared or not comparison_base(loaded, start, end):
        return False
    after = _CLAUSE_BREAK.search(loaded.text, end, min(len(loaded.text), end + 80))
    named = loaded.text[end:after.start() if after else end + 80]
    # 'a loss of $1.46 in the first quarter 2020' is the year-ago quarter's, and so is '$0.86 per diluted share in
    # last year's Q2' or 'in Q2 of last year': the claim's quarter of this year is not named there; but 'up from
    # $3.41 in the second quarter of 2021' beside '$3.69 for the third quarter of 2021' is the quarter before's, of
    # the same year, and backs a claim about that quarter
    if _YEAR_BEFORE.search(named) or not quarters & _quarters(named):
        return True
    return _YEAR.search(named) is not None and not sequential_base(loaded, start, end)


# words that place a quarter in the year before ('last year's Q2', 'Q2 of the prior year', 'the year-ago quarter')
_YEAR_BEFORE = re.compile(r"(?i)\b(?:last|prior|previous|preceding)[-\s]year\b|\byear[-\s]ago\b|\ba\s+year\s+(?:ago|earlier)\b")


_YEAR = re.compile(r"\b(?:19|20)\d\d\b")


# the quarter a figure is stated for by the words right after it ('$3.41 in the second quarter of 2021', '$0.21 in Q1')
_QUARTER_AFTER = re.compile(
    r"(?i)\s*(?:per\s+(?:[a-z]+\s+){0,2}?share\s+)?(?:,\s*)?(?:for|in|during)\s+(?:the\s+)?"
    + _QUARTER_NAMED + r"(?:\s*(?:,\s*)?(?:of\s+)?(?:fiscal\s+)?((?:19|20)\d\d)\b)?"
    r"(?!\s*(?:,\s*)?(?:of\s+)?(?:" + _OF_YEAR_BEFORE + r"))")


def attached_quarter(text: str, end: int) -> tuple[str, int | None] | None:
    """The quarter (and its year, when named) that the words right after a figure state it for, or None."""
    m = _QUARTER_AFTER.match(text, end, min(len(text), end + 60))
    if m is None:
        return None
    return _quarter_key(m), int(m.group(3)) if m.group(3) else None


def year_ago_quarter(loaded: LoadedFile, start: int, end: int) -> bool:
    """Is the prose source figure stated for a quarter of a year ('$2.75 in the third quarter of 2020') whose sentence
    states another figure for the same quarter of a later year ('EPS were $3.69 for the third quarter of 2021,
    improved from $3.41 in the second quarter of 2021 and $2.75 in the third quarter of 2020')? It is that later
    figure's year-ago base, though no comparison word stands right before it."""
    return _quarter_beside(loaded, start, end, lambda mine, other: other[0] == mine[0] and other[1] > mine[1])


def sequential_base(loaded: LoadedFile, start: int, end: int) -> bool:
    """Is the prose source figure stated for a quarter of a year ('from $3.41 in the second quarter of 2021') in a
    sentence that states another figure for another quarter of that year ('$3.69 for the third quarter of 2021')?"""
    return _quarter_beside(loaded, start, end, lambda mine, other: other[0] != mine[0] and other[1] == mine[1])


def _quarter_beside(loaded: LoadedFile, start: int, end: int,
                    related: Callable[[tuple[str, int], tuple[str, int]], bool]) -> bool:
    """Is the prose source figure stated for a quarter and year, and another figure of its sentence for a quarter
    and year `related` to those ((quarter, year) of the figure, of the other)?"""
    text = loaded.text
    mine = attached_quarter(text, end)
    if mine is None or mine[1] is None:
        return False
    a, b = loaded.line_span(loaded.line_of(start))
    for m in _other_figures(text, start, a, b):
        other = attached_quarter(text, m.end())
        if other is not None and other[1] is not None and related((mine[0], mine[1]), (other[0], other[1])):
            return True
    return False


def quarter_apart(claimed: str, b: int, source: str, end: int) -> bool:
    """Do the claimed and the source figure each name the quarter they are stated for, right after them, and name
    different ones ('EPS of $3.41 for the third quarter of 2021' by 'improved from $3.41 in the second quarter of
    2021')? Two years named must be the same too."""
    mine = attached_quarter(claimed, b) if 0 <= b <= len(claimed) else None
    theirs = attached_quarter(source, end) if mine is not None else None
    if mine is None or theirs is None:
        return False
    return mine[0] != theirs[0] or (mine[1] is not None and theirs[1] is not None and mine[1] != theirs[1])


# the two ends of a move: the figure it starts from and the one it reaches ('raised our outlook from at least $6 to
# approximately $7.50', 'increased our cash to $150 million'); a 'to' right after a figure of the same unit is a range
_HEDGE = r"(?:(?:at\s+least|at\s+most|approximately|about|roughly|nearly|around|almost|over|under|a\s+record|an?)\s+)?"
_FROM_END = re.compile(r"(?i)\bfrom\s+" + _HEDGE + r"[$€£¥]?\s*$")
_TO_END = re.compile(r"(?i)(?<![\d%])(?<!\d\s)(?<!million\s)(?<!billion\s)(?<!thousand\s)\bto\s+" + _HEDGE + r"[$€£¥]?\s*$")
_MOVE_BEFORE = re.compile(r"(?i)\b(?:" + "|".join(vocabulary.move_verbs("base")) + r"|from|raised|lowered|cut|increasing|"
                          r"decreasing|rising|falling|growing|declining|bringing|brought|taking|took)\b")


def move_end(text: str, start: int) -> str | None:
    """Which end of a move the figure at `start` is, by the words right before it: 'from' ('from at least $6'), 'to'
    ('increased ... to $150 million', after a verb of moving in its sentence), or None."""
    lo = max(0, start - 40)
    if _FROM_END.search(text, lo, start):
        return "from"
    to = _TO_END.search(text, lo, start)
    if to is not None and _MOVE_BEFORE.search(text, max(sentence_start(text, start), to.start() - 120), to.start()):
        return "to"
    return None


def move_end_apart(claimed: str, a: int, source: str, start: int) -> bool:
    """Is the claimed figure one end of a move and the source figure the other ('raised the outlook from at least
    $7.50 to approximately $6' by 'from at least $6 to approximately $7.50')? A source figure that is neither end
    is no evidence for a claimed end when its sentence states that end for another figure ('increased our cash to
    $494.3 million' by 'drew $494.3 million ..., which increased our cash ... to $150 million')."""
    if not 0 <= a <= len(claimed):
        return False
    mine = move_end(claimed, a)
    if mine is None:
        return False
    theirs = move_end(source, start)
    if theirs is not None:
        return theirs != mine
    return any(move_end(source, m.start()) == mine for m in _other_figures(source, start, 0, min(len(source), start + 300)))


_MEASURED_FROM = frozenset({"from", "over", "than", "since", "versus", "vs", "against", "compared"})


def later_apart(claim: ClaimRecord, q: Quantity, loaded: LoadedFile, start: int, end: int, *, dated: bool) -> bool:
    """Is the claimed figure an earlier period's by the words right after it ('$512 million in the linked quarter',
    '$0.86 in last year's Q2', '$83.4 million in Q2 of last year'; vocabulary.BASE_AFTER) and the source figure the
    later one, no base itself beside a base its sentence states ('net interest income was $512 million in the second
    quarter, compared with $488 million in the linked quarter')? The reverse of `base_apart`: a comparison's two
    figures exchanged. A source figure stated for the period the claim names (`dated`) is left alone, and so is one
    whose sentence states no base: it may be any period's."""
    at = q.end - claim.start
    if dated or not 0 <= at <= len(claim.claim):
        return False
    after = claim.claim[at:]
    unit = _UNIT_WORD.match(after)
    if unit.group().strip().lower() in _MEASURED_FROM or _BASE_AFTER.match(after, unit.end()) is None \
            or comparison_base(loaded, start, end):
        return False  # '17% from a year ago' is a change measured from then, not then's figure
    a, b = loaded.line_span(loaded.line_of(start))
    return any(comparison_base(loaded, m.start(), m.end()) for m in _other_figures(loaded.text, start, a, b))


def _other_figures(text: str, start: int, a: int, b: int) -> Iterator[re.Match[str]]:
    """The figures other than the one at `start` of its sentence within [a, b) (years left out: '2019.' of
    'compared to 2019.' is a period, no figure)."""
    stop = _SENTENCE_BREAK.search(text, start, b)
    for m in _FIGURE_TOKEN.finditer(text, max(a, sentence_start(text, start)), stop.start() if stop else b):
        if m.start() != start and not _YEAR.fullmatch(m.group().rstrip(".,")):
            yield m


_YEAR_WORDS = r"(?:(?:the\s+)?(?:fiscal\s+(?:year\s+)?|FY\s*|year\s+|calendar\s+year\s+))?'?(?:19[5-9]\d|20\d\d)"
# a year's day, or the day a year ends on ('December 31, 2018', 'the year ended December 31, 2018', 'the fiscal year
# ending June 30, 2019'; not a quarter's or a half's end: 'the three months ended March 31, 2019' is no year)
_YEAR_DAY = (r"(?:(?:the\s+)?(?:fiscal\s+)?(?:years?|twelve\s+months|12\s+months)\s+end(?:ed|ing)\s+(?:on\s+)?)?"
             r"(?:" + "|".join(m.capitalize() for m in vocabulary.MONTH_NAMES) + r")\s+\d{1,2},\s+")
_PERIOD_AFTER = re.compile(
    r"(?i)\s*(?:\)\s*)?(?:per\s+[a-z]+\s+)?(?:,\s*)?(?:for|in|during|as\s+of|at\s+the\s+end\s+of|of)\s+"
    r"(?:(?:the\s+)?(?:first|second|third|fourth)\s+quarter\s+of\s+|Q[1-4]\s+|" + _YEAR_DAY + r")?"
    + _YEAR_WORDS + r"\b")
_PERIOD_BEFORE = re.compile(
    r"(?i)\b(?:for|in|during|as\s+of|at\s+the\s+end\s+of)\s+(?:" + _YEAR_DAY + r")?"
    + _YEAR_WORDS + r"\s*(?:,\s*)?(?:(?:was|were|is|of|totaled|totalled|amounted\s+to|reached|stood\s+at|came\s+to)\s+)?"
    r"(?:(?:approximately|about|nearly|an?|US)\s+)?[$€£¥]?\s*\(?$")


_PRIOR_YEAR_AFTER = re.compile(
    r"(?i)\s*(?:\)\s*)?(?:,\s*)?(?:(?:for|in|during|of)\s+(?:the\s+)?(?:prior|previous|preceding)\s+(?:fiscal\s+)?year"
    r"|(?:a|one)\s+year\s+(?:earlier|before|ago)|(?:in|for)\s+(?:the\s+same\s+period\s+(?:of\s+)?)?last\s+year)\b")


RESPECTIVELY = re.compile(r"(?i)\brespectively\b")
_LISTED_YEAR = re.compile(r"(?<![\d,.$])(?:19[5-9]\d|20\d\d)(?![\d%]|,\d)")
# (not the digits of a character reference, '&#x27;')
_LISTED_FIGURE = re.compile(r"(?<![\w#&])[$€£¥]?\(?-?\d[\d,]*(?:\.\d+)?\)?(?:\s?%|\s+percent\b)?")
# a captured file wraps long lines: one break is no end; a tag, the bounds of a JSON string and the break before a
# field of a trace file ('    text: ...') are (a table's cells above a paragraph are no figures of its list)
_CLAUSE_END = re.compile(r"[.!?;](?=\s)|\n\s*\n|<[^<>\n]*>|(?<!\\)\"\s*[:,\]}]\s*\"?"
                         r"|\n(?=[ \t]*[A-Za-z_][\w -]{0,40}:[ \t])")


def _clause(text: str, start: int, end: int) -> tuple[int, int]:
    """The bounds of the clause around [start, end): from the last '.', '!', '?', ';' or line break before it
    to the next one after it."""
    breaks = [m.end() for m in _CLAUSE_END.finditer(text, max(0, start - 400), start)]
    after = _CLAUSE_END.search(text, end, min(len(text), end + 400))
    return (breaks[-1] if breaks else max(0, start - 400)), (after.start() if after else min(len(text), end + 400))


def respective_period(text: str, start: int, end: int) -> frozenset[Period]:
    """The period of a figure in a 'respectively' list that pairs as many figures as years, in order ('11%, 12%,
    and 14% of total revenue in 2019, 2018, and 2017, respectively': 12% is 2018's); empty otherwise."""
    lo, hi = _clause(text, start, end)
    if not RESPECTIVELY.search(text, lo, hi):
        return frozenset()
    years = [(m.start(), int(m.group())) for m in _LISTED_YEAR.finditer(text, lo, hi)]
    spans = {a for a, _ in years}
    figures = [m.start() for m in _LISTED_FIGURE.finditer(text, lo, hi) if m.start() not in spans
               and any(ch.isdigit() for ch in m.group())]
    if len(years) < 2 or len(figures) != len(years) or start not in figures:
        return frozenset()
    return frozenset({(years[figures.index(start)][1], "")})


# what stands between two items of a list ('2017, 2018 and 2019'; '$4.1 million, $4.4 million, and $4.8 million'):
# a comma, 'and' or both, a figure's scale word before it
_LIST_GAP = re.compile(r"(?i)\s*(?:million|billion|thousand)?\s*(?:,\s*(?:and\s+)?|\s+and\s+|&\s*)(?:fiscal\s+|FY\s*)?")


def _runs(spans: list[tuple[int, int]], text: str) -> list[list[tuple[int, int]]]:
    """Items in order grouped into lists: runs of items only a list's gap (`_LIST_GAP`) apart."""
    runs: list[list[tuple[int, int]]] = []
    for a, b in spans:
        if runs and _LIST_GAP.fullmatch(text, runs[-1][-1][1], a):
            runs[-1].append((a, b))
        else:
            runs.append([(a, b)])
    return runs


def listed_years_period(text: str, start: int, end: int) -> frozenset[Period]:
    """The period of a figure in a list of as many figures as a list of years in its clause pairs, in order, without
    'respectively' ('In 2017, 2018 and 2019, revenue was $4.0 million, $4.4 million and $4.8 million': $4.4 million
    is 2018's); empty otherwise. Both must be lists (items a comma or 'and' apart) and the clause must name no other
    year: 'revenue of $5 million and net income of $2 million in 2018 and 2019' lists no figures."""
    lo, hi = _clause(text, start, end)
    years = [(m.start(), m.end()) for m in _LISTED_YEAR.finditer(text, lo, hi)]
    year_runs = _runs(years, text)
    if len(year_runs) != 1 or len(years) < 2:
        return frozenset()
    spans = {a for a, _ in years}
    figures = [(m.start(), m.end()) for m in _LISTED_FIGURE.finditer(text, lo, hi) if m.start() not in spans
               and any(ch.isdigit() for ch in m.group())]
    run = next((r for r in _runs(figures, text) if any(a == start for a, _ in r)), None)
    if run is None or len(run) != len(years):
        return frozenset()
    at = [a for a, _ in run].index(start)
    return frozenset({(int(text[years[at][0]:years[at][1]]), "")})


def claimed_period(claim: ClaimRecord, q: Quantity) -> frozenset[Period]:
    """The one period a claim's list states its figure `q` for (`paired_period`); empty otherwise."""
    return paired_period(claim.claim, q.start - claim.start, q.end - claim.start)


def paired_period(text: str, start: int, end: int) -> frozenset[Period]:
    """The one period a list of `text` pairs the figure at `start`..`end` with: by 'respectively'
    (`respective_period`) or by a list of years as long as the figure's list (`listed_years_period`); empty
    otherwise."""
    return respective_period(text, start, end) or listed_years_period(text, start, end)


# two years joined as the ends of a span or of a comparison ('from 2018 to 2019', 'between 2018 and 2019', '2017-2019',
# '2019 compared to 2018'): the claim compares them, it lists no period for each figure
_YEARS_JOINED = re.compile(
    r"(?i)\b(?:from|between)\s+(?:fiscal\s+(?:years?\s+)?|FY\s*)?(?:19|20)\d\d\s+(?:to|and|through)\b"
    r"|\b(?:19|20)\d\d\s*[-\u2013]\s*(?:19|20)?\d\d\b|\b(?:compared|versus|vs)\b")


def listed_period(claim: ClaimRecord, q: Quantity) -> frozenset[Period]:
    """The one period a claim's 'respectively' list states the figure `q` for, where the claim lists its years one
    per figure ('15%, 57% and 53% in 2017, 2018 and 2019, respectively': 15% is 2017's, see `respective_period`);
    empty otherwise, and where two of its years are the ends of a span or a comparison ('the changes in X and Y
    from 2018 to 2019 were 5 and 7, respectively' lists rows, not periods)."""
    paired = claimed_period(claim, q)
    return paired if paired and not _YEARS_JOINED.search(claim.claim) else frozenset()


def listed_subject(claim: ClaimRecord, q: Quantity) -> ClaimSubject:
    """The claim's subject as the figure `q` is stated for it: with the one period the claim's list pairs it with
    (see `listed_period`), else with every period the claim names. A listed figure is its own period's: computed,
    it is computed from that period's figures (and the period before, the base of a change), never from the other
    periods the list names."""
    subject = claim_subject(claim)
    paired = listed_period(claim, q)
    return replace(subject, periods=paired) if paired else subject


def respective_rows(claim: ClaimRecord, q: Quantity, subject: ClaimSubject, index: SourceIndex
                    ) -> tuple[tuple[int, str, str], frozenset[tuple[int, str, str]]] | None:
    """The row of a figure in a 'respectively' list that pairs as many rows as figures, in order ('the rates for
    Japanese Yen and South Korean Won ... were 110.43 and 1,100.50, respectively': 110.43 is the Japanese Yen row's),
    with every row of the list; None when the claim pairs no rows so. The rows are those of one table the claim
    names in full (see `row_named`) with a cell in its periods, none a part of another's name, in the order the
    claim names them."""
    if not RESPECTIVELY.search(claim.claim):
        return None
    figures = sorted(o.start for o in claim.quantities)
    if len(figures) < 2 or q.start not in figures or respective_period(claim.claim, q.start - claim.start,
                                                                       q.end - claim.start):
        return None
    rows: dict[tuple[int, str, str], frozenset[str]] = {}
    for o in subject_cells(claim, index, subject, limit=200):
        label = index.label(o)
        if label is not None and row_named(subject, label):
            rows.setdefault((o.file, label.row, label.section), row_stems(label))
    rows = {k: v for k, v in rows.items() if not any(v < w for w in rows.values())}
    if len({f for f, _, _ in rows}) != 1 or len(rows) != len(figures):
        return None
    words = [(m.start(), subject_stem(m.group().lower())) for m in re.finditer(r"[A-Za-z][A-Za-z'-]*", claim.claim)]
    first = {k: min((at for at, w in words if w in stems), default=-1) for k, stems in rows.items()}
    if -1 in first.values() or len(set(first.values())) != len(first) or max(first.values()) > figures[0] - claim.start:
        return None
    order = sorted(rows, key=first.__getitem__)
    return order[figures.index(q.start)], frozenset(order)


def clause_outnamed(loaded: LoadedFile, start: int, end: int, keys: set[str]) -> bool:
    """Is the source figure in one of several ';' clauses of a 'respectively' sentence, and does the claim name
    words only another clause has and none only its own has? ('revenue from sales into Taiwan accounted for 13%,
    9% ...; revenue from sales into the United States accounted for 11%, 12% ..., respectively': the 12% is the
    United States', not Taiwan's.) The clauses' words are read once a figure (`per_figure`)."""
    if not keys:
        return False
    clauses = per_figure(loaded, _respective_clause_keys, start, end)
    if clauses is None:
        return False
    mine, theirs = clauses
    return not (keys & mine) and bool(keys & theirs)


def _respective_clause_keys(loaded: LoadedFile, start: int, end: int
                            ) -> tuple[frozenset[str], frozenset[str]] | None:
    """The subject stems only the figure's own ';' clause of a 'respectively' sentence has, and those only its
    other clauses have (`clause_outnamed`); None where the figure's clause is no such clause."""
    text = loaded.text
    lo, hi = _clause(text, start, end)
    if not RESPECTIVELY.search(text, lo, hi):
        return None
    sentence_lo = max([m.end() for m in SENTENCE_END.finditer(text, max(0, lo - 2000), lo)] or [max(0, lo - 2000)])
    stop = SENTENCE_END.search(text, hi, min(len(text), hi + 2000))
    sentence = text[sentence_lo:stop.start() if stop else min(len(text), hi + 2000)]
    own_at = lo - sentence_lo
    clauses = [(m.start(), subject_keys(m.group())) for m in re.finditer(r"[^;]+", sentence)]
    if len(clauses) < 2:
        return None
    own = next((k for at, k in reversed(clauses) if at <= own_at + 1), None)
    if own is None:
        return None
    others = [k for _, k in clauses if k is not own]
    mine = own - set().union(*others)
    theirs = {w for k in others for w in k - own}
    return frozenset(mine), frozenset(theirs)


# a sentence ends at a full stop before a space, the text's end or closing markup ('respectively.</p>' of an HTML
# page: the next paragraph is another sentence), or at a blank line
SENTENCE_END = re.compile(r"[.!?](?=\s|$|<[/A-Za-z])|\n\s*\n")


def _quarters(text: str) -> set[str]:
    return {key for _, _, key in quantities.period_mentions(text) if key.startswith("Q")}


# a full stop ends a sentence before a space, or before closing markup ('2018.</p><p>', '2018.**', '2018." '): a
# period named in one paragraph of a web page dates no figure of the next
_SENTENCE_BREAK = re.compile(r"[.!?;](?=\s|<[/A-Za-z]|[*_\"\u201d\u2019)]+(?:\s|<|$))|\n\s*\n")
_CLAUSE_BREAK = re.compile(r"[,.!?;](?=\s)|\n\s*\n")


def sentence_quarters(text: str, start: int, end: int) -> set[str]:
    """The quarters ('Q2' for 'the second quarter', '2Q', 'Q2 2021') a prose figure is stated for: those
    its sentence names up to the end of the figure's own clause ('In the third quarter, net income was $50
    million', 'revenue in Q2 was $260 million, up from $240 million in Q1' is Q2 for the $260 million). A
    figure stated for other quarters only is not the figure of the claim's quarter."""
    return _quarters(sentence_around(text, start, end))


def figure_periods(loaded: LoadedFile, start: int, end: int) -> frozenset[Period]:
    """`prose_periods` of a source figure, read once a figure (`per_figure`)."""
    return per_figure(loaded, _prose_periods_of, start, end)


def _prose_periods_of(loaded: LoadedFile, start: int, end: int) -> frozenset[Period]:
    return prose_periods(loaded.text, start, end)


def _figure_quarters(loaded: LoadedFile, start: int, end: int) -> frozenset[str]:
    """`sentence_quarters` of a source figure (`per_figure`'s key)."""
    return frozenset(sentence_quarters(loaded.text, start, end))


def prose_periods(text: str, start: int, end: int) -> frozenset[Period]:
    """The period a figure of prose is stated for, by the words attached to it: '18.3% for 2018', 'in 2019
    was 13.0%', '$2.1 billion as of December 31, 2019'; empty when no period is attached (a year further
    away may be any figure's). A figure of a list is its own year's of the list its clause pairs it with
    ('$4.0 million, $4.4 million and $4.8 million in 2017, 2018 and 2019': $4.8 million is 2019's, not 2017's)."""
    paired = paired_period(text, start, end)
    if paired:
        return paired
    after = _PERIOD_AFTER.match(text, end, min(len(text), end + 60))
    before = _PERIOD_BEFORE.search(text, max(0, start - 60), start) if after is None else None
    attached = after or before
    if attached is not None:
        # 'in the second quarter ... in fiscal 2018 was $1.7 million': the year's quarters its sentence names
        return within_year(periods_in(attached.group()), sentence_around(text, start, end))
    named = _that_year(text, start, end) or _opening_period(text, start, end) or move_period(text, start, end)
    if named:
        return named
    if _PRIOR_YEAR_AFTER.match(text, end, min(len(text), end + 60)):
        # '21,189 compared to 21,417 for the prior year' in a sentence about fiscal 2019: the year before the one
        # its sentence names (when it names one year)
        named = {year for year, part in periods_in(text[statement_start(text, start):start]) if not part}
        if len(named) == 1:
            return frozenset({(named.pop() - 1, "")})
    return frozenset()


# 'for that year' after a figure: the year its sentence named last before it ('fiscal 2018 ROIC of 16.1% reflects an
# Economic Return of 6.6%, based on our weighted average cost of capital of 9.5% for that fiscal year')
_THAT_YEAR_AFTER = re.compile(r"(?i)\s*(?:\)\s*)?(?:,\s*)?(?:for|in|during|of)\s+that\s+(?:fiscal\s+|calendar\s+)?year\b")


def _that_year(text: str, start: int, end: int) -> frozenset[Period]:
    """The year a figure stated 'for that year' is stated for: the last its sentence names before it; empty when
    the figure is not so stated or its sentence names no year before it."""
    if not _THAT_YEAR_AFTER.match(text, end, min(len(text), end + 40)):
        return frozenset()
    years = _YEAR.findall(text, statement_start(text, start), start)
    return frozenset({(int(years[-1]), "")}) if years else frozenset()


# a year a sentence names as a period: after a preposition of time, or a fiscal year ('for the year ended December
# 31, 2019', 'in 2018', 'fiscal 2019', 'FY2018'); not a year of another kind ('the lowest since 2015', 'a 2017 deal')
_NAMED_YEAR = re.compile(
    r"(?i)\b(?:(?:for|in|during|as\s+of|at|at\s+the\s+end\s+of)\s+(?:the\s+)?(?:" + _YEAR_DAY + r")?"
    r"(?:fiscal\s+(?:year\s+)?|FY\s*|year\s+|calendar\s+year\s+)?|fiscal\s+(?:year\s+)?|FY\s*)'?(19[5-9]\d|20\d\d)\b")


# the end a move reaches after the amount it moved by ('decreased $8.6 million to $24.9 million', 'increased 21% to
# $5.1 million'), which `move_end` leaves alone (a figure, a scale word and 'to' may be a range: '$5 million to $7 million')
_MOVED_BY_TO = re.compile(r"(?i)\b(?:" + "|".join(vocabulary.move_verbs("moved_by")) + r")\s+(?:by\s+)?"
                          r"(?:approximately\s+|about\s+)?[$€£¥]?\d[\d,]*(?:\.\d+)?\s?(?:%|percent\b|(?:million|billion|thousand)\b)?"
                          r"\s*to\s+" + _HEDGE + r"[$€£¥]?\s*$")


def _move_end(text: str, start: int) -> str | None:
    """`move_end`, and 'to' for the end a move reaches after the amount it moved by (`_MOVED_BY_TO`)."""
    return move_end(text, start) or ("to" if _MOVED_BY_TO.search(text, max(0, start - 80), start) else None)


def move_period(text: str, start: int, end: int) -> frozenset[Period]:
    """The year of a figure that is one end of the one move its sentence states ('decreased $8.6 million to $24.9
    million from $33.5 million'): the end it reaches ('to') is the later of the two years the sentence names as
    periods, the end it starts from ('from') the earlier; where the sentence names one year, before both ends,
    that year is the move's own ('for 2019 ... decreased to X from Y': X is 2019's, Y the year before's). Empty
    where the sentence names quarters or halves (a base may be a year-ago quarter), no year or more than two, a
    single year only after the figures (it may be the base's own), or more than one move."""
    mine = _move_end(text, start)
    if mine is None:
        return frozenset()
    lo = statement_start(text, start)
    stop = _SENTENCE_BREAK.search(text, end, min(len(text), end + 300))
    hi = stop.start() if stop else min(len(text), end + 300)
    if parts_named(text[lo:hi]):
        return frozenset()
    ends = [(m.start(), kind) for m in _other_figures(text, start, lo, hi) if (kind := _move_end(text, m.start()))]
    if [kind for _, kind in ends] != ["from" if mine == "to" else "to"]:
        return frozenset()
    named = [(m.start(), int(m.group(1))) for m in _NAMED_YEAR.finditer(text, lo, hi)]
    years = sorted({year for _, year in named})
    if len(years) == 2:
        return frozenset({(years[1] if mine == "to" else years[0], "")})
    if len(years) == 1 and all(at < min(start, ends[0][0]) for at, _ in named):
        return frozenset({(years[0] if mine == "to" else years[0] - 1, "")})
    return frozenset()


# a sentence that opens with its period ('In 2019, FCC licenses increased ... $2.3 million of impairments') states
# its figures for that period
_OPENING_PERIOD = re.compile(
    r"(?i)[\s*_>\"(]*(?:(?:in|during|for|as\s+of|at\s+the\s+end\s+of)\s+(?:(?:December|June|September|March)\s+\d{1,2},\s+)?"
    + _YEAR_WORDS + r"\s*,"
    # or with a fiscal year naming its subject ('Fiscal 2019 video service customers net losses stood at 4,697')
    # (after a heading in capitals: 'VIDEO Fiscal 2019 ...')
    r"|(?-i:(?:[A-Z][A-Z&-]+\s+){0,3})(?:fiscal\s+(?:year\s+)?|FY\s*)'?(?:19[5-9]\d|20\d\d)\s+(?=[a-z]))")


def _opening_period(text: str, start: int, end: int) -> frozenset[Period]:
    """The period a sentence opens with ('In 2019, ...', 'During fiscal 2018, ...'), for a figure of that sentence
    that is no comparison base ('..., up from $4.1 million': the earlier period's) and with no other year between
    the opening and the figure; empty otherwise."""
    lo = statement_start(text, start)
    opening = _OPENING_PERIOD.match(text, lo, start)
    if opening is None or _YEAR.search(text, opening.end(), start):
        return frozenset()
    if _BASE_BEFORE.search(text, max(opening.end(), start - 60), start) or _BASE_AFTER.match(text, end, min(len(text), end + 40)):
        return frozenset()
    return within_year(periods_in(opening.group()), sentence_around(text, start, end))


def sentence_start(text: str, start: int) -> int:
    """Where the sentence of a prose figure at `start` begins (looking back 300 characters at most)."""
    lo = max(0, start - 300)
    breaks = [m.end() for m in _SENTENCE_BREAK.finditer(text, lo, start)]
    return breaks[-1] if breaks else lo


# where a tool's text begins inside a sentence's reach: a tag, the bounds of a JSON string, the break before a field of
# a trace file ('    text: ...'); a table's headers above a paragraph are no words of its first sentence
_STATEMENT_BOUND = re.compile(r"<[^<>\n]*>|(?<!\\)\"\s*[:,\]}]\s*\"?|\n(?=[ \t]*[A-Za-z_][\w -]{0,40}:[ \t])")


def statement_start(text: str, start: int) -> int:
    """`sentence_start`, or the last bound of a tool's text between it and `start` (`_STATEMENT_BOUND`)."""
    lo = sentence_start(text, start)
    bounds = [m.end() for m in _STATEMENT_BOUND.finditer(text, lo, start)]
    return bounds[-1] if bounds else lo


def sentence_around(text: str, start: int, end: int) -> str:
    """The sentence of a prose figure, up to the end of the figure's clause."""
    after = _CLAUSE_BREAK.search(text, end, min(len(text), end + 200))
    return text[sentence_start(text, start):after.start() if after else min(len(text), end + 200)]


_METRIC_PATTERNS = [(group, re.compile(r"\b(?:" + "|".join(re.escape(p) for p in phrases) + r")\b"))
                    for group, phrases in vocabulary.METRIC_GROUPS.items()]


@lru_cache(maxsize=8192)
def metrics_of(text: str) -> frozenset[str]:
    """The metric groups `text` names ('netIncome', 'net_income' and 'Net income' alike); memoised, as every
    cell of a row asks it of the same row label."""
    plain = CAMEL.sub(" ", text).replace("_", " ").lower()
    return frozenset(group for group, pattern in _METRIC_PATTERNS if pattern.search(plain))


_NEXT_WORD = re.compile(r"[ \u00a0]?([A-Za-z]{3,})")


def _word_after(text: str, end: int) -> str | None:
    m = _NEXT_WORD.match(text, end) if 0 <= end <= len(text) else None
    word = m.group(1).lower() if m else None
    return word if word and word not in STOPWORDS else None


class _Worded(NamedTuple):
    """A claim's sentence and heading, all `_claim_keys` and `claim_subject` read of it."""

    claim: str
    context: str | None


def _claim_keys(claim: ClaimRecord | _Worded) -> set[str]:
    """The stems of the claim's sentence and heading, less those of the sources it cites: 'According to the filing'
    says where the figure stands, not what it is (a source's own name line, 'get_filing_section', names no row). A
    claim whose only words are its citation's keeps them."""
    keys = subject_keys(claim.claim + "\n" + (claim.context or ""))
    cited = uncited_text(claim)
    return (subject_keys(cited + "\n" + (claim.context or "")) or keys) if cited != claim.claim else keys


def uncited_text(claim: ClaimRecord | _Worded) -> str:
    """The claim's sentence with the sources it names blanked ('According to the filing', 'passage 2'), offsets
    kept. Read from its text: the single-figure claims a hop checks carry no references of their own."""
    return _uncited(claim.claim)


@lru_cache(maxsize=4096)
def _uncited(text: str) -> str:
    spans = [(r.start, r.end) for r in find_references(text) if r.kind != "url"]
    return _blanked(text, spans) if spans else text


def unwritten_unit(claim: ClaimRecord, q: Quantity, index: SourceIndex) -> list[AtomMatch]:
    """A figure whose unit one side leaves to the reader: '350°F' for a source's 'bake at 350°' or '62
    degrees', '21-32 years' for 'between the ages of 21 and 32', '1 1/2 hours' for 'cook for 1 1/2', and a
    claimed '350 degrees' for a source's '350°F'. The figure as written must be equal; a source number
    with a degree sign backs only a temperature; a small whole number only as the same range ('4-6 in.');
    and the unit-less number must stand near the claim's subject words."""
    keys = _claim_keys(claim)
    shown, tol = quantities.displayed_value(q)
    slack = tol + 1e-9 * max(1.0, abs(shown))
    found: list[tuple[int, int, AtomMatch]] = []
    partners = _range_partners(claim.claim, q.start - claim.start, q.end - claim.start)
    if q.kind in UNIT_BEARING:
        for observed in index.near(shown, tol):
            o = index.quantity(observed)
            if o.kind != "number" or o.unit not in (None, "°") or o.scale != 1.0 or abs(o.value - shown) > slack:
                continue
            loaded = index.loaded(observed.file)
            degree = o.unit == "°" or SOURCE_DEGREE.match(loaded.text, o.end) is not None
            # small whole numbers ('cook 2 more hours' for '2-3 hours') stand near any subject by chance
            specific = abs(shown) >= WEAK_LIMIT or shown != int(shown)
            if degree and q.kind != "temperature":
                continue
            if not specific and not (partners and partners & _range_partners(loaded.text, o.start, o.end)) \
                    and not _unit_follows(loaded.text, o.end, q):
                continue
            implied = _DIMENSION_KEYS.get(q.kind, frozenset()) if degree else frozenset()
            if near_subject(loaded, o.start, o.end, keys, structured_ok=False, implied=implied):
                found.append((observed.file, o.start, _match_at(index, observed.file, o.start, o.end, q.text, "normalised")))
    elif q.kind == "number" and q.unit in (None, "°") and q.scale == 1.0:
        at = q.end - claim.start
        if q.unit == "°" or (0 <= at <= len(claim.claim) and DEGREE_MARK.match(claim.claim, at)):
            for target in (shown, (shown - 32.0) * 5.0 / 9.0):
                for observed in index.near(target, tol):
                    o = index.quantity(observed)
                    if (o.kind == "temperature" and abs(quantities.displayed_value(o)[0] - shown) <= slack
                            and near_subject(index.loaded(observed.file), o.start, o.end, keys, structured_ok=False)):
                        found.append((observed.file, o.start,
                                      _match_at(index, observed.file, o.start, o.end, q.text, "normalised")))
    elif q.kind == "percent" and q.unit == "%":
        found.extend(_as_fraction(claim, q, keys, index))
    found.sort(key=lambda m: (m[0], m[1]))
    return list({(f, start): m for f, start, m in found}.values())


def _as_fraction(claim: ClaimRecord, q: Quantity, keys: set[str], index: SourceIndex) -> list[tuple[int, int, AtomMatch]]:
    """A claimed percentage that the sources give as a fraction, as data APIs do ('revenue_growth: 0.061'
    for 'revenue grew 6.1%'): equal within the precision the claim shows, and on a line whose own words
    name the claim's subject (a bare decimal elsewhere is a chance match)."""
    shown, tol = quantities.displayed_value(q)
    target, slack = shown / 100.0, tol / 100.0 + 1e-12
    found: list[tuple[int, int, AtomMatch]] = []
    for observed in index.near(target, slack):
        o = index.quantity(observed)
        if o.kind != "number" or o.unit is not None or o.scale != 1.0 or abs(o.value) >= FRACTION_LIMIT:
            continue
        if abs(o.value - target) > slack:
            continue
        loaded = index.loaded(observed.file)
        if not DECIMALS.fullmatch(loaded.text[o.start:o.end].lstrip("+-")):
            continue
        label = index.label(observed)
        if label is not None:
            if cell_backs(claim_subject(claim), label):
                found.append((observed.file, o.start, _match_at(index, observed.file, o.start, o.end, q.text, "normalised")))
            continue
        if keys and (near_subject(loaded, o.start, o.end, keys, structured_ok=False)
                     or keys & subject_keys(table_words(loaded, o.start))):
            found.append((observed.file, o.start, _match_at(index, observed.file, o.start, o.end, q.text, "normalised")))
    return found


_PARTNER_AFTER = re.compile(r"\)?\s?(?:-|–|to|-to-)\s?\(?(\d+(?:\.\d+)?)")


_PARTNER_BEFORE = re.compile(r"(\d+(?:\.\d+)?)\)?\s?(?:-|–|to|-to-)\s?\(?$")


# at most two words between a number and its unit: 'cook for about 2 more hours', '3 full days'
_WORDS_AFTER = re.compile(r"(?:[ \u00a0]+[a-z]+){2,3}\b")


def _unit_follows(text: str, end: int, q: Quantity) -> bool:
    """Is the second or third word after the source number a word of the claimed figure's own unit?"""
    m = _WORDS_AFTER.match(text, end)
    if m is None:
        return False
    unit_of = quantities.unit_of_word
    return any(unit_of(word) == (q.kind, q.unit) for word in m.group().split()[1:])


def _range_partners(text: str, start: int, end: int) -> set[str]:
    """The other end of a range a number is one end of ('4' in '4-6 inches' -> {'6'}): a small number
    with the same partner on both sides is the same range, not a chance match."""
    found = set()
    after = _PARTNER_AFTER.match(text, end)
    if after:
        found.add("after:" + after.group(1))
    before = _PARTNER_BEFORE.search(text, max(0, start - 12), start)
    if before:
        found.add("before:" + before.group(1))
    return found


def spelled_in_sources(claim: ClaimRecord, q: Quantity, index: SourceIndex) -> list[AtomMatch]:
    """Where a claimed figure stands written as words about its subject ('5 new stores' by 'open five new stores';
    'five stores' by 'five stores'): asked only when no figure the index reads matched (`SourceIndex.spelled_near`)."""
    matches = [
        _match_at(index, f, o.start, o.end, q.text, "exact" if o.text == q.text else "normalised")
        for f, o in index.spelled_near(q.value, q.tolerance) if quantities.quantities_match(q, o)
    ]
    return about_subject(claim, q, matches, index)


def locate(
    claim: ClaimRecord, q: Quantity, index: SourceIndex, about: list[AtomMatch] | None = None
) -> list[AtomMatch]:
    """Where a claimed figure stands in the sources about its subject, its unit written or implied; a
    figure the claim calls a loss or a fall ('a loss of $1.23 billion') also as the negative number a
    source records ('net_income: -1230000000'). `about`: what `about_subject(claim, q, find_atom(q, index),
    index)` gives, where the caller has it already (`verify_claim`'s first pass), so that it is not asked again."""
    if about is None:
        about = about_subject(claim, q, find_atom(q, index), index)
    found = about or unwritten_unit(claim, q, index) or spelled_in_sources(claim, q, index)
    if found or q.value <= 0 or not NEGATIVE_CUE.search(claim.claim[max(0, q.start - claim.start - 40):q.start - claim.start]):
        return found
    negative = q.model_copy(update={"value": -q.value})
    return about_subject(claim, negative, find_atom(negative, index), index) or unwritten_unit(claim, negative, index)


def value_anywhere(q: Quantity, index: SourceIndex) -> bool:
    """Is the figure, as written, anywhere in the sources (whatever it is about or whatever its unit)?"""
    if find_atom(q, index):
        return True
    shown, tol = quantities.displayed_value(q)
    slack = tol + 1e-9 * max(1.0, abs(shown))
    if any(abs(quantities.displayed_value(index.quantity(o))[0] - shown) <= slack for o in index.near(shown, tol)):
        return True
    # digits the parser does not read as a quantity ('50psi', '13:0 hours') are still the same figure
    digits = LITERAL_NUMBER.search(q.text)
    if digits is None:
        return False
    return index.holds_literal(digits.group().replace(",", ""))
