"""Fixtures for cascade tests: the example financial pipeline captured for real, clean and fabricated."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

from audit_pipelines import capture_financial
from pytest_auditfence import Snapshot
from pytest_auditfence.audit.cascade import Cascade, audit_cascade_sync

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def load_example(relative: str) -> ModuleType:
    """Import an example app by path (examples/ is not a package)."""
    path = EXAMPLES / relative
    name = f"_auditfence_example_{path.stem}"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session")
def financial() -> ModuleType:
    return load_example("financial/financial_app.py")


@pytest.fixture(scope="module")
def clean_audit(financial: ModuleType, tmp_path_factory: pytest.TempPathFactory) -> tuple[Snapshot, str, Cascade]:
    snap, report = capture_financial(financial, tmp_path_factory.mktemp("clean") / "trace", fabricate=False)
    return snap, report, audit_cascade_sync(trace_dir=snap.trace_dir, final_document=report)


@pytest.fixture(scope="module")
def fabricated_audit(financial: ModuleType, tmp_path_factory: pytest.TempPathFactory) -> tuple[Snapshot, str, Cascade]:
    snap, report = capture_financial(financial, tmp_path_factory.mktemp("fabricated") / "trace", fabricate=True)
    return snap, report, audit_cascade_sync(trace_dir=snap.trace_dir, final_document=report)
