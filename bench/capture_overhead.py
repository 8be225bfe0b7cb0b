"""Capture overhead: wall time of a 50-node LangGraph run with a fake chat model, with vs without capture.

Prints the ratio (capture / no capture) measured in one process; target <= 1.10 for the run itself.
Also prints a no-op callback handler's ratio (LangChain's floor for any callback-based capture), LangChain's
own in-memory tracer (`RunCollectorCallbackHandler`, the machinery under the LangSmith tracer) as a side
(targets: run <= 1.03x the no-op handler and <= 0.7x the tracer), and the cost of finalize() (redaction,
serialisation and file writes happen there, not during the run; target <= 1.5x the bare run).
Usage: .venv/bin/python bench/capture_overhead.py [--nodes 50] [--repeats 48] [--mode invoke|ainvoke] [--clock wall|cpu]
`--clock cpu` times each side by this process's CPU time (time.process_time) instead of wall time: on a machine
shared with other work, the time other processes take the cores from this one is then left out of every side.
"""

from __future__ import annotations

import argparse
import asyncio
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
from langchain_core.tracers.run_collector import RunCollectorCallbackHandler
from langgraph.graph import START, MessagesState, StateGraph

from pytest_auditfence import Snapshot


class NoopHandler(BaseCallbackHandler):
    """Attaching any handler switches on LangChain's callback machinery; this measures that floor.

    It handles chat model starts: a handler that does not is sent `on_llm_start` with every message list
    turned into a string instead, which costs more than the floor."""

    run_inline = True

    def on_chat_model_start(self, *args: Any, **kwargs: Any) -> None:
        return None


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


_ORDERS = list(itertools.permutations(("plain", "noop", "tracer", "capture")))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=50)
    parser.add_argument("--repeats", type=int, default=48, help="rounds of all four sides (24 orders rotate)")
    parser.add_argument("--mode", choices=("invoke", "ainvoke"), default="invoke",
                        help="ainvoke: the same graph run on an event loop (callbacks run inline there too)")
    parser.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                        help="cpu: time.process_time (other processes' load left out), wall: time.perf_counter")
    args = parser.parse_args()
    clock = time.process_time if args.clock == "cpu" else time.perf_counter
    app = build(args.nodes)
    inputs = {"messages": [HumanMessage(content="Analyze AAPL")]}
    if args.mode == "ainvoke":
        loop = asyncio.new_event_loop()

        def run(config: Any = None) -> Any:
            return loop.run_until_complete(app.ainvoke(inputs, config=config))
    else:
        def run(config: Any = None) -> Any:
            return app.invoke(inputs, config=config)
    plain: list[float] = []
    captured: list[float] = []
    finalized: list[float] = []
    noop: list[float] = []
    tracer: list[float] = []
    finalize_only: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        run()  # warm-up: imports, compiled regexes, caches
        with Snapshot(Path(tmp) / "warm") as warm:
            run(warm.config())
        for i in range(args.repeats):
            # Interleaved, so drift in machine load hits every side alike, and the order rotates each round
            # so that no side always runs right after another's garbage or file writes.
            for side in _ORDERS[i % len(_ORDERS)]:
                # Each timed run starts from a collected heap: otherwise the garbage of the previous
                # finalize() is collected during the next run and the ratios come out wrong.
                if side == "plain":
                    gc.collect()
                    t0 = clock()
                    run()
                    plain.append(clock() - t0)
                elif side == "noop":
                    gc.collect()
                    t0 = clock()
                    run({"callbacks": [NoopHandler()]})
                    noop.append(clock() - t0)
                elif side == "tracer":
                    collector = RunCollectorCallbackHandler()  # keeps every run in memory, as LangSmith's does
                    gc.collect()
                    t0 = clock()
                    run({"callbacks": [collector]})
                    tracer.append(clock() - t0)
                else:
                    snap = Snapshot(Path(tmp) / f"run{i}")
                    gc.collect()
                    t0 = clock()
                    run(snap.config())
                    t1 = clock()
                    snap.finalize()
                    t2 = clock()
                    captured.append(t1 - t0)
                    finalized.append(t2 - t0)
                    finalize_only.append(t2 - t1)
    base = statistics.median(plain)
    paired = statistics.median(c / p for c, p in zip(captured, plain, strict=True))
    print(f"nodes={args.nodes} repeats={args.repeats} mode={args.mode} clock={args.clock}")
    print(f"no capture:             median {base * 1000:8.2f} ms")
    print(f"no-op handler:          median {statistics.median(noop) * 1000:8.2f} ms")
    print(f"capture (run):          median {statistics.median(captured) * 1000:8.2f} ms")
    print(f"capture (run+finalize): median {statistics.median(finalized) * 1000:8.2f} ms")
    print(f"ratio run/no-capture: {statistics.median(captured) / base:.3f}  (target <= 1.10)")
    print(f"ratio run/no-capture, median of the rounds' own ratios: {paired:.3f}  (target <= 1.10)")
    # The fastest run of each side is the least disturbed by other processes on a shared machine.
    print(f"ratio run/no-capture, fastest runs: {min(captured) / min(plain):.3f}  (target <= 1.10)")
    print(f"ratio no-op handler/no-capture: {statistics.median(noop) / base:.3f}  (LangChain's own callback cost)")
    print(f"ratio run/no-op handler: {statistics.median(captured) / statistics.median(noop):.3f}  (this package's part; "
          f"target <= 1.03)")
    # Each round's capture run against the same round's no-op run: machine load shared by both halves.
    paired_noop = statistics.median(c / n for c, n in zip(captured, noop, strict=True))
    print(f"ratio run/no-op handler, median of the rounds' own ratios: {paired_noop:.3f}  (target <= 1.03)")
    print(f"ratio run/no-op handler, fastest runs: {min(captured) / min(noop):.3f}  (target <= 1.03)")
    print(f"tracer (RunCollector):  median {statistics.median(tracer) * 1000:8.2f} ms")
    print(f"finalize() alone:       median {statistics.median(finalize_only) * 1000:8.2f} ms")
    print(f"ratio run/tracer: {statistics.median(captured) / statistics.median(tracer):.3f}  (target <= 0.7)")
    paired_tracer = statistics.median(c / t for c, t in zip(captured, tracer, strict=True))
    print(f"ratio run/tracer, median of the rounds' own ratios: {paired_tracer:.3f}  (target <= 0.7)")
    print(f"ratio run+finalize/no-capture: {statistics.median(finalized) / base:.3f}")
    print(f"ratio finalize/no-capture: {statistics.median(finalize_only) / base:.3f}  (target <= 1.5)")
    paired_finalize = statistics.median(f / p for f, p in zip(finalize_only, plain, strict=True))
    print(f"ratio finalize/no-capture, median of the rounds' own ratios: {paired_finalize:.3f}  (target <= 1.5)")


if __name__ == "__main__":
    main()
