"""Stage 1, reading tables: every form a tool returns a table in, read into cells that know their row label,
section, column header(s), period, and the scale and unit the table states.

Forms: markdown/pipe rows, JSON lists of lists (rendered `- - cell` blocks), HTML `<tr>/<td>`, CSV lines, and
the page text of a PDF extraction (columns separated by runs of spaces, numbers aligned to the right).
Each reader only finds the grid of cell spans; one interpretation (`_interpret`) gives every form the same
meaning, so a new form is a new reader, not a new rule.
"""

from __future__ import annotations

import calendar
import html
import itertools
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from functools import lru_cache

from pytest_auditfence.claims import quantities, vocabulary

# -- what a cell is ---------------------------------------------------------------------------------------

Period = tuple[int, str]  # (year, part): (2019, '') for a year, (2023, 'Q3') for a quarter, (2024, 'H1')


@dataclass(frozen=True, slots=True)  # slots: an index keeps one label a table cell, without a __dict__ each
class CellLabel:
    """What a number in a table is about: its row (and the section row above it), its column, its period."""

    row: str
    section: str
    columns: tuple[str, ...]
    periods: frozenset[Period]
    caption: str
    scale: float | None
    unit: str | None
    # the footnote marks of the column's header cells ('**' of 'FY18**' beside 'FY18***'), cut from its text: see
    # `column_mark`
    mark: str = ""
    # the months of years its row names, by its label or its period cells ('Aug - 2019': (2019, 8)); see
    # `calendar_months`
    months: frozenset[tuple[int, int]] = frozenset()
    # a line without a label below two labelled rows or more that does not add them up (their average, a net
    # position): no total, whatever its caption says (see `_unlabelled_total`)
    no_total: bool = False
    # the months from the report's date its row or column of a payment schedule covers ('2021' after '2020' is
    # '12-24', 'Thereafter' after five years '60-'), 'all' for the schedule's total (see `_payment_schedule`)
    maturity: str = ""
    # the first year of that payment schedule ('2020' of '2020 | 2021 | ... | Thereafter'), 0 outside one: with the
    # bucket it gives the years a 'Thereafter' or 'Total' cell covers (see `schedule_years`)
    schedule_start: int = 0
    # the title of the section the table stands in ('18 Investment in associates'), for a balance row dated alone
    # ('At 31 December'): what that row is the balance of, named by a claim that names its day (see `balance_day`)
    title: str = ""

    @property
    def subject_text(self) -> str:
        """The words that name the cell's subject: row label and section."""
        return f"{self.row} {self.section}".strip()

    @property
    def column_text(self) -> str:
        return " ".join(self.columns)

    def describe(self) -> str:
        """'Total sales, 2019' — how a note names the cell."""
        column = self.columns[-1] if self.columns else ""
        return ", ".join(part for part in (self.row or self.section, column) if part)


@dataclass(frozen=True)
class Cell:
    """A table cell holding a figure: its span in the file and its label."""

    start: int
    end: int
    label: CellLabel


@dataclass
class _Grid:
    rows: list[list[tuple[int, int]]]  # cell spans (absolute offsets), one list per row
    start: int  # offset where the grid starts (the caption is read above it)
    right_aligned: bool = False  # PDF text: the k-th number from the right is under the k-th header from the right
    markup: bool = False  # HTML: a cell's text is read with its character references ('R&amp;D' is 'R&D')


# -- periods ------------------------------------------------------------------------------------------------

_YEAR = r"(?:19[5-9]\d|20\d\d)"
_PERIOD = re.compile(
    rf"(?ai)\b(?:(?P<q>Q[1-4]|H[12])[ \t]*(?:FY|CY)?[ \t]*'?(?P<qy>{_YEAR}|\d\d)\b"
    rf"|(?P<y2>{_YEAR})[ \t-]*(?P<q2>Q[1-4]|H[12])\b"
    rf"|(?:FY|CY|fiscal(?:[ \t]+year)?)[ \t]*'?(?P<fy>{_YEAR}|\d\d)\b"
    rf"|F(?P<f>\d\d)\b"  # 'F19' / 'F18' headers of a fiscal year, written without the 'Y'
    rf"|(?P<ord>first|second|third|fourth)[ \t]+quarter(?:[ \t]+of)?(?:[ \t]+(?:fiscal|FY))?[ \t]+(?P<oy>{_YEAR})\b"
    rf"|(?P<y>{_YEAR})(?![\d.,]*\d))"
)
# a letter-spaced year ('2 0 1 8'), not within a run of spaced digits ('1 2 0 1 8 7'); after a day ('December 31
# 2 0 1 8' of a header joined from two rows) too
_SPACED_YEAR = re.compile(r"(?<!\d)(?<!(?<!\d)\d )(?:1 9|2 0) \d \d(?![\d ]*\d)")
ORDINAL_QUARTER = {"first": "Q1", "second": "Q2", "third": "Q3", "fourth": "Q4"}


def _year(text: str) -> int:
    value = int(text)
    return value + 2000 if value < 100 else value


_MONTH_NAMES = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
# a month of a year, with no day between them ('August 2019', 'Aug - 2019', 'Sept. 2018'): 'December 31, 2019' is the
# date of a balance, not the month a row of months stands for
CALENDAR_MONTH = re.compile(
    r"(?i)\b(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?"
    r"|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?[ \t]*[-–/]?[ \t]*(?:of[ \t]+)?((?:19|20)\d\d)\b")


def calendar_months(text: str) -> frozenset[tuple[int, int]]:
    """The months of a year a text names, as (year, month): 'issued in August 2019' (2019, 8), the row label
    'Aug 2007 - Jan 2011' (2007, 8) and (2011, 1); none in 'as of December 31, 2019'."""
    return frozenset((int(m.group(2)), _MONTH_NAMES.index(m.group(1)[:3].lower()) + 1)
                     for m in CALENDAR_MONTH.finditer(text))


# a day of a month of a year ('December 31, 2019', 'Dec. 31, 2019', '30 June 2019'): a balance's date
_MONTH_WORD = (r"(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?"
               r"|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?")
DATED_DAY = re.compile(r"(?i)\b(?:" + _MONTH_WORD + r"[ \t]+(\d{1,2})(?:st|nd|rd|th)?,?|(\d{1,2})(?:st|nd|rd|th)?[ \t]+"
                       + _MONTH_WORD.replace("(", "(?P<m2>", 1) + r",?)[ \t]+((?:19|20)\d\d)\b")


# a day named by month and day alone ('June 30', '30 June'), and a list of them whose year is written once, after the
# last ('June 30 and December 31, 2019', 'January 26, April 27 and July 27, 2019', '30 June to 31 December 2019')
_DAY_OF_MONTH = re.compile(r"(?i)\b(?:" + _MONTH_WORD + r"[ \t]+(\d{1,2})(?:st|nd|rd|th)?\b|(\d{1,2})(?:st|nd|rd|th)?[ \t]+"
                           + _MONTH_WORD.replace("(", "(?P<m2>", 1) + r"(?![\w-]))")
_ANY_MONTH = _MONTH_WORD.replace("(", "(?:", 1)
_DAYS_BEFORE_YEAR = re.compile(
    r"(?i)\b(?:(?:" + _ANY_MONTH + r"[ \t]+\d{1,2}(?:st|nd|rd|th)?|\d{1,2}(?:st|nd|rd|th)?[ \t]+" + _ANY_MONTH + r")"
    r"(?:,?[ \t]+(?:and|or|to|through|until|&)[ \t]+|,[ \t]*|[ \t]*[-\u2013][ \t]*))+(?=(?:" + _ANY_MONTH
    + r"[ \t]+\d{1,2}(?:st|nd|rd|th)?,?|\d{1,2}(?:st|nd|rd|th)?[ \t]+" + _ANY_MONTH + r",?)[ \t]+(?:19|20)\d\d\b)")


def _day_of(m: re.Match[str], year: int) -> tuple[int, int, int]:
    """(year, month, day) of a match of DATED_DAY or _DAY_OF_MONTH (their groups 1 to 3 and 'm2' alike)."""
    return year, _MONTH_NAMES.index((m.group(1) or m.group("m2"))[:3].lower()) + 1, int(m.group(2) or m.group(3))


@lru_cache(maxsize=8192)
def dated_days(text: str) -> frozenset[tuple[int, int, int]]:
    """The days a text names by month, day and year, as (year, month, day): 'as of December 31, 2019' (2019, 12,
    31), 'Nonvested at Jan. 1, 2017' (2017, 1, 1), 'Year-ended 31 March 2019' (2019, 3, 31). A list of days whose year
    is written once, after the last ('at June 30 and December 31, 2019'), names each of its days in that year: the
    claim is about both balances, not only the one its year is written beside."""
    text = _SPACED_YEAR.sub(lambda m: m.group().replace(" ", ""), text)  # a PDF's letter-spaced '2 0 1 8'
    days = {_day_of(m, int(m.group(5))) for m in DATED_DAY.finditer(text)}
    for listed in _DAYS_BEFORE_YEAR.finditer(text):
        year = DATED_DAY.match(text, listed.end())
        if year is not None:
            days.update(_day_of(m, int(year.group(5))) for m in _DAY_OF_MONTH.finditer(listed.group()))
    return frozenset(days)


# a section's title line: a note's number and a few words, no sentence ('18 Investment in associates', '3. Investments
# in subsidiaries', 'Note 21. Equity - dividends', '(5) GOODWILL AND OTHER INTANGIBLE ASSETS'), alone on its line (a
# list item or paragraph of a trace file or HTML page)
_SECTION_TITLE = re.compile(
    r"(?m)^[ \t]*(?:[-*][ \t]+)?(?:<p>)?(?:note[ \t]+)?(?:\d{1,2}|\(\d{1,2}\))(?:\.(?!\d)|\))?[ \t]*[-\u2013\u2014:]?[ \t]*"
    r"(?P<title>[A-Z][A-Za-z&'\u2019/-]*(?:[ \t]+[A-Za-z&'\u2019/-]+){0,7})[ \t]*(?:\((?:continued|cont\.?)\))?"
    r"(?:</p>)?[ \t]*$", re.IGNORECASE)


def section_title(text: str) -> str:
    """The first section title line of a text (see `_SECTION_TITLE`): what the section's table is about, '' for
    none. A document tool may render the title below the table, with the section's other paragraphs."""
    m = _SECTION_TITLE.search(text)
    return " ".join(m.group("title").split()) if m else ""


def dated_alone(row: str) -> bool:
    """Is a row label a balance's day and month and no word besides ('At 31 December', 'As at 1 January',
    'December 31, 2019')? A roll-forward's balance row: the balance of what the table is about."""
    return _DAY_OF_MONTH.search(row) is not None and not words_besides_periods(_DAY_OF_MONTH.sub(" ", row))


def balance_day(label: CellLabel) -> frozenset[tuple[int, int, int]]:
    """The day a balance row dated by its day and month alone stands for under its column's year ('At 31 December'
    under '2019' is December 31, 2019): a year's first day or a month's last, which fall in the year a column of
    years names (an opening day past January 1 may fall in the year before a fiscal year's column: 'At 1 April'
    under '2019' may be April 1, 2018, and is left undated). The days its row and column name otherwise."""
    named = dated_days(f"{label.row} | {label.column_text}")
    if named or len(label.periods) != 1:
        return named
    (year, part), = label.periods
    m = _DAY_OF_MONTH.search(label.row)
    if part or m is None:
        return named
    _, month, day = _day_of(m, year)
    last = calendar.monthrange(year, month)[1]
    return frozenset({(year, month, day)}) if day == last or (month, day) == (1, 1) else named


def periods_in(text: str) -> frozenset[Period]:
    """The periods a header, row label or claim names: 'FY2024', 'F19', '2019', 'Q3 2023', 'fiscal 2017',
    'as of December 31, 2019', 'third quarter of 2023', 'July 29, 2017' (the year of a dated column)."""
    found: set[Period] = set()
    text = _SPACED_YEAR.sub(lambda m: m.group().replace(" ", ""), text)  # a PDF's letter-spaced '2 0 1 8'
    for m in _PERIOD.finditer(text):
        if m.group("q"):
            found.add((_year(m.group("qy")), m.group("q").upper()))
        elif m.group("q2"):
            found.add((_year(m.group("y2")), m.group("q2").upper()))
        elif m.group("fy") or m.group("f"):
            found.add((_year(m.group("fy") or m.group("f")), ""))
        elif m.group("ord"):
            found.add((_year(m.group("oy")), ORDINAL_QUARTER[m.group("ord").lower()]))
        elif m.group("y"):
            found.add((int(m.group("y")), ""))
    return frozenset(found)


# quarters or halves named apart from a year: 'Fiscal 2018' over 'First' over 'Quarter' in a header, 'the second
# and first quarter in fiscal 2019' in a claim
_ORDINAL = r"(?:first|second|third|fourth|1st|2nd|3rd|4th)"
_PART_WORDS = re.compile(
    rf"(?i)\b(?P<ords>{_ORDINAL}(?:[ \t]*(?:,[ \t]*|[ \t]+)(?:and[ \t]+|or[ \t]+|to[ \t]+)?{_ORDINAL})*)"
    rf"[ \t-]+(?P<unit>quarter|half)s?\b|\b(?P<q>Q[1-4]|H[12])\b")
_ORDINAL_NUMBER = {"first": 1, "second": 2, "third": 3, "fourth": 4, "1st": 1, "2nd": 2, "3rd": 3, "4th": 4}


def parts_named(text: str) -> set[str]:
    """The quarters and halves `text` names, with or without a year: {'Q2', 'Q1'} for 'the second and first
    quarter', {'H1'} for 'first half'."""
    parts = set()
    for m in _PART_WORDS.finditer(text):
        if m.group("q"):
            parts.add(m.group("q").upper())
            continue
        letter, last = ("Q", 4) if m.group("unit").lower() == "quarter" else ("H", 2)
        for word in re.findall(_ORDINAL, m.group("ords"), re.IGNORECASE):
            number = _ORDINAL_NUMBER[word.lower()]
            if number <= last:
                parts.add(f"{letter}{number}")
    return parts


def without_parts(text: str) -> str:
    """`text` less the quarters and halves it names ('First Quarter' -> ''): what a row label says besides when."""
    return _PART_WORDS.sub(" ", text).strip()


def within_year(found: frozenset[Period], text: str) -> frozenset[Period]:
    """Years named with parts apart from them: each year's quarters (or halves) that `text` names as well
    ('Fiscal 2018' with 'First Quarter' is Q1 2018, 'first-quarter margin in fiscal 2018 and 2019' Q1 of each);
    `found` itself when it names a part already or `text` names none."""
    if not found or any(part for _, part in found):
        return found
    return frozenset((year, part) for year, _ in found for part in parts_named(text)) or found


def column_periods(columns: tuple[str, ...]) -> frozenset[Period]:
    """The periods a column's header cells name together: each cell's own, and a year's quarter or half when
    one cell names the year and others the part ('Fiscal 2018' / 'First' / 'Quarter' is Q1 2018)."""
    found = frozenset(p for c in columns for p in periods_in(c))
    return within_year(found, " ".join(columns)) if len(parts_named(" ".join(columns))) == 1 else found


def format_period(period: Period) -> str:
    year, part = period
    return f"{part} {year}" if part else str(year)


# -- cells: figure or words ---------------------------------------------------------------------------------

# a cell holding one figure; '(12)%' is a negative percentage, its sign's parentheses closed before the '%'
_NUMERIC_CELL = re.compile(
    r"[\s(]*[-−–+]?[\s(]*(?:US\$|[$€£¥])?[\s(]*[-−–]?\d[\d,]*(?:\.\d+)?[\s)]*(?:%|x|bps)?[\s)]*"
)
# a placeholder: a dash ('—', also as a nil amount '$ —' or percentage '—%'), 'n/a', 'nm'
_EMPTY_CELL = re.compile(r"[\s\-−–—―*_\"']*|n/?a|nm|(?:us\$|[$€£¥])?\s*[\-−–—―]+\s?%?")


def _is_figure(text: str) -> bool:
    """A cell holding one figure ('$  1,452.4', '(1,234)', '12.5%'); a bare year ('2019') is a period header, and
    the zeros of a scale ('$000', '(000)') a column's scale."""
    return (_NUMERIC_CELL.fullmatch(text) is not None and _BARE_YEAR.fullmatch(text) is None
            and _SCALE_ZEROS.fullmatch(text) is None)


# a header cell stating its column's scale as the zeros its figures leave out ('$000', "'000", '(000s)', "RMB'000",
# 'in $000s'): thousands, never a figure 0 (quantities reads the scale)
_SCALE_ZEROS = re.compile(r"(?i)[\s(]*(?:in\s+)?(?:[a-z]{0,3}\s?[$€£¥]|[a-z]{2,3}\s?)?['\u2019\u2018]?000s?[\s)]*")


_BARE_YEAR = re.compile(rf"[\s*_]*{_YEAR}[\s*_]*")


# a footnote mark after a cell's figure, period or label ('1,234(1)', '2019 (a)', '12.5¹', '840*'): no part of it
_MARK = r"(?:\s*(?:\(\d{1,2}\)|\([a-z]\)|\[\d{1,2}\]|[*†‡¹²³⁴⁵⁶⁷⁸⁹⁰]+))+"
_MARKED_FIGURE = re.compile(rf"(?P<kept>.*?[\d%)A-Za-z])(?P<mark>{_MARK})\s*")


def _without_mark(text: str) -> str:
    """A cell's text less a trailing footnote mark ('1,234' of '1,234(1)'); a figure in parentheses ('(1)',
    '(1,234)') is a negative figure, not a mark."""
    if text.lstrip().startswith(("*", "_")):  # markdown emphasis ('**1,234**'), no mark
        return text
    found = _MARKED_FIGURE.fullmatch(text)
    return found.group("kept") if found and found.group("kept").strip(" ($€£¥-−–") else text


def _unmarked(text: str, a: int, b: int) -> tuple[int, int]:
    """The span of a cell less its trailing footnote mark (see `_without_mark`)."""
    cell = text[a:b]
    kept = _without_mark(cell.rstrip())
    return (a, a + len(kept)) if kept != cell.rstrip() else (a, b)


def _is_period(text: str) -> bool:
    stripped = text.strip().strip("*_")
    return bool(stripped) and bool(periods_in(stripped)) and not _is_figure(stripped)


# words that say when, not what: a cell of these and a period is a period ('Year ended December 31, 2019')
WHEN_WORDS = frozenset(
    "fiscal year years ended ending end as of at the for quarter quarters month months period periods week weeks "
    "through to and from first second third fourth half".split()) | frozenset(
    name for m in vocabulary.MONTH_NAMES for name in (m.lower(), m.lower()[:3], m.lower()[:4]))


def _is_label(text: str) -> bool:
    """Words that name a row: no figure, no placeholder, and no bare period; a label that names a period among
    other words is still a label ('4.875% Senior Notes due December 2022', 'Nonvested at January 1, 2018')."""
    if _is_figure(text) or _is_empty(text):
        return False
    if not _is_period(text):
        return True
    return bool(words_besides_periods(text))


def words_besides_periods(text: str) -> frozenset[str]:
    """The words of a label or header that say what, not when ('Accounts Receivable, Gross' of 'December 31, 2019
    Accounts Receivable, Gross'; none of 'Year Ended January 3, 2020'), lower-case."""
    return frozenset(w.lower() for w in re.findall(r"[A-Za-z]{3,}", _PERIOD.sub(" ", text))
                     if w.lower() not in WHEN_WORDS)


def _is_empty(text: str) -> bool:
    return _EMPTY_CELL.fullmatch(text.strip().lower()) is not None


def _is_blank(text: str) -> bool:
    """An empty cell, or one a renderer quoted empty ('""' of records rendered as rows): no placeholder ('—')."""
    return not text.strip().strip("\"'")


# -- readers: grids of cell spans ----------------------------------------------------------------------------

def _lines(text: str) -> Iterator[tuple[int, str]]:
    pos = 0
    n = len(text)
    while pos <= n:
        end = text.find("\n", pos)
        end = n if end < 0 else end
        yield pos, text[pos:end]
        pos = end + 1


def _pipe_grids(text: str) -> list[_Grid]:
    """Runs of pipe rows: only lines holding a '|' can be one (each found by `str.find`, at C speed); any other line
    ends a grid, as does a pipe line of fewer than two cells, and a separator line is passed over."""
    grids: list[_Grid] = []
    current: _Grid | None = None
    after = -1  # where the line after the last pipe line starts: a pipe line there goes on with its grid
    at = text.find("|")
    while at >= 0:
        pos = text.rfind("\n", 0, at) + 1
        end = text.find("\n", at)
        end = len(text) if end < 0 else end
        line = text[pos:end]
        at = text.find("|", end)
        if pos != after:
            current = None  # a line without a pipe came between
        after = end + 1
        if _is_separator(line):
            continue
        cells = quantities.split_table_row(line)
        if len(cells) >= 2:
            row = [(pos + s, pos + e) for s, e in cells]
            if current is None:
                current = _Grid([], pos)
                grids.append(current)
            current.rows.append(row)
            continue
        current = None
    return grids


_SEPARATOR = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(?:\|\s*:?-{2,}:?\s*)*\|?\s*$")


def _is_separator(line: str) -> bool:
    return _SEPARATOR.match(line) is not None


_LIST_ROW = re.compile(r"^(?P<indent>[ \t]*)- - (?P<value>.*)$")
_LIST_ITEM = re.compile(r"^(?P<indent>[ \t]*)- (?P<value>.*)$")


def _list_grids(text: str) -> list[_Grid]:
    """A JSON list of lists as capture renders it: '- - first cell' starts a row, '  - next cell' continues."""
    if "- - " not in text:
        return []
    grids: list[_Grid] = []
    current: _Grid | None = None
    depth = -1
    for pos, line in _lines(text):
        m = _LIST_ROW.match(line)
        if m is not None:
            if current is None or len(m.group("indent")) != depth:
                current = _Grid([], pos)
                grids.append(current)
                depth = len(m.group("indent"))
            current.rows.append([_value_span(pos, m)])
            continue
        m = _LIST_ITEM.match(line)
        if current is not None and m is not None and len(m.group("indent")) == depth + 2:
            current.rows[-1].append(_value_span(pos, m))
            continue
        current = None
    return [g for g in grids if len(g.rows) >= 2]


def _value_span(pos: int, m: re.Match[str]) -> tuple[int, int]:
    start, end = m.start("value"), m.end("value")
    value = m.group("value")
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        start, end = start + 1, end - 1
    return pos + start, pos + end


_HTML_ROW = re.compile(r"(?is)<tr\b[^>]*>(.*?)</tr\s*>")
_HTML_CELL = re.compile(r"(?is)<t([hd])\b[^>]*>(.*?)</t[hd]\s*>")
_TAG = re.compile(r"<[^>]*>")


def _html_grids(text: str) -> list[_Grid]:
    if "<t" not in text.lower():
        return []
    grids: list[_Grid] = []
    for table in re.finditer(r"(?is)<table\b.*?</table\s*>", text):
        grid = _Grid([], table.start(), markup=True)
        for row in _HTML_ROW.finditer(text, table.start(), table.end()):
            cells = []
            for cell in _HTML_CELL.finditer(text, row.start(1), row.end(1)):
                start, end = cell.start(2), cell.end(2)
                inner = text[start:end]
                tags = list(_TAG.finditer(inner))
                if tags:  # '<td><b>1,234</b></td>': the text between the tags
                    pieces = [(a, b) for a, b in _between_tags(inner, tags) if inner[a:b].strip()]
                    if pieces:
                        start, end = start + pieces[0][0], start + pieces[-1][1]
                while start < end and text[start].isspace():
                    start += 1
                while end > start and text[end - 1].isspace():
                    end -= 1
                cells.append((start, end))
            if cells:
                grid.rows.append(cells)
        if len(grid.rows) >= 2:
            grids.append(grid)
    return grids


def _between_tags(inner: str, tags: list[re.Match[str]]) -> list[tuple[int, int]]:
    edges = [0, *[x for t in tags for x in (t.start(), t.end())], len(inner)]
    return list(zip(edges[::2], edges[1::2]))


_CSV_FIELD = re.compile(r'[ \t]*"(?P<q>[^"\n]*)"[ \t]*(?=,|$)|(?P<v>[^,\n]*)')


def _csv_cells(pos: int, line: str) -> list[tuple[int, int]] | None:
    if "," not in line or "|" in line or len(line) > 400:
        return None
    if '"' not in line:  # no quoted field: the fields are what the commas split (`_CSV_FIELD`'s plain branch)
        if ", " in line:
            return None  # prose
        cells = []
        a = pos
        for field in line.split(","):
            cells.append((a, a + len(field)))
            a += len(field) + 1
    else:
        cells = _quoted_csv_cells(pos, line)
        if cells is None:
            return None
    if len(cells) < 2:
        return None
    for (a, b), (c, d) in zip(cells, cells[1:]):
        if _SPLIT_NUMBER_HEAD.search(line, a - pos, b - pos) and _SPLIT_NUMBER_TAIL.fullmatch(line, c - pos, d - pos):
            return None  # 'volume 1,234,567': thousands commas in prose, not fields
    return cells


def _quoted_csv_cells(pos: int, line: str) -> list[tuple[int, int]] | None:
    unquoted = re.sub(r'"[^"\n]*"', "", line)
    if ", " in unquoted or unquoted.count('"') % 2:
        return None  # prose, or a quote left open
    cells = []
    at = 0
    while at <= len(line):
        m = _CSV_FIELD.match(line, at)
        group = "q" if m.group("q") is not None else "v"
        a, b = m.span(group)
        cells.append((pos + a, pos + b))
        at = m.end() + 1
        if m.end() >= len(line):
            break
    return cells


_SPLIT_NUMBER_HEAD = re.compile(r"(?:^|[^\d,.])\d{1,3}$")
_SPLIT_NUMBER_TAIL = re.compile(r"\d{3}(?:\.\d+)?")


# A line `_csv_cells` may read as fields, found by one search of the text: a comma, and a quote (read by the field
# reader) or else no '|', no ', ' (prose) and no thousands comma of prose ('volume 1,234,567': a field ending in one to
# three digits after neither digit, comma nor point, or a first field of one to three digits, before a field of three
# digits and decimals). Every other line gets no cells from `_csv_cells`.
_CSV_LINE = re.compile(r'(?m)^(?=[^\n,]*,)(?:(?=[^\n]*")|(?![^\n]*(?:\||, |(?:^|[^\d,.\n])\d{1,3},\d{3}(?:\.\d+)?(?:,|\r*$))))'
                       r'[^\n]*')


def _csv_lines(text: str) -> Iterator[re.Match[str]]:
    """`_CSV_LINE.finditer(text)`: its match tried at the start of each line holding a comma alone, the lines between
    passed over by `str.find` (a search of the whole text tried the pattern at every character)."""
    at = text.find(",")
    while at >= 0:
        found = _CSV_LINE.match(text, text.rfind("\n", 0, at) + 1)
        if found is not None:
            yield found
        end = text.find("\n", at)
        at = text.find(",", end + 1) if end >= 0 else -1


def _csv_grids(text: str) -> list[_Grid]:
    if "," not in text:
        return []
    grids: list[_Grid] = []
    current: _Grid | None = None
    after = -1  # where the line after the last line found starts: a line found there goes on with its grid
    for found in _csv_lines(text):
        pos, line = found.start(), found.group()
        if pos != after:
            current = None  # a line without cells came between
        after = found.end() + 1
        cells = _csv_cells(pos, line.rstrip("\r"))
        if cells is not None and (current is None or len(cells) == len(current.rows[0])):
            if current is None:
                current = _Grid([], pos)
                grids.append(current)
            current.rows.append(cells)
            continue
        current = None
    # a run of lines with one field count: a thousands comma left unquoted ('1,234') breaks the count, so a
    # run of three or more equal counts is a table, not a chance
    return [g for g in grids if len(g.rows) >= 3 and _has_digit_cell(g, text)]


def _has_digit_cell(grid: _Grid, text: str) -> bool:
    return any(any(ch.isdigit() for ch in text[a:b]) for row in grid.rows[1:] for a, b in row)


_GAP = re.compile(r"[ \t]{2,}|\t")
_MAX_PROSE = 100
_HEADER_CELLS = 3  # a line wider than prose is a header when it holds this many cells apart (prose has one)


def _pdf_cells(pos: int, line: str) -> list[tuple[int, int]]:
    cells = []
    at = 0
    for gap in _GAP.finditer(line):
        if line[at:gap.start()].strip():
            cells.append((at, gap.start()))
        at = gap.end()
    if line[at:].strip():
        cells.append((at, len(line.rstrip())))
    out = []
    for a, b in cells:
        while a < b and line[a].isspace():
            a += 1
        out.append((pos + a, pos + b))
    return out


def _pdf_grids(text: str) -> list[_Grid]:
    """Page text of a PDF: a line with a label and numbers apart by runs of spaces is a row; lines of period
    headers and short label-only lines (sections) between such rows belong to the table."""
    if "  " not in text and "\t" not in text:
        return []
    grids: list[_Grid] = []
    pending: list[list[tuple[int, int]]] = []  # header / section lines waiting for a row
    current: _Grid | None = None
    for pos, line in _lines(text):
        stripped = line.strip()
        if not stripped or "|" in line or _LIST_ITEM.match(line):
            if current is not None and not stripped:
                pending = []
                continue
            current, pending = None, []
            continue
        cells = _pdf_cells(pos, line)
        texts = [_without_mark(text[a:b]) for a, b in cells]
        figures = sum(_is_figure(t) for t in texts)
        if len(cells) >= 2 and figures >= 1 and not _GAP.search(stripped[:1]) and _gapped(line):
            if current is None:
                start = pending[0][0][0] if pending else pos
                current = _Grid([*pending], start, right_aligned=True)
                grids.append(current)
            else:
                current.rows.extend(pending)
            pending = []
            current.rows.append(cells)
        elif (len(stripped) <= _MAX_PROSE or len(cells) >= 2 and (any(map(_is_period, texts)) or _short_cells(texts))
              or len(cells) >= _HEADER_CELLS) and all(_is_header_text(t) or current is None and len(cells) >= 2
                                                      and _is_worded_header(t) for t in texts):
            # a header of periods or of column names ('Carrying Amount   Fair Value   Carrying Amount ...'; as long
            # as the labels are wide, when its cells stand apart), a header of several words apart ('Amount   % of
            # total revenue   Amount ...'), or a section row
            pending.append(cells)
            if len(pending) > 4:
                pending.pop(0)
        else:
            current, pending = None, []
    return [g for g in grids if sum(1 for r in g.rows if len(r) >= 2) >= 2]


_MONTH = re.compile(r"(?i)\b(?:" + "|".join(m[:3] for m in vocabulary.MONTH_NAMES) + r")[a-z]*\.?\s+\d{1,2}\b")


def _is_header_text(text: str) -> bool:
    """Words, a period ('2019', 'FY2024') or a date ('December 31,'): a header or section line of page text.
    A footnote mark ('Assets allocated to segments:(1)') is no figure."""
    text = _FOOTNOTE.sub("", text)
    return _is_period(text) or _SCALE_ZEROS.fullmatch(text) is not None or not any(c.isdigit() for c in text) or _MONTH.search(text) is not None


_FOOTNOTE = re.compile(r"\s*(?:\(\d{1,2}\)|\[\d{1,2}\]|\*+)\s*:?$")


def _is_worded_header(text: str) -> bool:
    """A column name holding a number among its words ('53 weeks', 'Level 2', '1-3 years', 'Note 5'), or a range or
    bound of numbers ('1–90', '>360' of an ageing table's days past due): a header cell where a line of cells apart
    stands above a table's first row (under its rows, such a line is a row of words)."""
    return not _is_figure(text) and (re.search(r"[A-Za-z]{2,}", text) is not None
                                     or _BOUND.fullmatch(text.strip()) is not None)


_BOUND = re.compile(r"\d{1,4}\s*[-–—]\s*\d{1,4}|[<>≤≥]\s*\d{1,4}|\d{1,4}\s*\+")


_HEADER_CELL = 40


def _short_cells(texts: list[str]) -> bool:
    """Three or more short cells standing apart: a line of column names, however wide, not a line of prose."""
    return len(texts) >= 3 and all(len(t) <= _HEADER_CELL for t in texts)


def _spanned(texts: list[str], index: int) -> str:
    """The header cell spanning column `index` of a header row whose cells each stand over the same number of
    columns, written in the first one ('', 'December 31, 2019', '', 'December 31, 2018', ''): the nearest filled
    cell to the left, when the filled cells (beyond the row-label column) are evenly spaced, two or more apart."""
    filled = [j for j in range(1, len(texts)) if texts[j] and not _is_empty(texts[j])]
    if len(filled) < 2 or index < filled[0]:
        return ""
    stride = filled[1] - filled[0]
    if stride < 2 or any(b - a != stride for a, b in zip(filled, filled[1:])) or index >= filled[-1] + stride:
        return ""
    return texts[filled[0] + (index - filled[0]) // stride * stride]


def _spans_apart(spanning: str, under: list[tuple[str, str]]) -> bool:
    """Does a header row below a lone spanning cell of words tell a column apart from the cell's own: a period over
    the column (`under`: each lower row's cell over it, and its cell under the spanning one) where the spanning cell
    stands over words? ('Percent Change' over 'Actual | Constant' does not head the '2018' column to their right,
    whose figures are amounts, not percentages; 'Years Ended December 31,' says only when, and heads them all.)"""
    return bool(words_besides_periods(spanning)) and any(
        here and there and _is_period(here) and not _is_period(there) for here, there in under)


def _lone_period_cell(texts: list[str]) -> str:
    """A header row whose one filled cell beyond the row-label column is a period ('' | '' | '2019'): the table's
    one period, dating every column below it wherever it stands ('' when the row holds anything else)."""
    filled = [t for t in texts[1:] if t and not _is_empty(t)]
    return filled[0] if len(filled) == 1 and _is_period(filled[0]) else ""


def _gapped(line: str) -> bool:
    return bool(_GAP.search(line.strip()))


# -- interpretation: one meaning for every form --------------------------------------------------------------

_LETTER_MARK = re.compile(r"\([A-Za-z]\)")
_CAPTION_LINES = 4
_CAPTION_CHARS = 400
_PER_SHARE = re.compile(r"(?i)per[\s_-]+(?:(?:diluted|basic|common|ordinary)[\s_-]+)?share|\beps\b")
_EXCEPT = re.compile(r"(?i)\bexcept\b")
# a label of percentages: '(%)', a trailing '%', 'in %', 'percent', 'bps', and a leading '%' ('% of penetration',
# '% of total revenue', '% change')
_PERCENT_LABEL = re.compile(r"\(%\)|%$|^%\s|\bin %|(?i:\bpercent(?:age)?\b|\bbps\b)")


def percent_label(text: str) -> bool:
    """Does a row label or header say its figures are percentages ('% of penetration', 'Margin (%)', 'in %')?"""
    return _PERCENT_LABEL.search(text) is not None


# a scale stated for one noun of a caption ('shares in thousands'); see vocabulary.WHOLE_TABLE_SCALE_WORDS
_NAMED_SCALE = re.compile(r"(?i)\b(?P<noun>[a-z]{3,})\s+in\s+(?P<scale>thousands|millions|billions)\b")


def named_scales(text: str) -> tuple[tuple[str, float], ...]:
    """The scales a caption states for what one noun names ('(shares in thousands, except per share data)': shares in
    thousands), the noun singular and lower-case; none for a scale of the whole table ('Tabular amounts in millions')."""
    return tuple((_singular(m.group("noun")), vocabulary.SCALES[m.group("scale").lower()])
                 for m in _NAMED_SCALE.finditer(text) if m.group("noun").lower() not in vocabulary.WHOLE_TABLE_SCALE_WORDS)


def _singular(word: str) -> str:
    word = word.lower()
    return word[:-1] if word.endswith("s") and not word.endswith("ss") else word


def _whole_table_scale(text: str) -> float | None:
    """The scale a caption states for the whole table, its scales of one noun left out."""
    unnamed = _NAMED_SCALE.sub(lambda m: m.group() if m.group("noun").lower() in vocabulary.WHOLE_TABLE_SCALE_WORDS
                               else " ", text)
    return quantities.detect_scale_context(unnamed)[0] if unnamed.strip() else None


def _named_scale(named: tuple[tuple[str, float], ...], label: str, section: str, columns: tuple[str, ...]) -> float | None:
    """The scale a caption states for the noun a cell's row, section or column names ('Basic weighted average common
    shares outstanding' under '(shares in thousands)'); none for a per-share row or column ('... per common share'),
    whose amounts a count's scale never scales."""
    text = " ".join([label, section, *columns])
    if not named or _PER_SHARE.search(text):
        return None
    words = {_singular(w) for w in re.findall(r"[A-Za-z]{3,}", text)}
    return next((scale for noun, scale in named if noun in words), None)


def _caption_above(text: str, start: int) -> str:
    """The lines right above a table (its title and '(In millions)' caption), nearest last."""
    head = text[max(0, start - _CAPTION_CHARS):start]
    lines = [ln.strip() for ln in head.splitlines() if ln.strip()][-_CAPTION_LINES:]
    return " ".join(lines)


# a header cell that states only a scale, with its currency ('(in millions)', '$ in thousands', 'US$'000', '£000')
_SCALE_ONLY = re.compile(
    r"(?i)\(?\s*(?:(?:tabular\s+)?(?:amounts?|dollars?|figures?)\s+)?(?:in\s+)?"
    r"(?:u\.?s\.?\s*\$|us\$|[$€£¥]|usd|eur|gbp|rmb|hk\$|s\$|a\$|c\$)?\s*(?:in\s+)?['’]?\s*"
    r"(?:000s?|thousands?|millions?|billions?|mn|bn|m|k)\b\.?\s*(?:,\s*except\b[^()]*)?\)?")


def _scale_row(row: list[tuple[int, int, str]]) -> bool:
    """Is a header row a scale alone ('| | (in millions) | |', '| | US$'000 | US$'000 |'), in whichever column it
    stands? Then it is the table's caption, not the header of the column it happens to stand over."""
    filled = [t for _, _, t in row if not _is_empty(t)]
    return bool(filled) and all(_SCALE_ONLY.fullmatch(t) and quantities.detect_scale_context(t)[0] is not None
                                for t in filled)


_LEAD_IN_CHARS = 4000


def _grid_end(grid: _Grid) -> int:
    return max((b for row in grid.rows for _, b in row), default=grid.start)


def _lead_in_below(text: str, end: int) -> str:
    """A sentence below the last table of a file that introduces a table and states its scale ('Other assets consist
    of the following (in thousands):'): no table follows it, so the one above is the table it is the caption of (a
    document tool renders a table before the text around it). '' when none."""
    m = _LEAD_IN.search(text, end, min(len(text), end + _LEAD_IN_CHARS))
    if m is None:
        return _naming_lead_in(text, end)
    start = max(text.rfind("\n", end, m.start()), text.rfind(". ", end, m.start())) + 1
    return " ".join(text[start:m.end()].split())


# a line that introduces a table without stating a scale ('Operating income included the following:', 'The following
# table sets forth the number of warrants outstanding as of December 31, 2019:')
_NAMING_LEAD_IN = re.compile(r"(?i)[ \t]*(?:<p>)?(?P<lead>[^\n:<>]{8,160}?\b(?:the\s+following|as\s+follows)"
                             r"|(?:the\s+)?(?:following\s+tables?|tables?\s+below)\b[^\n:<>]{4,240}?)\s*:\s*(?:</p>)?[ \t]*")


def _naming_lead_in(text: str, end: int) -> str:
    """The line below the last table that introduces a table and names what it holds but states no scale
    ('Operating income included the following:'): the table's caption too (a bare 'Total' row totals what it
    names, see `derive._caption_total`). It is the first line below the table, or the last line of the text the
    table stands in (of a trace file's field: the lines indented as its first), where no table follows it to
    introduce: a document tool renders a section's table before its paragraphs, the lead-in last (page text may
    wrap it over a few lines). A line between them may introduce something else, and is not read."""
    after = text.find("\n", end)
    lines = [(_TAG.sub("", line).strip(), len(line) - len(line.lstrip()))
             for _, line in _lines(text[after + 1:] if after >= 0 else "")]
    filled = [(words, indent) for words, indent in lines if words]  # past the table's last line and its closing tags
    if not filled:
        return ""
    first, indent = filled[0]
    block = list(itertools.takewhile(lambda li: not li[0] or li[1] >= indent, lines[lines.index(filled[0]):]))
    last = [words for words, _ in block]
    while last and not last[-1]:
        last.pop()
    wrapped = last[len(last) - next((k for k, words in enumerate(reversed(last)) if not words), len(last)):]
    for candidate in dict.fromkeys([first] + [" ".join(wrapped[-n:]) for n in range(1, min(len(wrapped), 3) + 1)]):
        m = _NAMING_LEAD_IN.fullmatch(candidate)
        if m is not None:
            return " ".join(m.group("lead").split())
    return ""


def _read_cell(text: str, span: tuple[int, int], read: Callable[[str], str], placed: bool) -> tuple[int, int, str]:
    """A cell's span and text, less its footnote mark. On page text (`placed`) a header or label cell keeps the span
    its mark ends ('% of penetration(2)(3)' ends over its column's right edge, as the figures below it do): there
    the span says where the cell stands; a figure's span is what it cites, without the mark."""
    a, b = _unmarked(text, *span)
    cell = read(text[a:b]).strip()
    return (a, span[1] if placed and not _is_figure(cell) else b, cell)


def _grid_cells(text: str, grid: _Grid) -> list[list[tuple[int, int, str]]]:
    read = html.unescape if grid.markup else str
    return [[_read_cell(text, span, read, grid.right_aligned) for span in row] for row in grid.rows]


def _first_data(rows: list[list[tuple[int, int, str]]]) -> int | None:
    """The first row holding a figure beside its label: past the labels' column, which is the first, or the last where
    records are rendered as rows ('47 | Chief Financial Officer | Andrew R Kaiser')."""
    return next(
        (i for i, row in enumerate(rows) if any(_is_figure(t) for _, _, t in row[1:] or row)
         or len(row) >= 2 and _is_label(row[-1][2]) and any(_is_figure(t) for _, _, t in row[:-1])), None
    )


def _interpret(text: str, grid: _Grid, below: str = "") -> list[Cell]:
    rows = _grid_cells(text, grid)
    first_data = _first_data(rows)
    if first_data is None:
        return []
    headers = rows[:first_data]
    marks = column_marks(text, grid.rows)  # header rows may repeat inside the grid
    # a header line that only states the scale ('(In thousands, except percentages)') is the table's caption,
    # not a column: 'percentages' makes no column a column of percentages
    stated = [row for row in headers if (len(row) == 1 and _SCALE_PHRASE.fullmatch(row[0][2])) or _scale_row(row)]
    headers = [row for row in headers if not any(row is r for r in stated)]
    section = ""
    margin = min((text.rfind("\n", 0, row[0][0]) + 1, row[0][0]) for row in rows[first_data:] if row)
    margin_width = margin[1] - margin[0]

    # the labels' column: the first, or where the first row of figures holds its words (records rendered as rows put
    # the label last: '$12,863 | $12,625 | Transaction related')
    label_column = next((k for k, (_, _, t) in enumerate(rows[first_data]) if _is_label(t)), 0)

    def lone_period(row: list[tuple[int, int, str]]) -> frozenset[Period]:
        """A row whose one filled cell is a date in the labels' column ('June 30, 2018' above the rows of that
        date): the period of the rows below it (whose columns name none), not a column's header."""
        filled = [(k, a, t) for k, (a, _, t) in enumerate(row) if not _is_empty(t)]
        if len(filled) != 1 or not _is_period(filled[0][2]) or _is_label(filled[0][2]):
            return frozenset()
        k, a, t = filled[0]
        at_labels = a - (text.rfind("\n", 0, a) + 1) <= margin_width + 2 if grid.right_aligned else k == label_column
        return periods_in(t) if at_labels else frozenset()

    if grid.right_aligned:
        # a label-only line at the labels' margin ('Current liabilities:') is a section, not a header
        while headers and len(headers[-1]) == 1 and not _is_period(headers[-1][0][2]):
            a = headers[-1][0][0]
            if a - (text.rfind("\n", 0, a) + 1) > margin_width + 2:
                break
            section = headers.pop()[0][2].rstrip(":")
    else:
        # a row above the first figures whose only words stand in the labels' column ('"" | "" | United Kingdom
        # corporation tax:' of records rendered as rows) is the first section, not a header
        label_at = next((k for k, (_, _, t) in enumerate(rows[first_data]) if _is_label(t)), None)
        while headers and label_at is not None:
            filled = [(k, t) for k, (_, _, t) in enumerate(headers[-1]) if not _is_empty(t)]
            if len(filled) != 1 or filled[0][0] != label_at or not _is_label(filled[0][1]):
                break
            headers.pop()
            section = section or filled[0][1].rstrip(":")
    block = next((found for row in reversed(headers) if (found := lone_period(row))), frozenset())
    headers = [row for row in headers if not lone_period(row)]
    scale_rows = " ".join(next(t for _, _, t in row if not _is_empty(t)) for row in stated)
    caption = " ".join([_caption_above(text, grid.start), scale_rows]).strip()
    # the table's own scale row states its scale and currency before the lines above it (prose above a table may
    # say 'pounds' of chicken, which is no currency of the table)
    caption_scale, caption_unit = quantities.detect_scale_context(scale_rows) if scale_rows else (None, None)
    if caption_scale is None and caption:
        caption_scale, caption_unit = quantities.detect_scale_context(caption)
    header_text = " ".join(t for row in headers for _, _, t in row)
    if caption_scale is None and caption_unit is None and header_text:
        caption_scale, caption_unit = quantities.detect_scale_context(header_text)
    if below:
        # the lead-in below the table names what it holds and states its scale (and its 'except per share data')
        # as a caption would; the caption's own scale stands first
        caption = f"{caption} {below}".strip()
        stated_below = _SCALE_PHRASE.search(below)
        if caption_scale is None and stated_below is not None:
            lead_scale, lead_unit = quantities.detect_scale_context(stated_below.group())
            caption_scale, caption_unit = lead_scale, caption_unit or lead_unit
    if caption_scale is None and caption_unit is None:
        caption_scale, caption_unit = _stated_scale(text, grid.start)
    except_per_share = bool(_EXCEPT.search(caption + " " + header_text))
    # a scale the caption states for one noun ('(shares in thousands)') beside one for the whole table ('Tabular
    # amounts in millions'): rows naming the noun take the first, the others the second; a caption stating only
    # scales of nouns keeps the first one it states for every row
    stated_for = " ".join([scale_rows, caption, header_text])
    named = named_scales(stated_for)
    whole = _whole_table_scale(stated_for) if named else None
    if named and whole is not None:
        caption_scale = whole
    else:
        named = ()
    # page text: the right edges of the figure columns, by which a header line whose cells each end over one of
    # them is told from a header over groups of columns
    figure_edges = {_column_range(text, a, b)[1] for row in rows[first_data:] for a, b, t in row if _is_figure(t)} \
        if grid.right_aligned else set()

    def column_headers(index_from_right: int | None, index: int, span: tuple[int, int] = (0, 0),
                       width: int = 0) -> tuple[tuple[str, ...], str]:
        """The header cells over a figure, top down, and their footnote marks (`column_mark`)."""
        found, marked = [], []
        for r, row in enumerate(headers):
            # a blank cell of records rendered as rows is written '""': no header, as an empty cell is
            texts = ["" if _is_blank(t) else t for _, _, t in row]
            at: int | None = None
            if grid.right_aligned:
                # the line's first cell is the labels' column's only where it stands at the labels' margin: 'Low' over
                # the first figure column of 'Low   High' heads that column
                at_margin = row[0][0] - (text.rfind("\n", 0, row[0][0]) + 1) <= margin_width + 2
                label_less = texts[1:] if len(texts) > 1 and not _is_period(texts[0]) and at_margin else texts
                j = len(label_less) - 1 - (index_from_right or 0)
                cell = label_less[j] if 0 <= j < len(label_less) else ""
                if len(label_less) == 1:
                    # one header cell on the line heads every column, but those a lower line tells apart from it
                    lone = next(c for c in row if c[2] == label_less[0])
                    under = [(_over(text, lower, span), _over(text, lower, lone[:2])) for lower in headers[r + 1:]]
                    cell = "" if _spans_apart(lone[2], under) else label_less[0]
                elif len(label_less) > 1:
                    # page text: the header cell standing over the figure, by position on the line; counted from
                    # the right only when no cell stands over any and the header has one cell per column
                    over = _over(text, row, span)
                    cell = over or (cell if len(label_less) == width and not _over_any(text, row, span) else "")
                    if not cell and width > len(label_less) and width % len(label_less) == 0 \
                            and not _per_column(text, row, figure_edges):
                        # a header over groups of columns ('December 31, 2019' over 'Carrying Amount   Fair
                        # Value'), standing over one of its group: the k-th group from the right is its k-th cell
                        group = (index_from_right or 0) // (width // len(label_less))
                        cell = label_less[len(label_less) - 1 - group] if group < len(label_less) else ""
                    if not cell:
                        cell = _group_over(text, row[len(texts) - len(label_less):], span, figure_edges)
            else:
                cell = texts[index] if index < len(texts) else ""
                at = row[index][0] if cell else None
                if not cell:
                    # a header spanning columns ('Years Ended December 31,' over '2019 | 2018'): the nearest
                    # filled cell to the left, unless that is the row-label column
                    left = [t for t in texts[1:index] if t]
                    origin = next((k for k in range(index - 1, 0, -1) if texts[k]), 0)
                    under = [(lower[index][2] if index < len(lower) else "", lower[origin][2] if origin < len(lower) else "")
                             for lower in headers[r + 1:]]
                    cell = left[-1] if left and sum(1 for t in texts[1:] if t) == 1 \
                        and not _spans_apart(left[-1], under) else _spanned(texts, index)
                    cell = cell or _lone_period_cell(texts)
            if cell and not _is_empty(cell):
                found.append(cell)
                # the cell over the figure, or the first of its text (a spanning or right-aligned header)
                if at is None:
                    # page text aligns a column's cells at their right edges (a header's mark included, see
                    # `_read_cell`): of two cells alike but for their marks ('FY18**', 'FY18***'), the one whose right
                    # edge is nearest the figure's
                    figure_right = _column_range(text, *span)[1]
                    at = min(((a, b) for a, b, t in row if t == cell), default=(None, None),
                             key=lambda ab: abs(_column_range(text, *ab)[1] - figure_right))[0]
                marked.append(marks.get(at, ""))
        return tuple(found), column_mark(marked)

    cells: list[Cell] = []
    column_of: list[int] = []  # each cell's column (counted from the right on page text)
    amount_reading: dict[int, tuple[float | None, str | None]] = {}  # a cell a '%' header made a percentage: else
    since: list[list[tuple[int, int, str]]] = []  # rows without figures since the last row with some
    for row in rows[first_data:]:
        texts = [t for _, _, t in row]
        # the row label: its first cell of words (records rendered as rows put it last: '140 | 151 | Revenue')
        label = next((t for t in texts if _is_label(t)), "")
        figures = [(k, cell) for k, cell in enumerate(row) if _is_figure(cell[2])]
        # page text: a placeholder ('—') holds its column as a figure does, for counting columns from the right
        slots = [k for k, (_, _, t) in enumerate(row) if k and (_is_figure(t) or t and _is_empty(t))]
        if not figures:
            if label and len(texts) - sum(_is_empty(t) for t in texts) <= 1:
                # a section row: 'Current liabilities:'; a label over placeholders only ('Regional films  —  —  —',
                # 'n/a') is a row whose values are nil, and the rows below stay in the section above it
                if not any(_is_empty(t) and not _is_blank(t) for t in texts):
                    section = label.rstrip(":")
            else:
                since.append(row)
            continue
        if since:
            # header rows repeated inside the grid ('(In Millions) | Dec 30, 2017 | ... | Dec 29, 2018', or
            # 'Fiscal 2018' over 'First Quarter ...' on page text) head the block below them; a lone date in the
            # labels' column dates the rows below it
            lone = [lone_period(r) for r in since]
            if all(lone):
                block = lone[-1]
            elif any(_is_period(t) for r in since for _, _, t in r):
                headers = since
            since = []
        # the row's own period: its label ('Q3 2024') or a period cell of it (a records table's 'fiscal_year' column)
        row_periods = periods_in(label) | frozenset(p for t in texts if _is_period(t) for p in periods_in(t))
        row_months = calendar_months(" ".join([label, *(t for t in texts if _is_period(t))]))
        # a letter in parentheses after a row label is a footnote mark ('Transfers (Note (b))', 'Disposals (c)'),
        # not a scale: '(b)' is no 'billions' (a row's scale is written '$b', 'bn', 'USD m')
        cue_text = _LETTER_MARK.sub(" ", label)
        row_cue = quantities._field_cue(cue_text) if cue_text.strip() else None  # noqa: SLF001 - the parser's own field reading
        for n, (k, (a, b, t)) in enumerate(figures):
            from_right = len(slots) - 1 - slots.index(k) if k in slots else len(figures) - 1 - n
            columns, mark = column_headers(from_right, k, (a, b), len(slots))
            periods = row_periods | column_periods(columns) or block
            if not periods and columns:
                periods = _header_year_part(headers, columns)
            if not row_periods and len(parts_named(label)) == 1:
                # a row of one quarter (or half) under a year's columns ('Second Quarter' under '2018 | Low | High')
                # is that quarter of the year: its ordinal is part of its label, and a claim about another quarter
                # is not about its cell ('second' is a unit word, so the label kept no word of its own)
                periods = within_year(periods, label)
            scale, unit = _named_scale(named, label, section, columns) or caption_scale, caption_unit
            column_scale, column_unit = quantities.detect_scale_context(" ".join(columns)) if columns else (None, None)
            if column_scale is not None or column_unit is not None:
                scale = column_scale if column_scale is not None else scale
                unit = column_unit if column_unit is not None else unit
            amount = (scale, unit)  # the reading of an amount in this column, before a '%' header makes it a percentage
            column_cue = quantities._field_cue(columns[-1]) if columns else None  # noqa: SLF001 - 'revenue_usd_millions'
            if column_cue is not None and not column_cue.date:
                scale = column_cue.scale if column_cue.scale is not None else scale
                unit = column_cue.currency or ("%" if column_cue.percent else unit)
                scale = None if unit == "%" else scale  # a percentage has no scale ('% of total revenue')
            if caption_unit is not None and unit == caption_unit and column_scale is None and column_unit is None \
                    and _counted(columns):
                scale, unit = None, None
            if _PERCENT_LABEL.search(label) or any(_PERCENT_LABEL.search(c) for c in columns):
                scale, unit = None, "%"
            elif except_per_share and _PER_SHARE.search(f"{label} {section}"):  # 'Basic' under 'Net Income per Share:'
                scale = None
            elif row_cue is not None and row_cue.scale is not None:
                scale = row_cue.scale
            if unit == "%" and amount[1] != "%" and not _PERCENT_LABEL.search(label):
                amount_reading[len(cells)] = amount  # a column its header made one of percentages: `_amount_columns`
            cells.append(Cell(a, b, CellLabel(
                row=label, section=section, columns=columns, periods=periods, caption=caption,
                scale=scale, unit=unit, mark=mark, months=row_months,
            )))
            column_of.append(from_right if grid.right_aligned else k)
        if section and _closes_section(label, section):
            section = ""
    cells = _paired_columns(_roll_forward(cells), column_of, grid.right_aligned)
    cells = _amount_columns(text, cells, column_of, amount_reading)
    return _percent_columns(text, _section_totals(text, cells, column_of), column_of)


# a balance row's date in words ('Nonvested at January 1, 2018', 'Balance as of December 31, 2019')
_BALANCE_DATE = re.compile(r"(?i)\b(?P<month>january|february|march|april|may|june|july|august|september|october"
                           r"|november|december)\s+(?P<day>\d{1,2}),?\s+(?P<year>" + _YEAR + r")\b")
# a balance dated in the first days of January closes the year before ('January 1, 2018' ends fiscal 2017)
_YEAR_END_SPILL_DAYS = 7


def _header_year_part(headers: list[list[tuple[int, int, str]]], columns: tuple[str, ...]) -> frozenset[Period]:
    """The quarter (or half) a column's header names without a year, in the one year the header's other columns name
    ('First Quarter' beside 'Fiscal 2019 Fourth Quarter' and 'Fiscal 2019 Total', the keys of records whose spanning
    header stood over one column only): none where the header names no year or several, or dates that part already
    (another column's 'Q1 2019' beside an undated 'Q1' is another year's)."""
    parts = parts_named(" ".join(columns))
    if len(parts) != 1:
        return frozenset()
    dated = frozenset(p for row in headers for _, _, t in row for p in column_periods((t,)))
    years = {year for year, _ in dated}
    if len(years) != 1 or parts & {part for _, part in dated}:
        return frozenset()
    return frozenset({(years.pop(), next(iter(parts)))})


def _closing_year(m: re.Match[str]) -> int:
    year = int(m.group("year"))
    return year - 1 if m.group("month").lower() == "january" and int(m.group("day")) <= _YEAR_END_SPILL_DAYS else year


_DATED_RANGE = re.compile(
    r"(?i)\b(?:between|from)\s+(?P<first>" + _BALANCE_DATE.pattern.removeprefix("(?i)") + r")\s*,?\s+(?:and|to|through|until)\s+"
    r"(?P<second>" + _BALANCE_DATE.pattern.removeprefix("(?i)").replace("?P<", "?P<b_") + r")")


def dated_ranges(text: str) -> list[tuple[int, int, frozenset[Period]]]:
    """The ranges between two dates a text names ('between December 30, 2018 and December 29, 2019'), each with
    its span and the years it covers: those a roll-forward's blocks between the same two balance dates are dated
    with (`_roll_forward`), the years after the first date's closing year up to the second's. The first date
    closes the year before the range, so the range names 2019 alone, not 2018: the block that ends on December
    30, 2018 holds 2018's flows, which are not the claim's."""
    out = []
    for m in _DATED_RANGE.finditer(text):
        first = _closing_year(_BALANCE_DATE.match(m.group("first")))
        second = _closing_year(_BALANCE_DATE.match(m.group("second")))
        if first < second <= first + 12:
            out.append((m.start(), m.end(), frozenset((year, "") for year in range(first + 1, second + 1))))
    return out


def _roll_forward(cells: list[Cell]) -> list[Cell]:
    """A roll-forward ('Nonvested at January 1, 2018', 'Granted', 'Vested', 'Forfeited', 'Nonvested at December
    30, 2018', ...) dates its flow rows by the balance rows around them: the rows between two dated balances are
    the movements of the year the second one closes. Without it 'Forfeited (18)' of 2018 carries no period and
    backs a claim about any year's forfeitures. Only flow rows with no period of their own are dated, and only
    between two balance rows of the same table."""
    dated = [(i, m) for i, c in enumerate(cells) if (m := _BALANCE_DATE.search(c.label.row)) is not None]
    if len(dated) < 2:
        return cells
    out = list(cells)
    for (i, _), (j, closing) in zip(dated, dated[1:]):
        period = frozenset({(_closing_year(closing), "")})
        for k in range(i + 1, j):
            c = out[k]
            if not c.label.periods:  # a row between two consecutive balance rows is no balance row itself
                out[k] = Cell(c.start, c.end, replace(c.label, periods=period))
    return out


# a column header that names what its figures count ('Number of Shares', 'Units', 'No. of employees')
_COUNTED = re.compile(r"(?i)^\W*(?:(?:number|no\.)\s+of\s+\w+(?:\s+\w+)?|shares|units|options|employees|headcount)\W*$")


def _counted(columns: tuple[str, ...]) -> bool:
    """Does the column's header name a count? A caption's currency scale ('$ in millions', 'Dollars in thousands')
    states the scale of the table's amounts, not of the share counts beside them ('Number of Shares' 253,113 are
    no $253,113 million), with or without the year a flattened header names beside it; a caption without a currency
    ('(In thousands)') may scale counts, and is kept."""
    return any(_COUNTED.match(_PERIOD.sub(" ", c)) for c in columns)  # '2019 Number of Shares' of flattened records


def column_marks(text: str, header_rows: list[list[tuple[int, int]]]) -> dict[int, str]:
    """The footnote mark cut from each header cell (`_unmarked`), by the cell's start: '**' of 'FY18**'."""
    found = {}
    for row in header_rows:
        for a, b in row:
            _, kept = _unmarked(text, a, b)
            if kept < b and text[kept:b].strip():
                found[a] = text[kept:b].strip()
    return found


def column_mark(marks: list[str]) -> str:
    """A column's footnote mark: that of its header cell nearest the figure that has one. A period's header is
    read without its mark ('FY18' of 'FY18**'), but a table may hold one period twice under two marks ('FY18**'
    for the comparable group, 'FY18***' for the full one): the mark then tells its series apart ('FY19**' and
    'FY18**' one, 'FY18***' another), whatever spanning header stands over some of them."""
    return next((m for m in reversed(marks) if m), "")


_TOTAL_ALONE = re.compile(r"(?i)^\W*total\W*(?:\(\w{1,2}\)\W*)?$")


def _closes_section(label: str, section: str) -> bool:
    """Does a row of figures total the section it stands in, so that the rows below it stand outside it? A row
    without a label (the subtotal line of 'Acquisition-related charges:'), 'Total' alone, or 'Total' with the
    section's words ('Total current assets' of 'Current assets:'); 'Restructuring and other charges' two rows
    below the subtotal is no acquisition-related charge."""
    if not label.strip() or _TOTAL_ALONE.match(label):
        return True
    section_words = words_besides_periods(section)
    return TOTAL_ROW.match(label) is not None and bool(section_words) and section_words <= words_besides_periods(label)


# rounding: a section's rows may add up to its total within this share
_TOTAL_SLACK = 0.005


def _section_totals(text: str, cells: list[Cell], column_of: list[int]) -> list[Cell]:
    """A row 'Total' alone under a section is named 'Total <section>' ('Total' under 'Revenue:' is total revenue)
    where the section's other rows add up to it in its column; else it may be the table's total, and keeps its
    label (a 'Total' after the 'Non-audit Fees:' rows of an audit fees table totals every fee). A row of figures
    without a label is a subtotal line of the same kind, where it adds up so."""
    out = list(cells)
    for i, cell in enumerate(cells):
        if not cell.label.section and not cell.label.row.strip():
            out[i] = _unlabelled_total(text, cells, column_of, i)
            continue
        if not cell.label.section or not (_TOTAL_ALONE.match(cell.label.row) or not cell.label.row.strip()):
            continue
        total = _cell_value(text, cell)
        parts = []
        for j in range(i - 1, -1, -1):
            if cells[j].label.section != cell.label.section:
                break
            if column_of[j] == column_of[i] and not TOTAL_ROW.match(cells[j].label.row):
                parts.append(_cell_value(text, cells[j]))
        if total is not None and parts and None not in parts and abs(sum(parts) - total) <= _TOTAL_SLACK * abs(total) + 1:
            out[i] = replace(cell, label=replace(cell.label, row=f"Total {cell.label.section}"))
    return out


def _unlabelled_total(text: str, cells: list[Cell], column_of: list[int], i: int) -> Cell:
    """A row of figures without a label outside any section ('|  | $23,406 | $30,391 |' under the regions of a
    revenue table) is the table's 'Total' where the labelled rows above it, back to the table's start or the last
    total or unlabelled row, add up to it in its column; else it keeps no label, and below two rows or more it is
    marked as no total (a claim naming a total is not backed by it through its caption's words). Only a sum of two rows or more of
    one sign: one row above it is no total, and a line adding assets and (liabilities) is a net position (a claim
    about 'total monetary assets' would take it for theirs)."""
    cell = cells[i]
    total = _cell_value(text, cell)
    parts = []
    first = i
    while first and not cells[first - 1].label.row.strip() and column_of[first - 1] != column_of[i]:
        first -= 1  # the row's own cells to the left of this one
    for j in range(first - 1, -1, -1):
        row = cells[j].label.row
        if not row.strip() or TOTAL_ROW.match(row) or cells[j].label.section or cells[j].label.caption != cell.label.caption:
            break
        if column_of[j] == column_of[i]:
            parts.append(_cell_value(text, cells[j]))
    if total is None or len(parts) < 2 or None in parts:
        return cell
    if abs(sum(parts) - total) > _TOTAL_SLACK * abs(total) + 1 or min(parts) < 0 < max(parts):
        # adds up to nothing above it, or assets less liabilities (a net position): no total of the rows above
        return replace(cell, label=replace(cell.label, no_total=True))
    return replace(cell, label=replace(cell.label, row="Total"))


# a row label that begins with 'Total' ('Total current assets', 'Total:')
TOTAL_ROW = re.compile(r"(?i)^\W*total\b")


def _cell_value(text: str, cell: Cell) -> float | None:
    found = quantities.parse_quantities(text[cell.start:cell.end], years=False, cell=True)
    return found[0].value if len(found) == 1 else None


def _paired_columns(cells: list[Cell], column_of: list[int], right_aligned: bool) -> list[Cell]:
    """Columns of one header without a period repeated after each period's column ('2019 | % of total | 2018 | %
    of total') are each that period's: the share beside an amount is of the amount's year. Without it '3.7%' of
    2018 backs a claim about 2019. Only where the header repeats after two periods' columns or more, each of its
    own period, and the column to its left is a period's (a lone 'Change' after '2019 | 2018' compares both)."""
    headers: dict[int, set[tuple[str, ...]]] = {}
    for cell, key in zip(cells, column_of, strict=True):
        headers.setdefault(key, set()).add(cell.label.columns)
    step = 1 if right_aligned else -1  # page text counts its columns from the right
    groups: dict[tuple[str, ...], list[int]] = {}
    for key, found in headers.items():
        if len(found) == 1 and (columns := next(iter(found))) and not column_periods(columns):
            groups.setdefault(columns, []).append(key)
    periods: dict[int, frozenset[Period]] = {}
    for keys in groups.values():
        left = [headers.get(key + step, set()) for key in keys]
        dated = [column_periods(next(iter(found))) if len(found) == 1 else frozenset() for found in left]
        if len(keys) >= 2 and all(dated) and len(set(dated)) == len(dated):
            periods.update(zip(keys, dated, strict=True))
    if not periods:
        return cells
    return [replace(cell, label=replace(cell.label, periods=periods[key]))
            if key in periods and not cell.label.periods else cell for cell, key in zip(cells, column_of, strict=True)]


_CURRENCY_SIGN = re.compile(r"US\$|[$€£¥]")


def _amount_columns(text: str, cells: list[Cell], column_of: list[int],
                    amount_reading: dict[int, tuple[float | None, str | None]]) -> list[Cell]:
    """A column a header calls a percentage ('Percent Change 2018' of a header flattened over the wrong columns)
    whose figures are written with a currency sign ('$18,030') is a column of amounts: its bare figures keep the
    table's scale and unit (`amount_reading`: what they were before the header's '%'), as a '$' beats a '%' header.
    A figure written with '%' stays a percentage wherever it stands."""
    signed = {column_of[i] for i, cell in enumerate(cells) if i in amount_reading
              and _CURRENCY_SIGN.search(written := text[cell.start:cell.end]) and "%" not in written}
    if not signed:
        return cells
    out = list(cells)
    for i, (scale, unit) in amount_reading.items():
        if column_of[i] in signed and "%" not in text[cells[i].start:cells[i].end]:
            out[i] = replace(cells[i], label=replace(cells[i].label, scale=scale, unit=unit))
    return out


def _percent_columns(text: str, cells: list[Cell], column_of: list[int]) -> list[Cell]:
    """A column whose first and last figures carry '%' ('100.0 %' ... '7.2 %', the bare rows between) is a
    column of percentages, as a '$' written on the first and total rows only makes a column of amounts."""
    by_column: dict[int, list[int]] = {}
    for i, key in enumerate(column_of):
        by_column.setdefault(key, []).append(i)
    out = list(cells)
    for members in by_column.values():
        shown = [text[cells[i].start:cells[i].end] for i in members]
        if len(members) < 3 or not shown[0].rstrip(" )").endswith("%") or not shown[-1].rstrip(" )").endswith("%"):
            continue
        for i, written in zip(members, shown, strict=True):
            if not re.search(r"[%$€£¥]", written):
                out[i] = replace(cells[i], label=replace(cells[i].label, scale=None, unit="%"))
    return out


def _column_range(text: str, start: int, end: int) -> tuple[int, int]:
    line_start = text.rfind("\n", 0, start) + 1
    return start - line_start, end - line_start


def _over(text: str, row: list[tuple[int, int, str]], span: tuple[int, int]) -> str:
    """The cell of a header line of page text that overlaps the figure's columns most ('' when none does)."""
    lo, hi = _column_range(text, *span)
    best, best_overlap = "", 0
    for a, b, t in row:
        ha, hb = _column_range(text, a, b)
        overlap = min(hi, hb) - max(lo, ha)
        if overlap > best_overlap:
            best, best_overlap = t, overlap
    return best


def _per_column(text: str, row: list[tuple[int, int, str]], figure_edges: set[int]) -> bool:
    """Does every cell of a header line of page text end over a figure column (right edges within two
    characters), the cells over neighbouring columns, as 'F19   F18' over the first two of four columns? Such a
    line heads those columns one by one, and no others. A header over groups of columns ('December 31, 2019' over
    'Carrying Amount   Fair Value') ends over every other column, or between its group's figures."""
    under = _columns_under(text, row, _figure_columns(figure_edges))
    return under is not None and len(under) >= 2 and under == list(range(under[0], under[0] + len(under)))


def _figure_columns(figure_edges: set[int]) -> list[int]:
    """The figure columns of page text by their right edges, those within two characters as one."""
    columns: list[int] = []
    for edge in sorted(figure_edges):
        if not columns or edge - columns[-1] > 2:
            columns.append(edge)
    return columns


def _columns_under(text: str, row: list[tuple[int, int, str]], columns: list[int]) -> list[int] | None:
    """The figure column each filled cell of a header line ends over (right edges within two characters), in order;
    None when a cell ends over none."""
    under = []
    for a, b, t in row:
        if not t or _is_empty(t):
            continue
        right = _column_range(text, a, b)[1]
        found = [k for k, edge in enumerate(columns) if abs(right - edge) <= 2]
        if not found:
            return None
        under.append(found[0])
    return under


def _group_over(text: str, row: list[tuple[int, int, str]], span: tuple[int, int], figure_edges: set[int]) -> str:
    """The header cell of page text written over the first column of the group it spans, as the grid forms write a
    spanning header in the first cell it spans (`_spanned`): 'Net additions (losses)' over the first of its two
    columns, '% of penetration' over the first of the next two. Only where the cells end over figure columns evenly
    spaced two or more apart, and their groups, each as wide as that spacing, end at the table's last column (a
    header over the last column of each group leaves the last group short, and is not read so); a column left of the
    first group has none."""
    columns = _figure_columns(figure_edges)
    under = _columns_under(text, row, columns)
    if under is None or len(under) < 2:
        return ""
    stride = under[1] - under[0]
    if stride < 2 or any(b - a != stride for a, b in zip(under, under[1:])) or under[-1] + stride != len(columns):
        return ""
    right = _column_range(text, *span)[1]
    at = next((k for k, edge in enumerate(columns) if abs(right - edge) <= 2), None)
    if at is None or at < under[0]:
        return ""
    filled = [t for _, _, t in row if t and not _is_empty(t)]
    return filled[(at - under[0]) // stride]


def _over_any(text: str, row: list[tuple[int, int, str]], span: tuple[int, int]) -> bool:
    """Does any header cell of the line stand over a figure column of the same line width (right edges within
    two characters)? When none does, the header is laid out apart from the figures and is counted instead."""
    _, hi = _column_range(text, *span)
    return any(abs(_column_range(text, a, b)[1] - hi) <= 2 for a, b, _ in row)


# '(Tabular amounts in millions, unless otherwise disclosed)', '(in thousands, except per share data)'; a page's text
# may wrap the line within the parentheses ('(in millions, except per' / 'share amounts)')
_SCALE_PHRASE = re.compile(
    r"(?i)\((?:[^()\n]|\n(?![ \t]*\n)){0,80}?\bin\s+(?:[$€£]\s*|usd\s+|eur\s+)?(?:thousands|millions|billions)\b"
    r"(?:[^()\n]|\n(?![ \t]*\n)){0,80}\)"
)
# a sentence that introduces a table and states its scale ('Other assets consist of the following (in thousands):',
# 'revenue by type was as follows (table in millions):', 'summarized below (amounts in millions).')
_LEAD_IN = re.compile(
    r"(?i)\b(?:follow\w*|below|table|summar\w*|consist\w*|compris\w*|compos\w*|presents?|sets?\s+forth)\b"
    r"(?:[^.:;\n]|\.(?=\S)|(?<=\b[A-Z])\.|\n(?![ \t]*\n)){0,240}?"  # one sentence: 'U.S.' ends none, nor a wrapped line
    rf"(?P<scale>{_SCALE_PHRASE.pattern.removeprefix('(?i)')})\s*[:.]"
)


def _stated_scale(text: str, start: int) -> tuple[float | None, str | None]:
    """The scale a file states for a table whose caption lines say none: the last parenthesised scale
    phrase above it, else a 'units:' / 'caption:' field of the record (rendered JSON sorts keys, so it may
    stand after the table)."""
    above = None
    for above in _SCALE_PHRASE.finditer(text, 0, start):
        pass
    if above is not None:
        return quantities.detect_scale_context(above.group())
    return _declared_fields_scale(text)


def _declared_fields_scale(text: str) -> tuple[float | None, str | None]:
    """The scale of the first 'units:' / 'caption:' / 'title:' field that states one (a 'title:' naming the
    statement says none, and rendered JSON sorts it before 'units:')."""
    for units in _UNITS_LINE.finditer(text):
        found = quantities.detect_scale_context("in " + units.group("value"))
        if found != (None, None):
            return found
    return None, None


_RECORD_START = re.compile(r"^(?P<indent>[ \t]*)- (?P<key>[A-Za-z_][\w .%()$-]{0,60}): (?P<value>\S.*)$")
_RECORD_FIELD = re.compile(r"^(?P<indent>[ \t]*)(?P<key>[A-Za-z_][\w .%()$-]{0,60}): (?P<value>\S.*)$")
_UNITS_LINE = re.compile(
    r"(?im)^[ \t]*(?:units?|scale|currency|amounts?[ _]in|caption|title)[ \t]*:[ \t]*(?P<value>[^\n]{1,120})$"
)


def _record_cells(text: str) -> list[Cell]:
    """A JSON list of records as capture renders it ('- FY2023: 140' / '  line_item: Revenue'): each record
    is a row labelled by its fields that hold words, each numeric field a cell under its key."""
    if "- " not in text or ": " not in text:
        return []
    scale, unit = _declared_fields_scale(text)
    cells: list[Cell] = []
    record: list[tuple[str, int, int, str]] = []
    depth = -1

    def flush() -> None:
        words = [value for key, _, _, value in record if not _is_figure(value) and not _is_period(value)]
        label = " ".join(words)
        label_periods = frozenset(p for key, _, _, value in record if _is_period(value) for p in periods_in(value))
        label_months = calendar_months(" ".join([label, *(value for _, _, _, value in record if _is_period(value))]))
        for key, a, b, value in record:
            if _is_figure(value):
                periods = periods_in(key) | label_periods
                cells.append(Cell(a, b, CellLabel(row=label, section="", columns=(key,), periods=periods,
                                                  caption="", scale=scale, unit=unit, months=label_months)))
        record.clear()

    for pos, line in _lines(text):
        m = _RECORD_START.match(line)
        if m is not None:
            flush()
            depth = len(m.group("indent")) + 2
            record.append((m.group("key"), pos + m.start("value"), pos + m.end("value"), m.group("value").strip()))
            continue
        m = _RECORD_FIELD.match(line)
        if record and m is not None and len(m.group("indent")) == depth:
            record.append((m.group("key"), pos + m.start("value"), pos + m.end("value"), m.group("value").strip()))
            continue
        flush()
    flush()
    return [c for c in cells if c.label.row]


# a payment schedule's labels: a year ('2021', 'Fiscal 2021', 'FY 2021') and what follows the last year ('Thereafter',
# '2025 and thereafter', 'After 2024', 'Later years')
_SCHEDULE_YEAR = re.compile(r"(?i)^\W*(?:fiscal\s+(?:year\s+)?|fy\s?)?((?:19|20)\d\d)\W*$")
_THEREAFTER = re.compile(r"(?i)^\W*(?:thereafter|(?:19|20)\d\d\s+(?:and|&)\s+(?:thereafter|beyond|after|later)"
                         r"|(?:after|beyond)\s+(?:19|20)\d\d|later\s+years)\W*$")
_TOTAL_LABEL = re.compile(r"(?i)^\W*total\b")


def when_label(text: str) -> bool:
    """Does a row label of a payment schedule say when only ('2021', 'Thereafter'), its subject being its column's?"""
    return bool(_SCHEDULE_YEAR.match(text) or _THEREAFTER.match(text))


def schedule_years(label: CellLabel) -> tuple[int, int] | None:
    """The first and last year a payment schedule's cell covers, the last 0 for an open bucket ('Thereafter' after
    2020 ... 2024: (2025, 0); the Total: (2020, 0); the column '2022': (2022, 2022)); None outside a schedule."""
    if not label.schedule_start:
        return None
    if label.maturity == "all":
        return label.schedule_start, 0
    lo, _, hi = label.maturity.partition("-")
    first = label.schedule_start + int(lo) // 12
    return first, (label.schedule_start + int(hi) // 12 - 1 if hi else 0)


def _schedule_spans(labels: list[str]) -> dict[int, tuple[str, int]]:
    """The maturity buckets of a sequence of labels along one axis holding a payment schedule: consecutive years
    ('2020', '2021', ...) closed by 'Thereafter' are the first year from the report's date ('0-12'), the second
    ('12-24') and so on, 'Thereafter' the months after the last year ('60-' after five years), and a 'Total' the whole
    ('all'). Only years closed by such a label are a schedule: years alone are periods, left to them."""
    spans: dict[int, tuple[str, int]] = {}
    for at, text in enumerate(labels):
        if not _THEREAFTER.match(text):
            continue
        first = at
        while first > 0 and (m := _SCHEDULE_YEAR.match(labels[first - 1])) \
                and (first == at or int(m.group(1)) + 1 == int(_SCHEDULE_YEAR.match(labels[first]).group(1))):
            first -= 1
        if at - first < 2:
            continue
        start = int(_SCHEDULE_YEAR.match(labels[first]).group(1))
        spans.update({k: (f"{12 * (k - first)}-{12 * (k - first + 1)}", start) for k in range(first, at)})
        spans[at] = (f"{12 * (at - first)}-", start)
        spans.update({k: ("all", start) for k, other in enumerate(labels) if _TOTAL_LABEL.match(other) and k not in spans})
    return spans


def _payment_schedule(cells: list[Cell]) -> list[Cell]:
    """Cells of a payment schedule, by years along its columns ('2020 | 2021 | ... | Thereafter | Total') or its rows,
    labelled with their maturity bucket (`_schedule_spans`): a claim about the payments 'due after five years' is the
    'Thereafter' cell's when five years come before it, never the fifth year's nor the total's. Rows are the runs of
    consecutive cells of one row label (a section's years after another's start again)."""
    found: dict[int, tuple[str, int]] = {}
    for row in _runs(cells, lambda label: (label.row, label.section)):  # years as columns, read along each row
        for at, span in _schedule_spans([cells[k].label.columns[-1] if cells[k].label.columns else "" for k in row]).items():
            found[row[at]] = span
    # years as rows ('2020' is read as the row's period, its label left empty)
    rows = _runs(cells, lambda label: (label.row, label.section, label.periods))
    for at, span in _schedule_spans([_row_text(cells[row[0]].label) for row in rows]).items():
        for k in rows[at]:
            found.setdefault(k, span)
    if not found:
        return cells
    return [replace(cell, label=replace(cell.label, maturity=found[k][0], schedule_start=found[k][1])) if k in found
            else cell for k, cell in enumerate(cells)]


def _runs(cells: list[Cell], key: Callable[[CellLabel], object]) -> list[list[int]]:
    """The places of `cells` in runs of consecutive cells whose labels have one `key`."""
    runs: list[list[int]] = []
    for k, cell in enumerate(cells):
        if runs and key(cells[runs[-1][0]].label) == key(cell.label):
            runs[-1].append(k)
        else:
            runs.append([k])
    return runs


def _row_text(label: CellLabel) -> str:
    """A row's label as written: its words, or the year it names alone ('2021', read as its period)."""
    if label.row or len(label.periods) != 1:
        return label.row
    year, part = next(iter(label.periods))
    return "" if part else str(year)


@dataclass(frozen=True)
class GridRow:
    """A table row as its reader found it, whether it holds figures or not: where it stands (from its first cell to
    its last), its label, and its kind: 'figures'; 'section' (a label alone: 'Current liabilities:', or the first
    line of a label wrapped on two lines of page text); 'nil' (a label over placeholders only: 'Real estate | — |
    n/a'); 'header' (above the first figures); 'other' (words of no label, or none)."""

    start: int
    end: int
    kind: str
    label: str
    placeholders: int  # its cells of a placeholder ('—', 'n/a'), which hold a column but no figure


def table_rows(text: str) -> list[list[GridRow]]:
    """Every row of every table in `text` that `read_tables` reads, one list a table in source order, rows without
    figures too: what a count of a table's rows must see besides the figures the index holds (a row of placeholders
    holds none, a section row inside a section starts another). Read only where a claim counts rows."""
    out: list[list[GridRow]] = []
    for grid in (grid for reader in (_pipe_grids, _list_grids, _html_grids, _csv_grids, _pdf_grids) for grid in reader(text)):
        rows = _grid_cells(text, grid)
        first_data = _first_data(rows)
        if first_data is None:
            continue
        found = []
        for k, row in enumerate(rows):
            if not row:
                continue
            texts = [t for _, _, t in row]
            at = next((j for j, t in enumerate(texts) if _is_label(t)), None)
            label = texts[at] if at is not None else ""
            others = [t for j, t in enumerate(texts) if j != at]
            placeholders = sum(1 for t in others if _is_empty(t) and not _is_blank(t))
            if any(_is_figure(t) for t in texts) and k >= first_data:
                kind = "figures"
            elif label and all(_is_blank(t) for t in others):
                kind = "section"
            elif label and all(_is_empty(t) for t in others):
                kind = "nil"
            else:
                kind = "header" if k < first_data else "other"
            found.append(GridRow(row[0][0], row[-1][1], kind, label.strip(), placeholders))
        out.append(found)
    return out


def read_tables(text: str) -> list[Cell]:
    """Every figure-holding cell of every table in `text`, in offset order (a span is read once: the first
    reader that finds it wins, pipe rows before lists, HTML, CSV and PDF text)."""
    if not text:
        return []
    cells: list[Cell] = []
    taken: set[tuple[int, int]] = set()
    grids = [grid for reader in (_pipe_grids, _list_grids, _html_grids, _csv_grids, _pdf_grids) for grid in reader(text)]
    below = _lead_in_below(text, max(map(_grid_end, grids))) if grids else ""
    latest = max((grid.start for grid in grids), default=0)
    for grid in grids:
        # the lead-in below the last table is that table's (each reader that finds it: no grid starts after it)
        last = _grid_end(grid) >= latest
        for cell in _payment_schedule(_interpret(text, grid, below if last else "")):
            key = (cell.start, cell.end)
            if key not in taken:
                taken.add(key)
                cells.append(cell)
    for cell in _payment_schedule(_record_cells(text)):
        if (cell.start, cell.end) not in taken:
            taken.add((cell.start, cell.end))
            cells.append(cell)
    cells.sort(key=lambda c: c.start)
    return _titled_balances(text, cells)


def _titled_balances(text: str, cells: list[Cell]) -> list[Cell]:
    """The balance rows dated alone ('At 1 January', 'At 31 December') under no section, each given the title of the
    section the text holds ('18 Investment in associates'): such a row names nothing but its day, and is the balance
    of what the section is about (a claim naming that day and the title's words names the row)."""
    if not any(not c.label.section and dated_alone(c.label.row) for c in cells):
        return cells
    title = section_title(text)
    if not title:
        return cells
    return [Cell(c.start, c.end, replace(c.label, title=title)) if not c.label.section and dated_alone(c.label.row)
            else c for c in cells]


__all__ = ["Cell", "CellLabel", "GridRow", "Period", "column_periods", "format_period", "parts_named", "periods_in", "read_tables",
           "table_rows", "within_year"]
