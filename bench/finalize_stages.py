"""Where finalize() spends its time on the 50-node bench of capture_overhead.py: CPU ms per stage.

Wraps the stages (Recorder.flush and, inside it, Redactor.value and BlobStore.put_value; materialize;
share_lines; Manifest.to_json; file writes and folder creation; read_journal; journal_digest; the pack's
rewrite) and prints the
median over `--runs` finalizes, with the bare run's median for scale. CPU time (time.process_time: user and
kernel time of this process), so other processes on a shared machine disturb it less than wall time.
Usage: .venv/bin/python bench/finalize_stages.py [--runs 20] [--nodes 50]
"""

from __future__ import annotations

import argparse
import functools
import gc
import pathlib
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

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
    args = parser.parse_args()
    # finalize() imports these stages from their modules when it runs, so patching the modules reaches it.
    for owner, name, label in (
        (recorder.Recorder, "flush", "flush"),
        (Redactor, "value", "  to_jsonable and redaction"),
        (store.BlobStore, "put_value", "  put_value"),
        (topology, "materialize", "materialize"),
        (tracefiles, "share_lines", "share_lines"),
        (Manifest, "to_json", "manifest to_json"),
        (store, "read_journal", "read_journal"),
        (integrity, "journal_digest", "journal_digest"),
        (store.BlobStore, "rewrite", "pack rewrite"),
        (pathlib.Path, "mkdir", "folder creation"),
        (pathlib.Path, "write_text", "file writes"),
        *([(store, "write_text_file", "file writes")] if hasattr(store, "write_text_file") else []),
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


if __name__ == "__main__":
    main()
