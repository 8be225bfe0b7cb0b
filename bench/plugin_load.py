"""Load cost of the plugin: collect 1,000 unmarked tests with and without it and print the ratio.

Target: within 5% (ratio <= 1.05). Runs alternate to share machine noise; the median of each side is used.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TESTS = 1000
ROUNDS = 7


def make_suite(root: Path) -> None:
    for module in range(TESTS // 50):
        body = "\n".join(f"def test_{i}():\n    assert {i} == {i}\n" for i in range(50))
        (root / f"test_m{module:03d}.py").write_text(body)


def collect(root: Path, *extra: str) -> float:
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", *extra],
        cwd=root, check=True, stdout=subprocess.DEVNULL,
    )
    return time.perf_counter() - start


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        make_suite(root)
        collect(root)  # warm the file system cache and .pyc files
        with_plugin, without = [], []
        for _ in range(ROUNDS):
            with_plugin.append(collect(root))
            without.append(collect(root, "-p", "no:auditfence"))
    a, b = statistics.median(with_plugin), statistics.median(without)
    print(f"collect {TESTS} unmarked tests, median of {ROUNDS}: with auditfence {a:.3f}s, "
          f"-p no:auditfence {b:.3f}s, ratio {a / b:.3f} (target <= 1.05)")


if __name__ == "__main__":
    main()
