"""Issue 10, stop 25 (trust): a claim naming a maturity bucket is looked up only in a cell of that very bucket, over
real captured runs (`plan` asks for a tool, a `ToolNode` runs it, `write` returns the report) in every form a tool
returns a table in. An overlapping bucket ('1-3 years' for 'after more than one year') is a part of a sum, not the
claim's figure. The 'Total' column of a row split into buckets names no bucket and is not the claim's part either
when the row holds the claim's bucket (closed at stop 26; its negative, a span no column holds, is in
test_wrong_row_s26.py). The negatives: the right bucket's cell still verifies, a claim naming no
bucket is still backed by the Total column, and a correct sum of the buckets a claim's span covers still derives."""

from __future__ import annotations

from pathlib import Path

import pytest

from test_false_alarms_s14 import _check
from test_table_captions_s16 import FORMS, table_auditor
from test_tables_s24 import TABLES as TABLES_S24

TABLES = {"obligations": TABLES_S24["obligations"]}  # Total | Less than 1 year | 1-3 years | 3-5 years | More than 5 years

ALL_FORMS = sorted([*FORMS, "records"])


@pytest.fixture
def audit(tmp_path: Path):
    return table_auditor(tmp_path, TABLES)


@pytest.mark.parametrize("form", ALL_FORMS)
def test_the_total_column_backs_no_claim_naming_one_bucket(audit, form: str) -> None:
    _check(audit, form, "obligations",
           [("The operating lease obligations due in less than 1 year were $1,020 thousand.", "$1,020 thousand"),
            ("The purchase obligations due within one year were $2.4 million.", "$2.4 million"),
            ("The total operating lease obligations were $4,512 thousand.", "$4,512 thousand")],
           [("The operating lease obligations due in less than 1 year were $4,512 thousand.", "$4,512 thousand"),
            ("The purchase obligations due within one year were $3.1 million.", "$3.1 million"),
            ("The total contractual obligations due in 1-3 years were $7,612 thousand.", "$7,612 thousand")])


@pytest.mark.parametrize("form", ALL_FORMS)
def test_an_overlapping_bucket_is_a_part_of_a_sum_not_the_claims_figure(audit, form: str) -> None:
    _check(audit, form, "obligations",
           # 2,050 + 1,442 = 3,492: the buckets 'after more than one year' covers, summed
           [("The total operating lease obligations due after more than one year were $3,492 thousand.", "$3,492 thousand"),
            ("The sum of the operating lease obligations due after more than one year was $3,492 thousand.",
             "$3,492 thousand")],
           [("The operating lease obligations due after more than one year were $2,050 thousand.", "$2,050 thousand"),
            ("The purchase obligations due after more than one year were $700 thousand.", "$700 thousand")])
