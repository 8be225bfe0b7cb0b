"""A Firn-style financial pipeline: four specialists fan out from START and fan in to one synthesizer.

Owns the sample data tools, the specialist and synthesizer nodes, `build_app(fabricate=...)` and `PLANTED`.
"""

# The company, Halvorsen Robotics Inc. (ticker HALV), is fictional and every figure is illustrative
# sample data. Nodes are deterministic Python written the way agents behave: each specialist calls its
# own tools and composes a markdown sub-report from what they returned; the synthesizer sees only the
# sub-reports (never the tools) and writes the final report from them.
#
# Tools are LangChain `@tool` functions that the nodes invoke with the node's own `config`, rather than
# through a `ToolNode`: a `ToolNode` executes the `tool_calls` of an LLM message, and these nodes have
# no LLM. Invoking the tool with the node's config makes it a child run of the node, so callback
# handlers (and later the capture layer) see every tool call attributed to the node that made it,
# exactly as they would for a tool called by an agent.

from __future__ import annotations

import json
import re
from decimal import Decimal
from typing import Any, Callable

from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import tool
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.graph.state import CompiledStateGraph

Node = Callable[..., dict[str, list[BaseMessage]]]

TICKER = "HALV"
COMPANY = "Halvorsen Robotics Inc."

# node name -> the source label its findings are cited with in the final report
SOURCE_LABELS: dict[str, str] = {
    "filings": "10-K",
    "price_history": "price history",
    "analyst_estimates": "analyst estimates",
    "macro_indicators": "macro indicators",
}
SPECIALISTS: tuple[str, ...] = tuple(SOURCE_LABELS)
SYNTHESIZER = "synthesizer"

# The fabrications that `build_app(fabricate=True)` plants, one per depth of the pipeline. `sentence` is
# verbatim in the final report; `figure` is the planted figure inside it; `node` introduced it.
PLANTED: list[dict[str, str]] = [
    {
        "kind": "specialist_invented",
        "node": "price_history",
        "sentence": "Average daily trading volume: 2.7 million shares (source: price history).",
        "figure": "2.7 million shares",
        "note": "No price tool reports volume; the specialist invented it in its sub-report and the "
        "synthesizer carried it into the final report.",
    },
    {
        "kind": "synthesizer_altered",
        "node": SYNTHESIZER,
        "sentence": "Net income was $181 million in FY2024 (source: 10-K).",
        "figure": "$181 million",
        "note": "The filings sub-report says $151 million; the synthesizer changed the figure.",
    },
    {
        "kind": "misattributed",
        "node": SYNTHESIZER,
        "sentence": "Management guides to FY2025 EPS of $2.85 (source: 10-K).",
        "figure": "$2.85",
        "note": "$2.85 is the analysts' consensus EPS (source: analyst estimates), not a 10-K figure.",
        "found_in": "analyst_estimates",
    },
]


def _payload(data: dict[str, Any]) -> str:
    # Tools answer with a JSON string, as data APIs do; sorted keys keep traces byte-stable.
    return json.dumps(data, indent=2, sort_keys=True)


def _check_ticker(ticker: str) -> None:
    if ticker != TICKER:
        raise ValueError(
            f"financial_app: no sample data for ticker {ticker!r}; this example only holds data for "
            f"{TICKER!r} ({COMPANY}, fictional). Ask for {TICKER}, e.g. 'Analyze {TICKER}'."
        )


# --- filings tools (source: 10-K) -------------------------------------------------------------------


def _answer(source: str, ticker: str, **fields: Any) -> str:
    _check_ticker(ticker)
    return _payload({"source": source, "ticker": ticker, **fields})


def _filing_table(ticker: str, units: str, **table: list[dict[str, Any]]) -> str:
    document = "Form 10-K for the fiscal year ended 2024-12-31 (fictional sample filing)"
    return _answer("10-K", ticker, company=COMPANY, document=document, units=units, **table)


@tool
def get_income_statement(ticker: str) -> str:
    """Income statement lines from the company's latest 10-K, FY2024 and FY2023, in USD millions."""
    rows = [
        {"line_item": "Revenue", "FY2024": 1234, "FY2023": 1102},
        {"line_item": "Gross profit", "FY2024": 510, "FY2023": 447},
        {"line_item": "Gross margin (%)", "FY2024": 41.3, "FY2023": 40.6},
        {"line_item": "Operating income", "FY2024": 198, "FY2023": 167},
        {"line_item": "Net income", "FY2024": 151, "FY2023": 129},
        {"line_item": "Diluted EPS (USD)", "FY2024": 2.41, "FY2023": 2.06},
    ]
    return _filing_table(ticker, "USD millions, except per-share amounts and percentages", rows=rows)


@tool
def get_segment_revenue(ticker: str) -> str:
    """Revenue by reportable segment from the company's latest 10-K, in USD millions."""
    segments = [
        {"segment": "Industrial Automation", "FY2024": 702, "FY2023": 641},
        {"segment": "Logistics Robotics", "FY2024": 388, "FY2023": 335},
        {"segment": "Services", "FY2024": 144, "FY2023": 126},
    ]
    return _filing_table(ticker, "USD millions", segments=segments)


# --- price history tools ------------------------------------------------------------------------------

_MONTH_END_CLOSES: list[tuple[str, float]] = [
    ("2024-01-31", 39.05),
    ("2024-02-29", 37.80),
    ("2024-03-28", 36.45),
    ("2024-04-30", 34.10),
    ("2024-05-31", 38.35),
    ("2024-06-28", 41.60),
    ("2024-07-31", 43.25),
    ("2024-08-30", 40.85),
    ("2024-09-30", 44.15),
    ("2024-10-31", 47.30),
    ("2024-11-29", 45.95),
    ("2024-12-31", 46.20),
]


@tool
def get_closing_prices(ticker: str) -> str:
    """Month-end closing prices in USD for the last twelve months."""
    closes = [{"date": day, "close": close} for day, close in _MONTH_END_CLOSES]
    return _answer("price history", ticker, currency="USD", closes=closes)


@tool
def get_price_statistics(ticker: str) -> str:
    """52-week range and trailing returns of the share price, as of the last trading day."""
    return _answer(
        "price history",
        ticker,
        as_of="2024-12-31",
        currency="USD",
        high_52w=48.90,
        low_52w=33.15,
        return_1y_pct=18.6,
        return_3m_pct=4.6,
    )


# --- analyst estimate tools ---------------------------------------------------------------------------


@tool
def get_consensus_estimates(ticker: str) -> str:
    """Consensus EPS estimates and 12-month price targets of the covering analysts."""
    eps = [
        {"fiscal_year": "FY2025", "eps_usd": 2.85, "estimates": 14},
        {"fiscal_year": "FY2026", "eps_usd": 3.32, "estimates": 11},
    ]
    targets = {"mean": 52.00, "high": 61.00, "low": 40.00}
    return _answer("analyst estimates", ticker, eps_consensus=eps, price_target_usd=targets)


@tool
def get_rating_counts(ticker: str) -> str:
    """How many covering analysts rate the shares buy, hold and sell."""
    return _answer("analyst estimates", ticker, buy=9, hold=5, sell=1)


# --- macro indicator tools ----------------------------------------------------------------------------

_MACRO_SERIES: dict[str, dict[str, Any]] = {
    "cpi_yoy": {"label": "CPI inflation, year over year", "value": 2.9, "unit": "percent", "period": "2024-12"},
    "fed_funds_rate": {"label": "Effective federal funds rate", "value": 4.33, "unit": "percent", "period": "2024-12"},
    "gdp_growth": {"label": "Real GDP growth, annualized", "value": 2.3, "unit": "percent", "period": "2024-Q4"},
    "unemployment_rate": {"label": "Unemployment rate", "value": 4.1, "unit": "percent", "period": "2024-12"},
}


@tool
def get_macro_indicator(series: str) -> str:
    """Latest value of one macro series: cpi_yoy, fed_funds_rate, gdp_growth or unemployment_rate."""
    if series not in _MACRO_SERIES:
        raise ValueError(
            f"get_macro_indicator: unknown series {series!r}; known series: {', '.join(sorted(_MACRO_SERIES))}."
        )
    return _payload({"source": "macro indicators (illustrative sample dataset)", "series": series, **_MACRO_SERIES[series]})


# --- specialists -------------------------------------------------------------------------------------


def _millions(value: float) -> str:
    return f"${value:,.0f} million"


def _sub_report(title: str, facts: list[tuple[str, str]], notes: list[str]) -> str:
    # One labelled bullet per figure: the synthesizer reads these bullets and nothing else.
    lines = [f"## {title}", ""]
    lines += [f"- **{label}**: {value}" for label, value in facts]
    if notes:
        lines += ["", *notes]
    return "\n".join(lines) + "\n"


def _ticker_from(state: MessagesState) -> str:
    requests = [m for m in state["messages"] if m.type == "human"]
    if not requests:
        raise ValueError(
            "financial_app: the input has no user message; pass {'messages': [('user', 'Analyze HALV')]}."
        )
    text = str(requests[-1].content)
    words = re.findall(r"\b[A-Z]{2,5}\b", text)
    if not words:
        raise ValueError(f"financial_app: found no ticker in the request {text!r}; ask e.g. 'Analyze {TICKER}'.")
    ticker = TICKER if TICKER in words else words[0]
    _check_ticker(ticker)
    return ticker


def _message(node: str, content: str) -> dict[str, list[BaseMessage]]:
    return {"messages": [AIMessage(content=content, name=node)]}


def filings(state: MessagesState, config: RunnableConfig) -> dict[str, list[BaseMessage]]:
    """Reads the 10-K income statement and segment table and reports the key lines."""
    ticker = _ticker_from(state)
    income = json.loads(get_income_statement.invoke({"ticker": ticker}, config=config))
    segments = json.loads(get_segment_revenue.invoke({"ticker": ticker}, config=config))
    rows = {row["line_item"]: row for row in income["rows"]}
    revenue = rows["Revenue"]
    growth = (revenue["FY2024"] - revenue["FY2023"]) / revenue["FY2023"] * 100
    facts = [
        ("Revenue FY2024", _millions(revenue["FY2024"])),
        ("Revenue FY2023", _millions(revenue["FY2023"])),
        ("Revenue growth FY2024", f"{growth:.1f}%"),
        ("Net income FY2024", _millions(rows["Net income"]["FY2024"])),
        ("Net income FY2023", _millions(rows["Net income"]["FY2023"])),
        ("Gross margin FY2024", f"{rows['Gross margin (%)']['FY2024']:.1f}%"),
    ]
    for segment in segments["segments"]:
        facts.append((f"{segment['segment']} revenue FY2024", _millions(segment["FY2024"])))
        facts.append((f"{segment['segment']} revenue FY2023", _millions(segment["FY2023"])))
    notes = ["Revenue growth is computed from FY2024 and FY2023 revenue as reported in the 10-K."]
    return _message("filings", _sub_report(f"Filings review: {ticker} (source: 10-K)", facts, notes))


def _price_history(fabricate: bool) -> Node:
    def price_history(state: MessagesState, config: RunnableConfig) -> dict[str, list[BaseMessage]]:
        """Reads the closing prices and price statistics and reports the share price picture."""
        ticker = _ticker_from(state)
        closes = json.loads(get_closing_prices.invoke({"ticker": ticker}, config=config))["closes"]
        stats = json.loads(get_price_statistics.invoke({"ticker": ticker}, config=config))
        last = closes[-1]
        facts = [
            (f"Closing price on {last['date']}", f"${last['close']:.2f}"),
            ("52-week high", f"${stats['high_52w']:.2f}"),
            ("52-week low", f"${stats['low_52w']:.2f}"),
            ("One-year return", f"{stats['return_1y_pct']:.1f}%"),
            ("Three-month return", f"{stats['return_3m_pct']:.1f}%"),
        ]
        if fabricate:
            # Planted (PLANTED[0]): no tool reported volume; an agent "filling in" a typical metric.
            facts.append(("Average daily trading volume", "2.7 million shares"))
        return _message("price_history", _sub_report(f"Price history: {ticker}", facts, []))

    return price_history


def analyst_estimates(state: MessagesState, config: RunnableConfig) -> dict[str, list[BaseMessage]]:
    """Reads consensus estimates and rating counts and reports the street view."""
    ticker = _ticker_from(state)
    estimates = json.loads(get_consensus_estimates.invoke({"ticker": ticker}, config=config))
    ratings = json.loads(get_rating_counts.invoke({"ticker": ticker}, config=config))
    facts = [(f"Consensus EPS {row['fiscal_year']}", f"${row['eps_usd']:.2f}") for row in estimates["eps_consensus"]]
    targets = estimates["price_target_usd"]
    facts += [
        ("Mean price target", f"${targets['mean']:.2f}"),
        ("Price target range", f"${targets['low']:.2f} to ${targets['high']:.2f}"),
        ("Analyst ratings", f"{ratings['buy']} buy, {ratings['hold']} hold, {ratings['sell']} sell"),
    ]
    return _message("analyst_estimates", _sub_report(f"Analyst estimates: {ticker}", facts, []))


def macro_indicators(state: MessagesState, config: RunnableConfig) -> dict[str, list[BaseMessage]]:
    """Reads the four macro series and reports the backdrop."""
    facts = []
    for series in ("cpi_yoy", "fed_funds_rate", "gdp_growth", "unemployment_rate"):
        data = json.loads(get_macro_indicator.invoke({"series": series}, config=config))
        facts.append((f"{data['label']} ({data['period']})", f"{data['value']}%"))
    return _message("macro_indicators", _sub_report("Macro backdrop", facts, []))


# --- synthesizer ---------------------------------------------------------------------------------------

_FACT_LINE = re.compile(r"^- \*\*(?P<label>[^*]+)\*\*: (?P<value>.+)$", re.MULTILINE)
_MILLIONS = re.compile(r"^\$(?P<amount>[\d,]+) million$")


def _read_sub_reports(messages: list[BaseMessage]) -> dict[str, dict[str, str]]:
    facts: dict[str, dict[str, str]] = {}
    for message in messages:
        if message.type == "ai" and message.name in SOURCE_LABELS:
            facts[message.name] = {m["label"]: m["value"] for m in _FACT_LINE.finditer(str(message.content))}
    missing = [name for name in SPECIALISTS if name not in facts]
    if missing:
        raise ValueError(
            f"synthesizer: no sub-report from {', '.join(missing)}; the synthesizer needs all of "
            f"{', '.join(SPECIALISTS)}. Run the whole graph from START rather than the synthesizer alone."
        )
    return facts


def _amount(value: str) -> Decimal:
    match = _MILLIONS.match(value)
    if match is None:
        raise ValueError(f"synthesizer: expected an amount like '$1,234 million' in a sub-report, got {value!r}.")
    return Decimal(match["amount"].replace(",", ""))


def _billions(value: str) -> str:
    return f"${_amount(value) / 1000:.1f} billion"


def _table_cell(value: str) -> str:
    return f"{_amount(value):,}"


def _sentences(facts: dict[str, str], source: str) -> list[str]:
    return [f"- {label}: {value} (source: {source})." for label, value in facts.items()]


def _synthesizer(fabricate: bool) -> Node:
    def synthesizer(state: MessagesState) -> dict[str, list[BaseMessage]]:
        """Reads the four sub-reports and writes the final research note."""
        facts = _read_sub_reports(state["messages"])
        filed, street = facts["filings"], facts["analyst_estimates"]
        net_income = filed["Net income FY2024"]
        if fabricate:
            # Planted (PLANTED[1]): the synthesizer "rounds" a figure it received into a different one.
            net_income = f"${_amount(net_income) + 30:,} million"
        outlook = f"- Analysts expect FY2025 EPS of {street['Consensus EPS FY2025']} (source: analyst estimates)."
        if fabricate:
            # Planted (PLANTED[2]): a real figure, cited to a source that does not hold it.
            outlook = f"- Management guides to FY2025 EPS of {street['Consensus EPS FY2025']} (source: 10-K)."
        table = [
            "Revenue",
            "Net income",
            "Industrial Automation revenue",
            "Logistics Robotics revenue",
            "Services revenue",
        ]
        lines = [
            f"# Research note: {COMPANY} ({TICKER})",
            "",
            "Fictional sample company: every figure comes from this example's illustrative sample data.",
            "",
            "## Summary",
            "",
            f"- Revenue reached {_billions(filed['Revenue FY2024'])} in FY2024, up "
            f"{filed['Revenue growth FY2024']} from FY2023 (source: 10-K).",
            f"- Net income was {net_income} in FY2024 (source: 10-K).",
            f"- Gross margin was {filed['Gross margin FY2024']} in FY2024 (source: 10-K).",
            outlook,
            "",
            "## Financial performance",
            "",
            "Income statement and segment revenue (in millions)",
            "",
            "| Line item | FY2024 | FY2023 |",
            "|---|---:|---:|",
            *(
                f"| {label} | {_table_cell(filed[f'{label} FY2024'])} | {_table_cell(filed[f'{label} FY2023'])} |"
                for label in table
            ),
            "",
            "Source: 10-K.",
            "",
            "## Share price",
            "",
            *_sentences(facts["price_history"], SOURCE_LABELS["price_history"]),
            "",
            "## Analyst view",
            "",
            *_sentences(street, SOURCE_LABELS["analyst_estimates"]),
            "",
            "## Macro backdrop",
            "",
            *_sentences(facts["macro_indicators"], SOURCE_LABELS["macro_indicators"]),
        ]
        return _message(SYNTHESIZER, "\n".join(lines) + "\n")

    return synthesizer


def build_app(fabricate: bool = False) -> CompiledStateGraph:
    """Compile the pipeline; `fabricate=True` plants the fabrications listed in `PLANTED`."""
    graph = StateGraph(MessagesState)
    nodes = {
        "filings": filings,
        "price_history": _price_history(fabricate),
        "analyst_estimates": analyst_estimates,
        "macro_indicators": macro_indicators,
    }
    for name, node in nodes.items():
        graph.add_node(name, node)
        graph.add_edge(START, name)
        # Fan-in: the four specialists run in the same step, so the synthesizer runs once, after all.
        graph.add_edge(name, SYNTHESIZER)
    graph.add_node(SYNTHESIZER, _synthesizer(fabricate))
    graph.add_edge(SYNTHESIZER, END)
    return graph.compile(name="financial_fabricated" if fabricate else "financial")


app = build_app()
