"""--fence-trace-dir keeps each fenced test's capture in a folder named from its node id."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.filterwarnings("ignore::pytest.PytestAssertRewriteWarning")


def test_captures_land_in_per_test_folders_and_are_replaced_on_rerun(project):
    project.makepyfile(test_fenced="""
        import pytest
        from graphapp import run

        @pytest.mark.fence
        @pytest.mark.parametrize("n", [1, 2])
        def test_a(fence_snapshot, n):
            run(fence_snapshot)
    """)
    for _ in range(2):  # the second run replaces the first capture instead of refusing the folder
        project.runpytest("--fence-trace-dir=traces").assert_outcomes(passed=2)
    folders = sorted(p.name for p in (project.path / "traces").iterdir())
    assert len(folders) == 2 and all(name.startswith("test_fenced.py_test_a_") for name in folders)
    for name in folders:
        assert (project.path / "traces" / name / "manifest.json").is_file()
        assert "Revenue was $383.3 billion" in (project.path / "traces" / name / "report.md").read_text()
