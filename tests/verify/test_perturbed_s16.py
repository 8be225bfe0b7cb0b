"""Issue 10, trust (stop 16): wrong figures that passed as `verified` or `derived`, over real captured runs, each rule
with the true sentence covered and the wrong one flagged: a header cell of a scale's zeros ('$000') is the column's
scale, never a figure 0; a header row holding one period dates every column below it; a full stop before closing
markup ends a sentence; 'A as a percentage of B' is a share of B, never a change, of table cells or prose figures;
a footnote mark after a cell's figure ('31,240(1)') is no part of it, and '―' is an empty cell."""

from __future__ import annotations

import pytest

from pytest_auditfence import Verdict
from test_perturbed_s14 import COSTS_MD  # the cost of revenue table of stop 14, 2019 and 2018
from tool_runs import section_auditor

COVERED = (Verdict.VERIFIED, Verdict.DERIVED)

ZEROS_MD = """Segment revenue

|  | 2019 | 2018 |
|---|---|---|
|  | $000 | $000 |
| Online games | 52,318 | 47,906 |
| Advertising | 9,775 | 11,402 |
"""

ZEROS_PDF = """Segment revenue

                          2019          2018
                          $000          $000
Online games            52,318        47,906
Advertising              9,775        11,402
"""

ZEROS_HTML = ("<p>Segment revenue</p><table><tr><td></td><td>2019</td><td>2018</td></tr>"
              "<tr><td></td><td>(000)</td><td>(000)</td></tr>"
              "<tr><td>Online games</td><td>52,318</td><td>47,906</td></tr>"
              "<tr><td>Advertising</td><td>9,775</td><td>11,402</td></tr></table>")

# one period, written over the last column only: it dates the table's every column
ONE_PERIOD_MD = """Cost of revenue (in thousands)

|  |  | 2019 |
|---|---|---|
|  | Amount | % of total |
| Products | 31,240 | 62.8% |
| Services | 18,470 | 37.2% |
"""

ONE_PERIOD_CSV = """Cost of revenue (in thousands)
,,2019
,Amount,% of total
Products,"31,240",62.8%
Services,"18,470",37.2%
"""

COSTS_PROSE = ("Cost of revenue. In 2019, products cost $31,240 thousand, out of a total cost of revenue of "
               "$49,710 thousand.\n")

MARKED_MD = """Cost of revenue (in thousands)

|  | 2019 | 2018 (a) |
|---|---|---|
| Products (1) | $31,240(1) | $35,118 |
| Services | 18,470 ¹ | ― |
| Licences | ― | 2,604* |
"""

WEB_PAGE2 = ("<html><body><p>Net sales for fiscal 2018 were $5.1 million.</p><p>Net sales were $6.3 million in "
             "fiscal 2019.</p></body></html>")
WEB_PAGE3 = ("<div>In the third quarter, net sales were $5.1 million.</div><div>Net sales were $6.3 million in the "
             "fourth quarter.</div>")

# a restructuring reserve in millions, and a table of amounts per employee beside their wholes
RESERVE_ROWS = [["", "Balances, January 31, 2018", "Additions", "Balances, January 31, 2019"],
                ["Employee termination costs", "$53.0", "$39.2", "$2.0"],
                ["Facility exit costs", "2.5", "3.2", "0.1"]]
RESERVE_NOTE = "\nThe plan included a reduction in force of approximately 1,027 employees.\n"
RESERVE_MD = "Restructuring reserve (Dollars in millions)\n\n| " + " | ".join(RESERVE_ROWS[0]) + " |\n|---|---|---|---|\n" + \
    "\n".join("| " + " | ".join(r) + " |" for r in RESERVE_ROWS[1:]) + "\n" + RESERVE_NOTE
RESERVE_CSV = "Restructuring reserve (Dollars in millions)\n" + "\n".join(
    ",".join(f'"{c}"' if "," in c else c for c in r) for r in RESERVE_ROWS) + "\n" + RESERVE_NOTE
RESERVE_HTML = "<p>Restructuring reserve (Dollars in millions)</p><table>" + "".join(
    "<tr>" + "".join(f"<td>{c}</td>" for c in r) + "</tr>" for r in RESERVE_ROWS) + "</table><p>" + RESERVE_NOTE + "</p>"
PER_EMPLOYEE_MD = """Workforce (in thousands, except employees)

|  | 2019 | 2018 |
|---|---|---|
| Revenue | $412,300 | $398,100 |
| Employees | 1,940 | 1,877 |
| Revenue per employee | $212.5 | $212.1 |
"""

DOCUMENTS = {"reserve-md": RESERVE_MD, "reserve-csv": RESERVE_CSV, "reserve-html": RESERVE_HTML,
             "per-employee": PER_EMPLOYEE_MD, "zeros-md": ZEROS_MD, "zeros-pdf": ZEROS_PDF, "zeros-html": ZEROS_HTML, "one-md": ONE_PERIOD_MD,
             "one-csv": ONE_PERIOD_CSV, "costs": COSTS_MD, "costs-prose": COSTS_PROSE, "marked": MARKED_MD,
             "web2": WEB_PAGE2, "web3": WEB_PAGE3}


@pytest.fixture
def audit(tmp_path):
    return section_auditor(tmp_path, DOCUMENTS)


def _flagged(record) -> bool:
    return record.verdict in (Verdict.UNSUPPORTED, Verdict.CONTRADICTED)


@pytest.mark.parametrize("section", ["zeros-md", "zeros-pdf", "zeros-html"])
def test_a_header_of_scale_zeros_scales_its_column(audit, section: str) -> None:
    right = audit(section, "Revenue from online games in 2019 was $52.3 million.", "52.3")
    assert right.verdict is Verdict.VERIFIED, right.notes
    assert _flagged(audit(section, "Revenue from online games in 2019 was $52.3 billion.", "52.3"))  # wrong scale
    assert _flagged(audit(section, "Revenue from online games in 2019 was $47.9 million.", "47.9"))  # 2018's column
    assert _flagged(audit(section, "Revenue from online games in 2019 was $54.1 million.", "54.1"))  # 3% off


@pytest.mark.parametrize("section", ["one-md", "one-csv"])
def test_a_lone_period_in_a_header_row_dates_every_column(audit, section: str) -> None:
    right = audit(section, "The cost of products in 2019 was $31,240 thousand.", "31,240")
    assert right.verdict is Verdict.VERIFIED, right.notes
    assert _flagged(audit(section, "The cost of products in 2018 was $31,240 thousand.", "31,240"))  # no 2018 column
    assert _flagged(audit(section, "The cost of products in 2019 was $31,240 million.", "31,240"))  # wrong scale


def test_a_percentage_of_a_total_is_a_share_never_a_change(audit) -> None:
    right = audit("costs", "The percentage of products in the total cost of revenue in 2019 was 63%.", "63")
    assert right.verdict is Verdict.DERIVED, right.notes  # 31,240 / 49,710
    # 59% = (49,710 - 31,240) / 31,240: a change from the part to the whole, which no one calls its percentage
    assert _flagged(audit("costs", "The percentage of products in the total cost of revenue in 2019 was 59%.", "59"))


def test_the_prose_operands_of_a_share_are_no_change(audit) -> None:
    share = "In 2019, products as a percentage of the total cost of revenue came to {}%."
    right = audit("costs-prose", share.format("62.8"), "62.8")
    assert right.verdict is Verdict.DERIVED, right.notes
    assert _flagged(audit("costs-prose", share.format("59.1"), "59.1"))  # (49,710 - 31,240) / 31,240
    assert _flagged(audit("costs-prose", share.format("37.2"), "37.2"))  # the rest's share, not products'


def test_a_footnote_mark_is_no_part_of_a_figure(audit) -> None:
    right = audit("marked", "The cost of products in 2019 was $31,240 thousand.", "31,240")
    assert right.verdict is Verdict.VERIFIED, right.notes
    assert audit("marked", "The cost of licences in 2018 was $2,604 thousand.", "2,604").verdict is Verdict.VERIFIED
    assert _flagged(audit("marked", "The cost of products in 2019 was $35,118 thousand.", "35,118"))  # 2018's
    assert _flagged(audit("marked", "The cost of products in 2019 was $31,240 million.", "31,240"))  # wrong scale
    assert _flagged(audit("marked", "The cost of products in 2019 was $31,241 thousand.", "31,241"))  # the mark's 1
    change = audit("marked", "The cost of products changed by -3,878 thousand from 2018 to 2019.", "-3,878")
    assert change.verdict is Verdict.DERIVED, change.notes


def test_a_full_stop_before_closing_markup_ends_a_sentence(audit) -> None:
    # 'the third quarter' of the first paragraph names no quarter of the next paragraph's figure
    assert audit("web3", "Net sales in the fourth quarter were $6.3 million.", "6.3").verdict is Verdict.VERIFIED
    assert audit("web3", "Net sales in the third quarter were $5.1 million.", "5.1").verdict is Verdict.VERIFIED
    assert _flagged(audit("web3", "Net sales in the third quarter were $6.3 million.", "6.3"))
    assert _flagged(audit("web2", "Net sales for fiscal 2018 were $6.3 million.", "6.3"))


@pytest.mark.parametrize("section", ["reserve-md", "reserve-csv", "reserve-html"])
def test_an_amount_per_employee_is_no_whole_amount(audit, section: str) -> None:
    whole = audit(section, "Employee termination costs at January 31, 2018 were $0.05 billion.", "0.05")
    assert whole.verdict is Verdict.VERIFIED, whole.notes  # $53.0 million, restated at the shown precision
    # the whole amount is no amount per employee: $53.0 million is not $0.05 billion per employee
    per = "The average employee termination cost per employee at January 31, 2018 was {}."
    assert _flagged(audit(section, per.format("0.05 billion"), "0.05"))
    assert _flagged(audit(section, per.format("$53.0 million"), "53.0"))
    assert _flagged(audit(section, "Termination costs at January 31, 2018 came to $2.0 million per employee.", "2.0"))


def test_an_amount_per_employee_is_read_from_its_own_row(audit) -> None:
    right = audit("per-employee", "Revenue per employee in 2019 was $212.5 thousand.", "212.5")
    assert right.verdict is Verdict.VERIFIED, right.notes
    assert _flagged(audit("per-employee", "Revenue per employee in 2019 was $212.1 thousand.", "212.1"))  # 2018's
    assert _flagged(audit("per-employee", "Revenue per employee in 2019 was $212.5 million.", "212.5"))  # scale
