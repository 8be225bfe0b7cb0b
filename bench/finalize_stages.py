"""Where finalize() spends its time on the 50-node bench of capture_overhead.py: CPU ms per stage.

Wraps the stages (Recorder.flush and, inside it, Redactor.value and BlobStore.put_value; materialize;
share_lines; Manifest.to_json; file writes and folder creation, or both as one stage where the package writes
files and folders in one function; read_journal; journal_digest; the pack's rewrite) and prints the
median over `--runs` finalizes, with the bare run's median for scale. CPU time (time.process_time: user and
kernel time of this process), so other processes on a shared machine disturb it less than wall time.
`--rounds 10,20,40` also times the finalize of trace_size.py's looping agent at those rounds (`--agent-runs`
finalizes each) and prints each stage's growth per doubling of the rounds (2.0 is linear in the rounds).
Usage: .venv/bin/python bench/finalize_stages.py [--runs 20] [--nodes 50] [--rounds 10,20,40 [--agent-runs 3]]
"""

from __future__ import annotations

import argparse
import functools
import gc
import itertools
import pathlib
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import trace_size
from capture_overhead import build
from langchain_core.messages import HumanMessage

from pytest_auditfence import Snapshot, integrity
from pytest_auditfence.capturing import recorder, store, topology, tracefiles
from pytest_auditfence.manifest import Manifest
from pytest_auditfence.redact import Redactor

_spent: dict[str, float] = {}


def _timed(owner: Any, name: str, label: str) -> None:
    inner = getattr(owner, name)

    @functools.wraps(inner)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        start = time.process_time()
        try:
            return inner(*args, **kwargs)
        finally:
            _spent[label] = _spent.get(label, 0.0) + time.process_time() - start

    setattr(owner, name, wrapper)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--nodes", type=int, default=50)
    parser.add_argument("--rounds", default="", help="rounds of the looping agent, e.g. 10,20,40 (none: skip)")
    parser.add_argument("--agent-runs", type=int, default=3)
    parser.add_argument("--tool-kb", type=int, default=64)
    args = parser.parse_args()
    # finalize() imports these stages from their modules when it runs, so patching the modules reaches it.
    for owner, name, label in (
        (recorder.Recorder, "flush", "flush"),
        (Redactor, "value", "  to_jsonable and redaction"),
        (store.BlobStore, "put_value", "  put_value"),
        (topology, "materialize", "materialize"),
        *([(topology, "render_parts", "  rendering")] if hasattr(topology, "render_parts") else []),
        *([(Redactor, "leaves_lines", "  redaction check of files")] if hasattr(Redactor, "leaves_lines") else []),
        (tracefiles, "share_lines", "share_lines"),
        (tracefiles.LineSharer, "_remember", "  remembering lines"),
        (Manifest, "to_json", "manifest to_json"),
        (store, "read_journal", "read_journal"),
        (integrity, "journal_digest", "journal_digest"),
        (store.BlobStore, "rewrite", "pack rewrite"),
        (pathlib.Path, "mkdir", "folder creation"),
        (pathlib.Path, "write_text", "file writes"),
        *([(store, "write_text_file", "file writes")] if hasattr(store, "write_text_file") else []),
        *([(store, "write_trace_files", "files and folders")] if hasattr(store, "write_trace_files") else []),
    ):
        _timed(owner, name, label)
    app = build(args.nodes)
    inputs = {"messages": [HumanMessage(content="Analyze AAPL")]}
    bare: list[float] = []
    whole: list[float] = []
    stages: dict[str, list[float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        with Snapshot(Path(tmp) / "warm") as warm:
            app.invoke(inputs, config=warm.config())
        for i in range(args.runs):
            gc.collect()
            start = time.process_time()
            app.invoke(inputs)
            bare.append(time.process_time() - start)
            snap = Snapshot(Path(tmp) / f"run{i}")
            app.invoke(inputs, config=snap.config())
            gc.collect()
            _spent.clear()
            start = time.process_time()
            snap.finalize()
            whole.append(time.process_time() - start)
            for label, seconds in _spent.items():
                stages.setdefault(label, []).append(seconds)
    print(f"nodes={args.nodes} runs={args.runs}; CPU ms, medians")
    print(f"bare run {statistics.median(bare) * 1000:7.2f}   finalize {statistics.median(whole) * 1000:7.2f}   "
          f"finalize/bare {statistics.median(whole) / statistics.median(bare):.2f}")
    for label in sorted(stages, key=lambda k: -statistics.median(stages[k])):
        print(f"  {label:30s} {statistics.median(stages[label]) * 1000:7.2f}")
    if args.rounds:
        agent_rounds([int(r) for r in args.rounds.split(",")], args.agent_runs, args.tool_kb * 1024)


def agent_rounds(rounds: list[int], runs: int, tool_bytes: int) -> None:
    """CPU ms per stage of the looping agent's finalize at each number of rounds, and growth per doubling."""
    columns: list[dict[str, float]] = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in rounds:
            times: dict[str, list[float]] = {}
            for i in range(runs):
                app = trace_size.build(n, tool_bytes)  # its fake model's replies are used up by one run
                snap = Snapshot(Path(tmp) / f"agent{n}-{i}")
                app.invoke({"messages": [("user", "Summarise HALV's filing.")]},
                           config=snap.config(recursion_limit=2 * n + 10))
                snap.set_report("Revenue grew in every period.")
                gc.collect()
                _spent.clear()
                start = time.process_time()
                snap.finalize()
                times.setdefault("finalize", []).append(time.process_time() - start)
                for label, seconds in _spent.items():
                    times.setdefault(label, []).append(seconds)
            columns.append({label: statistics.median(v) * 1000 for label, v in times.items()})
    print(f"\nlooping agent (trace_size.py, {tool_bytes // 1024} KB per tool call), runs={runs}; CPU ms, medians")
    print(f"  {'stage':30s}" + "".join(f"{f'{n} rounds':>11s}" for n in rounds)
          + "".join(f"{f'x {a}->{b}':>11s}" for a, b in itertools.pairwise(rounds)))
    for label in sorted(columns[-1], key=lambda k: -columns[-1][k]):
        values = [c.get(label, 0.0) for c in columns]
        growth = [f"{b / a:11.2f}" if a > 0.05 else f"{'-':>11s}" for a, b in itertools.pairwise(values)]
        print(f"  {label:30s}" + "".join(f"{v:11.2f}" for v in values) + "".join(growth))


if __name__ == "__main__":
    main()
