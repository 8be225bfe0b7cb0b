"""Stage 6, the verdict: `verify_claim` runs the stages for each atom of a claim, cites the evidence
through the fence gate, and gives the claim the worst verdict of its atoms with a note for each.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from pytest_auditfence.claims import quantities
from pytest_auditfence.errors import FenceError
from pytest_auditfence.fence import Fence, LoadedFile
from pytest_auditfence.models import ClaimRecord, Evidence, Quantity, Verdict
from pytest_auditfence.verify.derive import (
    another_period_derived, candidate_operands, candidate_pool, change_direction, computes, counted, derive_figure,
    period_span, prose_ops, table_span, restated_conversion, span_of, own_period_cell, parts_of_a_total, prose_series,
    total_parts, spread, subject_in_table, table_derivation, written_operand,
)
from pytest_auditfence.verify.match import (
    COMPUTED, NUMBER_RANGE, PROSE_METRICS, about_subject, claim_subject, conflicting_cell, counted_words, find_atom, locate,
    metrics_of, prose_operand,
    figure_periods, subject_around, subject_stem, subject_words, value_anywhere,
)
from pytest_auditfence.verify.count import count_check
from pytest_auditfence.verify.normalise import PER_UNIT, counts_a_noun, is_weak
from pytest_auditfence.verify.references import (
    CitedSources, allowed_origins, apply_origin_rules, cited_form, compile_rules, name_span, placed_verdict,
    resolve_reference, url_scopes,
)
from pytest_auditfence.verify.results import SEVERITY, AtomMatch, AtomResult
from pytest_auditfence.verify.sources import FileIndex, Observed, SourceIndex, label_of, record_periods
from pytest_auditfence.verify.tables import format_period


def _period_unread(claim: ClaimRecord, q: Quantity, result: AtomResult, matches: list[AtomMatch], index: SourceIndex
                   ) -> None:
    """Say so in the note where a claim naming a period is verified by prose figures none of whose own period is
    read (no period attached to it, no year its list or move pairs it with, no period field of its record): a
    reviewer must see that the figure's period was not checked, only its value and subject."""
    periods = claim_subject(claim).periods
    if result.verdict is not Verdict.VERIFIED or result.note or len(periods) != 1 or not result.spans:
        return  # (a claim naming two periods compares them: its figure is no one period's)
    position = index.numbers
    for m in matches:
        f = position[m.source]
        loaded = index.loaded(f)
        if index.label_at(f, m.offset) is not None or record_periods(loaded, m.offset) \
                or figure_periods(loaded, m.offset, m.offset + len(m.text)):
            return
    f, start, end = result.spans[0]
    loaded = index.loaded(f)
    result.note = (f"{q.text} matched {loaded.text[start:end]!r} in {index.sources[f].path}:{loaded.line_of(start)}, "
                   f"a figure whose period was not read (its sentence dates it to no period); the claim's is "
                   f"{format_period(next(iter(periods)))}")


def _check_quantity(
    claim: ClaimRecord, q: Quantity, index: SourceIndex, cited: list[str] | None, near_lines: set[tuple[int, int]],
    about: list[AtomMatch] | None = None,
) -> AtomResult:
    """A figure's verdict by every stage but the first pass (its matches about the claim's subject, `about` where
    the caller has them: `locate`)."""
    matches = locate(claim, q, index, about)
    if matches:
        result = cited_form(claim, q, index, cited, matches) or placed_verdict(q.text, matches, cited, index, None)
        _period_unread(claim, q, result, matches, index)
        return result
    restated = restated_conversion(claim, q, index) or written_operand(claim, q, index)
    if restated is not None:
        return restated
    pool = candidate_pool(claim, q, index, near_lines)
    keys = {subject_stem(w) for w in subject_words(claim, q)} - {subject_stem(w) for w in quantities.UNIT_WORDS}
    derived = table_derivation(claim, q, index)
    if derived is None and not subject_in_table(claim, q, index):
        # a subject the tables hold is derived from its cells only, never from a chance pair elsewhere
        ops = prose_ops(claim, q)
        operands = candidate_operands(claim, q, index, pool)
        if ops is not None and "change" in ops:  # a change of a metric, from that metric's own figures
            operands = [o for o in operands if prose_operand(claim, q, index, o)]
        parts = total_parts(claim, operands, index)
        if parts:  # a total's parts before chance pairs: their sum (amounts in parentheses by their size)
            derived = derive_figure(q, parts, index, keys, computes(claim, q), spread=spread(claim, q), deductions=True,
                                    ops=ops if ops is not None else frozenset({"sum"}))
            if derived is not None and not parts_of_a_total(claim, derived[1], index):
                derived = None
        if derived is None:
            # a mean or total of the claimed periods that a sentence's series of the subject determines is that
            # series' (see `prose_series`); only where there is none may a pair of the pool give it
            derived, determined = prose_series(claim, q, index, operands, keys)
            if derived is None and not determined:
                derived = derive_figure(q, operands, index, keys, computes(claim, q), ops=ops, spread=spread(claim, q),
                                        direction=change_direction(claim, q))
    own_cell = None  # the cell of the claim's period, whose figure a derivation from the other period is not
    if derived is not None and another_period_derived(claim, q, derived[1], index):
        own_cell, derived = own_period_cell(claim, q, derived[1], index), None
    if derived is not None and not parts_of_a_total(claim, derived[1], index):
        derived = None  # one part's change, or a part with another kind of row, is no figure of their total
    if derived is not None:
        formula, operands = derived
        spans = [span_of(index, o) for o in operands]
        return AtomResult(q.text, Verdict.DERIVED, spans, note=f"{q.text} derived: {formula}", formula=formula)
    conflict = conflicting_cell(claim, q, index)
    if conflict is None and own_cell is not None:
        conflict = own_cell, index.label(own_cell), next(iter(claim_subject(claim).periods))
    if conflict is not None:
        o, label, period = conflict
        observed = index.quantity(o)
        where = f"{index.sources[o.file].path}:{index.line(o)}"
        return AtomResult(
            q.text, Verdict.CONTRADICTED, [span_of(index, o)],
            note=f"{q.text} contradicted: the {format_period(period) + ' ' if period else ''}value of "
                 f"{label.describe()} is {observed.text!r}{_SCALE_NOTE.get(label.scale or 1.0, '')} in {where}, "
                 f"not {q.text}",
        )
    if value_anywhere(q, index):
        # the figure is in the sources, only not about this subject: unsupported, never contradicted
        return AtomResult(q.text, Verdict.UNSUPPORTED, note=f"{q.text} found in the sources only away from its subject")
    # An amount per something ('revenue per employee') is not contradicted by the whole amount it divides.
    per_unit = PER_UNIT.search(claim.claim) is not None
    computed = COMPUTED.search(claim.claim[:max(0, q.start - claim.start)]) is not None
    # a count in words ('acquire five stores') is contradicted in prose only by a count of its own things
    spelled_count = counted_words(claim.claim, q.end - claim.start) if not any(c.isdigit() for c in q.text) else None
    for score, o in ([] if computed else pool):
        if index.label(o) is not None:
            continue  # a table cell contradicts only as the cell of the claim's row and period (above)
        observed = index.quantity(o)
        # the same dimension: a bare number in prose ('100 units') is no amount of money unless a scale word
        # makes it one ('40 million' for '$40 million')
        comparable = observed.kind == q.kind or (
            {q.kind, observed.kind} == {"currency", "number"} and (observed.kind == "currency" or observed.scale > 1)
            and quantities.comparable(q, observed))
        if per_unit and "per" not in label_of(index.loaded(o.file), observed.start).lower().replace("_", " ").split():
            continue
        if spelled_count and not (counted_words(index.loaded(o.file).text, observed.end) or set()) & spelled_count:
            continue  # 'two perpendicular edges' is no count of the '90 degrees' of its sentence: counts of its things only
        if score >= 1 and comparable and _same_subject(index, o, claim, keys):
            return AtomResult(
                q.text,
                Verdict.CONTRADICTED,
                [span_of(index, o)],
                note=f"{q.text} contradicted: the same subject has {observed.text!r} in {index.sources[o.file].path}",
            )
    return AtomResult(q.text, Verdict.UNSUPPORTED, note=f"{q.text} found in no source")


def _worded(claim: ClaimRecord, q: Quantity, result: AtomResult, index: SourceIndex) -> bool:
    """Is the figure written in words, in the claim ('five', 'twenty percent') or in the source it was found in ('5
    stores' by 'five new stores')? Such a figure is read only where it stands with its noun or unit: one the sources
    do not state so, or state in another passage than the cited one, is left unchecked, as a small count is. A
    claimed share of a whole ('a third of total sales') names its whole as '33% of total sales' does: it is checked
    as those digits are."""
    if quantities.whole_fraction_at(claim.claim, q.start - claim.start, q.end - claim.start):
        return False
    return not any(c.isdigit() for c in q.text) or any(
        not any(c.isdigit() for c in index.loaded(f).text[start:end]) for f, start, end in result.spans)


def _dimensioned_nowhere(q: Quantity, index: SourceIndex) -> bool:
    """Is a figure the claim writes in words with a dimension of its own ('twenty percent', 'two million dollars')
    stated nowhere in the sources, in digits or in words? It is no count the writer made of a list, and as invented
    as its digits would be: it is checked (flagged). A spelled count ('five stores') stays unchecked, as a count
    in digits found nowhere does, and so does a spelled figure the sources state elsewhere (chance as often as not)."""
    # (a spelled figure near it at the precision the claim shows: 'fifteen stores' is not 'fifteen point two percent')
    slack = 1e-9 * max(1.0, abs(q.value))
    return (q.kind in ("percent", "currency", "ratio") or q.scale > 1) and not any(c.isdigit() for c in q.text) \
        and not value_anywhere(q, index) \
        and not any(abs(o.value - q.value) <= q.tolerance + slack for _, o in index.spelled_near(q.value, q.tolerance))


# Pronouns name no subject of their own: 'They also agreed to acquire 7 stores' is about what the source's 'we agreed to
# acquire 11 stores' is about, though no 'they' stands there
_PRONOUN_STEMS = frozenset(subject_stem(w) for w in (
    "they", "them", "our", "ours", "your", "yours", "his", "her", "hers", "she", "him", "these", "those", "there"))


def _same_subject(index: SourceIndex, o: Observed, claim: ClaimRecord, keys: set[str]) -> bool:
    """Does the prose figure `o` state the claim's own subject in the claim's own period: every stem of the
    figure's clause among the words around it (its line's, on a short structured line), and no other period
    attached to it? 'Subscription revenue was $80 million' shares 'revenue' with a claim that hardware revenue
    was $77 million, but is another subject: the claim is unsupported, not contradicted."""
    loaded = index.loaded(o.file)
    observed = index.quantity(o)
    keys = keys - _PRONOUN_STEMS
    if not keys or not keys <= subject_around(loaded, observed.start, observed.end):
        return False
    periods = claim_subject(claim).periods
    stated = figure_periods(loaded, observed.start, observed.end)
    return not (periods and stated and not stated & periods)


# how a note says the scale a table states for its cell ('1,234' (in millions) is not '$1,234 thousand')
_SCALE_NOTE = {1e3: " (in thousands)", 1e6: " (in millions)", 1e9: " (in billions)"}


def _evidence_span(loaded: LoadedFile, start: int, end: int, minimum: int) -> tuple[int, int]:
    """The whole lines around [start, end), grown upwards then downwards until long enough to cite."""
    first, last = loaded.line_of(start), loaded.line_of(max(start, end - 1))
    for _ in range(6):
        a, b = loaded.line_span(first)[0], loaded.line_span(last)[1]
        if len(" ".join(loaded.text[a:b].split())) >= minimum:  # the gate counts on normalised text
            break
        if first > 1:
            first -= 1
        elif last < loaded.line_count:
            last += 1
        else:
            break
    a, b = loaded.line_span(first)[0], loaded.line_span(last)[1]
    chunk = loaded.text[a:b]
    lead = len(chunk) - len(chunk.lstrip())
    return a + lead, a + len(chunk.rstrip())


def _cite(
    fence: Fence, index: SourceIndex, claim: ClaimRecord, span: tuple[int, int, int], atom: str, finding: str,
    formula: str | None = None,
) -> tuple[Evidence | None, str | None]:
    """Submit a span's lines through the fence gate; the evidence only if the gate accepts it."""
    f, start, end = span
    source = index.sources[f]
    loaded = index.loaded(f)
    a, b = _evidence_span(loaded, start, end, fence.min_evidence_length)
    text = loaded.text[a:b]
    fence.search(text, sources=[source.path], max_hits=1000)
    extra = {"formula": formula} if formula else {}  # the gate re-computes a derived figure from its operands
    submission = fence.submit(claim.claim, claim.claim, text, finding, atom=atom, **extra)
    if not submission.accepted or not submission.enforced:
        return None, f"fence rejected the evidence for {atom}: {submission.reason}"
    return (
        Evidence(
            text=text,
            node=source.node,
            file=source.path,
            line=loaded.line_of(a),
            offset=a,
            sha256=source.sha256,
            atom=atom,
        ),
        None,
    )


def _worst(verdicts: Iterable[Verdict]) -> Verdict:
    present = set(verdicts)
    for verdict in SEVERITY:
        if verdict in present:
            return verdict
    return Verdict.UNVERIFIABLE


def verify_claim(claim: ClaimRecord, fence: Fence, index: SourceIndex, *, policy: Any = None) -> ClaimRecord:
    """A copy of `claim` with its deterministic verdict, verbatim evidence (through the fence gate),
    the formula of a derived figure and notes. The fence and the index must cover the same sources."""
    rules = compile_rules(policy)
    missing = sorted({s.path for s in index.sources} - {s.path for s in fence.sources})
    if missing:
        raise FenceError(
            f"verify_claim: the index holds {', '.join(missing)}, which fence {fence.name!r} does not; build "
            f"the SourceIndex from the fence's sources."
        )
    notes: list[str] = []
    # a count of the periods in which one row's figure passes a threshold, or of the rows of a whole the claim names:
    # counted over those cells, a threshold a constant of the count (else neither is checked, see `counted`)
    counted_check = count_check(claim, index)
    settled = counted_check.starts if counted_check else set()
    reasons = {q.start: why for q in claim.quantities if q.start not in settled and (why := counted(claim, q))}
    for why in dict.fromkeys(reasons.values()):
        shown = ", ".join(q.text for q in claim.quantities if reasons.get(q.start) == why)
        notes.append(f"not checked, {why} (no table line, rows or list the claim names answer it): {shown}")
    if counted_check is not None and counted_check.result is None:
        # rows that answer the count, not all read with certainty: neither the count nor its threshold is checked
        shown = ", ".join(q.text for q in claim.quantities if q.start in settled)
        notes.append(f"not checked, a count ({counted_check.why}): {shown}")
    to_check = [q for q in claim.quantities if q.start not in reasons and q.start not in settled]
    labels = [q for q in to_check if _names_a_range_label(claim, q, index)]
    if labels:
        notes.append(f"not checked, a range that names a table's column or row: {', '.join(q.text for q in labels)}")
        to_check = [q for q in to_check if q not in labels]
    own = [q for q in to_check if not is_weak(q) and period_span(claim, q) is not None]
    spans = [q for q in to_check if q not in own and table_span(claim, q, index) is not None]
    if spans:
        notes.append(f"not checked, the number of the years of the rows the claim names: {', '.join(q.text for q in spans)}")
        to_check = [q for q in to_check if q not in spans]
    # a small number about a subject a table holds ('the expected term in 2019 was 0.5') is checked: its
    # row and period place it, where in prose it would match something anywhere by chance
    # and so is a count with its noun ('5 operating segments'): a claimed figure like any other
    table_placed = [q for q in to_check if is_weak(q) and subject_in_table(claim, q, index)]
    placed = table_placed + [q for q in to_check if is_weak(q) and q not in table_placed
                             and counts_a_noun(claim.claim, q, claim.start)]
    strong = [q for q in to_check if (not is_weak(q) or q in placed) and q not in own]
    if own:
        notes.append(f"not checked, the length of the claim's own period range: {', '.join(q.text for q in own)}")
    weak = [q.text for q in to_check if is_weak(q) and q not in placed]

    cited: list[str] | None = None
    named_refs = [r for r in claim.references if r.kind != "url"]
    dangling: list[str] = []
    # a URL the claim cites ('(source: https://...)') is a citation as much as 'passage 2': its figures must
    # stand in the files that fetched or hold that URL
    citing = [*named_refs, *(r for r in claim.references if r.kind == "url")]
    if citing:
        cited = CitedSources()
        for ref in citing:
            paths = resolve_reference(ref, index)
            if ref.kind == "url":
                for path, ranges in url_scopes(ref, index, paths).items():
                    cited.scopes.setdefault(path, []).extend(ranges)
            if paths:
                cited.extend(p for p in paths if p not in cited)
            else:
                dangling.append(ref.text)
        if dangling:
            notes.append(f"reference {', '.join(map(repr, dangling))} resolves to no source of this unit")
        cited = cited or None

    allowed = allowed_origins(claim, index, rules)
    results: list[AtomResult] = [counted_check.result] if counted_check and counted_check.result else []
    near: set[tuple[int, int]] = set()
    pending = list(strong)
    # atoms found directly first, so derivations can prefer the lines where the claim's other atoms stand
    worded: set[int] = set()  # the results of figures written in words, by id (see `_worded`)
    for q in list(pending):
        matches = about_subject(claim, q, find_atom(q, index), index)
        if matches:
            result = cited_form(claim, q, index, cited, matches, allowed) or placed_verdict(q.text, matches, cited, index, allowed)
            _period_unread(claim, q, result, matches, index)
            pending.remove(q)
            if _worded(claim, q, result, index):
                if result.verdict in (Verdict.UNSUPPORTED, Verdict.MISATTRIBUTED):
                    weak.append(q.text)  # as a small count below: found in another passage than the cited one
                    continue
                worded.add(id(result))
            results.append(result)
    for result in results:
        for f, start, _ in result.spans:
            line = index.loaded(f).line_of(start)
            near.update((f, ln) for ln in range(line - 2, line + 3))
    for q in pending:
        # the first pass found no match about the claim's subject: `locate` need not look again
        result = _check_quantity(claim, q, index, cited, near, about=[])
        if _worded(claim, q, result, index):
            worded.add(id(result))
        if result.verdict in (Verdict.UNSUPPORTED, Verdict.MISATTRIBUTED) and (
                q in placed and q not in table_placed or id(result) in worded and not _dimensioned_nowhere(q, index)):
            # a count the sources state for no noun of the claim's ('here are 5 ways' over a list of five): the
            # writer counted, which is no figure to look up, so it is not checked, nor is a small count found in
            # another passage than the cited one (by chance, as often as not); a count the sources state
            # otherwise for its subject ('4 operating segments') is `contradicted` above, and flagged
            # a figure written as words ('twenty percent') is read only where the sources write it in digits or
            # as words with its noun or unit: one they word otherwise is left unchecked, as a count is
            weak.append(q.text)
            continue
        results.append(result)
    if weak:
        notes.append(f"small unit-less numbers not checked: {', '.join(weak)}")
    for quote in claim.quotes:
        matches = find_atom(quote, index)
        if matches:
            results.append(placed_verdict(f"“{quote.text}”", matches, cited, index, allowed))
        else:
            results.append(AtomResult(quote.text, Verdict.UNSUPPORTED, note=f"quote “{quote.text}” found in no source"))
    for ref in claim.references:
        if ref.kind == "url":
            matches = find_atom(ref, index)
            if matches:
                results.append(placed_verdict(ref.target, matches, None, index))
            else:
                results.append(AtomResult(ref.text, Verdict.UNSUPPORTED, note=f"URL {ref.target} appears in no source"))

    if results:  # a claim checkable by its other atoms: the documents and fields it names must exist too
        results.extend(_missing_identifiers(claim, index))
    results.extend(_missing_periods(claim, index))
    if not results:
        results.extend(_periods_of_another_metric(claim, index))

    if not results:
        # a resolving name backs the claim only if its small numbers, too, stand in the cited sources
        unchecked = [q for q in claim.quantities if is_weak(q) and q not in placed]
        in_cited = cited and all(any(m.source in cited for m in find_atom(q, index)) for q in unchecked)
        if named_refs and not dangling and cited and in_cited:
            first = next(f for f, s in enumerate(index.sources) if s.path == cited[0])
            # cite the lines that name the person or organisation, when the reference is one
            span = name_span(named_refs[0], index, cited) or (first, 0, 1)
            results.append(AtomResult(named_refs[0].text, Verdict.VERIFIED, [span], note="reference resolves"))
        elif dangling:
            results.append(AtomResult(dangling[0], Verdict.UNSUPPORTED, note="dangling reference"))
    if dangling and rules.strict_misattribution and any(r.verdict in (Verdict.VERIFIED, Verdict.DERIVED) for r in results):
        results.append(AtomResult(dangling[0], Verdict.MISATTRIBUTED))

    apply_origin_rules(results, index, allowed, notes)

    if not results:
        notes.append("nothing checkable" if not weak else "only weak atoms: nothing checkable")
        return claim.model_copy(update={"verdict": Verdict.UNVERIFIABLE, "verdict_source": "deterministic",
                                        "evidence": [], "notes": [*claim.notes, *notes]})

    evidence: list[Evidence] = []
    for result in results:
        cited_ok = True
        for span in result.spans:
            found, problem = _cite(fence, index, claim, span, result.atom, f"{result.verdict.value}: {result.atom}",
                                   result.formula if result.verdict is Verdict.DERIVED else None)
            if found is None:
                cited_ok = False
                notes.append(problem or "")
            elif found not in evidence:
                evidence.append(found)
        if not cited_ok and result.verdict in (Verdict.VERIFIED, Verdict.DERIVED):
            # fail closed: uncited support is no support; a figure read in words is then not checked at all, as
            # before it was read (the gate confirms its own reading of digits, not a count in words)
            result.verdict = Verdict.UNVERIFIABLE if id(result) in worded else Verdict.UNSUPPORTED
        if result.note:
            notes.append(result.note)
    formulas = [r.formula for r in results if r.formula and r.verdict is Verdict.DERIVED]
    return claim.model_copy(
        update={
            "verdict": _worst(r.verdict for r in results),
            "verdict_source": "deterministic",
            "evidence": evidence,
            "formula": "; ".join(formulas) or None,
            "notes": [*claim.notes, *dict.fromkeys(n for n in notes if n)],
        }
    )


def _range_labels(index: SourceIndex) -> frozenset[tuple[str, str]]:
    """The ranges that name a table's columns or rows in the sources ('1–90' and '91–180' of an ageing table's
    'Days past due' columns), as pairs of their ends."""
    found = index.memo.get("range labels")
    if found is None:
        texts = {t for fi in index.files for label in set(fi.labels.values()) for t in (*label.columns, label.row)}
        found = frozenset((m.group(1), m.group(2)) for t in texts for m in NUMBER_RANGE.finditer(t))
        index.memo["range labels"] = found
    return found


def _names_a_range_label(claim: ClaimRecord, q: Quantity, index: SourceIndex) -> bool:
    """Is the figure an end of a range the claim writes as a table's sources name a column or row ('the
    difference between 1-90 and 91-180 days past due' of columns '1–90' and '91–180')? Then it says which cells
    the claim is about, and is no figure to look up; the cells' figures are checked as ever."""
    at = q.start - claim.start
    return any(m.start() <= at < m.end() and (m.group(1), m.group(2)) in _range_labels(index)
               for m in NUMBER_RANGE.finditer(claim.claim))


# A numbered document, field, place or class ('Form 4506', 'Line 21', 'Section 121', 'Route 66', 'Tier 1')
# names one specific thing; the number is no amount (the parser skips it as a label) but it is content:
# a source that never names it does not back the claim.
_IDENTIFIER = re.compile(
    r"\b(line|box|form|schedule|section|chapter|article|route|highway|exit|gate|flight|tier)[ \t\u00a0]+"
    r"(\d+[A-Za-z]?)\b", re.I)


def _missing_identifiers(claim: ClaimRecord, index: SourceIndex) -> list[AtomResult]:
    """The numbered things the claim names that no source names, in either order and with up to two
    words between ('Form 1040', 'form no. 1040', '1040 form')."""
    wanted = {(m.group(1).lower(), m.group(2).lower()): m.group() for m in _IDENTIFIER.finditer(claim.claim)}
    missing = []
    for (word, number), shown in sorted(wanted.items()):
        named = re.compile(rf"\b{word}s?\W+(?:\w+\W+){{0,2}}{number}\b|\b{number}\W+(?:\w+\W+)?{word}", re.I)
        if not any(named.search(index.loaded(f).text) for f in range(len(index.sources))):
            missing.append(AtomResult(shown, Verdict.UNSUPPORTED, note=f"{shown!r} is named by no source"))
    return missing


def periods_named(index: SourceIndex) -> frozenset[str]:
    """Every period key ('Q3', '2019') the sources of `index` name in any form: in their text ('second
    quarter', '2Q', 'Q2 2020'; a year's digits anywhere) and in their tables' headers and cell periods (page
    text stacks 'Third' over 'Quarter')."""
    return frozenset().union(*(_file_periods(index, f) for f in range(len(index.sources))))


def _file_periods(index: SourceIndex, f: int) -> frozenset[str]:
    """The period keys one file names (`periods_named`), worked out once a file for the audit (`FileIndex.memo`)."""
    memo = index.files[f].memo
    found = memo.get("period keys")
    if found is None:
        keys: set[str] = set()
        text = index.flat_text(f)  # whitespace collapsed: a captured line may wrap 'third' / 'quarter'
        keys.update(key for _, _, key in quantities.period_mentions(text))
        keys.update(re.findall(r"(?<!\d)(?:19|20)\d{2}(?!\d)", text))
        for label in set(index.files[f].labels.values()):
            keys.update(f"{year}" for year, _ in label.periods)
            keys.update(part for _, part in label.periods if part)
            keys.update(key for _, _, key in quantities.period_mentions(" ".join(label.columns)))
        found = memo["period keys"] = frozenset(keys)
    return found  # type: ignore[return-value]


def _missing_periods(claim: ClaimRecord, index: SourceIndex) -> list[AtomResult]:
    """The periods the claim names ('Q2', 'the third quarter of 2020', 'in 2022') that no source names: a period
    no source names is made up. A caller may set `index.memo["periods elsewhere"]` to a function giving the
    periods of a wider set of sources that count as named too (the cascade's hops: the run's raw data)."""
    mentions = quantities.period_mentions(claim.claim)
    if not mentions:
        return []
    named = index.memo.get("period keys")
    if named is None:
        elsewhere = index.memo.get("periods elsewhere")
        named = periods_named(index) | (elsewhere() if callable(elsewhere) else frozenset())
        index.memo["period keys"] = named
    return [AtomResult(shown, Verdict.UNSUPPORTED, note=f"{shown!r}: no source names this period ({key})")
            for key, shown in _unnamed(claim, mentions, named)]  # type: ignore[arg-type]


def _unnamed(claim: ClaimRecord, mentions: list[tuple[int, int, str]], named: frozenset[str] | set[str]
             ) -> list[tuple[str, str]]:
    """(key, the claim's words for it) of each period the claim mentions that is not among `named`, by key."""
    missing: dict[str, str] = {}
    for start, end, key in mentions:
        if key not in named:
            missing.setdefault(key, claim.claim[start:end])
    return sorted(missing.items())


_SENTENCE_END = re.compile(r"(?<=[.!?;])\s+(?=\S)|\n\s*\n")


def _metric_periods(index: SourceIndex) -> dict[str, set[str]]:
    """For each metric the sources' prose names: the period keys named in the sentences that name it, or
    in the sentence before one ('In the second quarter, ... . Net income was ...')."""
    cached = index.memo.get("metric periods")
    if cached is None:
        cached = {}
        for f in range(len(index.sources)):
            for metric, keys in _file_metric_periods(index.files[f]).items():
                cached.setdefault(metric, set()).update(keys)
        index.memo["metric periods"] = cached
    return cached


def _file_metric_periods(fi: FileIndex) -> dict[str, frozenset[str]]:
    """`_metric_periods` of one file, worked out once a file for the audit (`FileIndex.memo`)."""
    found = fi.memo.get("metric periods")
    if found is None:
        gathered: dict[str, set[str]] = {}
        before: set[str] = set()
        for sentence in _SENTENCE_END.split(fi.text):
            keys = {key for _, _, key in quantities.period_mentions(sentence)}
            for metric in metrics_of(sentence) & PROSE_METRICS:
                gathered.setdefault(metric, set()).update(keys | before)
            before = keys
        found = fi.memo["metric periods"] = {metric: frozenset(keys) for metric, keys in gathered.items()}
    return found  # type: ignore[return-value]


def _periods_of_another_metric(claim: ClaimRecord, index: SourceIndex) -> list[AtomResult]:
    """A claim without figures that names a metric and a period ("net income fell in Q3"): when the sources
    state that metric for periods of their own, none of them the claim's, the period is not the metric's.
    (Only the period is checked: whatever else the claim says is not, so a period found is no verdict.)"""
    mentions = quantities.period_mentions(claim.claim)
    metrics = metrics_of(claim.claim) & PROSE_METRICS
    if not mentions or not metrics or claim.quantities:
        return []
    stated = _metric_periods(index)
    periods = set().union(*(stated.get(m, set()) for m in metrics))
    if not periods:
        return []  # no source names these metrics for any period: nothing to hold the claim's period to
    named = ", ".join(sorted(metrics))
    return [AtomResult(shown, Verdict.UNSUPPORTED,
                       note=f"{shown!r}: the sources state {named} for {', '.join(sorted(periods))}, not for {key}")
            for key, shown in _unnamed(claim, mentions, periods)]
