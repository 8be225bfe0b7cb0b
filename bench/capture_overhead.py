"""Capture overhead: wall time of a 50-node LangGraph run with a fake chat model, with vs without capture.

Prints the ratio (capture / no capture) measured in one process; target <= 1.10 for the run itself.
Also prints a no-op callback handler's ratio (LangChain's floor for any callback-based capture) and the
cost of finalize() (redaction, serialisation and file writes happen there, not during the run).
Usage: .venv/bin/python bench/capture_overhead.py [--nodes 50] [--repeats 15]
"""

from __future__ import annotations

import argparse
import gc
import itertools
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, HumanMessage
from langgraph.graph import START, MessagesState, StateGraph

from pytest_auditfence import Snapshot


class NoopHandler(BaseCallbackHandler):
    """Attaching any handler switches on LangChain's callback machinery; this measures that floor."""

    run_inline = True


def build(nodes: int) -> Any:
    replies = (AIMessage(content=f"Finding {i}: revenue grew {i % 17}.{i % 10}% to ${100 + i}.4 billion.")
               for i in itertools.count())
    model = GenericFakeChatModel(messages=replies)

    def make(i: int) -> Any:
        def node(state: MessagesState) -> dict[str, Any]:
            # The model sees the last few messages, as a windowed agent would; the state keeps growing.
            return {"messages": [model.invoke(state["messages"][-4:])]}

        return node

    g = StateGraph(MessagesState)
    names = [f"n{i:02d}" for i in range(nodes)]
    for i, name in enumerate(names):
        g.add_node(name, make(i))
    g.add_edge(START, names[0])
    for a, b in itertools.pairwise(names):
        g.add_edge(a, b)
    return g.compile()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=50)
    parser.add_argument("--repeats", type=int, default=15)
    args = parser.parse_args()
    app = build(args.nodes)
    inputs = {"messages": [HumanMessage(content="Analyze AAPL")]}
    plain: list[float] = []
    captured: list[float] = []
    finalized: list[float] = []
    noop: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        app.invoke(inputs)  # warm-up: imports, compiled regexes, caches
        with Snapshot(Path(tmp) / "warm") as warm:
            app.invoke(inputs, config=warm.config())
        for i in range(args.repeats):  # interleaved, so drift in machine load hits both sides alike
            # Each timed run starts from a collected heap: otherwise the garbage of the previous finalize()
            # is collected during the next run, which is the no-capture one, and the ratios come out low.
            gc.collect()
            t0 = time.perf_counter()
            app.invoke(inputs)
            plain.append(time.perf_counter() - t0)
            gc.collect()
            t0 = time.perf_counter()
            app.invoke(inputs, config={"callbacks": [NoopHandler()]})
            noop.append(time.perf_counter() - t0)
            snap = Snapshot(Path(tmp) / f"run{i}")
            gc.collect()
            t0 = time.perf_counter()
            app.invoke(inputs, config=snap.config())
            t1 = time.perf_counter()
            snap.finalize()
            captured.append(t1 - t0)
            finalized.append(time.perf_counter() - t0)
    base = statistics.median(plain)
    print(f"nodes={args.nodes} repeats={args.repeats}")
    print(f"no capture:            median {base * 1000:8.2f} ms")
    print(f"no-op handler:         median {statistics.median(noop) * 1000:8.2f} ms")
    print(f"capture (run):         median {statistics.median(captured) * 1000:8.2f} ms")
    print(f"capture (run+finalize): median {statistics.median(finalized) * 1000:8.2f} ms")
    print(f"ratio run/no-capture: {statistics.median(captured) / base:.3f}  (target <= 1.10)")
    print(f"ratio no-op handler/no-capture: {statistics.median(noop) / base:.3f}  (LangChain's own callback cost)")
    print(f"ratio run/no-op handler: {statistics.median(captured) / statistics.median(noop):.3f}  (this package's part)")
    print(f"ratio run+finalize/no-capture: {statistics.median(finalized) / base:.3f}")
    # The fastest run of each side is the least disturbed by other processes on a shared machine.
    print(f"ratio run/no-capture, fastest runs: {min(captured) / min(plain):.3f}  (target <= 1.10)")


if __name__ == "__main__":
    main()
