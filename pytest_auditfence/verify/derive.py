"""Stage 4, derivation: a claimed figure computed from observed ones (sum, difference, ratio, percentage
change, a unit conversion in parentheses), searched in a bounded, deterministic pool of operands.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from dataclasses import replace
from itertools import permutations

from pytest_auditfence.claims import quantities, vocabulary
from pytest_auditfence.models import ClaimRecord, Quantity, Verdict
from pytest_auditfence.verify.match import (
    about_subject, claim_subject, find_atom, locate, row_named, stands_by_subject, subject_cells, subject_keys, subject_stem,
    subject_words,
    unwritten_unit,
)
from pytest_auditfence.verify.normalise import CONVERSION_SLACK, CONVERTIBLE, SPECIFIC_DIGITS, is_weak, same_family, significant_digits
from pytest_auditfence.verify.results import AtomResult
from pytest_auditfence.verify.sources import Observed, SourceIndex, content_words


# Derivations search pairs among at most this many candidate numbers: more makes chance matches likely.
DERIVE_POOL = 12


# A claim that writes its arithmetic out or names a total or a change: its figure is meant as one.
ARITHMETIC = re.compile(
    r"[+=]|\b(?:totals?|totall?ing|totall?ed|sum|plus|minus|combined|altogether|difference|in all"
    r"|(?:more|less|fewer|higher|lower) than|increased?|decreased?|rose|fell|grew|gained|declined)\b", re.I)


def _summable(q: Quantity, qa: Quantity, qb: Quantity, a: Observed, b: Observed, index: SourceIndex,
              keys: set[str], explicit: bool) -> bool:
    """May `q` be a sum or difference of these two figures? Not when the smaller one is below the
    claim's shown precision (3 feet is no '3 + one inch'). Unless the claim says it computed (see
    ARITHMETIC), both must stand by the subject of the figure's clause, which must name one: among a
    dozen small figures some pair adds up to almost any small number by chance ('simmer 5 minutes' is
    no '2 + 3 minutes' of two other steps)."""
    if min(abs(qa.value), abs(qb.value)) < 2 * q.tolerance:
        return False
    if explicit:
        return True
    return (significant_digits(q.text) >= SPECIFIC_DIGITS and bool(keys)
            and stands_by_subject(index, a, keys) and stands_by_subject(index, b, keys))


def derive_figure(
    q: Quantity, pool: list[Observed], index: SourceIndex, keys: set[str] = frozenset(), explicit: bool = True,
    *, relative: bool = False, ops: frozenset[str] | None = None,
) -> tuple[str, list[Observed]] | None:
    """A computation over observed numbers that gives `q` within its shown precision, or None. `keys`:
    the stems of the figure's subject, by which the operands of a sum or difference must stand unless
    the claim is `explicit` about computing. `relative`: also the percentage change of two rates (operands
    that are cells of the claim's own row, where '4.00%' over '3.75%' is a 6.67% rise). `ops`: the
    operations the claim's words allow (see vocabulary.FORMULA_CUES); None allows every one."""
    slack = q.tolerance + 1e-9 * max(1.0, abs(q.value))

    def allowed(op: str) -> bool:
        return ops is None or op in ops

    for a, b in permutations(pool, 2):
        qa, qb = index.quantity(a), index.quantity(b)
        if not same_family(qa, qb) or qa.value == qb.value:
            continue  # x / x = 100% and x - x = 0 say nothing about where a figure came from
        if (qa.kind == "number" and qa.unit or qb.kind == "number" and qb.unit) and qa.unit != qb.unit:
            continue  # '50 psi - 10 gallons' is no computation
        if q.kind == "percent":
            if qa.kind != "percent" and qa.value != 0:
                change = (qb.value - qa.value) / abs(qa.value) * 100.0
                if allowed("change") and abs(change - q.value) <= slack:
                    return f"({qb.text} - {qa.text}) / {qa.text} × 100 = {q.text}", [b, a]
                if allowed("ratio") and qb.value != 0 and abs(qa.value / qb.value * 100.0 - q.value) <= slack:
                    return f"{qa.text} / {qb.text} × 100 = {q.text}", [a, b]
            elif qa.kind == "percent" and allowed("difference") and abs((qa.value - qb.value) - abs(q.value)) <= slack:
                return f"{qa.text} - {qb.text} = {q.text}", [a, b]
            elif relative and qa.kind == "percent" and qa.value != 0 and allowed("change"):
                change = (qb.value - qa.value) / abs(qa.value) * 100.0
                if abs(change - q.value) <= slack:
                    return f"({qb.text} - {qa.text}) / {qa.text} × 100 = {q.text}", [b, a]
        elif q.kind == "ratio" or q.kind == "number" and relative and q.unit is None and allowed("ratio") and ops is not None:
            if allowed("ratio") and qb.value != 0 and abs(qa.value / qb.value - q.value) <= slack:
                return f"{qa.text} / {qb.text} = {q.text}", [a, b]
        elif same_family(q, qa):
            first = a.file * 10**9 + a.item < b.file * 10**9 + b.item
            total = first and allowed("sum") and abs(qa.value + qb.value - q.value) <= slack
            difference = allowed("difference") and abs(qa.value - qb.value - q.value) <= slack
            if (total or difference) and _summable(q, qa, qb, a, b, index, keys, explicit):
                sign = "+" if total else "-"
                return f"{qa.text} {sign} {qb.text} = {q.text}", [a, b]
    return None


# A table derivation searches pairs among at most this many cells of the claim's subject, and means and sums
# over groups (a row's periods, a column's rows) of at most MAX_GROUP cells.
TABLE_POOL = 16
MAX_GROUP = 8


def formula_ops(claim: ClaimRecord) -> frozenset[str]:
    """The operations the claim's words say it computed (vocabulary.FORMULA_CUES)."""
    text = " " + " ".join(re.findall(r"[a-z]+", claim.claim.lower())) + " "
    return frozenset(op for op, words in vocabulary.FORMULA_CUES.items() if any(f" {w} " in text for w in words))


def table_derivation(claim: ClaimRecord, q: Quantity, index: SourceIndex) -> tuple[str, list[Observed]] | None:
    """`q` computed from table cells of the claim's subject in the claim's periods, by an operation the claim
    names (a difference, sum, ratio or percentage change of two; the mean or sum of several). Operands are
    the periods of a row the claim names, or the rows the claim names in one column: a chance pair of
    unrelated cells is out. Bounded and in source order: the same inputs give the same formula."""
    ops = formula_ops(claim)
    if not ops:
        return None
    subject = claim_subject(claim)
    if ops & {"change", "difference"} and len(subject.periods) == 1:
        # 'grew 18.6% in FY2024': a change in a period is measured against the period before it
        (year, part), = subject.periods
        subject = replace(subject, periods=subject.periods | {(year - 1, part)})
    cells = [o for o in subject_cells(claim, index, subject, limit=4 * TABLE_POOL)
             if o.item not in index.files[o.file].alternatives and not is_weak(index.quantity(o))]
    if len(cells) < 2:
        return None
    rows: dict[tuple, list[Observed]] = {}
    columns: dict[tuple, list[Observed]] = {}
    score: dict[tuple, float] = {}
    for o in cells:
        label = index.label(o)
        if label is None:
            continue
        row = (o.file, label.row, label.section, label.caption)
        rows.setdefault(row, []).append(o)
        stems = subject_keys(label.row) or subject_keys(label.column_text)
        score[row] = len(stems & subject.keys) / len(stems) if stems else 0.0
        if row_named(subject, label):
            columns.setdefault((o.file, label.columns, label.caption), []).append(o)
    named = [row for row in rows if score[row] == 1.0]
    if not named and score:
        top = max(score.values())
        best = [row for row in rows if score[row] == top]
        named = best if top >= 0.5 and len(best) == 1 else []
    groups = [rows[row][:MAX_GROUP] for row in sorted(named, key=str)]
    groups += [members[:MAX_GROUP] for _, members in sorted(columns.items(), key=lambda kv: str(kv[0]))]
    for members in groups:
        found = derive_figure(q, members, index, explicit=True, relative=True, ops=ops)
        if found is not None:
            return found
    slack = q.tolerance + 1e-9 * max(1.0, abs(q.value))
    for members in groups:
        if len(members) < 2:
            continue
        values = [index.quantity(o) for o in members]
        if not all(same_family(q, v) or q.kind == v.kind for v in values):
            continue
        total = sum(v.value for v in values)
        texts = " + ".join(v.text for v in values)
        if "mean" in ops and abs(total / len(values) - q.value) <= slack:
            return f"({texts}) / {len(values)} = {q.text}", members
        if "sum" in ops and q.kind != "percent" and len(values) >= 3 and abs(total - q.value) <= slack:
            return f"{texts} = {q.text}", members
    return None


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
        # line numbers of a file's quantities ascend, so the quantities of one line are a slice
        for i in range(bisect_left(fi.lines, line), bisect_right(fi.lines, line)):
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
    on the 'net income' and 'revenue' lines, which share no word with 'net margin'), bounded."""
    chosen = [o for _, o in pool[:DERIVE_POOL]]
    if len(chosen) >= DERIVE_POOL:
        return chosen
    own = set(subject_words(claim, q))
    others = [w for w in content_words(claim.claim) if w not in own and w not in quantities.UNIT_WORDS]
    seen = {(o.file, o.item) for o in chosen}
    for _, o in index.with_words(others, limit=4 * DERIVE_POOL) if others else []:
        if len(chosen) >= DERIVE_POOL:
            break
        if (o.file, o.item) in seen or o.item in index.files[o.file].alternatives or is_weak(index.quantity(o)):
            continue
        seen.add((o.file, o.item))
        chosen.append(o)
    return chosen


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


def span_of(index: SourceIndex, o: Observed) -> tuple[int, int, int]:
    q = index.quantity(o)
    return (o.file, q.start, q.end)


def subject_in_table(claim: ClaimRecord, q: Quantity, index: SourceIndex) -> bool:
    """Does a table row of the sources carry the figure's subject (every stem of its label in the clause)?"""
    subject = claim_subject(claim)
    own = frozenset(subject_stem(w) for w in subject_words(claim, q))
    return any(
        (label := index.label(o)) is not None and ({subject_stem(w) for w in content_words(label.row)} or {""}) <= own
        for o in subject_cells(claim, index, subject, limit=4 * TABLE_POOL)
    )
