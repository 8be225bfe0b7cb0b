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


# -- docs/your-project.md: the install and recording blocks, run as a new user would -------------------

GUIDE = ROOT / "docs" / "your-project.md"
_FENCE = re.compile(r"^```(bash|text)\n(.*?)^```$", re.MULTILINE | re.DOTALL)
PLACEHOLDER = "<this repository>"


def guide_blocks(kind: str) -> list[str]:
    return [m.group(2) for m in _FENCE.finditer(GUIDE.read_text(encoding="utf-8")) if m.group(1) == kind]


def test_the_guide_has_two_install_blocks_a_recording_block_and_a_miss() -> None:
    clone, wheel, recording = guide_blocks("bash")
    assert clone.startswith(f"git clone {PLACEHOLDER} ") and wheel.startswith(f"git clone {PLACEHOLDER} ")
    assert "pip install -e" in clone and "pip wheel" in wheel and "--fence-record-mode=once" in recording
    assert [block.splitlines()[0][:14] for block in guide_blocks("text")] == ["cassette miss:"]


def _suite_packages(tmp: Path) -> Path:
    """A folder linking every package of the suite's own environment but this plugin: what the new
    environments import their dependencies from, so that no pip command needs an index."""
    import sysconfig

    linked = tmp / "dependencies"
    linked.mkdir()
    for folder in sorted({sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}):
        for entry in sorted(Path(folder).iterdir()):
            name = entry.name
            if name.startswith(("pytest_auditfence", "__editable__")) or name.endswith(".pth") or name == "__pycache__":
                continue
            if not (linked / name).exists():
                (linked / name).symlink_to(entry)
    return linked


def _fresh_environment(folder: Path, dependencies: Path) -> dict[str, str]:
    """A new virtual environment (no plugin in it) whose `pip` and `python` come first on PATH, offline."""
    import os
    import subprocess
    import sys
    import sysconfig

    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(folder)], check=True, timeout=300)
    purelib = subprocess.run([str(folder / "bin" / "python"), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             check=True, capture_output=True, text=True).stdout.strip()
    assert purelib != sysconfig.get_paths()["purelib"]
    (Path(purelib) / "suite-dependencies.pth").write_text(f"{dependencies}\n")
    pip = folder / "bin" / "pip"
    pip.write_text('#!/bin/sh\nexec "$(dirname "$0")/python" -m pip "$@"\n')
    pip.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME")
           and not k.startswith("PIP_")}
    return {**env, "PATH": f"{folder / 'bin'}{os.pathsep}{env.get('PATH', '')}",
            # offline: no index, no build isolation (setuptools and wheel come from the suite), no user config
            "PIP_CONFIG_FILE": os.devnull, "PIP_NO_INDEX": "1", "PIP_NO_BUILD_ISOLATION": "0",
            "PIP_DISABLE_PIP_VERSION_CHECK": "1", "PIP_CACHE_DIR": str(folder.parent / "pip-cache")}


def _run_block(block: str, cwd: Path, env: dict[str, str], timeout: int = 900) -> str:
    import shlex
    import subprocess

    script = block.replace(PLACEHOLDER, shlex.quote(str(ROOT)))
    done = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", script], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=timeout)
    assert done.returncode == 0, (script, done.stdout[-3000:], done.stderr[-3000:])
    return done.stdout


def _python(env: dict[str, str], cwd: Path, *args: str) -> str:
    import subprocess

    done = subprocess.run(["python", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, (args, done.stdout[-3000:], done.stderr[-3000:])
    return done.stdout


_WHERE = ("-c", "import pytest_auditfence; print(pytest_auditfence.__file__)")


@pytest.fixture(scope="module")
def dependencies(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if not (ROOT / ".git").exists():
        pytest.skip(f"{ROOT} is not a git checkout: the install blocks clone it")
    from importlib.metadata import PackageNotFoundError, version

    try:
        setuptools_major, _ = int(version("setuptools").split(".")[0]), version("wheel")
    except PackageNotFoundError:
        setuptools_major = 0
    if setuptools_major < 68:
        pytest.fail("the install blocks build the plugin offline, without build isolation, from this environment's "
                    "setuptools>=68 and wheel: run `.venv/bin/pip install -e '.[test]'` again", pytrace=False)
    return _suite_packages(tmp_path_factory.mktemp("suite"))


def test_the_install_from_a_clone_block_runs_offline(tmp_path: Path, dependencies: Path) -> None:
    env = _fresh_environment(tmp_path / "venv", dependencies)
    clone, _, _ = guide_blocks("bash")
    _run_block(clone, tmp_path, env)
    where = Path(_python(env, tmp_path, *_WHERE).strip())
    assert where == tmp_path / "pytest-auditfence" / "pytest_auditfence" / "__init__.py"  # editable: the clone
    assert "--fence-record-mode" in _python(env, tmp_path, "-m", "pytest", "--help")


def test_the_wheel_block_then_the_recording_block_run_offline_in_a_new_project(tmp_path: Path,
                                                                               dependencies: Path) -> None:
    import shutil
    import subprocess

    env = _fresh_environment(tmp_path / "venv", dependencies)
    _, wheel, recording = guide_blocks("bash")
    _run_block(wheel, tmp_path, env)
    assert (tmp_path / "pytest-auditfence" / "dist" / "pytest_auditfence-0.1.0-py3-none-any.whl").is_file()
    where = Path(_python(env, tmp_path, *_WHERE).strip())
    assert (tmp_path / "venv") in where.parents  # the wheel, installed into the new environment
    assert "--fence-record-mode" in _python(env, tmp_path, "-m", "pytest", "--help")
    assert "usage: auditfence" in subprocess.run(["auditfence", "--help"], env=env, capture_output=True,
                                                 text=True, timeout=300).stdout

    # A project of the user's own: the example folder (from the clone), no pytest settings of ours.
    project = tmp_path / "project"
    shutil.copytree(tmp_path / "pytest-auditfence" / "examples" / "your_project", project / "examples" / "your_project",
                    ignore=shutil.ignore_patterns("__pycache__"))
    (project / "pytest.ini").write_text("[pytest]\n")
    cassettes = project / "examples" / "your_project" / "cassettes"
    committed = {p.relative_to(cassettes): p.read_bytes() for p in sorted(cassettes.rglob("*.yaml"))}
    assert len(committed) == 3
    out = _run_block(recording, project, env)
    assert out.count("3 passed") == 2, out[-3000:]  # recorded, then replayed
    # recording again gives byte-identical files
    assert {p.relative_to(cassettes): p.read_bytes() for p in sorted(cassettes.rglob("*.yaml"))} == committed

    # The miss the page shows: after the prompt's one-letter change, the replay prints the page's lines.
    app = project / "examples" / "your_project" / "research_app.py"
    app.write_text(app.read_text(encoding="utf-8").replace("Summarize the research", "Summarise the research"))
    done = subprocess.run(["python", "-m", "pytest", "examples/your_project", "-k", "test_summary_is_traceable"],
                          cwd=project, env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 1, done.stdout[-3000:]
    (shown,) = guide_blocks("text")
    missing = [line for line in shown.splitlines() if line not in done.stdout.splitlines()]
    assert missing == [], done.stdout[-3000:]


_LINK = re.compile(r"\]\(([A-Za-z0-9_./-]*\.md)?#([^)\s]+)\)")


def heading_anchors(page: Path) -> set[str]:
    """GitHub's anchors of a page's headings: lower case, punctuation dropped, spaces as '-'."""
    text = re.sub(r"^```.*?^```$", "", page.read_text(encoding="utf-8"), flags=re.MULTILINE | re.DOTALL)
    return {re.sub(r"[^\w\- ]", "", m.group(1).strip().lower()).replace(" ", "-")
            for m in re.finditer(r"^#{1,6} (.+)$", text, re.MULTILINE)}


@pytest.mark.parametrize("page", [*PAGES, ROOT / "examples" / "README.md"],
                         ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_link_to_a_heading_names_a_heading_that_exists(page: Path) -> None:
    broken = []
    for target, anchor in _LINK.findall(page.read_text(encoding="utf-8")):
        linked = (page.parent / target) if target else page
        if not linked.is_file() or anchor not in heading_anchors(linked):
            broken.append(f"{target}#{anchor}")
    assert broken == []


def test_the_anchor_check_finds_a_missing_heading(tmp_path: Path) -> None:
    page = tmp_path / "a.md"
    page.write_text("# Cassette recording\n\n## Re-recording: the command\n\n```bash\n# not a heading\n```\n")
    assert heading_anchors(page) == {"cassette-recording", "re-recording-the-command"}
