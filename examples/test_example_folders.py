"""The example folders run alone, all together (`pytest examples`), or any of them on one command line.

pytest imports these files by their base name (rootdir-relative `prepend` import mode, no `__init__.py`):
two modules of one name would collide, and so would a test module importing `conftest`, which names
whichever folder's conftest was loaded last once several folders are given.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
FOLDERS = sorted(p for p in EXAMPLES.iterdir() if p.is_dir() and any(p.glob("test_*.py")))


def imported_modules(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module.split(".")[0])
    return names


def test_no_example_file_imports_a_conftest() -> None:
    offenders = [p.relative_to(ROOT).as_posix() for p in EXAMPLES.rglob("*.py")
                 if "__pycache__" not in p.parts and "conftest" in imported_modules(p)]
    assert offenders == [], "import shared names from a module of the folder (e.g. <app>_script.py), not conftest"


def test_module_names_are_unique_across_examples_and_tests() -> None:
    seen: dict[str, list[str]] = {}
    for path in [*EXAMPLES.rglob("*.py"), *(ROOT / "tests").rglob("*.py")]:
        if "__pycache__" not in path.parts and path.name not in ("conftest.py", "__init__.py"):
            seen.setdefault(path.stem, []).append(path.relative_to(ROOT).as_posix())
    assert {name: paths for name, paths in seen.items() if len(paths) > 1} == {}


def test_every_example_folder_collects_next_to_the_others_on_one_command_line() -> None:
    assert len(FOLDERS) >= 6
    folders = [p.relative_to(ROOT).as_posix() for p in FOLDERS]
    done = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider",
                           "--snapshot-warn-unused",  # syrupy: a collection uses no snapshot
                           *folders],  # agent_loop's conftest loaded before your_project's
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    last = done.stdout.splitlines()[-1]
    assert re.fullmatch(r"\d+ tests collected in .*", last), last  # no "N errors"
    collected = [line for line in done.stdout.splitlines() if "::" in line]
    assert {line.split("/")[1] for line in collected} == {p.name for p in FOLDERS}
