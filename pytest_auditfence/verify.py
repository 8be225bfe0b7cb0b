"""The deterministic verifier: finds a claim's atoms in a unit's sources and gives the claim its verdict.

Owns `SourceIndex` (quantities parsed once per file, cached by sha256), `find_atom` and `verify_claim`; no LLM.
"""

from __future__ import annotations

import heapq
import re
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import permutations
from math import floor, log10
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from pytest_auditfence.errors import FenceError
from pytest_auditfence.fence import Fence, FileStore, LoadedFile, Source
from pytest_auditfence.models import ClaimRecord, Evidence, Quantity, Quote, Reference, Verdict

# Worst first: a claim takes the worst verdict of its atoms.
SEVERITY: tuple[Verdict, ...] = (
    Verdict.CONTRADICTED,
    Verdict.UNSUPPORTED,
    Verdict.MISATTRIBUTED,
    Verdict.DERIVED,
    Verdict.VERIFIED,
)

# Small unit-less integers ("three segments", "2 analysts") match something in almost any corpus and
# prove nothing; they are weak atoms: never checked, and alone they leave a claim unverifiable.
WEAK_LIMIT = 10.0

# Derivations search pairs among at most this many candidate numbers: more makes chance matches likely.
DERIVE_POOL = 12

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
_QUOTE_CHARS = "\"'\u2018\u2019\u201a\u201b\u201c\u201d\u201e\u201f`\u00ab\u00bb"
_QUOTE_CLASS = "[" + re.escape(_QUOTE_CHARS) + "]"

Atom = Quantity | Quote | Reference
How = Literal["exact", "normalised", "converted"]


class AtomMatch(BaseModel):
    """Where one atom of a claim stands in the sources."""

    model_config = ConfigDict(extra="forbid")

    atom: str
    source: str
    node: str
    kind: str
    line: int
    offset: int
    text: str
    how: How
    sha256: str


# -- claims layer (landing concurrently): imported lazily, one place ----------------------------------


def _claims_api() -> Any:
    from pytest_auditfence.claims import quantities

    return quantities


# -- the index ----------------------------------------------------------------------------------------------


@dataclass
class FileIndex:
    """Quantities of one file (by sha256) with their lines, and content words of lines holding numbers."""

    quantities: list[Quantity]
    lines: list[int]
    words: dict[str, list[int]] = field(default_factory=dict)
    # items that are a second reading of a bare number (a declared scale or unit): matched directly,
    # never used as operands of a derivation or as a contradicting value
    alternatives: frozenset[int] = frozenset()
    # every digit run of the file as written (with and without thousands commas), built on first use
    literals: frozenset[str] | None = None


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
        parts = [word]
        if _CAMEL.search(word):
            parts += _CAMEL.sub(" ", word).split()
        for part in parts:
            lowered = part.lower().strip("-")
            if len(lowered) >= 3 and lowered not in STOPWORDS:
                seen.setdefault(lowered, None)
    return list(seen)


_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")


# -- subject proximity ------------------------------------------------------------------------------------

# A source line up to this long is a structured field ("price: 1,234", a table row): a number on it is
# about what the line says. In longer prose a number is only about the words of its own sentence.
SHORT_LINE = 160
# At most this many words either side of a number count as its sentence (run-on text has no full stops).
PROXIMITY_WORDS = 25
_SENTENCE_END = re.compile(r"[.!?](?=\s)|\n|\s{2,}(?=\d+\s)")


# Words about the answer itself ("based on the given passages, the answer is ..."), not its subject.
_META_WORDS = frozenset(
    """answer answers question questions passage passages based given provided according information mentioned
    mention mentions states state note therefore however also context text source sources""".split()
)
# Words either side of a number that count as its neighbourhood even across a full stop: recipe and
# how-to passages are runs of short steps ("1 Preheat the oven to 400 degrees. 2 Cut the potatoes ...").
MIN_NEIGHBOURHOOD = 10


_INFLECTIONS = ("ing", "ed", "e")


def _key(word: str) -> str:
    """A crude stem ('donors' ~ 'donor', 'baked' ~ 'bake', 'growing' ~ 'grow', 'pre-heat' ~ 'preheat'):
    enough to tell the same subject in two texts."""
    word = word.replace("-", "")
    if word.endswith("s") and len(word) > 3:
        word = word[:-1]
    for ending in _INFLECTIONS:
        if word.endswith(ending) and len(word) - len(ending) >= 3:
            word = word[: -len(ending)]
            break
    return word[:5]


def subject_keys(text: str) -> set[str]:
    """Stems of the content words of `text` that can name a subject (unit, scale and meta words cannot),
    plus the initials of runs of capitalised words ('Body Mass Index' -> 'bmi'), so an abbreviation in a
    claim finds the spelled-out subject in a source."""
    units = _claims_api().UNIT_WORDS
    keys = {_key(w) for w in content_words(text) if w not in units and w not in _META_WORDS}
    for run in _CAPITALISED_RUN.finditer(text):
        initials = "".join(w[0] for w in run.group().split()).lower()
        for size in range(3, len(initials) + 1):
            keys.update(initials[i:i + size] for i in range(len(initials) - size + 1))
    return keys


_CAPITALISED_RUN = re.compile(r"\b[A-Z][a-z]+(?:[ \t]+[A-Z][a-z]+){1,3}\b")


def _window_keys(loaded: LoadedFile, start: int, end: int) -> set[str] | None:
    """Subject stems of the sentence around [start, end) (bounded by PROXIMITY_WORDS words each side), or
    None when the number stands on a short structured line, where proximity is not asked for."""
    a, b = loaded.line_span(loaded.line_of(start))
    if b - a <= SHORT_LINE:
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
    return subject_keys(" ".join(words_before + words_after))


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
        window = subject_keys(loaded.line_text(loaded.line_of(start)))
    return bool(window & keys)


# The subject a unit names by itself: a figure in degrees is a temperature whether or not the word stands
# near it ('The Long Beach forecast for Apr 25 is 68 degrees and Sunny' for 'Temperature: 68 °F').
_DIMENSION_KEYS = {"temperature": frozenset({"tempe"})}


def _index_file(loaded: LoadedFile) -> FileIndex:
    """Parse the file once; the claims layer's scanner gives captions and table headers ("(in millions)")
    to the rows under them, so a source figure is read at the scale its table states."""
    scanner = _claims_api().QuantityScanner()
    quantities: list[Quantity] = []
    lines: list[int] = []
    words: dict[str, list[int]] = {}
    alternatives: set[int] = set()
    current_line, current_words = 0, []
    for scanned in scanner.iter_scan(loaded.text):
        if scanned.line != current_line:
            current_line, current_words = scanned.line, content_words(loaded.line_text(scanned.line))
        item = len(quantities)
        quantities.append(scanned.quantity)
        lines.append(scanned.line)
        if scanned.alternative:
            alternatives.add(item)
            continue
        for word in current_words:
            words.setdefault(word, []).append(item)
    return FileIndex(quantities=quantities, lines=lines, words=words, alternatives=frozenset(alternatives))


@dataclass(frozen=True)
class _Observed:
    value: float
    file: int  # position of the source in the index
    item: int  # position of the quantity in that file's index


class SourceIndex:
    """The quantities of a set of source files, searchable by value; built once per set of files."""

    def __init__(self, root: Path, sources: list[Source], files: list[FileIndex], store: FileStore) -> None:
        self.root = root
        self.sources = sources
        self.files = files
        self.store = store
        self._names: dict[int, _SourceNames] = {}
        self._flat_texts: dict[int, str] = {}
        # observations bucketed by the order of magnitude of their tolerance, each bucket sorted by
        # value: a value lookup stays a few bisections however large the corpus
        buckets: dict[int, list[_Observed]] = {}
        for f, index in enumerate(files):
            for i, q in enumerate(index.quantities):
                buckets.setdefault(_magnitude(q.tolerance), []).append(_Observed(q.value, f, i))
        self._buckets: list[tuple[float, list[float], list[_Observed]]] = []
        for _, items in sorted(buckets.items()):
            items.sort(key=lambda o: (o.value, o.file, o.item))
            widest = max(self.quantity(o).tolerance for o in items)
            self._buckets.append((widest, [o.value for o in items], items))

    @classmethod
    def build(
        cls,
        root: str | Path,
        sources: Sequence[Source],
        cache: IndexCache | None = None,
        *,
        store: FileStore | None = None,
    ) -> SourceIndex:
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
        return cls(root_path, list(sources), files, store)

    def quantity(self, observed: _Observed) -> Quantity:
        return self.files[observed.file].quantities[observed.item]

    def line(self, observed: _Observed) -> int:
        return self.files[observed.file].lines[observed.item]

    def loaded(self, file: int) -> LoadedFile:
        return self.store.load(self.sources[file])

    def flat_text(self, file: int) -> str:
        """The source's text lower-cased with whitespace runs collapsed (computed once per source)."""
        cached = self._flat_texts.get(file)
        if cached is None:
            cached = self._flat_texts[file] = " ".join(self.loaded(file).text.lower().split())
        return cached

    def names(self, file: int) -> _SourceNames:
        """What the source can be cited as (computed once per source of this index)."""
        cached = self._names.get(file)
        if cached is None:
            cached = self._names[file] = _source_names(self.sources[file], self.loaded(file))
        return cached

    def near(self, value: float, tolerance: float) -> Iterable[_Observed]:
        """Observations whose value could match `value` within either side's tolerance."""
        slack = 1e-9 * max(1.0, abs(value))
        for widest, values, items in self._buckets:
            width = tolerance + widest + slack
            lo, hi = bisect_left(values, value - width), bisect_right(values, value + width)
            yield from items[lo:hi]

    def with_words(self, words: Sequence[str], *, limit: int = 50) -> list[tuple[int, _Observed]]:
        """The `limit` observations on lines holding most of `words`, best first, then in source order."""
        scored: dict[tuple[int, int], int] = {}
        for f, index in enumerate(self.files):
            for word in words:
                for item in index.words.get(word, ()):
                    key = (f, item)
                    scored[key] = scored.get(key, 0) + 1
        best = heapq.nsmallest(limit, ((-score, key) for key, score in scored.items()))
        return [(-neg, _Observed(self.files[f].quantities[i].value, f, i)) for neg, (f, i) in best]


def _magnitude(tolerance: float) -> int:
    return -400 if tolerance <= 0 else floor(log10(tolerance))


# -- finding atoms --------------------------------------------------------------------------------------


def _quote_pattern(text: str) -> re.Pattern[str]:
    parts = []
    for token in text.split():
        parts.append("".join(_QUOTE_CLASS if ch in _QUOTE_CHARS else re.escape(ch) for ch in token))
    return re.compile(r"\s+".join(parts), re.IGNORECASE)


def _match_at(index: SourceIndex, file: int, start: int, end: int, atom: str, how: How) -> AtomMatch:
    source = index.sources[file]
    loaded = index.loaded(file)
    return AtomMatch(
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
    api = _claims_api()
    matches: list[tuple[int, int, AtomMatch]] = []
    for observed in index.near(q.value, q.tolerance):
        o = index.quantity(observed)
        if not api.quantities_match(q, o):
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


def _ref_keys(target: str) -> tuple[str | None, str]:
    number = re.search(r"\d+", target)
    return (str(int(number.group())) if number else None), target.lower().strip()


# Lines that name what a file is: "source: 10-K", "document: Form 10-K ...", "title: ...".
_DECLARED_NAME = re.compile(
    r"(?im)^[ \t]*(?:source|sources|document|doc|document_type|form|filing|publisher|provider|dataset|title)"
    r"[ \t]*:[ \t]*(?P<name>\S[^\n]{0,200})$"
)
# How far into a file its name may be declared: rendered tool results sort their keys, so a
# "source:" line can follow a long table; past this a file is content, not a name.
_NAME_WINDOW = 20_000
_HEAD_LINES = 12


def _flat(text: str) -> str:
    return re.sub(r"[\s_\-]+", "", text.lower())


@dataclass(frozen=True)
class _SourceNames:
    """What a source can be cited as: its label, node and file names, declared names, leading lines."""

    flat_names: tuple[str, ...]
    declared: tuple[str, ...]
    head: tuple[str, ...]


def _source_names(source: Source, loaded: LoadedFile) -> _SourceNames:
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
    return _SourceNames(
        flat_names=tuple(_flat(n) for n in names if n),
        declared=tuple(m.group("name").strip().lower() for m in _DECLARED_NAME.finditer(window)),
        head=tuple(head),
    )


_DOCUMENT_TYPE = re.compile(
    r"10-?k|10-?q|8-?k|20-?f|6-?k|40-?f|s-1|s-4|f-1|14a|annual report|quarterly report|earnings|press release|"
    r"presentation|proxy|prospectus|shareholder letter|filing"
)


def resolve_reference(reference: Reference, index: SourceIndex) -> list[str]:
    """Paths of the sources a reference names.

    "passage 3" / "[3]": a file labelled so, or whose content starts with "passage 3:" / "[3]" (a tool
    result is rendered after its arguments). A named source ("the 10-K", "price history"): the file's
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
                or named.search(stem) and not re.search(rf"0*{number}\d", stem)
                or any(named.match(ln) or ln.startswith(f"[{number}]") for ln in names.head)
            ):
                resolved.append(source.path)
        elif reference.kind == "named":
            flat = _flat(target)
            if flat and (
                any(flat in name for name in names.flat_names)
                or any(target in name for name in names.declared)
                or any(target in ln for ln in names.head[:5])
            ):
                resolved.append(source.path)
    if not resolved and reference.kind == "named" and not _DOCUMENT_TYPE.search(target):
        # A person or organisation ("according to Dr. Therese Rando") is grounded by a source that names
        # it; a document type ("the 10-K") must be that document, never a file that mentions it.
        wanted = re.sub(r"^(?:dr|prof|mr|mrs|ms)\.?\s+|['’]s$", "", " ".join(target.split()))
        if len(wanted) >= 3:
            resolved = [source.path for f, source in enumerate(index.sources) if wanted in index.flat_text(f)]
    return resolved


# -- policy -----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Rules:
    origin: tuple[tuple[re.Pattern[str], frozenset[str]], ...] = ()
    strict_misattribution: bool = False


def _rules(policy: Any) -> _Rules:
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


# -- verdicts ----------------------------------------------------------------------------------------------


@dataclass
class _AtomResult:
    atom: str
    verdict: Verdict
    spans: list[tuple[int, int, int]] = field(default_factory=list)  # (file, start, end) to cite
    note: str | None = None
    formula: str | None = None


# "52-week high", "10-year Treasury", "a 24-hour period": a number joined to its unit by a hyphen is a
# compound adjective that names a kind of thing (a metric, an instrument), not a measured amount.
_COMPOUND_ADJECTIVE = re.compile(r"\d[\d,.]*-[A-Za-z]+")


def _is_weak(q: Quantity) -> bool:
    if q.kind in ("duration", "length", "mass") and _COMPOUND_ADJECTIVE.fullmatch(q.text):
        return True
    if q.kind in ("number", "count") and _PRECISE_DECIMAL.search(q.text):
        return False  # '0.75', '1.66667': a figure shown to two decimals is no chance match
    return q.kind in ("number", "count") and not q.unit and q.scale == 1.0 and abs(q.value) < WEAK_LIMIT


_PRECISE_DECIMAL = re.compile(r"\.\d{2,}")


def _subject_words(claim: ClaimRecord, q: Quantity) -> list[str]:
    """Content words of the clause around a quantity: from the previous quantity (or the claim's start,
    for table rows always the row label) up to the quantity, then the words right after it."""
    text = claim.claim
    at, end = q.start - claim.start, q.end - claim.start
    if not (0 <= at <= end <= len(text)):
        return content_words(text)
    begin = 0
    if claim.kind != "table_row":
        earlier = [o.end - claim.start for o in claim.quantities if o.end - claim.start <= at]
        begin = max(earlier, default=0)
        clause = max(text.rfind(sep, begin, at) for sep in (";", ". ", ": "))
        begin = max(begin, clause + 1)
    after = re.split(r"[;,.()|]", text[end : end + 40], maxsplit=1)[0]
    words = content_words(text[begin:at]) + content_words(after)
    if claim.context and claim.kind == "table_row":
        words += content_words(claim.context)
    return list(dict.fromkeys(words))[:8]


_FAMILY = {"currency": "amount", "number": "amount", "count": "amount"}


def _same_family(a: Quantity, b: Quantity) -> bool:
    return _FAMILY.get(a.kind, a.kind) == _FAMILY.get(b.kind, b.kind)


def _about(index: SourceIndex, o: _Observed, keys: set[str]) -> bool:
    """Does the observed figure stand by one of the claim's subject stems (its own line's words when
    the line is a short structured one)?"""
    observed = index.quantity(o)
    return near_subject(index.loaded(o.file), observed.start, observed.end, keys, structured_ok=False)


# A claim that writes its arithmetic out or names a total or a change: its figure is meant as one.
_ARITHMETIC = re.compile(
    r"[+=]|\b(?:totals?|totall?ing|totall?ed|sum|plus|minus|combined|altogether|difference|in all"
    r"|(?:more|less|fewer|higher|lower) than|increased?|decreased?|rose|fell|grew|gained|declined)\b", re.I)


def _summable(q: Quantity, qa: Quantity, qb: Quantity, a: _Observed, b: _Observed, index: SourceIndex,
              keys: set[str], explicit: bool) -> bool:
    """May `q` be a sum or difference of these two figures? Not when the smaller one is below the
    claim's shown precision (3 feet is no '3 + one inch'). Unless the claim says it computed (see
    _ARITHMETIC), both must stand by the subject of the figure's clause, which must name one: among a
    dozen small figures some pair adds up to almost any small number by chance ('simmer 5 minutes' is
    no '2 + 3 minutes' of two other steps)."""
    if min(abs(qa.value), abs(qb.value)) < 2 * q.tolerance:
        return False
    if explicit:
        return True
    return (_significant_digits(q.text) >= SPECIFIC_DIGITS and bool(keys)
            and _about(index, a, keys) and _about(index, b, keys))


# An unannounced sum or difference must give a figure at least this specific: two dozen small or round
# figures of a how-to passage give '5', '10', '15' or '$500' as some sum or difference by chance, while
# '198' or '1,036' from a statement's lines does not come about by accident.
SPECIFIC_DIGITS = 3


def _significant_digits(text: str) -> int:
    """Digits of the first number in `text` that carry information ('1,036' 4, '500' 1, '0.71' 2)."""
    m = _LITERAL_NUMBER.search(text)
    if m is None:
        return 0
    number = m.group().replace(",", "")
    digits = number.replace(".", "").lstrip("0")
    return len(digits if "." in number else digits.rstrip("0"))


def _derive(
    q: Quantity, pool: list[_Observed], index: SourceIndex, keys: set[str] = frozenset(), explicit: bool = True
) -> tuple[str, list[_Observed]] | None:
    """A computation over observed numbers that gives `q` within its shown precision, or None. `keys`:
    the stems of the figure's subject, by which the operands of a sum or difference must stand unless
    the claim is `explicit` about computing."""
    slack = q.tolerance + 1e-9 * max(1.0, abs(q.value))
    for a, b in permutations(pool, 2):
        qa, qb = index.quantity(a), index.quantity(b)
        if not _same_family(qa, qb) or qa.value == qb.value:
            continue  # x / x = 100% and x - x = 0 say nothing about where a figure came from
        if (qa.kind == "number" and qa.unit or qb.kind == "number" and qb.unit) and qa.unit != qb.unit:
            continue  # '50 psi - 10 gallons' is no computation
        if q.kind == "percent":
            if qa.kind != "percent" and qa.value != 0:
                change = (qb.value - qa.value) / abs(qa.value) * 100.0
                if abs(change - q.value) <= slack:
                    return f"({qb.text} - {qa.text}) / {qa.text} = {q.text}", [b, a]
                if qb.value != 0 and abs(qa.value / qb.value * 100.0 - q.value) <= slack:
                    return f"{qa.text} / {qb.text} = {q.text}", [a, b]
            elif qa.kind == "percent" and abs((qa.value - qb.value) - abs(q.value)) <= slack:
                return f"{qa.text} - {qb.text} = {q.text}", [a, b]
        elif q.kind == "ratio":
            if qb.value != 0 and abs(qa.value / qb.value - q.value) <= slack:
                return f"{qa.text} / {qb.text} = {q.text}", [a, b]
        elif _same_family(q, qa):
            first = a.file * 10**9 + a.item < b.file * 10**9 + b.item
            total = first and abs(qa.value + qb.value - q.value) <= slack
            if (total or abs(qa.value - qb.value - q.value) <= slack) and _summable(q, qa, qb, a, b, index, keys, explicit):
                sign = "+" if total else "-"
                return f"{qa.text} {sign} {qb.text} = {q.text}", [a, b]
    return None


def _pool(claim: ClaimRecord, q: Quantity, index: SourceIndex, near_lines: set[tuple[int, int]]) -> list[tuple[int, _Observed]]:
    """Candidate numbers for a derivation or a contradiction: the lines of the claim's other atoms and
    the lines that share the quantity's subject words, best first, bounded (see DERIVE_POOL)."""
    words = _subject_words(claim, q)
    ranked = index.with_words(words, limit=4 * DERIVE_POOL) if words else []
    scores = {(o.file, o.item): score for score, o in ranked}
    extra: list[tuple[int, _Observed]] = []
    for f, line in sorted(near_lines):
        if not 0 <= f < len(index.files):
            continue
        fi = index.files[f]
        # line numbers of a file's quantities ascend, so the quantities of one line are a slice
        for i in range(bisect_left(fi.lines, line), bisect_right(fi.lines, line)):
            if i in fi.alternatives:
                continue
            extra.append((scores.get((f, i), 0), _Observed(fi.quantities[i].value, f, i)))
    seen: set[tuple[int, int]] = set()
    out: list[tuple[int, _Observed]] = []
    for score, o in [*extra, *ranked]:
        if (o.file, o.item) in seen or _is_weak(index.quantity(o)):
            continue
        seen.add((o.file, o.item))
        out.append((score, o))
    return out


def _operands(claim: ClaimRecord, q: Quantity, index: SourceIndex, pool: list[tuple[int, _Observed]]) -> list[_Observed]:
    """Candidate operands of a derivation: the pool first, then the figures on lines that hold the words
    the rest of the claim names ('Net margin was 12.2%, net income divided by revenue': the operands stand
    on the 'net income' and 'revenue' lines, which share no word with 'net margin'), bounded."""
    chosen = [o for _, o in pool[:DERIVE_POOL]]
    if len(chosen) >= DERIVE_POOL:
        return chosen
    own = set(_subject_words(claim, q))
    others = [w for w in content_words(claim.claim) if w not in own and w not in _claims_api().UNIT_WORDS]
    seen = {(o.file, o.item) for o in chosen}
    for _, o in index.with_words(others, limit=4 * DERIVE_POOL) if others else []:
        if len(chosen) >= DERIVE_POOL:
            break
        if (o.file, o.item) in seen or o.item in index.files[o.file].alternatives or _is_weak(index.quantity(o)):
            continue
        seen.add((o.file, o.item))
        chosen.append(o)
    return chosen


def _about_subject(claim: ClaimRecord, q: Quantity, matches: list[AtomMatch], index: SourceIndex) -> list[AtomMatch]:
    """The matches that stand near the claim's subject: in long prose a figure that matches by value
    but sits among other words ('rest for 30 minutes' for 'bake for 30 minutes') is a chance match."""
    if not matches:
        return matches
    keys = _claim_keys(claim)
    position = {s.path: f for f, s in enumerate(index.sources)}
    word = _word_after(claim.claim, q.end - claim.start)
    implied = _DIMENSION_KEYS.get(q.kind, frozenset())
    partners = _range_partners(claim.claim, q.start - claim.start, q.end - claim.start)
    metrics = _metrics_of(claim.claim + "\n" + (claim.context or ""))
    kept = []
    for m in matches:
        loaded = index.loaded(position[m.source])
        end = m.offset + len(m.text)
        # '70 degrees' for '70 degrees', '34 area codes' for '34 area codes': the word a bare number
        # counts is its subject
        if (word and _word_after(loaded.text, end) == word) or near_subject(loaded, m.offset, end, keys, implied=implied):
            if metrics and _window_keys(loaded, m.offset, end) is None:
                labelled = _metrics_of(_label_of(loaded, m.offset))
                if labelled and not labelled & metrics:
                    continue  # a structured field of another metric: 'Revenue | 1234' for a net income claim
            kept.append(m)
        elif partners and partners & _range_partners(loaded.text, m.offset, end):
            # the same range, both ends ('20 to 25 minutes'), whatever words the source puts around it
            kept.append(m)
        elif implied and near_subject(loaded, m.offset, end, set(implied)):
            # a claimed temperature ('Warmest month: July (12°C)') by a source sentence about temperature
            # ('the hottest month ... an average temperature of 12°C'): both name the same dimension
            kept.append(m)
    return kept


# Financial metrics that reports name and data sources label; the phrases of one group are synonyms. A
# structured field labelled with one metric does not back a claim that names only others.
_METRIC_GROUPS: dict[str, tuple[str, ...]] = {
    "revenue": ("revenue", "revenues", "sales", "turnover", "top line"),
    "net income": ("net income", "net profit", "net earnings", "net loss", "profit", "bottom line"),
    "eps": ("eps", "earnings per share", "per share"),
    "gross margin": ("gross margin", "gross margins"),
    "operating margin": ("operating margin", "operating margins"),
    "operating income": ("operating income", "operating profit", "operating loss", "ebit"),
    "ebitda": ("ebitda",),
    "free cash flow": ("free cash flow", "fcf"),
    "market cap": ("market cap", "market capitalisation", "market capitalization", "market value"),
    "price": ("price", "close", "closed", "closing", "trades at", "traded at", "last"),
    "volume": ("volume",),
    "dividend": ("dividend", "dividends", "payout"),
    "headcount": ("employees", "employee", "headcount", "staff", "workforce", "people"),
    "debt": ("debt", "borrowings"),
    "expenses": ("expenses", "opex", "costs"),
}
_METRIC_PATTERNS = [(group, re.compile(r"\b(?:" + "|".join(re.escape(p) for p in phrases) + r")\b"))
                    for group, phrases in _METRIC_GROUPS.items()]


def _metrics_of(text: str) -> set[str]:
    """The metric groups `text` names ('netIncome', 'net_income' and 'Net income' alike)."""
    plain = _CAMEL.sub(" ", text).replace("_", " ").lower()
    return {group for group, pattern in _METRIC_PATTERNS if pattern.search(plain)}


def _label_of(loaded: LoadedFile, offset: int) -> str:
    """What a number in a structured field is labelled: a table cell's column header and row label, or the
    key of a `key: value` line (a snake_case or camelCase name, or a short caption); '' for other lines,
    whose words are prose and name more than one thing."""
    table = _table_words(loaded, offset)
    if table:
        return table
    line = loaded.line_of(offset)
    m = _FIELD_KEY.match(loaded.line_text(line))
    return m.group("key") if m and offset - loaded.line_span(line)[0] > m.end("key") else ""


_FIELD_KEY = re.compile(r"^[ \t]*(?:[-*][ \t]+)?(?P<key>[A-Za-z][A-Za-z0-9_ ]{0,40}?)[ \t]*:[ \t]")


_NEXT_WORD = re.compile(r"[ \u00a0]?([A-Za-z]{3,})")


def _word_after(text: str, end: int) -> str | None:
    m = _NEXT_WORD.match(text, end) if 0 <= end <= len(text) else None
    word = m.group(1).lower() if m else None
    return word if word and word not in STOPWORDS else None


def _claim_keys(claim: ClaimRecord) -> set[str]:
    return subject_keys(claim.claim + "\n" + (claim.context or ""))


_DEGREE_MARK = re.compile(r"[ \u00a0]?(?:[°º˚]|(?i:degrees?|deg)\b)")
# in a source, a bare number reads as a temperature by a degree sign, a scale letter ('35 C (95 F)'),
# or as the first end of a range whose second end has one ('18 to 20 degrees')
_SOURCE_DEGREE = re.compile(
    r"(?:\s?(?:-|–|to|and)\s?\d+(?:\.\d+)?)?[ \u00a0]?(?:[AÂ]?[°º˚]|(?i:degrees?|deg)\b|[FC]\b)"
)
_UNIT_BEARING = ("temperature", "duration", "length", "mass")


def _unwritten_unit(claim: ClaimRecord, q: Quantity, index: SourceIndex) -> list[AtomMatch]:
    """A figure whose unit one side leaves to the reader: '350°F' for a source's 'bake at 350°' or '62
    degrees', '21-32 years' for 'between the ages of 21 and 32', '1 1/2 hours' for 'cook for 1 1/2', and a
    claimed '350 degrees' for a source's '350°F'. The figure as written must be equal; a source number
    with a degree sign backs only a temperature; a small whole number only as the same range ('4-6 in.');
    and the unit-less number must stand near the claim's subject words."""
    api = _claims_api()
    keys = _claim_keys(claim)
    shown, tol = api.displayed_value(q)
    slack = tol + 1e-9 * max(1.0, abs(shown))
    found: list[tuple[int, int, AtomMatch]] = []
    partners = _range_partners(claim.claim, q.start - claim.start, q.end - claim.start)
    if q.kind in _UNIT_BEARING:
        for observed in index.near(shown, tol):
            o = index.quantity(observed)
            if o.kind != "number" or o.unit not in (None, "°") or o.scale != 1.0 or abs(o.value - shown) > slack:
                continue
            loaded = index.loaded(observed.file)
            degree = o.unit == "°" or _SOURCE_DEGREE.match(loaded.text, o.end) is not None
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
        if q.unit == "°" or (0 <= at <= len(claim.claim) and _DEGREE_MARK.match(claim.claim, at)):
            for target in (shown, (shown - 32.0) * 5.0 / 9.0):
                for observed in index.near(target, tol):
                    o = index.quantity(observed)
                    if (o.kind == "temperature" and abs(api.displayed_value(o)[0] - shown) <= slack
                            and near_subject(index.loaded(observed.file), o.start, o.end, keys, structured_ok=False)):
                        found.append((observed.file, o.start,
                                      _match_at(index, observed.file, o.start, o.end, q.text, "normalised")))
    elif q.kind == "percent" and q.unit == "%":
        found.extend(_as_fraction(claim, q, keys, index))
    found.sort(key=lambda m: (m[0], m[1]))
    return list({(f, start): m for f, start, m in found}.values())


# A fraction standing for a percentage ('gross_margin: 0.4421' for '44.2%'): written with a decimal point
# and at least two decimals, below this in size (a growth of 250% is 2.5).
_FRACTION_LIMIT = 10.0
_DECIMALS = re.compile(r"\d*\.(\d{2,})")


def _as_fraction(claim: ClaimRecord, q: Quantity, keys: set[str], index: SourceIndex) -> list[tuple[int, int, AtomMatch]]:
    """A claimed percentage that the sources give as a fraction, as data APIs do ('revenue_growth: 0.061'
    for 'revenue grew 6.1%'): equal within the precision the claim shows, and on a line whose own words
    name the claim's subject (a bare decimal elsewhere is a chance match)."""
    shown, tol = _claims_api().displayed_value(q)
    target, slack = shown / 100.0, tol / 100.0 + 1e-12
    found: list[tuple[int, int, AtomMatch]] = []
    for observed in index.near(target, slack):
        o = index.quantity(observed)
        if o.kind != "number" or o.unit is not None or o.scale != 1.0 or abs(o.value) >= _FRACTION_LIMIT:
            continue
        if abs(o.value - target) > slack:
            continue
        loaded = index.loaded(observed.file)
        if not _DECIMALS.fullmatch(loaded.text[o.start:o.end].lstrip("+-")):
            continue
        if keys and (near_subject(loaded, o.start, o.end, keys, structured_ok=False)
                     or keys & subject_keys(_table_words(loaded, o.start))):
            found.append((observed.file, o.start, _match_at(index, observed.file, o.start, o.end, q.text, "normalised")))
    return found


def _table_words(loaded: LoadedFile, offset: int) -> str:
    """For a number in a table row: its column's header cell and the row's cells that hold no number (its
    label), the words that say what the number is; '' when the line is not a table row. The header is the
    top of the run of rows above with the same number of cells."""
    split = _claims_api().split_table_row
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


_PARTNER_AFTER = re.compile(r"\)?\s?(?:-|–|to|-to-)\s?\(?(\d+(?:\.\d+)?)")
_PARTNER_BEFORE = re.compile(r"(\d+(?:\.\d+)?)\)?\s?(?:-|–|to|-to-)\s?\(?$")
# at most two words between a number and its unit: 'cook for about 2 more hours', '3 full days'
_WORDS_AFTER = re.compile(r"(?:[ \u00a0]+[a-z]+){2,3}\b")


def _unit_follows(text: str, end: int, q: Quantity) -> bool:
    """Is the second or third word after the source number a word of the claimed figure's own unit?"""
    m = _WORDS_AFTER.match(text, end)
    if m is None:
        return False
    unit_of = _claims_api().unit_of_word
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


def _locate(claim: ClaimRecord, q: Quantity, index: SourceIndex) -> list[AtomMatch]:
    """Where a claimed figure stands in the sources about its subject, its unit written or implied; a
    figure the claim calls a loss or a fall ('a loss of $1.23 billion') also as the negative number a
    source records ('net_income: -1230000000')."""
    found = _about_subject(claim, q, find_atom(q, index), index) or _unwritten_unit(claim, q, index)
    if found or q.value <= 0 or not _NEGATIVE_CUE.search(claim.claim[max(0, q.start - claim.start - 40):q.start - claim.start]):
        return found
    negative = q.model_copy(update={"value": -q.value})
    return _about_subject(claim, negative, find_atom(negative, index), index) or _unwritten_unit(claim, negative, index)


# Words that make the figure after them a negative amount: 'a loss of', 'fell 3.4%', 'down $2 billion'.
_NEGATIVE_CUE = re.compile(
    r"(?i)\b(?:loss(?:es)?|lost|los[ei]ng|deficit|decline[sd]?|declining|fell|falls?|falling|dropped|drops?|down|decrease[sd]?|"
    r"decreasing|shr[au]nk|shrinks?|contraction|negative|outflows?|minus)\b(?:\W+\w+){0,3}\W*$"
)


# 'per employee', 'per customer', 'per square foot': an amount per counted thing (not a rate per period).
_PER_UNIT = re.compile(r"(?i)\bper\s+(?!cent\b|annum\b|year\b|quarter\b|month\b|week\b|day\b|hour\b)[a-z]{3,}")


def _value_anywhere(q: Quantity, index: SourceIndex) -> bool:
    """Is the figure, as written, anywhere in the sources (whatever it is about or whatever its unit)?"""
    if find_atom(q, index):
        return True
    shown, tol = _claims_api().displayed_value(q)
    slack = tol + 1e-9 * max(1.0, abs(shown))
    if any(abs(_claims_api().displayed_value(index.quantity(o))[0] - shown) <= slack for o in index.near(shown, tol)):
        return True
    # digits the parser does not read as a quantity ('50psi', '13:0 hours') are still the same figure
    digits = _LITERAL_NUMBER.search(q.text)
    if digits is None:
        return False
    written = digits.group().replace(",", "")
    for f, fi in enumerate(index.files):
        if fi.literals is None:
            fi.literals = frozenset(m.replace(",", "") for m in _LITERAL_NUMBER.findall(index.loaded(f).text))
        if written in fi.literals:
            return True
    return False


_LITERAL_NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?")


def _cited_form(
    claim: ClaimRecord, q: Quantity, index: SourceIndex, cited: list[str] | None, matches: list[AtomMatch],
    allowed: set[str] | None = None,
) -> _AtomResult | None:
    """When a figure stands only outside the sources the claim cites, look for it in a cited one in the
    other forms a source may write it, before calling it misattributed: its unit left implicit ('375°F'
    for the cited 'bake at 375°'), or a restatement of the figure before it ('350°F (175°C)' over the
    cited '350 degrees')."""
    if not cited or any(m.source in cited or m.kind == "input" for m in matches):
        return None
    in_cited = [m for m in _unwritten_unit(claim, q, index) if m.source in cited]
    if in_cited:
        return _placed(q.text, in_cited, cited, index, allowed)
    return _restated(claim, q, index, cited)


def _check_quantity(
    claim: ClaimRecord, q: Quantity, index: SourceIndex, cited: list[str] | None, near_lines: set[tuple[int, int]]
) -> _AtomResult:
    matches = _locate(claim, q, index)
    if matches:
        return _cited_form(claim, q, index, cited, matches) or _placed(q.text, matches, cited, index, None)
    restated = _restated(claim, q, index)
    if restated is not None:
        return restated
    pool = _pool(claim, q, index, near_lines)
    keys = {_key(w) for w in _subject_words(claim, q)} - {_key(w) for w in _claims_api().UNIT_WORDS}
    derived = _derive(q, _operands(claim, q, index, pool), index, keys, bool(_ARITHMETIC.search(claim.claim)))
    if derived is not None:
        formula, operands = derived
        spans = [_span_of(index, o) for o in operands]
        return _AtomResult(q.text, Verdict.DERIVED, spans, note=f"{q.text} derived: {formula}", formula=formula)
    if _value_anywhere(q, index):
        # the figure is in the sources, only not about this subject: unsupported, never contradicted
        return _AtomResult(q.text, Verdict.UNSUPPORTED, note=f"{q.text} found in the sources only away from its subject")
    # An amount per something ('revenue per employee') is not contradicted by the whole amount it divides.
    per_unit = _PER_UNIT.search(claim.claim) is not None
    for score, o in pool:
        observed = index.quantity(o)
        comparable = observed.kind == q.kind or {q.kind, observed.kind} <= {"currency", "number"}
        if per_unit and "per" not in _label_of(index.loaded(o.file), observed.start).lower().replace("_", " ").split():
            continue
        if score >= 1 and comparable and near_subject(index.loaded(o.file), observed.start, observed.end, keys):
            return _AtomResult(
                q.text,
                Verdict.CONTRADICTED,
                [_span_of(index, o)],
                note=f"{q.text} contradicted: the same subject has {observed.text!r} in {index.sources[o.file].path}",
            )
    return _AtomResult(q.text, Verdict.UNSUPPORTED, note=f"{q.text} found in no source")


# A restatement in other units may be rounded the way people round conversions (350 °F is "175 °C" or
# "180 °C", 176.7 exactly; 400 °F is "200 °C", 204.4): up to this fraction of the value, beyond both
# figures' precision.
CONVERSION_SLACK = 0.025
_CONVERTIBLE = ("temperature", "length", "mass", "duration")


def _restated(
    claim: ClaimRecord, q: Quantity, index: SourceIndex, cited: list[str] | None = None
) -> _AtomResult | None:
    """'350°F (175°C)', '65-75°F (18-24°C)': a figure in parentheses that restates the figure just before
    it in other units is derived from that figure, when that one is in the sources (in the `cited`
    ones, when given)."""
    if claim.kind == "table_row" or q.kind not in _CONVERTIBLE:
        return None
    text = claim.claim
    at = q.start - claim.start
    opening = text.rfind("(", max(0, at - 30), at)
    if opening < 0 or ")" in text[opening:at]:
        return None
    closing = text.find(")", at)
    if closing < 0:
        return None
    quantities = _claims_api().parse_quantities(text, offset=claim.start)
    inside = [o for o in quantities if opening < o.start - claim.start < closing]
    before = [o for o in quantities if o.end - claim.start <= opening][-len(inside):] if inside else []
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
        matches = _locate(claim, original, index)
    else:  # every form the original may take in a cited source: written out or with its unit implicit
        found = _about_subject(claim, original, find_atom(original, index), index)
        matches = [m for m in found + _unwritten_unit(claim, original, index) if m.source in cited]
    if not matches:
        return None
    m = matches[0]
    f = next(i for i, src in enumerate(index.sources) if src.path == m.source)
    formula = f"{original.text} = {q.text} (unit conversion)"
    return _AtomResult(q.text, Verdict.DERIVED, [(f, m.offset, m.offset + len(m.text))],
                       note=f"{q.text} derived: {formula}", formula=formula)


def _span_of(index: SourceIndex, o: _Observed) -> tuple[int, int, int]:
    q = index.quantity(o)
    return (o.file, q.start, q.end)


def _placed(
    atom: str, matches: list[AtomMatch], cited: list[str] | None, index: SourceIndex, allowed: set[str] | None = None
) -> _AtomResult:
    """The verdict of a found atom: verified where the claim says it came from (its citation, and the
    sources an origin rule allows), else misattributed, citing where it really stands."""
    position = {s.path: f for f, s in enumerate(index.sources)}
    for wanted, why in ((cited, "the cited"), (allowed, "an origin rule requires")):
        if wanted is None:
            continue
        # the user's own input may be restated under any citation: a figure from the question is not
        # taken from the wrong source
        inside = [m for m in matches if m.source in wanted or (why == "the cited" and m.kind == "input")]
        if not inside:
            m = matches[0]
            return _AtomResult(
                atom,
                Verdict.MISATTRIBUTED,
                [(position[m.source], m.offset, m.offset + len(m.text))],
                note=f"{atom} found in {m.source}, not in {why} {', '.join(sorted(wanted)) or '(no source)'}",
            )
        matches = inside
    m = matches[0]
    note = f"{atom} matched {m.text!r} by unit conversion" if m.how == "converted" else None
    return _AtomResult(atom, Verdict.VERIFIED, [(position[m.source], m.offset, m.offset + len(m.text))], note=note)


def _evidence_span(loaded: LoadedFile, start: int, end: int, minimum: int) -> tuple[int, int]:
    """The whole lines around [start, end), grown upwards then downwards until long enough to cite."""
    first, last = loaded.line_of(start), loaded.line_of(max(start, end - 1))
    for _ in range(6):
        a, b = loaded.line_span(first)[0], loaded.line_span(last)[1]
        if len(loaded.text[a:b].strip()) >= minimum:
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
    rules = _rules(policy)
    missing = sorted({s.path for s in index.sources} - {s.path for s in fence.sources})
    if missing:
        raise FenceError(
            f"verify_claim: the index holds {', '.join(missing)}, which fence {fence.name!r} does not; build "
            f"the SourceIndex from the fence's sources."
        )
    notes: list[str] = []
    strong = [q for q in claim.quantities if not _is_weak(q)]
    weak = [q.text for q in claim.quantities if _is_weak(q)]
    if weak:
        notes.append(f"small unit-less numbers not checked: {', '.join(weak)}")

    cited: list[str] | None = None
    named_refs = [r for r in claim.references if r.kind != "url"]
    dangling: list[str] = []
    if named_refs:
        cited = []
        for ref in named_refs:
            paths = resolve_reference(ref, index)
            if paths:
                cited.extend(p for p in paths if p not in cited)
            else:
                dangling.append(ref.text)
        if dangling:
            notes.append(f"reference {', '.join(map(repr, dangling))} resolves to no source of this unit")
        cited = cited or None

    allowed = _allowed_origins(claim, index, rules)
    results: list[_AtomResult] = []
    near: set[tuple[int, int]] = set()
    pending = list(strong)
    # atoms found directly first, so derivations can prefer the lines where the claim's other atoms stand
    for q in list(pending):
        matches = _about_subject(claim, q, find_atom(q, index), index)
        if matches:
            results.append(_cited_form(claim, q, index, cited, matches, allowed)
                           or _placed(q.text, matches, cited, index, allowed))
            pending.remove(q)
    for result in results:
        for f, start, _ in result.spans:
            line = index.loaded(f).line_of(start)
            near.update((f, ln) for ln in range(line - 2, line + 3))
    for q in pending:
        results.append(_check_quantity(claim, q, index, cited, near))
    for quote in claim.quotes:
        matches = find_atom(quote, index)
        if matches:
            results.append(_placed(f"“{quote.text}”", matches, cited, index, allowed))
        else:
            results.append(_AtomResult(quote.text, Verdict.UNSUPPORTED, note=f"quote “{quote.text}” found in no source"))
    for ref in claim.references:
        if ref.kind == "url":
            matches = find_atom(ref, index)
            if matches:
                results.append(_placed(ref.target, matches, None, index))
            else:
                results.append(_AtomResult(ref.text, Verdict.UNSUPPORTED, note=f"URL {ref.target} appears in no source"))

    if results:  # a claim checkable by its other atoms: the documents and fields it names must exist too
        results.extend(_missing_identifiers(claim, index))

    if not results:
        if named_refs and not dangling and cited:
            first = next(f for f, s in enumerate(index.sources) if s.path == cited[0])
            results.append(_AtomResult(named_refs[0].text, Verdict.VERIFIED, [(first, 0, 1)], note="reference resolves"))
        elif dangling:
            results.append(_AtomResult(dangling[0], Verdict.UNSUPPORTED, note="dangling reference"))
    if dangling and rules.strict_misattribution and any(r.verdict in (Verdict.VERIFIED, Verdict.DERIVED) for r in results):
        results.append(_AtomResult(dangling[0], Verdict.MISATTRIBUTED))

    _apply_origin_rules(results, index, allowed, notes)

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
            result.verdict = Verdict.UNSUPPORTED  # fail closed: uncited support is no support
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


# A numbered document, field or place ('Form 4506', 'Line 21', 'Schedule 8812', 'Section 121', 'Route 66')
# names one specific thing; the number is no amount (the parser skips it as a label) but it is content:
# a source that never names it does not back the claim.
_IDENTIFIER = re.compile(
    r"\b(line|box|form|schedule|section|chapter|article|route|highway|exit|gate|flight)[ \t\u00a0]+"
    r"(\d+[A-Za-z]?)\b", re.I)


def _missing_identifiers(claim: ClaimRecord, index: SourceIndex) -> list[_AtomResult]:
    """The numbered things the claim names that no source names, in either order and with up to two
    words between ('Form 1040', 'form no. 1040', '1040 form')."""
    wanted = {(m.group(1).lower(), m.group(2).lower()): m.group() for m in _IDENTIFIER.finditer(claim.claim)}
    missing = []
    for (word, number), shown in sorted(wanted.items()):
        named = re.compile(rf"\b{word}s?\W+(?:\w+\W+){{0,2}}{number}\b|\b{number}\W+(?:\w+\W+)?{word}", re.I)
        if not any(named.search(index.loaded(f).text) for f in range(len(index.sources))):
            missing.append(_AtomResult(shown, Verdict.UNSUPPORTED, note=f"{shown!r} is named by no source"))
    return missing


def _allowed_origins(claim: ClaimRecord, index: SourceIndex, rules: _Rules) -> set[str] | None:
    """Paths of the sources every origin rule that applies to the claim allows (by node or label)."""
    allowed: set[str] | None = None
    for subject, names in rules.origin:
        if subject.search(claim.claim):
            paths = {s.path for s in index.sources if s.node in names or (s.label or "") in names}
            allowed = paths if allowed is None else allowed & paths
    return allowed


def _apply_origin_rules(results: list[_AtomResult], index: SourceIndex, allowed: set[str] | None, notes: list[str]) -> None:
    """Derived figures: every operand must come from an allowed source."""
    if allowed is None:
        return
    for result in results:
        if result.verdict is Verdict.DERIVED and any(index.sources[f].path not in allowed for f, _, _ in result.spans):
            result.verdict = Verdict.MISATTRIBUTED
            notes.append(f"{result.atom}: an operand comes from outside {', '.join(sorted(allowed))} (origin rule)")
