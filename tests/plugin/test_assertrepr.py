"""pytest_assertrepr_compare: comparing two audits (or two ratios) explains the difference claim by claim."""

from __future__ import annotations


def test_comparing_two_cascades_names_the_claims_that_changed(project):
    project.makepyfile(test_compare="""
        from pathlib import Path
        from graphapp import run
        from pytest_auditfence import Snapshot
        from pytest_auditfence.audit.cascade import audit_cascade_sync

        def audit(tmp_path, invent):
            snap = Snapshot(tmp_path / ("invented" if invent else "clean"))
            run(snap, invent=invent)
            snap.finalize()
            return audit_cascade_sync(trace_dir=snap.trace_dir)

        def test_same(tmp_path):
            assert audit(tmp_path, False) == audit(tmp_path / "again", False)

        def test_differs(tmp_path):
            assert audit(tmp_path, False) == audit(tmp_path, True)

        def test_ratios(tmp_path):
            assert audit(tmp_path, False).coverage == audit(tmp_path, True).coverage
    """)
    result = project.runpytest()
    result.assert_outcomes(passed=1, failed=2)
    result.stdout.fnmatch_lines([
        "*audit results differ: coverage 1/1 (100.0%) vs 1/2 (50.0%), hallucinations 0/1 (0.0%) vs 1/2 (50.0%)",
        "*c003: only on the right: \"Services revenue was $99.9 billion in fiscal 2023.\"",
    ])
    result.stdout.fnmatch_lines([
        "*1/1 (100.0%) == 1/2 (50.0%)",
        "*numerators 1 vs 1, denominators 1 vs 2",
    ])
