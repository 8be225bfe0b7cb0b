"""Issue 10, trust (stop 14): wrong figures that passed as `verified` or `derived` on TAT-QA's tuning sections, over
real captured runs, each rule with the true sentence covered and the wrong one flagged: a 'respectively' list of
periods states one figure per period (no difference of them); a scale written in digits ('US$'000') is a scale,
never a figure 0; a lone date in a table's label column dates the rows below it; 'A as a percentage of B' is a share,
no percentage change; a figure over two periods is of one series of columns."""

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

# one block of rows per date, each under a row that holds only its date in the labels' column
BLOCK_ROWS = [
    ["", "Gross Carrying Amount", "Accumulated Amortization", "Net"],
    ["", "", "(in millions)", ""],
    ["September 30, 2019", "", "", ""],
    ["Finite-lived:", "", "", ""],
    ["Customer lists", "$842.0", "$(311.6)", "$530.4"],
    ["Trade names", "6.8", "(2.9)", "3.9"],
    ["Indefinite-lived:", "", "", ""],
    ["Licences", "22.7", "—", "22.7"],
    ["September 30, 2018", "", "", ""],
    ["Finite-lived:", "", "", ""],
    ["Customer lists", "$839.5", "$(262.0)", "$577.5"],
    ["Trade names", "5.1", "(1.4)", "3.7"],
    ["Indefinite-lived:", "", "", ""],
    ["Licences", "24.6", "—", "24.6"],
]
BLOCKS_CSV = "Intangible assets ($ in millions)\n" + _csv(BLOCK_ROWS) + "\n"
BLOCKS_MD = "Intangible assets ($ in millions)\n\n| " + " | ".join(BLOCK_ROWS[0]) + " |\n|---|---|---|---|\n" + "\n".join(
    "| " + " | ".join(r) + " |" for r in BLOCK_ROWS[1:]) + "\n"

COSTS_MD = """Cost of revenue (in thousands)

|  | 2019 | 2018 |
|---|---|---|
| Products | $31,240 | $35,118 |
| Services | 18,470 | 17,902 |
| Total cost of revenue | $49,710 | $53,020 |
"""

DOCUMENTS = {"shares-csv": SHARES_CSV, "shares-md": SHARES_MD, "parent": PARENT_CSV, "yuan": YUAN_MD,
             "blocks-csv": BLOCKS_CSV, "blocks-md": BLOCKS_MD, "costs": COSTS_MD}


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


@pytest.mark.parametrize("section", ["blocks-csv", "blocks-md"])
def test_a_row_holding_only_a_date_dates_the_rows_below_it(audit, section: str) -> None:
    licences = "The net carrying amount of licences as of September 30, {} was ${} million."
    assert audit(section, licences.format(2019, "22.7"), "22.7").verdict is Verdict.VERIFIED
    assert audit(section, licences.format(2018, "24.6"), "24.6").verdict is Verdict.VERIFIED
    # 24.6 stands in the block of September 30, 2018: no figure of 2019, nor 22.7 one of 2018
    assert _flagged(audit(section, licences.format(2019, "24.6"), "24.6"))
    assert _flagged(audit(section, licences.format(2018, "22.7"), "22.7"))
    total = "The net total of trade names and licences as of September 30, 2019 came to ${} million."
    right = audit(section, total.format("26.6"), "26.6")  # 3.9 + 22.7
    assert right.verdict is Verdict.DERIVED, right.notes
    assert _flagged(audit(section, total.format("28.3"), "28.3"))  # 3.7 + 24.6: the 2018 block's cells


def test_a_share_named_as_a_percentage_of_a_total_is_no_percentage_change(audit) -> None:
    share = "The proportion of products as a percentage of the total cost of revenue in 2019 was {} percent."
    right = audit("costs", share.format("63"), "63")  # 31,240 / 49,710 = 62.8%
    assert right.verdict is Verdict.DERIVED, right.notes
    # 59% = (49,710 - 31,240) / 31,240: a percentage change from products to the total, no share of it
    assert _flagged(audit("costs", share.format("59"), "59"))
    change = audit("costs", "The percentage change in total cost of revenue from 2018 to 2019 was -6.2%.", "-6.2%")
    assert change.verdict is Verdict.DERIVED, change.notes  # (49,710 - 53,020) / 53,020


@pytest.mark.parametrize("section", ["blocks-csv", "blocks-md"])
def test_a_change_over_periods_is_of_one_series(audit, section: str) -> None:
    change = "The change in the gross carrying amount of customer lists between 2018 and 2019 was ${} million."
    right = audit(section, change.format("2.5"), "2.5")  # 842.0 - 839.5, the 'Gross Carrying Amount' series
    assert right.verdict is Verdict.DERIVED, right.notes
    # 264.5 = 842.0 (gross, 2019) - 577.5 (net, 2018): two columns named apart by more than their dates
    assert _flagged(audit(section, change.format("264.5"), "264.5")), "a change across two series"
    assert _flagged(audit(section, change.format("-47.1"), "-47.1"))  # 530.4 - 577.5: the net series
