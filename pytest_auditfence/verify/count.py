"""Stage 4b, counting: a claim that counts the periods in which one table row's figure passes a threshold ('how many
years did net sales from Americas exceed $200,000 thousand, the figure is 2'), checked by counting the row's cells, or
the rows a claim names by their section or their total ('how many components are there under alternative
investments'), all of them or those passing a threshold in one period, checked by counting those rows.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from pytest_auditfence.claims import quantities, vocabulary
from pytest_auditfence.models import ClaimRecord, Quantity, Verdict
from pytest_auditfence.verify.derive import span_of
from pytest_auditfence.verify.match import SENTENCE_END, ClaimSubject, claim_subject, sentence_start, subject_cells, subject_stem
from pytest_auditfence.verify.normalise import same_family
from pytest_auditfence.verify.results import AtomResult
from pytest_auditfence.verify.sources import Observed, SourceIndex, content_words
from pytest_auditfence.verify.tables import (
    TOTAL_ROW, WHEN_WORDS, GridRow, Period, format_period, periods_in, table_rows, without_parts,
)

# what a claim counts: periods of one kind ('how many years', 'the number of quarters', 'how many of the years')
_PERIOD_COUNT = re.compile(r"(?i)\b(?:how\s+many|number\s+of)\s+(?:(?:of\s+)?the\s+)?(?P<unit>years|quarters)\b")
# what else a claim counts: the kinds of a whole's parts ('how many components', 'the number of major categories'),
# rows of a table it names
_PARTS_COUNT = re.compile(r"(?i)\b(?:how\s+many|number\s+of)\s+(?:(?:the|different|distinct|major|main|separate)\s+)*(?:"
                          + "|".join(k.replace(" ", r"\s+") for k in vocabulary.PART_KINDS) + r")\b")
# the comparison before the threshold, and the operator a cell's figure passes it by
_COMPARISONS: tuple[tuple[str, Callable[[float, float], bool], str], ...] = (
    (r"exceed(?:s|ed|ing)?|surpass(?:es|ed)?|(?:more|greater|higher)\s+than|above|over", operator.gt, ">"),
    (r"(?:less|lower|fewer)\s+than|below|under", operator.lt, "<"),
    (r"at\s+least", operator.ge, ">="),
    (r"at\s+most", operator.le, "<="),
)
_BEFORE_THRESHOLD = re.compile(r"(?i)\b(?:" + "|".join(f"(?P<c{i}>{words})" for i, (words, _, _) in enumerate(_COMPARISONS))
                               + r")\s*$")
_SCALE_WORD = re.compile(r"(?i)\b(thousand|million|billion)s?\b")
_CURRENCY_SIGN = re.compile(r"^\s*-?\s*(US\$|[$€£¥])")
_TOTAL_WORD = re.compile(r"(?i)\btotal\b")
# more periods than this in one row is no row of a few years' figures
_MAX_PERIODS = 12


@dataclass(frozen=True)
class Count:
    """A claim's count (of periods or rows) and its threshold (None for a count of every row named), and the count's
    result: None where the rows that answer it are not all read with certainty, `why` then saying so (the count and
    its threshold are left unchecked, neither verified nor contradicted)."""

    count: Quantity
    threshold: Quantity | None
    result: AtomResult | None
    why: str = ""

    @property
    def starts(self) -> set[int]:
        """Where the count and its threshold stand in the document: the figures this check settles."""
        return {self.count.start} | ({self.threshold.start} if self.threshold is not None else set())


def count_check(claim: ClaimRecord, index: SourceIndex) -> Count | None:
    """The check of a claim that counts: periods (`period_count`), rows (`row_count`) or the items of a marked list
    (`list_count`); None when it counts nothing, or nothing answers it."""
    return period_count(claim, index) or row_count(claim, index) or list_count(claim, index)


def _count_figures(claim: ClaimRecord, after: int) -> tuple[list[tuple[Quantity, int]], list[Quantity]]:
    """The claim's thresholds (each with the index of its comparison in `_COMPARISONS`) and its candidate counts
    (small unit-less whole numbers after `after`, the end of its counting words), with document offsets: also where
    the claim is one atom of a sentence (the cascade traces the threshold alone, the count being too small a figure
    to trace), the count is read with its threshold."""
    found = [q.model_copy(update={"start": q.start + claim.start, "end": q.end + claim.start})
             for q in quantities.parse_quantities(claim.claim)]
    thresholds = []
    for q in found:
        m = _BEFORE_THRESHOLD.search(claim.claim[:max(0, q.start - claim.start)])
        if m is not None:
            thresholds.append((q, next(i for i in range(len(_COMPARISONS)) if m.group(f"c{i}"))))
    counts = [q for q in found if q.start - claim.start > after and q not in (t for t, _ in thresholds)
              and q.kind in ("number", "count") and not q.unit and q.scale == 1.0 and q.value == int(q.value)
              and 0 <= q.value <= _MAX_PERIODS]
    return thresholds, counts


def period_count(claim: ClaimRecord, index: SourceIndex) -> Count | None:
    """The check of a claim that counts the years (or quarters) in which its subject's figure passes a threshold:
    the one table row the claim names, its cells of the threshold's kind (an amount for '$5,000 million', a percentage
    for '10%') one per period, the claim's periods only when it names some; the claim's count is `derived` when the
    cells passing the threshold are as many, with a formula the gate re-computes ('($5,210 million > $5,000 million) +
    ($4,980 million > $5,000 million) = 1'), else `contradicted`. None when the claim counts nothing, or no single row
    with one figure a period answers it: the count is then not checked (see `derive.counted`)."""
    counting = _PERIOD_COUNT.search(claim.claim)
    if counting is None or claim.kind == "table_row":
        return None
    thresholds, counts = _count_figures(claim, counting.end())
    if len(thresholds) != 1 or len(counts) != 1:
        return None
    (threshold, which), count = thresholds[0], counts[0]
    cells = _row_by_period(claim, threshold, index, quarters=counting.group("unit").lower() == "quarters")
    if cells is None:
        return None
    _, passes, sign = _COMPARISONS[which]
    if passes(0.0, threshold.value) and any(row is None or row.placeholders for row in _grid_rows_of(index, cells.values())):
        # a period whose cell is a placeholder ('—') may be a zero that passes: the count is read otherwise by a reader
        return Count(count, threshold, None, _PLACEHOLDER)
    passing = [p for p, o in cells.items() if passes(index.quantity(o).value, threshold.value)]
    terms = " + ".join(f"({_at_scale(index.quantity(o), threshold)} {sign} {threshold.text})" for o in cells.values())
    spans = [span_of(index, o) for o in cells.values()]
    periods = ", ".join(format_period(p) for p in sorted(cells))
    if len(passing) == count.value:
        result = AtomResult(count.text, Verdict.DERIVED, spans, formula=f"{terms} = {count.text}",
                            note=f"{count.text} counted: the periods of {periods} {sign} {threshold.text}")
    else:
        result = AtomResult(count.text, Verdict.CONTRADICTED, spans,
                            note=f"{count.text} contradicted: of {periods}, {len(passing)} "
                                 f"({', '.join(format_period(p) for p in sorted(passing)) or 'none'}) {sign} "
                                 f"{threshold.text}, not {count.text}")
    return Count(count, threshold, result)


def _row_by_period(claim: ClaimRecord, threshold: Quantity, index: SourceIndex,
                   quarters: bool) -> dict[Period, Observed] | None:
    """The cells of the one table line the claim names, of the threshold's kind, one a period (years, or quarters), in
    the periods the claim names when it names some. A line is a row (every word of its label and section that says
    what, not when, among the claim's; of several, the one whose words hold every other's) in one column of each
    period; where a row has several such columns a period ('Gross', 'Allowance', 'Net'), the one whose header the
    claim names most ('net' of 'the total net accounts receivable'). Rows that are periods themselves (quarters under
    'Low' and 'High') are one line: what their header says, the claim must name ('quarters had lows below $2.00')."""
    subject = claim_subject(claim)
    stems = {subject_stem(w) for w in content_words(claim.claim)}
    lines: dict[tuple, dict[Period, list[Observed]]] = {}
    cells = [o for o in _candidates(claim, index, subject)
             if index.label(o) is not None and same_family(threshold, index.quantity(o))]
    # what each row's columns say in common ('Common Stock Price Range' over 'Low' and 'High')
    shared: dict[tuple, frozenset[str]] = {}
    for o in cells:
        label = index.label(o)
        key = (o.file, label.row, label.section, label.periods)
        columns = _what(" ".join(label.columns))
        shared[key] = shared[key] & columns if key in shared else columns
    for o in cells:
        label = index.label(o)
        named = _what(f"{label.row} {label.section}")
        columns = _what(" ".join(label.columns))
        if not named <= stems:
            continue
        if not named and not (columns & stems and columns - shared[(o.file, label.row, label.section, label.periods)]
                              <= stems):
            continue  # a row that is a period: the claim names its column, by every word that sets it apart
        if TOTAL_ROW.match(label.row) and not _TOTAL_WORD.search(claim.claim):
            continue  # 'Total net sales' is no region's net sales: a total row is named by 'total' too
        if len(label.periods) != 1:
            return None  # a cell of no period, or of several, in the row: not one figure a period
        period = next(iter(label.periods))
        if bool(period[1]) != quarters or subject.periods and not _within(period, subject.periods):
            continue
        lines.setdefault((o.file, label.caption, named, columns), {}).setdefault(period, []).append(o)
    # the row the claim names most fully: 'Total Product' under 'Revenue:' for 'Total Product revenue', not 'Total'
    widest = [key for key in lines if not any(key[2] < other[2] for other in lines)]
    if len({key[2] for key in widest}) != 1:
        return None
    most = max(len(key[3] & stems) for key in widest)
    widest = [key for key in widest if len(key[3] & stems) == most]
    if len(widest) != 1:
        return None
    line = lines[widest[0]]
    if len(line) < 2 or any(len(found) != 1 for found in line.values()):
        return None
    return {p: found[0] for p, found in line.items()}


def _candidates(claim: ClaimRecord, index: SourceIndex, subject: ClaimSubject) -> list[Observed]:
    """The cells that may answer a count of periods: those about the claim's subject, and the cells of rows that are
    periods themselves ('First Quarter') whose header holds a word of the claim (no row names the subject there)."""
    found = subject_cells(claim, index, subject, limit=400)
    seen = {(o.file, o.item) for o in found}
    extra = []
    for f, item in index.labelled_with_any(content_words(claim.claim)):
        fi = index.files[f]
        label = fi.labels[item]
        if (f, item) not in seen and item not in fi.alternatives and not _what(f"{label.row} {label.section}"):
            extra.append(Observed(fi.values[item], f, item))
            if len(extra) == 400:
                break
    return found + extra


def _what(text: str) -> frozenset[str]:
    """The stems of what a label or header names, not when: every word but those of periods (all of 'Accounts
    Receivable, Net'; none of 'First Quarter' or 'Year Ended December 31, 2019')."""
    return frozenset(subject_stem(w) for w in content_words(without_parts(text)) if w.lower() not in WHEN_WORDS
                     and not periods_in(w))


@dataclass(frozen=True)
class _Row:
    """A table row as the index read it: its label, its section, its cells (items of one file) in source order."""

    label: str
    section: str
    cells: tuple[int, ...]


def _blocks(index: SourceIndex, f: int) -> list[list[_Row]]:
    """The rows of a file's tables in source order, cut into blocks of consecutive rows under one section row of one
    table (a table's caption); memoised per file (for the audit: `FileIndex.memo`)."""
    fi = index.files[f]
    found = fi.memo.get("row blocks")
    if found is not None:
        return found  # type: ignore[return-value]
    blocks: list[list[_Row]] = []
    rows: list[tuple[str, str, str, list[int]]] = []
    for item in sorted((i for i in fi.labels if i not in fi.alternatives), key=fi.position):
        label = fi.labels[item]
        if rows and rows[-1][:3] == (label.row, label.section, label.caption):
            rows[-1][3].append(item)
        else:
            rows.append((label.row, label.section, label.caption, [item]))
    previous: tuple[str, str] | None = None
    for row, section, caption, items in rows:
        if (section, caption) != previous:
            blocks.append([])
            previous = (section, caption)
        blocks[-1].append(_Row(row, section, tuple(items)))
    fi.memo["row blocks"] = blocks
    return blocks


def _stems(text: str) -> frozenset[str]:
    return frozenset(subject_stem(w) for w in content_words(text))


def _sums_to(parts: list[_Row], total: _Row, index: SourceIndex, f: int) -> bool:
    """Do the rows add up to the total row, column by column (each column of the total's but percentages, a part's
    empty cell as nothing, to the precision the cells show: half a unit of the last digit per figure)?"""
    fi = index.files[f]
    checked = 0
    for item in total.cells:
        column = fi.labels[item]
        wanted = fi.quantity(item)
        if wanted.kind == "percent":
            continue  # a change in percent or a share is no sum of the rows' own
        cells = [next((i for i in part.cells if fi.labels[i].columns == column.columns), None) for part in parts]
        # a part without a figure in the column ('—') adds nothing to it
        figures = [fi.quantity(c) for c in cells if c is not None]
        if not figures or any(not same_family(wanted, q) for q in figures):
            return False
        slack = sum(q.tolerance for q in figures) + wanted.tolerance
        if abs(sum(q.value for q in figures) - wanted.value) > slack + 1e-9 * abs(wanted.value):
            return False
        checked += 1
    return checked > 0


# why a count whose rows are found is left unchecked
_UNREAD = "its rows not all read with certainty: a row without figures, a sub-section or a wrapped line among them"
_PLACEHOLDER = "a placeholder ('—', 'n/a') stands where a figure that passes may be"


def _grid_rows_of(index: SourceIndex, cells: Iterable[Observed]) -> list[GridRow | None]:
    """The table row (`tables.table_rows`) each cell stands in, None for a cell in no table row."""
    out = []
    for o in cells:
        start = index.quantity(o).start
        out.append(next((row for grid in _grids(index, o.file) for row in grid if row.start <= start < row.end), None))
    return out


def _grids(index: SourceIndex, f: int) -> list[list[GridRow]]:
    memo = index.files[f].memo  # the file's own rows, worked out once for the audit
    found = memo.get("table rows")
    if found is None:
        found = memo["table rows"] = table_rows(index.files[f].text)
    return found  # type: ignore[return-value]


def _read_whole(index: SourceIndex, f: int, parts: list[_Row], section: str, closing: _Row | None) -> bool:
    """Is every row of a counted part read as the reader of the table sees it? The parts must be consecutive rows of
    one table, each one row of it (not a label wrapped over two, nor two rows read as one), with no row between them
    that the index holds no figure of (a row of placeholders, a sub-section row); above the first, the section row
    that names them (`section`), or no such row where it is none (a row of placeholders above the parts of a total may
    be one of them); below the last, the row `closing` them (their total), or where none, the table's end."""
    fi = index.files[f]
    where: list[tuple[int, int]] = []
    for part in parts + ([closing] if closing is not None else []):
        starts = {fi.quantity(item).start for item in part.cells}
        found = {(g, k) for g, grid in enumerate(_grids(index, f)) for k, row in enumerate(grid)
                 if any(row.start <= start < row.end for start in starts)}
        if len(found) != 1:
            return False
        where.append(found.pop())
    grid_at = {g for g, _ in where}
    if len(grid_at) != 1:
        return False
    grid = _grids(index, f)[grid_at.pop()]
    rows = [k for _, k in where]
    if rows != list(range(rows[0], rows[0] + len(rows))):
        return False
    above = grid[rows[0] - 1] if rows[0] else None
    if section:
        if above is None or above.kind not in ("section", "header") or _stems(above.label) != _stems(section):
            return False
    elif above is not None and above.kind in ("nil", "other"):
        return False
    if closing is not None or rows[-1] == len(grid) - 1:
        return True
    # a section ended by another section row: a sibling ('Bonds' before 'Unquoted inputs'), not a sub-section of it,
    # unless a total below names the section or adds up its rows with those below ('Real estate:' inside
    # 'Alternative investments:', closed by 'Total alternative investments')
    if grid[rows[-1] + 1].kind != "section":
        return False
    return not _closed_below(index, f, parts, section, grid[-1].end)


def _closed_below(index: SourceIndex, f: int, parts: list[_Row], section: str, end: int) -> bool:
    """Is there a total row below the parts, before `end` (their table's end), that names their section, or that
    adds up the parts together with the rows between them and it?"""
    fi = index.files[f]
    rows = [row for block in _blocks(index, f) for row in block]
    last = max(fi.quantity(item).start for item in parts[-1].cells)
    below = [row for row in rows if last < fi.quantity(row.cells[0]).start < end]
    named = _stems(section)
    for k, row in enumerate(below):
        if not TOTAL_ROW.match(row.label):
            continue
        words = _stems(row.label) - {"total"}
        if words and named <= words:
            return True
        if not words and _sums_to(parts + [r for r in below[:k] if not TOTAL_ROW.match(r.label)], row, index, f):
            return True
    return False


def _flat(parts: list[_Row], above: _Row | None, index: SourceIndex, f: int) -> bool:
    """Are the parts one level of rows: none of them, nor the row right `above` them, is the sum of two rows or more
    right below it ('Real estate 400' over 'Direct 300' and 'REITs 100', a parent row over its own parts), and none the
    sum of two rows or more right above it (a subtotal with no word 'total': 'Gross deferred tax assets')? A reader
    counts such rows otherwise than the index's run does."""
    rows = ([above] if above is not None else []) + parts
    for k, row in enumerate(rows):
        if any(_sums_to(rows[k + 1:k + 1 + m], row, index, f) for m in range(2, len(rows) - k)):
            return False
        if row is not above and any(_sums_to(rows[k - m:k], row, index, f) for m in range(2, k + 1)
                                    if above is None or k - m > 0):
            return False
    return True


def _named_parts(claim: ClaimRecord, index: SourceIndex) -> list[tuple[frozenset[str], int, list[_Row], bool]]:
    """The rows the claim names as a whole's parts, with the stems that name the whole, the file, and whether every
    row of the part is read with certainty (`_read_whole`): the rows under a section row the claim names ('Alternative
    investments'), down to the section's first total row; or the rows right above a row the claim names ('Total
    stock-based compensation expense', 'Net change in cash balance') that add up to it in each of its columns (two rows
    or more, from the farthest such run up)."""
    stems = _stems(claim.claim)
    out: list[tuple[frozenset[str], int, list[_Row], bool]] = []
    files = sorted({f for f, _ in index.labelled_with_any(content_words(claim.claim))})
    for f in files:
        for block in _blocks(index, f):
            section = _stems(block[0].section)
            if section and section <= stems:
                parts = []
                closing = None
                for row in block:
                    if TOTAL_ROW.match(row.label):
                        closing = row
                        break
                    parts.append(row)
                if parts:
                    out.append((section, f, parts, _read_whole(index, f, parts, block[0].section, closing)
                                and _flat(parts, None, index, f)))
            for at, row in enumerate(block):
                named = _stems(row.label) - ({"total"} if TOTAL_ROW.match(row.label) else set())
                if at < 2 or not named or not named <= stems:
                    continue
                first = max((k + 1 for k in range(at) if TOTAL_ROW.match(block[k].label)), default=0)
                for start in range(first, at - 1):
                    if _sums_to(block[start:at], row, index, f):
                        out.append((named, f, block[start:at], _read_whole(index, f, block[start:at], "", row)
                                    and _flat(block[start:at], block[start - 1] if start > first else None, index, f)))
                        break
    return out


def row_count(claim: ClaimRecord, index: SourceIndex) -> Count | None:
    """The check of a claim that counts the kinds of parts of a whole it names (`vocabulary.PART_KINDS`: 'how many
    components are there under alternative investments', 'the number of categories under total share-based expense';
    not 'how many stores', which a cell may state): the parts
    of `_named_parts` the claim names most fully (of several, every one must give the same count), all of them, or
    with a threshold those whose one figure of the threshold's kind in the claim's one period passes it ('how many
    components of deferred tax assets exceeded $50,000 thousand in 2019'). The count is `derived` with a formula the
    gate re-computes ('count(2,119, 1,001, 948, 91) = 4'; '($183,297 thousand > $50,000 thousand) + ... = 3'), else
    `contradicted`. None when the claim counts periods or nothing, or no whole is named, or its rows are not one
    figure each: the count is then not checked."""
    counting = _PARTS_COUNT.search(claim.claim)
    if counting is None or claim.kind == "table_row" or _PERIOD_COUNT.search(claim.claim):
        return None
    thresholds, counts = _count_figures(claim, counting.end())
    if len(thresholds) > 1 or len(counts) != 1:
        return None
    count = counts[0]
    named = _named_parts(claim, index)
    widest = [n for n in named if not any(n[0] < other[0] for other in named)]
    if not widest:
        return None
    if not all(whole for *_, whole in widest):
        return Count(count, thresholds[0][0] if thresholds else None, None, _UNREAD)
    # a section and its total row name the same rows: one whole
    widest = list({(f, tuple(row.cells for row in parts)): (stems, f, parts) for stems, f, parts, _ in widest}.values())
    if not thresholds:
        answers = {len(parts) for _, _, parts in widest}
        if len(answers) != 1:
            return None
        _, f, parts = widest[0]
        fi = index.files[f]
        cells = [Observed(fi.values[row.cells[0]], f, row.cells[0]) for row in parts]
        shown = ", ".join(_unsigned(index.quantity(o).text) for o in cells)
        spans = [span_of(index, o) for o in cells]
        names = "; ".join(row.label for row in parts)
        if len(parts) == count.value:
            return Count(count, None, AtomResult(count.text, Verdict.DERIVED, spans, formula=f"count({shown}) = {count.text}",
                                                 note=f"{count.text} counted: the rows {names}"))
        return Count(count, None, AtomResult(count.text, Verdict.CONTRADICTED, spans,
                                             note=f"{count.text} contradicted: {len(parts)} rows ({names}), not {count.text}"))
    (threshold, which), periods = thresholds[0], claim_subject(claim).periods
    _, passes, sign = _COMPARISONS[which]
    in_period = []
    for _, f, parts in widest:
        cells = _cells_in_period(parts, threshold, periods, index, f)
        if cells is None:
            return None
        if cells:
            in_period.append((cells, len(parts)))
    if len(in_period) != 1:
        return None
    cells, size = in_period[0]
    if len(cells) < size and passes(0.0, threshold.value):
        # a part without a figure in the period ('—') may be a zero that passes: not counted either way
        return Count(count, threshold, None, _PLACEHOLDER)
    passing = [(row, o) for row, o in cells if passes(index.quantity(o).value, threshold.value)]
    terms = " + ".join(f"({_at_scale(index.quantity(o), threshold)} {sign} {threshold.text})" for _, o in cells)
    spans = [span_of(index, o) for _, o in cells]
    names = "; ".join(row.label for row, _ in passing) or "none"
    if len(passing) == count.value:
        return Count(count, threshold, AtomResult(count.text, Verdict.DERIVED, spans, formula=f"{terms} = {count.text}",
                                                  note=f"{count.text} counted: the rows {names} {sign} {threshold.text}"))
    return Count(count, threshold, AtomResult(count.text, Verdict.CONTRADICTED, spans,
                                              note=f"{count.text} contradicted: of {len(cells)} rows, {len(passing)} "
                                                   f"({names}) {sign} {threshold.text}, not {count.text}"))


# a list whose items a sentence marks '(i)', '(ii)', ... or '(a)', '(b)', ...: its marks in order
_ROMAN = ("i", "ii", "iii", "iv", "v", "vi", "vii", "viii", "ix", "x", "xi", "xii")
_LETTERS = tuple("abcdefghijkl")
_LIST_MARK = re.compile(r"\((?P<mark>[ivx]{1,4}|[a-l])\)")
# what a claim counts by its noun ('how many services have their costs included ...': 'services')
_NOUN_COUNT = re.compile(r"(?i)\b(?:how\s+many|number\s+of)\s+(?:(?:the|different|distinct|major|main|separate)\s+)*"
                         r"(?P<noun>[a-z][a-z-]+)")
# the claim's words that say it counts, no subject of what it counts
_COUNT_WORDS = frozenset(subject_stem(w) for w in ("how", "many", "number", "figure", "answer", "there"))


def _marked_lists(text: str) -> list[tuple[int, int, tuple[str, ...]]]:
    """The lists a text marks in one sentence ('(i) auditing ..., (ii) reviewing ..., and (iii) ...'), from their first
    mark '(i)' or '(a)' on, each mark the next of its series: (start of the first mark, end of the last, the marks)."""
    found = []
    marks = list(_LIST_MARK.finditer(text))
    for k, first in enumerate(marks):
        series = _ROMAN if first.group("mark") == "i" else _LETTERS if first.group("mark") == "a" else None
        if series is None:
            continue
        run = [first]
        for m in marks[k + 1:]:
            if len(run) == len(series) or m.group("mark") != series[len(run)] \
                    or SENTENCE_END.search(text, run[-1].end(), m.start()) or m.start() - run[-1].end() > 400:
                break
            run.append(m)
        if len(run) >= 2:
            found.append((first.start(), run[-1].end(), tuple(m.group() for m in run)))
    return found


def list_count(claim: ClaimRecord, index: SourceIndex) -> Count | None:
    """The check of a claim that counts the items of a list a source's sentence marks ('how many services have their
    costs included within the audit fees' over '(1) Includes the cost of services rendered in connection with (i)
    auditing ..., (ii) ... and (vii) ...'): the lists whose sentence names, before the first mark, the thing counted
    (the noun after 'how many') and another word of the claim's; all of them must give one count. `derived` when
    the list has as many marks, with a formula the gate checks ('count((i), (ii), (iii)) = 3'), else `contradicted`.
    None when no such list is found: the count is then not checked."""
    counting = _NOUN_COUNT.search(claim.claim)
    if counting is None or claim.kind == "table_row" or _PERIOD_COUNT.search(claim.claim):
        return None
    thresholds, counts = _count_figures(claim, counting.end())
    if thresholds or len(counts) != 1:
        return None
    count = counts[0]
    noun = subject_stem(counting.group("noun").lower())
    others = _stems(claim.claim) - _COUNT_WORDS - {noun}
    lists = []
    for f in range(len(index.sources)):
        text = index.loaded(f).text
        for start, end, marks in _marked_lists(text):
            head = _stems(text[sentence_start(text, start):start])
            if noun in head and head & others:
                lists.append((f, start, end, marks))
    if len({len(marks) for *_, marks in lists}) != 1:
        return None
    f, start, end, marks = lists[0]
    formula = f"count({', '.join(marks)}) = {count.text}"
    if len(marks) == count.value:
        return Count(count, None, AtomResult(count.text, Verdict.DERIVED, [(f, start, end)], formula=formula,
                                             note=f"{count.text} counted: the items {marks[0]} to {marks[-1]} of a list"))
    return Count(count, None, AtomResult(count.text, Verdict.CONTRADICTED, [(f, start, end)],
                                         note=f"{count.text} contradicted: the list marks {len(marks)} items "
                                              f"({marks[0]} to {marks[-1]}), not {count.text}"))


def _cells_in_period(parts: list[_Row], threshold: Quantity, periods: frozenset[Period], index: SourceIndex,
                     f: int) -> list[tuple[_Row, Observed]] | None:
    """Each part's one figure of the threshold's kind in the claim's period (its only one where the claim names
    none), parts without such a figure left out; None where a part has several, or the claim names several periods."""
    if len(periods) > 1:
        return None
    fi = index.files[f]
    out = []
    for row in parts:
        cells = [Observed(fi.values[i], f, i) for i in row.cells
                 if same_family(threshold, fi.quantity(i)) and (not periods or fi.labels[i].periods == periods)]
        if len(cells) > 1:
            return None
        out += [(row, cells[0])] if cells else []
    return out


def _unsigned(text: str) -> str:
    """A cell's figure as a count's formula lists it: without its sign or parentheses ('(498.7)': '498.7')."""
    return text.strip().strip("()").lstrip("-−").strip()


def _within(period: Period, named: frozenset[Period]) -> bool:
    """Is the cell's period one the claim names: that period, or a quarter of a year it names ('in 2018, how many
    quarters')?"""
    return period in named or (period[0], "") in named


def _at_scale(q: Quantity, threshold: Quantity) -> str:
    """A cell's figure as the formula writes it: in the threshold's currency sign and scale word, so that the gate
    compares like with like ('$215,400 thousand' for a cell '215,400' of a table in thousands)."""
    sign = _CURRENCY_SIGN.match(threshold.text)
    word = _SCALE_WORD.search(threshold.text)
    value = q.value / (threshold.scale or 1.0) if word else q.value
    if q.kind == "percent":
        value = q.value
    number = f"{abs(value):,.6f}".rstrip("0").rstrip(".")
    text = f"{sign.group(1) if sign else ''}{number}{' ' + word.group(1).lower() if word else ''}"
    text += "%" if q.kind == "percent" and threshold.text.rstrip().endswith("%") else ""
    return f"(-{text})" if value < 0 else text


__all__ = ["Count", "count_check", "list_count", "period_count", "row_count"]
