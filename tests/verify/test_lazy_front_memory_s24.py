"""The lazy front's memory: a corpus's deferred numbers are stored once (the files keep them; the index keeps each
one's file and place in value order, and every `_FENCE`-th value to bisect), and the figures parsed late are two
columns per magnitude. Checked against a brute-force scan of every file's numbers and against the order the late
figures must keep."""

from __future__ import annotations

import random
from array import array
from bisect import bisect_left, bisect_right
from pathlib import Path

from pytest_auditfence.claims import quantities
from pytest_auditfence.fence import FileStore
from pytest_auditfence.verify import SourceIndex
from pytest_auditfence.verify.sources import _FENCE, _RUN_DECIMALS, _fenced

from test_compact_index import _bench_corpus


def _expected_lines(index: SourceIndex, value: float, tolerance: float) -> set[tuple[int, int]]:
    """(file, deferred line) of every number of every file within `_reach`'s bound of `value`, at 1 or at a scale its
    line spells (stop 29: `quantities.SCALE_SPELLINGS`), by brute force."""
    v = abs(value)
    reach = tolerance + 2e-9 * max(1.0, v)
    found = set()
    for f, fi in enumerate(index.files):
        lines = fi.text.split("\n")
        for place, (number, decimals) in enumerate(zip(fi.runs, fi.run_decimals)):
            k = fi.run_line(place)
            decimals = min(decimals, _RUN_DECIMALS - 1)
            for scale in quantities.PLAIN_SCALES:
                spelled = quantities.SCALE_SPELLINGS.get(scale)
                if abs(number - v / scale) <= reach / scale + 0.5 * 10.0 ** -decimals and (
                        spelled is None or spelled.search(lines[fi.deferred[k] - 1])):
                    found.add((f, k))
    return found


def _done(index: SourceIndex) -> set[tuple[int, int]]:
    return {(f, k) for f, fi in enumerate(index.files) for k, done in enumerate(fi._done) if done}


def test_fenced_bisection_is_the_plain_one() -> None:
    rng = random.Random(5)
    for n in (0, 1, _FENCE - 1, _FENCE, _FENCE + 1, 5 * _FENCE, 5 * _FENCE + 7):
        values = sorted(rng.choice([0.0, 1.0, 1.5, 2.0, 7.0, 12.3, 100.0]) + rng.choice([0.0, 0.0, 0.1]) for _ in range(n))
        fence = array("d", values[::_FENCE])
        rows = range(n)
        for probe in sorted(set(values)) + [-1.0, 0.05, 1.2, 50.0, 500.0]:
            assert _fenced(fence, rows, values.__getitem__, probe, False) == bisect_left(values, probe), (n, probe)
            assert _fenced(fence, rows, values.__getitem__, probe, True) == bisect_right(values, probe), (n, probe)


def test_the_deferred_numbers_are_kept_once_and_reach_the_lines_a_scan_finds(tmp_path: Path) -> None:
    root, sources = _bench_corpus(tmp_path)
    index = SourceIndex.build(root, sources[:6], store=FileStore(root))
    numbers = sum(len(fi.runs) for fi in index.files)
    assert numbers > 4 * _FENCE
    kept = 0
    for decimals, (fence, rows, in_file, places, number) in enumerate(index._runs):
        # no value column beside the rows: file and place in 2 bytes each, a sparse column of values
        assert in_file.typecode == places.typecode == "H" and len(rows) == len(in_file) == len(places)
        assert len(fence) == -(-len(rows) // _FENCE)
        values = [index.files[f].runs[i] for f, i in zip(in_file, places)]
        assert values == sorted(values) and list(fence) == values[::_FENCE]
        assert all(min(index.files[f].run_decimals[i], _RUN_DECIMALS - 1) == decimals for f, i in zip(in_file, places))
        kept += len(rows)
    assert kept == numbers  # each number once
    for fi in index.files:
        assert fi.deferred.typecode == "H" and fi.run_firsts.typecode == "H"
    rng = random.Random(11)
    probes = []
    for _ in range(40):
        fi = index.files[rng.randrange(6)]
        if len(fi.runs):
            i, scale = rng.randrange(len(fi.runs)), rng.choice([1.0, 1e6, 1e9])
            probes.append((fi.runs[i] * scale, 0.5 * 10.0 ** -fi.run_decimals[i] * scale))
    # the values of the sparse column itself, and values between two numbers that no number reaches
    probes += [(fence[j], 0.0) for fence, *_ in index._runs for j in range(0, len(fence), 3)]
    expected: set[tuple[int, int]] = set()
    for value, tolerance in probes:
        list(index.near(value, tolerance))
        expected |= _expected_lines(index, value, tolerance)
        assert _done(index) == expected, (value, tolerance)
    assert 0 < len(expected) < sum(len(fi.deferred) for fi in index.files)


def test_a_lookup_no_number_meets_parses_nothing_and_late_figures_are_ordered_columns(tmp_path: Path) -> None:
    root, sources = _bench_corpus(tmp_path)
    index = SourceIndex.build(root, sources[:6], store=FileStore(root))
    assert _expected_lines(index, 7.77e15, 1.0) == set()
    assert list(index.near(7.77e15, 1.0)) == [] and _done(index) == set() and index._late == {}
    for value, tolerance in ((45.3, 0.05), (12.3e9, 0.05e9), (13.4, 0.05), (123.45, 0.005), (1.048, 0.0005)):
        list(index.near(value, tolerance))
    assert index._late
    late = 0
    for in_file, items in index._late.values():
        assert isinstance(in_file, array) and isinstance(items, array) and len(in_file) == len(items)
        rows = [(index.files[f].values[i], f, index.files[f].position(i), i) for f, i in zip(in_file, items)]
        assert rows == sorted(rows)
        late += len(rows)
    # every figure parsed late is in the columns once
    assert late == sum(len(fi.starts) - fi.eager for fi in index.files) > 0
