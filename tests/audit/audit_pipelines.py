"""Capture helpers shared by the cascade tests (a uniquely named module: test folders have no __init__)."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

from pytest_auditfence import Snapshot


def capture_financial(financial: ModuleType, trace_dir: Path, *, fabricate: bool) -> tuple[Snapshot, str]:
    snap = Snapshot(trace_dir)
    result = financial.build_app(fabricate=fabricate).invoke(
        {"messages": [("user", "Write a research note on HALV")]}, config=snap.config()
    )
    report = result["messages"][-1].content
    snap.set_report(report)
    snap.finalize()
    return snap, report
