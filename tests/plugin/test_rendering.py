"""Failure rendering (a dozen lines), evidence-chain golden-file text, comparison explanations."""

from __future__ import annotations

import pytest

from pytest_auditfence.assertions import (
    MAX_FAILURE_CLAIMS,
    check_thresholds,
    explain_comparison,
    render_chain,
    render_failure,
)
from pytest_auditfence.chain_snapshot import serialize_chains
from pytest_auditfence.models import ChainLink, ClaimRecord, EvidenceChain, Ratio, Verdict


def claim(i: int, verdict: Verdict, introduced_by: str | None = "write") -> ClaimRecord:
    return ClaimRecord(id=f"c{i:03d}", claim=f"Services revenue grew to ${i}.5 billion in fiscal 2023.",
                       start=0, end=40, verdict=verdict, introduced_by=introduced_by)


def chain(i: int, verdict: Verdict, *, raw: bool) -> EvidenceChain:
    links = [ChainLink(node="write", file="report.md", line=3, text=f"revenue ${i}.5 billion", kind="report")]
    if raw:
        links.append(ChainLink(node="research/lookup", file="tools/lookup-1.txt", line=7,
                               text=f"services_revenue: {i}500000000", kind="tool_call", sha256="ab" * 32))
    return EvidenceChain(claim_id=f"c{i:03d}", claim=f"Services revenue ${i}.5 billion.", verdict=verdict,
                         links=links, introduced_by=None if raw else "write", reaches_raw_data=raw)


def test_threshold_shortfalls_name_both_sides():
    assert check_thresholds(Ratio(numerator=3, denominator=4), Ratio(numerator=1, denominator=4),
                            min_coverage=0.95, max_hallucinations=0) == [
        "coverage 3/4 (75.0%) < min_coverage 95.0%", "hallucinations 1/4 (25.0%) > max_hallucinations 0"]
    assert check_thresholds(Ratio(numerator=4, denominator=4), Ratio(numerator=0, denominator=4),
                            min_coverage=1.0, max_hallucinations=0) == []


def test_vacuous_coverage_fails_closed_unless_min_coverage_is_zero():
    empty = Ratio(numerator=0, denominator=0)
    [shortfall] = check_thresholds(empty, empty, min_coverage=0.5, max_hallucinations=0)
    assert shortfall.startswith("coverage 0/0: the report has no checkable claim")
    assert "min_coverage=0" in shortfall
    assert check_thresholds(empty, empty, min_coverage=0.0, max_hallucinations=0) == []


def test_failure_names_claim_verdict_node_chain_and_ratios():
    text = render_failure(
        shortfalls=["hallucinations 1/2 (50.0%) > max_hallucinations 0"],
        failing=[claim(2, Verdict.UNSUPPORTED)],
        chains={"c002": chain(2, Verdict.UNSUPPORTED, raw=False)},
        coverage=Ratio(numerator=1, denominator=2), hallucinations=Ratio(numerator=1, denominator=2),
    )
    assert text.splitlines() == [
        "fence audit failed: hallucinations 1/2 (50.0%) > max_hallucinations 0",
        "coverage 1/2 (50.0%), hallucinations 1/2 (50.0%)",
        'c002 unsupported: "Services revenue grew to $2.5 billion in fiscal 2023."',
        "    introduced by: write",
        "    chain: write report.md:3 | revenue $2.5 billion",
        "           [does not reach raw data]",
    ]


def test_failure_shows_the_first_ten_claims_and_counts_the_rest():
    failing = [claim(i, Verdict.CONTRADICTED) for i in range(12)]
    text = render_failure(shortfalls=["x"], failing=failing, chains={}, coverage=Ratio(numerator=0, denominator=12),
                          hallucinations=Ratio(numerator=12, denominator=12))
    lines = text.splitlines()
    assert sum(line.startswith("c0") for line in lines) == MAX_FAILURE_CLAIMS
    assert lines[-1] == ("... and 2 more failing claim(s); run pytest with -v to see all of them, "
                         "or --fence-report=PATH")
    assert "(no evidence chain)" in text
    every = render_failure(shortfalls=["x"], failing=failing, chains={}, coverage=Ratio(numerator=0, denominator=12),
                           hallucinations=Ratio(numerator=12, denominator=12), max_claims=None)
    assert sum(line.startswith("c0") for line in every.splitlines()) == 12 and "more failing" not in every


def test_chain_renders_hops_from_report_to_raw_data():
    assert render_chain(chain(1, Verdict.VERIFIED, raw=True)) == (
        "write report.md:3 <- research/lookup tools/lookup-1.txt:7")


def test_golden_text_is_sorted_tagged_and_free_of_volatile_fields():
    chains = [chain(2, Verdict.UNSUPPORTED, raw=False), chain(1, Verdict.VERIFIED, raw=True)]
    chains[1].links[1].text = "run 1b4e28ba-2fa1-11d2-883f-0016d3cca427 at 2024-05-01T10:00:00Z: 1500000000"
    chains[1].links[0].file = "/tmp/pytest-of-me/pytest-7/test_x0/fence-trace/report.md"
    text = serialize_chains(chains)
    assert text == serialize_chains(list(reversed(chains)))
    assert text.splitlines() == [
        "# auditfence evidence chains, format 2, 2 claim(s)",
        "",
        "[c001] claim: Services revenue $1.5 billion.",
        "[c001] verdict: verified",
        "[c001] introduced_by: -",
        "[c001] reaches_raw_data: yes",
        "[c001] link 1: report write @ <abs>/report.md:3 | revenue $1.5 billion",
        "[c001] link 2: tool_call research/lookup @ tools/lookup-1.txt:7 | run <uuid> at <time>: 1500000000",
        "",
        "[c002] claim: Services revenue $2.5 billion.",
        "[c002] verdict: unsupported",
        "[c002] introduced_by: write",
        "[c002] reaches_raw_data: NO",
        "[c002] link 1: report write @ report.md:3 | revenue $2.5 billion",
    ]
    assert "abab" not in text  # sha256 is left out


def test_golden_text_rejects_what_is_not_a_chain():
    with pytest.raises(TypeError, match="chain_snapshot compares evidence chains"):
        serialize_chains({"c001": "x"})


def test_ratio_comparison_explained_with_numerators_and_denominators():
    lines = explain_comparison("==", Ratio(numerator=3, denominator=4), Ratio(numerator=4, denominator=4))
    assert lines == ["3/4 (75.0%) == 4/4 (100.0%)", "numerators 3 vs 4, denominators 4 vs 4"]
    assert explain_comparison("<", Ratio(numerator=1, denominator=1), Ratio(numerator=1, denominator=1)) is None
