"""The mechanical rules that tie a fence submission to its claim: content words, atoms, support, derivations.

Owns `GateRules` (the settable thresholds), `RULES` (the rule names a rejection carries) and the pure checks
`Fence.submit` applies: does a search belong to a claim, does the evidence support it, is a span a claim.
"""

# Why each rule exists (issue 12): evidence that is merely *somewhere* in a search result proves nothing
# about the claim it is filed under. A line about a new plant must not back a claim about a share buyback,
# whether the claim searched for it or reused another claim's search; a line sharing only a number with the
# claim must not back it either. So a submission passes only when
# - a recent search *belongs to the claim*: its query shares a checkable atom (a quantity, equal up to a
#   power of ten) or a content word with the claim (or with the operands of a submitted derivation), and
#   the evidence was located in the results of such a search;
# - the evidence *supports the claim mechanically*: a claim with quantities has each cited quantity in the
#   evidence (equal at the claim's precision, up to a power of ten: a table cell in "(in millions)" shows
#   1,234 for "$1.2 billion"), plus one shared content word when no single atom is named; a derived figure
#   comes with its formula, which is re-computed here from operands of which the evidence holds one; a claim
#   without quantities needs `min_support_share` of its content words in the evidence;
# - lengths are measured on normalised text (whitespace runs and markdown marks collapsed);
# - `claim_in_document` is the claim's own text as it stands in the document, not a word of it.

from __future__ import annotations

import ast
import csv
import math
import operator
import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from pytest_auditfence.claims.quantities import percent_dimension
from pytest_auditfence.models import Quantity

RULE_SEARCH_FIRST = "search-first"
RULE_SEARCH_FOR_CLAIM = "search-for-claim"
RULE_EVIDENCE_LENGTH = "evidence-length"
RULE_EVIDENCE_VERBATIM = "evidence-verbatim"
RULE_EVIDENCE_SUPPORTS = "evidence-supports"
RULE_DERIVATION = "derivation"
RULE_CLAIM_IN_DOCUMENT = "claim-in-document"
RULE_CLAIM_SPAN = "claim-span"
RULES: tuple[str, ...] = (
    RULE_SEARCH_FIRST, RULE_SEARCH_FOR_CLAIM, RULE_EVIDENCE_LENGTH, RULE_EVIDENCE_VERBATIM,
    RULE_EVIDENCE_SUPPORTS, RULE_DERIVATION, RULE_CLAIM_IN_DOCUMENT, RULE_CLAIM_SPAN,
)

DEFAULT_MIN_SUPPORT_SHARE = 0.5
"""Share of a quantity-free claim's content words its evidence must hold (0.5: half of them)."""

# A derivation is re-computed from its operands; operands are shown rounded, so the result may differ from
# the claimed figure by the claim's own precision plus this fraction of it.
DERIVATION_SLACK = 0.005
CONVERSION_SLACK = 0.025

_STOP = frozenset("""
a about above after again against all also am an and any are as at be because been before being below between
both but by can could did do does doing down during each few for from further had has have having he her here
hers him his how i if in into is it its itself just me more most my no nor not now of off on once only or other
our ours out over own same she should so some such than that the their theirs them then there these they this
those through to too under until up very was we were what when where which while who whom why will with would
you your yours per via new year years during total overall reported report reports according said says
""".split())
_WORD = re.compile(r"[^\W\d_][\w'’-]*", re.UNICODE)
_SUFFIXES = ("ings", "ing", "edly", "ed", "es", "s", "ly", "e")


@dataclass(frozen=True)
class GateRules:
    """The settable thresholds of the gate (`Fence(..., min_support_share=...)`)."""

    min_support_share: float = DEFAULT_MIN_SUPPORT_SHARE


def _stem(word: str) -> str:
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[: -len(suffix)]
    return word


_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")


def content_words(text: str) -> set[str]:
    """Lower-cased, lightly stemmed words of `text` that carry content (no stop words, no 1-2 letter words);
    field names are split into their words ('market_cap_usd', 'ytdReturn')."""
    words: set[str] = set()
    for match in _WORD.finditer(_CAMEL.sub(" ", text)):
        for part in re.split(r"[-'’_]", match.group().casefold()):
            if len(part) >= 3 and part not in _STOP:
                words.add(_stem(part))
    return words


@lru_cache(maxsize=4096)
def _frozen_words(text: str) -> frozenset[str]:
    return frozenset(content_words(text))


def quantities_of(text: str, *, evidence: bool = False) -> list[Quantity]:
    """The quantities of `text`; a parser failure counts as none (the gate then asks for content words).
    In evidence a table cell '2031' is an amount and 'six hours' a duration. Memoised by text: every
    submission asks it of the claim and of each recent search's query again."""
    if not isinstance(text, str):
        return list(_parse_for_gate.__wrapped__(text, evidence))
    return list(_parse_for_gate(text, evidence))


@lru_cache(maxsize=2048)
def _parse_for_gate(text: str, evidence: bool) -> tuple[Quantity, ...]:
    from pytest_auditfence.claims.quantities import holds_number_word, parse_quantities, spelled_counts

    try:
        found = parse_quantities(text, years=not evidence, words=evidence)
        if evidence and holds_number_word(text):
            found += spelled_counts(text)  # 'open five new stores' holds a claimed '5 stores'
        return tuple(found)
    except Exception:  # noqa: BLE001 - the gate must decide on any text; the fuzz tests hunt parser bugs
        return ()


def _displayed(q: Quantity) -> tuple[float, float]:
    from pytest_auditfence.claims.quantities import displayed_value

    try:
        return displayed_value(q)
    except (ZeroDivisionError, ValueError, OverflowError):
        return q.value, q.tolerance


def _dimension(q: Quantity) -> str | None:
    """The quantity's dimension; percentage points and basis points are one ('points'), apart from percent."""
    if q.kind in ("number", "count"):
        return None
    return percent_dimension(q) or q.kind


def _compatible(claimed: Quantity, observed: Quantity) -> bool:
    a, b = _dimension(claimed), _dimension(observed)
    if a is None or b is None or a == b:
        return True
    return {a, b} <= {"percent", "ratio"}


_THOUSANDS = tuple(range(-12, 13, 3))
_PERCENT_POWERS = (0, -2)  # 12% is 12 or 0.12


def same_figure(value: float, tolerance: float, observed: float, *, slack: float = 0.0,
                powers: tuple[int, ...] = _THOUSANDS) -> bool:
    """Is `observed` the figure `value` (shown to `tolerance`) up to a scale and the sign?

    A table states its scale above the cells ("in millions"), so the evidence line shows the digits, not the
    scale: scales are powers of a thousand; a percent may be written as a ratio (powers of a hundred).
    `slack` is an extra relative allowance."""
    value, observed = abs(value), abs(observed)
    if not (math.isfinite(value) and math.isfinite(observed)):
        return False
    if value == 0 or observed == 0:
        return value == observed or (value <= tolerance and observed == 0)
    allowed = abs(tolerance) + slack * value + 1e-9 * value
    for k in powers:
        scaled = observed / 10.0**k
        if abs(scaled - value) <= allowed:
            return True
    return False


def contains_quantity(claimed: Quantity, evidence: Iterable[Quantity]) -> bool:
    """Is `claimed` among `evidence`: the same digits up to a power of ten at the claim's precision, or, in
    another unit of the same dimension (°F and °C, miles and km), the same value within CONVERSION_SLACK."""
    shown, tolerance = _displayed(claimed)
    for observed in evidence:
        if not _compatible(claimed, observed):
            continue
        converted = claimed.unit and observed.unit and claimed.unit != observed.unit and _dimension(claimed)
        if converted and abs(claimed.value - observed.value) <= (
            claimed.tolerance + observed.tolerance + CONVERSION_SLACK * abs(claimed.value)
        ):
            return True
        powers = _PERCENT_POWERS if claimed.kind in ("percent", "bps", "ratio") else _THOUSANDS
        if same_figure(shown, tolerance, _displayed(observed)[0], powers=powers) or same_figure(
            claimed.value, claimed.tolerance, observed.value, powers=powers
        ):
            return True
    return False


_REFERENCE_TOKEN = re.compile(r"[^\W_][\w.-]*[^\W_]|[^\W_]", re.UNICODE)
_REFERENCE_GENERIC = frozenset({"source", "sources", "see", "per", "according", "cf", "ref", "reference", "the"})


def reference_tokens(text: str) -> set[str]:
    """The words and identifiers of a reference ('Source: 10-K.' -> {'10-k'}; 'passage 2' -> {'passage', '2'})."""
    tokens = {_stem(t) for t in _REFERENCE_TOKEN.findall(_CAMEL.sub(" ", text).casefold().replace("_", " "))}
    return {t for t in tokens if t not in _REFERENCE_GENERIC and t not in _STOP}


def query_belongs(query: str, claim: str, extra_atoms: str = "") -> bool:
    """Does a search for `query` belong to `claim`: a shared content word or a shared quantity? Memoised:
    every submission asks it of each recent query again, and a claim's atoms are submitted one by one."""
    return _query_belongs(query, claim, extra_atoms)


@lru_cache(maxsize=4096)
def _query_belongs(query: str, claim: str, extra_atoms: str) -> bool:
    if _frozen_words(query) & _frozen_words(f"{claim} {extra_atoms}"):
        return True
    found = quantities_of(query)
    wanted = quantities_of(f"{claim} {extra_atoms}")
    if any(contains_quantity(q, found) for q in wanted):
        return True
    # a search for a CSV row ('Industrial Solutions,80,66,14', whose cells prose reading runs together) or for the
    # items of a JSON list of lists ('- (197)', one cell a line, which prose reading takes for a list's enumerator)
    # holds the figures of its cells: a formula's operand among them is a figure of the claim. Those rows only:
    # other rows are read by prose reading above, and a cell of another row is no operand of the claim by this rule
    cells = csv_cell_quantities(query) + list_cell_quantities(query)
    return any(contains_quantity(q, cells) for q in wanted)


def _matched(wanted: set[str], found: set[str]) -> set[str]:
    """The wanted words in `found`, a word also matching a longer form of it ('grocer' / 'grocery')."""
    out = wanted & found
    for word in wanted - out:
        if any(len(a) >= 5 and b.startswith(a) for a, b in ((word, f) for f in found)) or any(
            len(f) >= 5 and word.startswith(f) for f in found
        ):
            out.add(word)
    return out


def support_problem(claim: str, evidence: str, *, atom: str | None, rules: GateRules, context: str = "") -> str | None:
    """Why `evidence` does not mechanically support `claim` (None when it does); see the module notes.

    `context` is the record the evidence stands in (the lines above it: a table's header, a record's label):
    for a claim with quantities, the shared content word may stand there."""
    evidence_quantities = quantities_of(evidence, evidence=True)

    def record_words() -> set[str]:  # asked where needed: the verifier's channel rarely reaches it
        return content_words(evidence) | content_words(context)

    if atom is not None:
        quantities = quantities_of(atom)
        if quantities:
            # The verifier's channel: it names the one figure this evidence is for and has placed it by its
            # subject (a label lines above, a column header, an abbreviation); the figure itself must be here.
            missing = [q for q in quantities if not contains_quantity(q, evidence_quantities)]
            if missing:
                # a CSV row ('Stock-based compensation,525,410') reads as one number in prose, and a cell '(598)'
                # as a list's enumerator; the verifier placed the figure in its cell, so the cells are read one
                # by one too
                cell_quantities = table_cell_quantities(evidence)
                missing = [q for q in missing if not contains_quantity(q, cell_quantities)]
            if missing:
                return (f"the evidence does not contain {', '.join(q.text for q in missing)} "
                        f"(compared after normalisation)")
            return None
        if _folded(atom).strip("“”\"'") in _folded(evidence) or _folded(atom) in _folded(evidence):
            return None
        if reference_tokens(atom) and reference_tokens(atom) <= reference_tokens(f"{evidence} {context}"):
            return None
        # an atom the parser cannot read (a hook's quantity written in words): the verifier matched its
        # value; the gate asks for a shared content word, as for any figure
        if content_words(claim) & record_words():
            return None
        return f"the evidence holds neither {atom!r} nor any word of the claim"
    claimed = [q for q in quantities_of(claim)]
    words = content_words(claim)
    if claimed and atom is None:
        missing = [q.text for q in claimed if not contains_quantity(q, evidence_quantities)]
        if missing:
            return f"the evidence does not contain the claim's {', '.join(missing)} (compared after normalisation)"
        if words and not words & record_words():
            return "the evidence shares the claim's numbers but none of its words: a number alone is no support"
        return None
    if not words:
        return "the claim has no content words and no quantities the evidence could hold"
    shared = _matched(words, content_words(evidence))
    share = len(shared) / len(words)
    if share + 1e-9 < rules.min_support_share:
        return (f"the evidence holds {len(shared)} of the claim's {len(words)} content words ({share:.0%}); at "
                f"least {rules.min_support_share:.0%} are needed (min_support_share)")
    return None


# what stands between the cells of a row: a pipe, a tab, a run of spaces (page text), a list item's dash
_CELL_BREAK = re.compile(r"[ \t]*\|[ \t]*|\t|[ \t]{2,}|^[ \t]*(?:-[ \t]+)+")


def table_cell_quantities(evidence: str) -> list[Quantity]:
    """The figures of table rows read cell by cell: a CSV row ('Transportation equipment,613,636' holds 613
    and 636), pipe, page-text and list rows; a cell holding only '(598)' is a negative, not an enumerator."""
    lines = evidence.splitlines()
    return _row_cell_quantities([*csv.reader(lines), *(_CELL_BREAK.split(line) for line in lines)])


def csv_cell_quantities(text: str) -> list[Quantity]:
    """The figures of the CSV rows of `text` read cell by cell ('Industrial Solutions,80,66,14' holds 80, 66, 14)."""
    return _row_cell_quantities(csv.reader(line for line in text.splitlines() if "," in line))


# the items of a JSON list of lists as capture renders it, one cell a line ('- - Tax exempt interest income', '  - (197)')
_LIST_ITEM = re.compile(r"^[ \t]*(?:-[ \t]+)+(?=\S)")


def list_cell_quantities(text: str) -> list[Quantity]:
    """The figures of the list items of `text` read as cells ('- (197)' holds -197, not an enumerator)."""
    return _row_cell_quantities(_LIST_ITEM.split(line) for line in text.splitlines() if _LIST_ITEM.match(line))


def _row_cell_quantities(rows: Iterable[list[str]]) -> list[Quantity]:
    """The figures of the cells of rows of two cells or more, each distinct cell read once (a line that is no row
    is prose, read as such)."""
    cells = [c for row in rows if len(row) > 1 for c in row]
    return [q for c in dict.fromkeys(c.strip() for c in cells) if c for q in _parse_cell(c)]


@lru_cache(maxsize=2048)
def _parse_cell(text: str) -> tuple[Quantity, ...]:
    from pytest_auditfence.claims.quantities import parse_quantities

    try:
        return tuple(parse_quantities(text, years=False, words=True, cell=True))
    except Exception:  # noqa: BLE001 - as in _parse_for_gate: the gate decides on any text
        return ()


def finding_kind(finding: str) -> str:
    """'supported' for a finding that asserts support (supported, verified, derived, misattributed, or any
    other word: fail closed), else 'contradicted' or 'unsupported' (which assert nothing the evidence holds)."""
    head = re.split(r"[:\s]", finding.strip().casefold(), maxsplit=1)[0]
    return head if head in ("contradicted", "unsupported") else "supported"


def subject_problem(claim: str, evidence: str, *, context: str = "") -> str | None:
    """A contradiction is about the claim's subject: the evidence (or its record) shares a content word."""
    words = content_words(claim)
    if words and not words & (content_words(evidence) | content_words(context)):
        return "a contradiction must be about the claim's subject, and the evidence shares none of its words"
    return None


# a count of the items a list marks: 'count((i), (ii), (iii))'
_LIST_MARKS = re.compile(r"\((?:[ivx]{1,4}|[a-l])\)")
_LISTED = re.compile(r"count\(((?:\((?:[ivx]{1,4}|[a-l])\)(?:,\s*)?)+)\)")
_OPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv}
_COMPARE = {ast.Gt: operator.gt, ast.Lt: operator.lt, ast.GtE: operator.ge, ast.LtE: operator.le}


def _evaluate(node: ast.AST, values: list[float]) -> float:
    if isinstance(node, ast.Expression):
        return _evaluate(node.body, values)
    if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
        return _OPS[type(node.op)](_evaluate(node.left, values), _evaluate(node.right, values))
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow):
        # a root of a positive base, as a compound annual growth rate takes ('(b / a) ** (1 / 3)'); no powers
        # beyond that, so a formula never computes an unbounded figure
        base, exponent = _evaluate(node.left, values), _evaluate(node.right, values)
        if base <= 0 or not 0 < abs(exponent) <= 1:
            raise ValueError("only a root of a positive base")
        return float(base ** exponent)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_evaluate(node.operand, values)
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in _COMPARE:
        # a count of the figures that pass a threshold ('(v0 > v2) + (v1 > v2)'): each comparison counts 1 or 0
        return float(_COMPARE[type(node.ops[0])](_evaluate(node.left, values), _evaluate(node.comparators[0], values)))
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "count" and node.args \
            and not node.keywords:
        # a count of rows, each named by one of its figures ('count(v0, v1, v2) = 3'): how many figures it lists
        return float(len([_evaluate(arg, values) for arg in node.args]))
    if isinstance(node, ast.Name) and re.fullmatch(r"v\d+", node.id):
        return values[int(node.id[1:])]
    raise ValueError("not arithmetic over the formula's figures")


def derivation_problem(claim: str, evidence: str, formula: str, *, atom: str | None) -> str | None:
    """Why `formula` ('a / b = c', 'x = y (unit conversion)') does not tie `evidence` to `claim`, or None.

    The right-hand side must be a figure of the claim (the atom, when named), one operand must stand in the
    evidence, and the arithmetic must give the right-hand side at the claim's precision."""
    left, sep, right = formula.rpartition("=")
    if not sep:
        return f"formula {formula!r} has no '='"
    conversion = "(unit conversion)" in right
    right = right.replace("(unit conversion)", "")
    results = quantities_of(right)
    if len(results) != 1:
        return f"formula {formula!r}: the right-hand side is not one figure"
    result = results[0]
    targets = quantities_of(atom) if atom else quantities_of(claim)
    if not contains_quantity(result, targets) and not any(contains_quantity(t, [result]) for t in targets):
        return f"formula {formula!r} computes {result.text}, which is not a figure of the claim"
    listed = _LISTED.fullmatch(left.strip())
    if listed is not None:
        # a count of a list's items by their marks ('count((i), (ii), (iii)) = 3'): each mark in the evidence
        marks = _LIST_MARKS.findall(listed.group(1))
        if any(mark not in evidence for mark in marks):
            return f"the evidence does not mark every item of {formula!r}"
        if len(marks) != result.value:
            return f"formula {formula!r}: {len(marks)} items, not {result.text}"
        return None
    operands = quantities_of(left)
    if not operands:
        return f"formula {formula!r} names no operands"
    evidence_quantities = quantities_of(evidence, evidence=True)
    if not any(contains_quantity(o, evidence_quantities) for o in operands):
        evidence_quantities = table_cell_quantities(evidence)  # a table row's cells, as for a placed figure
    if not any(contains_quantity(o, evidence_quantities) for o in operands):
        return f"the evidence holds none of the operands of {formula!r}"
    if conversion:
        if len(operands) != 1 or _dimension(operands[0]) != _dimension(result):
            return f"formula {formula!r}: a unit conversion takes one figure of the same dimension"
        if abs(operands[0].value - result.value) > result.tolerance + operands[0].tolerance + CONVERSION_SLACK * abs(
            operands[0].value
        ):
            return f"formula {formula!r}: {operands[0].text} is not {result.text}"
        return None
    expression, cursor = [], 0
    for i, q in enumerate(operands):
        expression.append(left[cursor:q.start])
        expression.append(f" v{i} ")
        cursor = q.end
    expression.append(left[cursor:])
    source = "".join(expression).replace("×", "*").replace("÷", "/").replace("−", "-")
    shown, tolerance = _displayed(result)
    computed: list[float] = []
    # normalised values ('$1.2 billion - $800 million'), and the figures as shown ('2 + 3 minutes', where
    # the bare 2 takes the unit of its neighbour)
    for values in ([q.value for q in operands], [_displayed(q)[0] for q in operands]):
        try:
            computed.append(_evaluate(ast.parse(source.strip(), mode="eval"), values))
        except (SyntaxError, ValueError, ZeroDivisionError, OverflowError, RecursionError, IndexError):
            return f"formula {formula!r} is not arithmetic over its figures"
    powers = _PERCENT_POWERS if result.kind in ("percent", "bps", "ratio") else _THOUSANDS
    if not any(same_figure(shown, tolerance, c, slack=DERIVATION_SLACK, powers=powers)
               or same_figure(result.value, result.tolerance, c, slack=DERIVATION_SLACK, powers=powers)
               for c in computed):
        return f"formula {formula!r}: the operands give {computed[0]:.6g}, not {result.text}"
    return None


def _folded(text: str) -> str:
    return " ".join(re.sub(r"(\*\*|__|~~|[*_`])", "", text).split()).casefold()


def is_claim_span(given: str, claim: str) -> bool:
    """Is `given` the claim's own text (whole, or most of it), not a word or a phrase of it?"""
    a, b = _folded(given), _folded(claim)
    if not a or not (content_words(a) or quantities_of(a)):
        return False
    return a == b or (a in b and 2 * len(a) >= len(b)) or (b in a and 2 * len(b) >= len(a))
