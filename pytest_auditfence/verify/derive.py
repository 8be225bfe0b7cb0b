"""Stage 4, derivation: a claimed figure computed from observed ones (sum, difference, ratio, percentage
change, a unit conversion in parentheses), searched in a bounded, deterministic pool of operands.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from itertools import permutations

from pytest_auditfence.claims import quantities, vocabulary
from pytest_auditfence.models import ClaimRecord, Quantity, Verdict
from pytest_auditfence.verify.match import (
    RESPECTIVELY, SENTENCE_END, TOTAL_KEY, ClaimSubject, about_subject, amount_per_counted, cell_sides,
    change_direction, claim_subject, clause_outnamed, clause_parts, column_keys, figure_clause, figure_keys,
    figure_periods, find_atom, label_per_counted, label_sides, label_stems, listed_period, listed_subject, locate,
    metrics_of, near_subject, other_period, part_of_total, part_words, prose_periods, row_named, row_stems,
    sentence_start, sides_apart, stands_by_subject, subject_cells, subject_keys, subject_stem, subject_words,
    unwritten_unit, without_maturity_spans,
)
from pytest_auditfence.verify.normalise import CONVERSION_SLACK, CONVERTIBLE, SPECIFIC_DIGITS, is_weak, same_family, significant_digits
from pytest_auditfence.verify.results import AtomResult
from pytest_auditfence.verify.sources import Observed, SourceIndex, content_words
from pytest_auditfence.verify.tables import TOTAL_ROW, CellLabel, Period, format_period, periods_in, words_besides_periods


# Derivations search pairs among at most this many candidate numbers: more makes chance matches likely.
DERIVE_POOL = 12
# A summand of fewer units of the claim's last shown digit than this, and under a tenth of the claim's figure, only
# moves that digit: no evidence of a sum or difference.
SMALL_OPERAND = 10


# Cue words a figure's own clause uses when it states a computed figure: before the figure ('an increase of 9%',
# 'totalling $1,234 million') or after it ('$8 per kWh cheaper than', '$5 more than'). 'more than' before a
# figure is a bound ('more than $200 million'), not a computation.
_CUE_BEFORE = re.compile(
    r"[+=]|\b(?:totals?|totall?ing|totall?ed|sum|plus|minus|combined|altogether|difference|in all"
    r"|" + "|".join(vocabulary.move_verbs("computed")) + r")\b", re.I)
_CUE_AFTER = re.compile(
    r"^[^;.,]{0,40}?\b(?:more|less|fewer|higher|lower|cheaper|costlier|greater|smaller|larger|bigger) than\b", re.I)


def computes(claim: ClaimRecord, q: Quantity) -> bool:
    """Does the figure's own clause say it is a computed figure (a total, a change, a difference)? A cue
    elsewhere in the claim ('revenues increased 19%, while costs rose more than 9%') is about another figure."""
    before, after = figure_clause(claim, q)
    return bool(_CUE_BEFORE.search(before) or _CUE_AFTER.search(after))


def prose_ops(claim: ClaimRecord, q: Quantity) -> frozenset[str] | None:
    """The operations a derivation over prose figures may use for `q`: a figure its clause calls a change ('an
    increase of 207%') is a percentage change or a difference, never the ratio of the two figures (2.79 / 0.91
    = 307% is no 207% increase); None (every operation) when the clause names none."""
    before, after = figure_clause(claim, q)
    cues = formula_ops(ClaimRecord.model_construct(claim=before + " " + after))
    ops = frozenset({"change", "difference", "sum"}) if "change" in cues and not cues & {"ratio", "share"} else None
    if cues and cues <= {"mean"}:
        ops = frozenset()  # 'the average ... was 24%': a mean, which is no operation on a pair (34% - 10% is none)
    if amount_per_counted(claim, q):
        ops = frozenset({"ratio"})  # a whole over a count (see table_derivation)
    elif "share" in cues and "change" not in cues:
        ops = frozenset({"ratio", "share"})  # 'A as a percentage of B': A over B, never a change from A to B
    return ops


def spread(claim: ClaimRecord, q: Quantity) -> frozenset[Period]:
    """The periods of a claim that names three or more for the figure `q` ('the total from 2017 to 2019'; a listed
    figure is its own period's, see `listed_subject`), else none: a sum of two figures of two of them leaves one out
    (see `derive_figure`)."""
    periods = listed_subject(claim, q).periods
    return periods if len(periods) >= 3 else frozenset()


def _summable(q: Quantity, qa: Quantity, qb: Quantity, a: Observed, b: Observed, index: SourceIndex,
              keys: set[str], explicit: bool) -> bool:
    """May `q` be a sum or difference of these two figures? Not when the smaller one is below the
    claim's shown precision (3 feet is no '3 + one inch'). Unless the claim says it computed (see
    `computes`), both must stand by the subject of the figure's clause, which must name one: among a
    dozen small figures some pair adds up to almost any small number by chance ('simmer 5 minutes' is
    no '2 + 3 minutes' of two other steps). Nor when the smaller one is a few units of the claim's last digit and
    under a tenth of the figure: then the figure is all but the other one, and some such small cell moves any
    figure's last digit ('$65.8 - 0.1 = $65.7 million')."""
    small = min(abs(qa.value), abs(qb.value))
    if small < 2 * q.tolerance or small < SMALL_OPERAND * 2 * q.tolerance and small < abs(q.value) / 10:
        return False
    if explicit:
        return True
    if index.label(a) is not None and index.label(b) is not None:
        return False  # two table cells: a claim that names no computation is of one cell ('313,244 - 3,608' is none)
    return (significant_digits(q.text) >= SPECIFIC_DIGITS and bool(keys)
            and stands_by_subject(index, a, keys) and stands_by_subject(index, b, keys))


# Words that state a change or a gap without its sign: the earlier period's figure may come first.
_UNSIGNED = re.compile(r"(?i)\b(?:decrease[sd]?|declin\w*|fell|fall(?:s|ing)?|drop\w*|lower|less|fewer|reduc\w*"
                       r"|difference|differ|gap)\b")


def _deductions(qa: Quantity, qb: Quantity) -> bool:
    """Two figures written in parentheses, as a deduction row shows its amounts ('Allowance for expected credit
    losses (135) | (23)'): the change of a deduction is stated on its size as well as on its sign (an allowance
    that grew from (23) to (135) rose by 112), so the later size less the earlier is a change of the row too."""
    return _deduction(qa) and _deduction(qb)


def _deduction(v: Quantity) -> bool:
    """A figure written in parentheses ('(135)', '$(5,860)')."""
    return v.value < 0 and v.text.lstrip("$€£¥ ").startswith("(") and v.text.rstrip().endswith(")")


def _size(q: Quantity) -> str:
    """A deduction's amount as a formula writes its size ('135' of '(135)', '$135' of '$(135)')."""
    return re.sub(r"[()\-\u2212\s]", "", q.text)


def _in_order(index: SourceIndex, a: Observed, b: Observed) -> bool:
    """Is `a - b` the later period's cell minus the earlier's, or are the two not cells of two single periods?"""
    return _period_order(index, a, b) != -1


def _period_order(index: SourceIndex, a: Observed, b: Observed) -> int | None:
    """1 where `a` is the later period's cell and `b` the earlier's, -1 the other way round, None where the two are
    not cells of two single periods."""
    la, lb = index.label(a), index.label(b)
    if la is None or lb is None or len(la.periods) != 1 or len(lb.periods) != 1 or la.periods == lb.periods:
        return None
    return 1 if next(iter(la.periods)) > next(iter(lb.periods)) else -1


def one_subject(index: SourceIndex, a: Observed, b: Observed, keys: set[str]) -> bool:
    """Are two table cells about one subject of the claim ('Apple' of two years)? Two rows that each carry a
    stem the claim names that the other lacks ('Apple revenue', 'Huawei revenue') are two subjects, and the
    difference of their rates is no figure of either. A prose figure is another subject's when its clause of a
    'respectively' sentence is (see `clause_outnamed`)."""
    la, lb = index.label(a), index.label(b)
    if (la is None) != (lb is None):
        return False  # a table cell and a prose figure: no one subject's two rates
    if la is None or lb is None:
        for o, label in ((a, la), (b, lb)):
            q = index.quantity(o)
            if label is None and clause_outnamed(index.loaded(o.file), q.start, q.end, keys):
                return False
        return True
    ka, kb = keys & subject_keys(la.subject_text), keys & subject_keys(lb.subject_text)
    return not (ka - kb and kb - ka)


def shown(q: Quantity) -> str:
    """An operand as a formula writes it: a negative figure signed and in parentheses ('(-5,637)' for a cell
    '(5,637)'), so that the gate, which reads a formula's parentheses as grouping, computes with its sign."""
    if q.value >= 0:
        return q.text
    inner = q.text.strip().replace("\u2212", "-")
    if inner.startswith("(") and inner.endswith(")"):
        inner = inner[1:-1]
    inner = re.sub(r"^([$€£¥]?)\s*\(?\s*-?\s*", r"\1", inner).rstrip(") ")
    return f"(-{inner})"


def _deduction_share(q: Quantity, qa: Quantity, qb: Quantity, times: float, slack: float) -> bool:
    """Is a positive `q` the size of a deduction over a positive whole ('depreciation (111)' as 29.84% of EBITDA
    372)? A share is stated by the part's size; its sign says only that the table deducts it."""
    return q.value > 0 and qa.value < 0 < qb.value and abs(-qa.value / qb.value * times - q.value) <= slack


def derive_figure(
    q: Quantity, pool: list[Observed], index: SourceIndex, keys: set[str] = frozenset(), explicit: bool = True,
    *, relative: bool = False, ops: frozenset[str] | None = None, rates: bool | None = None,
    apart: Callable[[Observed, Observed], bool] | None = None, unsigned: bool | None = None,
    spread: frozenset[Period] = frozenset(), shares: bool = False, deductions: bool = False,
    direction: int | None = None,
) -> tuple[str, list[Observed]] | None:
    """A computation over observed numbers that gives `q` within its shown precision, or None. `keys`:
    the stems of the figure's subject, by which the operands of a sum or difference must stand unless
    the claim is `explicit` about computing. `relative`: also the percentage change of two rates (operands
    that are cells of the claim's own row, where '4.00%' over '3.75%' is a 6.67% rise). `ops`: the
    operations the claim's words allow (see vocabulary.FORMULA_CUES); None allows every one. `rates`: whether
    the percentage change of two rates is tried (default: `relative`); `apart`: pairs never taken together.
    `unsigned`: whether the claim states a change without its sign ('a decrease of 0.2', 'the difference'); when
    given, a difference of two cells of two periods is the later minus the earlier, or the other way round only
    for a positive figure so stated (-0.2 is no change from 0.5 to 0.7). `spread`: the three or more periods the
    claim names (see `spread`): a sum of a pair is then of two cells of one period, or of periods covering them.
    `shares`: the pool is a series or the rows of a column that the claim names (see `table_derivation`), whose
    percentages it may total where it says so ('the total percentage of revenue from Apple and Huawei in 2017').
    `deductions`: the pool is the parts of a total the claim names (see `total_parts`), whose amounts in parentheses
    ('(14,732)', '(5,739)') it may total by their size. `direction`: the rise (1) or fall (-1) the claim's words give
    a change it states (see `change_direction`): an unsigned figure is then the size of a change of that direction
    only ('fell 28.0%' is (5,000 - 3,600) / 5,000, never a rise from 3,600 to 5,000); a change of two negative
    figures is of their size (a deduction from (23) to (135) rose)."""
    rates = relative if rates is None else rates
    slack = slack_of(q)
    # a figure in percentage points is a difference of two rates: no ratio nor relative change is one
    points = quantities.percent_dimension(q) == "points"
    # the sign of the change a claim words ('fell 28%': -1; a signed figure keeps its own: 'an increase of -5' fell),
    # and the signed change it states
    claimed = None if direction is None else -1 if q.value < 0 else direction
    target = -abs(q.value) if claimed == -1 else q.value
    falls = target != q.value

    def allowed(op: str) -> bool:
        return ops is None or op in ops

    def covers(a: Observed, b: Observed) -> bool:
        """Two cells of one period (a range's column, '2020 – 2024'), or whose periods cover the claim's ('the
        change 2018 to 2019' and '2017 to 2018' for one from 2017 to 2019)."""
        la, lb = index.label(a), index.label(b)
        return la is not None and lb is not None and (la.periods == lb.periods or spread <= la.periods | lb.periods)

    def ends(a: Observed, b: Observed) -> bool:
        """Two cells of the first and last of the periods the claim spans, or not two cells of one period each:
        the change from 2017 to 2019 is no change from 2018 to 2019."""
        la, lb = index.label(a), index.label(b)
        if la is None or lb is None or len(la.periods) != 1 or len(lb.periods) != 1:
            return True
        return la.periods | lb.periods == {min(spread), max(spread)}

    for a, b in permutations(pool, 2):
        if apart is not None and apart(a, b) or two_series(index, a, b) or two_items_two_periods(index, a, b):
            continue
        qa, qb = index.quantity(a), index.quantity(b)
        if not same_family(qa, qb) or qa.value == qb.value:
            continue  # x / x = 100% and x - x = 0 say nothing about where a figure came from
        if (qa.kind == "number" and qa.unit or qb.kind == "number" and qb.unit) and qa.unit != qb.unit:
            continue  # '50 psi - 10 gallons' is no computation
        if q.kind == "percent":
            if qa.kind != "percent" and qa.value != 0 and not points:
                # over a negative base (a loss) a change is stated either way: as the move over the base's size
                # (a loss from (168) to (238) is a 41.67% rise... of the loss) or divided by the signed base
                # a change is measured from the earlier period's cell: one from the later to the earlier, over the
                # later one's value, matches an 'off' figure by chance ('((-2,755.1) - (-2,964.6)) / 2,964.6')
                for base in _bases(qa.value, qb.value, direction):
                    change = (qb.value - qa.value) / base * 100.0
                    if allowed("change") and abs(change - target) <= slack and _in_order(index, b, a):
                        over = shown(qa) if base == qa.value else f"-{shown(qa)}"
                        return f"{_moved(qa, qb, falls)} / {over} × 100 = {q.text}", [b, a]
                if allowed("ratio") and qb.value != 0 and abs(qa.value / qb.value * 100.0 - q.value) <= slack:
                    return f"{shown(qa)} / {shown(qb)} × 100 = {q.text}", [a, b]
                if allowed("ratio") and _deduction_share(q, qa, qb, 100.0, slack):
                    return f"-{shown(qa)} / {shown(qb)} × 100 = {q.text}", [a, b]
            elif qa.kind == "percent" and allowed("difference") and abs((qa.value - qb.value) - abs(q.value)) <= slack \
                    and _directed(index, a, b, claimed, abs(q.value)):
                # two of a dozen percentages differ by almost any small figure by chance ('19% - 10% = 9%'): a
                # difference of rates only where the claim says it computed, or of the subject's own rates
                if explicit or (keys and stands_by_subject(index, a, keys) and stands_by_subject(index, b, keys)
                                and one_subject(index, a, b, keys) and significant_digits(q.text) >= 2):
                    return f"{shown(qa)} - {shown(qb)} = {q.text}", [a, b]
            elif shares and qa.kind == "percent" and ops is not None and "sum" in ops and 100.0 not in (qa.value, qb.value) \
                    and index.position(a) < index.position(b) and abs(qa.value + qb.value - q.value) <= slack \
                    and (not spread or covers(a, b)):
                return f"{shown(qa)} + {shown(qb)} = {q.text}", [a, b]
            elif rates and qa.kind == "percent" and qa.value != 0 and allowed("change") and not points:
                change = (qb.value - qa.value) / abs(qa.value) * 100.0
                if abs(change - target) <= slack and _in_order(index, b, a):
                    return f"{_moved(qa, qb, falls)} / {shown(qa)} × 100 = {q.text}", [b, a]
            continue
        if q.kind == "ratio" or q.kind == "number" and relative and q.unit is None and allowed("ratio") and ops is not None:
            if allowed("ratio") and qb.value != 0 and abs(qa.value / qb.value - q.value) <= slack:
                return f"{shown(qa)} / {shown(qb)} = {q.text}", [a, b]
            if allowed("ratio") and _deduction_share(q, qa, qb, 1.0, slack):
                return f"-{shown(qa)} / {shown(qb)} = {q.text}", [a, b]
            if q.kind == "ratio":
                continue
        # a unit-less figure that is no ratio of the pair may be their difference ('interest rate swaps' names
        # a rate, yet the change in their fair value is a difference of two amounts)
        if same_family(q, qa):
            first = index.position(a) < index.position(b)
            total = first and allowed("sum") and abs(qa.value + qb.value - q.value) <= slack \
                and (not spread or covers(a, b))
            in_order = unsigned is None or _in_order(index, a, b) or unsigned and q.value > 0
            if direction is not None and _period_order(index, a, b) is not None:
                # a change the claim's words direct: later less earlier of that sign, of the size of two negatives
                in_order = _directed(index, a, b, claimed, q.value) and not (qa.value < 0 and qb.value < 0)
            difference = allowed("difference") and abs(qa.value - qb.value - q.value) <= slack and in_order \
                and (not spread or ends(a, b))
            if (total or difference) and _summable(q, qa, qb, a, b, index, keys, explicit):
                sign = "+" if total else "-"
                return f"{shown(qa)} {sign} {shown(qb)} = {q.text}", [a, b]
            # two negatives a claim words the change of move by their size ('the net loss rose by 70': -168 to -238)
            sized = _directed(index, a, b, claimed, q.value) and qa.value < 0 and qb.value < 0 \
                if direction is not None and _period_order(index, a, b) is not None \
                else _deductions(qa, qb) and _in_order(index, a, b)
            if allowed("difference") and sized and (not spread or ends(a, b)) \
                    and abs(abs(qa.value) - abs(qb.value) - q.value) <= slack and _summable(q, qa, qb, a, b, index, keys, explicit):
                return f"{_size(qa)} - {_size(qb)} = {q.text}", [a, b]
            # a total of deductions stated by its size ('the total liabilities were 20,471' of '(14,732)' and
            # '(5,739)'), over the parts of a total (`deductions`, see `total_parts`)
            if deductions and allowed("sum") and first and _deductions(qa, qb) and (not spread or covers(a, b)) \
                    and abs(abs(qa.value) + abs(qb.value) - q.value) <= slack and _summable(q, qa, qb, a, b, index, keys, explicit):
                return f"{_size(qa)} + {_size(qb)} = {q.text}", [a, b]
    return None


def _bases(early: float, late: float, direction: int | None) -> tuple[float, ...]:
    """What a percentage change from `early` to `late` is measured over. Over a negative base (a loss) a change is
    stated either way: as the move over the base's size (a loss from (168) to (238) is a 41.67% fall of the figure) or
    over the signed base (a 41.67% rise of the loss). A claim that words its direction ('the loss rose') reads two
    negative figures by their size, and a move across zero by the figure."""
    if direction is None:
        return tuple(dict.fromkeys((abs(early), early)))
    return (early,) if early < 0 and late < 0 else (abs(early),)


def _moved(early: Quantity, late: Quantity, falls: bool) -> str:
    """A change's numerator as a formula writes it: later less earlier, or earlier less later for a fall."""
    return f"({shown(early)} - {shown(late)})" if falls else f"({shown(late)} - {shown(early)})"


def _directed(index: SourceIndex, a: Observed, b: Observed, claimed: int | None, gap: float) -> bool:
    """May `a - b` (or the size of `a` less that of `b`, see `_deductions`), equal to `gap`, be a change of the sign
    the claim states (`claimed`)? Where the two are cells of two single periods and the claim states a sign, the later
    less the earlier must have it ('fell by $8.6 million': the earlier cell is the larger); elsewhere yes."""
    order = _period_order(index, a, b)
    if claimed is None or order is None:
        return True
    return order * (1 if gap > 0 else -1) == claimed


def two_items_two_periods(index: SourceIndex, a: Observed, b: Observed) -> bool:
    """Are two table cells of two periods also of two line items (rows whose words besides periods differ, or of two
    tables)? A figure computed over periods is of one line item's two periods ('Total 2019 - Total 2018'); another
    row's cell of the other period ('Pinnacle Foods 2019 - Total 2018') makes no figure of either."""
    la, lb = index.label(a), index.label(b)
    if la is None or lb is None or not la.periods or not lb.periods or la.periods == lb.periods:
        return False
    return (a.file, la.caption, words_besides_periods(la.subject_text)) \
        != (b.file, lb.caption, words_besides_periods(lb.subject_text))


# A table derivation searches pairs among at most this many cells of the claim's subject, and means and sums
# over groups (a row's periods, a column's rows) of at most MAX_GROUP cells.
TABLE_POOL = 16
MAX_GROUP = 8


_AS_PERCENT_OF = re.compile(r" as a percent(?:age)? of ")
_PERCENT_OF_CHANGE = re.compile(r" percent(?:age)? (?=(?:change|increase|decrease|growth|rise|decline|drop)s? )")
# 'the percentage of products in the total' names a share, as 'as a percentage of' does ('the percentage of
# change' names a change)
_PERCENT_OF = re.compile(r" percent(?:age)? of (?!(?:the )?(?:change|increase|decrease|growth|rise|decline|drop)s? )")


def formula_ops(claim: ClaimRecord) -> frozenset[str]:
    """The operations the claim's words say it computed (vocabulary.FORMULA_CUES)."""
    words = without_maturity_spans(claim.claim)  # 'less than one year' names a bucket, no difference
    for q in sorted(claim.quantities or [], key=lambda q: -q.start):
        at, end = q.start - claim.start, q.end - claim.start
        if 0 <= at <= end <= len(words):  # a figure's own unit word ('0.6 percent') is no cue, as '0.6%' is none
            words = words[:at] + " " + words[end:]
    text = " " + " ".join(re.findall(r"[a-z]+", words.lower())) + " "
    # 'the percentage change in revenue' names a change, and no ratio: 'percentage' there cues nothing of its own
    text = _PERCENT_OF_CHANGE.sub(" ", text)
    # 'A as a percentage of B' names a share of B, and no change: 'percentage' there cues the ratio only
    text = _AS_PERCENT_OF.sub(" as a share of ", text)
    text = _PERCENT_OF.sub(" share of ", text)
    # 'between' and 'from' cue a difference of the two periods a claim names, unless the claim lists one figure per
    # period ('... on January 1, 2017 and between December 30, 2018 and December 29, 2019 at -43 and -118,
    # respectively'): a 'respectively' list states each item's own figure, no difference of them
    listed = len(claim.quantities or []) >= 2 and RESPECTIVELY.search(claim.claim) is not None
    # nor does an average spanning them ('the average rate between 2017-2019', 'from 2017 to 2019'): a mean over
    # the span, no difference of its ends, unless the claim names a change in words of its own
    spans_mean = any(f" {w} " in text for w in vocabulary.FORMULA_CUES["mean"])
    ignored = (vocabulary.PERIOD_PAIR_CUES if listed or spans_mean or len(claim_subject(claim).periods) < 2
               else frozenset())
    return frozenset(op for op, words in vocabulary.FORMULA_CUES.items()
                     if any(f" {w} " in text for w in words if w not in ignored))


# a column of a row's change between its periods ('Change', 'Increase (Decrease)', 'Variance in' over 'Dollar')
_CHANGE_HEADER = re.compile(r"(?i)\b(?:change|increase|decrease|variance|difference)\b")


def another_period_derived(claim: ClaimRecord, q: Quantity, operands: list[Observed], index: SourceIndex) -> bool:
    """Is a figure the claim states for one period derived from its subject's other period? From the cells of one
    row whose cell of the claim's period holds another value (`own_period_cell`): a result that a cell of another
    period of the row holds ('Net revenues totalled $2,280 million in 2017' as 2017's $1,664 plus the variance $616,
    where $2,280 is 2018's), or a period's cell with the row's change column; that claim is its own cell's to judge.
    From prose, where a sentence states the figure about the claim's subject for another period ('decreased $3.2
    million to $41.6 million from $44.8 million for 2018' for 'backlog was $41.6 million in 2018')."""
    subject = claim_subject(claim)
    labels = [index.label(o) for o in operands]
    if len(subject.periods) != 1:
        return False
    if all(label is None for label in labels):
        return _stated_for_another_period(q, index, subject)
    if own_period_cell(claim, q, operands, index) is None:
        return False
    by_change = any(label.periods for label in labels) and any(
        not label.periods and _CHANGE_HEADER.search(" ".join(label.columns)) for label in labels)
    return by_change or any(not label.periods & subject.periods and quantities.quantities_match(q, index.quantity(o))
                            for o, label in _dated_row_cells(claim, operands, index))


def own_period_cell(claim: ClaimRecord, q: Quantity, operands: list[Observed], index: SourceIndex) -> Observed | None:
    """The cell of the one period the claim names in the one row of table cells `operands`, where it holds another
    value of the claim's dimension than the claimed figure; None otherwise (operands of several rows or of prose, no
    cell of that period, or one that holds the figure)."""
    periods = claim_subject(claim).periods
    if len(periods) != 1 or any(index.label(o) is None for o in operands) or len({_row_of(o, index) for o in operands}) != 1:
        return None
    own = [o for o, label in _dated_row_cells(claim, operands, index) if label.periods == periods]
    if not own or any(quantities.quantities_match(q, index.quantity(o)) for o in own):
        return None
    return next((o for o in own if quantities.comparable(q, index.quantity(o))), None)


def _dated_row_cells(claim: ClaimRecord, operands: list[Observed], index: SourceIndex) -> list[tuple[Observed, CellLabel]]:
    """The cells of any period of the rows of `operands`, with their labels."""
    rows = {_row_of(o, index) for o in operands}
    subject = replace(claim_subject(claim), periods=frozenset())
    return [(o, label) for o in subject_cells(claim, index, subject, limit=4 * TABLE_POOL)
            if _row_of(o, index) in rows and (label := index.label(o)).periods]


def _stated_for_another_period(q: Quantity, index: SourceIndex, subject: ClaimSubject) -> bool:
    """Does a prose sentence state the figure `q` near the subject's words for a period the subject does not name?"""
    position = index.numbers
    for m in find_atom(q, index):
        f, end = position[m.source], m.offset + len(m.text)
        if index.label_at(f, m.offset) is not None:
            continue
        loaded = index.loaded(f)
        stated = figure_periods(loaded, m.offset, end)
        if stated and not stated & subject.periods and near_subject(loaded, m.offset, end, set(subject.keys),
                                                                    structured_ok=False):
            return True
    return False


def table_derivation(claim: ClaimRecord, q: Quantity, index: SourceIndex) -> tuple[str, list[Observed]] | None:
    """`q` computed from table cells of the claim's subject in the claim's periods, by an operation the claim
    names (a difference, sum, ratio or percentage change of two; the mean or sum of several). Operands are
    the periods of a row the claim names, or the rows the claim names in one column: a chance pair of
    unrelated cells is out. Bounded and in source order: the same inputs give the same formula."""
    ops = formula_ops(claim)
    if not ops:
        return None
    per_counted = amount_per_counted(claim, q)
    own = listed_subject(claim, q)  # a listed figure is computed from its own period's cells (see `listed_subject`)
    subject = own
    if ops & {"change", "difference", "mean"} and len(subject.periods) == 1:
        # 'grew 18.6% in FY2024': a change in a period is measured against the period before it; 'the 2019
        # average balance' is the mean of the balances that open and close 2019
        (year, part), = subject.periods
        subject = replace(subject, periods=subject.periods | {(year - 1, part)})
    found = [o for o in subject_cells(claim, index, subject, limit=4 * TABLE_POOL)
             if o.item not in index.files[o.file].alternatives]
    cells = [o for o in found if not is_weak(index.quantity(o))]
    small = [] if per_counted else _small_cells(found, index, own, subject)
    # an amount per employee is a change, mean or sum of amounts per employee, a whole over a count, or the mean of
    # the wholes of the counted things (the rows of a column: 'the average charges per segment'); never a sum or
    # change of wholes, nor a mean of one row's columns (a balance and the additions to it)
    per_cells = [o for o in cells if (label := index.label(o)) is not None and label_per_counted(label)]
    of_wholes = per_counted and not per_cells
    if per_counted:
        cells, ops = (per_cells, ops) if per_cells else (cells, ops & {"ratio", "mean"})
        if not ops:
            return None
    rows: dict[tuple, list[Observed]] = {}
    dated: dict[tuple, list[Observed]] = {}  # each row's cells with its small ones, for its series over periods
    columns: dict[tuple, list[Observed]] = {}
    score: dict[tuple, float] = {}
    named_by: dict[tuple, frozenset[str]] = {}  # the stems of each row the claim names by every one of them
    unnamed_section: set[tuple] = set()  # those of them under a section row the claim does not name
    for o in sorted(cells + small, key=index.position) if small else cells:
        label = index.label(o)
        if label is None:
            continue
        row = (o.file, label.row, label.section, label.caption)
        dated.setdefault(row, []).append(o)
        stems = row_stems(label) | _caption_total(label, subject.keys)
        score[row] = len(stems & subject.keys) / len(stems) if stems else 0.0
        if stems and stems <= subject.keys:
            named_by[row] = stems
            if not label_stems(label.section) <= subject.keys:
                unnamed_section.add(row)
        if small and o in small:
            continue
        rows.setdefault(row, []).append(o)
        if row_named(subject, label) and not other_period(own, label):
            # a column's rows are compared within the claim's own periods: the period before one, added above
            # for a change along a row, is never the claim's in a column ('the 2019 share' is no 2018 share)
            columns.setdefault((o.file, label.columns, label.caption), []).append(o)
    named = _within_named_sections(_named_rows(score), named_by, unnamed_section)
    other_sections = _other_sections(named, subject.keys, lambda row: any(
        same_family(q, index.quantity(o)) for o in dated.get(row, ())))
    named = [row for row in named if row not in other_sections]
    ops = _row_named_ops(claim, ops, named)
    columns = {key: kept for key, members in columns.items()
               if (kept := [o for o in members if _row_of(o, index) not in other_sections])}
    for row in named:
        rows.setdefault(row, [])  # a row of small cells only: in a series over periods alone
    # a row that is one of the parts a claim naming a total adds up ('Interim dividend' for the total dividends paid)
    # gives no figure of the total by its own cells: only with the other parts (the sums below) or a total row
    own_rows = [row for row in named if not (dated.get(row) and part_of_total(
        subject, index.label(dated[row][0]), row[0], index))]
    groups = [rows[row][:MAX_GROUP] for row in sorted(own_rows, key=str)]
    by_column = [members[:MAX_GROUP] for _, members in sorted(columns.items(), key=lambda kv: str(kv[0]))]
    groups = by_column if of_wholes else groups + by_column
    # a pair of a column's cells is of every row the claim names there ('deferred revenue and accrued warranty
    # over gross deferred tax assets' is no ratio of two of the three)
    pairs = [rows[row][:MAX_GROUP] for row in sorted(own_rows, key=str)] + [_claim_rows(m, index) for m in by_column]
    # a claim comparing the periods it names compares one series: the one whose column it names, if any
    words = _stems(claim.claim) if len(own.periods) >= 2 else frozenset()
    # the words that name a row name no column of it ('% of total revenue' beside the 'Total cost of revenue' amounts)
    beside = {key for row in named for key in unnamed_series(rows[row], index, words - _stems(row[1]))}
    beside |= {key for row in named for key in _beside_marked(dated[row], index, subject)}
    pairs = [[o for o in members if (o.file, o.item) not in beside] for members in pairs]
    # one series of a row's columns (the '2019' and '2018' of 'Fiscal Year', or its 'Total' columns, not a
    # 'Variance' column beside them) over the periods the claim names, before the row's first cells at large
    series = [] if of_wholes else [members[:MAX_GROUP] for row in sorted(own_rows, key=str)
                                   for members in period_series(dated[row], index, subject, words - _stems(row[1]))]
    # a change of a rate is its difference in points ('gross margin changed 0.6 percent'); a relative change of
    # two rates only where the claim calls it one ('the percentage change in the interest rate was 6.67%')
    rates = _RELATIVE_CHANGE.search(claim.claim) is not None
    unsigned = _UNSIGNED.search(claim.claim) is not None
    direction = change_direction(claim, q)
    periods_spread = spread(claim, q)  # the claim's subject, read once for every group below
    # a row the claim names all but a word of, beside a row it names in full as the base of its figure ('the
    # percentage of sales represented by net other income': 'Sales' and 'Other income (expense), net')
    partial = [] if of_wholes else [members[:MAX_GROUP] for row in _partly_named(claim.claim, score, named)
                                    for members in period_series(dated[row], index, subject, words - _stems(row[1]))]
    if {"mean", "difference"} <= ops and len(_MEAN_WORD.findall(claim.claim)) >= 2:
        # 'the difference between average X and average Y' is a difference of two means: one mean alone, or a pair
        # of cells, that gives its figure is a chance
        return _two_step(claim, q, index, own, rows, named, by_column, ops, slack_of(q))
    for members in series + partial:
        found = derive_figure(q, members, index, explicit=True, relative=True, ops=ops, rates=rates, unsigned=unsigned,
                              spread=periods_spread, shares=True, direction=direction)
        if found is not None:
            return found
    for members in series:
        found = _change_from_nil(q, members, index, ops, slack_of(q))
        if found is not None:
            return found
    # at large, a pair of two periods' cells that stand in two complete series ('Q1 2019' and 'Q3 2018' of a
    # table of quarters) is a chance pair: the claim's periods are compared within one series
    complete = {(o.file, o.item): n for n, members in enumerate(series) if len(members) > 1
                and len({index.label(o).periods for o in members}) == len(members) == len(subject.periods)
                for o in members}

    def apart(a: Observed, b: Observed) -> bool:
        na, nb = complete.get((a.file, a.item)), complete.get((b.file, b.item))
        if na is None or nb is None:
            return False
        if index.label(a).periods == index.label(b).periods:
            # two cells of one period, for a change between the two periods the claim names, are two columns
            # of that period (two quarters of 2019), not the change
            return len(own.periods) == 2 and bool(ops & {"change", "difference"}) and na != nb
        return na != nb

    for members in pairs:
        found = derive_figure(q, members, index, explicit=True, relative=True, ops=ops, rates=rates,
                              apart=apart, unsigned=unsigned, spread=periods_spread, shares=True, direction=direction)
        if found is not None:
            return found
    slack = slack_of(q)
    # a mean or total over a row is of one series over exactly the periods the claim names (and the period
    # before a single one, for a mean): a series holding other periods' cells too is not the claim's
    for members in series:
        periods = {p for o in members for p in index.label(o).periods}
        if own.periods and periods != set(subject.periods if "mean" in ops else own.periods):
            continue
        if len(members) != len(periods) and own.periods:
            continue  # two cells of one period: the series is not one value per period
        found = _aggregate(q, members, index, ops, slack, minimum_sum=2 if own.periods else 3)
        if found is not None:
            return found
    for members in groups:  # every cell of a row the claim names, or of a column of the rows it names
        found = _aggregate(q, members, index, ops, slack, minimum_sum=3)
        if found is not None:
            return found
    # a total, a mean, a share, a margin or a compound rate is of the periods the claim names, never of the
    # period before them that a change is measured against
    return (_column_derivation(claim, q, index, own, ops, slack)
            or _named_share(claim, q, index, own, slack)
            or _share_of_total(claim, q, index, own, columns, ops, slack)
            or _base_ratio(claim, q, index, own, ops)
            or _defined_ratio(claim, q, index, own, ops, slack)
            or _compound_growth(claim, q, index, own, rows, named, ops, slack)
            or _two_step(claim, q, index, own, rows, named, by_column, ops, slack))


# what a caption says besides its subject: its scale ('(in thousands, except per share data)') and 'Table 1'
_CAPTION_NOISE = re.compile(r"(?i)\([^()]*\b(?:thousands|millions|billions)\b[^()]*\)|\btable\s+\d+\b")


def _caption_total(label: CellLabel, keys: frozenset[str]) -> set[str]:
    """A row 'Total' alone is the total of what the table's caption names ('Total' under 'Revenue by segment' is
    total revenue): 'total' and the caption's stems among the claim's `keys`; none for any other row or when the
    caption names nothing the claim does (the lines above a table hold more than its title, so the stems the claim
    does not name are no part of the row's name)."""
    if not TOTAL_ROW.match(label.row) or content_words(label.row):
        return set()
    named = subject_keys(_CAPTION_NOISE.sub(" ", label.caption)) & keys
    return named | {TOTAL_KEY} if named else set()


def _claim_rows(members: list[Observed], index: SourceIndex) -> list[Observed]:
    """The cells of a column of the rows a claim names, for a pair: all of them when one row's name holds the
    others' ('Deferred revenue' holds 'Revenue'), those of the two rows that name the rest when there are two,
    none when the claim names three rows or more (a formula of two leaves one out). Where the claim names a label
    repeated under several section rows ('Underlying rights and other' under 'Finite-Lived' and 'Indefinite-Lived'),
    those rows are its subject in each section, and the total of one of those sections is no operand beside them."""
    members = _without_section_totals(members, index)
    keys = {o.item: frozenset(subject_keys(index.label(o).row)) for o in members}
    widest = {k for k in keys.values() if not any(k < other for other in keys.values())}
    if len(widest) > 2:
        return []
    return members if len(widest) == 1 else [o for o in members if keys[o.item] in widest]


def _without_section_totals(members: list[Observed], index: SourceIndex) -> list[Observed]:
    """`members` less the total rows of the sections under which a label of `members` repeats (see `_claim_rows`)."""
    by_label: dict[str, set[str]] = {}
    for o in members:
        label = index.label(o)
        by_label.setdefault(label.row.strip().lower(), set()).add(label.section)
    sections = {section for found in by_label.values() if len(found) > 1 for section in found}
    if not sections:
        return members
    return [o for o in members if not (TOTAL_ROW.match(index.label(o).row) and index.label(o).section in sections)]


def _row_of(o: Observed, index: SourceIndex) -> tuple:
    label = index.label(o)
    return (o.file, label.row, label.section, label.caption)


def _other_sections(named: list[tuple], keys: frozenset[str], fits: Callable[[tuple], bool]) -> set[tuple]:
    """Rows of one label repeated under several section rows ('Internal valuation' under 'Freehold:' and under
    'Leasehold:'): where the claim names the section of some ('the freehold internal valuation'), those under a
    section it does not name are another subject's, and no operand of its mean, sum or change (a mean of the
    leasehold row passed for the freehold one). Rows of other labels are left alone. A section whose rows hold no
    figure of the claimed kind (`fits`: '% Revenues by Geography' for an amount of revenue) is not the one named."""
    by_label: dict[tuple, list[tuple]] = {}
    for row in named:
        by_label.setdefault((row[0], row[1].strip().lower(), row[3]), []).append(row)
    out: set[tuple] = set()
    for rows in by_label.values():
        if len({row[2] for row in rows}) < 2:
            continue
        own = frozenset(subject_keys(rows[0][1]))
        chosen = {row for row in rows if (frozenset(subject_keys(row[2])) - own) & keys and fits(row)}
        if chosen:
            out.update(row for row in rows if row not in chosen)
    return out


_CHANGE_CUE = re.compile(r"(?i)\b(?:change|increase|decrease|difference)\b")


def _row_named_ops(claim: ClaimRecord, ops: frozenset[str], named: list[tuple]) -> frozenset[str]:
    """The claim's operations less a change whose every cue word is a word of a row it names ('the average net
    change in cash balance': the row 'Net change in cash balance', averaged, not differenced), where the claim
    cues another operation besides."""
    cues = {m.group().lower() for m in _CHANGE_CUE.finditer(claim.claim)}
    rest = ops - {"change", "difference"}
    if not cues or not rest or not any(cues <= {w.lower() for w in re.findall(r"[A-Za-z]+", row[1])} for row in named):
        return ops
    return rest


def _within_named_sections(named: list[tuple], named_by: dict[tuple, frozenset[str]],
                           unnamed_section: set[tuple]) -> list[tuple]:
    """The rows the claim names less those under a section row it does not name whose every word another row of the
    same table the claim names holds among more: 'Current year' under 'Overseas current tax expense' is no row of a
    claim about the total current tax expense (the row 'Total current tax expense' is), its one word the claim's by
    chance. A row under no section, or under one the claim names, stays ('Revenue' beside 'Cost of revenue')."""
    def outnamed(row: tuple) -> bool:
        return row in unnamed_section and any(
            other != row and (other[0], other[3]) == (row[0], row[3]) and named_by[row] < theirs
            for other, theirs in named_by.items())
    return [row for row in named if not outnamed(row)]


def _named_rows(score: dict[tuple, float]) -> list[tuple]:
    """The rows the claim names, by the share of each row label's stems among the claim's: every stem, else the
    one row with the most (at least half)."""
    named = [row for row, share in score.items() if share == 1.0]
    if not named and score:
        top = max(score.values())
        best = [row for row, share in score.items() if share == top]
        named = best if top >= 0.5 and len(best) == 1 else []
    return named


# the base a share is of ('percentage of sales represented by ...', '% of total revenue'): the words after 'of'
_SHARE_BASE = re.compile(r"(?i)(?:\bpercent(?:age)?|%|\bshare|\bproportion)\s+of\s+(?P<base>(?:[a-z]+\s+){0,2}[a-z]+)")


def slack_of(q: Quantity) -> float:
    """How far a computed value may stand from `q` as shown."""
    return q.tolerance + 1e-9 * max(1.0, abs(q.value))


def _change_from_nil(q: Quantity, members: list[Observed], index: SourceIndex, ops: frozenset[str],
                     slack: float) -> tuple[str, list[Observed]] | None:
    """A change over a row's series of two periods whose earlier cell is nil ('Green tariff: -27,603 in FY19, 0 in
    FY18'): the later cell itself, or the earlier one negated when the later is nil. `derive_figure` takes no such
    pair (x - 0 = x says nothing where a figure came from at large); within one named row's two claimed periods it
    is the change."""
    if not ops & {"change", "difference"} or len(members) != 2:
        return None
    labels = [index.label(o) for o in members]
    if any(len(label.periods) != 1 for label in labels) or labels[0].periods == labels[1].periods:
        return None
    early, late = sorted(members, key=lambda o: next(iter(index.label(o).periods)))
    qe, ql = index.quantity(early), index.quantity(late)
    if not same_family(q, qe) or not same_family(q, ql) or q.kind == "percent":
        return None
    if qe.value == 0 and ql.value != 0 and abs(ql.value - q.value) <= slack:
        return f"{shown(ql)} - 0 = {q.text}", [late, early]
    if ql.value == 0 and qe.value != 0 and abs(-qe.value - q.value) <= slack:
        return f"0 - {shown(qe)} = {q.text}", [late, early]
    return None


def _small_cells(found: list[Observed], index: SourceIndex, own: ClaimSubject, subject: ClaimSubject) -> list[Observed]:
    """Small unit-less cells (under `WEAK_LIMIT`: counts of films, stores, plans) of the periods the claim names.
    At large such a cell is a chance operand (some pair of a dozen small figures gives almost any small figure), so
    they are kept for a named row's series over the claim's periods alone, where the figure is determined by one
    cell per period ('7 in 2019, 10 in 2018': a change of -3), never for pairs across rows or columns."""
    if not own.periods:
        return []
    return [o for o in found if is_weak(q := index.quantity(o)) and q.kind in ("number", "count")
            and (label := index.label(o)) is not None and label.periods and label.periods <= subject.periods]


def _partly_named(text: str, score: dict[tuple, float], named: list[tuple]) -> list[tuple]:
    """Where every row the claim names in full is the base of its share ('the percentage of sales represented by net
    other income': 'Sales'), the one row it names the most of among the others (at least half of its stems, and
    more than any other: 'Other income (expense), net'): a claim names its own row in other words. None where the
    claim names its own row in full ('... represented by net income': 'Net income', no other row)."""
    rest = {row: share for row, share in score.items() if row not in named and share < 1.0}
    base = frozenset(stem for m in _SHARE_BASE.finditer(text) for stem in subject_keys(m.group("base")))
    if not named or not rest or not all(subject_keys(row[1]) <= base for row in named):
        return []
    top = max(rest.values())
    best = [row for row, share in rest.items() if share == top]
    return best if top >= 0.5 and len(best) == 1 else []


_RELATIVE_CHANGE = re.compile(
    r"(?i)\b(?:percent(?:age)?|%)\s+(?:change|increase|decrease|growth|rise|decline|drop)|\b(?:"
    + "|".join(vocabulary.move_verbs("relative")) + r")\b")
_PERIOD_TEXT = re.compile(r"(?i)(?:19|20)\d\d|\bF(?:Y\s?)?\d\d\b|\bQ[1-4]\b")
# a footnote mark on one period's header ('August 31, 2018 (1)') makes no other series
_FOOTNOTE_MARK = re.compile(r"\(\d{1,2}\)")


def period_series(members: list[Observed], index: SourceIndex, subject: ClaimSubject,
                  named_by: frozenset[str] = frozenset()) -> list[list[Observed]]:
    """A row's cells of the claim's periods, as one series when each period has one cell; else grouped by what
    their column is apart from its period ('December 31, 2019' and 'December 31, 2018' one series, '% of revenue
    2019' another), in source order. A row whose columns name no period is one series; for a claim naming no
    period, the row's cells of one period each are.
    A 'Variance' column beside the periods is in no series."""
    if not any(index.label(o).periods for o in members):
        return [members]
    if not subject.periods:  # 'the average cost of sales': over every period of the row, one cell each
        dated = [o for o in members if len(index.label(o).periods) == 1]
        return [dated] if len({index.label(o).periods for o in dated}) == len(dated) > 1 else [members]
    dated = [o for o in members if index.label(o).periods and index.label(o).periods <= subject.periods]
    if len({index.label(o).periods for o in dated}) == len(dated):
        return [dated] if dated else []
    found = _series_by_mark(dated, index) or _series_by_column(dated, index)
    # `named_by` (the stems of the claim's words): the series whose column the claim names ('the change in the
    # Total gross margin between 2018 and 2019': the 'Total' columns, not the quarters beside them)
    named = [members for (kind, _), members in found.items() if _names_series(named_by, kind)]
    return named or list(found.values())


def two_series(index: SourceIndex, a: Observed, b: Observed) -> bool:
    """Are two cells of two periods in two series, their columns named apart by more than their periods ('Accounts
    Receivable, Gross' of 2019 and 'Accounts Receivable, Net' of 2018)? A figure over periods is of one series."""
    la, lb = index.label(a), index.label(b)
    if la is None or lb is None or not la.periods or not lb.periods or la.periods == lb.periods:
        return False
    ka, kb = words_besides_periods(la.column_text), words_besides_periods(lb.column_text)
    return bool(ka) and bool(kb) and ka != kb


def _series_by_column(dated: list[Observed], index: SourceIndex) -> dict[tuple[str, str], list[Observed]]:
    """Cells grouped by what their column is apart from its period, and by their kind of figure (a year's
    amount and its percentage under one spanning '2019' are two series)."""
    found: dict[tuple[str, str], list[Observed]] = {}
    for o in dated:
        kind = " ".join(_FOOTNOTE_MARK.sub(" ", _PERIOD_TEXT.sub(" ", index.label(o).column_text)).lower().split())
        # an amount written with '$' on the first and total rows only is one series with the bare ones below
        figure = index.quantity(o).kind
        found.setdefault((kind, "amount" if figure in ("currency", "number") else figure), []).append(o)
    return found


def _series_by_mark(dated: list[Observed], index: SourceIndex) -> dict[tuple[str, str], list[Observed]]:
    """A row holding one period twice, its columns told apart by their headers' footnote marks ('FY19**',
    'FY18**' beside 'FY18***': the comparable group's two years, and the full group's one): its series by mark,
    those of two cells or more, each holding each period once; a column alone under its mark stands beside them,
    in no series. Empty when the marks do not tell the periods apart (both operands of a change come from one
    series, or a period's other column passes for it)."""
    if len({index.label(o).periods for o in dated}) == len(dated):
        return {}
    by_mark: dict[tuple[str, str], list[Observed]] = {}
    for o in dated:
        figure = index.quantity(o).kind
        by_mark.setdefault((index.label(o).mark, "amount" if figure in ("currency", "number") else figure), []).append(o)
    parts = {key: cells for key, cells in by_mark.items() if len(cells) > 1}
    if len({mark for mark, _ in by_mark}) < 2 or not parts or any(
            len({index.label(o).periods for o in cells}) < len(cells) for cells in parts.values()):
        return {}
    return parts


def _beside_marked(members: list[Observed], index: SourceIndex, subject: ClaimSubject) -> set[tuple[int, int]]:
    """The cells of a row's claimed periods that stand beside its series by mark (`_series_by_mark`: 'FY18***'
    beside 'FY19**' and 'FY18**'): no operand of a change or a pair, which takes both from one series."""
    dated = [o for o in members if index.label(o).periods and index.label(o).periods <= subject.periods]
    kept = {(o.file, o.item) for cells in _series_by_mark(dated, index).values() for o in cells}
    return {(o.file, o.item) for o in dated if (o.file, o.item) not in kept} if kept else set()


def _names_series(words: frozenset[str], kind: str) -> bool:
    """Does the claim name the column of a series by every word of it ('Total', 'Fiscal Total')?"""
    keys = _stems(kind)
    return bool(keys) and keys <= words


def _stems(text: str) -> frozenset[str]:
    """Stems of every word of three letters or more (a column's 'Total' is a word here, no stopword)."""
    return frozenset(subject_stem(w) for w in re.findall(r"[a-z]{3,}", text.lower()))


def unnamed_series(members: list[Observed], index: SourceIndex, words: frozenset[str]) -> set[tuple[int, int]]:
    """The cells of a row's series whose column the claim does not name, when it names one ('Total' beside the
    quarters): no operands of the claim's figure."""
    found = _series_by_column([o for o in members if index.label(o).periods], index)
    if not any(_names_series(words, kind) and len({index.label(o).periods for o in cells}) > 1
               for (kind, _), cells in found.items()):
        return set()  # no series over periods that the claim names: the columns are no series of periods
    return {(o.file, o.item) for (kind, _), cells in found.items() if not _names_series(words, kind) for o in cells}


def _aggregate(q: Quantity, members: list[Observed], index: SourceIndex, ops: frozenset[str], slack: float,
               *, minimum_sum: int) -> tuple[str, list[Observed]] | None:
    """`q` as the mean or the sum of every member of one group (a row's periods, a column's rows)."""
    if len(members) < 2:
        return None
    values = [index.quantity(o) for o in members]
    if not all(same_family(q, v) or q.kind == v.kind for v in values):
        return None
    readings = [(sum(v.value for v in values), " + ".join(shown(v) for v in values))]
    if all(_deduction(v) for v in values):
        # a deduction row ('Cost of sales | $(5,860) | $(5,803)') is averaged or totalled on its sizes too, as its
        # change is (see `_deductions`)
        readings.append((-readings[0][0], " + ".join(_size(v) for v in values)))
    for total, texts in readings:
        if "mean" in ops and abs(total / len(values) - q.value) <= slack:
            return f"({texts}) / {len(values)} = {q.text}", members
        if "sum" in ops and q.kind != "percent" and len(values) >= minimum_sum and abs(total - q.value) <= slack:
            return f"{texts} = {q.text}", members
    return None


def _column_groups(claim: ClaimRecord, index: SourceIndex, subject: ClaimSubject) -> list[list[Observed]]:
    """Columns whose own header names the claim's subject ('revenue_usd_millions' for 'segment revenue'),
    each the cells of the claim's period, in source order: the items of a breakdown the claim totals,
    averages or takes a share of. A column headed by a period only is no such column: its rows are
    unrelated line items."""
    words = content_words(claim.claim + "\n" + (claim.context or ""))
    whole_years = {(year, "") for year, part in subject.periods if not part
                   and all((year, f"Q{n}") in subject.periods for n in range(1, 5))}
    found: set[tuple[int, int]] = set()
    for word in words:
        found.update(index.labelled_with(word))
    groups: dict[tuple, list[Observed]] = {}
    for f, item in sorted(found):
        if item in index.files[f].alternatives:
            continue
        label = index.files[f].labels[item]
        year = _year_of_part(subject, label)
        if other_period(subject, label) and year is None or not subject_keys(label.column_text) & subject.keys \
                or sides_apart(subject.sides, cell_sides(label)):
            continue  # 'the average quarterly high price' is no mean of the 'Low' column
        o = Observed(index.files[f].quantities[item].value, f, item)
        if is_weak(index.quantity(o)):
            continue
        # a claim about every quarter of a year ('the average quarterly low price in 2018') reads the quarter rows
        # of that year's column as one breakdown
        periods = year or frozenset((y, "") if (y, "") in whole_years else (y, part) for y, part in label.periods)
        groups.setdefault((f, label.columns, label.caption, periods), []).append(o)
    kept = [(key, members) for key, members in sorted(groups.items(), key=lambda kv: str(kv[0]))
            if not isinstance(key[3], tuple) or _whole_year(members, index)]
    # a column the claim names by every word of its header is the claim's; one it names by some ('Total Expected
    # Charges' for 'the remaining expected charges', beside 'Remaining Expected Charges') is another column's
    full = [(key, members) for key, members in kept if _column_named(subject, key[1])]
    return [members for _, members in (full or kept)]


def _column_named(subject: ClaimSubject, columns: tuple[str, ...]) -> bool:
    """Does the claim name every stem of a column's header ('Remaining Expected Charges')?"""
    header = " ".join(columns)
    # the header's own words, not the initials `subject_keys` adds ('rec'), which a claim spelling them out never holds
    keys = {subject_stem(w) for w in content_words(header)} & subject_keys(header)
    if keys and _TOTAL_WORD.search(header):
        keys.add(TOTAL_KEY)  # 'Total' is no content word, yet names the column apart from 'Remaining'
    return bool(keys) and keys <= subject.keys


def _year_of_part(subject: ClaimSubject, label: CellLabel) -> tuple[Period, str] | None:
    """For a claim naming a year only ('the average quarterly low price in 2018'), the year of a cell of one of its
    quarters or halves ('First Quarter' under '2018'): such cells are items of the year's breakdown, never the
    year's own figure (a look-up keeps them apart, `other_period`)."""
    if len(label.periods) != 1:
        return None
    (year, part), = label.periods
    return ((year, ""), part[0]) if part and (year, "") in subject.periods and not any(p for _, p in subject.periods) \
        else None


def _whole_year(members: list[Observed], index: SourceIndex) -> bool:
    """Do the cells of a year's parts (see `_year_of_part`) hold each quarter, or each half, of it once? A year's
    sum or mean is over all of them: a part of a year is no year."""
    parts = sorted(part for o in members for _, part in index.label(o).periods)
    return parts in (["Q1", "Q2", "Q3", "Q4"], ["H1", "H2"])


def _column_derivation(claim: ClaimRecord, q: Quantity, index: SourceIndex, subject: ClaimSubject,
                       ops: frozenset[str], slack: float) -> tuple[str, list[Observed]] | None:
    """`q` as the sum or mean of a breakdown column's items ('the three segments' revenue totalled'), or as
    the share of the total that the items the claim names make up ('Industrial and Medical made up 83.5% of
    revenue'): named items over the column's total row, or over the sum of its items when it has none."""
    for members in _column_groups(claim, index, subject):
        totals = [o for o in members if TOTAL_ROW.match(index.label(o).row)]
        items = [o for o in members if o not in totals]
        # in a roll-forward ('Balances at December 31, 2018' over 'Goodwill acquired', 'Currency translation
        # adjustments'), a row dated by its own label is a balance, no item of a breakdown with the movements
        dated = [o for o in items if periods_in(index.label(o).row)]
        if dated and len(dated) < len(items):
            items = [o for o in items if o not in dated]
        if not 2 <= len(items) <= MAX_GROUP or len(totals) > 1:
            continue
        found = _aggregate(q, items, index, ops, slack, minimum_sum=2)
        if found is not None:
            return found
        if q.kind != "percent" or not ops & {"share", "ratio", "sum"}:
            continue
        parts = [o for o in items if row_named(subject, index.label(o))]
        if not parts or len(parts) == len(items):
            continue
        values = [index.quantity(o) for o in parts]
        whole = index.quantity(totals[0]).value if totals else sum(index.quantity(o).value for o in items)
        if whole == 0 or abs(sum(v.value for v in values) / whole * 100.0 - q.value) > slack:
            continue
        part_text = " + ".join(shown(v) for v in values)
        whole_text = shown(index.quantity(totals[0])) if totals else " + ".join(shown(index.quantity(o)) for o in items)
        numerator = f"({part_text})" if len(values) > 1 else part_text
        return f"{numerator} / ({whole_text}) × 100 = {q.text}", parts + (totals or [o for o in items if o not in parts])
    return None


# 'A as a percentage of (the total) B': the claim names the part before the cue and the whole after it.
_AS_SHARE_OF = re.compile(r"(?i)\bas an? (?:percentage|proportion|share|fraction|portion) of\b")
_TOTAL_WORD = re.compile(r"(?i)\btotal\b")


def _named_share(claim: ClaimRecord, q: Quantity, index: SourceIndex, own: ClaimSubject,
                 slack: float) -> tuple[str, list[Observed]] | None:
    """'Operating lease obligations due in less than one year as a percentage of the total contractual
    obligations': a cell of the row the part names (in the claim's periods) over the whole in the same table,
    either in the cell's own column (a row the whole names, or the table's 'Total' row when the whole is a
    total) or in the cell's own row (its 'Total' column, when the whole is a total). Only these pairs, in source
    order: a chance quotient of two unrelated cells is out, and so is any pair of cells whose columns were not
    read (every cell of such a table would share its empty column)."""
    if q.kind != "percent":
        return None
    text = claim.claim
    cue = _AS_SHARE_OF.search(text, 0, max(0, q.start - claim.start))
    if cue is None:
        return None
    part_text, whole_text = text[:cue.start()], text[cue.end():max(cue.end(), q.start - claim.start)]
    part = ClaimSubject(frozenset(subject_keys(part_text)), frozenset(metrics_of(part_text)), own.periods,
                        label_sides(part_text))
    whole = ClaimSubject(frozenset(subject_keys(whole_text)), frozenset(metrics_of(whole_text)), frozenset(),
                         label_sides(whole_text))
    total = _TOTAL_WORD.search(whole_text) is not None
    if not part.keys or not (whole.keys or total):
        return None
    sub_claim = ClaimRecord.model_construct(claim=part_text, context=None)
    rows: dict[tuple, list[Observed]] = {}
    score: dict[tuple, float] = {}
    for o in subject_cells(sub_claim, index, part, limit=4 * TABLE_POOL):
        label = index.label(o)
        if o.item in index.files[o.file].alternatives or is_weak(index.quantity(o)) or label is None:
            continue
        row = (o.file, label.row, label.section, label.caption)
        rows.setdefault(row, []).append(o)
        # the label's own words, not the initials `subject_keys` adds ('tec' of 'Total Electronic Components'),
        # which a claim spelling the words out never holds
        stems = {subject_stem(w) for w in content_words(label.row)} & subject_keys(label.row)
        score[row] = len(stems & part.keys) / len(stems) if stems else 0.0
    parts = [o for row in sorted(_named_rows(score), key=str) for o in rows[row]][:TABLE_POOL]
    for n in parts:
        fi, mine = index.files[n.file], index.label(n)
        a = index.quantity(n)
        for item, label in sorted(fi.labels.items()):
            if item == n.item or item in fi.alternatives or label.caption != mine.caption:
                continue
            same_column = bool(mine.columns) and label.columns == mine.columns and (
                row_named(whole, label) and (label.row, label.section) != (mine.row, mine.section) or total and TOTAL_ROW.match(label.row))
            same_row = (label.row, label.section) == (mine.row, mine.section) and total \
                and _TOTAL_WORD.search(label.column_text) is not None and not _TOTAL_WORD.search(mine.column_text)
            if not (same_column or same_row):
                continue
            b = fi.quantities[item]
            if b.value == 0 or not same_family(a, b) or is_weak(b):
                continue
            if abs(a.value / b.value * 100.0 - q.value) <= slack:
                return f"{shown(a)} / {shown(b)} × 100 = {q.text}", [n, Observed(b.value, n.file, item)]
    return None


def _bare_total(label: CellLabel) -> bool:
    """A row 'Total' that names nothing else (what it totals is the table's: its column's rows above it)."""
    return TOTAL_ROW.match(label.row) is not None and not content_words(TOTAL_ROW.sub(" ", label.row))


def _share_of_total(claim: ClaimRecord, q: Quantity, index: SourceIndex, own: ClaimSubject,
                    columns: dict[tuple, list[Observed]], ops: frozenset[str],
                    slack: float) -> tuple[str, list[Observed]] | None:
    """The share of the total that the rows a claim names make up, where the total is a bare 'Total' row of their
    column ('the percentage of revenue from Taiwan and Japan over total revenue in 2019': (Taiwan + Japan) / Total
    of the 2019 column). A bare 'Total' names no subject of its own, so it is never among the rows the claim names:
    it is the base only where the claim says 'total' and a share, and only the one 'Total' of each column of the
    named rows. One formula per column (every named row, summed): no search over subsets."""
    if q.kind not in ("percent", "ratio") or not ops & {"share", "ratio"} or len(own.periods) > 1 \
            or _TOTAL_WORD.search(claim.claim) is None or quantities.percent_dimension(q) == "points":
        return None
    times = 100.0 if q.kind == "percent" else 1.0
    for (f, header, caption), members in sorted(columns.items(), key=lambda kv: str(kv[0])):
        parts = [o for o in members if not TOTAL_ROW.match(index.label(o).row)]
        if not 1 <= len(parts) <= MAX_GROUP or not header:
            continue
        fi = index.files[f]
        totals = [Observed(fi.quantities[item].value, f, item) for item, label in sorted(fi.labels.items())
                  if item not in fi.alternatives and label.columns == header and label.caption == caption
                  and _bare_total(label)]
        if len(totals) != 1:
            continue  # no total, or two (a section's and the table's): the base is left unsaid
        values, base = [index.quantity(o) for o in parts], index.quantity(totals[0])
        if base.value == 0 or is_weak(base) or not all(same_family(base, v) and v.kind != "percent" for v in values):
            continue
        # the total lies below its parts: a 'Total' above them is another section's
        if index.position(totals[0]) < max(index.position(o) for o in parts):
            continue
        if abs(sum(v.value for v in values) / base.value * times - q.value) <= slack:
            part_text = " + ".join(shown(v) for v in values)
            numerator = f"({part_text})" if len(values) > 1 else part_text
            scaled = " × 100" if times != 1.0 else ""
            return f"{numerator} / {shown(base)}{scaled} = {q.text}", parts + totals
    return None


def _base_ratio(claim: ClaimRecord, q: Quantity, index: SourceIndex, subject: ClaimSubject,
                ops: frozenset[str]) -> tuple[str, list[Observed]] | None:
    """A ratio whose base the claim's word implies (vocabulary.RATIO_BASES: a margin is over revenue): a
    cell of a row the claim partly names ('Net income' for 'net margin') over the base row's cell in the
    same column (the same period), both of the claim's period."""
    if q.kind != "percent" or "ratio" not in ops:
        return None
    text = " " + " ".join(re.findall(r"[a-z]+", claim.claim.lower())) + " "
    bases = {base for word, base in vocabulary.RATIO_BASES.items() if f" {word} " in text}
    if not bases:
        return None
    base_words = {subject_stem(w) for word in vocabulary.RATIO_BASES for w in word.split()}
    base_keys = {base: subject_keys(" ".join(vocabulary.METRIC_GROUPS[base])) for base in bases}
    keys = set(subject.keys) - base_words
    if not keys:
        return None
    by_column: dict[tuple, tuple[list[Observed], list[Observed]]] = {}
    for f, fi in enumerate(index.files):
        for item, label in sorted(fi.labels.items()):
            if item in fi.alternatives or other_period(subject, label) or not label.periods:
                continue
            o = Observed(fi.quantities[item].value, f, item)
            numerators, denominators = by_column.setdefault((f, label.columns, label.caption), ([], []))
            row_keys = subject_keys(label.row)
            if row_keys and any(row_keys <= base_keys[base] for base in bases):  # 'Revenue', not 'Cost of revenue'
                denominators.append(o)
                denominators.append(o)
            elif subject_keys(label.row) & keys and not is_weak(index.quantity(o)):
                numerators.append(o)
    for _, (numerators, denominators) in sorted(by_column.items(), key=lambda kv: str(kv[0])):
        # one base per column: two revenue rows ('Revenue', 'Net sales' of two segments) leave the base unsaid
        if len({index.quantity(o).value for o in denominators}) != 1 or not numerators or len(numerators) > DERIVE_POOL:
            continue
        for o in numerators:
            found = derive_figure(q, [o, denominators[0]], index, ops=frozenset({"ratio"}))
            if found is not None:
                return found
    return None


def _defined_ratio(claim: ClaimRecord, q: Quantity, index: SourceIndex, subject: ClaimSubject,
                   ops: frozenset[str], slack: float) -> tuple[str, list[Observed]] | None:
    """A named ratio (vocabulary.RATIO_DEFINITIONS: the current ratio is current assets over current liabilities)
    of the claim's period: one numerator row's cell over one denominator row's cell in the same column; or, for a
    change of it between the two periods the claim names, the later period's ratio less the earlier's. Each side
    is one row per column (two rows naming a side leave it unsaid)."""
    text = " " + " ".join(re.findall(r"[a-z]+", claim.claim.lower())) + " "
    named = [sides for name, sides in vocabulary.RATIO_DEFINITIONS.items() if f" {name} " in text]
    if len(named) != 1 or not subject.periods or q.kind not in ("number", "ratio", "percent"):
        return None
    sides = [{frozenset(subject_stem(w) for w in words.split()) for words in side} for side in named[0]]
    times = 100.0 if q.kind == "percent" else 1.0
    by_column: dict[tuple, tuple[list[Observed], list[Observed]]] = {}
    for f, fi in enumerate(index.files):
        for item, label in sorted(fi.labels.items()):
            if item in fi.alternatives or len(label.periods) != 1 or not label.periods <= subject.periods:
                continue
            stems = frozenset(row_stems(label) - {TOTAL_KEY})
            for k, side in enumerate(sides):
                if stems in side:
                    by_column.setdefault((f, label.columns, label.caption), ([], []))[k].append(
                        Observed(fi.quantities[item].value, f, item))
    ratios: dict[Period, tuple[float, str, list[Observed]]] = {}
    for _, (tops, bottoms) in sorted(by_column.items(), key=lambda kv: str(kv[0])):
        if len(tops) != 1 or len(bottoms) != 1 or index.quantity(bottoms[0]).value == 0:
            continue
        top, bottom = index.quantity(tops[0]), index.quantity(bottoms[0])
        period, = index.label(tops[0]).periods
        ratios.setdefault(period, (top.value / bottom.value * times, f"{shown(top)} / {shown(bottom)}", tops + bottoms))
    scaled = " × 100" if times != 1.0 else ""
    if len(subject.periods) == 1 and len(ratios) == 1:
        value, formula, operands = next(iter(ratios.values()))
        if abs(value - q.value) <= slack:
            return f"{formula}{scaled} = {q.text}", operands
    if len(subject.periods) == 2 and len(ratios) == 2 and ops & {"change", "difference"}:
        (_, earlier), (_, later) = sorted(ratios.items())
        if abs(later[0] - earlier[0] - q.value) <= slack:
            return f"{later[1]}{scaled} - {earlier[1]}{scaled} = {q.text}", later[2] + earlier[2]
    return None


def _compound_growth(claim: ClaimRecord, q: Quantity, index: SourceIndex, subject: ClaimSubject,
                     rows: dict[tuple, list[Observed]], named: list[tuple], ops: frozenset[str],
                     slack: float) -> tuple[str, list[Observed]] | None:
    """A compound annual growth rate over the claim's period range ('a 7.3% CAGR from FY2021 to FY2024'):
    the named row's cells of the range's first and last years, over the years between them."""
    if "cagr" not in ops or q.kind != "percent":
        return None
    years = sorted({year for year, part in subject.periods if not part})
    if len(years) < 2:
        return None
    first, last = years[0], years[-1]
    for row in sorted(named, key=str):
        cells = {next(iter(index.label(o).periods)): o for o in rows[row] if len(index.label(o).periods) == 1}
        start, end = cells.get((first, "")), cells.get((last, ""))
        if start is None or end is None:
            continue
        a, b = index.quantity(start), index.quantity(end)
        if a.value <= 0 or b.value <= 0:
            continue
        span = last - first
        rate = ((b.value / a.value) ** (1.0 / span) - 1.0) * 100.0
        if abs(rate - q.value) <= slack:
            return f"(({b.text} / {a.text}) ** (1 / {span}) - 1) × 100 = {q.text}", [end, start]
    return None


# Two-step formulas: each is a second operation over the results of one the claim also names, over every cell of
# the rows (or columns) it names: a mean's change, a difference of two means, a share of a sum.
_MEAN_WORD = re.compile(r"(?i)\b(?:average|mean)\b")


def _row_cells(index: SourceIndex, row: tuple) -> list[Observed]:
    """Every cell (primary reading) of a named row, whatever its period: a mean's change reaches the period
    before the claim's, which the claim's own cells leave out."""
    f, name, section, caption = row
    fi = index.files[f]
    return [Observed(fi.quantities[item].value, f, item) for item, label in sorted(fi.labels.items())
            if item not in fi.alternatives and (label.row, label.section, label.caption) == (name, section, caption)]


def _by_period(cells: list[Observed], index: SourceIndex) -> list[dict[Period, Observed]]:
    """A row's cells as series of one cell per period (a year's amount and its percentage apart)."""
    dated = [o for o in cells if len(index.label(o).periods) == 1]
    out = []
    for _, members in sorted(_series_by_column(dated, index).items()):
        series: dict[Period, Observed] = {}
        for o in members:
            period, = index.label(o).periods
            if period in series:
                break
            series[period] = o
        else:
            out.append(series)
    return out


def _mean(cells: list[Observed], index: SourceIndex) -> tuple[float, str]:
    values = [index.quantity(o) for o in cells]
    return sum(v.value for v in values) / len(values), f"({' + '.join(shown(v) for v in values)}) / {len(values)}"


def _two_step(claim: ClaimRecord, q: Quantity, index: SourceIndex, own: ClaimSubject, rows: dict[tuple, list[Observed]],
              named: list[tuple], by_column: list[list[Observed]], ops: frozenset[str],
              slack: float) -> tuple[str, list[Observed]] | None:
    """A figure of two operations the claim names both of, over the rows it names: the change of a two-year mean
    ('the change between the 2018 and 2019 average free cash flow', each year's mean with the year before), the
    difference of two rows' means ('the difference between average salaries and average incentive schemes'), a
    share of a sum ('deferred revenue and accrued warranty over gross deferred tax assets'), or the mean or sum of
    the columns of a row the claim names ('the average net balance for Cubic Transportation Systems, ...')."""
    return (_mean_change(q, index, own, rows, named, ops, slack)
            or _means_difference(claim, q, index, own, rows, named, ops, slack)
            or _share_of_sum(q, index, own, rows, named, by_column, ops, slack)
            or _change_of_sum(q, index, own, named, ops, slack)
            or next((found for row in sorted(named, key=str) if (found := _aggregate(
                q, _named_columns(index, own, rows[row])[0], index, ops, slack, minimum_sum=2)) is not None), None))


def _named_columns(index: SourceIndex, own: ClaimSubject, members: list[Observed]) -> tuple[list[Observed], list[Observed]]:
    """A row's cells of the claim's period in the columns the claim names by every word of their headers
    ('Cubic Transportation Systems'), and its 'Total' column's: the parts of a breakdown across columns that the
    claim averages, totals or takes a share of."""
    members = [o for o in members if not own.periods or index.label(o).periods == own.periods]
    totals = [o for o in members if TOTAL_ROW.match(" ".join(index.label(o).columns[-1:]))]
    return [o for o in members if o not in totals and (keys := column_keys(index.label(o))) and keys <= own.keys], totals


def _mean_change(q: Quantity, index: SourceIndex, own: ClaimSubject, rows: dict[tuple, list[Observed]],
                 named: list[tuple], ops: frozenset[str], slack: float) -> tuple[str, list[Observed]] | None:
    """The change of a row's two-year mean between the claim's last two years (the claim names those years, or
    the three the two means span): (c + b) / 2 - (b + a) / 2 over the row's cells of years a < b < c."""
    if "mean" not in ops or not ops & {"change", "difference"} or any(part for _, part in own.periods):
        return None
    years = sorted(year for year, _ in own.periods)
    if len(years) not in (2, 3) or years != list(range(years[-1] - len(years) + 1, years[-1] + 1)):
        return None
    need = [((years[-1] - k), "") for k in (0, 1, 2)]
    # the row the claim names most fully: 'operating free cash flow' is not the 'Free cash flow' its words hold
    stems = {row: _stems(row[1]) for row in named}
    for row in sorted((r for r in named if not any(stems[r] < other for other in stems.values())), key=str):
        for series in _by_period(_row_cells(index, row), index):
            if not all(p in series for p in need):
                continue
            cells = [series[p] for p in need]
            if not all(same_family(q, index.quantity(o)) for o in cells):
                continue
            later, later_text = _mean(cells[:2], index)
            earlier, earlier_text = _mean(cells[1:], index)
            if abs(later - earlier - q.value) <= slack:
                return f"{later_text} - {earlier_text} = {q.text}", cells
    return None


def _means_difference(claim: ClaimRecord, q: Quantity, index: SourceIndex, own: ClaimSubject,
                      rows: dict[tuple, list[Observed]], named: list[tuple], ops: frozenset[str],
                      slack: float) -> tuple[str, list[Observed]] | None:
    """The difference of the means of the two rows the claim names, each over the claim's periods (every period
    of the rows when it names none), stated unsigned or as the first named less the second: only where the claim
    says 'average' of each ('the difference between average X and average Y')."""
    if not {"mean", "difference"} <= ops or len(_MEAN_WORD.findall(claim.claim)) < 2 or len(named) != 2:
        return None
    means = []
    for row in sorted(named, key=lambda r: claim.claim.lower().find(r[1].lower()[:6])):
        series = [s for s in _by_period(_row_cells(index, row), index)
                  if all(same_family(q, index.quantity(o)) for o in s.values())]
        if own.periods:
            series = [{p: o for p, o in s.items() if p in own.periods} for s in series]
        series = [s for s in series if len(s) >= 2 and (not own.periods or set(s) == set(own.periods))]
        if len(series) != 1:
            return None
        means.append([series[0][p] for p in sorted(series[0], reverse=True)])
    if {frozenset(index.label(o).periods for o in cells) for cells in means} != {
            frozenset(index.label(o).periods for o in means[0])}:
        return None  # two rows' means over other periods are no comparison
    (first, first_text), (second, second_text) = (_mean(cells, index) for cells in means)
    if abs(first - second - q.value) <= slack:
        return f"{first_text} - {second_text} = {q.text}", means[0] + means[1]
    if q.value > 0 and abs(second - first - q.value) <= slack:
        return f"{second_text} - {first_text} = {q.text}", means[1] + means[0]
    return None


def _share_of_sum(q: Quantity, index: SourceIndex, own: ClaimSubject, rows: dict[tuple, list[Observed]],
                  named: list[tuple], by_column: list[list[Observed]], ops: frozenset[str],
                  slack: float) -> tuple[str, list[Observed]] | None:
    """The sum of two or more parts over a whole, every one named by the claim and of its one period: rows of a
    column (each part a row the claim names, the whole one more row it names) or columns of a row (each part a
    column the claim names by its header, the whole the row's 'Total' column)."""
    if not ops & {"ratio", "share"} or q.kind not in ("percent", "ratio", "number") or len(own.periods) > 1:
        return None
    times = 100.0 if q.kind == "percent" else 1.0
    candidates: list[tuple[list[Observed], Observed]] = []
    for members in by_column:
        if 3 <= len(members) <= MAX_GROUP:
            candidates += [([o for o in members if o != whole], whole) for whole in members]
    for row in sorted(named, key=str):
        parts, totals = _named_columns(index, own, rows[row])
        if len(totals) == 1 and len(parts) >= 2:
            candidates.append((parts, totals[0]))
    for parts, whole in candidates:
        values, base = [index.quantity(o) for o in parts], index.quantity(whole)
        if base.value == 0 or not all(same_family(base, v) for v in values):
            continue
        if abs(sum(v.value for v in values) / base.value * times - q.value) <= slack:
            scaled = " × 100" if times != 1.0 else ""
            return f"({' + '.join(shown(v) for v in values)}) / {shown(base)}{scaled} = {q.text}", parts + [whole]
    return None


def _change_of_sum(q: Quantity, index: SourceIndex, own: ClaimSubject, named: list[tuple], ops: frozenset[str],
                   slack: float) -> tuple[str, list[Observed]] | None:
    """The change (or percentage change) between the claim's two periods of the sum of the rows it names ('the
    percentage change in total net sales of International and Foodservice from fiscal 2018 to 2019': ((793.4 +
    934.2) - (843.5 + 1,054.8)) / (843.5 + 1,054.8)): two or more parts, each a row the claim names with one series
    of amounts holding both periods; a 'Total' row the claim names for its word 'total' is no part."""
    if not ops & {"change", "difference"} or len(own.periods) != 2:
        return None
    parts = [row for row in sorted(named, key=str) if not TOTAL_ROW.match(row[1])]
    if not 2 <= len(parts) <= MAX_GROUP or len({row[0] for row in parts}) != 1:
        return None
    early, late = sorted(own.periods)
    pairs = []
    for row in parts:
        series = [s for s in _by_period(_row_cells(index, row), index) if early in s and late in s
                  and index.quantity(s[early]).kind != "percent" and index.quantity(s[late]).kind != "percent"]
        if len(series) != 1:
            return None
        pairs.append((series[0][early], series[0][late]))
    before, after = [index.quantity(e) for e, _ in pairs], [index.quantity(la) for _, la in pairs]
    if not all(same_family(before[0], v) for v in before + after):
        return None
    was, now = sum(v.value for v in before), sum(v.value for v in after)
    was_text, now_text = (f"({' + '.join(shown(v) for v in values)})" for values in (before, after))
    operands = [la for _, la in pairs] + [e for e, _ in pairs]
    if q.kind == "percent" and "change" in ops and was != 0 and quantities.percent_dimension(q) != "points":
        # a relative change is a percentage, never a move in percentage points
        if abs((now - was) / abs(was) * 100.0 - q.value) <= slack:
            return f"({now_text} - {was_text}) / {was_text} × 100 = {q.text}", operands
    elif same_family(q, before[0]) and abs(now - was - q.value) <= slack:
        return f"{now_text} - {was_text} = {q.text}", operands
    return None


# words of a claim that say what it computed or when, not what: no subject of its figures
_NOT_SUBJECT = frozenset(subject_stem(w) for words in vocabulary.FORMULA_CUES.values() for phrase in words
                         for w in phrase.split()) | frozenset(subject_stem(w) for w in ("put", "came", "stood", "both",
                                                                                         "years", "year", "period"))


_LISTED_YEARS = re.compile(r"(?<![\d.,$])(?:19|20)\d\d(?![\d.,]\d)")


def _respective_years(text: str, start: int, end: int) -> list[int]:
    """The years a sentence lists from `start` to `end`, in order, each once."""
    return list(dict.fromkeys(int(m.group()) for m in _LISTED_YEARS.finditer(text, start, end)))


_MOVE_WORDS = frozenset(w for op in ("difference", "change", "ratio", "share") for w in vocabulary.FORMULA_CUES[op]
                        if " " not in w) - vocabulary.PERIOD_PAIR_CUES - {"percentage", "percent", "total"}


def _names_a_change(claim: ClaimRecord) -> bool:
    """Does the claim name an operation besides a mean or total ('the change in', 'the difference', 'the share')? Its
    period words ('between 2017 and 2019') name none."""
    return bool(_MOVE_WORDS & set(re.findall(r"[a-z]+", claim.claim.lower())))


def prose_series(claim: ClaimRecord, q: Quantity, index: SourceIndex, operands: list[Observed],
                 keys: set[str]) -> tuple[tuple[str, list[Observed]] | None, bool]:
    """The mean or total over the periods a claim names of one prose sentence's figures of its subject, one figure
    per period ('$53 million of Bell Canada debentures ... at December 31, 2019 and approximately $68 million ... at
    December 31, 2018'; '$0.3 million, $0.9 million and $0.6 million, respectively' for 2019, 2018 and 2017): each
    figure attached to its period by the sentence's words (`prose_periods`), every period the claim names held once,
    all in one sentence that names the claim's subject. One formula, no search over subsets: a pair of a dozen
    figures averages to almost any figure by chance, a sentence's series for the claim's periods does not. The
    second value says whether such a series was found: then the claim's figure is determined by it, and a pair of
    its figures giving the claim's figure otherwise is a chance (2019's and 2017's for a total of 2018 and 2019).
    Returns (the formula and its operands, or None; whether a series was found)."""
    ops = formula_ops(claim) & {"mean", "sum"}
    periods = claim_subject(claim).periods
    if not ops or not 2 <= len(periods) <= MAX_GROUP or q.kind == "percent" and "sum" in ops and "mean" not in ops:
        return None, False
    subject = {k for k in keys if k not in _NOT_SUBJECT}
    if not subject:
        return None, False
    kept = sorted((o for o in operands if index.label(o) is None and same_family(q, v := index.quantity(o))
                   and not (v.kind != q.kind and "currency" in (q.kind, v.kind) and v.scale == 1.0)), key=index.position)
    # the figures of each sentence: one joins the one before it unless a sentence ends between them
    figures: dict[tuple[int, int], list[Observed]] = {}
    key: tuple[int, int] | None = None
    for n, o in enumerate(kept):
        v, text = index.quantity(o), index.loaded(o.file).text
        if n == 0 or o.file != kept[n - 1].file or SENTENCE_END.search(text, index.quantity(kept[n - 1]).end, v.start):
            key = (o.file, sentence_start(text, v.start))
        figures.setdefault(key, []).append(o)
    by_sentence: dict[tuple[int, int], dict[Period, list[Observed]]] = {}
    for sentence, found in figures.items():
        text = index.loaded(sentence[0]).text
        found.sort(key=index.position)
        listed = _respective_years(text, sentence[1], index.quantity(found[-1]).end)
        if len(listed) == len(found) and RESPECTIVELY.search(text, sentence[1], index.quantity(found[-1]).end + 40):
            # 'For the years ended December 31, 2019, 2018 and 2017, ... $0.3 million, $0.9 million and $0.6 million,
            # respectively': as many figures as years, paired in order
            for o, year in zip(found, listed):
                if (year, "") in periods:
                    by_sentence.setdefault(sentence, {}).setdefault((year, ""), []).append(o)
            continue
        for n, o in enumerate(found):
            v = index.quantity(o)
            # its period by the words attached to it, else the one period named between it and the sentence's
            # next figure of its kind ('$53 million of debentures, or 0.21% of plan assets, at December 31, 2019')
            stated = prose_periods(text, v.start, v.end)
            if not stated:
                stop = index.quantity(found[n + 1]).start if n + 1 < len(found) else v.end + 120
                after = text[v.end:stop]
                cut = re.search(r"[.;!?](?:\s|$)", after)
                stated = periods_in(after[:cut.start()] if cut else after)
            if len(stated) == 1 and stated <= periods:
                by_sentence.setdefault(sentence, {}).setdefault(next(iter(stated)), []).append(o)
    determined = False
    for (f, at), series in sorted(by_sentence.items()):
        if set(series) != set(periods) or any(len({index.quantity(o).value for o in found}) != 1
                                              for found in series.values()):
            continue  # a period missing, or two figures of one period: not the subject's series
        text = index.loaded(f).text
        last = max(index.quantity(found[0]).end for found in series.values())
        close = SENTENCE_END.search(text, last)
        named = {subject_stem(w) for w in content_words(text[at:close.end() if close else len(text)])}
        if len(subject & named) < min(2, len(subject)):
            continue  # the sentence names too little of the claim's subject
        determined = not _names_a_change(claim)
        cells = [series[p][0] for p in sorted(periods, reverse=True)]
        values = [index.quantity(o) for o in cells]
        total = sum(v.value for v in values)
        texts = " + ".join(shown(v) for v in values)
        if "mean" in ops and abs(total / len(values) - q.value) <= slack_of(q):
            return (f"({texts}) / {len(values)} = {q.text}", cells), True
        if "sum" in ops and abs(total - q.value) <= slack_of(q):
            return (f"{texts} = {q.text}", cells), True
    return None, determined


_YEAR_SECONDS = 31556952.0


def period_span(claim: ClaimRecord, q: Quantity) -> str | None:
    """'the 3 years from 2017 to 2019': a number of years that is the length of the period range the claim
    itself names is computed from the claim's own figures, not a source's."""
    if q.kind != "duration" or q.unit != "yr":
        return None
    years = sorted({year for year, part in claim_subject(claim).periods if not part})
    if len(years) < 2 or years != list(range(years[0], years[-1] + 1)):
        return None
    if abs(len(years) * _YEAR_SECONDS - q.value) > q.tolerance + 1.0:
        return None
    return f"{years[-1]} - {years[0]} + 1 = {q.text} (the claim's own period range)"


_THE_BEFORE = re.compile(r"(?i)\bthe\s*$")


def table_span(claim: ClaimRecord, q: Quantity, index: SourceIndex) -> str | None:
    """'the average net change in cash balance across the 2 years': a number of years after 'the', in a claim that
    names no year, that is the number of years the table rows it names hold, refers to those years (as 'the 3 years
    from 2017 to 2019' does, see `period_span`); it is no figure a source states."""
    if q.kind != "duration" or q.unit != "yr" or not _THE_BEFORE.search(claim.claim[:max(0, q.start - claim.start)]):
        return None
    own = claim_subject(claim)
    if own.periods:
        return None
    years = {year for o in subject_cells(claim, index, own, limit=TABLE_POOL)
             if (label := index.label(o)) is not None and row_named(own, label) for year, _ in label.periods}
    if len(years) < 2 or abs(len(years) * _YEAR_SECONDS - q.value) > q.tolerance + 1.0:
        return None
    return f"{q.text}: the years of the rows the claim names ({', '.join(map(str, sorted(years)))})"


def candidate_pool(claim: ClaimRecord, q: Quantity, index: SourceIndex, near_lines: set[tuple[int, int]]) -> list[tuple[int, Observed]]:
    """Candidate numbers for a derivation or a contradiction: the lines of the claim's other atoms and
    the lines that share the quantity's subject words, best first, bounded (see DERIVE_POOL)."""
    words = subject_words(claim, q)
    ranked = index.with_words(words, limit=4 * DERIVE_POOL) if words else []
    scores = {(o.file, o.item): score for score, o in ranked}
    extra: list[tuple[int, Observed]] = []
    for f, line in sorted(near_lines):
        if not 0 <= f < len(index.files):
            continue
        fi = index.files[f]
        for i in fi.items_on_line(line):
            if i in fi.alternatives:
                continue
            extra.append((scores.get((f, i), 0), Observed(fi.quantities[i].value, f, i)))
    seen: set[tuple[int, int]] = set()
    out: list[tuple[int, Observed]] = []
    for score, o in [*extra, *ranked]:
        if (o.file, o.item) in seen or is_weak(index.quantity(o)):
            continue
        seen.add((o.file, o.item))
        out.append((score, o))
    return out


def candidate_operands(claim: ClaimRecord, q: Quantity, index: SourceIndex, pool: list[tuple[int, Observed]]) -> list[Observed]:
    """Candidate operands of a derivation: the pool first, then the figures on lines that hold the words
    the rest of the claim names ('Net margin was 12.2%, net income divided by revenue': the operands stand
    on the 'net income' and 'revenue' lines, which share no word with 'net margin'), bounded. A table cell of
    another period than the claim's is no operand (two 2018 cells that happen to differ by a 2019 claim's figure;
    a change in a period is measured against the period before it, so that one is kept for a change of one period).
    A figure of a list is its own period's (see `listed_subject`): a prose figure stated for another period than
    that one (or the one before, for a change) is no operand of it either."""
    subject = listed_subject(claim, q)
    listed = bool(listed_period(claim, q))
    if formula_ops(claim) & {"change", "difference"} and len(subject.periods) == 1:
        # a change in one period is against the one before; a claim naming two periods compares those two
        subject = replace(subject, periods=subject.periods | {(year - 1, part) for year, part in subject.periods})

    def own_period(o: Observed) -> bool:
        # nor a cell of the other side of a line item the claim splits ('within one year' for 'after one year')
        label = index.label(o)
        if label is None:
            return not listed or _prose_period_within(index, o, subject.periods)
        return not (other_period(subject, label) or sides_apart(subject.sides, cell_sides(label)))

    def named(o: Observed) -> bool:
        # a fallback operand is found by words anywhere on its line or by its line alone: a table cell stands for
        # its row and column, so one whose row label and column header name nothing the claim names is no operand
        return index.label(o) is None or stands_by_subject(index, o, set(subject.keys))

    chosen = [o for _, o in pool if own_period(o) and named(o)][:DERIVE_POOL]
    if len(chosen) >= DERIVE_POOL:
        return chosen
    own = set(subject_words(claim, q))
    others = [w for w in content_words(claim.claim) if w not in own and w not in quantities.UNIT_WORDS]
    seen = {(o.file, o.item) for o in chosen}
    for _, o in index.with_words(others, limit=4 * DERIVE_POOL) if others else []:
        if len(chosen) >= DERIVE_POOL:
            break
        if (o.file, o.item) in seen or o.item in index.files[o.file].alternatives or is_weak(index.quantity(o)) \
                or not own_period(o) or not named(o):
            continue
        seen.add((o.file, o.item))
        chosen.append(o)
    return chosen


def _prose_period_within(index: SourceIndex, o: Observed, periods: frozenset[Period]) -> bool:
    """Is a prose figure stated for one of `periods`, or for no period its words attach to it (see `prose_periods`)?"""
    v = index.quantity(o)
    stated = figure_periods(index.loaded(o.file), v.start, v.end)
    return not stated or bool(stated & periods)


def restated_conversion(
    claim: ClaimRecord, q: Quantity, index: SourceIndex, cited: list[str] | None = None
) -> AtomResult | None:
    """'350°F (175°C)', '65-75°F (18-24°C)': a figure in parentheses that restates the figure just before
    it in other units is derived from that figure, when that one is in the sources (in the `cited`
    ones, when given)."""
    if claim.kind == "table_row" or q.kind not in CONVERTIBLE:
        return None
    text = claim.claim
    at = q.start - claim.start
    opening = text.rfind("(", max(0, at - 30), at)
    if opening < 0 or ")" in text[opening:at]:
        return None
    closing = text.find(")", at)
    if closing < 0:
        return None
    parsed = quantities.parse_quantities(text, offset=claim.start)
    inside = [o for o in parsed if opening < o.start - claim.start < closing]
    before = [o for o in parsed if o.end - claim.start <= opening][-len(inside):] if inside else []
    if len(before) != len(inside) or not text[before[-1].end - claim.start:opening].strip() == "":
        return None
    position = next((i for i, o in enumerate(inside) if o.start == q.start), None)
    if position is None:
        return None
    original = before[position]
    if original.kind != q.kind or original.unit == q.unit:
        return None
    slack = max(q.tolerance + original.tolerance, CONVERSION_SLACK * abs(original.value))
    if abs(q.value - original.value) > slack:
        return None
    if cited is None:
        matches = locate(claim, original, index)
    else:  # every form the original may take in a cited source: written out or with its unit implicit
        found = about_subject(claim, original, find_atom(original, index), index)
        matches = [m for m in found + unwritten_unit(claim, original, index) if m.source in cited]
    if not matches:
        return None
    m = matches[0]
    f = next(i for i, src in enumerate(index.sources) if src.path == m.source)
    formula = f"{original.text} = {q.text} (unit conversion)"
    return AtomResult(q.text, Verdict.DERIVED, [(f, m.offset, m.offset + len(m.text))],
                       note=f"{q.text} derived: {formula}", formula=formula)


def written_operand(claim: ClaimRecord, q: Quantity, index: SourceIndex) -> AtomResult | None:
    """An operand of a formula the claim writes out ('grew 12.0% in FY2024, that is (1,234 - 1,102) / 1,102 x
    100'): a cell of the row the claim names, in a period the claim names or the one before it (the base of a
    change in that period). The operand is checked as a figure (verified there, else left to the other stages);
    the formula's result is derived on its own, so a wrong operand or a wrong result is each flagged."""
    if claim.kind == "table_row" or q not in claim.quantities:
        return None
    position = claim.quantities.index(q)
    if position not in quantities.formula_operands(claim.claim, claim.quantities, claim.start):
        return None
    subject = claim_subject(claim)
    subject = replace(subject, periods=subject.periods | {(year - 1, part) for year, part in subject.periods})
    for o in subject_cells(claim, index, subject, limit=4 * TABLE_POOL):
        fi = index.files[o.file]
        # the cell as written too: a formula writes '1,234', the cell under '(in millions)' reads $1,234 million
        readings = [i for i in range(max(0, o.item - 1), min(len(fi.quantities), o.item + 2))
                    if fi.quantities[i].start == fi.quantities[o.item].start]
        label = index.label(o)
        if label is None or not row_named(subject, label):
            continue
        for i in readings:
            if quantities.quantities_match(q, fi.quantities[i]):
                cell = Observed(fi.quantities[i].value, o.file, i)
                period = ", ".join(sorted(format_period(p) for p in label.periods))
                return AtomResult(q.text, Verdict.VERIFIED, [span_of(index, cell)],
                                  note=f"{q.text}: an operand of the claim's formula, the {period + ' ' if period else ''}"
                                       f"value of {label.describe()} in {index.sources[o.file].path}:{index.line(cell)}")
    return None


def span_of(index: SourceIndex, o: Observed) -> tuple[int, int, int]:
    q = index.quantity(o)
    return (o.file, q.start, q.end)


def parts_of_a_total(claim: ClaimRecord, operands: list[Observed], index: SourceIndex) -> bool:
    """May these operands give the figure of a claim naming a total? Where one of them is a part of that total
    (`part_of_total`: 'Interim dividend ...' for 'total dividends paid'), all of them must be parts alike (rows sharing
    the same words of the claim: 'Monetary assets, current' and '..., non-current' for the total monetary assets, not
    'Monetary liabilities, current' beside them) from two rows or more: the total's parts, never one part's change."""
    subject = claim_subject(claim)
    if TOTAL_KEY not in subject.keys:
        return True
    labels = [(o.file, index.label(o)) for o in operands]
    if not any(label is not None and part_of_total(subject, label, file, index) for file, label in labels):
        return True
    if any(label is None or not part_of_total(subject, label, file, index) for file, label in labels):
        return False
    shared = {part_words(subject, label.row) for _, label in labels}
    return len(shared) == 1 and len({(file, label.row, label.section) for file, label in labels}) >= 2


def total_parts(claim: ClaimRecord, operands: list[Observed], index: SourceIndex) -> list[Observed] | None:
    """For a claim naming a total, the operands that are its parts (`part_of_total`) naming the most of its words,
    where they stand in two rows or more ('Monetary liabilities, current' and '..., non-current' for the total
    monetary liabilities): the pool its sum is looked for in first. None where no such group stands alone."""
    subject = claim_subject(claim)
    if TOTAL_KEY not in subject.keys:
        return None
    groups: dict[frozenset[str], list[Observed]] = {}
    for o in operands:
        label = index.label(o)
        if label is not None and part_of_total(subject, label, o.file, index):
            groups.setdefault(part_words(subject, label.row), []).append(o)
    most = max(map(len, groups), default=0)
    best = [members for words, members in groups.items() if len(words) == most]
    if len(best) != 1 or len({index.label(o).row for o in best[0]}) < 2:
        return None
    return best[0]


def subject_in_table(claim: ClaimRecord, q: Quantity, index: SourceIndex) -> bool:
    """Does a table row of the sources carry the figure's subject (every stem of its label in the clause; for a row
    'Total' alone, every stem of its column's header)? The clause's every word, not the first eight `subject_words`
    keeps for proximity: a long row label ('Accounted for at cost, adjusted for observable price changes') is named
    by its last words too, else its figure is derived from a chance pair of other rows' cells."""
    subject = claim_subject(claim)
    own = frozenset(subject_stem(w) for w in content_words(" ".join(clause_parts(claim, q)))) | figure_keys(claim, q)
    return any(
        (label := index.label(o)) is not None
        and ({subject_stem(w) for w in content_words(label.row)}
             or (row_stems(label) - {TOTAL_KEY} if TOTAL_ROW.match(label.row) else set()) or {""}) <= own
        for o in subject_cells(claim, index, subject, limit=4 * TABLE_POOL)
    )


# A claim that counts ('how many years did revenue exceed $5,000 million', 'the number of quarters with a low
# below $2.00', 'in 2 of the 3 years'): its figure is a count of rows or cells, its threshold a constant.
_COUNTING = re.compile(r"(?i)\bhow\s+many\b|\bnumber\s+of\s+(?:the\s+)?(?:years|quarters|months|periods|times|"
                       r"segments|components|categories|items|types)\b")
_COMPARISON = re.compile(r"(?i)\b(?:exceed(?:s|ed|ing)?|surpass(?:es|ed)?|(?:more|greater|higher|less|lower|fewer)"
                         r"\s+than|above|below|under|over|at\s+least|at\s+most)\s*$")


def counted(claim: ClaimRecord, q: Quantity) -> str | None:
    """Why `q` is not a figure to look up, in a claim that counts, or None: the threshold of the comparison
    it counts ('exceed $200,000 thousand' is the question's constant, no value of the row), or the count
    itself (a small unit-less number: how many cells meet the comparison, which no cell holds). Counting a
    table's cells is not done, so neither is checked: the claim is `unverifiable` on them, never `verified`
    by a chance cell of the same digits (a wrong count read the same as a right one)."""
    if claim.kind == "table_row" or not _COUNTING.search(claim.claim):
        return None
    before = claim.claim[:max(0, q.start - claim.start)]
    if _COMPARISON.search(before):
        return "the threshold of a counted comparison"
    if q.kind in ("number", "count") and not q.unit and q.scale == 1.0 and q.value == int(q.value) \
            and 0 <= q.value < 100 and _COUNTING.search(before):
        return "a count"
    return None
