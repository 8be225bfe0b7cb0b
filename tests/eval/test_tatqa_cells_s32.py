"""Issue 10, measuring material (stop 32): eval/tatqa_cells.py writes no claim about a row its section row says is an
amount per share ('Basic' under 'Net Income per Share:', 'Book Value' under 'Per Common Share Data:'): the table's
scale does not fit it, and '$4.60 million' was a gold error of the generator. A section of other words keeps its
amounts."""

from __future__ import annotations

from collections import Counter

from test_tatqa_cells_s31 import section, tatqa_cells


def test_rows_under_a_per_share_section_are_no_amounts():
    rows = [["", "2019", "2018"],
            ["Numerator:", "", ""], ["Net income", "$ 1,169", "$ 116"],
            ["Net Income per Share:", "", ""], ["Basic", "$ 4.60", "$ 0.43"], ["Diluted", "$ 4.51", "$ 0.42"],
            ["Per Common Share Data:", "", ""], ["Book Value", "18.43", "16.82"],
            ["Balance Sheet Data:", "", ""], ["Total Debt", "292.6", "57.8"]]
    skipped: Counter[str] = Counter()
    cells = tatqa_cells.cells_of(section(rows), skipped)
    assert {c.label for c in cells} == {"Net income", "Total Debt"}
    assert skipped["not an amount"] == 6
    assert {c.figure.scale for c in cells} == {"million"}
