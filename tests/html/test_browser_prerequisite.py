"""Without Chromium the browser tests skip locally, naming the install command, and fail under CI=true."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def run_browser_tests_without_chromium(tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    # PATH holds only the interpreter's folder, so neither chromium nor chromium-browser is found.
    clean = {k: v for k, v in os.environ.items() if k not in ("CI", "PATH")}
    return subprocess.run(
        [sys.executable, "-m", "pytest", "tests/html/test_browser.py", "-p", "no:cacheprovider", "-p", "no:xdist",
         "-q", "-rsf", f"--basetemp={tmp_path / 'base'}"],
        cwd=ROOT, env={**clean, "PATH": str(Path(sys.executable).parent), **env},
        capture_output=True, text=True, timeout=300,
    )


def test_locally_the_browser_tests_skip_naming_the_install_command(tmp_path: Path) -> None:
    done = run_browser_tests_without_chromium(tmp_path)
    last = done.stdout.splitlines()[-1]
    assert done.returncode == 0 and " skipped in " in last and "passed" not in last, done.stdout[-3000:]
    assert "SKIPPED" in done.stdout and "apt-get install -y chromium chromium-driver" in done.stdout


def test_under_ci_the_browser_tests_fail_without_chromium(tmp_path: Path) -> None:
    done = run_browser_tests_without_chromium(tmp_path, CI="true")
    assert done.returncode == 1 and "skipped" not in done.stdout, done.stdout[-3000:]
    assert "CI is set: headless Chromium is needed" in done.stdout
