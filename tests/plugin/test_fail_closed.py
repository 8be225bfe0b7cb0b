"""A fenced test that set no report, captured nothing, or cannot be audited is an ERROR that says why."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.filterwarnings("ignore::pytest.PytestAssertRewriteWarning")


def test_no_report_no_capture_and_missing_llm_are_errors_not_passes(project):
    project.makepyfile(test_fenced="""
        import pytest
        from graphapp import app

        @pytest.mark.fence
        def test_no_report(fence_snapshot):
            app.invoke({"ticker": "AAPL"}, config=fence_snapshot.config())

        @pytest.mark.fence
        def test_captured_nothing(fence_snapshot):
            out = app.invoke({"ticker": "AAPL"})  # forgot config=fence_snapshot.config()
            fence_snapshot.set_report(out["report"])

        @pytest.mark.fence(mode="llm")
        def test_llm_without_model(fence_snapshot):
            out = app.invoke({"ticker": "AAPL"}, config=fence_snapshot.config())
            fence_snapshot.set_report(out["report"])

        @pytest.mark.fence
        def test_body_fails_first(fence_snapshot):
            assert False, "the body's own failure"
    """)
    result = project.runpytest("--fence-report=r.json")
    result.assert_outcomes(passed=3, failed=1, errors=3)
    result.stdout.fnmatch_lines([
        "*ERROR at teardown of test_no_report*",
        "fence audit error (_NothingToAudit): set no report: the test body must record the final document with "
        "fence_snapshot.set_report(text)*",
    ])
    result.stdout.fnmatch_lines([
        "*ERROR at teardown of test_captured_nothing*",
        "fence audit error (_NothingToAudit): captured nothing: no node or tool ran with the fence_snapshot "
        "callbacks; run the graph with config=fence_snapshot.config()",
    ])
    result.stdout.fnmatch_lines([
        "*ERROR at teardown of test_llm_without_model*",
        "fence audit error (AuditError): mode='llm' needs a chat model: override the fence_llm fixture*",
    ])
    result.stdout.fnmatch_lines(["4 fenced test(s): 0 pass, 0 fail, 4 audit-error, 0 report-only"])
    assert result.ret == pytest.ExitCode.TESTS_FAILED


def test_fence_audit_fixture_gives_the_cascade_for_helpers(project):
    project.makepyfile(test_helpers="""
        from graphapp import run
        from pytest_auditfence import assert_traceable, assert_claim_traced, assert_no_fabricated_evidence

        def test_helpers(fence_snapshot, fence_audit):
            report = run(fence_snapshot, invent=True)
            cascade = fence_audit(final_document=report)
            assert_claim_traced(cascade, "Revenue was $383.3 billion", to="lookup_revenue")
            assert_no_fabricated_evidence(cascade)
            assert_traceable(cascade, min_coverage=0.9)

        def test_ratio_compare(fence_snapshot, fence_audit):
            run(fence_snapshot, invent=True)
            assert fence_audit().coverage == fence_audit().coverage
            assert fence_audit().hallucinations == type(fence_audit().hallucinations)(numerator=0, denominator=2)
    """)
    result = project.runpytest()
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines([
        "E*AssertionError: fence audit failed: coverage 1/2 (50.0%) < min_coverage 90.0%; hallucinations 1/2 "
        "(50.0%) > max_hallucinations 0",
        'E*c003 contradicted: "Services revenue was $99.9 billion in fiscal 2023."',
        "E*introduced by: write",
    ])
    result.stdout.fnmatch_lines(["E*1/2 (50.0%) == 0/2 (0.0%)", "E*numerators 1 vs 0, denominators 2 vs 2"])
    # the helper's own frames are hidden: the traceback points at the user's line
    result.stdout.fnmatch_lines([">       assert_traceable(cascade, min_coverage=0.9)"])
    result.stdout.no_fnmatch_line("*assertions.py*")


def test_lost_xdist_worker_fails_the_report_closed(project):
    project.makepyfile(test_crash="""
        import os
        import pytest
        from graphapp import run

        @pytest.mark.fence
        def test_fenced(fence_snapshot):
            run(fence_snapshot)
            os._exit(3)  # the worker dies after the audit: its result never reaches the controller
    """)
    result = project.runpytest("-n", "1", "--fence-report=r.json")
    assert result.ret != pytest.ExitCode.OK
    report = (project.path / "r.json").read_text()
    assert '"complete": false' in report
    result.stdout.fnmatch_lines(["INCOMPLETE REPORT: xdist worker gw0 went down*"])
