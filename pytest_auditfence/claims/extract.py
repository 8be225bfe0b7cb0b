"""Claims of a markdown report: sentences, bullet and numbered items, table rows and headings.

Owns `extract_claims`: each claim's exact span in the document and its atoms (quantities, quotes, references).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pytest_auditfence.claims.quantities import (
    _CAPTION,
    _TABLE_SEPARATOR,
    _require_text,
    _merge_context,
    detect_scale_context,
    formula_constants,
    parse_quantities,
    spelled_figures,
    split_table_row,
)
from pytest_auditfence.models import ClaimKind, ClaimRecord, Quantity, Quote, Reference

# --------------------------------------------------------------------------------------------------
# Sentences
# --------------------------------------------------------------------------------------------------

_ABBREVIATIONS = frozenset(
    """inc corp co ltd llc plc lp llp bros e.g i.e eg ie vs v mr mrs ms dr prof sr jr st no nos fig figs
    approx est dept gov gen jan feb mar apr jun jul aug sep sept oct nov dec a.m p.m cf al ph.d ave sq mt
    ca op vol pp p sec art ch para ref refs ed eds rev min max avg yr yrs mo mos wk hr hrs dist govt intl
    u.s u.k u.n e.u n.a s.a a.g n.v corp.""".split()
)
_BOUNDARY = re.compile(r"[.!?]+[\"'”’)\]*_]*(?=\s)")
_WORD_BEFORE = re.compile(r"([A-Za-z][A-Za-z.]*)$")


def _is_boundary(text: str, dot: int, after: int) -> bool:
    """Is the punctuation at text[dot] the end of a sentence? `after` is the next non-space index."""
    if after >= len(text):
        return True
    nxt = text[after]
    if nxt.islower() or nxt in ",;:":
        return False
    if text[dot] != ".":
        return True
    m = _WORD_BEFORE.search(text, max(0, dot - 20), dot)
    if m is None:
        return True
    word = m.group(1)
    if word.lower().rstrip(".") in _ABBREVIATIONS:
        return False
    if len(word) == 1 and word.isupper():
        return False  # an initial: "J. Smith"
    if re.fullmatch(r"(?:[A-Za-z]\.)+[A-Za-z]", word):
        return False  # "U.S", "e.g" written without the final dot in the set above
    return True


def split_sentences(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """Spans of the sentences of text[start:end], trimmed of surrounding whitespace."""
    spans: list[tuple[int, int]] = []
    cursor = start
    for m in _BOUNDARY.finditer(text, start, end):
        after = m.end()
        while after < end and text[after].isspace():
            after += 1
        if after >= end or _is_boundary(text, m.start(), after):
            spans.append((cursor, m.end()))
            cursor = after
    spans.append((cursor, end))
    out = []
    for s, e in spans:
        while s < e and text[s].isspace():
            s += 1
        while e > s and text[e - 1].isspace():
            e -= 1
        if s < e and any(ch.isalnum() for ch in text[s:e]):
            out.append((s, e))
    return out


# --------------------------------------------------------------------------------------------------
# Quotes and references
# --------------------------------------------------------------------------------------------------

_QUOTE = re.compile(
    r"\"(?P<d>[^\"\n]+?)\"|“(?P<c>[^”\n]+?)”|‘(?P<cs>(?:[^’\n]|(?<=\w)’(?=\w))+?)’(?!\w)"
    r"|(?<![\w'])'(?P<s>(?:[^'\n]|(?<=\w)'(?=\w))+?)'(?![\w'])"
)
_URL = re.compile(r"https?://[^\s<>()\[\]\"'`]+|\bwww\.[^\s<>()\[\]\"'`]+")
_BRACKET = re.compile(r"\[\^?(?P<nums>\d{1,4}(?:\s*[,;–-]\s*\d{1,4})*)\](?![(:])")
_NUM_LIST = r"\d{1,3}(?:\s*(?:,\s*(?:and\s+|or\s+)?|and|or|&|-|–|—|to|through)\s*\d{1,3})*"
_PASSAGE = re.compile(
    rf"(?i)\b(?:according\s+to\s+(?:the\s+)?|as\s+(?:stated|mentioned|noted|described)\s+in\s+)?"
    rf"passages?\s*#?\s*(?P<nums>{_NUM_LIST})\b"
)
_DOC_TYPES = (
    r"10-K|10-Q|8-K|20-F|6-K|40-F|S-1|S-4|F-1|DEF\s?14A|annual\s+report|quarterly\s+report"
    r"|earnings\s+(?:call|release|report|transcript)|press\s+release|investor\s+presentation"
    r"|proxy\s+statement|prospectus|shareholder\s+letter|(?:SEC\s+)?filings?"
)
_NAMED = [
    re.compile(
        rf"(?i)\b(?:according\s+to|as\s+(?:reported|stated|disclosed|noted)\s+(?:by|in)|per|citing|from|in)\s+"
        rf"(?:the\s+|its\s+|their\s+|the\s+company'?s\s+)?(?P<target>(?:fy\s?\d{{2,4}}\s+|\d{{4}}\s+)?(?:{_DOC_TYPES}))\b"
    ),
    re.compile(r"\b(?i:the)\s+(?P<target>10-K|10-Q|8-K|20-F|6-K|S-1)\b"),
    re.compile(r"(?i)\((?:sources?|via|ref)\s*:\s*(?P<target>[^)\n]{1,80})\)"),
    # "Source: Bloomberg" names its source on the same line; "Sources:" alone heads a list
    re.compile(r"(?im)^\W{0,4}sources?[ \t]*:[ \t]*(?P<target>[^\n]{1,80})$"),
    re.compile(
        r"\b(?:[Aa]ccording\s+to|[Aa]s\s+reported\s+by|[Pp]er|[Cc]iting)\s+(?:the\s+)?"
        r"(?P<target>[A-Z][\w&.'-]*(?:\s+(?:[A-Z][\w&.'-]*|of|and|&))*)"
    ),
]
_MARKDOWN_LINK = re.compile(r"\[[^\]\n]*\]\((?P<url>[^)\s]+)\)")


def _expand(nums: str) -> list[str]:
    """"1, 2 and 3" -> 1, 2, 3; "1-3" -> 1, 2, 3 (at most 50 numbers)."""
    out: list[int] = []
    parts = re.split(r"\s*(?:,\s*(?:and\s+|or\s+)?|\band\b|\bor\b|&|;)\s*", nums.strip())
    for part in parts:
        rng = re.fullmatch(r"(\d+)\s*(?:-|–|—|to|through)\s*(\d+)", part.strip())
        if rng:
            lo, hi = int(rng.group(1)), int(rng.group(2))
            if lo <= hi and hi - lo < 50:
                out.extend(range(lo, hi + 1))
                continue
        out.extend(int(x) for x in re.findall(r"\d+", part))
    seen: list[str] = []
    for n in out:
        if str(n) not in seen:
            seen.append(str(n))
    return seen[:50]


def _normalise_url(url: str) -> str:
    url = url.rstrip(".,;:!?*_")
    m = re.match(r"(?i)(https?://)?([^/]+)(.*)", url)
    if m is None:  # pragma: no cover - the pattern matches any string
        return url
    scheme = (m.group(1) or "http://").lower()
    return scheme + m.group(2).lower() + m.group(3).rstrip("/")


def _normalise_name(name: str) -> str:
    name = re.sub(r"\s+", " ", name.strip().strip(".,;:!?*_\"'()")).lower()
    name = re.sub(r"^(?:the|its|their)\s+", "", name)
    return name.replace("def14a", "def 14a")


# A quote is checkable when it is presented as someone's words: a reporting verb, a colon or a cited
# source before it. Scare quotes, titles, the question being answered and proposed wording ("a subject
# line such as "Application for leave"") are not citations and are not checked.
_CITATION_CUE = re.compile(
    r"(?i)(?:\b(?:says?|said|stat(?:es|ed)|writes?|wrote|written|not(?:es|ed)|told|tells|according\s+to|quot(?:es?|ed|ing)"
    r"|reads?|mentions?|mentioned|explains?|explained|adds?|added|reports?|reported|describes?|described\s+(?:it|them)?\s*as"
    r"|called\s+(?:it|them|this)|calls\s+(?:it|them|this)|warn(?:s|ed)|insists?|insisted|claims?|claimed|puts?\s+it"
    r"|passages?\s*\d+|\[\d+\])\b[^\n\"“‘']{0,40}|:\s*)$"
)
_NOT_A_CITATION = re.compile(
    r"(?i)\b(?:question|such\s+as|e\.g\.|for\s+example|for\s+instance|like|titled|entitled|named|known\s+as"
    r"|so-called|subject(?:\s+line)?|phrase|term|word|keywords?|search(?:\s+for)?|type|enter|label(?:led)?|song"
    r"|album|book|film|movie|show|series|slogan|motto|hashtag)\s*[:,]?\s*$"
)
_TRAILING_PUNCTUATION = ",.;:!?"


def find_quotes(text: str, offset: int = 0) -> list[Quote]:
    """Quoted passages of at least three words presented as a citation (see `_CITATION_CUE`);
    apostrophes inside words are not quote marks, and punctuation closing the quote is left out."""
    out = []
    for m in _QUOTE.finditer(text):
        name = next(k for k in ("d", "c", "cs", "s") if m.group(k) is not None)
        s, e = m.span(name)
        while s < e and text[s].isspace():
            s += 1
        while e > s and (text[e - 1].isspace() or text[e - 1] in _TRAILING_PUNCTUATION):
            e -= 1  # "The Source Code," -- the comma belongs to the sentence around the quote
        if len(text[s:e].split()) < 3:
            continue
        before = text[max(0, m.start() - 60):m.start()]
        if _NOT_A_CITATION.search(before) or not _CITATION_CUE.search(before):
            continue
        out.append(Quote(text=text[s:e], start=s + offset, end=e + offset))
    return out


# What may stand before a bracket label that opens a line of a source list: indentation, a list marker.
_REFERENCE_DEFINITION = re.compile(r"[ \t]*(?:[-*+][ \t]+)?")


def find_references(text: str, offset: int = 0) -> list[Reference]:
    """URLs (also of markdown links), "[n]" citations, "passage n" and named sources in `text`."""
    refs: list[Reference] = []
    taken: list[tuple[int, int]] = []

    def free(s: int, e: int) -> bool:
        return all(e <= ts or s >= te for ts, te in taken)

    def add(s: int, e: int, kind: str, targets: list[str]) -> None:
        for target in targets:
            refs.append(Reference(text=text[s:e], start=s + offset, end=e + offset, kind=kind, target=target))
        taken.append((s, e))

    for m in _MARKDOWN_LINK.finditer(text):
        s, e = m.span("url")
        if re.match(r"(?i)https?://|www\.", m.group("url")):
            add(s, e, "url", [_normalise_url(m.group("url"))])
    for m in _URL.finditer(text):
        raw = m.group(0).rstrip(".,;:!?*_")
        s, e = m.start(), m.start() + len(raw)
        if free(s, e):
            add(s, e, "url", [_normalise_url(raw)])
    for m in _BRACKET.finditer(text):
        if _REFERENCE_DEFINITION.fullmatch(text, text.rfind("\n", 0, m.start()) + 1, m.start()):
            continue  # "[1] D1: Market outlook" starting a line of a source list defines [1], cites nothing
        if free(*m.span()):
            add(*m.span(), "bracket", _expand(m.group("nums")))
    for m in _PASSAGE.finditer(text):
        if free(*m.span()):
            add(*m.span(), "passage", [f"passage {n}" for n in _expand(m.group("nums"))])
    for pattern in _NAMED:
        for m in pattern.finditer(text):
            target = _normalise_name(m.group("target"))
            if not target or target.startswith("passage") or not free(*m.span()):
                continue
            if pattern is _NAMED[-1] and len(target) < 2:
                continue
            add(*m.span(), "named", [target])
    refs.sort(key=lambda r: (r.start, r.end, r.target))
    return refs


# --------------------------------------------------------------------------------------------------
# Blocks of markdown
# --------------------------------------------------------------------------------------------------

_HEADING = re.compile(r"^[ \t]{0,3}(#{1,6})[ \t]+(?P<body>.*?)[ \t]*#*[ \t]*$")
_BULLET = re.compile(r"^(?P<indent>[ \t]*)(?P<marker>[-*+•]|\d{1,3}[.)]|[a-zA-Z][.)]|\(\w{1,3}\))[ \t]+(?=\S)")
_FENCE = re.compile(r"^[ \t]*(```|~~~)")
_RULE = re.compile(r"^[ \t]*(?:[-*_][ \t]*){3,}$")
_PER_SHARE = re.compile(r"(?i)per\s+(?:diluted\s+|basic\s+)?share|\beps\b|per\s+unit")
_EXCEPT_PER_SHARE = re.compile(r"(?i)except\s+(?:for\s+)?per[\s-]+share")


@dataclass
class _Line:
    start: int
    end: int
    text: str


def _lines(document: str) -> list[_Line]:
    out = []
    pos = 0
    for raw in document.splitlines(keepends=True):
        body = raw.rstrip("\r\n")
        out.append(_Line(pos, pos + len(body), body))
        pos += len(raw)
    return out


def _is_table_row(line: str) -> bool:
    stripped = line.strip()
    return stripped.count("|") >= 1 and (stripped.startswith("|") or stripped.endswith("|") or stripped.count("|") >= 2)


class _Builder:
    def __init__(self, document: str) -> None:
        self.doc = document
        self.claims: list[ClaimRecord] = []
        self.heading: str | None = None

    def emit(
        self, start: int, end: int, kind: ClaimKind, context: str | None, quantities: list[Quantity] | None = None
    ) -> None:
        doc = self.doc
        while start < end and doc[start].isspace():
            start += 1
        while end > start and doc[end - 1].isspace():
            end -= 1
        if start >= end or not any(ch.isalnum() for ch in doc[start:end]):
            return
        text = doc[start:end]
        if quantities is None:
            quantities = parse_quantities(text, offset=start)
            spelled = spelled_figures(text, offset=start)
            if spelled:  # 'acquire five stores', 'up twenty percent': a figure the report states like any other
                quantities = sorted([*quantities, *spelled], key=lambda q: q.start)
        constants = set(formula_constants(doc, quantities))
        if constants:  # the 100 of '... x 100' is arithmetic, not a figure to find in a source
            quantities = [q for i, q in enumerate(quantities) if i not in constants]
        self.claims.append(
            ClaimRecord(
                id=f"c{len(self.claims) + 1:03d}",
                claim=text,
                start=start,
                end=end,
                kind=kind,
                context=context,
                quantities=quantities,
                quotes=find_quotes(text, start),
                references=find_references(text, start),
            )
        )

    def paragraph(self, start: int, end: int) -> None:
        for s, e in split_sentences(self.doc, start, end):
            self.emit(s, e, "sentence", self.heading)

    def table(self, rows: list[_Line], caption: _Line | None) -> None:
        header = rows[0]
        caption_ctx = detect_scale_context(caption.text) if caption else (None, None)
        caption_text = caption.text.strip() if caption else ""
        header_cells = split_table_row(header.text)
        columns = [_merge_context(caption_ctx, detect_scale_context(header.text[s:e])) for s, e in header_cells]
        if header_cells:
            # the label column takes only what its own header says
            columns[0] = detect_scale_context(header.text[slice(*header_cells[0])])
        except_per_share = bool(_EXCEPT_PER_SHARE.search(caption_text + " " + header.text))
        context = "\n".join(x for x in (caption_text, header.text.strip()) if x)
        for row in rows[1:]:
            if _TABLE_SEPARATOR.match(row.text):
                continue
            cells = split_table_row(row.text)
            if not cells:
                continue
            label = row.text[slice(*cells[0])]
            quantities: list[Quantity] = []
            for i, (s, e) in enumerate(cells):
                scale, unit = columns[i] if i < len(columns) else caption_ctx
                if except_per_share and _PER_SHARE.search(label):
                    scale = None
                quantities.extend(
                    parse_quantities(row.text[s:e], scale_context=scale, unit_context=unit, offset=row.start + s)
                )
            self.emit(row.start + cells[0][0], row.start + cells[-1][1], "table_row", context, quantities)


def extract_claims(document: str) -> list[ClaimRecord]:
    """Every sentence, list item, table row and heading of a markdown document, as `ClaimRecord`s.

    `document[claim.start:claim.end] == claim.claim` always holds (the claim is the exact text, list
    markers excluded). Ids run 'c001', 'c002', ... in document order. Claims with no atom are kept
    (the verifier marks them unverifiable); `ClaimRecord.checkable` says which carry atoms.
    """
    _require_text(document, "extract_claims(document=...) (the report's markdown)")
    b = _Builder(document)
    lines = _lines(document)
    i = 0
    n = len(lines)
    para_start: int | None = None
    para_end = 0
    item: tuple[int, int] | None = None  # open list item span
    in_fence = False

    def flush() -> None:
        nonlocal para_start, item
        if para_start is not None:
            b.paragraph(para_start, para_end)
            para_start = None
        if item is not None:
            b.emit(item[0], item[1], "bullet", b.heading)
            item = None

    while i < n:
        line = lines[i]
        text = line.text
        if _FENCE.match(text):
            flush()
            in_fence = not in_fence
            i += 1
            continue
        if in_fence:
            i += 1
            continue
        if not text.strip():
            flush()
            i += 1
            continue
        heading = _HEADING.match(text)
        if heading:
            flush()
            s = line.start + heading.start("body")
            e = line.start + heading.end("body")
            # parsed with its "#" marks so that a section number ("## 2.1 Revenue") reads as one
            numbers = [q for q in parse_quantities(text, offset=line.start) if s <= q.start and q.end <= e]
            b.emit(s, e, "heading", None, numbers)
            b.heading = heading.group("body").strip() or b.heading
            i += 1
            continue
        if _RULE.match(text):
            flush()
            i += 1
            continue
        nxt = lines[i + 1].text if i + 1 < n else ""
        if _is_table_row(text) and _TABLE_SEPARATOR.match(nxt) and "|" in nxt:
            # a caption is the short line just above the table (or above a blank line above it)
            flush()
            caption = _caption_before(b, lines, i)
            rows = [line]
            j = i + 1
            while j < n and _is_table_row(lines[j].text):
                rows.append(lines[j])
                j += 1
            b.table(rows, caption)
            i = j
            continue
        if _is_caption(text, lines, i):
            flush()
            i += 1
            continue
        bullet = _BULLET.match(text)
        if bullet:
            flush()
            item = (line.start + bullet.end(), line.end)
            i += 1
            continue
        if item is not None:
            item = (item[0], line.end)  # a continuation line of the list item
            i += 1
            continue
        # A line of its own: a bold label ('**Revenue:** $94.9B') or a line ending in a markdown hard
        # break (two spaces or a backslash). Joining such lines would make one claim of separate facts.
        own_line = bool(_LABEL_LINE.match(text)) or text.endswith(("  ", "\\"))
        if own_line and para_start is not None:
            flush()
        body_start = line.start + (len(text) - len(text.lstrip(" \t>")))
        if para_start is None:
            para_start = body_start
        para_end = line.end - 1 if text.endswith("\\") else line.end
        if own_line:
            flush()
        i += 1
    flush()
    return b.claims


_LABEL_LINE = re.compile(r"^[ \t>]*(?:\*\*|__)[^*_\n]{1,60}:(?:\*\*|__)|^[ \t>]*(?:\*\*|__)[^*_\n]{1,60}(?:\*\*|__)[ \t]*:")


def _next_table_after(lines: list[_Line], i: int) -> bool:
    j = i + 1
    while j < len(lines) and not lines[j].text.strip() and j - i <= 2:
        j += 1
    return j + 1 < len(lines) and _is_table_row(lines[j].text) and bool(_TABLE_SEPARATOR.match(lines[j + 1].text))


def _is_caption(text: str, lines: list[_Line], i: int) -> bool:
    stripped = text.strip()
    return (
        len(stripped) <= 120
        and bool(_CAPTION.search(stripped) or re.search(r"(?i)\(\s*in\s", stripped))
        and detect_scale_context(stripped) != (None, None)
        and _next_table_after(lines, i)
    )


def _caption_before(b: _Builder, lines: list[_Line], i: int) -> _Line | None:
    j = i - 1
    while j >= 0 and not lines[j].text.strip() and i - j <= 2:
        j -= 1
    if j < 0:
        return None
    candidate = lines[j]
    if _is_table_row(candidate.text) or detect_scale_context(candidate.text) == (None, None):
        return None
    return candidate
