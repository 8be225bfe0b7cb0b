"""The one vocabulary of the parser and the verifier, as data: currencies, scale words, units (with their
dimension and factor to the base unit), SI prefixes, financial line items and their synonyms, period words.

A new unit, scale word or line-item synonym is a row here; no other module lists them.
"""

from __future__ import annotations

import re

# -- currencies --------------------------------------------------------------------------------------------

CURRENCY_SYMBOLS: dict[str, str] = {
    "$": "USD", "US$": "USD", "U.S.$": "USD", "A$": "AUD", "AU$": "AUD", "C$": "CAD", "CA$": "CAD",
    "HK$": "HKD", "S$": "SGD", "NZ$": "NZD", "R$": "BRL", "€": "EUR", "£": "GBP", "¥": "JPY",
    "₹": "INR", "₩": "KRW", "₽": "RUB", "₺": "TRY", "Rs": "INR", "Rs.": "INR",
}
CURRENCY_CODES: tuple[str, ...] = (
    "USD", "EUR", "GBP", "JPY", "CHF", "CNY", "RMB", "INR", "AUD", "CAD", "HKD", "SGD", "NZD", "BRL",
    "KRW", "SEK", "NOK", "DKK", "ZAR", "MXN",
)
# the code a currency code stands for where two codes name one currency
CODE_ALIASES: dict[str, str] = {"RMB": "CNY"}
# Words after a number: (currency, value multiplier in the currency's main unit).
CURRENCY_WORDS: dict[str, tuple[str, float]] = {
    "dollar": ("USD", 1.0), "dollars": ("USD", 1.0), "us dollars": ("USD", 1.0),
    "u.s. dollars": ("USD", 1.0), "cent": ("USD", 0.01), "cents": ("USD", 0.01), "¢": ("USD", 0.01),
    "euro": ("EUR", 1.0), "euros": ("EUR", 1.0), "pounds sterling": ("GBP", 1.0),
    "pence": ("GBP", 0.01), "yen": ("JPY", 1.0), "yuan": ("CNY", 1.0), "renminbi": ("CNY", 1.0),
    "rupee": ("INR", 1.0), "rupees": ("INR", 1.0), "francs": ("CHF", 1.0),
    **{code.lower(): (CODE_ALIASES.get(code, code), 1.0) for code in CURRENCY_CODES},
}
# Currency names a caption or header may use ("(millions of dollars)", "(in euros)").
CURRENCY_NAMES: dict[str, str] = {"dollars": "USD", "euros": "EUR", "pounds": "GBP", "us$": "USD", "rmb": "CNY"}

# -- scales -----------------------------------------------------------------------------------------------

# Every spelling of a scale, lower-case, and its multiplier. Which spellings a context accepts (a lone
# letter only right after a number, '000s only in a caption) is the reader's rule, not a second list.
# "'000" / "000" is a column's or caption's scale written as the zeros its figures leave out ('$'000', 'US$'000',
# 'RMB'000', '$000', "in '000s"): thousands, never a figure 0 (readers take any apostrophe, ' or ’, for ').
SCALES: dict[str, float] = {
    "thousand": 1e3, "thousands": 1e3, "k": 1e3, "000s": 1e3, "'000s": 1e3, "000": 1e3, "'000": 1e3,
    "million": 1e6, "millions": 1e6, "mn": 1e6, "mln": 1e6, "mm": 1e6, "m": 1e6,
    "billion": 1e9, "billions": 1e9, "bn": 1e9, "bln": 1e9, "b": 1e9,
    "trillion": 1e12, "trillions": 1e12, "tn": 1e12, "t": 1e12,
}
SCALE_LETTERS = frozenset({"k", "m", "b", "t"})

# The words before 'in thousands' / 'in millions' of a caption that name no line item of their own: the scale they
# state is the whole table's ('Tabular amounts in millions', 'Dollars in thousands', 'all figures are in millions').
# Any other word names what it scales ('(shares in thousands, except per share data)', 'headcount in thousands'):
# where the caption states the table's scale as well, only rows or columns naming that word take it.
WHOLE_TABLE_SCALE_WORDS = frozenset({
    "amount", "amounts", "tabular", "dollar", "dollars", "figure", "figures", "number", "numbers", "value", "values",
    "data", "table", "tables", "information", "all", "are", "is", "be", "were", "was", "stated", "expressed",
    "presented", "reported", "shown", "given", "except", "unless", "otherwise", "and", "usd", "eur", "gbp", "rmb",
    "euro", "euros", "pound", "pounds", "yen", "currency", "totals", "balances", "unaudited",
})

# -- units ------------------------------------------------------------------------------------------------

# (kind, shown unit, factor to the base unit, system, spellings). Base units: C, km, kg, seconds. `system`
# tells two shown units related by a non-decimal conversion (their roundings add up when compared).
UNIT_ROWS: tuple[tuple[str, str, float, str, tuple[str, ...]], ...] = (
    ("length", "km", 1.0, "metric", ("km", "kms", "kilometer", "kilometers", "kilometre", "kilometres")),
    ("length", "m", 1e-3, "metric", ("m", "metre", "metres", "meter", "meters")),
    ("length", "cm", 1e-5, "metric", ("cm", "centimeter", "centimeters", "centimetre", "centimetres")),
    ("length", "mm", 1e-6, "metric", ("mm", "millimeter", "millimeters", "millimetre", "millimetres")),
    ("length", "mi", 1.609344, "imperial", ("mi", "mile", "miles")),
    ("length", "ft", 0.0003048, "imperial", ("ft", "foot", "feet")),
    ("length", "in", 0.0000254, "imperial", ("inch", "inches")),
    ("length", "yd", 0.0009144, "imperial", ("yd", "yds", "yard", "yards")),
    ("mass", "kg", 1.0, "metric", ("kg", "kgs", "kilogram", "kilograms", "kilo", "kilos")),
    ("mass", "g", 1e-3, "metric", ("g", "gram", "grams", "gm")),
    ("mass", "mg", 1e-6, "metric", ("mg", "milligram", "milligrams")),
    ("mass", "t", 1e3, "metric", ("tonne", "tonnes", "metric ton", "metric tons")),
    ("mass", "kt", 1e6, "metric", ("kilotonne", "kilotonnes", "kilotons")),
    ("mass", "Mt", 1e9, "metric", ("megatonne", "megatonnes", "megatons")),
    ("mass", "Gt", 1e12, "metric", ("gigatonne", "gigatonnes", "gigatons")),
    ("mass", "lb", 0.45359237, "imperial", ("lb", "lbs", "pound", "pounds")),
    ("mass", "oz", 0.028349523125, "imperial", ("oz", "ounce", "ounces")),
    ("duration", "s", 1.0, "decimal-time", ("s", "sec", "secs", "second", "seconds")),
    ("duration", "min", 60.0, "decimal-time", ("min", "mins", "minute", "minutes")),
    ("duration", "h", 3600.0, "decimal-time", ("h", "hr", "hrs", "hour", "hours")),
    ("duration", "d", 86400.0, "decimal-time", ("day", "days")),
    ("duration", "wk", 604800.0, "decimal-time", ("week", "weeks", "wk", "wks")),
    # months and years are not whole numbers of days: comparing them with days is a conversion
    ("duration", "mo", 2629746.0, "calendar", ("month", "months")),
    ("duration", "yr", 31556952.0, "calendar", ("year", "years", "yr", "yrs")),
    # speeds and pressures are told apart by their unit only: '50 psi' matches '50psi'
    ("number", "mph", 1.0, "decimal", ("mph", "miles per hour", "mile per hour", "miles an hour")),
    ("number", "km/h", 1.0, "decimal", ("km/h", "kph", "kmh", "kilometers per hour", "kilometres per hour")),
    ("number", "psi", 1.0, "decimal", ("psi",)),
)

# Physical dimensions read as `number` quantities whose unit is the symbol as shown ('GW') and whose value is
# in the dimension's base unit (W): 4.6 GW and 4,600 MW are one figure; 4.6 GW is never 4.6 GWh.
# symbol (case as written) -> (dimension, factor to the base unit)
SI_PREFIXES: dict[str, float] = {"": 1.0, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}
PHYSICAL_BASES: dict[str, str] = {"W": "power", "Wh": "energy", "J": "energy-joule", "VA": "apparent-power"}
PHYSICAL_SYMBOLS: dict[str, tuple[str, float]] = {
    **{p + base: (dimension, factor) for base, dimension in PHYSICAL_BASES.items() for p, factor in SI_PREFIXES.items()},
    "MWp": ("power-peak", 1e6), "GWp": ("power-peak", 1e9), "kWp": ("power-peak", 1e3),
    "L": ("volume", 1.0), "ML": ("volume", 1e6), "GL": ("volume", 1e9),
    "bbl": ("volume-oil", 1.0), "boe": ("oil-equivalent", 1.0), "mmbbl": ("volume-oil", 1e6),
    "m³": ("volume-m3", 1.0), "m3": ("volume-m3", 1.0),
    "tCO2e": ("emissions", 1.0), "MtCO2e": ("emissions", 1e6),
}
# Spelled-out physical units, matched without regard to case.
PHYSICAL_WORDS: dict[str, str] = {
    "watt": "W", "watts": "W", "kilowatt": "kW", "kilowatts": "kW", "megawatt": "MW", "megawatts": "MW",
    "gigawatt": "GW", "gigawatts": "GW", "terawatt": "TW", "terawatts": "TW",
    "watt-hours": "Wh", "kilowatt-hours": "kWh", "kilowatt hours": "kWh", "kilowatt-hour": "kWh",
    "megawatt-hours": "MWh", "megawatt hours": "MWh", "megawatt-hour": "MWh",
    "gigawatt-hours": "GWh", "gigawatt hours": "GWh", "gigawatt-hour": "GWh",
    "terawatt-hours": "TWh", "terawatt hours": "TWh", "terawatt-hour": "TWh",
    "litre": "L", "litres": "L", "liter": "L", "liters": "L", "barrel": "bbl", "barrels": "bbl",
    "cubic meters": "m³", "cubic metres": "m³",
}

# Dimensions of compound units: what an amount is divided by ('$ per kWh', 'Wh/kg'). An amount per such
# a unit is its own dimension: '$10 per kWh' is no '$10' and no '10 GW'.
PER_DENOMINATORS: tuple[str, ...] = (
    *PHYSICAL_SYMBOLS, "kg", "t", "tonne", "barrel", "bbl", "MMBtu", "mmbtu", "sq ft", "sqft", "km", "mile",
)

# -- financial line items -----------------------------------------------------------------------------------

# Financial metrics that reports name and data sources label; the phrases of one group are synonyms. A
# structured field labelled with one metric does not back a claim that names only others.
METRIC_GROUPS: dict[str, tuple[str, ...]] = {
    "revenue": ("revenue", "revenues", "sales", "net sales", "turnover", "top line"),
    "net income": ("net income", "net profit", "net earnings", "net loss", "profit", "bottom line"),
    "eps": ("eps", "earnings per share", "per share", "earnings per common share", "earnings per diluted share",
            "earnings per diluted common share", "earnings per basic share", "earnings per basic common share"),
    "gross margin": ("gross margin", "gross margins", "gross profit margin", "gross profit margins"),
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

# -- periods ----------------------------------------------------------------------------------------------

MONTH_NAMES: tuple[str, ...] = (
    "january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
    "november", "december",
)

# Words that place a figure in time ('at the end of the third quarter', 'the year-ago quarter', 'sequentially'),
# never name what it measures: two figures' clauses sharing only these are about different things.
PERIOD_WORDS: frozenset[str] = frozenset(
    """first second third fourth half quarter quarters quarterly year years yearly annual annually month months
    monthly week weeks end beginning start prior previous last next current ago yearago year-ago sequential
    sequentially today date period periods full""".split())

# Verbs of a figure that moved or was reached, in one table for every reader of them: one row per word form (a
# regular expression over lower-case text) with the readers that take it. The readers, and what the verb tells each:
#   base      '<verb> ... from' introduces the base a change is measured from ('rose 5% from $3.10'; BASE_BEFORE)
#   moved_by  '<verb> $55.4 million or $1.01 per share' states an amount a figure moved by (verify.match._MOVED_BY)
#   computed  the figure's own clause states a computed figure, a derivation cue (verify.derive._CUE_BEFORE)
#   relative  the claim states a relative change of its figures (verify.derive._RELATIVE_CHANGE)
#   actual    the figure happened, it is not one expected (FIGURE_QUALIFIERS['timing']['actual'])
# A reader takes a verb only where the three evals were measured with it ('dropped' is no 'actual': it also drops
# plans, one more clean RAGTruth response flagged); widen a reader by adding it to a row, then measure.
_ALL_READERS = frozenset({"base", "moved_by", "computed", "relative", "actual"})
MOVE_VERBS: tuple[tuple[str, frozenset[str]], ...] = (
    (r"increased", _ALL_READERS), (r"decreased", _ALL_READERS), (r"rose", _ALL_READERS), (r"fell", _ALL_READERS),
    (r"grew", _ALL_READERS), (r"declined", _ALL_READERS),
    (r"increase", frozenset({"base", "computed"})), (r"decrease", frozenset({"base", "computed"})),
    (r"decline", frozenset({"base", "computed"})),
    (r"improved", frozenset({"base", "moved_by", "actual"})), (r"climbed", frozenset({"base", "moved_by", "actual"})),
    (r"dropped", frozenset({"base", "moved_by", "relative"})), (r"gained", frozenset({"moved_by", "computed", "actual"})),
    (r"jumped", frozenset({"moved_by", "relative", "actual"})), (r"grow(?:n|s|th)?", frozenset({"relative"})),
    *((verb, frozenset({"actual"})) for verb in (
        r"reported", r"came\s+in", r"totall?ed", r"generated", r"earned", r"posted", r"recorded", r"surged",
        r"soared", r"escalated", r"expanded", r"slipped", r"advanced(?=\s+(?:by\s+)?(?:[$€£¥]?\d|$)|$)", r"slid",
        r"plunged", r"tumbled", r"shr[au]nk", r"contracted", r"reached", r"achieved", r"realized", r"realised",
        r"produced", r"amounted", r"accelerated", r"doubled", r"tripled", r"outpaced", r"spiked", r"skyrocketed",
        r"rebounded", r"recovered", r"dipped", r"sank", r"went\s+up", r"went\s+down")),
)


def move_verbs(reader: str) -> tuple[str, ...]:
    """The patterns of MOVE_VERBS that `reader` takes, in table order."""
    if reader not in _ALL_READERS:
        raise ValueError(f"unknown reader of MOVE_VERBS: {reader!r}; known: {sorted(_ALL_READERS)}")
    return tuple(verb for verb, readers in MOVE_VERBS if reader in readers)


# How prose marks a figure as the base a change is measured from, the earlier period's value ('up 40.6% from
# last year's $2.40', 'compared to $1.2 billion a year ago'): words right before the figure and right after it.
# A claim that states such a figure must name a comparison or an earlier period in its own clause (COMPARISON_WORDS).
# The words that introduce the base figure itself, in one place ('up from $4.8 billion', 'compared with', 'versus',
# 'against', '$5.52 from $4.10').
COMPARED_FROM: tuple[str, ...] = (
    r"(?:up|down)\s+from", r"compared\s+(?:to|with)", r"compares\s+(?:to|with)", r"versus", r"vs\.?", r"against",
    r"to\s+[$€£¥]?\d[\d.,]*%?(?:\s+(?:million|billion|thousand|percent))?\s+from",
)
BASE_BEFORE: tuple[str, ...] = (
    r"\b(?:up|down|" + "|".join(move_verbs("base")) + r")\s+(?:[\w.%]+\s+){0,3}?from",
    *(r"\b" + words for words in COMPARED_FROM), r"\b(?:last|prior|previous|preceding|linked)[- ](?:year|quarter|period)'?s?",
    r"\ba\s+year\s+ago", r"\b(?:(?:prior|previous|last)[- ]year|year[- ]ago|(?:19|20)\d\d)\s+levels?\s+of",
)
BASE_AFTER: tuple[str, ...] = (
    r"(?:(?:in|for|during)\s+)?(?:the\s+)?(?:prior|previous|preceding|linked|last|year[- ]ago|same)[- ](?:year|quarter|period)",
    r"(?:a|one)\s+year\s+(?:ago|earlier)", r"last\s+(?:year|quarter)",
    # a quarter of the year before ('$106.6 million in Q2 of last year', 'in the second quarter of the prior year')
    r"(?:(?:in|for|during)\s+)?(?:the\s+)?(?:(?:first|second|third|fourth)[-\s]quarter|q[1-4])\s+of\s+(?:the\s+)?"
    r"(?:last|prior|previous|preceding)[-\s]year",
)
COMPARISON_WORDS = frozenset(
    "from versus vs compared compare compares comparing comparison prior previous preceding linked last ago earlier before"
    " year-ago against"
    .split())

# Words that say a figure moved ('an increase of 207%', 'gross profit increasing 1%'), never what it measures.
CHANGE_WORDS = frozenset(
    """increase increases increasing decrease decreasing growth growing grow grows gain gains gained decline
    declines declining improve improves improved improving improvement higher lower rise rises rising drop drops
    dropped dropping jump jumped change changes changed expand expanded expansion""".split())

# What tells two figures of one metric apart, per axis ('adjusted diluted EPS of $2.55' and 'GAAP diluted EPS of
# $1.63'; 'grew 10.2% on a reported basis and 11.6% at constant currency'): a figure's clause that names one
# qualifier of an axis is no evidence for a claimed figure whose clause names another of the same axis. A clause
# that names none of an axis is left to the other tests ('earnings per share of $6.86' may be the adjusted one).
# Patterns are regular expressions over lower-case text; 'reported' counts only as a basis, not as a verb.
_REPORTED = r"(?:(?:on\s+an?|as|our|the|its|their|total)\s+reported|reported\s+basis)"
FIGURE_QUALIFIERS: dict[str, dict[str, tuple[str, ...]]] = {
    "basis": {
        "adjusted": (r"adjusted", r"non-?\s?gaap", r"excluding\s+(?:\w+\s+){0,3}?items?", r"adjusting\s+items?",
                     r"underlying", r"pro\s+forma"),
        "gaap": (r"(?<!non-)(?<!non\s)gaap", _REPORTED),
    },
    "currency": {
        "constant currency": (r"constant[-\s]currency", r"currency[-\s]neutral", r"fx[-\s]neutral", r"organic(?:ally)?",
                              r"excluding\s+(?:the\s+)?(?:impact\s+of\s+)?(?:foreign\s+)?(?:currency|fx)"),
        "reported": (_REPORTED,),
    },
    "shares": {"diluted": (r"diluted",), "basic": (r"basic",)},
    "level": {"net": (r"net(?!\s+of\b)",), "gross": (r"gross",), "operating": (r"operating",)},
    # whether a figure is one that happened or one expected ('is expected to surpass $466,000' by 'the average selling
    # price ... increased 6% to about $466,000'; 'EPS increased 20.9% to $9.95' by 'we now expect EPS to be between
    # $9.95 and $10.25'): guidance and the actual figure of one metric are two figures
    "timing": {
        "expected": (r"(?<!than\s)expect(?:s|ed|ing)?", r"anticipat\w*", r"guid(?:ance|ed|ing)", r"outlook",
                     r"forecast\w*", r"project(?:s|ed|ing|ions?)", r"predict\w*"),
        # verbs in the past tense that say a figure was reached, whichever word a summary picks for it ('escalated
        # by 20.9%', 'surged', 'slipped'), not only the ones a call used (MOVE_VERBS)
        "actual": move_verbs("actual"),
    },
    # the period a change is measured against: the quarter before ('up 3% sequentially', 'than the linked quarter') or
    # the same period a year before ('up 10% year over year', 'than the year-ago quarter'); 'up 28% year-over-year and
    # 20% compared to 2019' are two changes of one metric, and a quarter's growth on the one is no evidence on the other
    "comparison": {
        "sequential": (r"sequential(?:ly)?", r"quarter[-\s]over[-\s]quarter", r"q/q", r"qoq",
                       r"(?:prior|previous|preceding|linked|last)[-\s]quarter(?:'s)?"),
        "year-over-year": (r"year[-\s]over[-\s]year", r"y/y", r"yoy", r"year[-\s]ago", r"(?:a|one)\s+year\s+(?:ago|earlier)",
                           r"(?:prior|previous|preceding|last)[-\s]year(?:'s)?", r"same\s+(?:quarter|period)\s+(?:of\s+)?last\s+year"),
    },
    # what a count of sales or orders measures: their dollar value or their number ('the dollar value of net orders
    # increased 89% ..., and unit net orders increased by 73%'); a unit of an organisation or an amount per unit is
    # neither
    "measure": {
        "dollars": (r"dollar\s+(?:value|volume|amount)s?", r"in\s+dollars", r"dollar[-\s]based"),
        "units": (r"(?<!business\s)(?<!reporting\s)(?<!operating\s)(?<!per\s)(?<!storage\s)units?(?!\s+of\b)",
                  r"in\s+units", r"number\s+of\s+(?:homes|units|vehicles|cars)"),
    },
    # the span a figure covers: the quarter's or the whole year's ('fourth-quarter revenue of $3.6 billion' is no
    # full-year revenue); 'year-over-year' and 'prior-year quarter' name a comparison, not a span
    "span": {
        "quarter": (r"(?:first|second|third|fourth|1st|2nd|3rd|4th)[-\s]quarter", r"q[1-4]", r"[1-4]q",
                    r"(?:the|this|that)\s+quarter", r"quarterly", r"three\s+months"),
        "year": (r"full[-\s]year", r"(?:the|this|that)\s+(?:full\s+|fiscal\s+)?year(?![-\s](?:over|ago|earlier))",
                 r"annual(?:ly)?", r"twelve\s+months", r"12\s+months", r"fiscal\s+year"),
    },
}

# Words that link a figure to what it amounts to ('representing growth of 4.8%', 'signifying', 'which reflects'),
# never what it measures: a clause that shares only these with a source sentence names another subject.
LINK_WORDS = frozenset(
    """represent represents representing represented signify signifies signifying indicate indicates indicating
    reflect reflects reflecting reflected mean means meaning amount amounts amounting""".split())

# -- arithmetic ---------------------------------------------------------------------------------------------

# The words by which a report says it computed a figure, per operation. A table derivation of a kind is tried
# only when the claim says one of its words: '47% and 43%, respectively' is no mean, 'the change' no ratio.
FORMULA_CUES: dict[str, tuple[str, ...]] = {
    "mean": ("average", "averaged", "mean", "avg"),
    "sum": ("total", "totals", "totalled", "totaled", "sum", "combined", "together", "altogether", "aggregate",
            "plus", "added", "in all"),
    "difference": ("change", "changed", "difference", "differ", "increase", "increased", "decrease", "decreased",
                   "more", "less", "higher", "lower", "gap", "minus", "exceed", "exceeded", "rose", "fell", "grew",
                   "declined", "dropped", "up", "down", "between", "from", "compared", "versus", "vs"),
    "change": ("change", "changed", "increase", "increased", "decrease", "decreased", "growth", "grew", "rose",
               "fell", "declined", "dropped", "up", "down", "percentage", "percent"),
    "ratio": ("ratio", "proportion", "percentage", "percent", "share", "portion", "fraction", "over", "divided",
              "per", "of total", "as a", "constitution", "constitutes", "margin", "rate", "times", "coverage",
              "yield", "out of"),
}
# issue 10, derivation (branch issue-10d): a compound annual growth rate, and a share of a total
FORMULA_CUES["cagr"] = ("cagr", "compound", "compounded", "annualized", "annualised", "annual growth", "annual rate",
                        "a year", "per year", "per annum")
FORMULA_CUES["share"] = ("share", "made up", "make up", "makes up", "accounted for", "account for", "accounts for",
                         "represented", "represents", "portion", "proportion", "of total", "of the total")

# The direction a change's own words give its figure (issue 10, stop 32): +1 a rise, -1 a fall ('fell 28.0%', 'was
# down 28%', 'a decrease of $8.6 million', 'lower by 5%', '28% lower'). Words of a change without its sign ('changed
# by', 'the difference', 'moved') give none. Regular expressions over lower-case words; 'up to' is a bound, and
# 'gains' names a metric as often as a move ('the difference in gains on the sale of restaurants').
CHANGE_DIRECTIONS: dict[int, tuple[str, ...]] = {
    1: (r"increas(?:e|es|ed|ing)", r"rose", r"rise[ns]?", r"rising", r"gr[eo]w(?:s|n|ing|th)?", r"up(?!\s+to\b)",
        r"higher", r"climb(?:s|ed|ing)?", r"jump(?:s|ed|ing)?", r"surg(?:e|es|ed|ing)", r"soar(?:s|ed|ing)?",
        r"gained"),
    -1: (r"decreas(?:e|es|ed|ing)", r"declin(?:e|es|ed|ing)", r"fell", r"fall(?:s|en|ing)?", r"drop(?:s|ped|ping)?",
         r"down", r"lower", r"reduc(?:e|es|ed|ing|tion)", r"shr[aiu]nk(?:s|ing)?", r"slipped", r"slid",
         r"dipped", r"sank", r"plung(?:e|es|ed|ing)", r"tumbl(?:e|es|ed|ing)"),
}

# Words that cue a difference only where the claim names two periods ('from 2018 to 2019', 'between FY18 and
# FY19'); elsewhere they are prepositions ('revenue from Apple', 'the split between segments').
PERIOD_PAIR_CUES = frozenset({"between", "from", "compared", "versus", "vs"})

# Words by which a claim says its unit-less figure is a rate ('the penetration rate was 47.1', 'the percentage of
# revenue was 12.5'): such a figure may be a cell a '%' header made a percentage (verify.match.percent_cell_apart).
RATE_WORDS = frozenset({"percent", "percentage", "percentages", "rate", "rates", "ratio", "proportion", "margin",
                        "margins", "yield"})

# The base a ratio word implies when the claim names only its numerator: a margin is over revenue.
RATIO_BASES: dict[str, str] = {"margin": "revenue", "margins": "revenue"}

# Named ratios and what they divide: each side the rows one of whose labels it lists ('Total current assets' is
# 'current assets'; 'Total' is no word of a side). The name must stand in the claim ('current ratio', hyphens
# read as spaces); a claim naming a ratio of other rows gets no derivation from these.
RATIO_DEFINITIONS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "current ratio": (("current assets",), ("current liabilities",)),
    "debt to asset ratio": (("liabilities", "debt"), ("assets",)),
    "debt to assets ratio": (("liabilities", "debt"), ("assets",)),
    "debt to equity ratio": (("liabilities", "debt"), ("equity",)),
}

# -- label axes ---------------------------------------------------------------------------------------------

# Pairs of words that split one line item in two (issue 10, trust): a table cell whose row label, section row or
# column header names one side of an axis is no evidence for a claim that names the other side and not this one
# ('due after more than one year' is never the subtotal 'due within one year'; 'diluted' EPS is not 'basic').
# A label or claim naming neither side, or both, is left to the other tests. Patterns are regular expressions
# over lower-case text, each side's own; 'current' is a time word before 'year', 'period', 'quarter' or 'month'.
_YEARS = r"(?:\d{1,2}|one|two|three|four|five|ten|twelve)[-\s](?:years?|months)"
LABEL_AXES: dict[str, dict[str, tuple[str, ...]]] = {
    # the buckets of a maturity table: due within a span, or after it ('Less than 1 year' | '1-3 years' | 'More
    # than 5 years'); a bucket between two spans ('1-3 years') names neither side
    "maturity": {
        "within": (r"(?:within|less\s+than|up\s+to|under)\s+(?:the\s+next\s+)?" + _YEARS,
                   _YEARS + r"\s+or\s+(?:less|below|under|fewer)", r"(?:not|no)\s+later\s+than\s+" + _YEARS),
        "after": (r"(?:after|over|beyond|more\s+than|later\s+than|exceeding|greater\s+than)\s+(?:more\s+than\s+)?" + _YEARS,
                  _YEARS + r"\s+or\s+(?:more|longer|over|above)", r"thereafter"),
    },
    "current": {
        "current": (r"(?<!non-)(?<!non)(?<!non\s)(?<!not\s)current(?![-\s](?:year|period|quarter|month|fiscal|ratio|tax))",),
        "non-current": (r"non-?\s?current", r"noncurrent", r"not\s+current"),
    },
    "term": {"short-term": (r"short[-\s]term",), "long-term": (r"long[-\s]term",)},
    "tax": {"current tax": (r"current\s+(?:income\s+)?tax(?:es)?",), "deferred tax": (r"deferred\s+(?:income\s+)?tax(?:es)?",)},
    "taxation": {
        "before tax": (r"before\s+(?:income\s+)?tax(?:es|ation)?", r"pre-?\s?tax"),
        "after tax": (r"after\s+(?:income\s+)?tax(?:es|ation)?", r"after-tax", r"net\s+of\s+(?:income\s+)?tax(?:es)?"),
    },
    # 'net' only as a level of an amount that also has a gross one: 'net sales' and 'net revenue' are what a
    # gross margin divides by, never a side of it
    "level": {"gross": (r"gross",),
              "net": (r"net(?!\s+(?:of|sales|revenues?|cash|income|loss|earnings|profit|debt)\b)",)},
    "shares": {"basic": (r"basic",), "diluted": (r"diluted",)},
    "operations": {"continuing": (r"continuing",), "discontinued": (r"discontinued",)},
    "origin": {"domestic": (r"domestic",), "foreign": (r"foreign(?!\s+(?:currency|exchange))", r"international")},
    # the ends of a price range ('Low | High' under a stock price table's quarter rows)
    "bound": {"low": (r"low(?:est)?",), "high": (r"high(?:est)?",)},
    # the columns of a restatement or an adoption ('As reported | Adjustments | As adjusted'): the balance before,
    # the effect, the balance after ('adjustment' after 'before the' or 'after the' names the balance, not the effect)
    "restatement": {
        "reported": (r"as\s+(?:previously\s+|originally\s+)?reported", r"(?:previously|originally)\s+reported",
                     r"before\s+(?:the\s+)?(?:adjustments?|restatement)"),
        "adjusted": (r"as\s+(?:adjusted|restated|revised)", r"restated",
                     r"after\s+(?:the\s+)?(?:adjustments?|restatement)"),
        "effect": (r"(?<!before\sthe\s)(?<!after\sthe\s)(?<!before\s)(?<!after\s)adjustments?",
                   r"(?:effects?|impacts?)\s+of\s+(?:the\s+)?(?:change|adoption|restatement)"),
    },
}

# The numbers below twenty written as words ('five stores', 'within twelve months'): the quantity parser's and the
# maturity buckets' one table
NUMBER_WORDS: dict[str, int] = {
    w: i for i, w in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen"
        " seventeen eighteen nineteen".split()
    )
}

# The span of a maturity bucket, in months from the report's date, that a label or claim names: 'less than 1 year'
# and 'within twelve months' are 0-12, '1-3 years' and 'between one and three years' 12-36, 'more than 5 years' and
# 'after five years' 60 onwards. Each bucket is a side of the 'maturity' axis of its own, so a figure of one bucket is
# no evidence for a claim of another (the 'within' and 'after' sides above stay: 'thereafter' names no span).
_SPAN_NUMBER = r"(\d{1,2}|one|two|three|four|five|six|seven|eight|nine|ten|twelve)"
MATURITY_SPANS: tuple[tuple[str, str], ...] = (
    ("range", r"(?:between\s+|from\s+)?" + _SPAN_NUMBER + r"\s*(?:-|\u2013|\u2014|to|and|through)\s*" + _SPAN_NUMBER
     + r"[-\s]+(years?|months)"),
    ("within", r"(?:within|less\s+than|up\s+to|under|(?:not|no)\s+later\s+than)\s+(?:the\s+next\s+)?"
     + _SPAN_NUMBER + r"[-\s]+(years?|months)"),
    ("within", _SPAN_NUMBER + r"[-\s]+(years?|months)\s+or\s+(?:less|below|under|fewer)"),
    ("after", r"(?:after|over|beyond|more\s+than|later\s+than|exceeding|greater\s+than)\s+(?:more\s+than\s+)?"
     + _SPAN_NUMBER + r"[-\s]+(years?|months)"),
    ("after", _SPAN_NUMBER + r"[-\s]+(years?|months)\s+or\s+(?:more|longer|over|above)"),
)


# A whole number followed by the plural noun it counts, with at most two words between ('12 stores', '5 operating
# segments', '7 new countries', '830 people'); time words are durations and 'times' a multiple, never a count.
COUNTED_NOUN = re.compile(
    r"[ \u00a0]+(?:(?!(?:and|or|of|the|to|in|at|on|for|from|by|with|than|per|its|their|each)\b)[A-Za-z][a-z-]*[ \u00a0]+){0,2}?"
    r"(?!(?:times|years|months|weeks|days|hours|minutes|seconds|quarters|decades|percent|points|basis|is|was|has|as|its|this|thus|less|plus"
    # measures, not counted things: '2 cups', '9 cubic yards', '4 bits', '80 degrees'
    r"|cups|tablespoons|teaspoons|ounces|pounds|grams|kilograms|yards|feet|inches|miles|liters|litres|gallons|quarts"
    r"|pints|degrees|bits|bytes|cloves|slices|pieces|servings|doses)\b)"
    r"(?:[a-z][a-z-]{2,}s|people|staff|personnel|children|men|women)\b"
)


# Nouns that count the kinds of a whole's parts ('how many components are there under alternative investments', 'the
# number of categories of share-based expense'): a count of the rows of a table's section or total, where a count of
# other things ('how many stores') may be any cell's figure.
PART_KINDS: tuple[str, ...] = (
    "components", "categories", "types", "kinds", "classes", "items", "line items", "elements", "parts", "groups",
)
