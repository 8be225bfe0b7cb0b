"""Benchmark: building the source index of table-heavy text (TAT-QA dev sections as markdown tables + paragraphs).

Counts the full parser's number tokens (`_Parser._one` calls, deterministic) and times `_index_file` over
the 278 sections (best of 3). Data is read from ../shared/data, never copied.
Run: .venv/bin/python bench/index_tables.py [--data ../shared/data]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import time
from pathlib import Path

from pytest_auditfence.claims import quantities
from pytest_auditfence.fence import LoadedFile
from pytest_auditfence.verify.sources import _index_file


def sections(data: Path) -> list[LoadedFile]:
    rows = json.loads((data / "tatqa-dev" / "tatqa_dataset_dev.json").read_text(encoding="utf-8"))
    out = []
    for n, row in enumerate(rows):
        table = "\n".join("| " + " | ".join(map(str, cells)) + " |" for cells in row["table"]["table"])
        text = table + "\n\n" + "\n".join(p["text"] for p in row["paragraphs"])
        out.append(LoadedFile(f"section{n}", text, hashlib.sha256(text.encode()).hexdigest()))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path(__file__).parent.parent.parent / "shared" / "data")
    files = sections(parser.parse_args().data)
    calls = 0
    one = quantities._Parser._one

    def counted(self, *args):
        nonlocal calls
        calls += 1
        return one(self, *args)

    quantities._Parser._one = counted
    try:
        for loaded in files:
            _index_file(loaded)
    finally:
        quantities._Parser._one = one
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        for loaded in files:
            _index_file(loaded)
        best = min(best, time.perf_counter() - start)
    megabytes = sum(len(f.text) for f in files) / 1e6
    print(f"{len(files)} sections, {megabytes:.2f} MB: parser number tokens {calls}, index best of 3 {best:.2f} s")


if __name__ == "__main__":
    main()
