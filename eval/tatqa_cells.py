"""TAT-QA tables cell by cell: every picked numeric cell is a true claim ('<row> was <value> in <period>'), and
its other-column, other-row, wrong-scale, digit-swapped and few-percent-off versions are fabrications to flag.

The questions of TAT-QA are few (about 700 per split) and the tuning split's are tuned out; the cells of the same
tables are many. For each section a bounded number of numeric body cells is picked by a hash (spread over rows and
columns), each stated in one of a few wordings with its row label (and its section row where the label repeats),
its column's period as the header dates it, and the table's scale; a row's change between its two latest period
columns and its percentage change are stated too. Gold is strict: a cell whose label repeats without a section to
tell them apart, a column without exactly one period of its own, a cell that is not a plain number, a row whose
unit the table's scale does not fit (by its label, or a section row saying its rows are per share) and a table whose
scale is unknown are skipped (and counted).

The sections are rendered, run and audited by eval/tatqa.py's own code (`render`, `run_section`, the split).
Run through `eval/run_eval.py --sets tatqa-cells` (same `--tatqa-split`, `--jobs`, `--json`, `--tatqa-variants`,
`--show-verified-perturbed`, `--show-uncovered`; the debugging views print tuning sentences only).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from tatqa import (
    FORMS,
    SCALE_WORDS,
    Figure,
    Item,
    Section,
    _capital,
    _covered,
    _decimals,
    _flagged,
    _hash,
    _is_year,
    _neighbours,
    _share,
    _true_as_shown,
    cell_number,
    currency_of,
    fmt,
    outcome_counts,
    perturb,
    run_tasks,
    value_text,
)

CLAIMS = ("lookup", "change", "percent_change")
# the perturbations of each claim kind: a lookup's value from the same row's other period column ('column'), from
# the neighbouring row's same column ('row'), in the wrong scale, two digits swapped, a few percent off; a change with
# one operand from the neighbouring row ('operand') or a few percent off; a percentage change over the later value
# instead of the earlier one ('base') or a few percent off
PERTURBATIONS = {"lookup": ("column", "row", "scale", "swap", "off"), "change": ("operand", "off"),
                 "percent_change": ("base", "off")}
KINDS = ("correct", "column", "row", "scale", "swap", "off", "operand", "base")
CELLS_PER_SECTION = 6
DERIVED_ROWS_PER_SECTION = 2
WRONG_SCALE = {"thousand": "million", "million": "thousand", "billion": "million"}

_YEAR = re.compile(r"(?<!\d)(?:19|20)\d\d(?!\d)")
_MONTH = (r"(?:January|February|March|April|May|June|July|August|September|October|November|December|"
          r"Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)\.?")
_DATE = re.compile(rf"(?i)\b(?:{_MONTH}\s+\d{{1,2}},?\s+(?:19|20)\d\d|\d{{1,2}}\s+{_MONTH}\s+(?:19|20)\d\d)\b")
# what a period header may hold besides its year or date: the words dating it, a footnote mark, and the scale or
# currency of its figures; any other word ('Domestic', 'Change', 'Fair Value', 'Q4') makes it no plain period column
_HEADER_SCALE = re.compile(r"(?i)\(?\s*(?:in\s+)?(?:(?:u\.?s\.?\s*)?(?:dollars|\$|€|£|rmb|us\$)\s*)?(?:in\s+)?"
                           r"(?:thousands?|millions?|billions?|[’']000|m|bn)\s*\)?|\b(?:us\$|rmb|\$|€|£)(?=\W|$)")
_PERIOD_WORDS = {"fiscal", "year", "years", "ended", "ending", "end", "year-end", "as", "of", "at", "for", "the"}
_NOT_AN_AMOUNT = re.compile(
    r"(?i)%|\b(?:per\s+(?:share|unit|employee)|eps|shares?|employees?|headcount|units|customers|stores|days|years|"
    r"months|hours|weeks|ratio|rate|rates|number|percentage|percent|margin|yield|multiple|times|basis points|"
    r"bps|price|average)\b")

# a section row whose rows are amounts per share ('Net Income per Share:', 'Per Common Share Data:'); a section naming
# other words of _NOT_AN_AMOUNT ('Average balances:', 'Number of ...') may head amounts
_PER_SHARE_SECTION = re.compile(r"(?i)\bper\s+(?:common\s+|ordinary\s+)?share\b|\beps\b")


@dataclass(frozen=True)
class Column:
    index: int
    year: str
    phrases: tuple[str, ...]  # how a sentence dates the column: 'in 2019', 'as of December 31, 2019', ...


@dataclass(frozen=True)
class Cell:
    row: int
    column: Column
    label: str  # the row label as a sentence names it (with its section row where the label repeats)
    text: str
    figure: Figure


def period_column(header: str, index: int) -> Column | None:
    """The period a column header dates ('Year Ended December 31, 2019', '2019 €m', 'Fiscal 2018 (in millions)'),
    or None when it names no single year or holds other words."""
    years = set(_YEAR.findall(header))
    if len(years) != 1:
        return None
    year = years.pop()
    date = _DATE.search(header)
    rest = _DATE.sub(" ", header) if date else header
    rest = _YEAR.sub(" ", _HEADER_SCALE.sub(" ", re.sub(r"\(\d\)", " ", rest)))
    words = [w for w in re.findall(r"[A-Za-z][A-Za-z-]*", rest.lower())]
    if any(w not in _PERIOD_WORDS for w in words) or re.search(r"\d", rest):
        return None
    fiscal = "fiscal" in words
    phrases = [f"in fiscal {year}" if fiscal else f"in {year}"]
    if date:
        when = re.sub(r"\s+", " ", date.group(0))
        phrases.append(f"for the year ended {when}" if {"ended", "ending", "end", "year-end"} & set(words)
                       else f"as of {when}")
    return Column(index, year, tuple(phrases))


def period_columns(sec: Section) -> dict[int, Column]:
    """The columns dated by a period of their own: a year no other header names."""
    headers = sec.headers
    columns = {j: c for j, h in enumerate(headers) if j and (c := period_column(h, j))}
    years = Counter(y for h in headers[1:] for y in set(_YEAR.findall(h)))
    return {j: c for j, c in columns.items() if years[c.year] == 1}


def table_scale(sec: Section) -> str | None:
    """The scale of the table's amounts: the caption's, when every question answered from the table agrees with it;
    '' for a table stating no scale anywhere; None when unknown (the questions disagree, or only a header states it)."""
    caption = next((w for w in SCALE_WORDS if w in sec.caption.lower()), "")
    asked = {q["scale"] for q in sec.questions if q.get("answer_from") in ("table", "table-text")
             and q["scale"] in SCALE_WORDS}
    if caption:
        return caption if asked == {caption} else None
    stated = " ".join(c for row in sec.rows for c in row)
    if asked or re.search(r"(?i)thousand|million|billion|[’']000|\b[$€£]?m\b|\bbn\b", stated):
        return None
    return ""


def _label(text: str) -> str:
    """A row label as a sentence names it: without its footnote mark, its '(Note 2)' reference, its trailing colon
    and a reconciliation's 'Add:' / 'Less:'."""
    text = re.sub(r"(?i)\s*\((?:see |refer to )?notes?\b[^)]*\)|\s*\(\d\)", "", text.strip())
    text = re.sub(r"(?i)^(?:add|less|plus|deduct|add/\(less\))\s*:\s*", "", text)
    return re.sub(r"\s+", " ", re.sub(r":\s*$", "", text)).strip()


def _section_rows(sec: Section) -> dict[int, str]:
    """Each body row's section: the nearest label-only row above it ('Current liabilities:'), '' before any."""
    out, current = {}, ""
    for i in range(sec.header_count, len(sec.rows)):
        row = sec.rows[i]
        if row and row[0].strip() and not any(c.strip() for c in row[1:]):
            current = _label(row[0])
        out[i] = current
    return out


def cells_of(sec: Section, skipped: Counter[str] | None = None) -> list[Cell]:
    """Every cell a true claim can be written about, in table order; `skipped` counts the others by reason."""
    skipped = skipped if skipped is not None else Counter()
    columns = period_columns(sec)
    scale = table_scale(sec)
    sections = _section_rows(sec)
    labels = Counter(_label(r[0]).lower() for r in sec.rows[sec.header_count:] if r and _label(r[0]))
    named = Counter((sections[i], _label(r[0]).lower()) for i, r in enumerate(sec.rows)
                    if i >= sec.header_count and r and _label(r[0]))
    # a table stating no scale whose figures the questions read as percentages ('40.0' between '100.0 %' and '7.2 %')
    percentages = scale == "" and any(q["scale"] == "percent" for q in sec.questions
                                      if q.get("answer_from") in ("table", "table-text"))
    out = []
    for i in range(sec.header_count, len(sec.rows)):
        row = sec.rows[i]
        label = _label(row[0]) if row else ""
        for j, text in enumerate(row):
            if not j or not text.strip():
                continue
            value = cell_number(text)
            if value is None or _is_year(value, text) or value == 0:
                skipped["not a plain number"] += 1
                continue
            if j not in columns:
                skipped["no period"] += 1
                continue
            if not re.search(r"[A-Za-z]", label) or _YEAR.search(label) or re.fullmatch(r"(?i)totals?", label):
                skipped["no row label"] += 1  # a bare 'Total' is the total of what the table is about: unnamed
                continue
            key = label.lower()
            if labels[key] > 1:
                if not sections[i] or named[(sections[i], key)] > 1:
                    skipped["repeated label"] += 1
                    continue
                label_text = f"{label} in {sections[i]}"
            else:
                label_text = label
            if "%" in text:
                figure = Figure(value, _decimals(text), "percent", "")
            elif percentages:
                skipped["unit unclear"] += 1
                continue
            elif _NOT_AN_AMOUNT.search(label) or _PER_SHARE_SECTION.search(sections[i]):
                skipped["not an amount"] += 1  # 'Basic' under 'Net Income per Share:' is dollars per share
                continue
            elif scale is None:
                skipped["scale unknown"] += 1
                continue
            else:
                q = {"scale": scale, "question": label}
                figure = Figure(value, _decimals(text), scale, currency_of(sec, q, text, [value]))
            out.append(Cell(i, columns[j], label_text, text, figure))
    return out


def pick(sec: Section, cells: list[Cell], count: int = CELLS_PER_SECTION) -> list[Cell]:
    """`count` cells by a hash of the section and the cell, each next one from the rows and columns used least."""
    order = sorted(cells, key=lambda c: _hash("cell", sec.uid, str(c.row), str(c.column.index)))
    rows: Counter[int] = Counter()
    cols: Counter[int] = Counter()
    out: list[Cell] = []
    for _ in range(min(count, len(order))):
        best = min((c for c in order if c not in out), key=lambda c: (rows[c.row], cols[c.column.index]))
        out.append(best)
        rows[best.row] += 1
        cols[best.column.index] += 1
    return sorted(out, key=lambda c: (c.row, c.column.index))


# --------------------------------------------------------------------------------------------------
# sentences


def lookup_sentence(cell: Cell, value: str, wording: int) -> str:
    phrases = cell.column.phrases
    period = phrases[wording % len(phrases)]
    label = cell.label
    return (f"{_capital(label)} was {value} {period}.",
            f"{_capital(period)}, {label} came to {value}.",
            f"{_capital(label)} amounted to {value} {period}.",
            f"{_capital(label)} totalled {value} {period}.")[wording % 4]


def change_sentence(label: str, value: str, up: bool, years: tuple[str, str], wording: int) -> str:
    early, late = years
    if wording % 2 == 0:
        return f"{_capital(label)} {'rose' if up else 'fell'} by {value} from {early} to {late}."
    return f"From {early} to {late}, {label} {'increased' if up else 'decreased'} by {value}."


def percent_sentence(label: str, value: str, up: bool, years: tuple[str, str], wording: int) -> str:
    early, late = years
    return (f"{_capital(label)} {'rose' if up else 'fell'} {value} from {early} to {late}.",
            f"{_capital(label)} was {'up' if up else 'down'} {value} in {late} compared with {early}.",
            f"Between {early} and {late}, {label} {'grew' if up else 'declined'} by {value}.")[wording % 3]


def _item(sec: Section, claim: str, kind: str, where: str, sentence: str, value: str, form: str,
          variant: int) -> Item:
    at = sentence.index(value)
    return Item(section=sec.uid, question=where, answer_type=claim, kind=kind, split=sec.split, form=form,
                variant=variant, answer_from="table", sentence=sentence, value_spans=[(at, at + len(value))],
                report=claim)


def _lookup_items(sec: Section, cell: Cell, form: str, k: int) -> list[Item]:
    seed = _hash("cell", sec.uid, str(cell.row), str(cell.column.index))
    wording, restated = (seed + k) % 4, seed // 5 + k
    where = f"r{cell.row}c{cell.column.index}"
    true = cell.figure
    right = value_text(true, restated)
    out = [_item(sec, "lookup", "correct", where, lookup_sentence(cell, right, wording), right, form, k)]
    for kind in PERTURBATIONS["lookup"]:
        wrong = _perturbed_lookup(sec, cell, kind, seed)
        if wrong is None:
            continue
        text = value_text(wrong, restated)
        if text == right or _true_as_shown(text, true):
            continue
        out.append(_item(sec, "lookup", kind, where, lookup_sentence(cell, text, wording), text, form, k))
    return out


def _perturbed_lookup(sec: Section, cell: Cell, kind: str, seed: int) -> Figure | None:
    true = cell.figure
    row = sec.rows[cell.row]
    if kind == "column":  # the same row's value in another period column
        for j, c in sorted(period_columns(sec).items(), key=lambda jc: _hash("other", sec.uid, str(seed), str(jc[0]))):
            v = cell_number(row[j]) if j < len(row) else None
            if j != cell.column.index and v is not None and abs(v) != abs(true.value) and ("%" in row[j]) == (
                    true.scale == "percent"):
                return Figure(v, _decimals(row[j]), true.scale, true.currency)
        return None
    if kind == "row":  # the neighbouring row's value in the same column, a figure not in the cell's own row
        own = {abs(v) for c in row[1:] if (v := cell_number(c)) is not None}
        for _, v, text in _neighbours(sec, cell.row, cell.column.index, seed):
            if abs(v) not in own and ("%" in text) == (true.scale == "percent"):
                return Figure(v, _decimals(text), true.scale, true.currency)
        return None
    if kind == "scale":
        if true.scale not in WRONG_SCALE:
            return None
        return Figure(true.value, true.decimals, WRONG_SCALE[true.scale], true.currency)
    return perturb(kind, true, sec, {}, seed)


def _pairs(sec: Section, cells: list[Cell]) -> list[tuple[Cell, Cell]]:
    """Per row, its cells in the two latest period columns (later first), both positive amounts of one unit (a
    negative line item that grew in size 'fell' or 'rose' as one reads it: no sure gold)."""
    by_row: dict[int, list[Cell]] = {}
    for c in cells:
        if c.figure.scale != "percent" and c.figure.value > 0:
            by_row.setdefault(c.row, []).append(c)
    out = []
    for row, mine in by_row.items():
        mine = sorted(mine, key=lambda c: c.column.year, reverse=True)
        if len(mine) >= 2 and mine[0].figure.currency == mine[1].figure.currency:
            out.append((mine[0], mine[1]))
    return sorted(out, key=lambda p: _hash("pair", sec.uid, str(p[0].row)))


def _derived_items(sec: Section, late: Cell, early: Cell, form: str, k: int) -> list[Item]:
    seed = _hash("pair", sec.uid, str(late.row))
    wording, restated = (seed + k) % 6, seed // 7 + k
    a, b = late.figure, early.figure
    years = (early.column.year, late.column.year)
    where = f"r{late.row}c{late.column.index}-c{early.column.index}"
    decimals = max(a.decimals, b.decimals)
    out: list[Item] = []
    diff = a.value - b.value
    if fmt(diff, decimals) != fmt(Decimal(0), decimals):
        true = Figure(abs(diff), decimals, a.scale, a.currency)
        right = value_text(true, restated)
        out.append(_item(sec, "change", "correct", where,
                         change_sentence(late.label, right, diff > 0, years, wording), right, form, k))
        wrongs = {"off": perturb("off", true, sec, {}, seed)}
        for _, v, _text in _neighbours(sec, late.row, late.column.index, seed):
            own = {abs(x) for c in sec.rows[late.row][1:] if (x := cell_number(c)) is not None}
            if abs(v) not in own:
                wrongs["operand"] = Figure(v - b.value, decimals, a.scale, a.currency)
                break
        for kind in PERTURBATIONS["change"]:
            wrong = wrongs.get(kind)
            if wrong is None or wrong.value == 0:
                continue
            shown = Figure(abs(wrong.value), decimals, a.scale, a.currency)
            text = value_text(shown, restated)
            if text == right or _true_as_shown(text, true):
                continue
            out.append(_item(sec, "change", kind, where,
                             change_sentence(late.label, text, wrong.value > 0 if kind == "operand" else diff > 0,
                                             years, wording), text, form, k))
    pct = (diff / b.value * 100).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP)
    if pct != 0:
        true = Figure(abs(pct), 1, "percent", "")
        right = value_text(true, restated)
        out.append(_item(sec, "percent_change", "correct", where,
                         percent_sentence(late.label, right, pct > 0, years, wording), right, form, k))
        base = (diff / a.value * 100).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP)
        wrongs = {"base": Figure(abs(base), 1, "percent", ""), "off": perturb("off", true, sec, {}, seed)}
        for kind in PERTURBATIONS["percent_change"]:
            wrong = wrongs[kind]
            if wrong is None or fmt(wrong.value, 1) == fmt(true.value, 1):
                continue
            text = value_text(wrong, restated)
            out.append(_item(sec, "percent_change", kind, where,
                             percent_sentence(late.label, text, pct > 0, years, wording), text, form, k))
    return out


def items_of(sec: Section, variants: int = 0, skipped: Counter[str] | None = None) -> list[Item]:
    """Every sentence of the section: its picked cells and derived rows, true and perturbed; on a tuning section
    also `variants` more renderings (each in the next of FORMS, with the next wording and restatement)."""
    cells = cells_of(sec, skipped)
    picked = pick(sec, cells)
    pairs = _pairs(sec, cells)[:DERIVED_ROWS_PER_SECTION]
    out = []
    for k in range(1 + (variants if sec.split == "tuning" else 0)):
        form = FORMS[(FORMS.index(sec.form) + k) % len(FORMS)] if sec.form in FORMS else sec.form
        for cell in picked:
            out += _lookup_items(sec, cell, form, k)
        for late, early in pairs:
            out += _derived_items(sec, late, early, form, k)
    return out


def skipped_cells(sections: list[Section]) -> dict[str, dict[str, int]]:
    """Per split, the numeric-looking cells no true claim is written about, by reason, and the cells kept."""
    out: dict[str, dict[str, int]] = {}
    for sec in sections:
        counts: Counter[str] = Counter()
        counts["kept"] += len(cells_of(sec, counts))
        block = out.setdefault(sec.split, {})
        for key, n in counts.items():
            block[key] = block.get(key, 0) + n
    return out


def run_cells(sections: list[Section], jobs: int, variants: int = 0) -> list[Item]:
    """Every section's sentences, each kind of each claim kind in a captured run of its own (eval/tatqa.py's)."""
    return run_tasks([(s, items) for s in sections if (items := items_of(s, variants))], jobs)


# --------------------------------------------------------------------------------------------------
# metrics


def _counts(items: list[Item]) -> dict[str, Any]:
    correct = [it for it in items if it.kind == "correct"]
    perturbed = [it for it in items if it.kind != "correct"]
    return {**outcome_counts(correct, perturbed), "perturbed_passing": sum(map(_covered, perturbed))}


def cells_metrics(items: list[Item]) -> dict[str, Any]:
    """Per split: per claim kind (lookup, change, percent change) true claims covered / flagged and perturbed ones
    flagged / verified; per perturbation kind; per form; the other renderings (`--tatqa-variants`) apart."""
    out: dict[str, Any] = {}
    for split in ("tuning", "held_out", "all"):
        everything = [it for it in items if split == "all" or it.split == split]
        block = _block([it for it in everything if not it.variant])
        if rendered := [it for it in everything if it.variant]:
            block["variants"] = _block(rendered)
        block["sections"] = len({it.section for it in everything})
        block["errors"] = sum(any(c["verdict"] == "error" for c in it.claims) for it in everything)
        out[split] = block
    return out


def _block(items: list[Item]) -> dict[str, Any]:
    block: dict[str, Any] = {"all": _counts(items)}
    for claim in CLAIMS:
        mine = [it for it in items if it.answer_type == claim]
        block[claim] = _counts(mine)
        block[claim]["by_perturbation"] = {
            kind: {"n": len(got), "flagged": _share(sum(map(_flagged, got)), len(got)),
                   "verified": _share(sum(map(_covered, got)), len(got)), "passing": sum(map(_covered, got))}
            for kind in PERTURBATIONS[claim] if (got := [it for it in mine if it.kind == kind])}
    block["by_form"] = {form: _counts([it for it in items if it.form == form]) for form in FORMS}
    verdicts: Counter[str] = Counter()
    for it in items:
        if it.kind == "correct" and not _covered(it):
            verdicts[f"{it.answer_type}: " + ("/".join(sorted({c["verdict"] for c in it.claims})) or "no claim")] += 1
    block["correct_not_covered_verdicts"] = dict(verdicts.most_common())
    return block


def print_cells(metrics: dict[str, Any]) -> None:
    for split in ("tuning", "held_out", "all"):
        block = metrics[split]
        if not block["sections"]:
            continue
        print(f"\n== tatqa-cells {split} ({block['sections']} sections, {block['errors']} sentences in runs that "
              f"crashed)")
        _print_block(block, "  ")
        if "skipped_cells" in block:
            print("  cells kept / skipped: " + ", ".join(f"{k} {v}" for k, v in sorted(block["skipped_cells"].items())))
        if "variants" in block:
            print("  other renderings (--tatqa-variants):")
            _print_block(block["variants"], "    ")


def _print_block(block: dict[str, Any], pad: str) -> None:
    print(f"{pad}{'claim':15s} {'correct':>7s} {'covered':>8s} {'flagged':>8s} {'perturbed':>9s} {'p.flagged':>9s} "
          f"{'p.verified':>10s} {'passing':>7s}")
    for claim in (*CLAIMS, "all"):
        m = block[claim]
        print(f"{pad}{claim:15s} {m['correct']:7d} {m['correct_covered']:8.3f} {m['correct_flagged']:8.3f} "
              f"{m['perturbed']:9d} {m['perturbed_flagged']:9.3f} {m['perturbed_verified']:10.3f} "
              f"{m['perturbed_passing']:7d}")
    for claim in CLAIMS:
        print(f"{pad}{claim} perturbed: " + ", ".join(
            f"{k} n={v['n']} flagged {v['flagged']:.3f} passing {v['passing']}"
            for k, v in block[claim]["by_perturbation"].items()))
    print(f"{pad}by form: " + ", ".join(
        f"{k} n={v['correct']} covered {v['correct_covered']:.3f} flagged {v['correct_flagged']:.3f} "
        f"p.passing {v['perturbed_passing']}" for k, v in block["by_form"].items()))
    print(f"{pad}correct not covered: " + (", ".join(
        f"{k} {v}" for k, v in block["correct_not_covered_verdicts"].items()) or "none"))


def show(items: list[Item], uncovered: int, verified: int) -> None:
    """Debugging views, tuning sections only (held-out sentences are never printed): perturbed sentences that came
    out verified or derived, then true ones not covered."""
    tuning = [it for it in items if it.split == "tuning"]
    for it in [it for it in tuning if it.kind != "correct" and _covered(it)][:verified]:
        print(f"[perturbed covered] {it.section[:8]} {it.form} {it.answer_type} {it.kind} {it.question}"
              f"{f' (rendering {it.variant})' if it.variant else ''}: {it.sentence!r}")
        for c in it.claims:
            print(f"    {c['verdict']}: {c['notes']} {c.get('formula') or ''}")
    for it in [it for it in tuning if it.kind == "correct" and not _covered(it)][:uncovered]:
        print(f"[correct not covered] {it.section[:8]} {it.form} {it.answer_type} {it.question}"
              f"{f' (rendering {it.variant})' if it.variant else ''}: {it.sentence!r}")
        for c in it.claims:
            print(f"    {c['verdict']}: {c['notes']}")
