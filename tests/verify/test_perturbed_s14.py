"""Issue 10, trust (stop 14): wrong figures that passed as `verified` or `derived` on TAT-QA's tuning sections, over
real captured runs, each rule with the true sentence covered and the wrong one flagged: a 'respectively' list of
periods states one figure per period (no difference of them), and a scale written in digits ('US$'000') is a scale,
never a figure 0."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_auditfence import Verdict
from tool_runs import section_auditor

COVERED = (Verdict.VERIFIED, Verdict.DERIVED)

# share activity over two years, one block per year: the 'Vested' row of each block is one year's figure
SHARE_ROWS = [
    ["", "Number of Shares", "Weighted Average Grant Date Fair Value"],
    ["", "(in thousands)", ""],
    ["Nonvested at January 1, 2018", "240", "$18.10"],
    ["Granted", "150", "16.40"],
    ["Vested", "(61)", "17.25"],
    ["Forfeited", "(12)", "—"],
    ["Nonvested at December 31, 2018", "317", "17.05"],
    ["Granted", "204", "12.30"],
    ["Vested", "(95)", "15.80"],
    ["Forfeited", "(27)", "—"],
    ["Nonvested at December 31, 2019", "399", "$14.20"],
]


def _csv(rows: list[list[str]]) -> str:
    return "\n".join(",".join(f'"{c}"' if "," in c else c for c in row) for row in rows)


SHARES_CSV = "Table 4 (In thousands)\n" + _csv(SHARE_ROWS) + "\n"
SHARES_MD = "Table 4 (In thousands)\n\n| " + " | ".join(SHARE_ROWS[0]) + " |\n|---|---|---|\n" + "\n".join(
    "| " + " | ".join(r) + " |" for r in SHARE_ROWS[1:]) + "\n"

# a parent entity's balance sheet whose columns state their scale in digits ('US$'000'), under a caption that
# states none; and a yuan table whose only scale is its header's "RMB'000"
PARENT_CSV = """Parent entity
,2019,2018
,US$\u2019000,US$\u2019000
Total current assets,"84,310","67,925"
Total current liabilities,"61,204","55,871"
Total equity,"142,660","131,018"
"""

YUAN_MD = """Segment revenue

|  | 2019 | 2018 |
|---|---|---|
|  | RMB'000 | RMB'000 |
| Online games | 52,318 | 47,906 |
| Advertising | 9,775 | 11,402 |
"""

DOCUMENTS = {"shares-csv": SHARES_CSV, "shares-md": SHARES_MD, "parent": PARENT_CSV, "yuan": YUAN_MD}


@pytest.fixture
def audit(tmp_path: Path):
    return section_auditor(tmp_path, DOCUMENTS)


def _flagged(record) -> bool:
    return record.verdict in (Verdict.UNSUPPORTED, Verdict.CONTRADICTED)


@pytest.mark.parametrize("section", ["shares-csv", "shares-md"])
def test_a_respectively_list_of_periods_is_no_difference_of_them(audit, section: str) -> None:
    listed = ("We put the respective number of shares vested between January 1, 2018 and December 31, 2018 and "
              "between December 31, 2018 and December 31, 2019 at {} thousand and -95 thousand, respectively.")
    right = audit(section, listed.format("-61"), "-61")
    assert right.verdict in COVERED, right.notes
    # -34 = (-95) - (-61): the two years' vested shares, the list's own figures, are no difference of each other
    assert _flagged(audit(section, listed.format("-34"), "-34")), "a 'respectively' list read as a change"
    assert _flagged(audit(section, listed.format("-27"), "-27"))  # another row (forfeited) of the second year
    # a change the claim names in words is still a difference of the two periods
    change = audit(section, "The number of shares vested changed by -34 thousand from 2018 to 2019.", "-34")
    assert change.verdict is Verdict.DERIVED, change.notes


def test_a_scale_written_in_digits_is_no_figure_zero(audit) -> None:
    # 'US$'000' over each column: its '000 was read as a figure 0, so any '0.00' claim passed
    zero = audit("parent", "The change in current ratio of the parent from 2018 to 2019 was 0.00.", "0.00")
    assert _flagged(zero), zero.notes
    assert _flagged(audit("parent", "The parent entity's total equity in 2019 was US$0.", "US$0"))
    assets = audit("parent", "The parent entity's total current assets in 2019 were US$84,310 thousand.", "84,310")
    assert assets.verdict is Verdict.VERIFIED, assets.notes
    assert _flagged(audit("parent", "The parent entity's total current assets in 2019 were US$67,925 thousand.",
                          "67,925"))  # the 2018 column


def test_a_scale_written_in_digits_scales_its_column(audit) -> None:
    # "RMB'000" is the table's only statement of scale: 52,318 under it is RMB 52.3 million
    right = audit("yuan", "Revenue from online games in 2019 was RMB52.3 million.", "52.3")
    assert right.verdict is Verdict.VERIFIED, right.notes
    assert _flagged(audit("yuan", "Revenue from online games in 2019 was RMB52.3 billion.", "52.3"))  # wrong scale
    assert _flagged(audit("yuan", "Revenue from online games in 2019 was RMB47.9 million.", "47.9"))  # 2018's
