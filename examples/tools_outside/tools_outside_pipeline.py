"""A plain-Python pipeline with no LangGraph: two data functions feed a function that writes a brief.

Owns the sample data functions and `run_pipeline`, whose data functions can be swapped for wrapped ones.
"""

# The data functions are ordinary Python (what a project's own API clients look like); `run_pipeline`
# takes them as parameters so that a caller can hand in instrumented versions (for example
# `pytest_auditfence.wrap(fetch_fundamentals)`) without editing the pipeline. The company is fictional.

from __future__ import annotations

from typing import Any, Callable

_FUNDAMENTALS: dict[str, dict[str, Any]] = {
    "HALV": {
        "ticker": "HALV",
        "company": "Halvorsen Robotics Inc.",
        "fiscal_year": "FY2024",
        "revenue_usd_millions": 1234,
        "operating_income_usd_millions": 198,
        "free_cash_flow_usd_millions": 117,
        "net_debt_usd_millions": 264,
    },
}

_HEADLINES: dict[str, list[dict[str, str]]] = {
    "HALV": [
        {"date": "2025-01-14", "outlet": "Sample Wire", "title": "Halvorsen wins 310-robot order from Nordic grocer"},
        {"date": "2025-01-09", "outlet": "Sample Wire", "title": "Halvorsen opens second plant in Gdansk"},
        {"date": "2024-12-18", "outlet": "Example Markets", "title": "Halvorsen raises dividend to $0.24 a share"},
        {"date": "2024-11-30", "outlet": "Example Markets", "title": "Halvorsen names new chief financial officer"},
    ],
}


def _known(ticker: str, table: dict[str, Any], function: str) -> None:
    if ticker not in table:
        raise ValueError(
            f"{function}: no sample data for ticker {ticker!r}; known tickers: {', '.join(sorted(table))} "
            "(fictional). Call it with one of those."
        )


def fetch_fundamentals(ticker: str) -> dict[str, Any]:
    """Fundamentals of the latest fiscal year, money in USD millions."""
    _known(ticker, _FUNDAMENTALS, "fetch_fundamentals")
    return dict(_FUNDAMENTALS[ticker])


def fetch_headlines(ticker: str, limit: int = 3) -> list[dict[str, str]]:
    """The most recent news headlines about the company, newest first."""
    _known(ticker, _HEADLINES, "fetch_headlines")
    if limit < 1:
        raise ValueError(f"fetch_headlines: limit must be 1 or more, got {limit}.")
    return [dict(item) for item in _HEADLINES[ticker][:limit]]


def write_brief(fundamentals: dict[str, Any], headlines: list[dict[str, str]]) -> str:
    """A markdown brief built from what the data functions returned, and nothing else."""
    margin = fundamentals["operating_income_usd_millions"] / fundamentals["revenue_usd_millions"] * 100
    lines = [
        f"# Brief: {fundamentals['company']} ({fundamentals['ticker']})",
        "",
        f"## {fundamentals['fiscal_year']} fundamentals",
        "",
        f"- Revenue: ${fundamentals['revenue_usd_millions']:,} million.",
        f"- Operating income: ${fundamentals['operating_income_usd_millions']:,} million "
        f"(operating margin {margin:.1f}%).",
        f"- Free cash flow: ${fundamentals['free_cash_flow_usd_millions']:,} million.",
        f"- Net debt: ${fundamentals['net_debt_usd_millions']:,} million.",
        "",
        "## In the news",
        "",
        *(f"- {item['date']}, {item['outlet']}: \"{item['title']}\"" for item in headlines),
    ]
    return "\n".join(lines) + "\n"


def run_pipeline(
    ticker: str,
    *,
    fundamentals_source: Callable[[str], dict[str, Any]] = fetch_fundamentals,
    headlines_source: Callable[..., list[dict[str, str]]] = fetch_headlines,
    headline_limit: int = 3,
) -> str:
    """Fetch the data for `ticker` through the given data functions and write the brief."""
    fundamentals = fundamentals_source(ticker)
    headlines = headlines_source(ticker, limit=headline_limit)
    return write_brief(fundamentals, headlines)
