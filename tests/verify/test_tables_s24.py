"""Issue 10, stop 24: correct answers of annual-report tables that were flagged, over real captured runs (`plan` asks
for a tool, a `ToolNode` runs it, `write` returns the report) in the forms a tool returns a table in (markdown, HTML,
CSV-like text, the text of a PDF page, a JSON table, JSON records). A deduction a roll-forward writes in parentheses is
its row's figure when the claim states it with 'came to' or 'stood at'; a deduction row is averaged and totalled on
its sizes. Every rule has its negative: the wrong row, period, scale or an invented figure is flagged."""

from __future__ import annotations

from pathlib import Path

import pytest

from test_false_alarms_s14 import _check
from test_table_captions_s16 import FORMS, table_auditor

TABLES: dict[str, tuple[str, list[list[str]], str]] = {
    # a roll-forward of share awards: what it deducts in parentheses
    "awards": ("Table 4", [
        ["Non-vested awards", "Shares", "Weighted-Average Grant Date Fair Value"],
        ["Non-vested at December 31, 2018", "1,187,586", "$41.12"],
        ["Granted", "473,550", "$53.53"],
        ["Vested", "(365,223)", "$41.83"],
        ["Forfeited", "(12,632)", "$50.49"],
        ["Non-vested at December 31, 2019", "1,283,281", "$45.40"]],
        ""),
    # a deduction row in parentheses in every period
    "cost of sales": ("Table 5 Dollars in millions", [
        ["", "2019", "2018", "2017"],
        ["Cost of sales", "$(5,860)", "$(5,803)", "$(5,075)"],
        ["Gross profit", "$3,696", "$3,861", "$3,272"]],
        ""),
}

ALL_FORMS = sorted([*FORMS, "records"])


@pytest.fixture
def audit(tmp_path: Path):
    return table_auditor(tmp_path, TABLES)


@pytest.mark.parametrize("form", ALL_FORMS)
def test_a_deduction_stated_with_came_to_or_stood_at_is_its_parenthesised_cell(audit, form: str) -> None:
    # the verb that states the figure is no word between the deduction ('forfeited') and its figure
    _check(audit, form, "awards",
           [("The number of non-vested shares forfeited in 2019 came to 12,632.", "12,632"),
            ("The number of non-vested shares vested in 2019 stood at 365,223.", "365,223"),
            ("The number of non-vested shares vested in 2019 amounted to 365,223.", "365,223")],
           [("The number of non-vested shares granted in 2019 came to 365,223.", "365,223"),  # the wrong row
            ("The number of non-vested shares forfeited in 2019 came to 365,223.", "365,223"),  # the wrong row
            ("The number of non-vested shares forfeited in 2019 came to 12,362.", "12,362")])  # invented


@pytest.mark.parametrize("form", ALL_FORMS)
def test_a_deduction_row_is_averaged_and_totalled_on_its_sizes(audit, form: str) -> None:
    # (5,860 + 5,803 + 5,075) / 3; 5,860 + 5,803
    _check(audit, form, "cost of sales",
           [("The average cost of sales from 2017 to 2019 was $5,579.33 million.", "$5,579.33 million"),
            ("The total cost of sales in 2018 and 2019 was $11,663 million.", "$11,663 million")],
           [("The average gross profit from 2017 to 2019 was $5,579.33 million.", "$5,579.33 million"),  # the wrong row
            ("The average cost of sales from 2017 to 2019 was $5,597.33 million.", "$5,597.33 million"),  # invented
            ("The average cost of sales from 2017 to 2019 was $5,579.33 billion.", "$5,579.33 billion"),  # the scale
            ("The total cost of sales in 2017 and 2019 was $11,663 million.", "$11,663 million")])  # other periods
