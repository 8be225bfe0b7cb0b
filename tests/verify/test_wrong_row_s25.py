"""Issue 10, trust (stop 25): wrong-row figures that passed, over real captured runs, each rule with the true
sentence covered and the wrong one flagged: a long row label is named by the clause's every word, so a figure of
its subject is derived from its own cells only, never from a chance pair of other rows' cells; two rows under one
section row ('Interest income' and 'Interest expense' under 'Other income (expense):') share its words alike, so
the words of their own labels tell them apart; in a roll-forward, a row dated by its own label ('Balances at
December 31, 2018') is a balance, never an item summed with the movements of its column."""

from __future__ import annotations

import json

import pytest

from pytest_auditfence import Verdict
from test_qualifier_axes_s23 import _csv, _flagged, _html, _markdown  # stop 23's table forms
from tool_runs import section_auditor


def _json_table(caption: str, rows: list[list[str]]) -> str:
    return json.dumps({"caption": caption, "table": rows})


def _forms(caption: str, rows: list[list[str]]) -> dict[str, str]:
    return {"md": f"{caption}\n\n{_markdown(rows)}", "csv": f"{caption}\n{_csv(rows)}",
            "html": f"<p>{caption}</p>{_html(rows)}", "json": _json_table(caption, rows)}


INVESTMENT_ROWS = [["", "2019", "2018"],
                   ["Accounted for at cost, adjusted for observable price changes", "$2,400", "$1,600"],
                   ["Accounted for using the equity method", "9,200", "—"],
                   ["Total non-marketable investments", "$11,600", "$1,600"]]

OTHER_INCOME_ROWS = [["", "2019", "2018"],
                     ["Other income (expense):", "", ""],
                     ["Interest income", "$3,120", "$1,870"],
                     ["Interest expense", "(4,650)", "(720)"],
                     ["Foreign exchange loss, net", "(410)", "(2,980)"],
                     ["Total other income (expense), net", "$(1,940)", "$(1,830)"]]

GOODWILL_ROWS = [["", "Software", "Systems", "Total"],
                 ["Balances at December 31, 2017", "$3,200.0", "$1,450.0", "$4,650.0"],
                 ["Goodwill acquired", "510.0", "42.5", "552.5"],
                 ["Currency translation adjustments", "(12.0)", "(3.1)", "(15.1)"],
                 ["Balances at December 31, 2018", "$3,698.0", "$1,489.4", "$5,187.4"],
                 ["Goodwill acquired", "96.0", "860.0", "956.0"],
                 ["Currency translation adjustments", "4.2", "5.7", "9.9"],
                 ["Balances at December 31, 2019", "$3,798.2", "$2,355.1", "$6,153.3"]]

INVESTMENTS = {f"investments-{k}": v for k, v in _forms("Non-marketable investments (In thousands)", INVESTMENT_ROWS).items()}
OTHER_INCOME = {f"other-income-{k}": v for k, v in _forms("Other income (expense) (in thousands)", OTHER_INCOME_ROWS).items()}
GOODWILL = {f"goodwill-{k}": v for k, v in _forms("Carrying value of goodwill by segment", GOODWILL_ROWS).items()}
DOCUMENTS = {**INVESTMENTS, **OTHER_INCOME, **GOODWILL}


@pytest.fixture
def audit(tmp_path):
    return section_auditor(tmp_path, DOCUMENTS)


@pytest.mark.parametrize("section", sorted(INVESTMENTS))
def test_a_long_row_label_keeps_its_figures_to_its_own_cells(audit, section: str) -> None:
    change = ("We put the percentage change of the investments accounted for at cost, adjusted for observable price "
              "changes between 2018 and 2019 at {}.")
    right = audit(section, change.format("50%"), "50%")  # (2,400 - 1,600) / 1,600
    assert right.verdict is Verdict.DERIVED, right.notes
    # (9,200 - 1,600) / 1,600: the equity method row's 2019 cell over this row's 2018 one
    assert _flagged(audit(section, change.format("475%"), "475%"))
    # the other row's own change is still derived from its own cells... and the total's
    total = audit(section, "The change in total non-marketable investments between 2018 and 2019 came to "
                           "$10,000 thousand.", "10,000")
    assert total.verdict is Verdict.DERIVED, total.notes


@pytest.mark.parametrize("section", sorted(OTHER_INCOME))
def test_rows_under_one_section_are_told_apart_by_their_own_words(audit, section: str) -> None:
    income = "We put the interest income in 2019 and 2018 at {} and $1.87 million, respectively."
    right = audit(section, income.format("$3.12 million"), "3.12")
    assert right.verdict is Verdict.VERIFIED, right.notes
    assert _flagged(audit(section, income.format("-$4.65 million"), "4.65"))  # 'Interest expense', 2019
    # the neighbouring row backs its own figures, and not the income row's
    expense = "We put the interest expense in 2019 and 2018 at -$4.65 million and {}, respectively."
    own = audit(section, expense.format("-$0.72 million"), "0.72")
    assert own.verdict is Verdict.VERIFIED, own.notes
    assert _flagged(audit(section, expense.format("$1.87 million"), "1.87"))  # 'Interest income', 2018


@pytest.mark.parametrize("section", sorted(GOODWILL))
def test_a_balance_row_is_no_item_of_its_columns_movements(audit, section: str) -> None:
    acquired = "We put the total goodwill acquired in the Systems segment from 2018 to 2019 at {}."
    right = audit(section, acquired.format("902.5"), "902.5")  # 42.5 + 860.0
    assert right.verdict is Verdict.DERIVED, right.notes
    # 42.5 + 1,489.4: the 2018 acquisitions and the balance at the end of 2018
    assert _flagged(audit(section, acquired.format("1,531.9"), "1,531.9"))
    # the balances themselves still give their change
    growth = audit(section, "The percentage change in the balance of goodwill of the Systems segment in 2019 "
                            "compared to 2018 came to 58.12%.", "58.12%")
    assert growth.verdict is Verdict.DERIVED, growth.notes
