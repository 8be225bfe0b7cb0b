"""`mode="llm"` scales (issue 12): a report of 100 semantic claims finishes within its budget, because the
step budget follows the claims and the claims are audited in batches."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from llm_helpers import recorded
from llm_pipelines import OFFICES, TASKS, capture_single

from pytest_auditfence.audit.cascade import FenceGroup
from pytest_auditfence.models import Verdict
from pytest_auditfence.testing.auditor_rules import AuditorRule, ClaimPlan

PLANS = {f"The {office} office completed the {task}": ClaimPlan(queries=(f"{office} office: the {task}",))
         for office in OFFICES for task in TASKS}


def test_a_hundred_semantic_claims_finish_within_the_default_budget(tmp_path: Path) -> None:
    trace, document = capture_single(tmp_path / "trace", "hundred")

    def audit(llm: Any) -> Any:
        return FenceGroup.audit_cascade(trace_dir=trace, final_document=document, llm=llm)  # default budgets

    cascade = recorded("hundred_claims", AuditorRule(PLANS), audit)
    semantic = [c for c in cascade.claims if c.verdict_source == "llm"]
    assert len(semantic) == 100
    assert cascade.complete and cascade.errors == []
    assert all(c.verdict is Verdict.VERIFIED for c in semantic)
    (run,) = cascade.result.llm.units
    assert run.stopped == "done" and run.sections == 13  # batches of 8
    assert run.model_calls == 100 * 2 + 13  # a search and a submit per claim, a closing answer per batch
    assert (cascade.coverage.numerator, cascade.coverage.denominator) == (100, 100)
