"""Two figures of one metric told apart by a qualifier ('adjusted' and 'GAAP' earnings per share, revenue growth
'on a reported basis' and 'at constant currency', 'diluted' and 'basic', the quarter's and the full year's): a
figure whose own clause names one qualifier is no evidence for a claimed figure whose clause names another of the
same axis (issue 10, SummEdits). The call below is audited as one sentence a line and as one long paragraph,
through a captured ToolNode run."""

from __future__ import annotations

from pathlib import Path

import pytest
from langchain_core.tools import tool

from pytest_auditfence import Verdict
from tool_runs import claim_of, tool_run_auditor

SENTENCES = (
    "Fourth-quarter GAAP net income was $212 million, and GAAP diluted earnings per share was $1.41.",
    "Adjusted diluted earnings per share were $2.07, up 14% from a year ago.",
    "Fourth-quarter revenue of $2.918 billion grew 7.3% on a reported basis and 9.6% at constant currency.",
    "Basic earnings per share were $1.46 for the year.",
    "Gross margin was 41.5% and operating margin was 18.2% in the quarter.",
    "Excluding these items, earnings per share of $2.35 for the year grew 11%.",
)


@tool
def get_call_lines(quarter: str) -> str:
    """An earnings call transcript, one sentence a line."""
    return "\n".join(SENTENCES)


@tool
def get_call_paragraph(quarter: str) -> str:
    """The same transcript as one paragraph."""
    return " ".join(SENTENCES)


@pytest.fixture(params=["get_call_lines", "get_call_paragraph"])
def audit(request: pytest.FixtureRequest, tmp_path: Path):
    run = tool_run_auditor(tmp_path, [get_call_lines, get_call_paragraph], "Summarize the call.")

    def verdict(report: str, figure: str) -> Verdict:
        return claim_of(run([(request.param, {"quarter": "Q4"})], report), figure).verdict

    return verdict


@pytest.mark.parametrize("report, figure", [
    ("Adjusted diluted EPS was $2.07 in the fourth quarter.", "$2.07"),
    ("GAAP diluted earnings per share were $1.41 in the fourth quarter.", "$1.41"),
    # a claim that names no qualifier is left to the other tests: the call's own words stand for it
    ("Diluted earnings per share were $1.41 in the fourth quarter.", "$1.41"),
    ("Fourth-quarter revenue grew 9.6% at constant currency.", "9.6%"),
    ("Fourth-quarter revenue grew 7.3% on a reported basis.", "7.3%"),
    ("Basic earnings per share for the year were $1.46.", "$1.46"),
    ("The gross margin reached 41.5% in the quarter.", "41.5%"),
    ("Adjusted earnings per share for the year were $2.35.", "$2.35"),
])
def test_a_figure_with_the_claimed_qualifier_is_verified(audit, report: str, figure: str) -> None:
    assert audit(report, figure) is Verdict.VERIFIED


@pytest.mark.parametrize("report, figure", [
    # the GAAP figure claimed as the adjusted one, and the other way round
    ("Adjusted diluted EPS was $1.41 in the fourth quarter.", "$1.41"),
    ("GAAP diluted earnings per share were $2.07 in the fourth quarter.", "$2.07"),
    # the reported growth claimed at constant currency
    ("Fourth-quarter revenue grew 7.3% at constant currency.", "7.3%"),
    ("Fourth-quarter revenue grew 9.6% on a reported basis.", "9.6%"),
    # the basic figure claimed as the diluted one
    ("Diluted earnings per share for the year were $1.46.", "$1.46"),
    # the operating margin claimed as the gross margin
    ("The gross margin reached 18.2% in the quarter.", "18.2%"),
    # the figure a leading 'Excluding these items,' qualifies, claimed as the GAAP one
    ("GAAP earnings per share for the year were $2.35.", "$2.35"),
    # the quarter's growth claimed for the full year, and the year's figure claimed for the quarter
    ("Full-year revenue grew 7.3% on a reported basis.", "7.3%"),
    ("Fourth-quarter basic earnings per share were $1.46.", "$1.46"),
])
def test_a_figure_with_another_qualifier_of_the_metric_is_flagged(audit, report: str, figure: str) -> None:
    assert audit(report, figure) in (Verdict.UNSUPPORTED, Verdict.CONTRADICTED)
