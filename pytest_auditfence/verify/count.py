"""Stage 4b, counting: a claim that counts the periods in which one table row's figure passes a threshold ('how many
years did net sales from Americas exceed $200,000 thousand, the figure is 2'), checked by counting the row's cells.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable
from dataclasses import dataclass

from pytest_auditfence.claims import quantities
from pytest_auditfence.models import ClaimRecord, Quantity, Verdict
from pytest_auditfence.verify.derive import span_of
from pytest_auditfence.verify.match import claim_subject, subject_cells, subject_stem
from pytest_auditfence.verify.normalise import same_family
from pytest_auditfence.verify.results import AtomResult
from pytest_auditfence.verify.sources import Observed, SourceIndex, content_words
from pytest_auditfence.verify.tables import TOTAL_ROW, Period, format_period

# what a claim counts: periods of one kind ('how many years', 'the number of quarters', 'how many of the years')
_PERIOD_COUNT = re.compile(r"(?i)\b(?:how\s+many|number\s+of)\s+(?:(?:of\s+)?the\s+)?(?P<unit>years|quarters)\b")
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
class PeriodCount:
    """A claim's count of periods and its threshold, and its atoms' result (`counted` is the count's verdict)."""

    count: Quantity
    threshold: Quantity
    result: AtomResult


def period_count(claim: ClaimRecord, index: SourceIndex) -> PeriodCount | None:
    """The check of a claim that counts the years (or quarters) in which its subject's figure passes a threshold:
    the one table row the claim names, its cells of the threshold's kind (an amount for '$5,000 million', a percentage
    for '10%') one per period, the claim's periods only when it names some; the claim's count is `derived` when the
    cells passing the threshold are as many, with a formula the gate re-computes ('($5,210 million > $5,000 million) +
    ($4,980 million > $5,000 million) = 1'), else `contradicted`. None when the claim counts nothing, or no single row
    with one figure a period answers it: the count is then not checked (see `derive.counted`)."""
    counting = _PERIOD_COUNT.search(claim.claim)
    if counting is None or claim.kind == "table_row":
        return None
    # the sentence's own figures, also where the claim is one atom of a sentence (the cascade traces the threshold
    # alone, the count being too small a figure to trace): the count is read with its threshold
    found = [q.model_copy(update={"start": q.start + claim.start, "end": q.end + claim.start})
             for q in quantities.parse_quantities(claim.claim)]
    thresholds = []
    for q in found:
        m = _BEFORE_THRESHOLD.search(claim.claim[:max(0, q.start - claim.start)])
        if m is not None:
            thresholds.append((q, next(i for i in range(len(_COMPARISONS)) if m.group(f"c{i}"))))
    counts = [q for q in found if q.start - claim.start > counting.end() and q not in (t for t, _ in thresholds)
              and q.kind in ("number", "count") and not q.unit and q.scale == 1.0 and q.value == int(q.value)
              and 0 <= q.value <= _MAX_PERIODS]
    if len(thresholds) != 1 or len(counts) != 1:
        return None
    (threshold, which), count = thresholds[0], counts[0]
    cells = _row_by_period(claim, threshold, index, quarters=counting.group("unit").lower() == "quarters")
    if cells is None:
        return None
    _, passes, sign = _COMPARISONS[which]
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
    return PeriodCount(count, threshold, result)


def _row_by_period(claim: ClaimRecord, threshold: Quantity, index: SourceIndex,
                   quarters: bool) -> dict[Period, Observed] | None:
    """The cells of the one table row the claim names (every word of its label and section among the claim's; of
    several, the one whose words hold every other's), of the threshold's kind, one a period (years, or quarters), in
    the periods the claim names when it names some."""
    subject = claim_subject(claim)
    stems = {subject_stem(w) for w in content_words(claim.claim)}
    rows: dict[tuple, dict[Period, list[Observed]]] = {}
    for o in subject_cells(claim, index, subject, limit=400):
        label = index.label(o)
        named = {subject_stem(w) for w in content_words(f"{label.row} {label.section}")} if label else set()
        if not named or not named <= stems or not same_family(threshold, index.quantity(o)):
            continue
        if TOTAL_ROW.match(label.row) and not _TOTAL_WORD.search(claim.claim):
            continue  # 'Total net sales' is no region's net sales: a total row is named by 'total' too
        if len(label.periods) != 1:
            return None  # a cell of no period, or of several, in the row: not one figure a period
        period = next(iter(label.periods))
        if bool(period[1]) != quarters or subject.periods and not _within(period, subject.periods):
            continue
        rows.setdefault((o.file, label.row, label.section, frozenset(named)), {}).setdefault(period, []).append(o)
    # the row the claim names most fully: 'Total Product' under 'Revenue:' for 'Total Product revenue', not 'Total'
    widest = [key for key in rows if all(other[3] < key[3] for other in rows if other is not key)]
    if len(widest) != 1:
        return None
    cells = rows[widest[0]]
    if len(cells) < 2 or any(len(found) != 1 for found in cells.values()):
        return None
    return {p: found[0] for p, found in cells.items()}


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


__all__ = ["PeriodCount", "period_count"]
