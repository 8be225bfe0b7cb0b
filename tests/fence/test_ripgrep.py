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


@needs_rg
def test_ripgrep_backend_matches_python_backend_on_a_unit_with_files_stored_by_reference(tmp_path):
    """A captured node input names the lines it repeats (capturing/tracefiles.py): ripgrep searches the files
    stored as themselves and Python the others, and the hits are the python backend's, in the same order."""
    from langchain_core.messages import AIMessage
    from langchain_core.runnables import RunnableConfig
    from langchain_core.tools import tool
    from langgraph.graph import START, MessagesState, StateGraph

    from pytest_auditfence import Snapshot
    from pytest_auditfence.capturing.tracefiles import TraceFiles

    history = "\n".join(f"HALV net sales FY{2000 + i}: ${1_000 + i:,} million" for i in range(20))

    @tool
    def get_history(ticker: str) -> str:
        """Net sales by year."""
        return history

    def research(state: MessagesState, config: RunnableConfig) -> dict:
        get_history.invoke({"ticker": "HALV"}, config=config)
        return {"messages": [AIMessage(content=history)]}

    def write(state: MessagesState) -> dict:
        return {"messages": [AIMessage(content="HALV net sales FY2019: $1,019 million.")]}

    graph = StateGraph(MessagesState)
    graph.add_node("research", research)
    graph.add_node("write", write)
    graph.add_edge(START, "research")
    graph.add_edge("research", "write")
    snap = Snapshot(tmp_path / "t")
    graph.compile().invoke({"messages": [("user", "Analyse")]}, config=snap.config())
    manifest = snap.finalize()
    root = snap.trace_dir
    sources = [Source.from_file(root, f.path, node=f.node, kind=f.kind) for f in manifest.files]
    files = TraceFiles(root)
    assert {files.stored_by_reference(s.path) for s in sources} == {True, False}
    for query, options in [("net sales FY2019", {}), ("NET SALES", {"max_hits": 30}), (r"\$1,01\d million", {"regex": True}),
                           ("FY2003: $1,003", {"ignore_case": False}), ("million HALV net", {})]:
        python = Fence(root, sources, REPORT).search(query, **options)
        ripgrep = Fence(root, sources, REPORT, backend="ripgrep").search(query, **options)
        assert ripgrep.hits == python.hits and python.hits
        assert ripgrep.truncated == python.truncated
