"""Issue 10, derivation (stop 28): a claim that says 'average' and spans its periods with 'between' or 'from'
('the average ... between 2017-2019', 'from 2017 to 2019') names a mean over those periods; the span words are no
cue of a difference there. A fabricated average that happens to equal the difference of two of the years' cells
(3.7% - 1.6% = 2.1%) is flagged, in every form a tool returns a table in; a claim naming a change or a difference in
its own words ('the change in the average ...', 'the difference between ...') still reads one."""

from __future__ import annotations

from pathlib import Path

import pytest

from test_false_alarms_s14 import _check
from test_table_captions_s16 import FORMS, table_auditor

TABLES = {
    "tax rate": ("Table 3 Reconciliation of the effective tax rate", [
        ["", "2019", "2018", "2017"],
        ["Federal statutory rate", "21.0%", "21.0%", "35.0%"],
        ["State and local income tax rate, net of federal tax benefits", "3.7%", "1.6%", "2.2%"],
        ["Effective tax rate", "24.7%", "22.6%", "37.2%"]],
        "The Company's effective tax rate for each year."),
}

ALL_FORMS = sorted([*FORMS, "records"])


@pytest.fixture
def audit(tmp_path: Path):
    return table_auditor(tmp_path, TABLES)


@pytest.mark.parametrize("form", ALL_FORMS)
def test_an_average_between_two_years_is_a_mean_over_the_span_never_a_difference(audit, form: str) -> None:
    # (3.7 + 1.6 + 2.2) / 3 = 2.5; 3.7 - 1.6 = 2.1; (3.7 + 1.6) / 2 = 2.65; 3.7 - 2.2 = 1.5
    _check(audit, form, "tax rate",
           [("The average state and local income tax rate, net of federal tax benefits between 2017-2019 was "
             "2.5 percent.", "2.5 percent"),
            ("The average state and local income tax rate, net of federal tax benefits from 2017 to 2019 was 2.5%.",
             "2.5%"),
            ("The average state and local income tax rate, net of federal tax benefits between 2018 and 2019 was "
             "2.65%.", "2.65%"),
            # a change named in the claim's own words is still a difference
            ("The state and local income tax rate, net of federal tax benefits, increased by 2.1 percentage points "
             "from 2018 to 2019.", "2.1 percentage points")],
           [("The average state and local income tax rate, net of federal tax benefits between 2018-2019 was "
             "2.1 percent.", "2.1 percent"),  # 3.7 - 1.6, no mean
            ("The average state and local income tax rate, net of federal tax benefits between 2017-2019 was "
             "1.5 percent.", "1.5 percent"),  # 3.7 - 2.2, no mean
            ("The average state and local income tax rate, net of federal tax benefits from 2017 to 2019 was 2.1%.",
             "2.1%")])
