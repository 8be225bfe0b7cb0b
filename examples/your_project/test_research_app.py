"""The researcher + summarizer app under the fence: its model calls replay from cassettes/ (no key, no network).

Record again after changing the app, a prompt or the script: see docs/your-project.md, "Recording".
"""

from __future__ import annotations

import pytest
import research_app
from research_script import QUESTION, SUMMARY

from pytest_auditfence import assert_claim_traced


def run(llm, fence_snapshot):
    result = research_app.build_app(llm).invoke({"messages": [("user", QUESTION)]},
                                                config=fence_snapshot.config())
    report = result["messages"][-1].content
    fence_snapshot.set_report(report)
    return report


@pytest.mark.fence(min_coverage=0.6, max_hallucinations=0)
def test_summary_is_traceable(llm, fence_snapshot):
    assert run(llm, fence_snapshot) == SUMMARY
    # after the body the marker audits the run: every figure traces to company_fundamentals


def test_each_figure_traces_to_the_tool(llm, fence_snapshot, fence_audit):
    run(llm, fence_snapshot)
    cascade = fence_audit()
    assert_claim_traced(cascade, "revenue of $1,234 million", to="company_fundamentals")
    assert_claim_traced(cascade, "gross margin was 41.3%", to="company_fundamentals")


@pytest.mark.fence(mode="llm", adversarial=True, min_coverage=1.0, max_hallucinations=0)
def test_the_llm_auditor_backs_the_sentence_without_figures(llm, fence_snapshot):
    run(llm, fence_snapshot)
