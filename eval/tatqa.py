"""TAT-QA dev as captured LangGraph runs: does the verifier sign correct figures read from (or computed from)
annual-report tables, and flag perturbed ones?

Each section (a table and its paragraphs) is what a document tool returns, rendered in one of six forms
chosen by a hash of the section id: a markdown table under a caption line, an HTML table, JSON
`{"table": [[...]]}`, a JSON list of records, CSV-like text, or the page text of a PDF extraction (columns
separated by runs of spaces, header rows on their own lines). Each numeric gold answer becomes a report
sentence (several wordings, the gold scale, the question's subject and period). Perturbed versions of it
(a few percent off, two digits swapped, the same row's value in another period's column, the wrong scale)
go into reports of their own; every report is one real run: `plan` asks for the section with a tool call,
a `ToolNode` runs the tool, `write` returns the report; the run is captured with a `Snapshot` and audited
with the cascade, as a user's test would be. `--perturb-seeds N` adds, on tuning sections only, N extra variants
of each answer per kind (off by 1-9%, other digits swapped, the last digit moved), each kind and variant in a
report of its own and counted apart, to find why perturbed figures pass where the standard set has too few.
`--tatqa-variants N` renders each tuning section N more times, each in the next form with the next wording and
restatement of the same answers (correct and standard perturbed), counted apart: a rule tuned on one form and one
wording of a section is then measured on the others, as held-out sections would meet it.

Sections are split by a hash of their id into a tuning part and a measure-only part; both are reported.
Run through `eval/run_eval.py --sets tatqa` (or this file directly, same options).
"""

from __future__ import annotations

import ast
import csv
import hashlib
import html
import io
import json
import operator
import re
import tempfile
import textwrap
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path
from typing import Any

from langchain_core.messages import AIMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import tool
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode

FORMS = ("markdown", "html", "json_table", "json_records", "csv", "pdf_text")
KINDS = ("correct", "off", "swap", "period", "scale")
PERTURBATIONS = KINDS[1:]
# the kinds of the extra variants `--perturb-seeds N` adds on tuning sections: other percentages off (1-9%),
# other pairs of digits swapped, and the last shown digit changed
EXTRA_KINDS = ("off", "swap", "digit")
# kinds made on every section but counted apart ('wrong row / unit'), so the headline figures stay comparable with
# earlier stops: the value of a neighbouring row in the same column ('row'); a computed answer's derivation with
# one operand taken from a neighbouring row ('row_operand'); the right number in the wrong unit ('unit': a percentage
# change in percentage points, another percentage as an amount, an amount per share). Held-out ones are counted only.
APART_KINDS = ("row", "row_operand", "unit")
ANSWER_TYPES = ("span", "multi-span", "arithmetic", "count")
SCALE_WORDS = {"thousand": "thousand", "million": "million", "billion": "billion"}
NEXT_SCALE = {"thousand": "million", "million": "billion", "billion": "million"}
SCALE_FACTOR = {"thousand": 10**3, "million": 10**6, "billion": 10**9}
CAPTIONS = {  # how annual reports state a table's scale; rotated per section
    "thousand": ("(In thousands)", "(in thousands, except per share data)", "$ in thousands",
                 "Dollars in thousands"),
    "million": ("(In millions)", "(in millions, except per share data)", "$ in millions", "Dollars in millions"),
    "billion": ("(In billions)", "(in billions)", "$ in billions", "Dollars in billions"),
}


def _hash(*parts: str) -> int:
    return int(hashlib.sha256("\x1f".join(parts).encode("utf-8")).hexdigest()[:12], 16)


def split_of(section_id: str) -> str:
    """'tuning' or 'held_out', by a hash of the section id (about half each)."""
    return "tuning" if _hash("split", section_id) % 2 == 0 else "held_out"


# --------------------------------------------------------------------------------------------------
# numbers in cells and answers

_NUM = re.compile(r"^\(?-?\(?[$€£¥]?\s*\(?-?[\d,]*\.?\d+\)?\s*%?\)?$")


def cell_number(text: str) -> Decimal | None:
    """'$ 1,452.4' -> 1452.4, '(5,625)' / '$(5,625)' / '−1' -> negative, '12%' -> 12; None for words."""
    t = text.strip().replace("\u2212", "-").replace("\u2013", "-").replace(" ", "")
    if not t or not _NUM.match(t) or not re.search(r"\d", t):
        return None
    negative = t.startswith("-") or "(" in t or t.startswith("$-") or t.startswith("$(")
    digits = re.sub(r"[^\d.]", "", t)
    try:
        value = Decimal(digits)
    except Exception:
        return None
    return -value if negative else value


def _decimals(text: str) -> int:
    m = re.search(r"\.(\d+)", text)
    return len(m.group(1)) if m else 0


def fmt(value: Decimal, decimals: int) -> str:
    """1452.4, 1 -> '1,452.4' (sign dropped: callers place it)."""
    q = Decimal(1).scaleb(-decimals) if decimals else Decimal(1)
    return f"{abs(value).quantize(q, rounding=ROUND_HALF_UP):,}"


def _is_year(value: Decimal, text: str) -> bool:
    return value == value.to_integral() and 1990 <= value <= 2030 and "," not in text and "$" not in text


# --------------------------------------------------------------------------------------------------
# the section: header rows, rows, and its six renderings


@dataclass
class Section:
    uid: str
    rows: list[list[str]]
    paragraphs: list[str]
    questions: list[dict[str, Any]]
    header_count: int = 0
    caption: str = ""
    form: str = ""
    split: str = ""

    @property
    def headers(self) -> list[str]:
        """One header per column: the header rows' non-empty cells, a lone spanning one carried to the right (what
        the perturbations date a column by)."""
        return self._headers(groups=False)

    @property
    def record_keys(self) -> list[str]:
        """The headers a list of records keys its fields by: also headers spanning groups of columns alike, each
        written in the first column of its group ('December 31, 2019' over 'Carrying Amount | Fair Value'), carried
        over its group, as a tool flattening the table names each field."""
        return self._headers(groups=True)

    def _headers(self, groups: bool) -> list[str]:
        width = len(self.rows[0]) if self.rows else 0
        out = []
        for j in range(width):
            parts = []
            for row in self.rows[:self.header_count]:
                cell = row[j].strip() if j < len(row) else ""
                if not cell and j > 1:  # a spanning header written in the first column it covers
                    left = [row[k].strip() for k in range(1, j) if k < len(row) and row[k].strip()]
                    cell = left[-1] if left and len([c for c in row[1:] if c.strip()]) == 1 else \
                        _spanned(row, j) if groups else ""
                if cell and cell not in parts:
                    parts.append(cell)
            out.append(" ".join(parts))
        return out


def _spanned(row: list[str], j: int) -> str:
    """The header over column `j` of a row of headers each spanning the same number of columns, written in the first
    of them ('', 'December 31, 2019', '', 'December 31, 2018', ''): the filled cell its group starts at."""
    filled = [k for k in range(1, len(row)) if row[k].strip()]
    if len(filled) < 2 or j < filled[0]:
        return ""
    stride = filled[1] - filled[0]
    if stride < 2 or any(b - a != stride for a, b in zip(filled, filled[1:])) or j >= filled[-1] + stride:
        return ""
    return row[filled[0] + (j - filled[0]) // stride * stride].strip()


def _header_count(rows: list[list[str]]) -> int:
    count = 0
    for row in rows[:3]:
        values = [cell_number(c) for c in row[1:] if c.strip()]
        numeric = [v for v, c in zip(values, [c for c in row[1:] if c.strip()], strict=True)
                   if v is not None and not _is_year(v, c)]
        if row and row[0].strip() and numeric:
            break
        count += 1
    return min(count, len(rows) - 1) if rows else 0


def load_sections(data: Path) -> list[Section]:
    raw = json.loads((data / "tatqa-dev" / "tatqa_dataset_dev.json").read_text(encoding="utf-8"))
    sections = []
    for item in raw:
        rows = [[str(c) for c in row] for row in item["table"]["table"]]
        uid = item["table"]["uid"]
        sec = Section(uid=uid, rows=rows, paragraphs=[p["text"] for p in sorted(item["paragraphs"],
                                                                              key=lambda p: p["order"])],
                      questions=item["questions"])
        sec.header_count = _header_count(rows)
        scales = Counter(q["scale"] for q in item["questions"] if q["scale"] in SCALE_WORDS)
        if scales:
            options = CAPTIONS[scales.most_common(1)[0][0]]
            if any(_CURRENCY.search(c) and "$" not in c for row in rows for c in row):
                options = options[:2]  # a euro or pound table is not 'in millions of dollars'
            sec.caption = options[_hash("caption", uid) % len(options)]
        sec.form = FORMS[_hash("form", uid) % len(FORMS)]
        sec.split = split_of(uid)
        sections.append(sec)
    return sections


def render(sec: Section, form: str | None = None) -> str:
    """What the document tool returns for this section, in its form."""
    form = form or sec.form
    title = "Table 1" + (f" {sec.caption}" if sec.caption else "")
    paras = sec.paragraphs
    rows = sec.rows
    if form == "json_table":
        return json.dumps({"caption": title, "table": rows, "paragraphs": paras}, ensure_ascii=False)
    if form == "json_records":
        headers = sec.record_keys
        keys = ["line_item"] + [h or f"column_{j}" for j, h in enumerate(headers) if j]
        seen: Counter[str] = Counter()
        unique = []
        for k in keys:
            seen[k] += 1
            unique.append(k if seen[k] == 1 else f"{k} ({seen[k]})")
        # the header's last rows that hold only a label (the first block's date 'December 31, 2019', a first section
        # 'Revenue:') head no column: records keep them, as every later such row, each a record of its own
        lead = sec.header_count
        while lead > 0 and rows[lead - 1] and rows[lead - 1][0].strip() and not any(c.strip() for c in rows[lead - 1][1:]):
            lead -= 1
        records = [dict(zip(unique, row, strict=False)) for row in rows[lead:]]
        return json.dumps({"caption": title, "rows": records, "paragraphs": paras}, ensure_ascii=False)
    if form == "markdown":
        width = len(rows[0])
        head = rows[0] if sec.header_count else [""] * width
        body = rows[1:] if sec.header_count else rows
        lines = [title, "", "| " + " | ".join(head) + " |", "|" + "---|" * width]
        lines += ["| " + " | ".join(r) + " |" for r in body]
        return "\n".join(lines + [""] + paras)
    if form == "html":
        out = [f"<p><b>{html.escape(title)}</b></p>", "<table>"]
        for i, row in enumerate(rows):
            tag = "th" if i < sec.header_count else "td"
            out.append("<tr>" + "".join(f"<{tag}>{html.escape(c)}</{tag}>" for c in row) + "</tr>")
        out.append("</table>")
        out += [f"<p>{html.escape(p)}</p>" for p in paras]
        return "\n".join(out)
    if form == "csv":
        buf = io.StringIO()
        csv.writer(buf, lineterminator="\n").writerows(rows)
        return "\n".join([title, buf.getvalue().rstrip("\n"), ""] + paras)
    if form == "pdf_text":
        width = len(rows[0])
        widths = [max(len(r[j]) if j < len(r) else 0 for r in rows) for j in range(width)]
        lines = [title, ""]
        for row in rows:
            cells = [(row[j] if j < len(row) else "") for j in range(width)]
            first = cells[0].ljust(widths[0])
            rest = "   ".join(c.rjust(widths[j + 1]) for j, c in enumerate(cells[1:]))
            lines.append((first + "   " + rest).rstrip())
        lines.append("")
        for p in paras:
            lines += textwrap.wrap(p, 100) + [""]
        return "\n".join(lines).rstrip() + "\n"
    raise ValueError(f"unknown form {form!r}; choose from {', '.join(FORMS)}")


# --------------------------------------------------------------------------------------------------
# report sentences (the user's input holds the questions; the report answers them)


@dataclass
class Figure:
    """One number of a report sentence, in the gold scale."""

    value: Decimal
    decimals: int
    scale: str  # '', thousand, million, billion, percent; 'points', 'per share' (the 'unit' kind only)
    currency: str


@dataclass
class Item:
    """One report sentence about one question, correct or perturbed."""

    section: str
    question: str
    answer_type: str
    kind: str
    split: str
    form: str
    seed: int = 0  # 0: the standard variant of its kind; 1..N: an extra variant (`--perturb-seeds`)
    variant: int = 0  # 0: the section's own form and wording; 1..N: another form and wording (`--tatqa-variants`)
    report: str = ""  # sentences of one kind go into one report per `report` (eval/tatqa_cells.py: per claim kind)
    answer_from: str = ""  # where the gold answer is read: 'table', 'text' or 'table-text'
    shape: str = ""  # the gold derivation with its numbers as N ('(N+N)/N'); '' for an answer read as it stands
    sentence: str = ""
    value_spans: list[tuple[int, int]] = field(default_factory=list)  # within the sentence
    claims: list[dict[str, Any]] = field(default_factory=list)


_QUESTION = re.compile(
    r"^(?:what|how much)\s+(?:is|was|were|are|did|does|do|will|would)\s+(?P<np>.+?)\s*\??$", re.IGNORECASE)


def _noun_phrase(question: str) -> str | None:
    q = question.strip().rstrip("?").strip()
    m = _QUESTION.match(q)
    if not m:
        return None
    np = m.group("np").strip()
    np = re.sub(r"^(?:the\s+)?(?:amount|value|total amount)\s+of\s+(?:the\s+)?", "", np, flags=re.IGNORECASE)
    np = re.sub(r"\s+(?:be|change|increase|decrease|amount to)$", "", np, flags=re.IGNORECASE)
    np = re.sub(r",?\s+respectively$", "", np, flags=re.IGNORECASE)
    return np or None


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def _with_the(np: str) -> str:
    return np if re.match(r"(?i)(the|a|an|its|their|our)\b", np) else "the " + np


_PERIOD_TAIL = re.compile(r"\s+(?P<p>(?:in|for|during|as of|at)\s+(?:fiscal\s+|FY\s?)?(?:19|20)\d\d(?:/\d\d(?:\d\d)?)?)$",
                          re.IGNORECASE)


def sentence_for(np: str, values: list[str], template: int) -> tuple[str, list[tuple[int, int]]]:
    """A declarative sentence stating `values` about `np`, in one of five wordings; spans of the values."""
    subject = _with_the(np)
    joined = " and ".join(values)
    tail = _PERIOD_TAIL.search(subject)
    if template == 0:
        text = f"{_capital(subject)} was {joined}."
    elif template == 1:
        text = f"{_capital(subject)} came to {joined}."
    elif template == 2:
        text = f"According to the filing, {subject} was {joined}."
    elif template == 3 and tail:
        head = subject[:tail.start()]
        text = f"{_capital(tail.group('p'))}, {head} stood at {joined}."
    else:
        text = f"We put {subject} at {joined}."
    if len(values) > 1:
        text = text[:-1] + ", respectively."
    spans, at = [], 0
    for v in values:
        at = text.index(v, at)
        spans.append((at, at + len(v)))
        at += len(v)
    return text, spans


def value_text(fig: Figure, variant: int) -> str:
    """'$1,452.4 million', '$1,452,400 thousand'... one of a few exact restatements of the figure."""
    sign = "-" if fig.value < 0 else ""
    cur = fig.currency
    if fig.scale == "points":
        return f"{sign}{fmt(fig.value, fig.decimals)} percentage points"
    if fig.scale == "per share":
        return f"{sign}{cur}{fmt(fig.value, fig.decimals)} per share"
    if fig.scale == "percent":
        number = fmt(fig.value, fig.decimals)
        return f"{sign}{number}%" if variant % 2 == 0 else f"{sign}{number} percent"
    if fig.scale in SCALE_WORDS:
        word = SCALE_WORDS[fig.scale]
        option = variant % 3
        if option == 1 and fig.decimals == 0 and fig.scale == "thousand":  # $525 thousand -> $525,000
            return f"{sign}{cur}{fmt(fig.value * 1000, 0)}"
        if option == 2 and fig.scale in ("thousand", "million") and abs(fig.value) >= 1000:
            bigger = NEXT_SCALE[fig.scale]  # 1,248 million -> 1.248 billion, every digit kept
            digits = fmt(fig.value / 1000, fig.decimals + 3).rstrip("0")
            return f"{sign}{cur}{digits.rstrip('.') if digits.endswith('.') else digits} {bigger}"
        return f"{sign}{cur}{fmt(fig.value, fig.decimals)} {word}"
    return f"{sign}{cur}{fmt(fig.value, fig.decimals)}"


_CURRENCY = re.compile(r"[$€£¥]")
_NOT_MONEY = re.compile(r"(?i)\b(shares?|employees?|headcount|units|customers|stores|days|years|months|"
                        r"hours|ratio|rate|number of|percentage|margin|%)\b")


def _operand_rows(sec: Section, numbers: list[Decimal]) -> list[list[str]]:
    out = []
    for row in sec.rows[sec.header_count:]:
        if any(cell_number(c) in numbers for c in row[1:] if cell_number(c) is not None):
            out.append(row)
    return out


def currency_of(sec: Section, q: dict[str, Any], answer_text: str, numbers: list[Decimal]) -> str:
    """The currency symbol to write: the answer's own, else that of the rows its figures come from,
    else (for an amount in thousands/millions/billions) the table's, unless the question is about a count."""
    if q["scale"] == "percent":
        return ""
    m = _CURRENCY.search(answer_text)
    if m:
        return m.group(0)
    rows = _operand_rows(sec, numbers)
    for row in rows:
        for c in row:
            m = _CURRENCY.search(c)
            if m:
                return m.group(0)
    if q["scale"] in SCALE_WORDS and not _NOT_MONEY.search(q["question"]):
        for row in sec.rows:
            for c in row:
                m = _CURRENCY.search(c)
                if m:
                    return m.group(0)
    return ""


def _percent_cell(sec: Section, value: Decimal) -> bool:
    """The answer stands in the table as a percentage ('36%') although the gold gives it bare."""
    cells = [c for row in sec.rows for c in row[1:] if cell_number(c) == value]
    return bool(cells) and all("%" in c for c in cells)


def _is_ratio(derivation: str) -> bool:
    """A quotient of two figures has no currency; an average (a sum divided by a small count) keeps it."""
    divisors = [cell_number(d) for d in re.findall(r"/\s*\(?\s*([\d,]*\.?\d+)", derivation)]
    return any(d is None or d != d.to_integral() or d > 12 for d in divisors)


def _figures(sec: Section, q: dict[str, Any]) -> list[tuple[Figure, str]] | None:
    """The gold answer as figures (with their verbatim text), or None when it is not numeric."""
    answer = q["answer"]
    kind = q["answer_type"]
    if kind in ("arithmetic",):
        if not isinstance(answer, (int, float)):
            return None
        value = Decimal(str(answer))
        text = str(answer)
        numbers = [cell_number(n) for n in re.findall(r"[\d,]*\.?\d+", q["derivation"])]
        cur = "" if _is_ratio(q["derivation"]) else currency_of(sec, q, "", [n for n in numbers if n is not None])
        return [(Figure(value, _decimals(text), q["scale"], cur), text)]
    if kind == "count":
        value = cell_number(str(answer))
        return None if value is None else [(Figure(value, 0, "", ""), str(answer))]
    items = answer if isinstance(answer, list) else [answer]
    out = []
    for text in items:
        value = cell_number(str(text))
        if value is None or (_is_year(value, str(text)) and q["scale"] == ""):
            return None
        cur = currency_of(sec, q, str(text), [value])
        scale = q["scale"]
        if "%" in str(text) or (scale == "" and _percent_cell(sec, value)):
            scale, cur = "percent", ""
        out.append((Figure(value, _decimals(str(text)), scale, cur), str(text)))
    return out


def _words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z]{3,}", text.lower())} - {"the", "and", "for", "what", "was", "were", "from"}


def _other_period(sec: Section, fig: Figure, q: dict[str, Any]) -> Figure | None:
    """The same row's value in another period's column, for a table look-up answer: the row holding the
    answer whose label shares most words with the question, and a column dated with a year the question
    does not name (the question must name its own)."""
    headers = sec.headers
    asked = set(re.findall(r"(?:19|20)\d\d", q["question"]))
    if not asked:  # a question naming no period has no 'other period'
        return None
    best: tuple[int, Figure] | None = None
    for row in sec.rows[sec.header_count:]:
        overlap = len(_words(row[0]) & _words(q["question"])) if row else 0
        cells = [(j, cell_number(c), c) for j, c in enumerate(row) if j]
        if not overlap or not any(v is not None and abs(v) == abs(fig.value) for _, v, _ in cells):
            continue
        for j, v, c in cells:
            years = set(re.findall(r"(?:19|20)\d\d", headers[j] if j < len(headers) else ""))
            if v is None or abs(v) == abs(fig.value) or not years or years & asked:
                continue
            if best is None or overlap > best[0]:
                best = (overlap, Figure(v, _decimals(c), fig.scale, fig.currency))
            break
    return best[1] if best else None


_TOKEN = re.compile(r"(?<![\d.])[\d,]*\.?\d+")


def _document_numbers(sec: Section, cells: bool = True) -> list[tuple[Decimal, str]]:
    """Every number the section states (in its paragraphs only when not `cells`), with the text around it (its
    row's label, or its paragraph)."""
    out = []
    for row in sec.rows[sec.header_count:] if cells else []:
        for c in row[1:]:
            v = cell_number(c)
            if v is not None:
                out.append((abs(v), (row[0] if row else "") + " " + c))
    for para in sec.paragraphs:
        for m in _TOKEN.finditer(para):
            v = cell_number(m.group(0))
            if v is not None:
                out.append((v, para[max(0, m.start() - 80):m.end() + 40]))
    return out


def _stated(sec: Section, fig: Figure, cells: bool) -> bool:
    """Does the section state this figure's number at the precision the figure shows, in its paragraphs (and in
    its cells when `cells`)? A wrong-row figure also stated in prose (maybe for the claim's own subject), or a
    wrong-operand result stated anywhere, is no sure fabrication."""
    shown = fmt(fig.value, fig.decimals)
    return any(fmt(v, fig.decimals) == shown for v, _ in _document_numbers(sec, cells))


def _cells_of(sec: Section, value: Decimal) -> list[tuple[int, int]]:
    """Where a number stands in the table's body: (row, column) of each cell holding it (sign ignored)."""
    return [(i, j) for i, row in enumerate(sec.rows) if i >= sec.header_count
            for j, c in enumerate(row) if j and (v := cell_number(c)) is not None and abs(v) == abs(value)]


def _neighbours(sec: Section, i: int, j: int, seed: int) -> list[tuple[int, Decimal, str]]:
    """The numeric cells of column `j` in the rows just below and above row `i` (skipping rows empty in that
    column: section rows), the nearer first, below or above first by `seed`."""
    out = []
    for step in ((1, -1) if seed % 2 == 0 else (-1, 1)):
        k = i + step
        while sec.header_count <= k < len(sec.rows):
            row = sec.rows[k]
            v = cell_number(row[j]) if j < len(row) else None
            if v is not None and not _is_year(v, row[j]):
                out.append((k, v, row[j]))
                break
            if j < len(row) and row[j].strip():
                break  # a word or year in the column: no neighbouring figure on this side
            k += step
    return out


def _wrong_row(sec: Section, fig: Figure, q: dict[str, Any], seed: int) -> Figure | None:
    """A look-up answer read from the neighbouring row: the same column's value one row below or above the one cell
    holding the answer; None when the answer's cell is not one, or the neighbour's value is also in the answer's
    row or the answer ('Apple and Huawei' 11% and 11%)."""
    if q["answer_type"] not in ("span", "multi-span") or q["answer_from"] == "text":
        return None
    cells = _cells_of(sec, fig.value)
    if len({i for i, _ in cells}) != 1:
        return None
    i, j = cells[0]
    own = {abs(v) for c in sec.rows[i][1:] if (v := cell_number(c)) is not None}
    answers = q["answer"] if isinstance(q["answer"], list) else [q["answer"]]
    own |= {abs(v) for a in answers if (v := cell_number(str(a))) is not None}  # another figure of the answer
    for _, v, text in _neighbours(sec, i, j, seed):
        if abs(v) not in own:
            return Figure(v, _decimals(text), fig.scale, fig.currency)
    return None


def _wrong_operand(sec: Section, fig: Figure, q: dict[str, Any], seed: int) -> Figure | None:
    """A computed answer with one operand read from the neighbouring row: the gold derivation with one of its
    numbers (one that stands in one table cell) replaced by the same column's value one row below or above, at
    the gold's scale (x100 when the gold states the ratio as a percentage) and precision."""
    derivation = q.get("derivation") or ""
    if q["answer_type"] != "arithmetic" or q["answer_from"] == "text":
        return None
    true = _computed(derivation)
    if true is None or true == 0:
        return None
    factor = min((Decimal(1), Decimal(100)), key=lambda f: abs(true * f - fig.value))
    if abs(true * factor - fig.value) > abs(fig.value) / 20:
        return None
    tokens = [m for m in _TOKEN.finditer(derivation) if (v := cell_number(m.group(0))) is not None
              and len(_cells_of(sec, v)) == 1]
    numbers = {abs(v) for m in _TOKEN.finditer(derivation) if (v := cell_number(m.group(0))) is not None}
    for n in range(len(tokens)):
        m = tokens[(seed + n) % len(tokens)]
        i, j = _cells_of(sec, cell_number(m.group(0)) or Decimal(0))[0]
        for _, v, _text in _neighbours(sec, i, j, seed):
            if abs(v) in numbers:
                continue  # another operand's value: 598 / 598 = 100% is no figure a reader takes for the share
            new = _computed(derivation[:m.start()] + str(abs(v)) + derivation[m.end():])
            if new is not None:
                return Figure(new * factor, fig.decimals, fig.scale, fig.currency)
    return None


def _wrong_unit(sec: Section, fig: Figure, q: dict[str, Any]) -> Figure | None:
    """The right number in the wrong unit: a percentage change (a quotient of a difference) stated in percentage
    points; another percentage stated as an amount in the table's scale; an amount stated per share. None where the
    section states the number in that unit itself, or the question is about a per-share figure."""
    derivation = q.get("derivation") or ""
    if fig.scale == "percent":
        if q["answer_type"] == "arithmetic" and "/" in derivation and "-" in derivation:
            if any(re.search(r"percentage point|basis point|\bpp\b|\bbps\b", around, re.IGNORECASE)
                   for _, around in _document_numbers(sec)):
                return None
            return Figure(fig.value, fig.decimals, "points", "")
        scale = next((w for w in SCALE_WORDS if w in sec.caption.lower()), "")
        currency = next((m.group(0) for row in sec.rows for c in row if (m := _CURRENCY.search(c))), "")
        if not scale or not currency or any(v == abs(fig.value) and "%" not in around
                                            for v, around in _document_numbers(sec)):
            return None
        return Figure(fig.value, fig.decimals, scale, currency)
    if fig.scale in SCALE_WORDS and fig.currency and not re.search(r"(?i)per\s+(?:share|unit)|\beps\b",
                                                                   q["question"] + " " + sec.caption):
        if any("per share" in around.lower() for _, around in _document_numbers(sec)):
            return None
        return Figure(fig.value, fig.decimals, "per share", fig.currency)
    return None


def perturb(kind: str, fig: Figure, sec: Section, q: dict[str, Any], seed: int, extra: bool = False) -> Figure | None:
    """The perturbed figure of this kind, or None when the kind does not apply (or changes nothing). `extra`:
    an extra variant (off by 1-9%, the last digit changed) of `--perturb-seeds`."""
    if kind == "row":
        return _wrong_row(sec, fig, q, seed)
    if kind == "row_operand":
        return _wrong_operand(sec, fig, q, seed)
    if kind == "unit":
        return _wrong_unit(sec, fig, q)
    if kind == "digit":
        step = Decimal(1).scaleb(-fig.decimals) * (1 + seed % 4)  # the last shown digit moved by 1 to 4
        return Figure(fig.value + (step if seed % 2 == 0 else -step), fig.decimals, fig.scale, fig.currency)
    if kind == "off":
        pct = Decimal((1 + seed % 9) if extra else (3, 4, 5, 7)[seed % 4]) / 100
        factor = 1 + pct if seed % 2 == 0 else 1 - pct
        new = fig.value * factor
        decimals = fig.decimals
        if fmt(new, decimals) == fmt(fig.value, decimals):  # a small figure: move the last shown digit
            step = Decimal(1).scaleb(-decimals)
            new = fig.value + (step if seed % 2 == 0 else -step)
        return Figure(new, decimals, fig.scale, fig.currency)
    if kind == "swap":
        digits = fmt(fig.value, fig.decimals).replace(",", "")
        positions = [i for i in range(len(digits) - 1)
                     if digits[i].isdigit() and digits[i + 1].isdigit() and digits[i] != digits[i + 1]
                     and not (i == 0 and digits[1] == "0")]
        if not positions:
            return None
        i = positions[seed % len(positions)]
        swapped = digits[:i] + digits[i + 1] + digits[i] + digits[i + 2:]
        new = Decimal(swapped) * (-1 if fig.value < 0 else 1)
        return Figure(new, fig.decimals, fig.scale, fig.currency)
    if kind == "period":
        if q["answer_type"] != "span" or q["answer_from"] == "text":
            return None
        return _other_period(sec, fig, q)
    if kind == "scale":
        if fig.scale not in SCALE_WORDS:
            return None
        return Figure(fig.value, fig.decimals, NEXT_SCALE[fig.scale], fig.currency)
    raise ValueError(kind)


_WRITTEN = re.compile(r"(?P<sign>-)?[$€£¥]?(?P<number>[\d,]*\.?\d+)(?:\s*(?P<word>thousand|million|billion))?")


def _true_as_shown(text: str, true: Figure) -> bool:
    """Does a written figure hold the true figure at the precision it shows? A restatement in a bigger scale drops
    digits ('$1.17 billion' for 1,173 million less 3): such a 'perturbed' figure is no wrong figure."""
    m = _WRITTEN.search(text)
    if m is None:
        return False
    written = Decimal(m.group("number").replace(",", "")) * (-1 if m.group("sign") else 1)
    decimals = _decimals(m.group("number"))
    factor = Decimal(1)
    if true.scale in SCALE_FACTOR:
        word = m.group("word")
        factor = Decimal(SCALE_FACTOR[word] if word else 1) / SCALE_FACTOR[true.scale]
    half = Decimal(5).scaleb(-decimals - 1) * factor
    return abs(written * factor - true.value) <= half


_ARITHMETIC = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv}


def _computed(derivation: str) -> Decimal | None:
    """The value of a gold derivation ('(48,881-51,896)/51,896', '$29,816/$48,881'), exactly, or None when it is not
    plain arithmetic on written figures."""
    text = re.sub(r"[$€£¥%\s]|(?<=\d),(?=\d{3})", "", derivation).replace("[", "(").replace("]", ")")

    def value(node: ast.AST) -> Decimal:
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
            return Decimal(str(node.value))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            return -value(node.operand) if isinstance(node.op, ast.USub) else value(node.operand)
        if isinstance(node, ast.BinOp) and type(node.op) in _ARITHMETIC:
            return _ARITHMETIC[type(node.op)](value(node.left), value(node.right))
        raise ValueError(node)

    try:
        return value(ast.parse(text, mode="eval").body)
    except (SyntaxError, ValueError, ArithmeticError, RecursionError):
        return None


def _true_figures(q: dict[str, Any], gold: Figure) -> list[Figure]:
    """The true figure of an answer: the gold one, and for a computed answer also its derivation's own value (the
    gold rounds 8.70 / 30.15 = 0.2886 to '0.28' at times: a '0.29' is then no wrong figure), as a percentage when
    the gold is one, when it agrees with the gold to within 5%."""
    computed = _computed(q.get("derivation") or "") if q["answer_type"] == "arithmetic" else None
    if computed is None:
        return [gold]
    near = min((computed, computed * 100), key=lambda v: abs(v - gold.value))
    if abs(near - gold.value) > abs(gold.value) / 20:
        return [gold]
    return [gold, Figure(near, gold.decimals, gold.scale, gold.currency)]


def items_of(sec: Section, extra_seeds: int = 0, dropped: Counter[str] | None = None,
             variants: int = 0) -> list[Item]:
    """Every report sentence of the section: each numeric answer correct, and each applicable perturbation;
    on a tuning section also `extra_seeds` extra variants of each of EXTRA_KINDS, and `variants` more renderings of
    the whole standard set, each in the next of FORMS with the next wording and restatement (held-out sections keep
    the standard set, so their figures stay comparable). A perturbation whose restatement still holds the true
    figure at the precision it shows ('$19.41 million' for a true 19,411 thousand) is no wrong figure and is left
    out, in the standard set and the extra variants alike, as is one that states a computed answer's own derivation
    (see `_true_figures`); `dropped` counts those left out ('standard', 'extra', 'variant')."""
    tuning = sec.split == "tuning"
    out = []
    for k in range(1 + (variants if tuning else 0)):
        form = FORMS[(FORMS.index(sec.form) + k) % len(FORMS)] if sec.form in FORMS else sec.form
        out += _items_in(sec, extra_seeds if tuning and not k else 0, dropped, k, form)
    return out


def _items_in(sec: Section, extra_seeds: int, dropped: Counter[str] | None, k: int, form: str) -> list[Item]:
    """The sentences of `items_of` for one rendering `k` of the section (0: its own form and wording)."""
    out = []
    for q in sec.questions:
        figures = _figures(sec, q)
        if not figures:
            continue
        np = _noun_phrase(q["question"])
        seed = _hash("q", q["uid"])
        wording, restated = (seed + k) % 5, seed // 7 + k
        variants = [(kind, 0, seed) for kind in KINDS + (APART_KINDS if not k else ())]
        variants += [(kind, n, _hash("q", q["uid"], kind, str(n))) for n in range(1, extra_seeds + 1) for kind in EXTRA_KINDS]
        right = value_text(figures[0][0], restated)
        truths = _true_figures(q, figures[0][0])
        written = {right}
        for kind, n, variant_seed in variants:
            figs = [f for f, _ in figures]
            if kind != "correct":
                changed = perturb(kind, figs[0], sec, q, variant_seed, extra=n > 0)
                if changed is None:
                    continue
                figs = [changed, *figs[1:]]
            texts = [value_text(f, restated) for f in figs]
            apart = kind in APART_KINDS
            if kind != "correct" and (texts[0] == right or (not kind == "unit" and (
                    any(_true_as_shown(texts[0], true) for true in truths) or (apart and _stated(sec, figs[0], kind == "row_operand"))))):
                if dropped is not None:  # no change at the precision the sentence shows, or a figure stated
                    dropped["variant" if k else "extra" if n else "apart" if apart else "standard"] += 1
                continue
            if kind != "correct" and n and texts[0] in written:
                continue  # an extra variant: a wrong figure already written
            if kind != "correct" and not apart:
                written.add(texts[0])
            if np is None:  # a question that is not 'what is/was ...': state the figure after it
                asked = q["question"].strip().rstrip("?").strip()
                sentence = f"In answer to {asked[:1].lower() + asked[1:]}, the figure is {' and '.join(texts)}."
                spans, at = [], 0
                for t in texts:
                    at = sentence.index(t, at)
                    spans.append((at, at + len(t)))
                    at += len(t)
            else:
                sentence, spans = sentence_for(np, texts, wording)
            out.append(Item(section=sec.uid, question=q["uid"], answer_type=q["answer_type"], kind=kind,
                            split=sec.split, form=form, seed=n, variant=k, sentence=sentence, value_spans=spans,
                            answer_from=q.get("answer_from") or "", shape=formula_shape(q.get("derivation") or "")))
    return out


_NUMBER = re.compile(r"[$€£¥]?\d[\d,]*(?:\.\d+)?%?")


def formula_shape(derivation: str) -> str:
    """The shape of a gold derivation, its numbers written N ('(4,411 + 4,044) / 2' -> '(N+N)/N'): what kind of
    arithmetic an answer needs, countable on held-out sections without reading their sentences."""
    return _NUMBER.sub("N", re.sub(r"\s+", "", derivation))


# --------------------------------------------------------------------------------------------------
# the captured run


_APP: Any = None


def _build_app() -> Any:
    @tool
    def get_filing_section(section_id: str, config: RunnableConfig) -> str:
        """Return one section of an annual report: its table and the paragraphs around it."""
        return config["configurable"]["document"]

    def plan(state: MessagesState, config: RunnableConfig) -> dict[str, Any]:
        section = config["configurable"]["section_id"]
        call = {"name": "get_filing_section", "args": {"section_id": section}, "id": "call_section"}
        return {"messages": [AIMessage(content="", tool_calls=[call])]}

    def write(state: MessagesState, config: RunnableConfig) -> dict[str, Any]:
        return {"messages": [AIMessage(content=config["configurable"]["report"])]}

    graph = StateGraph(MessagesState)
    graph.add_node("plan", plan)
    graph.add_node("tools", ToolNode([get_filing_section]))
    graph.add_node("write", write)
    graph.add_edge(START, "plan")
    graph.add_edge("plan", "tools")
    graph.add_edge("tools", "write")
    graph.add_edge("write", END)
    return graph.compile()


def audit_report(section_id: str, document: str, report: str, request: str) -> list[dict[str, Any]]:
    """Capture one run (the user's `request`, a tool returning `document`, the report `report`); the audited
    claims."""
    global _APP
    from pytest_auditfence import Snapshot
    from pytest_auditfence.audit.cascade import audit_cascade_sync

    if _APP is None:
        _APP = _build_app()
    with tempfile.TemporaryDirectory(prefix="auditfence-tatqa-") as tmp:
        snap = Snapshot(Path(tmp) / "trace")
        _APP.invoke({"messages": [("user", request)]},
                    config=snap.config(configurable={"document": document, "report": report,
                                                     "section_id": section_id}))
        snap.set_report(report)
        snap.finalize()
        cascade = audit_cascade_sync(trace_dir=snap.trace_dir, final_document=report)
    return [{"start": c.start, "end": c.end, "verdict": c.verdict.value,
             "hallucination": cascade.policy.is_hallucination(c.verdict), "text": c.claim,
             "notes": c.notes[-2:], "formula": getattr(c, "formula", None)} for c in cascade.claims]


def request_of(sec: Section) -> str:
    """The user's input of the run: the section's questions, as an analyst would be asked them."""
    asked = "\n".join(f"{i}. {q['question'].strip()}" for i, q in enumerate(sec.questions, 1))
    return f"Using the annual-report section {sec.uid}, answer these questions in a short note:\n{asked}"


def run_section(task: tuple[Section, list[Item]]) -> list[Item]:
    """One captured run per kind of report (correct, and each perturbation; each extra variant apart) of one
    section."""
    sec, items = task
    for group in dict.fromkeys((it.variant, it.kind, it.seed, it.report) for it in items):
        mine = [it for it in items if (it.variant, it.kind, it.seed, it.report) == group]
        document = render(sec, mine[0].form)
        report, offsets = "", []
        for it in mine:
            if report:
                report += " "
            offsets.append(len(report))
            report += it.sentence
        try:
            claims = audit_report(sec.uid, document, report, request_of(sec))
        except Exception as exc:  # an engine crash is a finding, reported, never hidden
            claims = [{"start": 0, "end": len(report), "verdict": "error", "hallucination": False,
                       "text": report, "notes": [f"{type(exc).__name__}: {exc}"], "formula": None}]
        for it, at in zip(mine, offsets, strict=True):
            lo, hi = at + it.value_spans[0][0], at + it.value_spans[0][1]
            it.claims = [c for c in claims if c["start"] < hi and lo < c["end"]]
    return items


def dropped_as_shown(sections: list[Section], extra_seeds: int = 0, variants: int = 0) -> dict[str, dict[str, int]]:
    """Per split, how many perturbed sentences `items_of` leaves out because, as written, they still state the true
    figure at their shown precision ('standard' set, 'extra' variants, other renderings: 'variant')."""
    out: dict[str, dict[str, int]] = {}
    for sec in sections:
        counts: Counter[str] = Counter()
        items_of(sec, extra_seeds, counts, variants)
        block = out.setdefault(sec.split, {"standard": 0, "extra": 0, "variant": 0, "apart": 0})
        for key, n in counts.items():
            block[key] += n
    return out


def run_tatqa(sections: list[Section], jobs: int, extra_seeds: int = 0, variants: int = 0) -> list[Item]:
    tasks = [(s, items_of(s, extra_seeds, variants=variants)) for s in sections]
    return run_tasks([t for t in tasks if t[1]], jobs)


def run_tasks(tasks: list[tuple[Section, list[Item]]], jobs: int) -> list[Item]:
    """Each (section, its sentences) through `run_section`, in `jobs` worker processes."""
    from concurrent.futures import ProcessPoolExecutor

    if jobs <= 1:
        return [it for t in tasks for it in run_section(t)]
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        return [it for done in pool.map(run_section, tasks, chunksize=4) for it in done]


# --------------------------------------------------------------------------------------------------
# metrics


def _covered(it: Item) -> bool:
    return bool(it.claims) and all(c["verdict"] in ("verified", "derived") for c in it.claims)


def _flagged(it: Item) -> bool:
    return any(c["hallucination"] for c in it.claims)


def tatqa_metrics(items: list[Item]) -> dict[str, Any]:
    """Per split and answer type: correct answers covered / flagged; perturbed answers flagged / verified. The
    extra variants of `--perturb-seeds` are counted apart ('extra_perturbed'), and so are the other renderings of
    `--tatqa-variants` ('variants'); the standard figures are without either."""
    out: dict[str, Any] = {}
    for split in ("tuning", "held_out", "all"):
        everything = [it for it in items if split == "all" or it.split == split]
        picked = [it for it in everything if not it.seed and not it.variant and it.kind not in APART_KINDS]
        block: dict[str, Any] = _by_type(picked)
        if rendered := [it for it in everything if it.variant]:
            block["variants"] = _by_type(rendered)
            block["variants"]["correct_by_form"] = _correct_by_form(rendered)
            block["variants"]["correct_not_covered_by_shape"] = _by_shape(
                it for it in rendered if it.kind == "correct" and not _covered(it))
            block["variants"]["perturbed_covered_by_shape"] = _by_shape(
                it for it in rendered if it.kind != "correct" and _covered(it))
        by_kind = {}
        for kind in PERTURBATIONS:
            mine = [it for it in picked if it.kind == kind]
            by_kind[kind] = {"n": len(mine), "flagged": _share(sum(map(_flagged, mine)), len(mine)),
                             "verified": _share(sum(map(_covered, mine)), len(mine))}
        block["perturbed_by_kind"] = by_kind
        extra = [it for it in everything if it.seed]
        if extra:
            block["extra_perturbed"] = {
                kind: {"n": len(mine), "flagged": _share(sum(map(_flagged, mine)), len(mine)),
                       "verified": _share(sum(map(_covered, mine)), len(mine))}
                for kind in (*EXTRA_KINDS, "all") if (mine := [it for it in extra if kind in ("all", it.kind)])}
        apart = [it for it in everything if it.kind in APART_KINDS]
        if apart:  # held-out: counts only
            block["wrong_row_unit"] = {
                kind: {"n": len(mine), "flagged": _share(sum(map(_flagged, mine)), len(mine)),
                       "verified": _share(sum(map(_covered, mine)), len(mine)), "passing": sum(map(_covered, mine))}
                for kind in (*APART_KINDS, "all") if (mine := [it for it in apart if kind in ("all", it.kind)])}
        block["correct_by_form"] = _correct_by_form(picked)
        verdicts: Counter[str] = Counter()
        for it in picked:
            if it.kind == "correct":
                verdicts["/".join(sorted({c["verdict"] for c in it.claims})) or "no claim"] += 1
        block["correct_verdicts"] = dict(verdicts.most_common())
        # where the misses are, by the gold answer's source and formula shape (mechanical: no sentence is read)
        block["correct_not_covered_by_shape"] = _by_shape(it for it in picked if it.kind == "correct" and not _covered(it))
        block["perturbed_covered_by_shape"] = _by_shape(it for it in picked if it.kind != "correct" and _covered(it))
        block["sections"] = len({it.section for it in picked})
        block["errors"] = sum(any(c["verdict"] == "error" for c in it.claims) for it in picked)
        out[split] = block
    return out


def _by_type(items: list[Item]) -> dict[str, Any]:
    """Per answer type (and 'all'): correct answers covered / flagged, perturbed answers flagged / verified."""
    block: dict[str, Any] = {}
    for atype in (*ANSWER_TYPES, "all"):
        mine = [it for it in items if atype == "all" or it.answer_type == atype]
        correct = [it for it in mine if it.kind == "correct"]
        perturbed = [it for it in mine if it.kind != "correct"]
        if not correct and not perturbed:
            continue
        block[atype] = outcome_counts(correct, perturbed)
    return block


def outcome_counts(correct: list[Item], perturbed: list[Item]) -> dict[str, Any]:
    """Correct answers covered / flagged and perturbed ones flagged / verified (shares of each count)."""
    return {
        "correct": len(correct),
        "correct_covered": _share(sum(_covered(it) for it in correct), len(correct)),
        "correct_flagged": _share(sum(_flagged(it) for it in correct), len(correct)),
        "perturbed": len(perturbed),
        "perturbed_flagged": _share(sum(_flagged(it) for it in perturbed), len(perturbed)),
        "perturbed_verified": _share(sum(_covered(it) for it in perturbed), len(perturbed)),
    }


def _correct_by_form(items: list[Item]) -> dict[str, dict[str, Any]]:
    out = {}
    for form in FORMS:
        mine = [it for it in items if it.form == form and it.kind == "correct"]
        out[form] = {"n": len(mine), "covered": _share(sum(map(_covered, mine)), len(mine)),
                     "flagged": _share(sum(map(_flagged, mine)), len(mine))}
    return out


def _by_shape(items: Any, top: int = 12) -> dict[str, int]:
    """Counts of items by '<answer source> <formula shape>' ('table (N-N)/N', 'text look-up'), the `top` largest."""
    counts = Counter(f"{it.answer_from or '?'} {it.shape or 'look-up'}" for it in items)
    return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:top])


def _share(hit: int, total: int) -> float:
    return round(hit / total, 4) if total else 0.0


def print_tatqa(metrics: dict[str, Any]) -> None:
    for split in ("tuning", "held_out", "all"):
        block = metrics[split]
        print(f"\n== tatqa {split} ({block['sections']} sections, {block['errors']} sentences in runs that crashed)")
        _print_types(block)
        print("  perturbed by kind: " + ", ".join(
            f"{k} n={v['n']} flagged {v['flagged']:.3f} verified {v['verified']:.3f}"
            for k, v in block["perturbed_by_kind"].items()))
        if "extra_perturbed" in block:
            print("  extra perturbed:   " + ", ".join(
                f"{k} n={v['n']} flagged {v['flagged']:.3f} verified {v['verified']:.3f}"
                for k, v in block["extra_perturbed"].items()))
        if "wrong_row_unit" in block:
            print("  wrong row / unit:  " + ", ".join(
                f"{k} n={v['n']} flagged {v['flagged']:.3f} passing {v['passing']}"
                for k, v in block["wrong_row_unit"].items()))
        print("  correct by form:   " + ", ".join(
            f"{k} n={v['n']} covered {v['covered']:.3f} flagged {v['flagged']:.3f}"
            for k, v in block["correct_by_form"].items()))
        print("  correct verdicts:  " + ", ".join(f"{k} {v}" for k, v in block["correct_verdicts"].items()))
        for key, title in (("correct_not_covered_by_shape", "correct not covered"),
                           ("perturbed_covered_by_shape", "perturbed covered")):
            print(f"  {title}, by source and formula: "
                  + (", ".join(f"{k} {v}" for k, v in block[key].items()) or "none"))
        if "perturbed_dropped_as_shown" in block:
            left_out = block["perturbed_dropped_as_shown"]
            print(f"  perturbed left out, true at their shown precision: standard {left_out['standard']}, "
                  f"extra {left_out['extra']}, other renderings {left_out.get('variant', 0)}, "
                  f"wrong row / unit (or stated elsewhere) {left_out.get('apart', 0)}")
        if "variants" in block:
            other = block["variants"]
            print("  other renderings (--tatqa-variants: other forms and wordings of the same answers):")
            _print_types(other)
            print("    correct by form:   " + ", ".join(
                f"{k} n={v['n']} covered {v['covered']:.3f} flagged {v['flagged']:.3f}"
                for k, v in other["correct_by_form"].items()))
            for key, title in (("correct_not_covered_by_shape", "correct not covered"),
                               ("perturbed_covered_by_shape", "perturbed covered")):
                print(f"    {title}, by source and formula: "
                      + (", ".join(f"{k} {v}" for k, v in other[key].items()) or "none"))


def _print_types(block: dict[str, Any]) -> None:
    print(f"  {'answer type':12s} {'correct':>7s} {'covered':>8s} {'flagged':>8s} {'perturbed':>9s} "
          f"{'p.flagged':>9s} {'p.verified':>10s}")
    for atype in (*ANSWER_TYPES, "all"):
        m = block.get(atype)
        if m:
            print(f"  {atype:12s} {m['correct']:7d} {m['correct_covered']:8.3f} {m['correct_flagged']:8.3f} "
                  f"{m['perturbed']:9d} {m['perturbed_flagged']:9.3f} {m['perturbed_verified']:10.3f}")


def show(items: list[Item], flags: int, verified: int) -> None:
    """Debugging views: flagged correct sentences and perturbed sentences that came out covered."""
    shown = 0
    for it in items:
        if shown < flags and it.kind == "correct" and (_flagged(it) or not _covered(it)):
            shown += 1
            rendering = f" (rendering {it.variant})" if it.variant else ""
            print(f"[correct not covered] {it.section[:8]} {it.form}{rendering} {it.answer_type}: {it.sentence!r}")
            for c in it.claims:
                print(f"    {c['verdict']}: {c['notes']}")
    shown = 0
    for it in items:
        if it.kind in APART_KINDS and it.split != "tuning":
            continue  # held-out wrong-row / unit sentences are counted, never shown
        if shown < verified and it.kind != "correct" and _covered(it):
            shown += 1
            variant = (f" (extra {it.seed})" if it.seed else "") + (f" (rendering {it.variant})" if it.variant else "")
            print(f"[perturbed covered] {it.section[:8]} {it.form} {it.kind}{variant}: {it.sentence!r}")
            for c in it.claims:
                print(f"    {c['verdict']}: {c['notes']} {c.get('formula') or ''}")


def select(sections: list[Section], limit: int | None, split: str) -> list[Section]:
    picked = [s for s in sections if split in ("all", s.split)]
    return picked[:limit] if limit else picked


def main(argv: list[str] | None = None) -> int:
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from run_eval import main as run_eval_main

    return run_eval_main(["--sets", "tatqa", *(argv if argv is not None else sys.argv[1:])])


if __name__ == "__main__":
    raise SystemExit(main())
