"""Fixtures for the HTML report tests: real captured runs audited in-process, and a headless Chromium."""

from __future__ import annotations

import importlib.util
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest
from cdp import INSTALL_HINT, Browser, find_chromium

from pytest_auditfence import audit_cascade_sync
from pytest_auditfence.html import entry_for_cascade
from pytest_auditfence.report import FenceReport, TestEntry

ROOT = Path(__file__).resolve().parents[2]


def _traced_app() -> ModuleType:
    # The same small app the CLI tests capture (tests/ folders are not packages).
    if "traced_app" in sys.modules:
        return sys.modules["traced_app"]
    spec = importlib.util.spec_from_file_location("traced_app", ROOT / "tests" / "cli" / "traced_app.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["traced_app"] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session")
def traced_app() -> ModuleType:
    return _traced_app()


@pytest.fixture(scope="session")
def traces(traced_app: ModuleType, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Two real captures: clean, and with planted fabrications."""
    root = tmp_path_factory.mktemp("html-runs")
    for name in ("clean", "fabricated"):
        traced_app.capture_run(root / name, fabricate=name == "fabricated")
    return {name: root / name for name in ("clean", "fabricated")}


@pytest.fixture(scope="session")
def runs(traces: dict[str, Path]) -> dict[str, TestEntry]:
    """Page entries of the two runs, audited with the default thresholds."""
    return {
        name: entry_for_cascade(audit_cascade_sync(trace_dir=trace), name=f"tests/test_note.py::test_{name}",
                                trace_dir=trace)
        for name, trace in traces.items()
    }


@pytest.fixture(scope="session")
def report(runs: dict[str, TestEntry]) -> FenceReport:
    return FenceReport.merge(runs.values())


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[Browser]:
    executable = find_chromium()
    if executable is None:
        # Locally a missing browser is a skip that says how to install it; on CI it must not pass silently.
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail(f"CI is set: {INSTALL_HINT}", pytrace=False)
        pytest.skip(INSTALL_HINT)
    session = Browser(executable, tmp_path / "chromium-profile")
    try:
        yield session
    finally:
        session.close()
