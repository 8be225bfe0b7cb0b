"""Tests of the minimal example: the module-level app runs research then write, and reports the facts."""

from __future__ import annotations

import json

import minimal_app
import pytest


@pytest.fixture
def app():
    return minimal_app.app


def test_research_then_write_produces_a_report_from_the_tool_data(app, tool_recorder) -> None:
    result = app.invoke({"messages": [("user", "Analyze HALV")]}, config={"callbacks": [tool_recorder]})
    assert [(m.type, m.name) for m in result["messages"]] == [("human", None), ("ai", "research"), ("ai", "write")]
    (call,) = tool_recorder.calls
    assert (call.node, call.tool) == ("research", "lookup_company_facts")
    facts = json.loads(call.output)
    report = result["messages"][-1].content
    assert report.startswith(f"# {facts['name']} (HALV)\n")
    assert f"- Revenue was ${facts['revenue_usd_millions']:,} million (source: company facts)." in report
    assert "- Net income was $151 million (source: company facts)." in report
    assert "- Net margin was 12.2%, net income divided by revenue." in report  # 151 / 1,234
    assert "is in the industrial machinery sector and employs 4,850 people." in report


def test_the_findings_message_carries_the_figures_the_report_uses(app) -> None:
    result = app.invoke({"messages": [("user", "Write a note on KSTR")]})
    findings, report = result["messages"][1].content, result["messages"][2].content
    for figure in ("$2,960 million", "$212 million", "11,200"):
        assert figure in findings and figure in report
    assert "Net margin was 7.2%" in report  # 212 / 2,960


def test_same_request_gives_a_byte_identical_report(app) -> None:
    request = {"messages": [("user", "Analyze HALV")]}
    assert app.invoke(request)["messages"][-1].content == app.invoke(request)["messages"][-1].content


def test_unknown_ticker_fails_naming_the_known_ones(app) -> None:
    with pytest.raises(ValueError, match=r"no sample data for ticker 'AAPL'; known tickers: HALV, KSTR"):
        app.invoke({"messages": [("user", "Analyze AAPL")]})


def test_request_without_a_ticker_fails_with_the_fix(app) -> None:
    with pytest.raises(ValueError, match=r"found no ticker.*'Analyze HALV'"):
        app.invoke({"messages": [("user", "write me something")]})
