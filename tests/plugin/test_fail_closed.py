"""A fenced test that set no report, captured nothing, or cannot be audited is an ERROR that says why."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.filterwarnings("ignore::pytest.PytestAssertRewriteWarning")


ONE_OUTCOME = """
import pytest
from graphapp import app, run

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
    run(fence_snapshot)
    assert False, "the body's own failure"

@pytest.mark.fence(min_coverage=0)
def test_nothing_checkable(fence_snapshot):
    app.invoke({"ticker": "AAPL"}, config=fence_snapshot.config())
    fence_snapshot.set_report("The outlook is uncertain.")
"""


@pytest.mark.parametrize("workers", [(), ("-n", "2")], ids=["serial", "xdist"])
def test_one_outcome_per_test_a_missing_report_or_audit_error_fails_the_test_itself(project, workers):
    project.makepyfile(test_fenced=ONE_OUTCOME)
    result = project.runpytest_subprocess("-ra", "-p", "no:cacheprovider", "--fence-report=r.json", *workers)
    result.assert_outcomes(passed=1, failed=4)  # no test both passed and errored
    out = result.stdout.str()
    for name, message in (
        ("test_no_report", "fence audit error: the test set no report: record the final document with "
                           "fence_snapshot.set_report(text) in the test body so the marker knows what to audit"),
        ("test_captured_nothing", "fence audit error: nothing was captured: no node or tool ran with the "
                                  "fence_snapshot callbacks; run the graph with config=fence_snapshot.config()"),
        ("test_llm_without_model", "fence audit error (AuditError): mode='llm' needs a chat model: override "
                                   "the fence_llm fixture*"),
        ("test_body_fails_first", "E       AssertionError: the body's own failure"),
    ):
        result.stdout.fnmatch_lines([f"*_ {name} _*", message])  # under the test's own FAILURES header
        result.stdout.fnmatch_lines([f"FAILED test_fenced.py::{name} - *"])
    assert "ERROR at" not in out and "error" not in result.outlines[-1]
    assert "_NothingToAudit" not in out and "_Nothing" not in (project.path / "r.json").read_text()
    result.stdout.fnmatch_lines([
        "FAIL         test_fenced.py::test_body_fails_first  coverage \u2013  hallucinations \u2013",
        "AUDIT-ERROR  test_fenced.py::test_captured_nothing  coverage \u2013  hallucinations \u2013",
    ])
    # 0/0 is not a percentage
    result.stdout.fnmatch_lines(["PASS         test_fenced.py::test_nothing_checkable  coverage 0/0 (\u2013)  "
                                 "hallucinations 0/0 (\u2013)"])
    assert "(100.0%)" not in out
    result.stdout.fnmatch_lines(["5 fenced test(s): 1 pass, 1 fail, 3 audit-error, 0 report-only"])
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
        "E*introduced by: write (round 1)",
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


def test_an_audit_error_prints_the_real_trace_folder_and_the_report_a_stable_placeholder(project):
    project.makeconftest("""
        def pytest_auditfence_audit(item, settings, manifest, trace_dir, final_document, llm):
            raise RuntimeError(f"cannot read {trace_dir}/manifest.json")
    """)
    project.makepyfile(test_fenced="""
        import pytest
        from graphapp import run

        @pytest.mark.fence
        def test_a(fence_snapshot):
            run(fence_snapshot)
    """)
    result = project.runpytest("--fence-report=r.json")
    result.assert_outcomes(failed=1)
    out = result.stdout.str()
    assert "<trace_dir>" not in out
    result.stdout.fnmatch_lines(["fence audit error (RuntimeError): cannot read /*/fence-trace/manifest.json"])
    report = (project.path / "r.json").read_text()
    assert "cannot read <trace_dir>/manifest.json" in report and str(project.path) not in report
