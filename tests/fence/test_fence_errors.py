"""Every error of the fence is a FenceError naming the input (issue 12), on both backends, and a regex
search cannot hang the audit."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_auditfence.errors import FenceError
from pytest_auditfence.fence import MAX_QUERY_LENGTH, Fence, Source, find_ripgrep

try:
    find_ripgrep()
    BACKENDS = ["python", "ripgrep"]
except FenceError:  # pragma: no cover - the test extra installs ripgrep
    BACKENDS = ["python"]


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "a.txt").write_text("a" * 5000 + "!\nrevenue was $12 million\n", encoding="utf-8")
    return tmp_path


def fence(root: Path, backend: str) -> Fence:
    return Fence(root, [Source.from_file(root, "a.txt", node="n", kind="tool_call")], "doc", backend=backend)


def test_a_nul_byte_in_a_source_path_is_a_fence_error(root):
    with pytest.raises(FenceError, match=r"'a\\x00\.txt'.*NUL byte"):
        Fence(root, [Source(path="a\x00.txt", node="n", kind="tool_call", sha256="0" * 64)], "doc")
    with pytest.raises(FenceError, match=r"cannot be read"):
        Source.from_file(root, "a\x00.txt", node="n", kind="tool_call")
    with pytest.raises(FenceError, match="NUL byte"):
        Fence(f"{root}\x00", [], "doc")


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_nul_byte_in_a_query_is_a_fence_error(root, backend):
    with pytest.raises(FenceError, match=r"'revenue\\x00'.*NUL byte"):
        fence(root, backend).search("revenue\x00")


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_huge_query_is_a_fence_error_naming_its_length(root, backend):
    query = "revenue " * 75_000  # 600 kB
    with pytest.raises(FenceError, match=rf"{len(query)} characters.*MAX_QUERY_LENGTH \({MAX_QUERY_LENGTH}\)"):
        fence(root, backend).search(query)
    assert fence(root, backend).search("revenue " * 200).hits == []  # long but allowed: an ordinary search


def test_a_catastrophic_regex_is_stopped_on_the_python_backend(root):
    with pytest.raises(FenceError, match=r"'\(a\+\)\+\$'.*longer than .* s.*backend='ripgrep'"):
        fence(root, "python").search("(a+)+$", regex=True)


@pytest.mark.skipif("ripgrep" not in BACKENDS, reason="rg not installed")
def test_ripgrep_runs_the_same_pattern_in_linear_time(root):
    assert fence(root, "ripgrep").search("(a+)+$", regex=True).hits == []


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_invalid_regex_is_a_fence_error(root, backend):
    with pytest.raises(FenceError, match=r"'\(unclosed'"):
        fence(root, backend).search("(unclosed", regex=True)
