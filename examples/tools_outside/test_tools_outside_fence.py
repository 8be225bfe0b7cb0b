"""The plain-Python pipeline captured without LangGraph: its data functions wrapped, the brief audited.

`wrap` and the `capture` decorator record each call (arguments and output) at the instrumented level.
"""

from __future__ import annotations

import tools_outside_pipeline as pipeline

from pytest_auditfence import CaptureLevel, assert_claim_traced, assert_traceable, capture, wrap


def run_captured(snap) -> str:
    fundamentals = wrap(pipeline.fetch_fundamentals, snap)  # a wrapped copy; the original is untouched

    @capture(snap, name="fetch_headlines")
    def headlines(ticker, limit=3):
        return pipeline.fetch_headlines(ticker, limit=limit)

    brief = pipeline.run_pipeline("HALV", fundamentals_source=fundamentals, headlines_source=headlines)
    snap.set_report(brief)
    return brief


def test_wrapped_calls_are_captured_at_the_instrumented_level(fence_snapshot, fence_audit):
    run_captured(fence_snapshot)
    manifest = fence_snapshot.finalize()
    assert {(n.name, n.kind) for n in manifest.nodes} == {("fetch_fundamentals", "tool"), ("fetch_headlines", "tool")}
    assert {(n.capture_level, n.trust_cap) for n in manifest.nodes} == {(CaptureLevel.INSTRUMENTED, 1.0)}
    (fundamentals,) = [f for f in manifest.files if f.tool == "fetch_fundamentals" and f.kind == "tool_call"]
    text = (fence_snapshot.trace_dir / fundamentals.path).read_text()
    assert "operating_income_usd_millions: 198" in text  # what the function returned: observed
    (arguments,) = [f for f in manifest.files if f.tool == "fetch_fundamentals" and f.kind == "tool_arguments"]
    assert "ticker: HALV" in (fence_snapshot.trace_dir / arguments.path).read_text()  # what it was given
    passport = fence_audit().passport
    assert (passport.capture_level, passport.trust_cap) == (CaptureLevel.INSTRUMENTED, 1.0)


def test_brief_is_traceable_to_the_wrapped_functions(fence_snapshot, fence_audit):
    run_captured(fence_snapshot)
    cascade = fence_audit()
    assert_traceable(cascade, min_coverage=1.0, max_hallucinations=0)
    assert_claim_traced(cascade, "operating margin 16.0%", to="fetch_fundamentals")
    assert_claim_traced(cascade, "Halvorsen opens second plant in Gdansk", to="fetch_headlines")
