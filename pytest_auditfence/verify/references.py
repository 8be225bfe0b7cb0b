"""Stage 5, references and citations: what a reference resolves to (`resolve_reference`), a found figure's
verdict against the sources the claim cites (verified or misattributed), and origin rules of a policy.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_auditfence.errors import FenceError
from pytest_auditfence.models import ClaimRecord, Quantity, Reference, Verdict
from pytest_auditfence.verify.derive import restated_conversion
from pytest_auditfence.verify.match import find_atom, unwritten_unit
from pytest_auditfence.verify.results import AtomMatch, AtomResult
from pytest_auditfence.verify.sources import SourceIndex, flat_name


def _ref_keys(target: str) -> tuple[str | None, str]:
    number = re.search(r"\d+", target)
    return (str(int(number.group())) if number else None), target.lower().strip()


_DOCUMENT_TYPE = re.compile(
    r"10-?k|10-?q|8-?k|20-?f|6-?k|40-?f|s-1|s-4|f-1|14a|annual report|quarterly report|earnings|press release|"
    r"presentation|proxy|prospectus|shareholder letter|filing"
)


# An argument that numbers what a call fetched: 'fetch_passage(n=2)' fetched passage 2.
_NUMBER_ARGUMENT = re.compile(
    r"(?:n|num|number|no|passage|passage_id|passage_number|index|idx|doc|doc_id|document|document_id|ref|source"
    r"|source_id|result|page|item)\s*[:=]\s*['\"]?0*(\d{1,4})['\"]?"
)


def resolve_reference(reference: Reference, index: SourceIndex) -> list[str]:
    """Paths of the sources a reference names.

    "passage 3" / "[3]": a file labelled so, a tool call whose arguments number it ('fetch_passage(n=3)'), or
    whose content starts with "passage 3:" / "[3]" (a tool result is rendered after its arguments). A URL:
    the files that hold it, in their arguments ('fetch(url=...)') or their text. A named source ("the 10-K", "price history"): the file's
    label (tool name), node name or file name, a declared name line ("source: 10-K", "document: Form
    10-K ..."), or one of its leading lines.
    """
    if reference.kind == "url":
        return sorted({m.source for m in find_atom(reference, index)})
    number, target = _ref_keys(reference.target)
    resolved: list[str] = []
    for f, source in enumerate(index.sources):
        names = index.names(f)
        if reference.kind in ("passage", "bracket") and number is not None:
            named = re.compile(rf"(?:passage|source|doc|document|ref|reference)[\s_\-#]*0*{number}\b")
            label = (source.label or "").lower().strip()
            stem = Path(source.path).stem.lower()
            if (
                label in {number, f"[{number}]"}
                or named.fullmatch(label)
                or any(_NUMBER_ARGUMENT.fullmatch(arg) and int(_NUMBER_ARGUMENT.fullmatch(arg).group(1)) == int(number)
                       for arg in names.arguments)
                or named.search(stem) and not re.search(rf"0*{number}\d", stem)
                or any(named.match(ln) or ln.startswith(f"[{number}]") for ln in names.head)
            ):
                resolved.append(source.path)
        elif reference.kind == "named":
            flat = flat_name(target)
            if flat and (
                any(flat in name for name in names.flat_names)
                or any(target in name for name in names.declared)
                or any(target in ln for ln in names.head[:5])
            ):
                resolved.append(source.path)
    if not resolved and reference.kind == "named":
        # A person or organisation ("according to Dr. Therese Rando") is grounded by a source that names
        # it; a document type ("the 10-K") must be that document, never a file that mentions it.
        resolved = [index.sources[f].path for f in _naming_sources(reference, index)]
    return resolved


_INPUT_KINDS = ("input", "input_question")


def _person(reference: Reference) -> re.Pattern[str] | None:
    """The name a reference to a person or organisation stands for, as a pattern over a source's text
    ("Dr. Therese Rando's" is 'therese rando', its words apart by any whitespace)."""
    target = reference.target.lower().strip()
    if reference.kind != "named" or _DOCUMENT_TYPE.search(target):
        return None
    wanted = re.sub(r"^(?:dr|prof|mr|mrs|ms)\.?\s+|['’]s$", "", " ".join(target.split()))
    if len(wanted) < 3:
        return None
    return re.compile(r"\s+".join(re.escape(w) for w in wanted.split()), re.IGNORECASE)


def _naming_sources(reference: Reference, index: SourceIndex) -> list[int]:
    """The sources that name the person or organisation a reference stands for."""
    name = _person(reference)
    if name is None:
        return []
    return [f for f in range(len(index.sources)) if name.search(index.flat_text(f))]


def name_span(reference: Reference, index: SourceIndex, paths: list[str]) -> tuple[int, int, int] | None:
    """Where the person or organisation a reference stands for is named among `paths` (a tool's or
    retriever's text before the user's input): the span to cite for a claim that rests on that name alone,
    whose lines share the name with the claim."""
    name = _person(reference)
    if name is None:
        return None
    order = sorted(range(len(index.sources)), key=lambda f: index.sources[f].kind in _INPUT_KINDS)
    for f in order:
        if index.sources[f].path in paths:
            m = name.search(index.loaded(f).text)
            if m is not None:
                return f, m.start(), m.end()
    return None


@dataclass(frozen=True)
class _Rules:
    origin: tuple[tuple[re.Pattern[str], frozenset[str]], ...] = ()
    strict_misattribution: bool = False


def compile_rules(policy: Any) -> _Rules:
    """Origin rules from `audit.policy.Policy` or a plain mapping {'origin_rules': {subject: [sources]}}."""
    if policy is None:
        return _Rules()
    if isinstance(policy, Mapping):
        raw_rules = policy.get("origin_rules") or {}
        items = raw_rules.items() if isinstance(raw_rules, Mapping) else [(r["subject"], r["sources"]) for r in raw_rules]
        strict = bool(policy.get("strict_misattribution", False))
    else:
        items = [(r.subject, r.sources) for r in getattr(policy, "origin_rules", ())]
        strict = bool(getattr(policy, "strict_misattribution", False))
    compiled = []
    for subject, allowed in items:
        if isinstance(allowed, str):
            allowed = [allowed]
        try:
            compiled.append((re.compile(subject, re.IGNORECASE), frozenset(allowed)))
        except re.error as exc:
            raise FenceError(
                f"policy origin rule {subject!r}: not a valid regular expression ({exc}); escape it."
            ) from exc
    return _Rules(origin=tuple(compiled), strict_misattribution=strict)


def cited_form(
    claim: ClaimRecord, q: Quantity, index: SourceIndex, cited: list[str] | None, matches: list[AtomMatch],
    allowed: set[str] | None = None,
) -> AtomResult | None:
    """When a figure stands only outside the sources the claim cites, look for it in a cited one in the
    other forms a source may write it, before calling it misattributed: its unit left implicit ('375°F'
    for the cited 'bake at 375°'), or a restatement of the figure before it ('350°F (175°C)' over the
    cited '350 degrees')."""
    if not cited or any(m.source in cited or m.kind == "input" for m in matches):
        return None
    in_cited = [m for m in unwritten_unit(claim, q, index) if m.source in cited]
    if in_cited:
        return placed_verdict(q.text, in_cited, cited, index, allowed)
    return restated_conversion(claim, q, index, cited)


class CitedSources(list):  # list[str] of paths, as every caller reads it
    """The paths a claim's references resolve to, and for a file that lists several URLs (a search result)
    the parts of it that the cited URL's own result covers: a figure of another result is not that source's."""

    def __init__(self, paths: list[str] = (), scopes: dict[str, list[tuple[int, int]]] | None = None) -> None:
        super().__init__(paths)
        self.scopes: dict[str, list[tuple[int, int]]] = dict(scopes or {})

    def covers(self, match: AtomMatch) -> bool:
        ranges = self.scopes.get(match.source)
        return match.source in self and (ranges is None or any(a <= match.offset < b for a, b in ranges))


_URL = re.compile(r"https?://[^\s<>()\[\]\"']+")
_ITEM_START = re.compile(r"(?m)^(?P<indent>[ \t]*)(?:- |\d+[.)] |\[\d+\])")


def url_scopes(reference: Reference, index: SourceIndex, paths: list[str]) -> dict[str, list[tuple[int, int]]]:
    """For each file holding the cited URL among other URLs: the result block the URL belongs to (from the
    list item that holds it to the next item at the same depth; without list items, up to the next URL)."""
    target = reference.target.rstrip("/.,;)").lower()
    position = index.numbers
    scopes: dict[str, list[tuple[int, int]]] = {}
    for path in paths:
        text = index.loaded(position[path]).text
        urls = [(m.start(), m.group().rstrip("/.,;)").lower()) for m in _URL.finditer(text)]
        if len({u for _, u in urls}) < 2:
            continue  # one page: the whole file is that source
        items = [(m.start(), len(m.group("indent"))) for m in _ITEM_START.finditer(text)]
        ranges = []
        for at, url in urls:
            if url != target:
                continue
            before = [(start, depth) for start, depth in items if start <= at]
            if before:
                start, depth = before[-1]
                end = next((s for s, d in items if s > at and d <= depth), len(text))
            else:
                start = text.rfind("\n", 0, at) + 1
                end = next((s for s, u in urls if s > at and u != target), len(text))
            ranges.append((start, end))
        scopes[path] = ranges
    return scopes


def placed_verdict(
    atom: str, matches: list[AtomMatch], cited: list[str] | None, index: SourceIndex, allowed: set[str] | None = None
) -> AtomResult:
    """The verdict of a found atom: verified where the claim says it came from (its citation, and the
    sources an origin rule allows), else misattributed, citing where it really stands."""
    position = index.numbers
    for wanted, why in ((cited, "the cited"), (allowed, "an origin rule requires")):
        if wanted is None:
            continue
        # the user's own input may be restated under any citation: a figure from the question is not
        # taken from the wrong source
        inside = [m for m in matches if (wanted.covers(m) if isinstance(wanted, CitedSources) else m.source in wanted)
                  or (why == "the cited" and m.kind == "input")]
        if not inside:
            m = matches[0]
            return AtomResult(
                atom,
                Verdict.MISATTRIBUTED,
                [(position[m.source], m.offset, m.offset + len(m.text))],
                note=f"{atom} found in {m.source}, not in {why} {', '.join(sorted(wanted)) or '(no source)'}",
            )
        matches = inside
    m = matches[0]
    note = f"{atom} matched {m.text!r} by unit conversion" if m.how == "converted" else None
    return AtomResult(atom, Verdict.VERIFIED, [(position[m.source], m.offset, m.offset + len(m.text))], note=note)


def allowed_origins(claim: ClaimRecord, index: SourceIndex, rules: _Rules) -> set[str] | None:
    """Paths of the sources every origin rule that applies to the claim allows (by node or label)."""
    allowed: set[str] | None = None
    for subject, names in rules.origin:
        if subject.search(claim.claim):
            paths = {s.path for s in index.sources if s.node in names or (s.label or "") in names}
            allowed = paths if allowed is None else allowed & paths
    return allowed


def apply_origin_rules(results: list[AtomResult], index: SourceIndex, allowed: set[str] | None, notes: list[str]) -> None:
    """Derived figures: every operand must come from an allowed source."""
    if allowed is None:
        return
    for result in results:
        if result.verdict is Verdict.DERIVED and any(index.sources[f].path not in allowed for f, _, _ in result.spans):
            result.verdict = Verdict.MISATTRIBUTED
            notes.append(f"{result.atom}: an operand comes from outside {', '.join(sorted(allowed))} (origin rule)")
