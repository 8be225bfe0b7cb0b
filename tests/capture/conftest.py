"""Fixtures of the capture tests: a fresh trace folder per capture and a reader of all its files."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def read_tree():
    """Every file under a folder as {relative posix path: bytes}, optionally without the journal."""

    def read(root: Path, *, skip_journal: bool = True) -> dict[str, bytes]:
        return {
            p.relative_to(root).as_posix(): p.read_bytes()
            for p in sorted(root.rglob("*"))
            if p.is_file() and not (skip_journal and p.name == "journal.jsonl")
        }

    return read
