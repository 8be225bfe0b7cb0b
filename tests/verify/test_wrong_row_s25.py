"""Issue 10, trust (stop 25): wrong-row figures that passed, over real captured runs, each rule with the true
sentence covered and the wrong one flagged, and the rows it sets apart still backing their own claims:
- a long row label is named by the clause's every word, so a figure of its subject is derived from its own cells
  only, never from a chance pair of other rows' cells;
- two rows under one section row ('Interest income' and 'Interest expense' under 'Other income (expense):')
  share its words alike, so the words of their own labels tell them apart;
- in a roll-forward, a row dated by its own label ('Balances at December 31, 2018') is a balance, never an item
  summed with the movements of its column;
- a claimed total is a row 'Total' alone rather than a row labelled by a date under a column the claim names;
- a row naming the side the claim names ('non-current') outnames a 'Total' naming no side of that axis;
- the difference of two averages is no one average;
- 'the first month' is the first row of a table of month periods, not the second."""

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


def _comes_out(audit, section: str, claim: str, figure: str, verdict: Verdict) -> None:
    found = audit(section, claim, figure)
    assert found.verdict is verdict, found.notes


def _told_apart(audit, section: str, claim: str, right: str, wrong: str, verdict: Verdict = Verdict.VERIFIED) -> None:
    """The claim comes out `verdict` with its right figure and is flagged with the wrong one."""
    _comes_out(audit, section, claim.format(right), right, verdict)
    assert _flagged(audit(section, claim.format(wrong), wrong))


@pytest.fixture
def audit(tmp_path):
    return section_auditor(tmp_path, DOCUMENTS)


@pytest.mark.parametrize("section", sorted(INVESTMENTS))
def test_a_long_row_label_keeps_its_figures_to_its_own_cells(audit, section: str) -> None:
    change = ("We put the percentage change of the investments accounted for at cost, adjusted for observable price "
              "changes between 2018 and 2019 at {}.")
    # (2,400 - 1,600) / 1,600, not (9,200 - 1,600) / 1,600: the equity method row's 2019 cell over this row's 2018 one
    _told_apart(audit, section, change, "50%", "475%", Verdict.DERIVED)
    # the other row's own change is still derived from its own cells... and the total's
    _comes_out(audit, section, "The change in total non-marketable investments between 2018 and 2019 came to "
               "$10,000 thousand.", "10,000", Verdict.DERIVED)


@pytest.mark.parametrize("section", sorted(OTHER_INCOME))
def test_rows_under_one_section_are_told_apart_by_their_own_words(audit, section: str) -> None:
    income = "We put the interest income in 2019 and 2018 at {} and $1.87 million, respectively."
    _told_apart(audit, section, income, "$3.12 million", "-$4.65 million")  # 'Interest expense', 2019
    # the neighbouring row backs its own figures, and not the income row's
    expense = "We put the interest expense in 2019 and 2018 at -$4.65 million and {}, respectively."
    _comes_out(audit, section, expense.format("-$0.72 million"), "0.72", Verdict.VERIFIED)
    assert _flagged(audit(section, expense.format("$1.87 million"), "1.87"))  # 'Interest income', 2018


@pytest.mark.parametrize("section", sorted(GOODWILL))
def test_a_balance_row_is_no_item_of_its_columns_movements(audit, section: str) -> None:
    acquired = "We put the total goodwill acquired in the Systems segment from 2018 to 2019 at {}."
    # 42.5 + 860.0, not 42.5 + 1,489.4: the 2018 acquisitions and the balance at the end of 2018
    _told_apart(audit, section, acquired, "902.5", "1,531.9", Verdict.DERIVED)
    # the balances themselves still give their change
    _comes_out(audit, section, "The percentage change in the balance of goodwill of the Systems segment in 2019 "
               "compared to 2018 came to 58.12%.", "58.12%", Verdict.DERIVED)


WARRANT_RECORDS = json.dumps({"caption": "Warrants outstanding", "rows": [
    {"line_item": "Mar 2012 - Feb 2014", "Outstanding as of December 31, 2019": "1,820,000", "Exercise price": "2.5 - 3.8"},
    {"line_item": "May-2018", "Outstanding as of December 31, 2019": "512,400", "Exercise price": "8"},
    {"line_item": "Nov - 2019", "Outstanding as of December 31, 2019": "730,000", "Exercise price": "6"},
    {"line_item": "Total", "Outstanding as of December 31, 2019": "3,062,400", "Exercise price": ""}]})
WARRANT_ROWS = [["", "Outstanding as of December 31, 2019", "Exercise price"],
                ["Mar 2012 - Feb 2014", "1,820,000", "2.5 - 3.8"],
                ["May-2018", "512,400", "8"],
                ["Nov - 2019", "730,000", "6"],
                ["Total", "3,062,400", ""]]
WARRANTS = {"warrants-records": WARRANT_RECORDS,
            **{f"warrants-{k}": v for k, v in _forms("Warrants outstanding", WARRANT_ROWS).items() if k != "json"}}

DERIVATIVE_ROWS = [["", "2018", "2019"],
                   ["Derivative liabilities carried at fair value through profit or loss", "", ""],
                   ["Interest rate swaps", "8,240", "45,310"],
                   ["Forward foreign exchange contracts", "1,105", "62"],
                   ["Derivative liabilities designated as hedging instruments", "", ""],
                   ["Cross currency swaps", "1,633", "—"],
                   ["Total", "10,978", "45,372"],
                   ["Derivative financial instruments, current liability", "2,310", "7,450"],
                   ["Derivative financial instruments, non-current liability", "8,668", "37,922"],
                   ["Total", "10,978", "45,372"]]
DERIVATIVES = {f"derivatives-{k}": v for k, v in _forms("Derivative liabilities (In thousands)", DERIVATIVE_ROWS).items()}
DOCUMENTS.update({**WARRANTS, **DERIVATIVES})


@pytest.mark.parametrize("section", sorted(WARRANTS))
def test_a_claimed_total_is_the_total_rows_not_a_dated_rows(audit, section: str) -> None:
    total = "We put the total warrants outstanding as of December 31, 2019 at {}."
    _told_apart(audit, section, total, "3,062,400", "730,000")  # the row 'Nov - 2019'
    # the dated row backs a claim about itself
    _comes_out(audit, section, "We put the warrants outstanding as of December 31, 2019 that were issued in November "
               "2019 at 730,000.", "730,000", Verdict.VERIFIED)


@pytest.mark.parametrize("section", sorted(DERIVATIVES))
def test_a_row_naming_the_claimed_side_outnames_a_total_naming_none(audit, section: str) -> None:
    sided = "The fair value of derivatives non-current liability in 2019 was {}."
    _told_apart(audit, section, sided, "37,922,000", "45,372,000")  # the 'Total' above, naming no side
    # a claim naming no side is still the total's; the current row backs its own side
    _comes_out(audit, section, "The total fair value of derivative liabilities in 2019 was $45,372 thousand.", "45,372",
               Verdict.VERIFIED)
    _comes_out(audit, section, "The fair value of derivatives current liability in 2018 was 2,310,000.", "2,310,000",
               Verdict.VERIFIED)


PAY_ROWS = [["", "2019", "2018"],
            ["Salaries and fees", "7.4", "6.6"],
            ["Incentive schemes", "2.6", "3.4"],
            ["Pension contributions", "0.8", "0.6"]]
PAY = {f"pay-{k}": v for k, v in _forms("Directors' remuneration (€ million)", PAY_ROWS).items()}
DOCUMENTS.update(PAY)


@pytest.mark.parametrize("section", sorted(PAY))
def test_a_difference_of_two_averages_is_no_one_average(audit, section: str) -> None:
    gap = "The difference between average salaries and fees and average incentive schemes from 2018 to 2019 came to {}."
    # (7.4 + 6.6) / 2 - (2.6 + 3.4) / 2, not the incentive schemes' mean alone
    _told_apart(audit, section, gap, "€4 million", "€3 million", Verdict.DERIVED)
    # each average on its own is still derived
    _comes_out(audit, section, "The average incentive schemes between 2018 and 2019 was €3 million.", "3",
               Verdict.DERIVED)


REPURCHASE_ROWS = [["Period", "Total Number of Shares Purchased", "Average Price Paid per Share"],
                   ["October 1, 2019 - October 31, 2019", "410", "$52.10"],
                   ["November 1, 2019 - November 30, 2019", "2,260", "$54.35"],
                   ["December 1, 2019 - December 31, 2019", "1,875", "$57.80"],
                   ["Total", "4,545", "$55.40"]]
REPURCHASES = {f"repurchases-{k}": v for k, v in
               _forms("Issuer purchases of equity securities (in thousands, except per share data)",
                      REPURCHASE_ROWS).items()}
DOCUMENTS.update(REPURCHASES)


@pytest.mark.parametrize("section", sorted(REPURCHASES))
def test_a_month_named_by_its_rank_is_that_row_of_month_periods(audit, section: str) -> None:
    first = "The number of shares purchased in the first month was {} thousand."
    _told_apart(audit, section, first, "410", "2,260")  # the second month's
    change = "The change in the total number of shares purchased between the second to third month period was {} thousand."
    _told_apart(audit, section, change, "-385", "1,465", Verdict.DERIVED)  # 1,875 - 2,260, not 1,875 - 410
    share = ("The total number of shares purchased in the first month as a percentage of total shares purchased in "
             "the three month period came to {}.")
    _told_apart(audit, section, share, "9.02 percent", "49.72 percent", Verdict.DERIVED)  # 410 / 4,545, not 2,260 / 4,545
    # a claim naming no month by rank: the total row, as before
    _comes_out(audit, section, "The total number of shares purchased in the three month period was 4,545 thousand.",
               "4,545", Verdict.VERIFIED)
