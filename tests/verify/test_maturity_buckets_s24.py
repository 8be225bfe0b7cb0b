"""Issue 10, stop 24 (trust): the buckets of a maturity table ('Less than 1 year | 1-3 years | 3-5 years | More than
5 years') told apart, over real captured runs (`plan` asks for a tool, a `ToolNode` runs it, `write` returns the
report) in every form a tool returns a table in (markdown, HTML, CSV-like text, PDF page text, a JSON table, JSON
records). A figure of one bucket is no evidence for a claim naming another, and the claim's own bucket holding
another value contradicts it; a claim naming its bucket as the column does, or in other words ('within one year',
'between one and three years'), is still covered, and so is one naming no bucket by the 'Total' column."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_auditfence.verify.match import label_sides, sides_apart
from test_false_alarms_s14 import _check
from test_table_captions_s16 import FORMS, table_auditor
from test_tables_s24 import TABLES as TABLES_S24

TABLES = {"obligations": TABLES_S24["obligations"]}  # Total | Less than 1 year | 1-3 years | 3-5 years | More than 5 years

ALL_FORMS = sorted([*FORMS, "records"])


@pytest.fixture
def audit(tmp_path: Path):
    return table_auditor(tmp_path, TABLES)


def test_buckets_of_any_span_are_sides_of_the_maturity_axis() -> None:
    apart = [("due in less than 1 year", "1-3 years"), ("within one year", "3-5 years"),
             ("between one and three years", "Less than 1 year"), ("after five years", "1 - 3 Years"),
             ("in 1 to 3 years", "3-5 years")]
    same = [("due in less than 1 year", "Less than 1 year"), ("within twelve months", "Less than 1 year"),
            ("between one and three years", "1-3 years"), ("after five years", "More than 5 years"),
            ("operating lease obligations", "1-3 years"), ("due in less than 1 year", "2019")]
    for claim, label in apart:
        assert sides_apart(label_sides(claim), label_sides(label)), (claim, label)
    for claim, label in same:
        assert not sides_apart(label_sides(claim), label_sides(label)), (claim, label)


@pytest.mark.parametrize("form", ALL_FORMS)
def test_a_figure_of_one_bucket_backs_no_claim_of_another(audit, form: str) -> None:
    _check(audit, form, "obligations",
           [("The operating lease obligations due in 1-3 years were $2.05 million.", "$2.05 million"),
            ("The operating lease obligations due between one and three years were $2.05 million.", "$2.05 million"),
            ("The purchase obligations due within one year were $2.4 million.", "$2.4 million"),
            ("The total contractual obligations due in less than 1 year were $3,420 thousand.", "$3,420 thousand"),
            ("The operating lease obligations due in 3-5 years were $1,442 thousand.", "$1,442 thousand"),
            ("The total operating lease obligations were $4,512 thousand.", "$4,512 thousand")],
           [("The operating lease obligations due in less than 1 year were $2.05 million.", "$2.05 million"),
            ("The purchase obligations due within one year were $700 thousand.", "$700 thousand"),
            ("The total contractual obligations due in 1-3 years were $3,420 thousand.", "$3,420 thousand"),
            ("The operating lease obligations due in 1-3 years were $1,442 thousand.", "$1,442 thousand"),
            ("The operating lease obligations due after five years were $1,442 thousand.", "$1,442 thousand")])



@pytest.mark.parametrize("form", ALL_FORMS)
def test_the_claims_own_bucket_holding_another_value_contradicts_it(audit, form: str) -> None:
    record = audit(form, "obligations", "The operating lease obligations due in less than 1 year were $2.05 million.",
                   "$2.05 million")
    assert record.verdict == "contradicted", (record.verdict, record.notes)
    assert "'1,020'" in " ".join(record.notes), record.notes
    # the negatives: the claim's own bucket holding its figure is no contradiction, nor is a figure no bucket holds
    # in a row the claim does not name
    for sentence, figure in [("The operating lease obligations due in 1-3 years were $2.05 million.", "$2.05 million"),
                             ("The deferred revenue due in less than 1 year was $2.05 million.", "$2.05 million")]:
        record = audit(form, "obligations", sentence, figure)
        assert record.verdict != "contradicted", (sentence, record.verdict, record.notes)
