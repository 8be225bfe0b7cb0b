"""The session report: byte-stable JSON, merge of worker fragments, markdown/terminal lines, baseline gate."""

from __future__ import annotations

import json

import pytest

from pytest_auditfence.models import ClaimRecord, Ratio, Verdict
from pytest_auditfence.report import (
    REPORT_SCHEMA_VERSION,
    FenceReport,
    ReportError,
    TestEntry,
    compare_to_baseline,
)


def entry(nodeid: str, covered: int, checkable: int, hallucinated: int, outcome: str = "pass") -> TestEntry:
    claims = [
        ClaimRecord(id=f"c{i:03d}", claim=f"Revenue was ${i}.0 billion.", start=0, end=10,
                    verdict=Verdict.UNSUPPORTED if i < hallucinated else Verdict.VERIFIED,
                    introduced_by="write" if i < hallucinated else None)
        for i in range(checkable)
    ]
    return TestEntry.from_claims(
        nodeid, outcome, thresholds={"min_coverage": 0.9, "max_hallucinations": 0},
        coverage=Ratio(numerator=covered, denominator=checkable),
        hallucinations=Ratio(numerator=hallucinated, denominator=checkable), claims=reversed(claims),
    )


def test_json_is_sorted_versioned_and_independent_of_arrival_order():
    a, b, c = entry("t.py::a", 3, 3, 0), entry("t.py::b", 1, 2, 1, "fail"), entry("t.py::c", 0, 0, 0)
    one = FenceReport.merge([a, b, c]).to_json()
    other = FenceReport.merge([c, a, b]).to_json()
    assert one == other
    data = json.loads(one)
    assert data["schema_version"] == REPORT_SCHEMA_VERSION
    assert [t["nodeid"] for t in data["tests"]] == ["t.py::a", "t.py::b", "t.py::c"]
    assert [c["id"] for c in data["tests"][1]["claims"]] == ["c000", "c001"]
    assert data["tests"][1]["coverage"] == {"denominator": 2, "numerator": 1}
    assert list(data) == sorted(data)


def test_json_round_trips_and_bad_files_name_the_fix(tmp_path):
    report = FenceReport.merge([entry("t.py::a", 2, 3, 1, "fail")])
    path = tmp_path / "r.json"
    report.write(path)
    assert FenceReport.read(path) == report
    with pytest.raises(ReportError, match="does not exist; create it with: pytest --fence-baseline="):
        FenceReport.read(tmp_path / "missing.json")
    (tmp_path / "old.json").write_text('{"schema_version": 0, "tests": []}')
    with pytest.raises(ReportError, match="schema_version 0, this pytest-auditfence reads 1"):
        FenceReport.read(tmp_path / "old.json")
    (tmp_path / "bad.json").write_text('{"schema_version": 1, "tests": [{"nodeid": "x", "outcome": "meh"}]}')
    with pytest.raises(ReportError, match=r"invalid at 'tests.0.outcome'"):
        FenceReport.read(tmp_path / "bad.json")


def test_merge_fails_closed_on_conflicting_fragments_and_on_reported_problems():
    report = FenceReport.merge([entry("t.py::a", 3, 3, 0), entry("t.py::a", 2, 3, 1, "fail")])
    assert not report.complete
    assert report.problems == ["t.py::a: two different results were received for this test"]
    lost = FenceReport.merge([], problems=["xdist worker gw1 went down"])
    assert lost.failed() and lost.lines()[-1] == "INCOMPLETE REPORT: xdist worker gw1 went down"


def test_terminal_lines_one_per_test_then_totals_and_silent_when_empty():
    report = FenceReport.merge([entry("t.py::b", 1, 2, 1, "fail"), entry("t.py::a", 3, 3, 0)])
    lines = report.lines()
    assert lines[0].startswith("PASS") and "t.py::a" in lines[0] and "coverage 3/3 (100.0%)" in lines[0]
    assert lines[1].startswith("FAIL") and "hallucinations 1/2 (50.0%)" in lines[1]
    assert lines[2] == "2 fenced test(s): 1 pass, 1 fail, 0 audit-error, 0 report-only"
    assert FenceReport.merge([]).lines() == []


def test_markdown_table_escapes_pipes():
    md = FenceReport.merge([entry("t.py::a[x|y]", 1, 2, 1, "fail")]).markdown()
    assert "| `t.py::a[x\\|y]` | fail | 1/2 (50.0%) | 1/2 (50.0%) |" in md
    assert "**0 pass, 1 fail, 0 audit-error, 0 report-only**" in md


def test_baseline_coverage_drop_and_hallucination_rise_are_regressions():
    before = FenceReport.merge([entry("t.py::a", 3, 3, 0), entry("t.py::b", 2, 3, 0), entry("t.py::c", 3, 4, 1)])
    after = FenceReport.merge([entry("t.py::a", 2, 3, 0), entry("t.py::b", 2, 3, 1), entry("t.py::c", 4, 4, 0)])
    cmp = compare_to_baseline(after, before, ran=["t.py::a", "t.py::b", "t.py::c"], baseline_name="base.json")
    assert {r.nodeid: r.status for r in cmp.rows} == {"t.py::a": "regressed", "t.py::b": "regressed",
                                                      "t.py::c": "improved"}
    lines = cmp.lines()
    assert lines[0] == "fence baseline base.json: 2 regression(s) - the session fails"
    assert lines[1].split() == ["status", "test", "coverage", "before", "->", "after", "hallucinations", "before",
                                "->", "after"]
    row_a = next(line for line in lines if "t.py::a" in line)
    assert "3/3 (100.0%) -> 2/3 (66.7%)" in row_a and row_a.startswith("regressed")


def test_baseline_missing_result_fails_closed_but_not_run_is_only_listed():
    before = FenceReport.merge([entry("t.py::a", 3, 3, 0), entry("t.py::b", 3, 3, 0)])
    errored = TestEntry(nodeid="t.py::a", outcome="audit-error", errors=["no report"])
    cmp = compare_to_baseline(FenceReport.merge([errored]), before, ran=["t.py::a"])
    assert {r.nodeid: r.status for r in cmp.rows} == {"t.py::a": "no-result", "t.py::b": "not-run"}
    assert [r.nodeid for r in cmp.regressions] == ["t.py::a"]
    cmp2 = compare_to_baseline(FenceReport.merge([]), before, ran=["t.py::b"])
    assert [r.nodeid for r in cmp2.regressions] == ["t.py::b"]


def test_clean_baseline_prints_one_line_and_new_tests_are_listed():
    before = FenceReport.merge([entry("t.py::a", 3, 3, 0)])
    same = compare_to_baseline(before, before, ran=["t.py::a"], baseline_name="b.json")
    assert same.lines() == ["fence baseline b.json: no regression (1 test(s) compared)"]
    grown = compare_to_baseline(FenceReport.merge([entry("t.py::a", 3, 3, 0), entry("t.py::n", 1, 1, 0)]),
                                before, ran=[], baseline_name="b.json")
    assert not grown.regressions and [r.status for r in grown.rows] == ["same", "new"]
