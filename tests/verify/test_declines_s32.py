"""Issue 10, coverage and sign (stop 32), over real captured runs (`plan` asks for a tool, a `ToolNode` runs it,
`write` returns the report) in every form a tool returns a table in.

- A change the claim words with a direction ('fell 28.0%', 'was down', 'declined by', 'a decrease of', 'rose') is
  derived as the signed change of that direction only: an unsigned figure with a falling word is the size of a
  decline ((5,000 - 3,600) / 5,000), never of a rise, and a rising word never backs a decline; the same for amounts
  ('decreased by $1,400 thousand'), and for two negative figures by their size (an allowance from (23) to (135)
  rose). A figure written with its sign ('changed by -28.0%') is read as before; a falling figure is not the rise a
  column of signed changes states ('fell 28.0%' by '% Change 28.0%').
- A negative in parentheses with a space before the ')' ('(35,029 )', '(29 )') or after its currency sign ('$ (3,781)')
  is negative in every form; an aside in parentheses in prose ('new contracts (29 ) in the year') stays a figure as
  written.
- A row whose cells are all placeholders ('Regional films | — | — | —') is a row with no values, not a section
  row: the rows below it stay in the section above it.
The mechanisms were found on the tuning cells of eval/tatqa_cells.py (`--sets tatqa-cells --tatqa-split tuning`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from test_false_alarms_s14 import _check
from test_table_captions_s16 import table_auditor
from test_wrong_row_s27 import ALL_FORMS

TABLES = {
    # one row that fell 28.0% (5,000 to 3,600), one that rose 28.0% (10,000 to 12,800), a deduction that grew in
    # size (23 to 135), a loss written with minus signs that grew (168 to 238)
    "loans": ("Table 1 Impaired loans (in thousands)", [
        ["", "2019", "2018"],
        ["Recorded investment", "3,600", "5,000"],
        ["Unpaid principal balance", "12,800", "10,000"],
        ["Allowance for loan losses", "(135)", "(23)"],
        ["Net loss on sales of loans", "-238", "-168"]],
        "Impaired loans at the end of each year."),
    # negatives written with a space before the parenthesis, as page extraction leaves them; an aside in prose
    "contracts": ("Table 2 Contract balances (in thousands)", [
        ["", "2019", "2018"],
        ["Contract assets", "41,201", "38,774"],
        ["Significant financing component", "(11,022 )", "(35,029 )"],
        ["Lapse in statute of limitations", "(29 )", "(412 )"],
        ["Total other income (expense), net", "$ (3,781)", "$ (2,727)"]],
        "In 2019 the group signed new contracts (29 ) across the region."),
    # a row of dashes inside a section, above a row of the same section
    "films": ("Table 3 Films released", [
        ["", "2019", "2018", "2017"],
        ["International Only", "", "", ""],
        ["Hindi films", "7", "1", "3"],
        ["Regional films", "—", "—", "—"],
        ["Tamil films", "—", "—", "12"],
        ["India Only", "", "", ""],
        ["Hindi films", "1", "3", "1"],
        ["Regional films", "5", "6", "15"],
        ["Tamil films", "—", "0", "4"],
        ["Total", "13", "10", "35"]],
        "Films released in each fiscal year."),
    # a column of signed changes beside the periods
    "change column": ("Table 5 Revenue (in thousands)", [
        ["", "2019", "2018", "% Change"],
        ["Product revenue", "12,800", "10,000", "28.0%"],
        ["Service revenue", "3,600", "5,000", "(28.0)%"]],
        "Revenue by type."),
    # prose figures of two periods below a table that does not name the claim's subject
    "prose": ("Table 4 Headcount", [
        ["", "2019", "2018"],
        ["Employees", "412", "398"]],
        "Revenue fell from $5.0 million in 2018 to $3.6 million in 2019, while costs rose from $2.0 million in 2018 "
        "to $2.5 million in 2019."),
}


@pytest.fixture
def audit(tmp_path: Path):
    return table_auditor(tmp_path, TABLES)


@pytest.mark.parametrize("form", ALL_FORMS)
def test_a_percentage_decline_is_derived_by_its_falling_word(audit, form: str) -> None:
    _check(audit, form, "loans",
           [("Recorded investment fell 28.0% from 2018 to 2019.", "28.0%"),
            ("Recorded investment was down 28.0 percent in 2019 compared with 2018.", "28.0 percent"),
            ("Between 2018 and 2019, recorded investment declined by 28.0%.", "28.0%"),
            ("Recorded investment showed a 28.0% decrease from 2018 to 2019.", "28.0%"),
            ("Recorded investment changed by -28.0% from 2018 to 2019.", "-28.0%"),  # signed, as before
            ("Unpaid principal balance rose 28.0% from 2018 to 2019.", "28.0%")],
           [("Recorded investment rose 28.0% from 2018 to 2019.", "28.0%"),  # the wrong direction
            ("Unpaid principal balance fell 28.0% from 2018 to 2019.", "28.0%"),  # a rise of 28.0% claimed a fall
            ("Unpaid principal balance was down 28.0% in 2019 compared with 2018.", "28.0%"),
            ("Recorded investment fell 38.9% from 2018 to 2019.", "38.9%"),  # over the later value
            ("Recorded investment fell 26.0% from 2018 to 2019.", "26.0%")])  # the wrong magnitude


@pytest.mark.parametrize("form", ALL_FORMS)
def test_a_fall_is_no_rise_of_a_change_column(audit, form: str) -> None:
    _check(audit, form, "change column",
           [("Product revenue rose 28.0% from 2018 to 2019.", "28.0%"),
            ("Service revenue fell 28.0% from 2018 to 2019.", "28.0%"),
            ("Service revenue changed by -28.0% from 2018 to 2019.", "-28.0%")],
           [("Product revenue fell 28.0% from 2018 to 2019.", "28.0%"),  # the column's 28.0% is a rise
            ("Product revenue was down 28.0% in 2019 compared with 2018.", "28.0%"),
            ("Service revenue rose 28.0% from 2018 to 2019.", "28.0%")])


@pytest.mark.parametrize("form", ALL_FORMS)
def test_a_change_in_amount_is_of_its_direction(audit, form: str) -> None:
    _check(audit, form, "loans",
           [("From 2018 to 2019, recorded investment decreased by $1,400 thousand.", "$1,400"),
            ("Unpaid principal balance rose by $2,800 thousand from 2018 to 2019.", "$2,800"),
            # a signed figure keeps its own sign whatever the word: an increase of -1,400 is a fall
            ("The increase in recorded investment from 2018 to 2019 was -$1,400 thousand.", "-$1,400"),
            # words of both directions name a signed change, of either direction
            ("The increase / (decrease) in unpaid principal balance from 2018 to 2019 was $2,800 thousand.", "$2,800"),
            ("The increase (decrease) in recorded investment from 2018 to 2019 was -$1,400 thousand.", "-$1,400")],
           [("From 2018 to 2019, recorded investment increased by $1,400 thousand.", "$1,400"),  # the wrong direction
            ("The increase in unpaid principal balance from 2018 to 2019 was -$2,800 thousand.", "-$2,800"),
            ("Unpaid principal balance fell by $2,800 thousand from 2018 to 2019.", "$2,800"),
            ("From 2018 to 2019, recorded investment decreased by $1,500 thousand.", "$1,500")])  # the wrong size


@pytest.mark.parametrize("form", ALL_FORMS)
def test_two_negatives_move_by_their_size(audit, form: str) -> None:
    _check(audit, form, "loans",
           [("Allowance for loan losses rose by $112 thousand from 2018 to 2019.", "$112"),
            ("Allowance for loan losses rose 487.0% from 2018 to 2019.", "487.0%"),
            ("Net loss on sales of loans rose by $70 thousand from 2018 to 2019.", "$70"),
            ("The change in net loss on sales of loans from 2018 to 2019 was -$70 thousand.", "-$70")],
           [("Allowance for loan losses fell by $112 thousand from 2018 to 2019.", "$112"),  # the size grew
            ("Allowance for loan losses fell 487.0% from 2018 to 2019.", "487.0%"),
            ("Net loss on sales of loans fell by $70 thousand from 2018 to 2019.", "$70"),
            ("Net loss on sales of loans fell 41.7% from 2018 to 2019.", "41.7%")])


@pytest.mark.parametrize("form", ALL_FORMS)
def test_a_negative_with_a_space_before_its_parenthesis(audit, form: str) -> None:
    _check(audit, form, "contracts",
           [("Significant financing component amounted to -$35.029 million in 2018.", "-$35.029"),
            ("Significant financing component was $(11,022) thousand in 2019.", "$(11,022)"),
            ("In 2019, lapse in statute of limitations came to -$29 thousand.", "-$29"),
            ("Total other income (expense), net amounted to -$3,781 thousand in 2019.", "-$3,781")],
           [("Significant financing component amounted to $35.029 million in 2018.", "$35.029"),  # the sign
            ("In 2019, lapse in statute of limitations came to $29 thousand.", "$29"),
            ("In 2019, lapse in statute of limitations came to -$412 thousand.", "-$412"),  # the other year
            ("Total other income (expense), net was $2,727 thousand in 2018.", "$2,727")])


@pytest.mark.parametrize("form", ["markdown", "pdf"])
def test_an_aside_in_parentheses_in_prose_keeps_its_figure(audit, form: str) -> None:
    _check(audit, form, "contracts",
           [("In 2019 the group signed 29 new contracts across the region.", "29")],
           [("In 2019 the group signed 31 new contracts across the region.", "31")])


@pytest.mark.parametrize("form", ALL_FORMS)
def test_a_row_of_dashes_is_no_section(audit, form: str) -> None:
    _check(audit, form, "films",
           [("For the year 2017, Tamil films in International Only came to 12.", "12"),
            ("For the year 2017, Tamil films in India Only came to 4.", "4"),
            ("For the year 2019, Hindi films in India Only came to 1.", "1")],
           [("For the year 2017, Tamil films in International Only came to 4.", "4"),  # India Only's
            ("For the year 2017, Tamil films in India Only came to 12.", "12")])  # International Only's


def test_a_change_between_prose_figures_has_its_direction(audit) -> None:
    _check(audit, "markdown", "prose",
           [("Revenue fell 28.0% in 2019.", "28.0%"),
            ("Costs rose 25.0% in 2019.", "25.0%")],
           [("Revenue rose 28.0% in 2019.", "28.0%"),  # the wrong direction
            ("Costs fell 25.0% in 2019.", "25.0%"),
            ("Revenue fell 38.9% in 2019.", "38.9%")])  # over the later figure
