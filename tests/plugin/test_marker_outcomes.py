"""A fenced test passes, fails with the dozen-line message, and follows marker/fixture/ini precedence."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.filterwarnings("ignore::pytest.PytestAssertRewriteWarning")

TESTS = """
import pytest
from graphapp import run

@pytest.mark.fence(min_coverage=0.95, max_hallucinations=0)
def test_clean(fence_snapshot):
    run(fence_snapshot)

@pytest.mark.fence(min_coverage=0.95, max_hallucinations=0)
def test_invented(fence_snapshot):
    run(fence_snapshot, invent=True)
"""


def test_pass_and_fail_with_the_claim_verdict_node_and_ratios(project):
    project.makepyfile(test_fenced=TESTS)
    result = project.runpytest()
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines([
        "*_ test_invented _*",
        "fence audit failed: coverage 1/2 (50.0%) < min_coverage 95.0%; hallucinations 1/2 (50.0%) > "
        "max_hallucinations 0",
        "coverage 1/2 (50.0%), hallucinations 1/2 (50.0%)",
        'c003 contradicted: "Services revenue was $99.9 billion in fiscal 2023."',
        "    introduced by: write (round 1)",
        "    note: $99.9 billion contradicted: the same subject has '$85.2 billion' in",
        "          tools/research/r1.lookup_revenue.1.txt",
        '    sources hold: tools/research/r1.lookup_revenue.1.txt:4 "services revenue fiscal 2023: $85.2',
        '                  billion"',
        "    chain: __report__ report.md:4 | Services revenue was $99.9 billion in fiscal 2023.",
        "       <-  write nodes/write/r1.output.txt:5 | Services revenue was $99.9 billion in fiscal 2023.",
        "           [[]does not reach raw data[]]",
    ])
    result.stdout.fnmatch_lines([
        "*- auditfence -*",
        "PASS         test_fenced.py::test_clean  coverage 1/1 (100.0%)  hallucinations 0/1 (0.0%)",
        "FAIL         test_fenced.py::test_invented  coverage 1/2 (50.0%)  hallucinations 1/2 (50.0%)",
        "2 fenced test(s): 1 pass, 1 fail, 0 audit-error, 0 report-only",
    ])
    result.stdout.no_fnmatch_line("*Traceback*")


def test_closest_marker_wins_and_report_only_never_fails(project):
    project.makepyfile(test_fenced="""
        import pytest
        from graphapp import run

        pytestmark = pytest.mark.fence(max_hallucinations=0)

        @pytest.mark.fence(min_coverage=0.5, max_hallucinations=1)
        class TestLenient:
            def test_class_marker(self, fence_snapshot):
                run(fence_snapshot, invent=True)

            @pytest.mark.fence(max_hallucinations=0)
            def test_function_marker(self, fence_snapshot):
                run(fence_snapshot, invent=True)

        def test_module_marker(fence_snapshot):
            run(fence_snapshot, invent=True)

        @pytest.mark.fence(report_only=True)
        def test_report_only(fence_snapshot):
            run(fence_snapshot, invent=True)
    """)
    result = project.runpytest()
    result.assert_outcomes(passed=2, failed=2)
    lines = result.stdout.lines
    assert "PASS         test_fenced.py::TestLenient::test_class_marker  coverage 1/2 (50.0%)  " \
           "hallucinations 1/2 (50.0%)" in lines
    assert any(line.startswith("FAIL         test_fenced.py::TestLenient::test_function_marker") for line in lines)
    assert any(line.startswith("FAIL         test_fenced.py::test_module_marker") for line in lines)
    assert any(line.startswith("REPORT-ONLY  test_fenced.py::test_report_only") for line in lines)


def test_ini_default_and_fence_config_fixture_and_marker_layers(project):
    project.makeini("[pytest]\nfence_max_hallucinations = 1\nfence_min_coverage = 0.5\n")
    project.makepyfile(test_fenced="""
        import pytest
        from graphapp import run

        @pytest.mark.fence
        def test_ini_allows_one(fence_snapshot):
            run(fence_snapshot, invent=True)

        class TestStrictConfig:
            @pytest.fixture
            def fence_config(self):
                return {"max_hallucinations": 0}

            @pytest.mark.fence
            def test_fixture_beats_ini(self, fence_snapshot):
                run(fence_snapshot, invent=True)

            @pytest.mark.fence(max_hallucinations=1)
            def test_marker_beats_fixture(self, fence_snapshot):
                run(fence_snapshot, invent=True)
    """)
    result = project.runpytest("-v")
    result.stdout.fnmatch_lines([
        "*::test_ini_allows_one PASSED*",
        "*::TestStrictConfig::test_fixture_beats_ini FAILED*",
        "*::TestStrictConfig::test_marker_beats_fixture PASSED*",
    ])


def test_bad_fence_config_fixture_is_an_error_naming_the_fixture(project):
    project.makepyfile(test_fenced="""
        import pytest
        from graphapp import run

        @pytest.fixture
        def fence_config():
            return {"min_coverage": "most"}

        @pytest.mark.fence
        def test_a(fence_snapshot):
            run(fence_snapshot)
    """)
    result = project.runpytest()
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*fence_config fixture: min_coverage must be a number between 0.0 and 1.0, got 'most'*"])
