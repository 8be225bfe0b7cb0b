"""Fixtures of the LLM auditor tests: the two-lane pipeline captured fresh into each test's tmp_path."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from llm_pipelines import capture_lanes  # noqa: E402


@pytest.fixture
def lanes(tmp_path: Path) -> tuple[Path, str]:
    return capture_lanes(tmp_path / "trace")
