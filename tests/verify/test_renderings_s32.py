"""Issue 10, trust (stop 32): the size of a move ('Domestic decreased by £0.7 million from 2018 to 2019', 'fell 12.0
percent', 'was up 3%') is not one period's level, so a cell of a period column that holds the same digits is no
evidence for it; a column, row or caption that names the move ('Change', 'Increase (decrease)') is, and a true
change is still derived from the two periods' cells. Over real captured runs in every form a tool returns a table
in. The mechanism was found by `eval/run_eval.py --sets tatqa-cells --tatqa-variants 5` on the tuning sections
(a change with an operand from the neighbouring row, or a few percent off, whose value is a cell of the row)."""

from __future__ import annotations

from pathlib import Path

import pytest

from test_false_alarms_s14 import _check
from test_table_captions_s16 import table_auditor
from test_wrong_row_s27 import ALL_FORMS

TABLES = {
    # levels by period only: a change is computed from two of them, never read from one
    "regions": ("Table 3 Trade receivables by region (in millions)", [
        ["", "2019", "2018"],
        ["Domestic", "31.7", "32.4"],
        ["Export", "0.6", "0.7"],
        ["Total", "32.3", "33.1"]],
        "Trade receivables at the end of each year, by the customer's region."),
    # rates by period: a rise in percent is computed, never one year's rate
    "margins": ("Table 5 Margins", [
        ["", "2019", "2018"],
        ["Gross margin (%)", "44.0", "41.5"],
        ["Operating margin (%)", "16.0", "12.0"]],
        "Margins as a percentage of net sales."),
    # a column of changes: the change is read from it
    "changes": ("Table 7 Net sales (in millions)", [
        ["", "2019", "2018", "Change"],
        ["Products", "120", "100", "20"],
        ["Services", "45", "52", "(7)"]],
        "Net sales by type."),
}


@pytest.fixture
def audit(tmp_path: Path):
    return table_auditor(tmp_path, TABLES)


@pytest.mark.parametrize("form", ALL_FORMS)
def test_a_move_is_not_one_periods_level(audit, form: str) -> None:
    _check(audit, form, "regions",
           [("Domestic decreased by $0.7 million from 2018 to 2019.", "$0.7 million"),
            ("From 2018 to 2019, total trade receivables fell by $0.8 million.", "$0.8 million"),
            # a level is still a level: after 'to', and stated for its period
            ("Domestic receivables fell to $31.7 million in 2019.", "$31.7 million"),
            ("Export receivables were $0.6 million in 2019.", "$0.6 million")],
           [("From 2018 to 2019, Domestic decreased by $31.7 million.", "$31.7 million"),  # 2019's level
            ("Export fell by $0.6 million from 2018 to 2019.", "$0.6 million"),  # 2019's level, the change is 0.1
            ("Export decreased by $0.7 million from 2018 to 2019.", "$0.7 million"),  # 2018's level
            ("Domestic decreased by $0.7 billion from 2018 to 2019.", "$0.7 billion"),  # the wrong scale
            ("Domestic decreased by 0.7% from 2018 to 2019.", "0.7%")])  # the wrong unit


@pytest.mark.parametrize("form", ALL_FORMS)
def test_a_rise_in_percent_is_not_one_years_rate(audit, form: str) -> None:
    _check(audit, form, "margins",
           [("Operating margin was 16.0% in 2019.", "16.0%"),
            ("Operating margin rose 33.3 percent from 2018 to 2019.", "33.3 percent")],
           [("Operating margin rose 16.0 percent from 2018 to 2019.", "16.0 percent"),  # 2019's rate
            ("Gross margin was up 44.0% in 2019 compared with 2018.", "44.0%"),  # 2019's rate
            ("Gross margin grew by 41.5 percent from 2018 to 2019.", "41.5 percent")])  # 2018's rate


@pytest.mark.parametrize("form", ALL_FORMS)
def test_a_column_of_changes_holds_the_move(audit, form: str) -> None:
    _check(audit, form, "changes",
           [("Products rose by $20 million from 2018 to 2019.", "$20 million"),
            ("Services decreased by $7 million from 2018 to 2019.", "$7 million"),
            ("Products net sales increased to $120 million in 2019.", "$120 million")],
           [("Products rose by $20 billion from 2018 to 2019.", "$20 billion"),  # the wrong scale
            ("Services decreased by $45 million from 2018 to 2019.", "$45 million"),  # 2019's level
            ("Products rose by $2 million from 2018 to 2019.", "$2 million")])  # invented
