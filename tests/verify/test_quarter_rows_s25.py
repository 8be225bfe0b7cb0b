"""Issue 10, stop 25: rows named by an ordinal ('First Quarter' ... 'Fourth Quarter' under one year's 'Low | High';
'first to second month' of a table of date ranges), over real captured runs (`plan` asks for a tool, a `ToolNode`
runs it, `write` returns the report) in the forms a tool returns a table in. The row's ordinal is part of its label
and names a side: a claim naming another quarter (or range of months) is not backed by its cell, a claim naming the
same one is. The row is dated as that quarter of its column's year ('Second Quarter' under '2018' is Q2 2018); before,
its cell was plain 2018 and a claim about the second quarter of 2018 found no cell."""

from __future__ import annotations

from pathlib import Path

import pytest

from test_false_alarms_s14 import _check
from test_table_captions_s16 import FORMS, table_auditor

TABLES: dict[str, tuple[str, list[list[str]], str]] = {
    # an Item 5 stock price table: one year's low and high sale prices, a row a quarter
    "stock prices": ("Table 1", [
        ["", "2018", ""],
        ["", "Low", "High"],
        ["First Quarter", "$21.40", "$25.10"],
        ["Second Quarter", "$22.75", "$27.30"],
        ["Third Quarter", "$24.05", "$29.85"],
        ["Fourth Quarter", "$19.60", "$26.45"]],
        "The high and low sale prices of our common stock by quarter were as follows:"),
    # a table of date ranges whose rows are ordinal spans of months
    "months": ("Table 2", [
        ["", "2019", "2018"],
        ["Within the first month", "1,250", "1,180"],
        ["First to second month", "640", "575"],
        ["Second to third month", "310", "295"],
        ["Over three months", "85", "90"]],
        "Trade receivables by the time since invoicing:"),
}


@pytest.fixture
def audit(tmp_path: Path):
    return table_auditor(tmp_path, TABLES)


@pytest.mark.parametrize("form", sorted(FORMS))
def test_a_quarter_row_backs_only_a_claim_about_its_quarter(audit, form: str) -> None:
    _check(audit, form, "stock prices",
           [("The high sale price of the common stock in the second quarter of 2018 was $27.30.", "$27.30"),
            ("The low sale price of the common stock in the third quarter of 2018 was $24.05.", "$24.05"),
            ("The difference between the high and low sale price in the second quarter of 2018 was $4.55.",
             "$4.55"),
            ("The high sale price of the common stock in the second quarter was $27.30.", "$27.30")],  # no year
           [("The high sale price of the common stock in the third quarter was $27.30.", "$27.30"),  # no year
            ("The low sale price of the common stock in the first quarter was $22.75.", "$22.75"),  # no year
            ("The high sale price of the common stock in the third quarter of 2018 was $27.30.", "$27.30"),  # quarter
            ("The high sale price of the common stock in the first quarter of 2018 was $27.30.", "$27.30"),  # quarter
            ("The low sale price of the common stock in the fourth quarter of 2018 was $22.75.", "$22.75"),  # quarter
            ("The low sale price of the common stock in the second quarter of 2018 was $24.05.", "$24.05"),  # quarter
            ("The high sale price of the common stock in the second quarter of 2018 was $27.03.", "$27.03")])  # invented


@pytest.mark.parametrize("form", sorted(FORMS))
def test_an_ordinal_range_row_backs_only_a_claim_about_its_range(audit, form: str) -> None:
    _check(audit, form, "months",
           [("Receivables from the first to second month in 2019 were 640.", "640"),
            ("Receivables from the second to third month in 2018 were 295.", "295")],
           [("Receivables from the second to third month in 2019 were 640.", "640"),  # the other range
            ("Receivables from the first to second month in 2019 were 310.", "310"),  # the other range
            ("Receivables from the first to second month in 2018 were 640.", "640"),  # the other period
            ("Receivables from the first to second month in 2019 were 604.", "604")])  # invented
