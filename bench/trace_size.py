"""Trace folder size: bytes on disk against the bytes a run captured, and growth with an agent's rounds.

A looping agent (`agent` model node -> `ToolNode` -> `agent` ...) whose tool returns `--tool-kb` of
filing text per call. Every node input and every model call is given the whole message history, so
a store that writes each input out in full grows with the square of the rounds; the target is linear.
Prints, per number of rounds: the tool output captured, the folder's bytes split into text files, blobs,
journal and manifest, the folder / tool-output ratio, and the growth ratio of each doubling of the
rounds (2.0 is linear, 4.0 quadratic).
Usage: .venv/bin/python bench/trace_size.py [--rounds 5,10,20,40] [--tool-kb 64] [--big-mb 20]
`--big-mb`: one more run whose tool output totals that many MB (the issue's 20 MB -> 64 MB capture).
"""

from __future__ import annotations

import argparse
import itertools
import random
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langchain_core.tools import tool
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition

from pytest_auditfence import Snapshot

SEED = 20261202
METRICS = ("Revenue", "Cost of revenue", "Gross profit", "Operating income", "Net income", "Free cash flow")


class ToolCallingFake(GenericFakeChatModel):
    def bind_tools(self, tools: Any, **kwargs: Any) -> ToolCallingFake:
        return self


def filing_text(call: int, size: int) -> str:
    """Deterministic filing-like text of about `size` bytes: a table in millions, then news and prices."""
    rng = random.Random(SEED + call)
    parts = [f"Income statement of T{call:03d} (in millions)\n| Item | FY2024 | FY2023 |\n|---|---|---|\n"]
    parts += [f"| {m} | {rng.randint(1_000, 400_000):,} | {rng.randint(1_000, 400_000):,} |\n" for m in METRICS]
    total = sum(map(len, parts))
    while total < size:
        line = (f"{2024 - call % 5}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d} close "
                f"{rng.uniform(10, 900):.2f} volume {rng.randint(100_000, 90_000_000):,}; margin "
                f"{rng.uniform(20, 70):.1f}% and backlog ${rng.uniform(1, 90):.1f} billion\n")
        parts.append(line)
        total += len(line)
    return "".join(parts)


def build(rounds: int, tool_bytes: int) -> Any:
    @tool
    def get_filing(ticker: str, call: int) -> str:
        """One section of a company's filing."""
        return filing_text(call, tool_bytes)

    def replies() -> Iterator[AIMessage]:
        for n in range(rounds):
            yield AIMessage(content=f"Reading section {n}.",
                            tool_calls=[{"name": "get_filing", "args": {"ticker": "HALV", "call": n}, "id": f"c{n}"}])
        yield AIMessage(content="Revenue grew in every period.")

    model = ToolCallingFake(messages=replies()).bind_tools([get_filing])

    def agent(state: MessagesState) -> dict[str, Any]:
        return {"messages": [model.invoke(state["messages"])]}

    g = StateGraph(MessagesState)
    g.add_node("agent", agent)
    g.add_node("tools", ToolNode([get_filing]))
    g.add_edge(START, "agent")
    g.add_conditional_edges("agent", tools_condition)
    g.add_edge("tools", "agent")
    return g.compile()


def sizes(folder: Path) -> dict[str, int]:
    parts = {"text": 0, "blobs": 0, "journal": 0, "manifest": 0}
    for path in folder.rglob("*"):
        if not path.is_file():
            continue
        rel = path.relative_to(folder).parts
        key = ("blobs" if rel[0] == "blobs" else "journal" if rel[0] == "journal.jsonl"
               else "manifest" if rel[0] == "manifest.json" else "text")
        parts[key] += path.stat().st_size
    parts["total"] = sum(parts.values())
    return parts


def capture(folder: Path, rounds: int, tool_bytes: int) -> tuple[dict[str, int], float, float]:
    app = build(rounds, tool_bytes)
    snap = Snapshot(folder)
    t0 = time.perf_counter()
    app.invoke({"messages": [("user", "Summarise HALV's filing.")]},
               config=snap.config(recursion_limit=2 * rounds + 10))
    t1 = time.perf_counter()
    snap.set_report("Revenue grew in every period.")
    snap.finalize()
    return sizes(folder), t1 - t0, time.perf_counter() - t1


def row(rounds: int, tool_bytes: int, parts: dict[str, int], run_s: float, fin_s: float) -> str:
    content = rounds * len(filing_text(0, tool_bytes).encode())
    mb = 1024 * 1024
    return (f"{rounds:6d} {content / mb:9.2f} {parts['total'] / mb:9.2f} {parts['text'] / mb:8.2f} "
            f"{parts['blobs'] / mb:8.2f} {parts['journal'] / mb:8.2f} {parts['manifest'] / mb:8.3f} "
            f"{parts['total'] / content:7.2f} {run_s:6.2f} {fin_s:7.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", default="5,10,20,40")
    parser.add_argument("--tool-kb", type=int, default=64)
    parser.add_argument("--big-mb", type=int, default=0)
    args = parser.parse_args()
    tool_bytes = args.tool_kb * 1024
    print(f"tool output per call {args.tool_kb} KB; sizes in MB (1 MB = 2**20 bytes)")
    print(" rounds  captured    folder     text    blobs  journal manifest  ratio  run_s  final_s")
    totals: list[tuple[int, int]] = []
    with tempfile.TemporaryDirectory() as tmp:
        for n, rounds in enumerate(int(r) for r in args.rounds.split(",")):
            parts, run_s, fin_s = capture(Path(tmp) / f"r{n}", rounds, tool_bytes)
            totals.append((rounds, parts["total"]))
            print(row(rounds, tool_bytes, parts, run_s, fin_s))
        for (ra, a), (rb, b) in itertools.pairwise(totals):
            # folder growth per growth of the work: 1.0 is linear, rb/ra (here 2.0) is quadratic
            print(f"rounds {ra} -> {rb} (x{rb / ra:.1f} work): folder x{b / a:.2f}, "
                  f"per round x{(b / rb) / (a / ra):.2f}  (linear: per round x1.00)")
        if args.big_mb:
            big_bytes = 190 * 1024  # under max_output_chars (200,000), so nothing is cut
            rounds = max(1, args.big_mb * 1024 * 1024 // big_bytes)
            parts, run_s, fin_s = capture(Path(tmp) / "big", rounds, big_bytes)
            print(f"\n{args.big_mb} MB of tool output in {rounds} calls of {big_bytes // 1024} KB:")
            print(" rounds  captured    folder     text    blobs  journal manifest  ratio  run_s  final_s")
            print(row(rounds, big_bytes, parts, run_s, fin_s))


if __name__ == "__main__":
    main()
