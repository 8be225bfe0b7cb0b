"""A transcript captured one sentence a line is prose, not a list of structured fields: a figure on such a line
backs a claim only about the subject, the metric and the period its own clause names (issue 10, SummEdits).
Each swapped figure below is one the transcript holds for another subject, metric or period."""

from __future__ import annotations

from pathlib import Path

import pytest
from langchain_core.tools import tool

from pytest_auditfence import Verdict
from tool_runs import claim_of, tool_run_auditor

CALL = (
    "Excluding the one-time charge, earnings per share in the quarter were $4.12.\n"
    "In the second quarter, Harbor Bank earned $2.7 billion or $4.05 per diluted common share.\n"
    "Our common equity Tier 1 capital ratio was 12.9 percent at the end of the quarter, down 40 basis points from the "
    "prior quarter.\n"
    "Our second-quarter net interest margin was 5.85 percent, 22 basis points higher than the first quarter.\n"
    "Net earnings of $310.4 million or $4.12 per diluted share increased $71.8 million from last year.\n"
    "Adjusted earnings per share were $4.12, up 31.5% from last year's $3.13.\n"
    "Card revenue grew 9.5% and adjusted earnings per share increased 31.5%.\n"
    "For the third quarter, we expect revenue between $5.25 billion and $5.40 billion.\n"
    "Revenue for the second quarter was $5.61 billion.\n"
    "Net interest income was $812 million in the second quarter, compared with $790 million in the first quarter.\n"
    "Record earnings of $412 million were roughly double the prior-year levels of $205 million.\n"
    "Our reported first-quarter earnings per share was $5.52 compared to a loss of $1.46 in the first quarter 2020.\n"
    "We now expect adjusted diluted earnings per share between $9.95 and $10.25, which represents growth of 10.2% to "
    "13.5%.\n"
    "Results include a $15 million release of loan loss reserves, offset by $35 million of net charge-offs.\n"
)

NOTES = "ratio: 12.9\nmargin: 5.85\n"


@tool
def get_call_excerpt(quarter: str) -> str:
    """Sentences of an earnings call transcript, one a line."""
    return CALL


@tool
def get_key_figures(quarter: str) -> str:
    """Key figures as structured fields."""
    return NOTES


@pytest.fixture
def audit(tmp_path: Path):
    run = tool_run_auditor(tmp_path, [get_call_excerpt, get_key_figures], "Summarize the call.")

    def verdict(report: str, figure: str) -> Verdict:
        return claim_of(run([("get_call_excerpt", {"quarter": "Q2"})], report), figure).verdict

    return verdict


FLAGGED = (Verdict.UNSUPPORTED, Verdict.CONTRADICTED)


@pytest.mark.parametrize("report, figure", [
    ("The common equity Tier 1 capital ratio was 12.9 percent at the end of the quarter.", "12.9 percent"),
    ("The net interest margin was 5.85 percent.", "5.85 percent"),
    ("Harbor Bank earned $2.7 billion in the second quarter.", "$2.7 billion"),
    ("Net earnings were $310.4 million.", "$310.4 million"),
    ("Adjusted earnings per share were $4.12, up 31.5% from the prior year.", "31.5%"),
    ("Adjusted EPS rose to $4.12 from $3.13 a year ago.", "$3.13"),
    ("Card revenue and adjusted earnings per share rose 9.5% and 31.5% respectively.", "9.5%"),
    ("Third-quarter revenue is expected to be between $5.25 billion and $5.40 billion.", "$5.40 billion"),
    # a comparison base claimed for its own period, or as the base it is
    ("Net interest income was $790 million in the first quarter.", "$790 million"),
    ("Earnings rose to $412 million from $205 million a year earlier.", "$205 million"),
    ("First-quarter EPS was $5.52, compared to a loss of $1.46 in the prior-year quarter.", "$1.46"),
    ("Adjusted diluted EPS is expected to grow 10.2% to 13.5% this year.", "10.2%"),
    ("Harbor Bank earned $2.7 billion, or $4.05 per share, in the second quarter.", "$4.05"),
    ("The bank recorded $35 million of net charge-offs.", "$35 million"),
])
def test_a_figure_stated_for_its_own_subject_is_verified(audit, report: str, figure: str) -> None:
    assert audit(report, figure) is Verdict.VERIFIED


@pytest.mark.parametrize("report, figure", [
    # another subject on another short line: 5.85 percent is the net interest margin
    ("The common equity Tier 1 capital ratio was 5.85 percent at the end of the quarter.", "5.85 percent"),
    # another subject on the same line: 22 basis points is the margin's move, not the capital ratio's
    ("The capital ratio was 12.9 percent, down 22 basis points from the prior quarter.", "22 basis points"),
    # another metric in the figure's own clause: $310.4 million is net earnings, not earnings per share
    ("Adjusted earnings per share were $310.4 million.", "$310.4 million"),
    # the comparison base: $3.13 is last year's value
    ("Adjusted earnings per share were $3.13.", "$3.13"),
    # another metric's change: 9.5% is card revenue's growth
    ("Adjusted earnings per share were $4.12, an increase of 9.5%.", "9.5%"),
    # another period: $5.61 billion is the second quarter's revenue, not the third quarter's outlook
    ("Revenue for the third quarter is expected to be between $5.25 billion and $5.61 billion.", "$5.61 billion"),
    # the same, after a clause about another quarter: the range's own words name the third quarter
    ("Second-quarter adjusted EPS was $4.12, and revenue for the third quarter is expected to be between "
     "$5.25 billion and $5.61 billion.", "$5.61 billion"),
    # the earlier quarter's figure, which the sentence states as a comparison base, claimed for the later quarter
    ("Second-quarter net interest income was $790 million.", "$790 million"),
    # the prior year's level claimed as this year's earnings
    ("Record earnings were $205 million.", "$205 million"),
    # the year-ago quarter's loss (a base after 'compared to a loss of') claimed for this year's first quarter
    ("First-quarter earnings per share were $1.46.", "$1.46"),
    # the EPS outlook's growth ('which represents growth of' names no subject) claimed for revenue
    ("Revenue is expected to grow 10.2% this year.", "10.2%"),
    # the amount per share claimed as the whole amount earned
    ("Harbor Bank earned $4.05 in the second quarter.", "$4.05"),
    # what the figure is 'of': the charge-offs, not a release of reserves
    ("The bank released $35 million of loan loss reserves.", "$35 million"),
])
def test_a_figure_the_transcript_holds_for_another_subject_is_flagged(audit, report: str, figure: str) -> None:
    assert audit(report, figure) in FLAGGED


def test_a_short_structured_field_still_backs_a_figure_by_its_line(tmp_path: Path) -> None:
    # 'ratio: 12.9' is a field, not a sentence: its line names the subject, no clause to compare
    run = tool_run_auditor(tmp_path, [get_call_excerpt, get_key_figures], "Summarize the call.")
    cascade = run([("get_key_figures", {"quarter": "Q2"})], "The capital ratio was 12.9.")
    assert claim_of(cascade, "12.9").verdict is Verdict.VERIFIED


# A paragraph with a hard line break inside a sentence: the piece after the break is no sentence of its own (it
# follows a line that ends mid-sentence), so its figures are read as before, not by the words of that piece alone.
PARAGRAPH = (
    "A survey of accountants found the average preparation fee for a return with Schedule C is\n"
    "$212, while a partnership return costs $551.\n"
)


@tool
def get_fee_survey(topic: str) -> str:
    """A survey paragraph as published, with its line breaks."""
    return PARAGRAPH


@pytest.mark.parametrize("report, figure, verdicts", [
    ("The average preparation fee with Schedule C is $212.", "$212", (Verdict.VERIFIED,)),
    ("The average preparation fee with Schedule C is $215.", "$215", FLAGGED),
])
def test_a_piece_of_a_broken_sentence_is_not_a_sentence_line(tmp_path: Path, report: str, figure: str,
                                                            verdicts: tuple[Verdict, ...]) -> None:
    run = tool_run_auditor(tmp_path, [get_fee_survey], "What does tax preparation cost?")
    assert claim_of(run([("get_fee_survey", {"topic": "fees"})], report), figure).verdict in verdicts
