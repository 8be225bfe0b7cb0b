"""Tests of the financial example: the graph's shape, its reports, and where each figure comes from.

A small figure checker (below) stands in for the audit until the plugin audits these runs itself.
"""

from __future__ import annotations

import asyncio
import json
import re
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

import financial_app
import pytest
from financial_app import PLANTED, SOURCE_LABELS, SPECIALISTS, SYNTHESIZER, build_app

REQUEST = {"messages": [("user", "Analyze HALV")]}

# Text that looks numeric but is no figure: dates and periods, fiscal years, "52-week", "10-K".
_NOT_FIGURES = re.compile(r"\b\d{4}-(?:\d{2}-\d{2}|\d{2}|Q[1-4])\b|\bFY\d{4}\b|\b\d+-(?:week|day|month|year)\b|\b10-K\b")
_FIGURE = re.compile(r"(?<![\w.])(?P<int>\d{1,3}(?:,\d{3})+|\d+)(?P<frac>\.\d+)?(?P<pct>%)?(?: (?P<scale>billion|million))?")
_CITATION = re.compile(r"\(source: (?P<label>[^)]+)\)")


def _figures(text: str) -> list[re.Match[str]]:
    return list(_FIGURE.finditer(_NOT_FIGURES.sub(" ", text)))


def _value(figure: re.Match[str]) -> Decimal:
    return Decimal(figure["int"].replace(",", "") + (figure["frac"] or ""))


def _rounded(value: Decimal, like: Decimal) -> Decimal:
    return value.quantize(Decimal(1).scaleb(like.as_tuple().exponent), rounding=ROUND_HALF_UP)


def _percent_changes(outputs: list[str]) -> set[Decimal]:
    """Percent change between any two numbers that sit side by side in one JSON object or list."""
    changes: set[Decimal] = set()

    def walk(node: Any) -> None:
        children = list(node.values()) if isinstance(node, dict) else node if isinstance(node, list) else []
        numbers = [Decimal(str(c)) for c in children if isinstance(c, (int, float)) and not isinstance(c, bool)]
        changes.update((a - b) / b * 100 for a in numbers for b in numbers if b and a is not b)
        for child in children:
            walk(child)

    for output in outputs:
        walk(json.loads(output))
    return changes


def _traced(figure: re.Match[str], outputs: list[str]) -> bool:
    """Is the figure in some output verbatim (by value), at another scale, or as a percent change?"""
    value = _value(figure)
    numbers = {_value(f) for output in outputs for f in _figures(output)}
    if figure["scale"] == "billion":  # tool amounts are in millions; the precision shown decides
        return any(_rounded(n / 1000, value) == value for n in numbers)
    if value in numbers:
        return True
    return bool(figure["pct"]) and any(_rounded(c, value) == value for c in _percent_changes(outputs))


def untraceable(report: str, recorder: Any) -> list[tuple[str, str]]:
    """(line, figure) for every figure not traceable to the tool outputs of the source the line cites.

    A line without a citation may be backed by any tool output.
    """
    by_label = {label: recorder.outputs(node) for node, label in SOURCE_LABELS.items()}
    misses = []
    for line in report.splitlines():
        cited = _CITATION.search(line)
        outputs = by_label.get(cited["label"], []) if cited else recorder.outputs()
        misses += [(line, f[0]) for f in _figures(line) if not _traced(f, outputs)]
    return misses


def _run(app: Any, recorder: Any) -> dict[str, Any]:
    return app.invoke(REQUEST, config={"callbacks": [recorder]})


def _sub_report(result: dict[str, Any], node: str) -> str:
    (message,) = [m for m in result["messages"] if m.name == node]
    return str(message.content)


def test_graph_fans_out_from_start_and_in_to_the_synthesizer() -> None:
    edges = {(e.source, e.target) for e in financial_app.app.get_graph().edges}
    assert edges == {
        *(("__start__", name) for name in SPECIALISTS),
        *((name, SYNTHESIZER) for name in SPECIALISTS),
        (SYNTHESIZER, "__end__"),
    }


def test_each_specialist_calls_its_own_tools_and_the_synthesizer_none(tool_recorder) -> None:
    result = _run(financial_app.app, tool_recorder)
    assert tool_recorder.tools_by_node() == {
        "analyst_estimates": ["get_consensus_estimates", "get_rating_counts"],
        "filings": ["get_income_statement", "get_segment_revenue"],
        "macro_indicators": ["get_macro_indicator"] * 4,
        "price_history": ["get_closing_prices", "get_price_statistics"],
    }
    names = [m.name for m in result["messages"][1:]]
    assert sorted(names[:4]) == sorted(SPECIALISTS)
    assert names[4:] == [SYNTHESIZER]  # fan-in: one synthesizer run, after all four


def test_clean_report_has_the_intended_figures(tool_recorder) -> None:
    report = _run(financial_app.app, tool_recorder)["messages"][-1].content
    assert report.startswith("# Research note: Halvorsen Robotics Inc. (HALV)\n")
    for expected in (
        "## Summary",
        "- Revenue reached $1.2 billion in FY2024, up 12.0% from FY2023 (source: 10-K).",
        "- Net income was $151 million in FY2024 (source: 10-K).",
        "Income statement and segment revenue (in millions)",
        "| Revenue | 1,234 | 1,102 |",
        "| Services revenue | 144 | 126 |",
        "- 52-week high: $48.90 (source: price history).",
        "- Analysts expect FY2025 EPS of $2.85 (source: analyst estimates).",
        "- Analyst ratings: 9 buy, 5 hold, 1 sell (source: analyst estimates).",
        "- Effective federal funds rate (2024-12): 4.33% (source: macro indicators).",
    ):
        assert expected in report
    assert not any(p["sentence"] in report for p in PLANTED)


def test_every_figure_of_the_clean_report_traces_to_a_tool_output_of_its_cited_source(tool_recorder) -> None:
    report = _run(financial_app.app, tool_recorder)["messages"][-1].content
    # 32 figures (summary 5, table 10, price 5, analysts 8, macro 4), no dates, years, "52-week" or "10-K"
    assert len(_figures(report)) == 32
    assert untraceable(report, tool_recorder) == []


def test_the_figure_check_traces_the_derived_and_rescaled_figures(tool_recorder) -> None:
    _run(financial_app.app, tool_recorder)
    filings = tool_recorder.outputs("filings")
    (growth,) = _figures("up 12.0% from")
    (billions,) = _figures("$1.2 billion")
    (too_precise,) = _figures("$1.24 billion")  # 1,234 million is 1.23 billion at that precision
    (wrong_growth,) = _figures("up 12.1% from")
    assert _traced(growth, filings) and _traced(billions, filings)
    assert not _traced(too_precise, filings) and not _traced(wrong_growth, filings)


def test_fabricated_report_fails_the_check_exactly_on_the_planted_sentences(tool_recorder) -> None:
    report = _run(build_app(fabricate=True), tool_recorder)["messages"][-1].content
    for planted in PLANTED:
        assert f"- {planted['sentence']}\n" in report
    flagged = {line for line, _ in untraceable(report, tool_recorder)}
    assert flagged == {f"- {p['sentence']}" for p in PLANTED}


@pytest.mark.parametrize("planted", PLANTED, ids=[p["kind"] for p in PLANTED])
def test_planted_figure_is_in_no_tool_output_or_only_in_another_source(tool_recorder, planted) -> None:
    result = _run(build_app(fabricate=True), tool_recorder)
    (figure,) = _figures(planted["figure"])
    everywhere = tool_recorder.outputs()
    if planted["kind"] == "misattributed":
        cited = _CITATION.search(planted["sentence"])["label"]
        cited_node = next(node for node, label in SOURCE_LABELS.items() if label == cited)
        assert not _traced(figure, tool_recorder.outputs(cited_node))
        assert _traced(figure, tool_recorder.outputs(planted["found_in"]))
    else:
        assert not _traced(figure, everywhere)
    # depth: which sub-reports already carry the figure tells which node introduced the fabrication
    holders = [node for node in SPECIALISTS if planted["figure"] in _sub_report(result, node)]
    if planted["kind"] == "specialist_invented":
        assert holders == [planted["node"]]  # invented below the synthesizer, carried up
    elif planted["kind"] == "misattributed":
        assert holders == [planted["found_in"]]  # a real figure, cited rightly only by its own specialist
    else:
        assert holders == []  # no specialist ever wrote it


def test_variants_differ_only_in_the_planted_lines() -> None:
    clean = financial_app.app.invoke(REQUEST)["messages"][-1].content.splitlines()
    fabricated = build_app(fabricate=True).invoke(REQUEST)["messages"][-1].content.splitlines()
    assert set(fabricated) - set(clean) == {f"- {p['sentence']}" for p in PLANTED}
    assert set(clean) - set(fabricated) == {
        "- Net income was $151 million in FY2024 (source: 10-K).",
        "- Analysts expect FY2025 EPS of $2.85 (source: analyst estimates).",
    }


def test_async_run_gives_the_same_report_as_the_sync_run(tool_recorder) -> None:
    sync_report = financial_app.app.invoke(REQUEST)["messages"][-1].content
    result = asyncio.run(financial_app.app.ainvoke(REQUEST, config={"callbacks": [tool_recorder]}))
    assert result["messages"][-1].content == sync_report
    assert len(tool_recorder.calls) == 10  # every tool call is seen under ainvoke too


def test_unknown_ticker_fails_with_a_message_naming_it_and_the_fix() -> None:
    with pytest.raises(ValueError, match=r"no sample data for ticker 'AAPL'.*Ask for HALV"):
        financial_app.app.invoke({"messages": [("user", "Analyze AAPL")]})
