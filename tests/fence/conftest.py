"""Trace-like source files on disk for the fence tests."""

from __future__ import annotations

from pathlib import Path

import pytest
from fence_files import FILES

from pytest_auditfence.fence import Source


@pytest.fixture
def trace(tmp_path: Path) -> tuple[Path, list[Source]]:
    root = tmp_path / "trace"
    sources = []
    for path, text in FILES.items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
        node = "research" if path.startswith("nodes") else "research/tools"
        kind = "node_output" if path.startswith("nodes") else "tool_call"
        sources.append(Source.from_file(root, path, node=node, kind=kind, label=path.split("_", 1)[-1][:-4]))
    return root, sources
