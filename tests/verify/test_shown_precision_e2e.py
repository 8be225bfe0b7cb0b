"""Restatement at the precision shown, ranges written with words, a claim resting on a named person, and
the periods of a claim without figures, over real captured runs: a compiled LangGraph graph (`plan` asks for tools, a `ToolNode` runs them,
`write` returns the report) captured with a `Snapshot` and audited by the cascade. Each rule has its
negative, flagged and never `verified`."""

from __future__ import annotations

from pathlib import Path

import pytest
from langchain_core.tools import tool

from pytest_auditfence import Verdict
from tool_runs import claim_of, tool_run_auditor

COVERED = (Verdict.VERIFIED, Verdict.DERIVED)

TRANSCRIPT = ("Operator: Welcome to the first quarter fiscal 2022 earnings call.\n"
              "CFO: Consolidated sales increased 19.4% to a record $1.65 billion in the first quarter. "
              "Net income was $206 million, and we returned $52 million to shareholders.\n"
              "CFO: We expect raw material inflation to persist in the second quarter.\n")

PASSAGES = {
    1: "passage 1:1 FACT: 1 pound of muscle burns about 6-to-12 calories per day which isn't a lot but it adds up.",
    2: "passage 2:Grief expert and psychologist, Dr. Therese Rando, in her book, How To Go On Living When Someone "
       "You Love Dies, writes that we all need to acknowledge and understand our loss.",
    3: "passage 3:The retailer sold 100 units of the product last month, and the retailer's sales of the product "
       "were $4,000 for the month.",
    4: "passage 4:The retailer sold 100 units of the product last month, most of them online.",
    5: "passage 5:Our common equity Tier 1 capital ratio was 13.8% at the end of the third quarter, down 70 "
       "basis points from the prior quarter.",
}


@tool
def get_transcript(ticker: str) -> str:
    """The text of a company's earnings call."""
    return TRANSCRIPT


CALL_Q2 = ("CFO: And net income on a non-GAAP basis in the second quarter was $94.8 million, that compares "
           "to $106.6 million in Q2 of last year.\n"
           "CFO: Based on these factors, we estimate that Q3 diluted earnings per share could range from $0.15 "
           "to $0.30 on a GAAP basis, and that third quarter total revenue could range from $260 million to "
           "$290 million.\n")


@tool
def get_call(ticker: str) -> str:
    """The prepared remarks of an earnings call."""
    return CALL_Q2


@tool
def read_passage(n: int) -> str:
    """Fetch source passage number n."""
    return PASSAGES[n]


@pytest.fixture
def audit(tmp_path: Path):
    """`audit(calls, report, ask=...) -> Cascade`: one captured run whose tools answer `calls`, audited."""
    return tool_run_auditor(tmp_path, [get_transcript, get_call, read_passage], "Summarise the call.")


CALL = [("get_transcript", {"ticker": "RPM"})]
MUSCLE = [("read_passage", {"n": 1})]
GRIEF = [("read_passage", {"n": 2})]


@pytest.mark.parametrize("sentence, figure", [
    ("Consolidated sales increased to a record $1.65 billion.", "$1.65 billion"),
    ("Consolidated sales increased to a record $1.7 billion.", "$1.7 billion"),  # 1.65 shown at one decimal
    ("Consolidated sales increased to a record $1,650 million.", "$1,650 million"),
    ("Consolidated sales increased to a record $2 billion.", "$2 billion"),  # 1.65 shown in whole billions
])
def test_a_restatement_at_the_precision_shown_is_verified(audit, sentence: str, figure: str) -> None:
    record = claim_of(audit(CALL, sentence), figure)
    assert record.verdict is Verdict.VERIFIED, (record.verdict, record.notes)
    assert any("$1.65 billion" in e.text for e in record.evidence), record.evidence


@pytest.mark.parametrize("sentence, figure", [
    ("Consolidated sales decreased to a record $1.6 billion.", "$1.6 billion"),  # 1.65 rounds to 1.7, not 1.6
    ("Consolidated sales increased to a record $1.6 billion.", "$1.6 billion"),
    ("Consolidated sales increased to a record $1.64 billion.", "$1.64 billion"),
])
def test_a_figure_the_source_does_not_round_to_is_flagged(audit, sentence: str, figure: str) -> None:
    cascade = audit(CALL, sentence)
    record = claim_of(cascade, figure)
    assert cascade.policy.is_hallucination(record.verdict), (record.verdict, record.notes)
    assert record.verdict is not Verdict.VERIFIED


def test_a_range_written_with_a_hyphenated_to_is_read_whole(audit) -> None:
    record = claim_of(audit(MUSCLE, "Each pound of muscle burns approximately 6-12 calories per day."), "6-12")
    assert record.verdict is Verdict.VERIFIED, (record.verdict, record.notes)
    assert record.evidence and "6-to-12 calories" in record.evidence[0].text


def test_a_range_with_a_changed_end_is_flagged(audit) -> None:
    cascade = audit(MUSCLE, "Each pound of muscle burns approximately 6-14 calories per day.")
    record = claim_of(cascade, "6-14")
    assert cascade.policy.is_hallucination(record.verdict), (record.verdict, record.notes)


ASK = "Briefly answer: how to move on when someone you love dies, ebook by therese rando"


def test_a_claim_resting_on_a_named_author_cites_the_passage_naming_her(audit) -> None:
    # the user's question names the author too; the evidence is the passage's line that names her, which
    # shares her name with the claim (the gate accepts no evidence that shares nothing with the claim)
    cascade = audit(GRIEF, "According to Dr. Therese Rando's book, moving on means acknowledging the loss.", ask=ASK)
    record = claim_of(cascade, "Rando")
    assert record.verdict is Verdict.VERIFIED, (record.verdict, record.notes)
    assert [e.node for e in record.evidence] == ["tools"], record.evidence
    assert "Dr. Therese Rando" in record.evidence[0].text


def test_a_claim_resting_on_an_author_no_source_names_is_flagged(audit) -> None:
    cascade = audit(GRIEF, "According to Dr. Elena Marsh's book, moving on means acknowledging the loss.", ask=ASK)
    record = claim_of(cascade, "Marsh")
    assert record.verdict is Verdict.UNSUPPORTED, (record.verdict, record.notes)
    assert "dangling reference" in record.notes


Q2_CALL = [("get_call", {"ticker": "DLB"})]


@pytest.mark.parametrize("sentence", [
    "The company had a decrease in net income in Q2 compared to last year.",
    "They estimate Q3 earnings per share and total revenue to be lower than Q2.",
    "Dividends were raised in Q3.",  # a metric no source states for any period: nothing to hold Q3 to
])
def test_a_claim_without_figures_naming_its_metrics_period_is_not_flagged(audit, sentence: str) -> None:
    cascade = audit(Q2_CALL, sentence)
    record = claim_of(cascade, sentence[:20])
    # the period is right, the rest is not checked: no verdict either way
    assert record.verdict is Verdict.UNVERIFIABLE, (record.verdict, record.notes)


@pytest.mark.parametrize("sentence, note", [
    ("The company had a decrease in net income in Q1 compared to last year.", "no source names this period"),
    ("They estimate Q4 earnings per share and total revenue to be lower than Q2.", "no source names this period"),
    ("The company had a decrease in net income in Q3 compared to last year.",
     "the sources state net income for Q2, not for Q3"),
])
def test_a_claim_without_figures_naming_another_period_is_flagged(audit, sentence: str, note: str) -> None:
    cascade = audit(Q2_CALL, sentence)
    record = claim_of(cascade, sentence[:20])
    assert record.verdict is Verdict.UNSUPPORTED, (record.verdict, record.notes)
    assert any(note in n for n in record.notes), record.notes
    assert record.introduced_by == "__report__"
    assert cascade.hallucinations.numerator == 1


def test_a_question_numbered_q3_names_no_quarter(audit) -> None:
    report = "Q3: Can you speed up your metabolism by building muscle?\nYes, muscle burns calories all day."
    cascade = audit(MUSCLE, report)
    record = claim_of(cascade, "Can you")
    assert record.verdict is Verdict.UNVERIFIABLE, (record.verdict, record.notes)
    assert cascade.hallucinations.numerator == 0


def test_a_quarter_no_source_names_in_a_claim_without_figures_is_flagged(audit) -> None:
    cascade = audit(MUSCLE, "In Q3, muscle burned more calories than fat.")
    record = claim_of(cascade, "In Q3")
    assert record.verdict is Verdict.UNSUPPORTED, (record.verdict, record.notes)
    assert any("no source names this period (Q3)" in n for n in record.notes), record.notes


RETAIL = [("read_passage", {"n": 3})]


def test_another_amount_of_the_subject_contradicts_a_figure(audit) -> None:
    record = claim_of(audit(RETAIL, "The retailer's sales of the product were $5,000 for the month."), "$5,000")
    assert record.verdict is Verdict.CONTRADICTED, (record.verdict, record.notes)
    assert any("'$4,000'" in n for n in record.notes), record.notes


def test_a_count_of_the_subject_does_not_contradict_an_amount(audit) -> None:
    # '100' (units) is of another dimension than '$40': the price is found nowhere, which is all a note can say
    cascade = audit([("read_passage", {"n": 4})], "The retailer sold the product at $40 each last month.")
    record = claim_of(cascade, "$40")
    assert record.verdict is Verdict.UNSUPPORTED, (record.verdict, record.notes)
    assert "$40 found in no source" in record.notes


@pytest.mark.parametrize("sentence", [
    "Consolidated sales were a record $1.65 billion in Q1.",
    "In the first quarter, consolidated sales were a record $1.65 billion.",
    # the second quarter is the period of another clause, not the figure's
    "Consolidated sales rose to a record $1.65 billion, but inflation will persist in the second quarter.",
])
def test_a_prose_figure_of_the_claims_quarter_backs_it(audit, sentence: str) -> None:
    record = claim_of(audit(CALL, sentence), "$1.65 billion")
    assert record.verdict is Verdict.VERIFIED, (record.verdict, record.notes)


@pytest.mark.parametrize("sentence, figure", [
    ("Consolidated sales were a record $1.65 billion in Q2.", "$1.65 billion"),
    ("In the second quarter, consolidated sales were a record $1.65 billion.", "$1.65 billion"),
    ("Net income in the third quarter was $94.8 million.", "$94.8 million"),
])
def test_a_prose_figure_stated_for_another_quarter_is_no_evidence(audit, sentence: str, figure: str) -> None:
    calls = CALL if "sales" in sentence else Q2_CALL
    cascade = audit(calls, sentence)
    record = claim_of(cascade, figure)
    assert cascade.policy.is_hallucination(record.verdict), (record.verdict, record.notes)


@pytest.mark.parametrize("tier, flagged", [("Tier 1", False), ("Tier 2", True)])
def test_a_numbered_capital_tier_must_be_the_sources(audit, tier: str, flagged: bool) -> None:
    cascade = audit([("read_passage", {"n": 5})], f"The common equity {tier} capital ratio was 13.8 percent.")
    record = claim_of(cascade, tier)
    assert cascade.policy.is_hallucination(record.verdict) is flagged, (record.verdict, record.notes)
    if flagged:
        assert f"'{tier}' is named by no source" in record.notes
