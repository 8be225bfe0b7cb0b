"""Quantities in text: finding numbers as an analyst reads them and normalising them for comparison.

Owns `parse_quantities`, `quantities_match`, `displayed_value`, `detect_scale_context`, `QuantityScanner`.
"""

from __future__ import annotations

import bisect
import math
import re
from array import array
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import repeat
from operator import itemgetter, methodcaller

from pytest_auditfence.claims import vocabulary
from pytest_auditfence.errors import AuditFenceError
from pytest_auditfence.models import Quantity


class ClaimsInputError(AuditFenceError, TypeError):
    """A claims-layer function was given something other than text."""


def _require_text(value: object, where: str) -> None:
    if not isinstance(value, str):
        raise ClaimsInputError(
            f"{where} needs a str, got {type(value).__name__}; decode bytes first (data.decode('utf-8'))"
            " or pass the text itself"
        )

# --------------------------------------------------------------------------------------------------
# Vocabulary
# --------------------------------------------------------------------------------------------------

_CURRENCY_SYMBOLS = vocabulary.CURRENCY_SYMBOLS
_CURRENCY_CODES = vocabulary.CURRENCY_CODES
_CURRENCY_WORDS = vocabulary.CURRENCY_WORDS
# after a number: every scale spelling but the caption-only "000s"
_SCALE_WORDS: dict[str, float] = {w: v for w, v in vocabulary.SCALES.items() if "000" not in w}
# a scale written in digits ('000 of '$'000'): a number written so is that scale, never a figure 0
_DIGIT_SCALES = frozenset(w for w in vocabulary.SCALES if w.isdigit())

# unit word -> (kind, shown unit, factor to base, system), from the vocabulary's rows
_UNITS: dict[str, tuple[str, str, float, str]] = {
    word: (kind, unit, factor, system) for kind, unit, factor, system, words in vocabulary.UNIT_ROWS for word in words
}
# shown unit -> (kind, factor, system), for the factor of a parsed quantity
_SHOWN_UNITS: dict[tuple[str, str], tuple[float, str]] = {
    (kind, unit): (factor, system) for kind, unit, factor, system, _ in vocabulary.UNIT_ROWS
}
_PHYSICAL = vocabulary.PHYSICAL_SYMBOLS
# symbols whose case tells them apart ('MW' megawatt, 'mW'; 'Mt' megatonne), matched as written
_CASED_SYMBOLS: dict[str, tuple[str, str, float]] = {
    **{sym: ("number", sym, factor) for sym, (_, factor) in _PHYSICAL.items()},
    **{unit: (kind, unit, factor) for kind, unit, factor, _, _ in vocabulary.UNIT_ROWS if unit in ("kt", "Mt", "Gt")},
}
_CASED_UNIT = re.compile(
    r"[ \u00a0\u202f]?(?P<sym>" + "|".join(sorted(map(re.escape, _CASED_SYMBOLS), key=len, reverse=True)) + r")(?![A-Za-z0-9_])"
)
_PHYSICAL_WORD = re.compile(
    r"(?a)[ \u00a0\u202f](?P<word>(?i:" + "|".join(sorted(map(re.escape, vocabulary.PHYSICAL_WORDS), key=len, reverse=True))
    + r"))(?![A-Za-z])"
)
# '$10 per kWh', '$139/kWh', '250 Wh/kg': an amount per a unit of something is a compound unit
_PER_DENOMINATOR = re.compile(
    r"[ \u00a0]?(?:/|per[ \u00a0])[ \u00a0]?(?P<den>"
    + "|".join(sorted(map(re.escape, vocabulary.PER_DENOMINATORS), key=len, reverse=True)) + r")(?![A-Za-z0-9_])"
)


def physical_dimension(unit: str | None) -> str | None:
    """The dimension a physical unit symbol measures ('GW' -> 'power', 'Wh/kg' -> 'energy/kg'), or None."""
    if not unit:
        return None
    top, _, per = unit.partition("/")
    found = _PHYSICAL.get(top)
    if found is None:
        return None
    return found[0] + ("/" + per if per else "")


def unit_of_word(word: str) -> tuple[str, str] | None:
    """(kind, shown unit) a unit word stands for ('hours' -> ('duration', 'h')), or None."""
    found = _UNITS.get(word.lower())
    return (found[0], found[1]) if found else None


# Words that name a unit or a scale, never a subject ("minutes" is shared by every recipe's timings).
UNIT_WORDS: frozenset[str] = frozenset(
    [*_UNITS, *_CURRENCY_WORDS, *_SCALE_WORDS, "degree", "degrees", "deg", "fahrenheit", "celsius", "centigrade",
     "percent", "percentage", "inch", "inches"]
)

_MONTHS = (
    r"(?:January|February|March|April|May|June|July|August|September|October|November|December"
    r"|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept|Sep|Oct|Nov|Dec)\.?"
)
_ORD = r"(?:st|nd|rd|th)?"
# Words that turn the number after them into a label ("passage 3", "Step 2", "Table 4").
# Words that turn the number after them into a label ("passage 3", "Step 2", "Table 4", "Python 3.11").
_LABEL_WORDS = frozenset(
    """passage passages step steps section sections sec sec. chapter chapters ch. part parts page pages
    p. pp. item items figure figures fig fig. figs table tables note notes footnote footnotes appendix
    article articles art. rule rules clause clauses paragraph paragraphs para. line lines question
    questions example examples option options phase phases stage stages exhibit exhibits schedule
    schedules document documents doc docs source sources reference references ref ref. refs no. nos.
    number numbers episode episodes season seasons volume volumes vol. issue issues round rounds tier
    tiers type types level levels category categories grade grades class classes version versions ver.
    release releases build builds python ios android windows macos iphone java ubuntu ipv html http
    tip tips method methods way ways reason reasons""".split()
)
_MONTH_WORDS = frozenset(
    """January February March April May June July August September October November December Jan Feb Mar
    Apr Jun Jul Aug Sep Sept Oct Nov Dec Jan. Feb. Mar. Apr. Jun. Jul. Aug. Sep. Sept. Oct. Nov.
    Dec.""".split()
)
_DIGIT_PARTNER = re.compile(r"[ \t]*(?:-|–|to|or)[ \t]*\d+(?:\.\d+)?")
_LIST_GAP = re.compile(r"\s*(?:,\s*(?:and\s+|or\s+)?|and|or|&|-|–|—|to|through)\s*")
# the words of a decimal written out ('eighty-five point two billion'): its parts are no figures of their own
_SPELLED_POINT = re.compile(r"\bpoint\s+$")
_DATE_GAP = re.compile(r",?\s{1,2}")

# Spans that start at a digit and hold no quantity; tried only where a number starts.
_DIGIT_LED_MASK = re.compile(
    "|".join(
        [
            r"\d{4}-\d{1,2}-\d{1,2}\b",
            r"\d{1,2}[/.]\d{1,2}[/.]\d{2,4}\b",
            rf"\d{{1,2}}{_ORD}(?:\s*[-–]\s*\d{{1,2}}{_ORD})?\s+(?:of\s+)?{_MONTHS}(?:,?\s+\d{{4}})?(?![\w])",
            r"[1-4][QH](?:\s*(?:FY|CY)?\s*'?\d{2,4})?\b",
            r"(?:1[89]|20)\d{2}\s?[-–—/]\s?(?:(?:1[89]|20)\d{2}|\d{2})(?![\d%])",
            r"\d{3}0['’]?s\b",
            r"\d{1,2}:\d{2}(?::\d{2})?(?![ \u00a0]?(?:hours?|hrs?)\b)(?:\s?[AaPp]\.?[Mm]\b\.?)?",
            r"\d{1,2}(?:\s?[-–]\s?\d{1,2})?\s?[AaPp]\.?[Mm]\.?(?![A-Za-z])",
            r"\d{3}\)\s?\d{3}[\s.-]\d{4}\b",
            r"(?:\d{1,3}[\s.-])?\d{3}[.-]\d{3}[.-]\d{4}\b",
            r"\d+\.\d+\.\d+(?:\.\d+)*\b",
            r"\d+\([a-z]\)(?:\(\d+\))?",  # "401(k)", "501(c)(3)": names of plans and rules
        ]
    )
)
_URL_MASK = re.compile(r"https?://[^\s<>()\[\]\"']+|www\.[^\s<>()\[\]\"']+|@[\w-]+\.[\w.-]+")
_CITATION = re.compile(r"\[\^?\d+(?:\s*[,;–-]\s*\d+)*\]")
_ENUM_PREFIX = re.compile(r"[ \t>]*(?:[-*+•][ \t]+)?\(?")
_HEADING_PREFIX = re.compile(r"[ \t]*#{1,6}[ \t]+")
_WORD_BEHIND = re.compile(r"([A-Za-z][A-Za-z.]{0,11})[ \t\u00a0]{0,2}#?[ \t]?$")
_WORD_AHEAD = re.compile(rf"{_ORD}\s+(?:of\s+)?{_MONTHS}(?![\w])")

_CUR_PREFIX = (
    r"(?:US\$|U\.S\.\$|AU\$|CA\$|HK\$|NZ\$|[ACSR]\$|\$|€|£|¥|₹|₩|₽|₺|Rs\.?[ \u00a0]?"
    r"|(?:" + "|".join(_CURRENCY_CODES) + r")[ \u00a0]?)"
)
_SIGNS = "-−–+"
# The lookahead matches nothing either branch would not (both start with a digit); it lets the search skip to the
# next digit before trying the branches, where without it each position of a line's prose tried both (3x faster)

_NUMBER = re.compile(r"(?=\d)(?:\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)")
_PREFIX = re.compile(
    rf"(?P<sign>[{_SIGNS}])?(?P<cur>{_CUR_PREFIX}[ \u00a0]?)?(?P<sign2>[-−–])?(?P<dot>\.)?$"
)
# What a non-empty `_PREFIX` match can end with before its number: a sign or the dot, or a currency symbol or
# code, then at most two spaces (the code's own and the one after it, 'USD  5'). A number after none of
# these has no prefix, and the search (a third of a plain number's reading) is skipped.
_PREFIX_ENDINGS = tuple(sorted({*_CURRENCY_SYMBOLS, *_CURRENCY_CODES}))


def _may_have_prefix(text: str, num_start: int) -> bool:
    """False only where `_PREFIX` can match nothing but the empty string right before `num_start`."""
    last = num_start - 1
    if last < 0:
        return False
    if text[last] in _SIGNS or text[last] in ".\n":
        return True  # ('\n': a non-multiline '$' also matches before a newline that ends the window)
    while last >= num_start - 2 and last >= 0 and text[last] in " \u00a0":
        last -= 1
    return text.endswith(_PREFIX_ENDINGS, 0, last + 1)


_SP = r"[ \u00a0\u202f]?"
_PERCENT = re.compile(
    r"(?a)" + _SP + r"(?:(?P<pp>(?i:percentage[ -]points?|per[ ]?cent(?:age)?[ -]points?|pp|ppts?)\b)"
    r"|(?P<pct>%|(?i:per[ ]?cent(?:age)?|pct)\b)|(?P<bps>(?i:bps|bp|basis[ -]points?)\b))"
)
_RATIO = re.compile(r"(?P<x>x\b|×)|[ \u00a0](?P<times>times\b)")
_TEMPERATURE = re.compile(
    r"(?a)" + _SP + r"(?:[°º˚][ ]?(?P<deg>[FC])\b|(?i:degrees?|deg\.?)[ ]?(?P<deg2>F|C|(?i:fahrenheit|celsius|centigrade))\b"
    r"|(?P<word>(?i:fahrenheit|celsius|centigrade))\b|(?P<bare>[°º˚]))"
)
# '325A°', '350Â°': a degree sign whose UTF-8 bytes were read as Latin-1 (common in scraped web text)
_MOJIBAKE_DEGREE = re.compile(r"[AÂ](?P<bare>[°º˚])")
# '4-6 in. from the heat', '2 in., then': "in." is inches where no sentence starts after it
_INCH_ABBREVIATION = re.compile(r"[ \u00a0]in\.(?=[ \u00a0]+[a-z(]|[,;)]|[ \u00a0]*(?:\n|$))")
# '13:0 hours', '2:30 hrs': hours and minutes of one duration
_CLOCK_DURATION = re.compile(r":(?P<min>\d{1,2})[ \u00a0]?(?:hours?|hrs?)\b"
)
_TEMPERATURE_ATTACHED = re.compile(r"(?P<deg>[FC])\b")
_SCALE = re.compile(
    r"(?a)" + _SP + r"(?P<word>(?i:thousands?|millions?|billions?|trillions?|mn|mln|mm|bn|bln|tn)\b|[kKmMbBtT]\b)"
)
_UNIT_WORD = re.compile(
    r"(?a)(?P<gap>[ \u00a0\u202f]|-)?(?P<word>(?i:"
    + "|".join(sorted((re.escape(w) for w in [*_UNITS, *_CURRENCY_WORDS]), key=len, reverse=True))
    + r"))(?![\w])"
)
_EMPHASIS = re.compile(r"[*_]{1,3}")
_FRACTION = re.compile(r"/(?P<den>\d{1,3})(?![\d/])")
_UNIT_NUMBER_WORDS = vocabulary.NUMBER_WORDS
_DIGIT_VALUES = {**{w: i for w, i in _UNIT_NUMBER_WORDS.items() if i < 10}, "oh": 0}
_TEN_WORDS = {w: 10 * i for i, w in enumerate("_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()) if i >= 2}
# matched on the lower-cased text (same offsets) except where lowering changes the length; the lookahead of the
# words' first letters lets the search skip to where one can start (a scan of a whole source: 2.5x faster)
_NUMBER_WORDS = re.compile(
    "(?=[" + "".join(sorted({w[0] for w in [*_TEN_WORDS, *_UNIT_NUMBER_WORDS]})) + r"])\b(?:(?:" + "|".join(_TEN_WORDS) + r")(?:[- ](?:" + "|".join(list(_UNIT_NUMBER_WORDS)[1:10])
    + r"))?|" + "|".join(sorted(_UNIT_NUMBER_WORDS, key=len, reverse=True)) + r")(?:\s+hundred)?\b"
)

# what follows a whole number written out and makes it another: a decimal's digits ('eighty-five point two') or a
# fraction ('two and a half'); the value a fraction word adds, and the tolerance the figure is shown to
_DIGIT_WORD = r"(?:" + "|".join(_DIGIT_VALUES) + r")(?![-\w])"
_FRACTION_WORDS = {"half": (0.5, 0.05), "third": (1 / 3, 0.05), "quarter": (0.25, 0.005)}
# (the patterns' texts are embedded again, without their groups, in `SPELLED_NUMBER`)
_POINT_DIGITS_TEXT = r"[ \t]+point((?:[ \t]+" + _DIGIT_WORD + r")+)"
_AND_FRACTION_TEXT = r"[ \t]+and[ \t]+an?[ \t]+(" + "|".join(_FRACTION_WORDS) + r")(?![-\w])"
_POINT_DIGITS = re.compile(_POINT_DIGITS_TEXT)
_AND_FRACTION = re.compile(_AND_FRACTION_TEXT)
# a fraction of the scale word after it ('half a million', 'a half million', 'a quarter of a million', 'a third of a
# billion', 'two-fifths of a million'): the scale and any unit are read after it as after a number
_SCALED_FRACTION = re.compile(
    r"\b(?:(?:a[ \t]+)?(?P<half>half)(?:[ \t]+an?)?|(?P<quarter>a[ \t]+quarter)"
    r"|(?P<part>(?:a|one|two|three|four)[ \t\u2010-]+(?:quarters?|thirds?|fifths?))[ \t]+of[ \t]+a)"
    r"(?=[ \t]+(?:thousand|million|billion|trillion)\b)")
# the value of a fraction's parts ('a third', 'two-fifths'), and the tolerance it is shown to (a half: 0.05)
_PARTS = {"half": 2, "third": 3, "quarter": 4, "fifth": 5}
_PART_COUNTS = {"a": 1, "one": 1, "two": 2, "three": 3, "four": 4}


def _fraction_value(words: str) -> tuple[float, float]:
    """(value, tolerance shown) of a fraction written out: 'half' 0.5 (to 0.05), 'a third' 1/3, 'two-fifths' 0.4,
    'three quarters' 0.75 (to 0.005)."""
    parts = re.split(r"[ \t\u2010-]+", words.strip())
    count = _PART_COUNTS.get(parts[0], 1) if len(parts) > 1 else 1
    part = _PARTS[parts[-1].rstrip("s") if parts[-1] != "halves" else "half"]
    return count / part, 0.05 if part == 2 else 0.005


# a fraction of a whole thing named after it ('a third of', 'two-thirds of', 'three-quarters of', 'a fifth of'); not
# 'half of' (prose: 'half of the sauce') nor 'a quarter of' (also a period) but after a verb of a share (below), nor a
# fraction of a scale word ('a third of a million')
_WHOLE_FRACTION = re.compile(
    r"\b(?:(?:a|one)[ \t\u2010-]+(?:third|fifth)|one[ \t\u2010-]+quarter"
    r"|(?:two|three)[ \t\u2010-]+(?:thirds|quarters)|(?:two|three|four)[ \t\u2010-]+fifths)(?=[ \t]+of\b)"
    r"(?![ \t]+of[ \t]+an?[ \t]+(?:thousand|million|billion|trillion)\b)")
# a share of a whole named after a verb of a share or a copula ('made up half of all orders', 'were a quarter of total
# sales', 'accounted for about one-half of revenue'): 'half of' and 'a quarter of' are read only there, as they are
# prose elsewhere ('coat the ribs with half of the sauce', 'a quarter of strong demand'); the fraction is group 'f'
_SHARE_VERB = (r"(?:is|are|was|were|be|been|made[ \t]+up|makes?[ \t]+up|accounted[ \t]+for|accounts?[ \t]+for"
               r"|represented|represents?|comprised|comprises?|constituted|constitutes?|totall?ed|reached)")
_SHARE_FRACTION = re.compile(
    r"\b" + _SHARE_VERB + r"[ \t]+(?:(?:about|roughly|nearly|almost|approximately|around|just|some|over|under"
    r"|(?:more|less)[ \t]+than)[ \t]+)*(?P<f>(?:one[ \t\u2010-]+)?half|a[ \t]+quarter)(?=[ \t]+of\b)"
    r"(?![ \t]+of[ \t]+an?[ \t]+(?:thousand|million|billion|trillion)\b)")
# a decimal with no whole part ('point five percent'), not after a number or a word of one ('one point five')
_LONE_POINT = re.compile(r"(?<![\w.-])(?<!\d )point((?:[ \t]+" + _DIGIT_WORD + r")+)")


def spelled_numbers(lowered: str) -> list[tuple[int, int, float, float]]:
    """(start, end, value, tolerance as shown) of each number `lowered` (a lower-cased text) writes out, in order: a
    whole number ('twenty-five', 'two hundred'), a decimal ('eighty-five point two': 85.2, shown to 0.05; 'point five':
    0.5), a whole number and a fraction ('two and a half': 2.5) and a fraction before a scale word ('half a million':
    0.5 before 'million', 'a third of a million'). The digit words of a decimal are no numbers of their own."""
    fractions = [(m.start(), m.end(), *(
        (0.5, 0.05) if m.group("half") else (0.25, 0.005) if m.group("quarter") else _fraction_value(m.group("part"))))
        for m in _SCALED_FRACTION.finditer(lowered)] if _FRACTION_LEADS.search(lowered) else []
    if "point" in lowered:
        fractions += [(m.start(), m.end(), float("0." + "".join(str(_DIGIT_VALUES[w]) for w in m.group(1).split())),
                       0.5 * 10.0 ** -len(m.group(1).split())) for m in _LONE_POINT.finditer(lowered)
                      if not _NUMBER_BEFORE.search(lowered, max(0, m.start() - 30), m.start())]
    out: list[tuple[int, int, float, float]] = []
    end = -1
    for m in _NUMBER_WORDS.finditer(lowered):
        if m.start() < end or any(a <= m.start() < b for a, b, *_ in fractions):
            continue  # a digit of a decimal read already, or the 'three' of 'three quarters of a million'
        value = _word_value(m.group(0))
        if value is None or _SPELLED_POINT.search(lowered, max(0, m.start() - 12), m.start()):
            continue
        end, tolerance = m.end(), 0.5
        point = _POINT_DIGITS.match(lowered, end)
        fraction = _AND_FRACTION.match(lowered, end) if point is None else None
        if point is not None:
            digits = "".join(str(_DIGIT_VALUES[w]) for w in point.group(1).split())
            value, tolerance, end = value + float("0." + digits), 0.5 * 10.0 ** -len(digits), point.end()
        elif fraction is not None:
            part, tolerance = _FRACTION_WORDS[fraction.group(1)]
            value, end = value + part, fraction.end()
        out.append((m.start(), end, value, tolerance))
    return sorted([*out, *(f for f in fractions if not any(a <= f[0] < b for a, b, *_ in out))])


_FRACTION_LEADS = re.compile(r"half|quarter|third|fifth")


def whole_fractions(lowered: str) -> list[tuple[int, int]]:
    """(start, end) of each fraction of a whole `lowered` (a lower-cased text) states as a share: 'a third of',
    'two-thirds of', 'three-quarters of' anywhere, and 'half of', 'a quarter of' or fifths after a verb of a share
    ('made up half of all orders'), in order; the span is the fraction's words ('half', 'a quarter')."""
    if _FRACTION_LEADS.search(lowered) is None:
        return []
    found = [m.span() for m in _WHOLE_FRACTION.finditer(lowered)]
    found += [m.span("f") for m in _SHARE_FRACTION.finditer(lowered)]
    return sorted(set(found))
# a number or a number word right before a lone 'point' makes it a decimal's ('one point five'; read above)
_NUMBER_BEFORE = re.compile(r"(?:\d|\b(?:" + "|".join([*_TEN_WORDS, *_UNIT_NUMBER_WORDS, "hundred"]) + r"))[ \t]+$")


def whole_fraction_at(text: str, start: int, end: int) -> bool:
    """Is text[start:end] a fraction of a whole that `whole_fractions` reads ('a third' of 'a third of total sales')?"""
    return (start, end) in whole_fractions(text.lower()) if len(text.lower()) == len(text) else False


# a number written out (`spelled_numbers`' whole numbers, decimals and whole numbers with a fraction) as a pattern
# other patterns embed, any case; not a lone 'one' or 'zero' ('rose 12% to one of its best levels'), nor a number
# of things named after it ('two of our plants')
SPELLED_NUMBER = (
    r"(?i:(?!(?:one|zero)\b(?![ \t]+(?:point|and|hundred)\b))" + _NUMBER_WORDS.pattern
    + r"(?:" + _POINT_DIGITS_TEXT.replace("(", "(?:", 1) + "|" + _AND_FRACTION_TEXT.replace("(", "(?:", 1) + r")?"
    r"(?![ \t]+of\b))"
)


def spelled_value(words: str) -> float | None:
    """The value of `words` when they are one number written out, as `SPELLED_NUMBER` matches it, else None."""
    found = spelled_numbers(words.lower())
    return found[0][2] if len(found) == 1 and found[0][:2] == (0, len(words)) else None


def _word_value(words: str) -> float | None:
    parts = re.split(r"[- \t\n]+", words.lower())
    hundred = parts[-1] == "hundred"
    if hundred:
        parts = parts[:-1]
    total = 0
    for part in parts:
        if part in _TEN_WORDS:
            total += _TEN_WORDS[part]
        elif part in _UNIT_NUMBER_WORDS:
            total += _UNIT_NUMBER_WORDS[part]
        else:
            return None
    return float(total * 100 if hundred else total)

_VULGAR_FRACTIONS = {"½": (1, 2), "¼": (1, 4), "¾": (3, 4), "⅓": (1, 3), "⅔": (2, 3), "⅛": (1, 8), "⅜": (3, 8),
                     "⅝": (5, 8), "⅞": (7, 8)}
_LONE_VULGAR = re.compile(r"(?<![\d\w½¼¾⅓⅔⅛⅜⅝⅞])[½¼¾⅓⅔⅛⅜⅝⅞]")
_VULGAR = re.compile(r" ?(?P<f>[½¼¾⅓⅔⅛⅜⅝⅞])")
_MIXED_FRACTION = re.compile(r" (?P<num>\d{1,2})/(?P<den>\d{1,3})(?![\d/])")
# "1 m/s^2", "5 km/h", "2 mg/kg": a unit divided by another is a rate, not the plain unit
_PER_UNIT = re.compile(r"/[A-Za-z]{1,6}(?:\^?[23²³])?(?![\w/])")
_YEAR = re.compile(r"(?:1[89]|20)\d{2}")
_ORDINAL_SUFFIX = re.compile(r"(?:st|nd|rd|th)(?![A-Za-z0-9_])")
_CENTURY = re.compile(r"[ -](?:century|centuries|centennial)\b", re.I)
_ORDINAL_DATE_GAP = re.compile(r"(?:st|nd|rd|th)?\s*(?:,\s*(?:and\s+|or\s+)?|and|or|&|-|–|to|through)\s*")


@dataclass(frozen=True)
class _Suffix:
    end: int
    kind: str = "number"
    unit: str | None = None
    factor: float = 1.0
    offset: float = 0.0
    scale: float | None = None


def _unit_suffix(text: str, pos: int, currency: str | None) -> _Suffix | None:
    """A unit or currency word right after `pos` ("5 km", "24-hour", "5 million dollars", "4.6 GW")."""
    if currency is None:
        m = _CASED_UNIT.match(text, pos)
        if m is not None:
            kind, unit, factor = _CASED_SYMBOLS[m.group("sym")]
            return _Suffix(m.end(), kind, unit, factor)
        m = _PHYSICAL_WORD.match(text, pos)
        if m is not None:
            symbol = vocabulary.PHYSICAL_WORDS.get(m.group("word").lower())
            if symbol is not None:
                return _Suffix(m.end(), "number", symbol, _PHYSICAL[symbol][1])
    m = _UNIT_WORD.match(text, pos)
    if m is None:
        return None
    word = m.group("word")
    key = word.lower()
    if m.group("gap") == "-" and key in _CURRENCY_WORDS:
        return None
    if key not in _CURRENCY_WORDS and key not in _UNITS:
        return None
    if key in _CURRENCY_WORDS:
        code, factor = _CURRENCY_WORDS[key]
        if currency is not None and currency != code:
            return None
        return _Suffix(m.end(), "currency", code, factor)
    if key not in _UNITS:  # the case-insensitive pattern also matches 'ſ' (long s) and 'K' (Kelvin sign)
        return None
    kind, unit, factor, _ = _UNITS[key]
    if currency is not None:
        return None
    # one-letter and ambiguous short units only where they cannot be read otherwise
    if key in ("s", "h", "g") and m.group("gap") is not None:
        return None
    if word in ("S", "H", "G", "M", "MM"):
        return None
    return _Suffix(m.end(), kind, unit, factor)


def _suffix(text: str, pos: int, currency: str | None) -> _Suffix:
    """Everything a number carries after it: percent, ratio, temperature, scale and unit."""
    if pos >= len(text) or _ends_a_number(text[pos]):
        # nothing can follow: no pattern of `_read_suffix` starts at the end of the text or with such a character
        return _Suffix(pos, "currency", currency) if currency is not None else _Suffix(pos)
    return _read_suffix(text, pos, currency)


def _read_suffix(text: str, pos: int, currency: str | None) -> _Suffix:
    m = _PERCENT.match(text, pos)
    if m:
        if m.group("bps"):
            return _Suffix(m.end(), "bps", "bps", 0.01)
        return _Suffix(m.end(), "percent", "pp" if m.group("pp") else "%")
    if currency is None:
        m = _RATIO.match(text, pos)
        if m:
            return _Suffix(m.end(), "ratio", "x")
        m = _TEMPERATURE.match(text, pos) or _TEMPERATURE_ATTACHED.match(text, pos) or _MOJIBAKE_DEGREE.match(text, pos)
        if m:
            groups = m.groupdict()
            if groups.get("bare"):
                return _Suffix(m.end(), "number", "°")
            letter = (groups.get("deg") or groups.get("deg2") or groups.get("word") or "C")[0].upper()
            if letter == "F":
                return _Suffix(m.end(), "temperature", "F", 5.0 / 9.0, -32.0 * 5.0 / 9.0)
            return _Suffix(m.end(), "temperature", "C")
    m = _SCALE.match(text, pos)
    if m:
        word = m.group("word")
        attached = m.start("word") == pos
        accepted = len(word) > 1 or currency is not None or (attached and word in "kKMB")
        if word == "mm" and currency is None:
            accepted = False  # millimetres, not millions, outside money
        if accepted:
            scale = _SCALE_WORDS.get(word.lower(), 1.0)
            after = _unit_suffix(text, m.end(), currency)
            if after is not None and (after.kind in ("currency", "length", "mass") or after.unit in _PHYSICAL):
                return _Suffix(after.end, after.kind, after.unit, after.factor, scale=scale)
            return _Suffix(m.end(), "currency" if currency else "number", currency, scale=scale)
    after = _unit_suffix(text, pos, currency)
    if after is not None:
        return after
    if currency is None and (m := _INCH_ABBREVIATION.match(text, pos)):
        kind, unit, factor, _ = _UNITS["inch"]
        return _Suffix(m.end(), kind, unit, factor)
    if currency is not None:
        return _Suffix(pos, "currency", currency)
    return _Suffix(pos)


# The characters a suffix pattern of `_suffix` can start with are letters and digits, any non-ASCII character
# (°, ×, ¢, and what a case-insensitive match folds to a letter), the spaces before a word, '-' and '%', and
# the first characters of the vocabulary's units and currency words; after any other ('\n', ',', ')', ';')
# a number carries nothing.
_SUFFIX_FIRST = frozenset(" \u00a0\u202f-%") | {
    word[0] for word in (*_CASED_SYMBOLS, *_UNITS, *_CURRENCY_WORDS, *vocabulary.PHYSICAL_WORDS)
}


def _ends_a_number(ch: str) -> bool:
    return ch.isascii() and not ch.isalnum() and ch not in _SUFFIX_FIRST


def _decimals(num: str) -> int:
    return len(num) - num.index(".") - 1 if "." in num else 0


def _currency_code(prefix: str) -> str:
    prefix = prefix.strip().replace("\u00a0", "")
    if prefix in _CURRENCY_SYMBOLS:
        return _CURRENCY_SYMBOLS[prefix]
    return "CNY" if prefix == "RMB" else prefix


_PART_AFTER = re.compile(r"(?i)[ \t-]+(?:quarter|half)\b")
_PAREN_PERCENT = re.compile(r"[ \t]?%")
_TABLE_NEGATIVE_BEFORE = re.compile(r"(?:^|[|\t=:]|  )[ \t]*$")
# the parenthesis closing a negative, a space or two before it as page extraction leaves one ('(35,029 )')
_PAREN_CLOSE = re.compile(r"[ \t]{0,2}\)")
# a currency sign right before the parenthesis, or a space between ('$(5,860)', '$ (3,781)')
_CURRENCY_BEFORE = re.compile(r"[$€£¥][ \t]?$")


def _paren_negative(text: str, start: int, end: int) -> int | None:
    """Where "(1,234)" ends, the negative accountants write in a table cell, after a colon, at a line start or after a
    currency sign (also "(35,029 )", "$ (3,781)"); None where the figure at [start, end) is no such negative."""
    close = _PAREN_CLOSE.match(text, end) if start > 0 and text[start - 1] == "(" else None
    if close is None:
        return None
    line_start = text.rfind("\n", 0, start - 1) + 1
    if _TABLE_NEGATIVE_BEFORE.search(text, line_start, start - 1) is not None \
            or _CURRENCY_BEFORE.search(text, max(line_start, start - 3), start - 1) is not None:
        return close.end()
    return None


def _may_hold_url(text: str) -> bool:
    """Every form `_URL_MASK` reads holds '://', 'www.' or '@'."""
    return "://" in text or "www." in text or "@" in text


class _Parser:
    """One pass over a text: mask spans, candidate numbers, suffixes, ranges."""

    def __init__(
        self, text: str, scale_context: float | None, unit_context: str | None, offset: int, years: bool = True,
        words: bool = False, cell: bool = False,
    ):
        self.text = text
        self.cell = cell
        self.years = years
        self.words = words
        self.scale_context = scale_context
        self.unit_context = unit_context
        self.offset = offset

    def run(self) -> list[Quantity]:
        text = self.text
        # most texts hold no '://', 'www.' or '@' and skip the mask's search
        urls = [(m.start(), m.end()) for m in _URL_MASK.finditer(text)] if _may_hold_url(text) else []
        url_starts = [s for s, _ in urls]
        out: list[Quantity] = []
        self.prev_end = -10  # end of the previous number-like token, kept or skipped
        self.label_end = -10  # end of the last label number ("passages 1, 2 and 3")
        self.date_end = -10  # end of the last date part ("March 5, 2024")
        prev_q: Quantity | None = None
        pos = 0
        while True:
            m = _NUMBER.search(text, pos)
            if m is None:
                break
            num_start, num_end = m.span()
            pos = num_end
            i = bisect.bisect_right(url_starts, num_start) - 1
            if i >= 0 and urls[i][1] > num_start:
                pos = max(pos, urls[i][1])
                continue
            q, token_end = self._one(num_start, num_end)
            pos = max(pos, token_end)
            if q is None:
                continue
            chained = self.in_range
            if not chained and prev_q is not None:
                chained = _between_and(text, prev_q, q, self.offset)
            if chained and prev_q is not None:
                prev_q, q = self._range(prev_q, q)
                out[-1] = prev_q
            out.append(q)
            prev_q = q
        lone = self._lone_fractions()
        if lone:
            out = sorted([*out, *lone], key=lambda x: x.start)
        if self.words:
            spelled = self._spelled()
            if spelled:
                out = sorted([*out, *spelled], key=lambda x: x.start)
        return self._distribute(out)

    def _lone_fractions(self) -> list[Quantity]:
        """A fraction character with no whole number before it that carries a unit: '¼-inch', '½ cup'
        (with a whole number, '1 ¼ cups' is read with its number)."""
        text = self.text
        out: list[Quantity] = []
        if text.isascii():
            return out  # the fraction characters are not ASCII
        for m in _LONE_VULGAR.finditer(text):
            numerator, den = _VULGAR_FRACTIONS[m.group()]
            suffix = _suffix(text, m.end(), None)
            if suffix.end == m.end() or suffix.kind not in ("length", "mass", "duration", "number") or suffix.unit is None:
                continue
            value = numerator / den * suffix.factor + suffix.offset
            out.append(Quantity.model_construct(
                text=text[m.start():suffix.end], start=m.start() + self.offset, end=suffix.end + self.offset,
                value=value, kind=suffix.kind, unit=suffix.unit, scale=1.0, tolerance=0.005 * abs(value),
                negative=False,
            ))
        return out

    def _spelled(self) -> list[Quantity]:
        """Numbers written as words that carry a unit, percent or scale ("six hours", "two to three days",
        "five percent", "two million"); a bare "one" or "two" is prose, not a quantity."""
        text = self.text
        found: list[tuple[int, int, float, float, _Suffix | None]] = []
        lowered = text.lower()
        if len(lowered) != len(text):
            lowered = text  # a few characters change length when lowered: read only lower-case words there
        for start, end, value, shown in spelled_numbers(lowered):
            suffix = _suffix(text, end, None)
            found.append((start, end, value, shown, suffix if suffix.end > end else None))
        out: list[Quantity] = []
        for i, (start, end, value, shown, suffix) in enumerate(found):
            if suffix is None and i + 1 < len(found) and found[i + 1][4] is not None:
                if _LIST_GAP.fullmatch(text, end, found[i + 1][0]):
                    suffix = found[i + 1][4]
                    suffix = _Suffix(end, suffix.kind, suffix.unit, suffix.factor, suffix.offset, suffix.scale)
            if suffix is None:
                # a range whose other end is written in digits: 'five to 10 minutes'
                partner = _DIGIT_PARTNER.match(text, end)
                if partner is not None:
                    later = _suffix(text, partner.end(), None)
                    if later.end > partner.end():
                        suffix = _Suffix(end, later.kind, later.unit, later.factor, later.offset, later.scale)
            if suffix is None or suffix.kind == "number" and suffix.scale is None:
                continue
            if suffix.kind == "currency" and suffix.scale is None and suffix.unit is None:
                continue
            scale = suffix.scale if suffix.scale is not None else 1.0
            factor = suffix.factor * (0.01 if suffix.kind == "bps" and suffix.factor == 1.0 else 1.0)
            kind = suffix.kind
            unit = suffix.unit if kind != "currency" else (suffix.unit or "USD")
            q = Quantity.model_construct(
                text=text[start:suffix.end], start=start + self.offset, end=suffix.end + self.offset,
                value=value * scale * factor + suffix.offset, kind=kind, unit=unit, scale=scale,
                tolerance=shown * scale * abs(factor), negative=False,
            )
            out.append(q)
        for start, end in whole_fractions(lowered):
            # a fraction of a whole ('two-thirds of revenue') is its share in percent, to the whole percent
            out.append(Quantity.model_construct(
                text=text[start:end], start=start + self.offset, end=end + self.offset,
                value=100.0 * _fraction_value(lowered[start:end])[0], kind="percent", unit="%", scale=1.0, tolerance=0.5,
                negative=False,
            ))
        return sorted(out, key=lambda x: x.start)

    def _distribute(self, out: list[Quantity]) -> list[Quantity]:
        """"6, 12 or 18 months", "10, 20 and 30%": bare numbers of a list take the unit of its last item."""
        for i in range(len(out) - 2, -1, -1):
            first, second = out[i], out[i + 1]
            if first.kind != "number" or first.unit is not None or second.kind == "currency":
                continue
            if second.kind == "number" and not _named_unit(second):
                continue
            gap = self.text[first.end - self.offset:second.start - self.offset]
            if gap and _LIST_GAP.fullmatch(gap):
                out[i], _ = self._range(first, second)
        return out

    def _skip(self, end: int) -> tuple[None, int]:
        self.prev_end = max(self.prev_end, end)
        return None, end

    def _structural(self, num_start: int, num_end: int) -> int | None:
        """End of a date, time, phone number, version, citation or enumerator starting here, if any."""
        text = self.text
        mm = _DIGIT_LED_MASK.match(text, num_start)
        if mm is not None:
            return mm.end()
        if num_start > 0 and text[num_start - 1] == "[":
            cm = _CITATION.match(text, num_start - 1)
            if cm is not None:
                return cm.end()
        lb = text.rfind("[", max(0, num_start - 16), num_start)
        if lb >= 0:
            cm = _CITATION.match(text, lb)
            if cm is not None and cm.end() >= num_end:
                return cm.end()
        if self.cell:
            return None  # a table cell holding one figure: '(23)' is a negative, no enumerator '(1)'
        line_start = text.rfind("\n", 0, num_start) + 1
        nxt = text[num_end:num_end + 2]
        if _ENUM_PREFIX.fullmatch(text, line_start, num_start) and num_end - num_start <= 3:
            if nxt[:1] in (".", ")") and (len(nxt) < 2 or nxt[1] in " \t\n"):
                return num_end + 1  # "1. Revenue", "2) Margin"
        if _HEADING_PREFIX.fullmatch(text, line_start, num_start) and (nxt[:1] in " .\t" or not nxt):
            return num_end  # "## 2.1 Revenue"
        if (
            num_start > 0 and text[num_start - 1] == "(" and num_end - num_start <= 2 and nxt[:1] == ")"
            and re.match(r"\)[ \t]+[A-Za-z]", text[num_end:num_end + 3])
        ):
            return num_end + 1  # "(1) first, (2) second"
        return None

    def _one(self, num_start: int, num_end: int) -> tuple[Quantity | None, int]:
        text = self.text
        self.in_range = False
        structural = self._structural(num_start, num_end)
        if structural is not None:
            return self._skip(structural)
        pm = _PREFIX.search(text, max(0, num_start - 10), num_start) if _may_have_prefix(text, num_start) else None
        sign = pm.group("sign") if pm else None
        cur = pm.group("cur") if pm else None
        start = pm.start() if pm and pm.start() < num_start else num_start
        if pm is not None and pm.group("dot"):
            if start == num_start - 1 and num_start >= 2 and text[num_start - 2].isalnum():
                return self._skip(num_end)  # "v.5", "end.5"
            if "." in text[num_start:num_end]:
                return self._skip(num_end)  # ".0.0": a version-like tail, not a decimal
            num_start -= 1
        num = text[num_start:num_end]
        if num in _DIGIT_SCALES:
            return self._skip(num_end + (text[num_end:num_end + 1] == "s"))  # "US$'000", "in '000s": a scale
        prev_end = self.prev_end
        gap_before = text[prev_end:start] if 0 <= prev_end <= start else None
        in_range = (
            gap_before is not None
            and len(gap_before) <= 9
            and (gap_before.strip() == "" or _RANGE_WORD.fullmatch(gap_before.strip().lower()) is not None)
        )
        negative = False
        if sign is not None:
            if in_range and sign in "-–—":
                # "2020-2021", "10-15%": a range, never a negative
                start = pm.start("cur") if cur else num_start
                sign = None
            elif sign == "+":
                pass
            elif start > 0 and (text[start - 1].isalnum() or text[start - 1] == "_"):
                return self._skip(num_end)  # "COVID-19", "S-1": part of a name
            else:
                negative = True
        if pm is not None and pm.group("sign2"):
            negative = True
        # A letter, digit or mark glued to the front makes it part of a name or code ("FY2024", "A1", "#3").
        before = text[start - 1] if start > 0 else ""
        dimension = before in "x×" and start >= 2 and text[start - 2].isdigit()  # the 8 of "6x8"
        if before and (before.isalnum() or before in "_.@/\\#=&'’") and not dimension:
            if not (before in "'’" and num_end - num_start != 2):
                return self._skip(num_end)
        if cur is not None and cur[:1].isalpha() and before.isalpha():
            return self._skip(num_end)
        clock = _CLOCK_DURATION.match(text, num_end) if cur is None and "," not in num and "." not in num else None
        if clock is not None and int(clock.group("min")) < 60:
            value = (int(num) + int(clock.group("min")) / 60.0) * 3600.0
            self.prev_end = clock.end()
            q = Quantity.model_construct(
                text=text[start:clock.end()], start=start + self.offset, end=clock.end() + self.offset, value=value,
                kind="duration", unit="h", scale=1.0, tolerance=30.0, negative=False,
            )
            return q, clock.end()
        if num_end < len(text) and text[num_end] in ".,:" and num_end + 1 < len(text) and text[num_end + 1].isdigit():
            return self._skip(num_end + 2)  # "1,23", "8:2": not a plain number
        if len(num) - num.count(",") - num.count(".") > 18:
            return self._skip(num_end)  # ids and hashes, not amounts
        # "passage 3", "Step 2", "No. 3", "March 5", "5 March": labels and dates
        word = _WORD_BEHIND.search(text, max(0, start - 16), start) if cur is None and sign is None else None
        label = word is not None and word.group(1).lower() in _LABEL_WORDS
        chained_label = 0 <= self.label_end <= start and _LIST_GAP.fullmatch(text, self.label_end, start)
        if word is not None and word.group(1) in _MONTH_WORDS and "." not in num and "," not in num:
            self.date_end = num_end
            ordinal_end = _ORDINAL_SUFFIX.match(text, num_end)
            if ordinal_end is not None:
                self.date_end = ordinal_end.end()
                return self._skip(ordinal_end.end())
            return self._skip(num_end)
        if 0 <= self.date_end <= start and _DATE_GAP.fullmatch(text, self.date_end, start) and _YEAR.fullmatch(num):
            return self._skip(num_end)  # the year of "March 5, 2024"
        if "," not in num and "." not in num and _WORD_AHEAD.match(text, num_end):
            return self._skip(num_end)  # "5th of March"
        currency = _currency_code(cur) if cur else None
        ordinal = _ORDINAL_SUFFIX.match(text, num_end) if cur is None and "." not in num else None
        if ordinal is not None and (_CENTURY.match(text, ordinal.end()) or 0 <= self.date_end <= start
                                    and _ORDINAL_DATE_GAP.fullmatch(text, self.date_end, start)):
            return self._skip(ordinal.end())  # 'the 20th century', the 25th of 'April 24th and 25th'
        if ordinal is not None:
            # 'the 65th consecutive year', 'ranked 12th': a count written as a rank is read as its number
            self.prev_end = ordinal.end()
            q = Quantity.model_construct(
                text=text[start:ordinal.end()], start=start + self.offset, end=ordinal.end() + self.offset,
                value=-float(num.replace(",", "")) if negative else float(num.replace(",", "")), kind="number",
                unit=None, scale=1.0, tolerance=0.0, negative=negative,
            )
            return q, ordinal.end()

        value_num = float(num.replace(",", ""))
        decimals = _decimals(num)
        den = None
        fm = _FRACTION.match(text, num_end) if currency is None and "," not in num and "." not in num else None
        if fm is not None and int(fm.group("den")) > 0:
            den = int(fm.group("den"))
            value_num = value_num / den
            num_end = fm.end()
        elif currency is None and "," not in num and "." not in num and (vm := _VULGAR.match(text, num_end)):
            # "59½", "1 ¼ cups": a whole number and a fraction character are one amount
            den = _VULGAR_FRACTIONS[vm.group("f")][1]
            value_num += _VULGAR_FRACTIONS[vm.group("f")][0] / den
            num_end = vm.end()
        elif currency is None and "," not in num and "." not in num:
            mixed = _MIXED_FRACTION.match(text, num_end)
            if mixed is not None and 0 < int(mixed.group("num")) < int(mixed.group("den")):
                # "1 1/2 hours": a whole number and a fraction are one amount
                den = int(mixed.group("den"))
                value_num += int(mixed.group("num")) / den
                num_end = mixed.end()
        suffix = _suffix(text, num_end, currency)
        em = _EMPHASIS.match(text, num_end)
        if suffix.end == num_end and em is not None:
            # "**$5.2** billion": markdown emphasis closes between the number and its scale
            behind = _suffix(text, em.end(), currency)
            if behind.end > em.end() and (behind.kind != "currency" or behind.scale is not None or currency is None):
                suffix = behind
        end = suffix.end
        if suffix.kind == "currency" or suffix.unit in _PHYSICAL:
            per = _PER_DENOMINATOR.match(text, end)
            if per is not None:
                suffix = _Suffix(per.end(), suffix.kind, f"{suffix.unit or currency or 'USD'}/{per.group('den')}",
                                 suffix.factor, scale=suffix.scale)
                end = suffix.end
        elif suffix.kind in ("length", "mass", "duration"):
            per = _PER_UNIT.match(text, end)
            if per is not None:
                unit_text = text[num_end:per.end()].strip().lower()
                suffix = _Suffix(per.end(), "number", unit_text, scale=suffix.scale)
                end = suffix.end
        if (label or chained_label) and suffix.kind not in ("percent", "bps"):
            self.label_end = end
            return self._skip(end)
        after = text[end] if end < len(text) else ""
        if after in ("x", "×") and text[end + 1:end + 2].isdigit() and suffix.kind == "number":
            after = ""  # "6x8": a dimension, two numbers
        if after and (after.isalnum() or after in "_@"):
            return self._skip(end)  # "5G", "3D", "MP3"
        if after == "-" and end + 1 < len(text) and text[end + 1].isupper() and suffix.kind == "number":
            return self._skip(end)  # "10-K", "20-F", "7-Zip"; "45-degree" stays a number
        kind, unit, scale = suffix.kind, suffix.unit, suffix.scale
        if (kind == "duration" and currency is None and not negative and _YEAR.fullmatch(num) and self.years
                and (re.fullmatch(r"\s*year", text[num_end:end], re.I)
                     or re.fullmatch(r"\s*second", text[num_end:end], re.I) and _PART_AFTER.match(text, end))):
            # '2019 year end', 'fiscal 2019 second quarter': a year before the word 'year' or a quarter's ordinal, not
            # 2,019 years or seconds
            return self._skip(num_end)
        if (
            kind == "number" and unit is None and scale is None and den is None and currency is None
            and not negative and "," not in num and "." not in num and _YEAR.fullmatch(num) and self.years
        ):
            return self._skip(end)  # a year
        # a bare figure in parentheses is a negative, whatever unit its column gives it ('(2.3)' under '(%)')
        closed = _paren_negative(text, start, end) if kind in ("number", "currency") else None
        # '(12)%': a negative percentage whose '%' stands after the parenthesis, not an amount at the table's scale
        paren_percent = _PAREN_PERCENT.match(text, closed) if closed is not None and kind == "number" and unit is None \
            and currency is None else None
        if paren_percent is not None:
            kind, unit = "percent", "%"
        if scale is None and kind in ("number", "currency") and unit != "°" and self.scale_context:
            scale = self.scale_context
        if kind == "number" and unit is None and self.unit_context:
            kind, unit = self._context_kind()
        if closed is not None:
            negative = True
            start -= 1
            end = paren_percent.end() if paren_percent is not None else closed
        if kind == "currency" and unit is None:
            unit = "USD"
        scale_value = scale if scale is not None else 1.0
        factor = suffix.factor * (0.01 if kind == "bps" and suffix.factor == 1.0 else 1.0)
        if suffix.unit is None and unit in _PHYSICAL:
            factor *= _PHYSICAL[unit][1]  # a bare cell under a 'GW' header
        value = value_num * scale_value * factor
        if negative:
            value = -value
        value += suffix.offset
        tolerance = 0.005 * abs(value) if den else 0.5 * 10.0 ** (-decimals) * scale_value * abs(factor)
        if not math.isfinite(value) or not math.isfinite(tolerance):
            return self._skip(end)
        self.prev_end = end
        self.in_range = in_range
        q = Quantity.model_construct(
            text=text[start:end], start=start + self.offset, end=end + self.offset, value=value,
            kind=kind, unit=unit, scale=scale_value, tolerance=tolerance, negative=negative,
        )
        return q, end

    def _context_kind(self) -> tuple[str, str | None]:
        ctx = self.unit_context
        if ctx in ("%", "pp"):
            return "percent", ctx
        if ctx == "bps":
            return "bps", "bps"
        if ctx == "x":
            return "ratio", "x"
        if ctx in _CURRENCY_CODES or ctx in _CURRENCY_SYMBOLS.values():
            return "currency", ctx
        if ctx and ctx.lower() in _UNITS:
            return _UNITS[ctx.lower()][0], _UNITS[ctx.lower()][1]
        if ctx in _PHYSICAL:
            return "number", ctx
        return "number", None

    def _range(self, first: Quantity, second: Quantity) -> tuple[Quantity, Quantity]:
        """"10-15%", "$1.2-1.5 billion", "3 to 4 minutes": the bare end takes the other's unit."""
        if first.kind == "number" and first.unit is None and (second.kind != "number" or _named_unit(second)):
            base = abs(first.value) / (first.scale or 1.0)
            factor = second.scale * _unit_factor(second)
            value = base * factor + _unit_offset(second)
            value = -value if first.negative else value
            tol = first.tolerance / (first.scale or 1.0) * factor
            first = first.model_copy(
                update={"kind": second.kind, "unit": second.unit, "scale": second.scale, "value": value, "tolerance": tol}
            )
        elif first.kind == "currency" and second.kind == "number" and second.unit is None:
            second = second.model_copy(update={"kind": "currency", "unit": first.unit})
        if first.kind == "currency" and second.kind == "currency" and first.scale == 1.0 and second.scale != 1.0:
            if first.text.strip("$€£¥()-−– ").replace(",", "").replace(".", "").isdigit():
                first = first.model_copy(
                    update={"scale": second.scale, "value": first.value * second.scale,
                            "tolerance": first.tolerance * second.scale}
                )
        return first, second


# -- formulas written out in a claim -----------------------------------------------------------------------

# What stands between two numbers of a written formula: operators and parentheses ('(1,234 - 1,102) / 1,102',
# '$50,000 x 4% = $2,000'); a lone '-' or 'to' between two numbers is a range, never a formula by itself.
_FORMULA_GAP = re.compile(r"[ \t\u00a0]*\)*[ \t\u00a0]*(?:[-+−–×x*/÷=]|times|multiplied by|divided by)[ \t\u00a0]*\(*[ \t\u00a0]*")
_RANGE_GAP = re.compile(r"[ \t\u00a0]*[-−–][ \t\u00a0]*")
# what stands between the two ends of a range: '10 to 15', '10-15', '6-to-12' (the sign of the second end
# is the hyphen of 'to')
_RANGE_WORD = re.compile(r"to|through|[-–—]|[-–—]?to")
_SCALING_GAP = re.compile(r"[ \t\u00a0]*\)*[ \t\u00a0]*(?:[×x*/÷]|times|multiplied by|divided by)[ \t\u00a0]*")
# The constants of a formula: x 100 to a percentage, / 1,000 to the next scale.
FORMULA_CONSTANTS = frozenset({100.0, 1000.0, 1_000_000.0})


def formula_operands(text: str, found: list[Quantity], offset: int = 0) -> list[int]:
    """Positions in `found` (the quantities of `text`, in order) of the operands of formulas written out in
    it: numbers joined by operators, where the formula holds a parenthesis, '=', or an operator other than
    the '-' of a range ('(1,234 - 1,102) / 1,102 x 100'; not '10-15%')."""
    chosen: set[int] = set()
    chain: list[int] = []
    formula = False

    def close() -> None:
        if formula and len(chain) >= 2:
            chosen.update(chain)

    for i, q in enumerate(found):
        if chain:
            prev = found[chain[-1]]
            gap = text[prev.end - offset:q.start - offset]
            if _FORMULA_GAP.fullmatch(gap):
                chain.append(i)
                formula = formula or not _RANGE_GAP.fullmatch(gap)
                continue
            close()
        chain, formula = [i], False
        before = text[max(0, q.start - offset - 2):q.start - offset]
        formula = "(" in before
    close()
    return sorted(chosen)


def formula_constants(text: str, found: list[Quantity], offset: int = 0) -> list[int]:
    """Positions in `found` of the constants of written formulas: a 100 or 1,000 that multiplies or divides
    ('/ 1,102 x 100', '÷ 1,000'). They are part of the arithmetic, not figures to find in a source."""
    operands = formula_operands(text, found, offset)
    out = []
    for i in operands:
        q = found[i]
        if i == 0 or q.unit not in (None, "%") or q.scale != 1.0 or q.value not in FORMULA_CONSTANTS:
            continue
        if q.kind not in ("number", "percent") or "." in q.text:
            continue
        prev = found[i - 1]
        if i - 1 in operands and _SCALING_GAP.fullmatch(text[prev.end - offset:q.start - offset]):
            out.append(i)
    return out


# -- periods a text names ----------------------------------------------------------------------------------

_QUARTER_ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6}
# 'Q3', '3Q', 'Q3 2021', '3Q21', "Q4'21", 'third quarter', 'fourth-quarter'; 'FY21', 'fiscal 2021'; a year
# '2021' standing alone (not part of an amount: '$2,021', '2021.5', '2021%'). A quarter past the fourth is read
# too: 'the fifth quarter' is a period no source names.
_PERIOD_MENTION = re.compile(
    r"(?i)(?<!\()\b(?:Q(?P<q>[1-9])|(?P<q2>[1-9])Q)(?:[ ]?'?(?P<qy>\d{2}|(?:19|20)\d{2}))?\b"
    r"|\b(?P<ord>first|second|third|fourth|fifth|sixth)[ -]quarter\b"
    r"|\b(?:FY|fiscal(?:[ ]year)?)[ ]?'?(?P<fy>\d{2})\b"
    r"|(?<![\d,.$€£¥])\b(?P<y>(?:19|20)\d{2})\b(?![,.]\d|%|[ ]?(?:percent|million|billion|thousand)\b)"
)


# A question's number at the start of a line ('Q3: Can you ...?', 'Q2. What ...?'): a label, not a quarter
_QUESTION_LABEL = re.compile(r"(?m)^[ \t>*#-]*(?P<label>Q\d{1,2})[ \t]*[:.)][*_]*[ \t]+(?=[^\n]*\?)")


def period_mentions(text: str) -> list[tuple[int, int, str]]:
    """(start, end, key) of every period `text` names: 'Q1'...'Q4' (and beyond) for quarters however written,
    '2021' for years (a two-digit fiscal year 'FY21' as '2021'); a quarter with its year gives both keys."""
    _require_text(text, "period_mentions(text=...)")
    out: list[tuple[int, int, str]] = []
    labels = {m.start("label") for m in _QUESTION_LABEL.finditer(text)}
    for m in _PERIOD_MENTION.finditer(text):
        if m.start() in labels:
            continue  # 'Q3: Can you ...?' numbers a question, it names no quarter
        quarter = m.group("q") or m.group("q2")
        if m.group("ord"):
            quarter = str(_QUARTER_ORDINALS[m.group("ord").lower()])
        if quarter:
            out.append((m.start(), m.end(), f"Q{quarter}"))
        year = m.group("qy") or m.group("fy") or m.group("y")
        if year:
            out.append((m.start(), m.end(), year if len(year) == 4 else f"20{year}"))
    return out


def _named_unit(q: Quantity) -> bool:
    """A plain number with a unit of its own ('50 psi', '6 mph', '3 mg/kg'), not a bare or degree figure."""
    return q.kind == "number" and q.unit not in (None, "°", "x")


_BETWEEN = re.compile(r"(?ai)\bbetween\s+$")


def _between_and(text: str, first: Quantity, second: Quantity, offset: int) -> bool:
    """"between 10 and 15%" is a range too."""
    gap = text[first.end - offset:second.start - offset]
    if gap.strip().lower() != "and" or len(gap) > 6:
        return False
    return _BETWEEN.search(text, max(0, first.start - offset - 12), first.start - offset) is not None


def _unit_factor(q: Quantity) -> float:
    if q.kind == "temperature":
        return 5.0 / 9.0 if q.unit == "F" else 1.0
    if q.kind == "bps":
        return 0.01
    if q.kind == "number" and q.unit:
        physical = _PHYSICAL.get(q.unit.partition("/")[0])
        if physical is not None:
            return physical[1]
    found = _SHOWN_UNITS.get((q.kind, q.unit or ""))
    return found[0] if found else 1.0


def _unit_offset(q: Quantity) -> float:
    return -32.0 * 5.0 / 9.0 if q.kind == "temperature" and q.unit == "F" else 0.0


def displayed_value(q: Quantity) -> tuple[float, float]:
    """The number as written and its tolerance, before scale and unit normalisation: '350°F' -> (350, 0.5),
    '1 1/2 hours' -> (1.5, ...), '$1.2 billion' -> (1.2, 0.05). Signs are kept."""
    factor = (q.scale or 1.0) * _unit_factor(q)
    return (q.value - _unit_offset(q)) / factor, q.tolerance / factor


def parse_quantities(
    text: str,
    *,
    scale_context: float | None = None,
    unit_context: str | None = None,
    offset: int = 0,
    years: bool = True,
    words: bool = False,
    cell: bool = False,
) -> list[Quantity]:
    """Every quantity in `text`, in order, with spans shifted by `offset`.

    `scale_context` / `unit_context` come from a table header or caption ("(in millions)" -> 1e6,
    "($M)" -> 1e6 and "USD", "Margin (%)" -> "%"); they apply to numbers that carry no scale or unit.
    `years=False` reads a bare 1800-2100 as a number, for a numeric field ("revenue: 2024").
    `words=True` also reads spelled-out numbers that carry a unit ("six hours", "two to three days"):
    sources say it that way, and a report's "6 hours" is then the same figure.
    `cell=True`: `text` is one table cell holding a figure, so '(23)' is the negative an accountant writes,
    not the enumerator '(1)' of a list.
    """
    _require_text(text, "parse_quantities(text=...)")
    if not text:
        return []
    return _Parser(text, scale_context, unit_context, offset, years, words, cell).run()


# --------------------------------------------------------------------------------------------------
# Scale context ("(in millions)", "($M)", "USD thousands")
# --------------------------------------------------------------------------------------------------

_CTX_SCALE = (
    r"(?P<scale>thousands|thousand|millions|million|billions|billion|trillions|trillion"
    r"|mm|mn|mln|bn|bln|tn|['\u2019\u2018]?000s?|k|m|b|t)"
)
_CUR_ALTS = r"us\$|\$|€|£|¥|usd|eur|gbp|jpy|chf|cny|rmb|inr|aud|cad|hkd|dollars|euros|pounds"


def _cur(name: str) -> str:
    return rf"(?P<{name}>{_CUR_ALTS})"


_SCALE_CONTEXT = [
    # "(in millions)", "in $ billions", "(in thousands of dollars, except per share data)", "$ in millions"
    re.compile(rf"(?ai)(?:{_cur('cur1')}\s*)?\bin\s+(?:{_cur('cur2')}\s*)?{_CTX_SCALE}\b(?:\s+of\s+{_cur('cur3')})?"),
    # "(USD m)", "($M)", "(€ millions)", "(USD thousands)", "(millions of dollars)"
    re.compile(rf"(?ai)\(\s*{_cur('cur1')}\s*{_CTX_SCALE}\s*\)"),
    re.compile(rf"(?ai)\(\s*{_CTX_SCALE}(?:\s+of\s+{_cur('cur1')})?\s*\)"),
    re.compile(rf"(?ai)(?<![\w$]){_cur('cur1')}\s?{_CTX_SCALE}\b(?!\s*\d)"),
    re.compile(rf"(?ai)\b{_cur('cur1')}\s+in\s+{_CTX_SCALE}\b"),
    # "HK$'000", "'000": the zeros of a scale after an apostrophe, whatever precedes them
    re.compile(r"(?a)(?<![\w\d])(?P<scale>['\u2019\u2018]000s?)(?![\w'])"),
]
# 'bps' after a figure ('declined by 54 bps') is that figure's unit, no declaration for the numbers under a caption
_PERCENT_CONTEXT = re.compile(r"(?ai)\(\s*%\s*\)|\bin\s+(?:%|percent)\b|\(\s*percent\s*\)|(?<![\d)])(?<![\d)] )\bbps\b|\(\s*x\s*\)")
_BARE_CURRENCY = re.compile(rf"(?ai)\(\s*{_cur('cur1')}\s*\)")
_ANY_CURRENCY = re.compile(rf"(?ai)(?<![\w]){_cur('cur1')}(?![\w])")
_SCALE_CTX_VALUES = vocabulary.SCALES
_CUR_CTX_VALUES = vocabulary.CURRENCY_NAMES


def detect_scale_context(text: str) -> tuple[float | None, str | None]:
    """The scale and unit a caption or header gives the numbers under it.

    "(in millions)" -> (1e6, None); "$ in billions" -> (1e9, "USD"); "(USD m)" -> (1e6, "USD");
    "Margin (%)" -> (None, "%"); nothing found -> (None, None).
    """
    _require_text(text, "detect_scale_context(text=...)")
    for pattern in _SCALE_CONTEXT:
        m = pattern.search(text)
        if m is None:
            continue
        scale = _SCALE_CTX_VALUES.get(m.group("scale").lower().replace("\u2019", "'").replace("\u2018", "'"))
        if scale is None:
            continue
        token = next((v for k, v in m.groupdict().items() if k.startswith("cur") and v), None)
        if token is None:
            # "Revenue, $ (in millions)": the symbol may sit outside the matched phrase
            cm = _ANY_CURRENCY.search(text)
            token = cm.group("cur1") if cm else None
        return scale, (_currency_from_token(token) if token else None)
    pm = _PERCENT_CONTEXT.search(text)
    if pm:
        found = pm.group(0).lower()
        if "bps" in found:
            return None, "bps"
        if "x" in found.replace("%", ""):
            return None, "x"
        return None, "%"
    cm = _BARE_CURRENCY.search(text)
    if cm:
        return None, _currency_from_token(cm.group("cur1"))
    return None, None


def _currency_from_token(token: str) -> str:
    t = token.strip()
    if t.lower() in _CUR_CTX_VALUES:
        return _CUR_CTX_VALUES[t.lower()]
    if t in _CURRENCY_SYMBOLS:
        return _CURRENCY_SYMBOLS[t]
    return "CNY" if t.upper() == "RMB" else t.upper()


# --------------------------------------------------------------------------------------------------
# Comparison
# --------------------------------------------------------------------------------------------------

_FAMILY = {
    "currency": "money", "number": "money", "count": "money", "percent": "percent", "bps": "percent",
    "ratio": "ratio", "temperature": "temperature", "length": "length", "mass": "mass",
    "duration": "duration",
}


def _system(q: Quantity) -> str:
    if q.kind == "temperature":
        return q.unit or "C"
    found = _SHOWN_UNITS.get((q.kind, q.unit or ""))
    return found[1] if found else "decimal"


def percent_dimension(q: Quantity) -> str | None:
    """'points' for a change of a rate ('5 percentage points', '50 bps'), 'percent' for a rate or a relative
    change ('5%', '5 percent'), None for any other kind.

    The two are different dimensions: a margin up from 40% to 45% rose 5 percentage points, which is a 12.5%
    rise, so a source's '5 percentage points' is no evidence for a claim of '5%' nor the other way round.
    Basis points are hundredths of a percentage point ('500 bps' is 5 points)."""
    if q.kind == "bps" or q.kind == "percent" and q.unit in ("pp", "bps"):
        return "points"
    return "percent" if q.kind == "percent" else None


def _compatible(claimed: Quantity, observed: Quantity) -> bool:
    if _FAMILY[claimed.kind] == "percent" and _FAMILY[observed.kind] == "percent":
        return percent_dimension(claimed) == percent_dimension(observed)
    if _FAMILY[claimed.kind] != _FAMILY[observed.kind]:
        # a bare number and a ratio are the same figure written two ways ("2.5" vs "2.5x")
        pair = {claimed.kind, observed.kind}
        return pair == {"number", "ratio"} and claimed.unit in (None, "x") and observed.unit in (None, "x")
    if claimed.kind == "currency" and observed.kind == "currency":
        return claimed.unit == observed.unit
    if claimed.kind == "number" and observed.kind == "number":
        if claimed.unit is None or observed.unit is None or claimed.unit == observed.unit:
            return True
        # 4.6 GW and 4,600 MW are one figure; GW and GWh, or a unit and another unit, are not
        dimension = physical_dimension(claimed.unit)
        return dimension is not None and dimension == physical_dimension(observed.unit)
    # money family: a bare number may stand for an amount whose symbol the source dropped ("1,234"
    # under "(in millions)"), but a unit-bearing number never matches money
    if _FAMILY[claimed.kind] == "money":
        return (claimed.kind == "number" and claimed.unit is None) or (
            observed.kind == "number" and observed.unit is None
        )
    return True


def comparable(claimed: Quantity, observed: Quantity) -> bool:
    """Are the two of one dimension, so that one may back or contradict the other (whatever their values)?"""
    return _compatible(claimed, observed)


def quantities_match(claimed: Quantity, observed: Quantity) -> bool:
    """Does `observed` (from a source) back `claimed` (from the report) at the precision claimed?

    Same kind family, and `observed` rounds (half away from zero) to `claimed` at the claim's precision:
    1,248 million is $1.25 billion, 1.65 billion is not $1.6 billion. Where the two were shown in
    units related by a non-decimal conversion (°F/°C, mi/km, lb/kg, months/days) both sides were rounded
    on their own, so the two tolerances add up: 400 °F (204.4 °C) matches "205 °C".
    """
    if not _compatible(claimed, observed):
        return False
    tolerance = claimed.tolerance
    # a relative epsilon absorbs float error in scaled values (1.2e9 vs 1234e6)
    slack = 1e-9 * max(abs(claimed.value), abs(observed.value), 1.0)
    if _system(claimed) != _system(observed):
        return abs(claimed.value - observed.value) <= tolerance + observed.tolerance + slack
    if claimed.kind != "temperature" and claimed.value * observed.value > 0 and tolerance > 0:
        # the claim restates the source's figure only if that figure, rounded half away from zero to the
        # precision the claim shows, is the claim's: $1.65 billion is shown as $1.7 billion, not $1.6 billion
        # (the upper bound excluded up to float error only: the slack may exceed a whole unit of 1.2e9; and
        # at most half the tolerance, or a 13-digit figure written out in full would not match itself)
        above = abs(observed.value) - abs(claimed.value)
        exclusion = min(tolerance / 2, 1e-12 * max(abs(claimed.value), abs(observed.value), 1.0))
        return -tolerance - slack <= above < tolerance - exclusion
    return abs(claimed.value - observed.value) <= tolerance + slack


# --------------------------------------------------------------------------------------------------
# Bulk scanning of source texts
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ScannedQuantity:
    """A quantity found in a source text, with its 1-based line number.

    `alternative` marks a second reading of the same span that a declared scale or unit gives a bare
    number of a numeric field ("1234" under "units: USD millions" also reads as $1,234 million).
    """

    line: int
    quantity: Quantity
    alternative: bool = False


_TABLE_SEPARATOR = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(?:\|\s*:?-{2,}:?\s*)*\|?\s*$")

# -- declared scales and units of structured data ("units: USD millions", "revenue_usd_millions: 1234")


@dataclass(frozen=True)
class _Cue:
    """What a field name, row label or record declares about the bare numbers it holds."""

    scale: float | None = None
    currency: str | None = None
    percent: bool = False
    per_share: bool = False
    date: bool = False

    def over(self, record: _Cue | None) -> _Cue:
        """This (a field's own) cue, completed by its record's: a field's own word wins."""
        if record is None:
            return self
        if self.percent or self.date:
            return self
        per_share = self.per_share
        scale = self.scale if self.scale is not None else (None if per_share else record.scale)
        if record.percent and self.scale is None and self.currency is None and not per_share:
            return _Cue(percent=True)
        return _Cue(scale=scale, currency=self.currency or record.currency, per_share=per_share)


_NO_CUE = _Cue()
_RECORD_KEY = re.compile(
    r"(?im)^(?P<indent>[ \t]*)(?:[-*][ \t]+)?(?P<key>units?|unit[ _]of[ _]measure|scale|currency|denomination"
    r"|(?:amounts?|values?|figures?|numbers?)[ _]in)[ \t]*[:=][ \t]*(?P<value>[^\n]{1,120})$"
)
# The value runs to the line's last character that is not a space or tab: written greedily (a lazy value tried the
# end of the line at each of its characters), the same spans
_KEY_VALUE = re.compile(r"^[ \t]*(?:[-*][ \t]+)?(?P<key>[A-Za-z_][^:\n|]{0,79}?)[ \t]*:[ \t]+(?P<value>\S(?:[^\n]*[^ \t\n])?)[ \t]*$")
# A field whose whole value is one number: "1234", "-5.2", "(1,234)", "$48.90", "41.3%".
_NUMERIC_FIELD = re.compile(r"[(\-−+]?(?:[$€£¥]|US\$)?[ ]?\d[\d,]*(?:\.\d+)?[)]?[ ]?%?")
_KEY_SPLIT = re.compile(r"[^a-z0-9%]+")
_PERCENT_TOKENS = frozenset({"%", "pct", "percent", "percentage", "percentages", "pcnt", "perc"})
# a field name's scale token: whole words only ("revenue_usd_millions"; no lone letters, no "mm")
_SCALE_TOKENS = {w: v for w, v in vocabulary.SCALES.items()
                 if w not in vocabulary.SCALE_LETTERS and w not in ("mm", "000") and not w.startswith("'")}
_DATE_TOKENS = frozenset(
    {"year", "years", "yr", "date", "dates", "period", "fy", "as", "asof", "quarter", "month", "day", "founded",
     "established", "born", "since", "time", "timestamp", "updated", "published", "vintage", "season"}
)
_PER_SHARE_KEY = re.compile(r"(?ai)\beps\b|(?:^|_)eps(?:_|$)|per[ _-]?share|per[ _-]?unit|dividend")


_SCALE_ABBREVIATIONS = sorted((w for w in vocabulary.SCALES if len(w) <= 3 and w.isalpha()), key=len, reverse=True)
_CODES = "|".join(code.lower() for code in vocabulary.CURRENCY_CODES)
_SCALED_CODE = re.compile(
    rf"(?P<pre>{'|'.join(_SCALE_ABBREVIATIONS)})(?P<code1>{_CODES})|(?P<code2>{_CODES})(?P<post>{'|'.join(_SCALE_ABBREVIATIONS)})"
)


def _field_cue(name: str) -> _Cue:
    """The cue of a field name or row label: 'revenue_usd_millions', 'return_1y_pct', 'Gross margin (%)'."""
    lowered = name.lower()
    tokens = [t for t in _KEY_SPLIT.split(lowered) if t]
    if "%" in lowered or any(t in _PERCENT_TOKENS for t in tokens):
        return _Cue(percent=True)
    scale = next((_SCALE_TOKENS[t] for t in tokens if t in _SCALE_TOKENS), None)
    currency = next((("CNY" if t == "rmb" else t.upper()) for t in tokens if t.upper() in _CURRENCY_CODES), None)
    for token in tokens:  # 'net_sales_musd', 'capex_usdm', 'revenue_bneur': a scale letter glued to a code
        glued = _SCALED_CODE.fullmatch(token)
        if glued is not None:
            letters = glued.group("pre") or glued.group("post")
            scale = scale if scale is not None else vocabulary.SCALES[letters]
            code = (glued.group("code1") or glued.group("code2")).upper()
            currency = currency or vocabulary.CODE_ALIASES.get(code, code)
    if currency is None and "$" in name:
        currency = "USD"
    if scale is None:
        ctx_scale, ctx_unit = detect_scale_context(name) if "(" in name or " in " in lowered else (None, None)
        scale = ctx_scale
        if ctx_unit in _CURRENCY_CODES:
            currency = ctx_unit
    return _Cue(
        scale=scale, currency=currency, per_share=bool(_PER_SHARE_KEY.search(name)),
        date=any(t in _DATE_TOKENS for t in tokens) and scale is None and currency is None,
    )


def _record_cue(value: str) -> _Cue:
    """What a record's 'units: USD millions, except per-share amounts and percentages' declares."""
    head = re.split(r"(?i)\bexcept\b", value, maxsplit=1)[0]
    lowered = head.strip().lower()
    tokens = [t for t in _KEY_SPLIT.split(lowered) if t]
    if tokens and tokens[0] in _PERCENT_TOKENS | {"percentage", "percentage_points"} or lowered.startswith("%"):
        return _Cue(percent=True)
    cue = _field_cue(head)
    # a per-share field never takes the record's scale, whether or not the record says "except per-share"
    return _Cue(scale=cue.scale, currency=cue.currency)


def _record_cues(text: str) -> list[tuple[int, int, _Cue]]:
    """(start, end, cue) of each record that declares a unit: the declaring line's siblings and their
    children (every adjacent line indented at least as deep), also lines above it (keys are sorted)."""
    out: list[tuple[int, int, _Cue]] = []
    for m in _RECORD_KEY.finditer(text):
        cue = _record_cue(m.group("value"))
        if cue == _NO_CUE:
            continue
        depth = len(m.group("indent").expandtabs(4))
        start = _record_edge(text, m.start(), depth, backwards=True)
        end = _record_edge(text, m.end(), depth, backwards=False)
        out.append((start, end, cue))
    out.sort(key=lambda r: (r[0], -r[1]))
    return out


def _record_edge(text: str, pos: int, depth: int, *, backwards: bool) -> int:
    while True:
        if backwards:
            if pos <= 0:
                return 0
            prev = text.rfind("\n", 0, pos - 1) + 1
            line = text[prev:pos - 1]
        else:
            if pos >= len(text):
                return len(text)
            nxt = text.find("\n", pos + 1)
            nxt = len(text) if nxt < 0 else nxt
            line = text[pos + 1:nxt]
        stripped = line.lstrip(" \t")
        if stripped and len(line[: len(line) - len(stripped)].expandtabs(4)) < depth:
            return pos
        pos = prev if backwards else nxt


def _alternatives(q: Quantity, cue: _Cue) -> list[Quantity]:
    """Second readings of a bare number that its field or record declares a unit or scale for."""
    if q.kind != "number" or q.unit is not None or q.scale != 1.0:
        return []
    if cue.percent:
        return [q.model_copy(update={"kind": "percent", "unit": "%"})]
    scale = cue.scale
    if scale is None:
        return []
    return [q.model_copy(update={
        "kind": "currency" if cue.currency else "number", "unit": cue.currency, "scale": scale,
        "value": q.value * scale, "tolerance": q.tolerance * scale,
    })]


class QuantityScanner:
    """Finds every quantity of large source texts, with line numbers and absolute offsets.

    Lines are parsed one at a time, so memory stays flat on 100 MB corpora; a caption line such as
    "(in millions)" and a markdown table header give their scale and unit to the table rows under them.
    A numeric field (a `key: value` line or a table cell holding one number) is read as its field name,
    row label, column header or record declares ("units: USD millions", "unit: percent", "eps_usd",
    "Gross margin (%)"), as an alternative reading next to the bare number; four-digit values of numeric
    fields are numbers, not years, unless the field names a date.
    """

    def __init__(self, *, track_context: bool = True) -> None:
        self.track_context = track_context

    def scan(self, text: str) -> list[ScannedQuantity]:
        """All quantities of `text` in order; offsets are into `text`."""
        return list(self.iter_scan(text))

    def iter_scan(
        self, text: str, *, read_elsewhere: Sequence[tuple[int, int]] = (),
        defer: Callable[[int, int, int], bool] | None = None,
        prose_blocks: Sequence[tuple[int, int, int]] = (), defer_block: Callable[[int, int], None] | None = None,
    ) -> Iterator[ScannedQuantity]:
        """All quantities of `text` in order. `read_elsewhere` are spans (start, end), sorted and disjoint, that
        the caller parses itself and drops every quantity starting in: a table cell, field value or line lying
        wholly inside one is not parsed (the caller's reading of it would replace the scanner's anyway).
        `defer(line_no, start, end)` is asked of each line read as prose (no table row, no numeric field); where it
        answers True the line is not parsed here: `parse_prose_line(text, start, end)` reads it later, the same.
        `prose_blocks` are runs of lines (first line, last line, where the line after the run starts), ascending,
        that the caller knows to be prose it defers (none blank, a table row, a caption or a numeric field): each is
        handed to `defer_block(first, last)` when the scan reaches it and passed over whole, leaving the state a
        prose line leaves (no table's columns)."""
        _require_text(text, "QuantityScanner.scan(text=...)")
        elsewhere = _Spans(read_elsewhere)
        caption: tuple[float | None, str | None] = (None, None)
        columns: list[tuple[float | None, str | None]] | None = None
        header_cues: list[_Cue] = []
        records = _record_cues(text) if self.track_context else []
        active: list[tuple[int, int, _Cue]] = []
        next_record = 0
        pos = 0
        line_no = 0
        n = len(text)
        if prose_blocks and defer_block is None:
            raise AuditFenceError("iter_scan(prose_blocks=...) needs defer_block=... to hand the blocks to")
        blocks = iter(prose_blocks)
        block = next(blocks, None)
        while pos < n:
            if block is not None and block[0] == line_no + 1:
                first, line_no, pos = block
                defer_block(first, line_no)  # type: ignore[misc]  # given with the blocks
                if columns is not None:  # a prose line ends a table: the caption above it is spent
                    caption, columns = (None, None), None
                block = next(blocks, None)
                continue
            nl = text.find("\n", pos)
            end = n if nl < 0 else nl
            line_no += 1
            line = text[pos:end]
            record: _Cue | None = None
            if records:
                while next_record < len(records) and records[next_record][0] <= pos:
                    active.append(records[next_record])
                    next_record += 1
                active = [r for r in active if r[1] > pos]
                record = active[-1][2] if active else None
            if self.track_context:
                was = columns
                caption, columns, cells = _table_state(line, caption, columns)
                if columns is not None and was is None:
                    header_cues = [_field_cue(line[s:e]) for s, e in split_table_row(line)]
            else:
                cells = None
            if cells is not None:
                row_cue = _row_cue(line, cells)
                for i, ((cell_start, cell_end), (scale, unit)) in enumerate(cells):
                    if elsewhere.covers(pos + cell_start, pos + cell_end):
                        continue
                    column = header_cues[i] if i < len(header_cues) else _NO_CUE
                    yield from _scan_field(
                        line[cell_start:cell_end], pos + cell_start, line_no, row_cue.over(column.over(record)),
                        scale, unit,
                    )
            elif _holds_digit(line) and not elsewhere.covers(pos, end):
                kv = _KEY_VALUE.match(line) if self.track_context else None
                if kv is not None and _NUMERIC_FIELD.fullmatch(kv.group("value")):
                    key = kv.group("key")
                    if any(c.isdigit() for c in key):  # "weighing 1 ounce: $0.49": the key is prose too
                        for q in parse_quantities(key, offset=pos + kv.start("key")):
                            yield ScannedQuantity(line_no, q)
                    if elsewhere.covers(pos + kv.start("value"), pos + kv.end("value")):
                        pos = end + 1
                        continue
                    cue = _field_cue(key).over(record)
                    yield from _scan_field(kv.group("value"), pos + kv.start("value"), line_no, cue, None, None)
                elif defer is None or not defer(line_no, pos, end):
                    for q in _parse_wrapped(text, line, pos, end):
                        yield ScannedQuantity(line_no, q)
            pos = end + 1


def _holds_digit(line: str) -> bool:
    """`any(c.isdigit() for c in line)`, at C speed where the line is ASCII (its digits are 0-9 there)."""
    if line.isascii():
        return _ASCII_DIGIT.search(line) is not None
    return any(c.isdigit() for c in line)


_ASCII_DIGIT = re.compile(r"[0-9]")


class _Spans:
    """Sorted, disjoint spans (start, end); `covers` says whether one of them holds all of [start, end)."""

    def __init__(self, spans: Sequence[tuple[int, int]]) -> None:
        self._starts = [s for s, _ in spans]
        self._ends = [e for _, e in spans]

    def covers(self, start: int, end: int) -> bool:
        i = bisect.bisect_right(self._starts, start) - 1
        return i >= 0 and end <= self._ends[i]


# A long line cut at a space ("... bake for 20" / "  minutes or until ..."), as capture wraps lines or a
# writer hard-wraps prose: the unit of a number at the end of a line is on the next one.
_CONTINUATION = re.compile(r"[ \t]*(?![-*+] |\d|\|)(?P<head>[A-Za-z%°º˚][^\n]{0,40})")
_MIN_WRAPPED_LINE = 40


def _wrapped_tail(line: str) -> bool:
    """Does the line (no newline in it) end in a digit, spaces and tabs aside? `str.isdecimal` is the regex's
    `\\d` (Unicode category Nd); a search for `\\d[ \\t]*$` tried every position of the line."""
    return line.rstrip(" \t")[-1:].isdecimal()


def _parse_wrapped(text: str, line: str, pos: int, end: int) -> list[Quantity]:
    """The quantities of one line, reading a number at its end together with the start of the next line
    when the line was wrapped there; a span that crosses the wrap is still verbatim in `text`."""
    cont = None
    if len(line) >= _MIN_WRAPPED_LINE and end < len(text) and _wrapped_tail(line):
        cont = _CONTINUATION.match(text, end + 1)
        if cont is not None and _KEY_VALUE.match(cont.group(0)):
            cont = None
    if cont is None:
        return parse_quantities(line, offset=pos, words=True)
    joined = line.rstrip() + " " + cont.group("head")
    cut = len(line.rstrip())
    out = []
    for q in parse_quantities(joined, words=True):
        if q.start >= cut:
            continue  # the next line's own number: found when that line is scanned
        if q.end <= cut:
            out.append(q.model_copy(update={"start": q.start + pos, "end": q.end + pos}))
            continue
        q_end = cont.start("head") + (q.end - cut - 1)
        out.append(q.model_copy(update={"start": q.start + pos, "end": q_end, "text": text[q.start + pos:q_end]}))
    return out


def parse_prose_line(text: str, start: int, end: int) -> list[Quantity]:
    """The quantities `QuantityScanner` reads on the prose line text[start:end] (a line it was told to defer)."""
    return _parse_wrapped(text, text[start:end], start, end)


def holds_number_word(text: str) -> bool:
    """Does `text` hold a number written as a word ('five', 'twenty', 'a hundred' aside) or a fraction ('half a
    million', 'a third of')?"""
    lowered = text.lower()
    return any(p.search(lowered) is not None for p in (_NUMBER_WORDS, _SCALED_FRACTION, _WHOLE_FRACTION, _SHARE_FRACTION,
                                                       _LONE_POINT))


_PROSE_NUMBER_WORDS = frozenset({"zero", "one"})


# the letter runs a text must hold for `number_word_lines` to keep a line of it: the first word of a match that is not
# 'zero' or 'one' alone, or the 'hundred' after them (a match starts and ends at a word boundary, so its first word
# is a whole run of ASCII letters, lower-cased)
NUMBER_LINE_WORDS = frozenset({*_UNIT_NUMBER_WORDS, *_TEN_WORDS, "hundred"} - _PROSE_NUMBER_WORDS)


# what makes a 'one' a figure: a decimal point, a fraction, a scale, percent or currency word after it ('one point
# five', 'one and a half', 'one billion dollars', 'one percent'); the letter runs of those words
_ONE_AS_FIGURE = re.compile(r"[ \t]+(?:point|and[ \t]+an?[ \t]+half|thousand|million|billion|trillion|percent|per[ \t]+cent"
                            r"|dollars?)\b")
ONE_FIGURE_WORDS = frozenset({"point", "half", "thousand", "million", "billion", "trillion", "percent", "cent",
                              "dollar", "dollars", "quarter"})


def number_word_lines(text: str) -> Iterator[tuple[int, int]]:
    """(start, end) of each line of `text` that holds a number written as a word, in order, each once: from two up,
    'one' only as a figure ('one billion dollars'; 'one' is prose far more often: 'one of the', 'no one'), a
    fraction of a scale word ('half a million') or of a whole (`whole_fractions`), and a lone decimal ('point five')."""
    lowered = text.lower()
    if len(lowered) != len(text):
        lowered = text
    found = [m.span() for m in _NUMBER_WORDS.finditer(lowered)
             if m.group() not in _PROSE_NUMBER_WORDS or _ONE_AS_FIGURE.match(lowered, m.end())]
    if _FRACTION_LEADS.search(lowered):
        found = sorted([*found, *(m.span() for m in _SCALED_FRACTION.finditer(lowered)), *whole_fractions(lowered)])
    if "point" in lowered:
        found = sorted([*found, *(m.span() for m in _LONE_POINT.finditer(lowered))])
    end = -1
    for at, until in found:
        if at < end:
            continue
        start = text.rfind("\n", 0, at) + 1
        end = text.find("\n", until)
        end = len(text) if end < 0 else end
        yield start, end


# the words between the two ends of a range of counts ('four to fifteen stores', 'between two and five plants')
_COUNT_RANGE_GAP = re.compile(r"[ \t]*(?:to|through|-|\u2013|and)[ \t]*")
_BETWEEN_WORD = re.compile(r"(?i)\bbetween[ \t]+$")
# a spelled number right before a scale word is an amount ('ten thousand people', 'two dozen stores'), no count
_SCALED_AFTER = re.compile(r"(?i)[ \t]+(?:hundred|thousand|million|billion|trillion|dozen)s?\b")


def spelled_counts(text: str, offset: int = 0) -> list[Quantity]:
    """Whole numbers from two up written as words right before the plural noun they count ('five stores', 'twelve
    new branches', 'twenty-five people'), as a bare number; not a part of a compound word ('two-thirds', 'the
    twenty-first century'), nor 'one' ('one of the', 'one collision center': a figure of speech as often as a count).
    Numbers with a unit, percent or scale are `parse_quantities(words=True)`'s ('six hours', 'two million')."""
    lowered = text.lower()
    if len(lowered) != len(text):
        lowered = text  # as `_Parser._spelled`: only lower-case words where lowering changes the length
    out: list[Quantity] = []
    numbers = [n for n in spelled_numbers(lowered) if n[3] == 0.5]  # whole numbers: no 'two and a half stores'
    for i, (start, end, value, _) in enumerate(numbers):
        if start and text[start - 1] in "-\u2010" or text[end:end + 1] in ("-", "\u2010"):
            continue
        if value < 2 or _SCALED_AFTER.match(text, end):
            continue
        if vocabulary.COUNTED_NOUN.match(text, end) is None:
            continue
        if i and numbers[i - 1][2] >= 1 and _COUNT_RANGE_GAP.fullmatch(text, numbers[i - 1][1], start) is not None and (
                text[numbers[i - 1][1]:start].strip() != "and"
                or _BETWEEN_WORD.search(text, max(0, numbers[i - 1][0] - 9), numbers[i - 1][0])):
            first, until, low, _ = numbers[i - 1]  # the first end of a range of counts: 'four to fifteen stores'
            if not (first and text[first - 1] in "-\u2010") and (not out or out[-1].end <= first + offset):
                out.append(Quantity.model_construct(
                    text=text[first:until], start=first + offset, end=until + offset, value=low, kind="number",
                    unit=None, scale=1.0, tolerance=0.5, negative=False,
                ))
        out.append(Quantity.model_construct(
            text=text[start:end], start=start + offset, end=end + offset, value=value, kind="number", unit=None,
            scale=1.0, tolerance=0.5, negative=False,
        ))
    return out


# the dimensions of a spelled figure a claim states ('twenty percent', 'two million dollars'); a spelled duration or
# length is left out ('the nine months ended', 'less than one year' name a period, not a figure to find), and so is
# a ratio of a whole number ('three times a week' is a frequency as often): 'one and a half times' is read
_SPELLED_CLAIM_KINDS = frozenset({"percent", "currency", "number"})


def spelled_figures(text: str, offset: int = 0) -> list[Quantity]:
    """The figures of `text` written as words: counts before their noun (`spelled_counts`) and spelled numbers with
    a percent, currency or scale ('twenty percent', 'two million'), in order, apart from what `parse_quantities`
    reads from digits (a spelled end of a range with a digit end is left to the digits)."""
    if not holds_number_word(text):
        return []
    digits = [(q.start, q.end) for q in parse_quantities(text, offset=offset)]
    found = [q for q in parse_quantities(text, offset=offset, words=True)
             if q.text[:1].isalpha() and (q.kind in _SPELLED_CLAIM_KINDS or q.kind == "ratio" and q.tolerance < 0.5)]
    found += spelled_counts(text, offset)
    out: list[Quantity] = []
    for q in sorted(found, key=lambda x: x.start):
        if any(a < q.end and q.start < b for a, b in digits) or out and out[-1].end > q.start:
            continue
        out.append(q)
    return out


# The scales a plain line's figures can carry (`_SCALE_WORDS`), and 1
PLAIN_SCALES: tuple[float, ...] = tuple(sorted({1.0, *vocabulary.SCALES.values()}))
# What a plain line must hold for one of its figures to carry a scale other than 1: a scale is read only after a
# number (`_read_suffix`'s `_SCALE`, one of `_SCALE_WORDS` followed by an ASCII word boundary), or taken from another
# figure of the line that read one (a range, a list). So a line without a spelling of that scale (as `_SCALE` cuts
# it, case aside) gives no figure at that scale; the searches may find more (a word ending in 'b' for 'B'), never less.
SCALE_SPELLINGS: dict[float, re.Pattern[str]] = {
    scale: re.compile(r"(?ai)(?:" + "|".join(sorted((re.escape(w) for w, v in _SCALE_WORDS.items() if v == scale),
                                                      key=len, reverse=True)) + r")\b")
    for scale in sorted(set(_SCALE_WORDS.values())) if scale != 1.0
}
_DIGIT_RUN = re.compile(r"\d+")
# the characters that can follow the leading digits of a `_DIGIT_LED_MASK` match (an empty string is not one)
_MASK_NEXT = frozenset(" \t\r\x0b\x0c-–—/.:'’sQH()nrtAaPp")
_LETTER_RUN = re.compile(r"[a-z]+")
# the letters where a number's unit word or symbol can start: right after its digits, one space or '-' after
# them, or after a scale word and one space or '-' (each tried: '5 mm thick' is millimetres, not millions)
_AFTER_NUMBER = re.compile(r"\d[ \u00a0\u202f-]?([A-Za-z]+)")
_AFTER_SCALE = re.compile(
    r"\d[ \u00a0\u202f]?(?:(?i:thousands?|millions?|billions?|trillions?|mn|mln|mm|bn|bln|tn)|[kKmMbBtT])\b"
    r"[ \u00a0\u202f-]?([A-Za-z]+)"
)
# time of day (':30 hours') and emphasis between a number and its scale ('**5.2** billion')
_GLUED_RISK = re.compile(r":\d|\d[*_]")


def _first_letters(word: str) -> str:
    m = re.match(r"[A-Za-z]+", word)
    return m.group() if m else word


# Every suffix `_read_suffix` reads with a factor, an offset, basis points or a temperature starts with one of these
# letter runs where `_AFTER_NUMBER` or `_AFTER_SCALE` finds one: words as lower case, symbols as written ('F', 'C'
# attached: '350F'); 'deg...' ('degrees', 'degreesF') and ' in.' are tested apart
_FACTOR_WORDS = frozenset(
    _first_letters(w).lower() for w in (
        *(w for w, (_, _, factor, _) in _UNITS.items() if factor != 1.0),
        *(w for w, symbol in vocabulary.PHYSICAL_WORDS.items() if _PHYSICAL[symbol][1] != 1.0),
        "bps", "bp", "basis", "fahrenheit", "celsius", "centigrade",
    )
)
_FACTOR_SYMBOLS = frozenset(
    {_first_letters(sym) for sym, (_, _, factor) in _CASED_SYMBOLS.items() if factor != 1.0} | {"F", "C"}
)
# the first letter run of every match of `_NUMBER_WORDS`, and the currency words with a factor (cents, pence)
_RISK_WORDS = frozenset(
    {*_UNIT_NUMBER_WORDS, *_TEN_WORDS}
    | {w for w, (_, factor) in _CURRENCY_WORDS.items() if factor != 1.0 and w.isalpha()}
)


def plain_runs(text: str, start: int, end: int) -> list[tuple[float, int]] | None:
    """What the figures of a prose line can be, without parsing it: (number as written, decimals shown) of each
    place the parser can read a number from. Every figure `parse_prose_line` reads on the line is then one of them,
    signed and times one of `PLAIN_SCALES`, with a tolerance of at most half a unit of its last decimal times that
    scale. None where the line may hold a figure read otherwise: a fraction or a per-unit ('/'), a time of day,
    a number word, a unit or currency word converted by a factor, a temperature, basis points, emphasis, text
    that is not ASCII (the fraction characters), what the parser masks by its own ends (URLs, e-mail addresses),
    digits the parser's search can resume inside ('1,23'), or a line that goes on into the next (its unit may be
    there: `_parse_wrapped`). Each test is a C-speed search or set test but the loop over the numbers."""
    line = text[start:end]
    if not line.isascii() or "/" in line or "@" in line:
        return None
    lower = line.lower()
    if "www." in lower or " in." in lower or _GLUED_RISK.search(line) is not None:
        return None
    if not _RISK_WORDS.isdisjoint(_LETTER_RUN.findall(lower)):
        return None
    units = _AFTER_NUMBER.findall(line) + _AFTER_SCALE.findall(line)
    if units and (not _FACTOR_SYMBOLS.isdisjoint(units)
                  or any(unit.lower() in _FACTOR_WORDS or unit[:3].lower() == "deg" for unit in units)):
        return None
    if len(line) >= _MIN_WRAPPED_LINE and end < len(text) and _wrapped_tail(line):
        cont = _CONTINUATION.match(text, end + 1)
        if cont is not None and not _KEY_VALUE.match(cont.group(0)):
            return None
    out: list[tuple[float, int]] = []
    skipped = -1  # the end of the masks the parser skips whole
    maybe = -1  # the end of every mask a number here could start
    # where the parser's search can resume next to a comma: the end of a number it matched (a number it skips ends
    # there), the end of a mask
    resumes: set[int] = set()
    for run in _DIGIT_RUN.finditer(line):
        at = run.start()
        num = _NUMBER.match(line, at).group()  # type: ignore[union-attr]  # a digit is there
        ends = at + len(num)
        if ends < len(line) and (line[ends].isdigit() or line[ends] in ".,:" and line[ends + 1:ends + 2].isdigit()):
            # '1,23', '1.2.3', '9,99999': the parser resumes inside the digits that follow, where masks may start
            return None
        resumes.add(ends)
        # a mask goes on past the digits with one of these ('2024-', '12.', '5 March', '3Q', "1990s", '401(k)')
        mask = _DIGIT_LED_MASK.match(line, at) if line[run.end():run.end() + 1] in _MASK_NEXT else None
        if at < skipped:
            continue
        inside = at < maybe  # in a mask that may or may not be skipped: this number may be read after all
        if mask is not None:
            resumes.add(mask.end())
            maybe = max(maybe, mask.end())
        before = line[at - 1] if at else ""
        if before == ".":
            # the parser reads the point with the number ('.5'; 'Rs.5' reads a currency), or skips it glued to a digit
            if at >= 2 and line[at - 2].isdigit():
                continue
            if "." not in num:
                digits = num.replace(",", "")
                out.append((float("." + digits), len(digits)))
        elif before == ",":
            # the digits after a thousands comma ('1,234,567'): the parser's search reaches them only where it
            # resumed at the comma
            if at >= 2 and line[at - 2].isdigit() and at - 1 not in resumes:
                continue
        elif before != ":" and not inside:
            # where no number, comma or colon is glued before it, and no mask began before it, the parser starts
            # here (a token from the left holds no digit but a number's own, and those would be glued): a date, time
            # or version masked here is skipped whole, with the numbers inside it
            if mask is not None:
                skipped = mask.end()
                continue
            if before.isalnum() and not line.endswith(_PREFIX_ENDINGS, 0, at) and before not in "x×":
                continue  # glued to a word ('FY2024', 'T12'), no currency code before it: skipped
        out.append((float(num.replace(",", "")), _decimals(num)))
    return out


# `plain_runs` of every line of a text from one pass over it (`PlainRuns`): the tokens a line's numbers can be read
# as, found by one search over the whole text. A number is read whole (an atomic group: the parser's own reading of
# it, `_NUMBER.match`, with no backtracking into a shorter one); a mask is tried only where `plain_runs` tries it,
# after the first digit run, and is kept only where it holds no line break (a mask without one is the mask the line
# alone gives: the lookarounds at a line's end see the break as they see the end of the line). Tokens that
# `plain_runs` would read otherwise than "keep it" or "skip it" (a digit run after a point, comma or colon that no
# number before it read; a number or mask followed by a digit or by a point, comma or colon and a digit) mark the
# line for `plain_runs` itself.
# A mask is tried where `plain_runs` tries one (a character of `_MASK_NEXT` after the leading digits), and only where
# what follows can go on as one of `_DIGIT_LED_MASK`'s branches (a necessary test, so the answer is the same): after
# a point, digits and another separator (a date, a version, a phone number); after a space, a dash or slash, a
# month's capital, 'of', 'a.m.'/'p.m.', or a digit (a phone number)
_MASK_GATE = "".join(re.escape(ch) for ch in sorted(_MASK_NEXT - set(". \t\r\x0b\x0c")))
_GATED_MASK = (rf"(?=\d++(?:[{_MASK_GATE}]|\.\d+[./-]|[ \t\r\x0b\x0c](?:\s*[-–—/]|\s*(?:of\s+)?[JFMASOND]|[AaPp\d])))"
               rf"(?:{_DIGIT_LED_MASK.pattern})")



_PLAIN_TOKEN = re.compile(
    r"(?=\d)(?:"  # a token starts at a digit: the search skips to the next one at C speed
    r"(?<=[.,:])(?P<risk>\d)"
    rf"|(?P<mask>(?>{_GATED_MASK}))(?P<mask_glued>(?=\d|[.,:]\d))?"
    rf"|(?<=[A-Za-z])(?P<after_word>(?>{_NUMBER.pattern}))(?P<after_word_glued>(?=\d|[.,:]\d))?"
    rf"|(?P<num>(?>{_NUMBER.pattern}))(?P<num_glued>(?=\d|[.,:]\d))?"
    r")"
)
# where a digit run inside a number starts (after its comma or point) and a mask starts there: `plain_runs` tries
# one at every digit run, and reads the runs after it as inside that mask (the digit before is tested per hit)
_INNER_MASK = re.compile(rf"[.,](?={_GATED_MASK})")
# line-level risks of `plain_runs`, each found by a search whose first character is rare (C speed): what is not
# ASCII, ':' before a digit ('/', '@' and emphasis after a digit, '*' or '_', are single characters: `str.find`)
_NOT_ASCII = re.compile(r"[^\x00-\x7f]")
_COLON_DIGIT = re.compile(r":\d")
_WWW_IN = re.compile(r"(?i:www\.| in\.)")
# a line break after an ASCII digit, a space or a tab (a search for the break itself, at C speed): the lines
# `_wrapped_tail` may accept (the last character before the break one of these)
_TAIL_BREAK = re.compile(r"\n(?<=[0-9 \t]\n)")
# a mask whose digits `plain_runs` would read otherwise (a number in it glued to a point, comma or colon and a digit),
# or that holds a line break
_MASK_INNER_RISK = re.compile(r"\d[.,:]\d|\n")
# the text's maximal letter runs (as `_LETTER_RUN` and the units' `[A-Za-z]+` cut them on an ASCII line) from one
# C-speed pass over its UTF-8 bytes: every byte but an ASCII letter becomes a space
LETTERS_ONLY = bytes(c if chr(c).isascii() and chr(c).isalpha() else 32 for c in range(256))
_RISK_WORDS_B = frozenset(w.encode() for w in _RISK_WORDS if w.isascii())
_NUMBER_LINE_WORDS_B = frozenset(w.encode() for w in NUMBER_LINE_WORDS)
# a 'one' or a fraction is a figure only with one of `ONE_FIGURE_WORDS` after it ('one billion', 'half a million'),
# or as 'a third of' / 'one-quarter of' (a 'two-thirds' or 'three-quarters' holds a number word of its own)
_FIGURE_LEADS_B = frozenset({b"one", b"half", b"quarter", b"quarters"})
# letter runs that keep a file for `number_word_lines` on their own: a fraction of a whole or of a scale word ('a
# third of', 'half of', 'a fifth of a million'; 'half' with the 'of' of any prose) and a lone decimal's 'point'
_FRACTION_RUNS_B = frozenset({b"third", b"thirds", b"fifth", b"fifths", b"point"})
_ONE_FIGURE_WORDS_B = frozenset(w.encode() for w in ONE_FIGURE_WORDS)
_FACTOR_WORDS_B = frozenset(w.encode() for w in _FACTOR_WORDS if w.isascii())
_FACTOR_SYMBOLS_B = frozenset(w.encode() for w in _FACTOR_SYMBOLS if w.isascii())


def _unit_risk(unit: str) -> bool:
    """Does a letter run after a number or its scale make `plain_runs` give up on the line (a unit with a factor)?"""
    return unit in _FACTOR_SYMBOLS or unit.lower() in _FACTOR_WORDS or unit[:3].lower() == "deg"


class PlainRuns:
    """`plain_runs(text, start, end)` of every line of `text`, from one pass over the whole text at C speed (a
    search of its tokens, `_PLAIN_TOKEN`, and a few searches for the line-level risks, whose hits are mapped to
    lines by a bisection of the line starts). A line where a token or a risk needs `plain_runs`'s own reading is
    read by it (`risky`); the others keep their numbers' values and decimals in two columns, with each number's
    offset in a third (`offsets`: a line's numbers are those starting inside it, found by bisection). `starts`
    are the text's line starts (line n starts at starts[n - 1]), as `fence.LoadedFile.starts` holds them; computed
    here when not given."""

    __slots__ = ("text", "values", "decimals", "offsets", "starts", "risky", "number_words")

    def __init__(self, text: str, starts: Sequence[int] | None = None) -> None:
        self.text = text
        if starts is None:
            starts = array("I" if len(text) < 0xFFFFFFFF else "q", [0])
            starts.extend(at + 1 for at in _found(text, "\n"))
        self.starts = starts
        values: list[str] = []  # the numbers kept, as written
        offsets = array("I" if len(text) < 0xFFFFFFFF else "q")  # where each starts
        keep, keep_at = values.append, offsets.append
        risky: set[int] = set()
        for token in _PLAIN_TOKEN.finditer(text):
            kind = token.lastgroup
            if kind == "num":
                keep(token.group())
                keep_at(token.start())
            elif kind == "after_word":
                # glued to a word ('FY2024', 'T12'): skipped, but after a currency code or an 'x'
                at = token.start()
                if text.endswith(_PREFIX_ENDINGS, 0, at) or text[at - 1] == "x":
                    keep(token.group())
                    keep_at(at)
            elif kind != "mask" or _MASK_INNER_RISK.search(token.group()) is not None:
                # risky; a mask across lines: each line it holds is risky
                line = bisect.bisect_right(starts, token.start())
                risky.update(range(line, line + token.group().count("\n") + 1))
        # a line that goes on into the next (`_parse_wrapped`): long enough, its last character before the break
        # an ASCII digit, space or tab, its last but spaces and tabs a digit, and a continuation on the next line
        for tail in _TAIL_BREAK.finditer(text):
            at = tail.start()
            line = bisect.bisect_right(starts, at)
            start = starts[line - 1]
            if at - start >= _MIN_WRAPPED_LINE and _wrapped_tail(text[start:at]):
                cont = _CONTINUATION.match(text, at + 1)
                if cont is not None and not _KEY_VALUE.match(cont.group(0)):
                    risky.add(line)
        # read at C speed: the numbers (digits, commas and one point at most: no space) joined by spaces, their commas
        # dropped once and split again; the decimals shown are the length after the point (none: 0), at most 255
        numbers = " ".join(values).replace(",", "").split()
        self.values = array("d", map(float, numbers))
        self.decimals = array("B", map(min, map(len, map(itemgetter(2), map(methodcaller("partition", "."), numbers))),
                                       repeat(255)))
        self.offsets = offsets
        self.risky = risky
        self._line_risks()

    def _lines_of(self, offsets: Iterable[int]) -> None:
        starts = self.starts
        self.risky.update(bisect.bisect_right(starts, at) for at in offsets)

    def _line_risks(self) -> None:
        text = self.text
        if not text.isascii():
            self._lines_of(m.start() for m in _NOT_ASCII.finditer(text))
            self._lines_of(m.start() for m in _WWW_IN.finditer(text))
        else:  # lower-casing keeps the offsets of ASCII text
            lowered = text.lower()
            for needle in ("www.", " in."):
                self._lines_of(_found(lowered, needle))
        # single characters by `str.find` (a search of the bytes, faster than the regex's scan of a class)
        for needle in "/@":
            self._lines_of(_found(text, needle))
        self._lines_of(m.start() for m in _COLON_DIGIT.finditer(text))
        self._lines_of(m.start() for m in _INNER_MASK.finditer(text) if m.start() and text[m.start() - 1].isdecimal())
        for needle in "*_":
            self._lines_of(at for at in _found(text, needle) if at and text[at - 1].isdecimal())
        runs = set(text.encode("utf-8", "replace").translate(LETTERS_ONLY).split())
        lower_runs = {run.lower() for run in runs}
        # can `number_word_lines` keep a line of the text? (not without one of these letter runs)
        self.number_words = not lower_runs.isdisjoint(_NUMBER_LINE_WORDS_B) or not lower_runs.isdisjoint(_FRACTION_RUNS_B) \
            or (b"half" in lower_runs and b"of" in lower_runs) or (
            not lower_runs.isdisjoint(_FIGURE_LEADS_B) and not lower_runs.isdisjoint(_ONE_FIGURE_WORDS_B))
        # a number word or a currency word with a factor: any letter run of the line, lower-cased
        words = lower_runs & _RISK_WORDS_B
        if words:
            found = re.compile(r"(?<![A-Za-z])(?i:" + "|".join(w.decode() for w in words) + r")(?![A-Za-z])")
            self._lines_of(m.start() for m in found.finditer(text))
        # a unit with a factor after a number or after its scale word: searched for where the text holds one at all
        if lower_runs & _FACTOR_WORDS_B or runs & _FACTOR_SYMBOLS_B or any(run[:3] == b"deg" for run in lower_runs):
            for after in (_AFTER_NUMBER, _AFTER_SCALE):
                units = {unit for unit in set(after.findall(text)) if _unit_risk(unit)}
                if units:
                    self._lines_of(m.start() for m in after.finditer(text) if m.group(1) in units)

    def of_line(self, line: int, start: int, end: int) -> tuple[Sequence[float], Sequence[int]] | None:
        """The values and decimals `plain_runs(text, start, end)` gives for the 1-based `line` (text[start:end])."""
        if line in self.risky:
            runs = plain_runs(self.text, start, end)
            if runs is None:
                return None
            return [value for value, _ in runs], [min(decimals, 255) for _, decimals in runs]
        first = bisect.bisect_left(self.offsets, start)
        last = bisect.bisect_left(self.offsets, end, first)
        return self.values[first:last], self.decimals[first:last]


def _found(text: str, needle: str) -> Iterator[int]:
    """Every offset of `needle` in `text` (`str.find`: C speed)."""
    at = text.find(needle)
    while at >= 0:
        yield at
        at = text.find(needle, at + 1)


def _row_cue(line: str, cells: list[tuple[tuple[int, int], tuple[float | None, str | None]]]) -> _Cue:
    """A row label's cue ("Gross margin (%)", "Diluted EPS (USD)"), from the row's cells without digits."""
    for (s, e), _ in cells:
        cell = line[s:e]
        if cell and not any(ch.isdigit() for ch in cell):
            cue = _field_cue(cell)
            if cue != _NO_CUE and not cue.date:
                return cue
    return _NO_CUE


def _scan_field(
    value: str, offset: int, line_no: int, cue: _Cue, scale: float | None, unit: str | None
) -> Iterator[ScannedQuantity]:
    numeric = _NUMERIC_FIELD.fullmatch(value) is not None
    found = parse_quantities(value, scale_context=scale, unit_context=unit, offset=offset,
                             years=not numeric or cue.date)
    for q in found:
        yield ScannedQuantity(line_no, q)
    if numeric and len(found) == 1:
        for alt in _alternatives(found[0], cue):
            yield ScannedQuantity(line_no, alt, alternative=True)


_CAPTION = re.compile(r"(?ai)^\s*[(*_]*\s*(?:[$€£]|usd|eur|gbp)?\s*in\b|\((?:in\s|[$€£]|usd|eur)|^\W*(?:dollars|amounts)\s+in\b")


def _table_state(
    line: str, caption: tuple[float | None, str | None], columns: list[tuple[float | None, str | None]] | None
) -> tuple[tuple[float | None, str | None], list[tuple[float | None, str | None]] | None, list | None]:
    """Advance the caption/header state by one line; return the cells to parse with their contexts."""
    stripped = line.strip()
    if not stripped:
        return caption, columns, None
    if "|" not in stripped:
        if len(stripped) <= 120 and _CAPTION.search(stripped):
            ctx = detect_scale_context(stripped)
            if ctx != (None, None):
                return ctx, None, None
        return ((None, None) if columns is not None else caption), None, None
    if _TABLE_SEPARATOR.match(stripped):
        return caption, columns, []
    cells = split_table_row(line)
    if columns is None:
        # the first row of a table is its header: it gives each column its context
        cols = [_merge_context(caption, detect_scale_context(line[s:e])) for s, e in cells]
        return caption, cols, None if _looks_like_header(line, cells) else list(zip(cells, cols))
    contexts = [columns[i] if i < len(columns) else caption for i in range(len(cells))]
    return caption, columns, list(zip(cells, contexts))


# Lines `_table_state` may read as a caption, or that may be a numeric field (`_KEY_VALUE` with a `_NUMERIC_FIELD`
# value), found by searches of a whole text that start at a rare character (C speed). Each finds every such line
# and more: for `_CAPTION`, a line whose stripped text starts with '(', '*', '_', a currency sign, 'usd', 'eur', 'gbp'
# or 'in', or with signs and then 'dollars' or 'amounts', and a '(' before 'in', a currency sign, 'usd' or 'eur' (the
# first line of a text is left to the caller); for a field, a colon before one number and the line's end. A caller
# passing over the lines found by neither passes over no caption and no numeric field.
_CAPTION_LEADS = re.compile(r"\n(?:[ \t\r\x0b\x0c\x1c-\x1f]*(?i:[(*_$€£]|usd|eur|gbp|in)"
                            r"|[^A-Za-z0-9_\n]*(?i:dollars|amounts))|\((?i:in[ \t\r\x0b\x0c]|[$€£]|usd|eur)")
_FIELD_ENDS = re.compile(r"(?m):[ \t]+" + _NUMERIC_FIELD.pattern + r"[ \t]*$")


def caption_lines(text: str, starts: Sequence[int]) -> Iterator[int]:
    """Lines (1-based; `starts` are the text's line starts) after the first that may be a caption `_table_state`
    reads, and more."""
    for found in _CAPTION_LEADS.finditer(text):
        at = found.start()
        yield bisect.bisect_right(starts, at + 1 if text.startswith("\n", at) else at)


def numeric_field_lines(text: str, starts: Sequence[int]) -> Iterator[int]:
    """Lines (1-based) that may be a numeric field the scanner reads by its key ('revenue: 1,234'), and more."""
    for found in _FIELD_ENDS.finditer(text):
        yield bisect.bisect_right(starts, found.start())


def _looks_like_header(line: str, cells: list[tuple[int, int]]) -> bool:
    return sum(any(ch.isalpha() for ch in line[s:e]) for s, e in cells) >= max(1, len(cells) - 1) or all(
        _YEAR.fullmatch(line[s:e].strip().strip("*")) or any(ch.isalpha() for ch in line[s:e]) for s, e in cells
    )


def _merge_context(
    caption: tuple[float | None, str | None], column: tuple[float | None, str | None]
) -> tuple[float | None, str | None]:
    if column[1] in ("%", "pp", "bps", "x"):
        return None, column[1]
    return (column[0] if column[0] is not None else caption[0], column[1] if column[1] is not None else caption[1])


def split_table_row(line: str) -> list[tuple[int, int]]:
    """Spans of the cells of a markdown table row (content only, trimmed), in order."""
    spans: list[tuple[int, int]] = []
    bars = [i for i, ch in enumerate(line) if ch == "|" and (i == 0 or line[i - 1] != "\\")]
    edges = [-1, *bars, len(line)]
    for left, right in zip(edges, edges[1:]):
        s, e = left + 1, right
        while s < e and line[s].isspace():
            s += 1
        while e > s and line[e - 1].isspace():
            e -= 1
        if (left == -1 and s == e) or (right == len(line) and s == e):
            continue  # outside the leading / trailing bar
        spans.append((s, e))
    return spans
