"""Fixtures for the `auditfence` command tests: real captured runs and a runner for the console script."""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from traced_app import capture_broken_run, capture_looping_run, capture_run

# The console script pyproject.toml declares, as installed next to this interpreter.
AUDITFENCE = Path(sys.executable).parent / "auditfence"


@pytest.fixture(scope="session")
def captured(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Three real captures, made once: clean, with planted fabrications, and an incomplete one."""
    root = tmp_path_factory.mktemp("captures")
    capture_run(root / "clean")
    capture_run(root / "fabricated", fabricate=True)
    capture_broken_run(root / "broken")
    return {name: root / name for name in ("clean", "fabricated", "broken")}


@pytest.fixture(scope="session")
def looping(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real capture whose `draft` node ran twice, round 1 inventing a figure round 2 repeats."""
    trace = tmp_path_factory.mktemp("captures-looping") / "looping"
    capture_looping_run(trace)
    return trace


@pytest.fixture
def trace_copy(captured: dict[str, Path], tmp_path: Path) -> Callable[[str], Path]:
    """A private copy of a capture that a test may damage; named 'run' so reports compare across captures."""

    def copy(name: str, as_name: str = "run") -> Path:
        target = tmp_path / name / as_name
        shutil.copytree(captured[name], target)
        return target

    return copy


@pytest.fixture
def cli(tmp_path: Path) -> Callable[..., subprocess.CompletedProcess[str]]:
    """Run `auditfence ARGS...` as a user would (cwd = tmp_path); stdin is not a terminal."""
    if not AUDITFENCE.is_file():
        pytest.fail(f"{AUDITFENCE} is missing; install the package: .venv/bin/pip install -e '.[test]'")

    def run(*args: str | Path) -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(AUDITFENCE), *map(str, args)], cwd=tmp_path, capture_output=True,
                              text=True, timeout=120, stdin=subprocess.DEVNULL)

    return run
