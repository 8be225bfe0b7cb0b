"""`max_output_chars` reaches the fenced test's Snapshot from fence_config and from ini."""

from __future__ import annotations

import pytest

from pytest_auditfence.settings import DEFAULTS, SettingsError, parse_ini, resolve_settings

TEST_FILE = '''
import json
from pathlib import Path

from graphapp import run


def test_capture(fence_snapshot):
    run(fence_snapshot)
    manifest = fence_snapshot.finalize()
    cut = sorted(f.path for f in manifest.files if f.truncated)
    Path("cut.json").write_text(json.dumps(cut))
'''


def test_settings_layer_accepts_and_checks_max_output_chars():
    assert DEFAULTS.max_output_chars == 200_000
    assert parse_ini({"fence_max_output_chars": "500"}) == {"max_output_chars": 500}
    assert resolve_settings(ini={"max_output_chars": 500}, fixture={"max_output_chars": 80}).max_output_chars == 80
    with pytest.raises(SettingsError, match="max_output_chars must be a whole number of characters >= 1"):
        resolve_settings(fixture={"max_output_chars": 0})


@pytest.mark.parametrize("where", ["ini", "fence_config"])
def test_max_output_chars_cuts_the_captured_files(project: pytest.Pytester, where: str) -> None:
    if where == "ini":
        project.makeini("[pytest]\nfence_max_output_chars = 40\n")
    else:
        project.makeconftest("import pytest\n\n@pytest.fixture\ndef fence_config():\n"
                             "    return {'max_output_chars': 40}\n")
    project.makepyfile(test_cut=TEST_FILE)
    project.runpytest("-p", "no:randomly").assert_outcomes(passed=1)
    cut = (project.path / "cut.json").read_text()
    assert "tools/research/r1.lookup_revenue.1.txt" in cut

