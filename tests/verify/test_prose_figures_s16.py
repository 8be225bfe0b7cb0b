"""Prose figures of an earnings call (issue 10, stop 16): a transcript line longer than a short sentence is read in
paraphrase mode, so a figure backs a claim only about the metric its own clause names; a comparison base takes the
metric of the figure it is compared with; the prose operands of a computed change are about the change's subject.
Each run is a captured LangGraph run; each rule is shown with the swap it must flag."""

from __future__ import annotations

from pathlib import Path

import pytest
from langchain_core.tools import tool

from pytest_auditfence import Verdict
from tool_runs import claim_of, tool_run_auditor

# one speaker's sentences a line, several of them longer than a short sentence line (160 characters)
CALL = (
    "Good morning, everyone, and thank you for joining the Northwind Tools call for the first quarter.\n"
    "Finally, net earnings of $212.4 million or $3.85 per diluted share increased $61.2 million or $1.12 per share "
    "from 2020 levels, representing a 38.2% increase in diluted earnings per share.\n"
    "Our third straight period above pre-pandemic levels; the repair group, solid; organic sales rising 14.7%; "
    "operating margin, 21.3%; EPS, $3.85, a big rise and more proof that the franchise came out of the downturn "
    "stronger than it went in.\n"
    "Our reported first-quarter earnings per share was $4.41 compared to a loss of $1.37 in the first quarter of "
    "2020, and demand improved in each of our segments and in every region where we operate.\n"
    "Revenue for the quarter was $1.18 billion and adjusted EBITDA was $264 million, compared with $1.02 billion and "
    "$198 million in 2020, as volumes recovered across the distribution network.\n"
    "Diluted EPS rose to $2.95 from $2.51 on higher volumes and better pricing.\n"
    "Excluding these items, adjusted EPS of $4.10 in 2021 increased 28.4% from 2020 and 12.6% from 2019 levels.\n"
    "Revenue is expected to grow 3.9% to 5.7% in the first quarter and 11.4% to 14.0% for the full year.\n"
    "We now expect adjusted diluted earnings per share of $7.40 to $7.65, which represents growth of 8.3% to 11.9%.\n"
    "Second-half revenue is expected between $2.1 billion and $2.2 billion, representing growth of 5.2% to 7.7%.\n"
)


@tool
def get_call_transcript(quarter: str) -> str:
    """The earnings call transcript, one speaker's sentences a line."""
    return CALL


@pytest.fixture
def audit(tmp_path: Path):
    run = tool_run_auditor(tmp_path, [get_call_transcript], "Summarize the call.")

    def verdict(report: str, figure: str) -> Verdict:
        return claim_of(run([("get_call_transcript", {"quarter": "Q1"})], report), figure).verdict

    return verdict


FLAGGED = (Verdict.UNSUPPORTED, Verdict.CONTRADICTED)


def test_the_call_has_long_sentence_lines() -> None:
    assert sum(len(line) > 160 for line in CALL.splitlines()) == 4


@pytest.mark.parametrize("report, figure", [
    ("Net earnings were $212.4 million in the quarter.", "$212.4 million"),
    ("Diluted earnings per share were $3.85.", "$3.85"),
    ("Net earnings increased $61.2 million from 2020.", "$61.2 million"),
    ("Diluted earnings per share rose 38.2%.", "38.2%"),
    ("Organic sales rose 14.7%.", "14.7%"),
    ("Operating margin was 21.3%.", "21.3%"),
    ("First-quarter EPS was $4.41, compared to a loss of $1.37 a year earlier.", "$1.37"),
    ("Revenue was $1.18 billion, up from $1.02 billion a year ago.", "$1.02 billion"),
    ("Adjusted EBITDA was $264 million.", "$264 million"),
    ("Adjusted EBITDA rose to $264 million from $198 million in 2020.", "$198 million"),
    ("Diluted EPS rose to $2.95 from $2.51.", "$2.51"),
    ("Diluted EPS was $2.95.", "$2.95"),
    # a change from its own base year; a range with both its ends
    ("Adjusted EPS rose 28.4% from the previous year.", "28.4%"),
    ("Adjusted EPS rose 12.6% from 2019.", "12.6%"),
    ("First-quarter revenue is expected to grow 3.9% to 5.7%.", "3.9%"),
    ("Full-year revenue is expected to grow 11.4% to 14.0%.", "14.0%"),
    ("Second-half revenue is expected to grow 5.2% to 7.7%.", "5.2%"),
    ("Adjusted diluted EPS is expected to grow 8.3% to 11.9%.", "8.3%"),
])
def test_a_figure_of_a_long_transcript_line_backs_its_own_metric(audit, report: str, figure: str) -> None:
    assert audit(report, figure) is Verdict.VERIFIED


@pytest.mark.parametrize("report, figure", [
    # another metric's figure on the same long line
    ("Earnings per share were $212.4 million.", "$212.4 million"),
    ("Earnings per share rose by $61.2 million from 2020.", "$61.2 million"),
    ("Operating margin was 14.7%.", "14.7%"),
    ("Organic sales rose 21.3%.", "21.3%"),
    # a per-share amount claimed as a whole one
    ("Net earnings were $3.85 in the quarter.", "$3.85"),
    # a comparison base stated as the period's own figure (its metric is the compared figure's)
    ("First-quarter earnings per share were $1.37.", "$1.37"),
    # the second base of a pair ('compared with $1.02 billion and $198 million'), a base after 'to $2.95 from'
    ("Adjusted EBITDA was $198 million.", "$198 million"),
    ("Diluted EPS was $2.51.", "$2.51"),
    # a change from another base year than the one claimed ('from the previous year' in 2021 is from 2020)
    ("Adjusted EPS rose 12.6% from the previous year.", "12.6%"),
    ("Adjusted EPS rose 28.4% from 2019.", "28.4%"),
    # one end of another range ('11.4% to 14.0%' is the full year's)
    ("Second-half revenue is expected to grow 8.3% to 7.7%.", "8.3%"),
])
def test_a_figure_of_another_metric_on_a_long_line_is_flagged(audit, report: str, figure: str) -> None:
    assert audit(report, figure) in FLAGGED


# the operands of a computed change: an EPS pair and a revenue pair, each 9% apart, on lines of their own metric
CHANGES = (
    "Adjusted EPS for the quarter was $2.18 compared with $2.00 a year ago, helped by a lower share count.\n"
    "Net sales were $4.36 billion, against $4.00 billion in the same quarter last year.\n"
)
EPS_ONLY = "Adjusted EPS for the quarter was $2.18 compared with $2.00 a year ago, helped by a lower share count.\n"


@pytest.fixture
def derive(tmp_path: Path):
    documents = {"both": CHANGES, "eps": EPS_ONLY}

    @tool
    def get_call_excerpt(part: str) -> str:
        """An excerpt of the earnings call transcript."""
        return documents[part]

    run = tool_run_auditor(tmp_path, [get_call_excerpt], "Summarize the call.")

    def verdict(part: str, report: str, figure: str) -> Verdict:
        return claim_of(run([("get_call_excerpt", {"part": part})], report), figure).verdict

    return verdict


@pytest.mark.parametrize("part, report", [
    ("both", "Adjusted EPS rose 9% from a year ago."),
    ("both", "Net sales rose 9% from a year ago."),
    ("eps", "Adjusted EPS rose 9% from a year ago."),
])
def test_a_change_is_derived_from_its_own_metric(derive, part: str, report: str) -> None:
    assert derive(part, report, "9%") is Verdict.DERIVED


@pytest.mark.parametrize("report", [
    "Net sales rose 9% from a year ago.",
    "Operating income rose 9% from a year ago.",
])
def test_a_change_is_not_derived_from_another_metric(derive, report: str) -> None:
    assert derive("eps", report, "9%") in FLAGGED
