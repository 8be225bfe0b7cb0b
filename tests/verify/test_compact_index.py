"""The index keeps each file's figures as columns and builds a `Quantity` when one is read: what is read back is
what the parser read, over the scaling bench's corpus and the edge cases (table cells and their bare second
readings, ranges, negatives, units), past the 2-byte columns' limits, and through a captured run's audit."""

from __future__ import annotations

import importlib.util
import random
from pathlib import Path

from langchain_core.tools import tool

from pytest_auditfence import Snapshot
from pytest_auditfence.audit.cascade import audit_cascade_sync
from pytest_auditfence.claims import quantities
from pytest_auditfence.fence import FileStore, Source
from pytest_auditfence.models import COVERED_VERDICTS, Quantity
from pytest_auditfence.verify import SourceIndex
from pytest_auditfence.verify.sources import LITERAL_NUMBER, FileIndex, _index_file
from pytest_auditfence.verify.tables import read_tables

from tool_runs import claim_of, tool_app

BENCH = Path(__file__).resolve().parents[2] / "bench" / "verify_scaling.py"

EDGES = """Income statement (in millions)
| Item | FY2024 | FY2023 |
|---|---|---|
| Revenue | 1,234 | 1,102 |
| Net loss | (2.3) | 4.5 |
| Margin (%) | 41.2 | 40.8 |

Guidance: revenue of $1.2-1.5 billion, a decline of 30 bps, shipping at -40 °C, 12 km of cable, 50psi.
"""


def _readings(text: str) -> list[Quantity]:
    """Every reading the parser gives of `text`: the scanner's, and each table cell's with and without its
    table's scale and unit (what `_index_file` stores is a selection of these)."""
    cells = read_tables(text)
    spans = [(cell.start, cell.end) for cell in cells]
    disjoint = all(a[1] <= b[0] for a, b in zip(spans, spans[1:]))
    found = [s.quantity for s in quantities.QuantityScanner().iter_scan(text, read_elsewhere=spans if disjoint else ())]
    for cell in cells:
        span = text[cell.start:cell.end]
        found += quantities.parse_quantities(span, scale_context=cell.label.scale, unit_context=cell.label.unit,
                                             offset=cell.start, years=False, cell=True)
        found += quantities.parse_quantities(span, offset=cell.start, years=False, cell=True)
    return found


def _bench_corpus(tmp_path: Path) -> tuple[Path, list[Source]]:
    """The 1 MB corpus of bench/verify_scaling.py (the same seed), generated under `tmp_path`."""
    spec = importlib.util.spec_from_file_location("verify_scaling_bench", BENCH)
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    bench.OUT = tmp_path
    return bench.corpus(1)


def _source(root: Path, name: str, text: str) -> Source:
    (root / name).write_text(text, encoding="utf-8")
    return Source.from_file(root, name, node="n", kind="tool_call")


def test_a_figure_stored_in_columns_reads_back_as_the_parsers_quantity() -> None:
    readings = _readings(EDGES)
    assert {q.kind for q in readings} >= {"currency", "percent", "bps", "temperature", "length", "number"}
    assert any(q.negative for q in readings) and any(q.scale == 1e6 for q in readings)
    stored = FileIndex(EDGES)
    items = [stored.append(q, line=n + 1) for n, q in enumerate(readings)]
    assert items == list(range(len(readings)))
    for item, q in enumerate(readings):
        back = stored.quantity(item)
        assert back == q and back.model_dump_json() == q.model_dump_json()
        assert [type(v) for v in back.__dict__.values()] == [type(v) for v in q.__dict__.values()]
        assert stored.values[item] == q.value and stored.lines[item] == item + 1
    assert list(stored.quantities) == readings and stored.quantities[-1] == readings[-1]
    assert stored.quantities[1:3] == readings[1:3]
    # a figure whose text is not the file's slice at its span keeps its own text
    odd = readings[0].model_copy(update={"text": "one thousand"})
    assert stored.quantity(stored.append(odd, line=1)) == odd
    # the wrong column, scale, unit or sign would not read back equal
    revenue = next(q for q in readings if q.value == 1.234e9)
    assert stored.quantity(readings.index(revenue)) != revenue.model_copy(update={"value": 1.102e9})
    assert stored.quantity(readings.index(revenue)) != revenue.model_copy(update={"scale": 1e3})
    assert stored.quantity(readings.index(revenue)) != revenue.model_copy(update={"unit": "EUR"})


def test_the_index_keeps_cells_alternatives_and_labels_of_the_parsers_readings(tmp_path: Path) -> None:
    index = SourceIndex.build(tmp_path, [_source(tmp_path, "edges.txt", EDGES)])
    fi = index.files[0]
    readings = {q.model_dump_json() for q in _readings(EDGES)}
    assert all(q.model_dump_json() in readings for q in fi.quantities)
    by_value = {q.value: i for i, q in enumerate(fi.quantities)}
    revenue, bare = by_value[1.234e9], by_value[1234.0]
    assert fi.labels[revenue].row == "Revenue" and fi.labels[bare] is fi.labels[revenue]
    assert bare in fi.alternatives and revenue not in fi.alternatives
    assert fi.label_at(fi.quantity(revenue).start) is fi.labels[revenue]
    assert fi.quantity(by_value[-2.3e6]).text == "(2.3)"
    texts = {q.text for q in fi.quantities}
    assert {"30 bps", "-40 °C", "12 km"} <= texts and any("1.5" in t for t in texts)


def test_the_bench_corpus_reads_back_figure_for_figure(tmp_path: Path) -> None:
    root, sources = _bench_corpus(tmp_path)
    store = FileStore(root)
    figures = 0
    for source in sources[:4]:
        loaded = store.load(source)
        fi = _index_file(loaded)
        fi.materialize_all()  # the lazy front's deferred lines too
        readings = {(q.start, q.model_dump_json()) for q in _readings(loaded.text)}
        for item, q in enumerate(fi.quantities):
            assert (q.start, q.model_dump_json()) in readings
            assert loaded.line_of(q.start) == fi.lines[item] and q.value == fi.values[item]
        in_text_order = sorted(range(len(fi.quantities)), key=fi.position)
        assert [fi.lines[i] for i in in_text_order] == sorted(fi.lines) and len(fi.quantities) > 900
        figures += len(fi.quantities)
    assert figures > 3600


def test_value_buckets_hold_every_figure_once_in_value_then_source_order(tmp_path: Path) -> None:
    root, sources = _bench_corpus(tmp_path)
    index = SourceIndex.build(root, sources[:6])
    found = [(o.file, o.item) for o in index.near(0.0, 1e300)]  # parses every deferred line (all are in reach)
    every = {(f, i): fi.values[i] for f, fi in enumerate(index.files) for i in range(len(fi.quantities))}
    assert sorted(found) == sorted(every) and len(found) == len(set(found))
    for _, _, files, items in index._buckets:
        keys = [(index.files[files[k]].values[items[k]], files[k], items[k]) for k in range(len(files))]
        assert keys == sorted(keys) and len(files) == len(items)
    some = index.files[2].quantity(17)
    near = {(o.file, o.item) for o in index.near(some.value, some.tolerance)}
    assert (2, 17) in near
    within = {key for key, v in every.items()
              if abs(v - some.value) <= some.tolerance + index.files[key[0]].tolerances[key[1]]}
    assert within <= near


def test_digit_runs_as_written_are_found_exactly(tmp_path: Path) -> None:
    root, sources = _bench_corpus(tmp_path)
    index = SourceIndex.build(root, sources[:3])
    plain = set()
    for f in range(3):
        plain |= {m.replace(",", "") for m in LITERAL_NUMBER.findall(index.loaded(f).text)}
    rng = random.Random(7)
    asked = sorted(plain) + [str(rng.randint(0, 10**9)) for _ in range(3000)]
    asked += [w + "9" for w in sorted(plain)[:500]] + ["", "0", "00", "1.", "99999999999999"]
    assert all(index.holds_literal(w) == (w in plain) for w in asked)
    assert len(plain) >= 2000 and sum(w not in plain for w in asked) >= 500


def _long_filing(filler: str = "7\n") -> str:
    """More than 65,535 figures and lines before the table: the item and line columns past two bytes (where every
    line is read when the file is indexed: a filler line with a fraction character; a line of a plain number is
    deferred by the lazy front, and the cells would come first)."""
    return "Shipment log (units per pallet)\n" + filler * 66_000 + EDGES


def test_a_file_past_the_two_byte_columns_keeps_its_items_and_lines(tmp_path: Path) -> None:
    text = _long_filing("7\u00bd\n")
    index = SourceIndex.build(tmp_path, [_source(tmp_path, "long.txt", text)])
    fi = index.files[0]
    revenue = next(i for i in range(len(fi.quantities)) if fi.values[i] == 1.234e9)
    assert revenue > 0xFFFF and fi.lines[revenue] > 0xFFFF
    assert fi.lines.typecode != "H" and fi.words["revenue"].typecode != "H"
    line = text.count("\n", 0, text.index("| Revenue")) + 1
    assert fi.lines[revenue] == index.loaded(0).line_of(fi.quantity(revenue).start) == line
    assert revenue in fi.words["revenue"] and (0, revenue) in index.labelled_with("revenue")
    small = SourceIndex.build(tmp_path, [_source(tmp_path, "short.txt", EDGES)]).files[0]
    assert small.lines.typecode == "H" and small.words["revenue"].typecode == "H"


@tool
def get_shipping_filing(company: str) -> str:
    """The company's shipping log and its income statement, in one filing."""
    return _long_filing()


def test_a_captured_run_past_the_two_byte_columns_is_verified_and_its_fabrications_flagged(tmp_path: Path) -> None:
    calls = [("get_shipping_filing", {"company": "HALV"})]
    report = ("Revenue was $1,234 million in FY2024.\n"
              "Revenue was $1,234 billion in FY2024.\n"  # wrong scale
              "Revenue was $1,102 million in FY2024.\n"  # the other period's cell
              "Revenue was $1,377 million in FY2024.\n")  # invented
    snap = Snapshot(tmp_path / "trace", max_output_chars=400_000)  # the filing is kept whole
    tool_app([get_shipping_filing], calls, report).invoke({"messages": [("user", "Write a note.")]},
                                                          config=snap.config())
    snap.set_report(report)
    snap.finalize()
    cascade = audit_cascade_sync(trace_dir=snap.trace_dir, final_document=report)
    assert not any("max_output_chars" in note for claim in cascade.claims for note in claim.notes)
    assert claim_of(cascade, "$1,234 million").verdict in COVERED_VERDICTS
    for wrong in ("$1,234 billion", "$1,102 million", "$1,377 million"):
        assert claim_of(cascade, wrong).verdict not in COVERED_VERDICTS, wrong
