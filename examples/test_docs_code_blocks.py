"""Docs cannot drift from the examples: every ```python block in docs/ and README.md is an excerpt of
the examples/ file its first line names, line for line (STYLE.md rule 15: docs show the files tests run).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = sorted([ROOT / "README.md", *(ROOT / "docs").glob("*.md")])
_BLOCK = re.compile(r"^```python\n(.*?)^```$", re.MULTILINE | re.DOTALL)
_NAMES = re.compile(r"# (examples/\S+\.py)\n")


def python_blocks(page: Path) -> list[tuple[int, str]]:
    text = page.read_text(encoding="utf-8")
    return [(text.count("\n", 0, m.start()) + 1, m.group(1)) for m in _BLOCK.finditer(text)]


def excerpt_problem(block: str) -> str | None:
    """Why `block` is not an excerpt of the file it names, or None when it is."""
    named = _NAMES.match(block)
    if named is None:
        return "its first line must name the example it is taken from, e.g. '# examples/minimal/test_minimal_app.py'"
    path = ROOT / named.group(1)
    if not path.is_file():
        return f"it names {named.group(1)}, which does not exist"
    wanted = block[named.end():].splitlines()
    lines = path.read_text(encoding="utf-8").splitlines()
    if not wanted:
        return "it holds no code after the file name"
    for start in range(len(lines) - len(wanted) + 1):
        if lines[start:start + len(wanted)] == wanted:
            return None
    return f"its code is not a run of consecutive lines of {named.group(1)}; copy the lines again"


def test_the_docs_have_pages_and_python_blocks() -> None:
    assert (ROOT / "docs" / "index.md").is_file()
    assert sum(len(python_blocks(page)) for page in PAGES) >= 10


@pytest.mark.parametrize("page", PAGES, ids=[p.relative_to(ROOT).as_posix() for p in PAGES])
def test_every_python_block_is_an_excerpt_of_the_example_it_names(page: Path) -> None:
    problems = [f"{page.name}:{line}: {why}" for line, block in python_blocks(page)
                if (why := excerpt_problem(block)) is not None]
    assert problems == []


def test_the_check_rejects_an_edited_or_unnamed_block() -> None:
    assert excerpt_problem("# examples/minimal/test_minimal_app.py\ndef test_report_is_traceable(fence_snapshot, app):\n") is None
    assert "not a run" in excerpt_problem("# examples/minimal/test_minimal_app.py\ndef test_report_is_traceable(app):\n")
    assert "does not exist" in excerpt_problem("# examples/nowhere.py\nx = 1\n")
    assert "first line must name" in excerpt_problem("import pytest\n")


def test_every_docs_page_is_linked_from_the_index() -> None:
    index = (ROOT / "docs" / "index.md").read_text(encoding="utf-8")
    pages = {p.name for p in (ROOT / "docs").glob("*.md")} - {"index.md"}
    assert {name for name in pages if f"({name})" not in index} == set()


_CONSOLE = re.compile(r"^```console\n(.*?)^```$", re.MULTILINE | re.DOTALL)


def console_commands(page: Path) -> list[str]:
    return [line[2:] for m in _CONSOLE.finditer(page.read_text(encoding="utf-8"))
            for line in m.group(1).splitlines() if line.startswith("$ ")]


def test_every_console_command_of_the_cli_page_runs(tmp_path: Path) -> None:
    """The `$ ` lines of docs/cli.md, in a copy of a project holding examples/your_project, exit 0."""
    import os
    import shutil
    import subprocess
    import sys

    commands = console_commands(ROOT / "docs" / "cli.md")
    assert [c.split()[:2] for c in commands] == [["python", "-m"], ["auditfence", "show"],
                                                 ["auditfence", "audit"], ["auditfence", "diff"]]
    shutil.copytree(ROOT / "examples" / "your_project", tmp_path / "examples" / "your_project",
                    ignore=shutil.ignore_patterns("__pycache__"))
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    bin_dir = Path(sys.executable).parent
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"}
    for command in commands:
        done = subprocess.run(["bash", "-c", command], cwd=tmp_path, env=env, capture_output=True, text=True,
                              timeout=300)
        assert done.returncode == 0, (command, done.stdout[-2000:], done.stderr[-2000:])
    assert (tmp_path / "summary.html").is_file() and (tmp_path / "summary.json").is_file()
