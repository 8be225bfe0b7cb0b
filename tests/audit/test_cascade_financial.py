"""The cascade on a real captured four-specialist fan-in pipeline: clean, and with planted fabrications."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import pytest

from pytest_auditfence import Cascade, Verdict
from pytest_auditfence.audit.cascade import REPORT_NODE


def claim_with(cascade: Cascade, text: str):
    hits = [c for c in cascade.claims if text in c.claim]
    assert len(hits) == 1, f"{text!r} is in {len(hits)} claims: {[c.claim for c in hits]}"
    return hits[0]


def test_fan_in_is_one_merged_unit(clean_audit) -> None:
    _, _, cascade = clean_audit
    unit = cascade.group.unit("synthesizer")  # the node's only step: 'synthesizer r1'
    assert unit.name == "synthesizer r1"
    assert unit.upstream == ["analyst_estimates r1", "filings r1", "macro_indicators r1", "price_history r1"]
    # the merged unit sees all four sub-reports at once
    assert sorted(f"{Path(p).parts[1]} r1" for p in unit.sources if p.startswith("nodes/")) == unit.upstream


def test_clean_report_is_fully_traceable(clean_audit) -> None:
    _, _, cascade = clean_audit
    failing = [(c.claim, c.verdict.value, c.notes) for c in cascade.failing_claims()]
    assert failing == []
    assert cascade.hallucinations.numerator == 0
    assert cascade.coverage.denominator >= 20
    assert cascade.coverage.numerator == cascade.coverage.denominator


def test_rounded_billions_match_the_millions_in_the_filing(clean_audit) -> None:
    _, _, cascade = clean_audit
    claim = claim_with(cascade, "Revenue reached $1.2 billion")
    assert claim.verdict in (Verdict.VERIFIED, Verdict.DERIVED)
    chain = cascade.trace_claim(claim)
    assert chain.reaches_raw_data
    assert [link.node for link in chain.links][:2] == [REPORT_NODE, "synthesizer"]
    assert chain.links[-1].kind == "tool_call" and chain.links[-1].node == "filings"


def test_growth_percentage_is_derived_with_its_formula(clean_audit) -> None:
    _, _, cascade = clean_audit
    claim = claim_with(cascade, "up 12.0% from FY2023")
    assert claim.verdict in (Verdict.DERIVED, Verdict.VERIFIED)
    if claim.verdict is Verdict.DERIVED:
        assert claim.formula and "1102" in claim.formula.replace(",", "")


def test_evidence_is_verbatim_in_the_captured_file(clean_audit) -> None:
    snap, _, cascade = clean_audit
    checked = 0
    for claim in cascade.claims:
        for ev in claim.evidence:
            text = (snap.trace_dir / ev.file).read_text(encoding="utf-8")
            assert text[ev.offset:ev.offset + len(ev.text)] == ev.text
            assert text.count("\n", 0, ev.offset) + 1 == ev.line
            checked += 1
    assert checked >= 20


@pytest.mark.parametrize("index", [0, 1, 2])
def test_each_planted_fabrication_is_named_with_its_origin(fabricated_audit, financial: ModuleType, index: int) -> None:
    _, _, cascade = fabricated_audit
    planted = financial.PLANTED[index]
    claim = claim_with(cascade, planted["sentence"].rstrip("."))
    assert cascade.policy.is_hallucination(claim.verdict), (claim.verdict, claim.notes)
    assert claim.introduced_by == planted["node"], (claim.introduced_by, claim.notes)
    if planted["kind"] == "misattributed":
        assert claim.verdict is Verdict.MISATTRIBUTED
    chain = cascade.trace_claim(claim)
    assert chain.introduced_by == planted["node"]


def test_fabricated_report_flags_exactly_the_planted_claims(fabricated_audit, financial: ModuleType) -> None:
    _, _, cascade = fabricated_audit
    flagged = sorted(c.claim for c in cascade.failing_claims())
    expected = sorted(next(c.claim for c in cascade.claims if p["sentence"].rstrip(".") in c.claim)
                      for p in financial.PLANTED)
    assert flagged == expected


def test_specialist_fabrication_chain_stops_at_the_specialist(fabricated_audit) -> None:
    _, _, cascade = fabricated_audit
    chain = cascade.trace_claim("2.7 million shares")
    assert [link.node for link in chain.links] == [REPORT_NODE, "synthesizer", "price_history"]
    assert not chain.reaches_raw_data


def test_json_export_reloads_equal_and_is_byte_stable(fabricated_audit, financial: ModuleType, tmp_path: Path) -> None:
    from pytest_auditfence.audit.cascade import audit_cascade_sync

    from audit_pipelines import capture_financial

    _, _, cascade = fabricated_audit
    again = Cascade.from_json(cascade.to_json())
    assert again == cascade
    assert again.trace_claim("2.7 million shares") == cascade.trace_claim("2.7 million shares")
    snap, report = capture_financial(financial, tmp_path / "rerun", fabricate=True)
    rerun = audit_cascade_sync(trace_dir=snap.trace_dir, final_document=report)
    assert rerun.to_json() == cascade.to_json()
