"""The ripgrep backend gives the python backend's results, in the same order."""

from __future__ import annotations

import pytest

from pytest_auditfence.errors import FenceError
from pytest_auditfence.fence import Fence, Source, find_ripgrep

from fence_files import REPORT

try:
    find_ripgrep()
    HAVE_RG = True
except FenceError:
    HAVE_RG = False

needs_rg = pytest.mark.skipif(not HAVE_RG, reason="rg not installed: pip install 'ripgrep==14.1.0'")

QUERIES = [
    ("net sales", {}),
    ("GROSS margin", {}),
    ("GROSS margin", {"ignore_case": False}),
    ("ships early next year in the United States", {}),
    ("ships early next   year", {}),
    ("ships early next year", {"whitespace_insensitive": False}),
    ("$3,499.", {}),
    ("e", {"max_hits": 4}),
    (r"\$\d{3},\d{3} million", {"regex": True}),
    (r"^tool: \w+$", {"regex": True}),
    ("Zürich café", {}),
    ("(a) [b] {c} a+b*c? x|y ^$ #1 & -2 ~3", {}),
]


@needs_rg
@pytest.mark.parametrize(("query", "options"), QUERIES)
def test_ripgrep_backend_matches_python_backend(trace, query, options):
    root, sources = trace
    (root / "tools" / "004_misc.txt").write_text(
        "Café in Zürich CAFÉ\nliteral: (a) [b] {c} a+b*c? x|y ^$ #1 & -2 ~3\nzürich café\r\nnet sales\n",
        encoding="utf-8",
    )
    sources = [*sources, Source.from_file(root, "tools/004_misc.txt", node="misc", kind="tool_call")]
    python = Fence(root, sources, REPORT).search(query, **options)
    ripgrep = Fence(root, sources, REPORT, backend="ripgrep").search(query, **options)
    assert ripgrep.hits == python.hits
    assert ripgrep.truncated == python.truncated


def test_missing_ripgrep_is_a_clear_error(trace, monkeypatch, tmp_path):
    root, sources = trace
    import sysconfig

    monkeypatch.setattr(sysconfig, "get_path", lambda name: str(tmp_path / "no-scripts"))
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    with pytest.raises(FenceError, match=r"no `rg` binary.*pip install 'pytest-auditfence\[ripgrep\]'"):
        Fence(root, sources, REPORT, backend="ripgrep")
