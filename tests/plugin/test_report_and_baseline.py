"""--fence-report is byte-identical across runs and under -n 2; JUnit properties; markdown; the baseline gate."""

from __future__ import annotations

import json

import pytest

from test_marker_outcomes import TESTS

pytestmark = pytest.mark.filterwarnings("ignore::pytest.PytestAssertRewriteWarning")


def test_report_byte_identical_across_runs_and_under_xdist(project):
    project.makepyfile(test_fenced=TESTS)
    first = project.runpytest("--fence-report=r1.json", "--junitxml=junit.xml", "--fence-md-summary=summary.md")
    first.assert_outcomes(passed=1, failed=1)
    project.runpytest("--fence-report=r2.json")
    parallel = project.runpytest("-n", "2", "--fence-report=r3.json")
    parallel.assert_outcomes(passed=1, failed=1)
    parallel.stdout.fnmatch_lines(['c003 contradicted: "Services revenue was $99.9 billion in fiscal 2023."',
                                   "2 fenced test(s): 1 pass, 1 fail, 0 audit-error, 0 report-only"])
    r1, r2, r3 = ((project.path / f"r{i}.json").read_bytes() for i in (1, 2, 3))
    assert r1 == r2 == r3
    data = json.loads(r1)
    assert data["complete"] is True and data["schema_version"] == 1
    assert [t["nodeid"] for t in data["tests"]] == ["test_fenced.py::test_clean", "test_fenced.py::test_invented"]
    invented = data["tests"][1]
    assert invented["outcome"] == "fail"
    assert invented["coverage"] == {"denominator": 2, "numerator": 1}
    assert invented["thresholds"]["min_coverage"] == 0.95
    assert {c["id"]: (c["verdict"], c["introduced_by"]) for c in invented["claims"]}["c003"] == ("contradicted", "write")
    assert str(project.path) not in r1.decode()
    junit = (project.path / "junit.xml").read_text()
    assert '<property name="fence_outcome" value="fail" />' in junit
    assert '<property name="fence_coverage" value="1/2 (50.0%)" />' in junit
    summary = (project.path / "summary.md").read_text()
    assert "| `test_fenced.py::test_invented` | fail | 1/2 (50.0%) | 1/2 (50.0%) |" in summary


def test_baseline_update_then_regression_fails_the_session_with_a_table(project, monkeypatch):
    project.makepyfile(test_fenced="""
        import os
        import pytest
        from graphapp import run

        @pytest.mark.fence(report_only=True)
        def test_agent(fence_snapshot):
            run(fence_snapshot, invent=os.environ.get("INVENT") == "1")
    """)
    created = project.runpytest("--fence-baseline=base.json", "--fence-update-baseline")
    assert created.ret == pytest.ExitCode.OK
    created.stdout.fnmatch_lines(["fence baseline base.json updated (1 test(s))"])
    same = project.runpytest("--fence-baseline=base.json")
    assert same.ret == pytest.ExitCode.OK
    same.stdout.fnmatch_lines(["fence baseline base.json: no regression (1 test(s) compared)"])
    monkeypatch.setenv("INVENT", "1")
    regressed = project.runpytest("--fence-baseline=base.json")
    regressed.assert_outcomes(passed=1)  # report_only: the test passes, the gate fails the session
    assert regressed.ret == pytest.ExitCode.TESTS_FAILED
    regressed.stdout.fnmatch_lines([
        "fence baseline base.json: 1 regression(s) - the session fails",
        "status * test * coverage before -> after * hallucinations before -> after",
        "regressed * test_fenced.py::test_agent * 1/1 (100.0%) -> 1/2 (50.0%) * 0/1 (0.0%) -> 1/2 (50.0%)",
    ])


def test_a_regression_names_the_test_and_each_new_hallucinated_claim_in_terminal_and_markdown(project, monkeypatch):
    project.makepyfile(test_fenced="""
        import os
        import pytest
        from graphapp import run

        @pytest.mark.fence(report_only=True)
        def test_agent(fence_snapshot):
            run(fence_snapshot, invent=os.environ.get("INVENT") == "1")

        @pytest.mark.fence
        def test_steady(fence_snapshot):
            run(fence_snapshot)
    """)
    assert project.runpytest_subprocess("--fence-baseline=base.json", "--fence-update-baseline").ret == 0
    monkeypatch.setenv("INVENT", "1")
    regressed = project.runpytest_subprocess("--fence-baseline=base.json", "--fence-md-summary=summary.md")
    regressed.assert_outcomes(passed=2)  # report_only: the tests pass, the gate fails the session
    assert regressed.ret == pytest.ExitCode.TESTS_FAILED
    new_claim = ('test_fenced.py::test_agent: new contradicted claim c003 "Services revenue was $99.9 billion in '
                 'fiscal 2023." (introduced by write (round 1))')
    regressed.stdout.fnmatch_lines([
        "fence baseline base.json: 1 regression(s) - the session fails",
        "status * test *",
        "regressed * test_fenced.py::test_agent *",
        f"  {new_claim}",
    ])
    summary = (project.path / "summary.md").read_text()
    assert "**1 pass, 0 fail, 0 audit-error, 1 report-only - baseline gate FAILED**" in summary
    assert "**baseline gate FAILED**: 1 regression(s) against `base.json` - the session fails" in summary
    assert ("| `test_fenced.py::test_agent` | regressed | 1/1 (100.0%) -> 1/2 (50.0%) | 0/1 (0.0%) -> 1/2 (50.0%) |"
            in summary)
    assert ('- `test_fenced.py::test_agent`: new contradicted claim c003 "Services revenue was $99.9 billion in '
            'fiscal 2023." (introduced by `write (round 1)`)') in summary
    assert "test_steady" not in summary.split("**baseline gate FAILED**")[1]  # only the regressed test is named

    monkeypatch.setenv("INVENT", "0")
    clean = project.runpytest_subprocess("--fence-baseline=base.json", "--fence-md-summary=summary.md")
    assert clean.ret == pytest.ExitCode.OK
    summary = (project.path / "summary.md").read_text()
    assert "FAILED" not in summary and "**baseline gate passed**: no regression against `base.json`" in summary
