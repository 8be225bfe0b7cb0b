"""The index's compact forms behave as the plain ones: the shared-field-set Quantity and the tuple buckets."""

from __future__ import annotations

import copy
import pickle
from pathlib import Path

from pydantic import BaseModel

from pytest_auditfence.fence import FileStore, Source
from pytest_auditfence.models import Quantity
from pytest_auditfence.verify import SourceIndex
from pytest_auditfence.verify.sources import Observed, record_periods
from pytest_auditfence.verify.tables import periods_in

FIELDS = dict(text="$1.2 billion", start=4, end=16, value=1.2e9, kind="currency", unit="USD", scale=1e9,
              tolerance=5e7, negative=False)


def pydantic_construct(**values: object) -> Quantity:
    return BaseModel.model_construct.__func__(Quantity, **values)  # pydantic's own, bypassing the override


def test_quantity_built_with_every_field_is_pydantics_own() -> None:
    fast, plain = Quantity.model_construct(**FIELDS), pydantic_construct(**FIELDS)
    assert fast == plain
    assert list(fast.__dict__.items()) == list(plain.__dict__.items())
    assert fast.model_fields_set == plain.model_fields_set
    assert fast.model_dump_json() == plain.model_dump_json()
    assert repr(fast) == repr(plain)
    assert pickle.loads(pickle.dumps(fast)) == fast
    assert copy.deepcopy(fast) == fast


def test_quantities_sharing_the_field_set_stay_independent() -> None:
    first, second = Quantity.model_construct(**FIELDS), Quantity.model_construct(**FIELDS)
    second.value = 2.0
    copied = first.model_copy(update={"value": 3.0, "text": "3"})
    assert (first.value, second.value, copied.value, copied.text) == (1.2e9, 2.0, 3.0, "3")
    assert first.model_fields_set == set(Quantity.model_fields)


def test_quantity_built_with_some_fields_keeps_pydantics_defaults_and_field_set() -> None:
    q = Quantity.model_construct(text="7", start=0, end=1, value=7.0)
    assert q == pydantic_construct(text="7", start=0, end=1, value=7.0)
    assert q.model_fields_set == {"text", "start", "end", "value"}
    assert (q.kind, q.unit, q.tolerance) == ("number", None, 0.0)


def test_near_returns_every_figure_within_tolerance(tmp_path: Path) -> None:
    (tmp_path / "tools").mkdir()
    (tmp_path / "tools" / "a.txt").write_text("Revenue was $1,248 million; margin 41.2%; 1,250 units.\n")
    (tmp_path / "tools" / "b.txt").write_text("Revenue: $1.25 billion, margin 41.0%, backlog $1,249 million.\n")
    sources = [Source.from_file(tmp_path, f"tools/{n}.txt", node="n", kind="tool_call") for n in "ab"]
    index = SourceIndex.build(tmp_path, sources)
    found = list(index.near(1.249e9, 0.5e6))
    assert all(isinstance(o, Observed) and index.quantity(o).value == o.value for o in found)
    matching = {(f, i) for f, fi in enumerate(index.files) for i, q in enumerate(fi.quantities)
                if abs(q.value - 1.249e9) <= 0.5e6 + q.tolerance}
    assert len(matching) == 3 and matching <= {(o.file, o.item) for o in found}


def test_record_periods_memo_is_keyed_by_content_and_line(tmp_path: Path) -> None:
    """Two files with their records on the same lines but other years: each answers with its own record's period,
    asked first or again (the memo of `record_periods` is keyed by sha256 and line, never by line alone)."""
    loaded = []
    for name, year in (("a.txt", 2022), ("b.txt", 2023)):
        (tmp_path / name).write_text(f"records:\n  - fiscal_year: {year}\n    revenue_musd: 612\n", encoding="utf-8")
        loaded.append(FileStore(tmp_path).load(Source.from_file(tmp_path, name, node="n", kind="tool_call")))
    offsets = [file.text.index("612") for file in loaded]
    assert offsets[0] == offsets[1]
    first = [record_periods(file, offset) for file, offset in zip(loaded, offsets)]
    again = [record_periods(file, offset) for file, offset in zip(loaded, offsets)]
    assert first == again
    assert first[0] == frozenset(periods_in("2022")) and first[1] == frozenset(periods_in("2023"))
    assert first[0] != first[1]


def _table_sources(tmp_path: Path) -> tuple[SourceIndex, list[Source]]:
    (tmp_path / "tools").mkdir()
    for n, scale in (("a", 1), ("b", 2), ("c", 3)):
        rows = "".join(f"| {row} | {scale * 100 + i:,} | {scale * 90 + i:,} |\n"
                       for i, row in enumerate(("Revenue", "Cost of revenue", "Gross profit", "Net income")))
        (tmp_path / "tools" / f"{n}.txt").write_text(
            f"Income statement (in millions)\n| Item | FY2024 | FY2023 |\n|---|---|---|\n{rows}", encoding="utf-8")
    sources = [Source.from_file(tmp_path, f"tools/{n}.txt", node="n", kind="tool_call") for n in "abc"]
    return SourceIndex.build(tmp_path, sources), sources


def test_labelled_with_any_is_the_sorted_union_of_each_words_cells(tmp_path: Path) -> None:
    index, _ = _table_sources(tmp_path)
    words = ["revenue", "income", "profit", "revenue"]
    union = sorted({cell for word in words for cell in index.labelled_with(word)})
    assert len(union) > len(index.labelled_with("revenue"))
    assert list(index.labelled_with_any(words)) == union
    assert list(index.labelled_with_any([])) == [] and list(index.labelled_with_any(["absent"])) == []


def test_subject_cells_are_the_first_backing_cells_in_source_order_for_any_limit(tmp_path: Path) -> None:
    """The lazy merge stops at `limit`; what it returns is the head of the full answer, whichever the limit, and
    two claims in the same words (other figures) share one answer."""
    from pytest_auditfence.claims.quantities import parse_quantities
    from pytest_auditfence.models import ClaimRecord
    from pytest_auditfence.verify.match import cell_backs, claim_subject, subject_cells

    index, _ = _table_sources(tmp_path)

    def record(text: str) -> ClaimRecord:
        return ClaimRecord(id="c", claim=text, start=0, end=len(text), quantities=parse_quantities(text))

    claim = record("Revenue was $201 million in FY2024.")
    subject = claim_subject(claim)
    every = [(f, i) for f, i in sorted({c for w in ("revenue",) for c in index.labelled_with(w)})
             if cell_backs(subject, index.files[f].labels[i])]
    assert len(every) >= 3
    for limit in (0, 1, 2, len(every), len(every) + 5):
        found = subject_cells(claim, index, subject, limit=limit)
        assert [(o.file, o.item) for o in found] == every[:limit]
        assert all(o.value == index.quantity(o).value for o in found)
    other = record("Revenue was $305 million in FY2024.")
    assert subject_cells(other, index, claim_subject(other), limit=2) == subject_cells(claim, index, subject, limit=2)
