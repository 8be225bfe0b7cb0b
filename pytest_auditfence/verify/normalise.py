"""Stage 2, normalisation: which figures are too weak to check, how many digits a figure shows, which kinds
of quantity are comparable, and the cues (degree marks, fractions, negative words) that restate a figure.
"""

from __future__ import annotations

import re

from pytest_auditfence.claims import vocabulary
from pytest_auditfence.models import Quantity
from pytest_auditfence.verify.sources import LITERAL_NUMBER, WEAK_LIMIT


QUOTE_CHARS = "\"'\u2018\u2019\u201a\u201b\u201c\u201d\u201e\u201f`\u00ab\u00bb"


QUOTE_CLASS = "[" + re.escape(QUOTE_CHARS) + "]"


# "52-week high", "10-year Treasury", "a 24-hour period": a number joined to its unit by a hyphen is a
# compound adjective that names a kind of thing (a metric, an instrument), not a measured amount.
_COMPOUND_ADJECTIVE = re.compile(r"\d[\d,.]*-[A-Za-z]+")


def is_weak(q: Quantity) -> bool:
    if q.kind in ("duration", "length", "mass") and _COMPOUND_ADJECTIVE.fullmatch(q.text):
        return True
    if q.kind in ("number", "count") and _PRECISE_DECIMAL.search(q.text):
        return False  # '0.75', '1.66667': a figure shown to two decimals is no chance match
    return q.kind in ("number", "count") and not q.unit and q.scale == 1.0 and abs(q.value) < WEAK_LIMIT


_PRECISE_DECIMAL = re.compile(r"\.\d{2,}")


# A whole number followed by the plural noun it counts: one pattern with the claims layer's spelled counts
_COUNTED_NOUN = vocabulary.COUNTED_NOUN


def counts_a_noun(text: str, q: Quantity, offset: int = 0) -> bool:
    """Is the small whole number `q` (at `q.start - offset` in `text`) a count of the noun after it ('5 segments')?

    Such a count is a figure the report claims like any amount, so it is checked, where a bare small number
    ('rank 3', 'in 2 of the years') would match some cell or line by chance: a perturbed '6 segments' must come
    out flagged, not `unverifiable`."""
    if q.kind not in ("number", "count") or q.unit or q.scale != 1.0 or q.value != int(q.value) or q.value < 0:
        return False
    start, end = q.start - offset, q.end - offset
    if start < 0 or end > len(text):
        return False
    if start > 0 and text[start - 1] in "x×*/^":
        return False  # a size or a formula ('6x8 speakers', '2^4'), no count
    return _COUNTED_NOUN.match(text, end) is not None


_FAMILY = {"currency": "amount", "number": "amount", "count": "amount"}


def same_family(a: Quantity, b: Quantity) -> bool:
    return _FAMILY.get(a.kind, a.kind) == _FAMILY.get(b.kind, b.kind)


# An unannounced sum or difference must give a figure at least this specific: two dozen small or round
# figures of a how-to passage give '5', '10', '15' or '$500' as some sum or difference by chance, while
# '198' or '1,036' from a statement's lines does not come about by accident.
SPECIFIC_DIGITS = 3


def significant_digits(text: str) -> int:
    """Digits of the first number in `text` that carry information ('1,036' 4, '500' 1, '0.71' 2)."""
    m = LITERAL_NUMBER.search(text)
    if m is None:
        return 0
    number = m.group().replace(",", "")
    digits = number.replace(".", "").lstrip("0")
    return len(digits if "." in number else digits.rstrip("0"))


DEGREE_MARK = re.compile(r"[ \u00a0]?(?:[°º˚]|(?i:degrees?|deg)\b)")


# in a source, a bare number reads as a temperature by a degree sign, a scale letter ('35 C (95 F)'),
# or as the first end of a range whose second end has one ('18 to 20 degrees')
SOURCE_DEGREE = re.compile(
    r"(?:\s?(?:-|–|to|and)\s?\d+(?:\.\d+)?)?[ \u00a0]?(?:[AÂ]?[°º˚]|(?i:degrees?|deg)\b|[FC]\b)"
)


UNIT_BEARING = ("temperature", "duration", "length", "mass")


# A fraction standing for a percentage ('gross_margin: 0.4421' for '44.2%'): written with a decimal point
# and at least two decimals, below this in size (a growth of 250% is 2.5).
FRACTION_LIMIT = 10.0


DECIMALS = re.compile(r"\d*\.(\d{2,})")


# Words that make the figure after them a negative amount: 'a loss of', 'fell 3.4%', 'down $2 billion'.
NEGATIVE_CUE = re.compile(
    r"(?i)\b(?:loss(?:es)?|lost|los[ei]ng|deficit|decline[sd]?|declining|fell|falls?|falling|dropped|drops?|down|decrease[sd]?|"
    r"decreasing|shr[au]nk|shrinks?|contraction|negative|outflows?|minus"
    # what a roll-forward or a cash flow table deducts, in parentheses: 'shares vested (365,223)', 'dividends paid'
    r"|vested|forfeited|forfeitures?|cancell?ed|expired|exercised|repurchased|redeemed|repaid|paid)\b(?:\W+\w+){0,3}"
    # the verb that states the figure is no word between ('forfeited in 2019 came to 12,632', 'stood at')
    r"(?:\W+(?:came\s+to|amounted\s+to|stood\s+at|totall?ed|reached))?\W*$"
)


# 'per employee', 'per customer', 'per square foot': an amount per counted thing (not a rate per period).
PER_UNIT = re.compile(r"(?i)\bper\s+(?!cent\b|annum\b|year\b|quarter\b|month\b|week\b|day\b|hour\b)[a-z]{3,}")


# A restatement in other units may be rounded the way people round conversions (350 °F is "175 °C" or
# "180 °C", 176.7 exactly; 400 °F is "200 °C", 204.4): up to this fraction of the value, beyond both
# figures' precision.
CONVERSION_SLACK = 0.025


CONVERTIBLE = ("temperature", "length", "mass", "duration")
