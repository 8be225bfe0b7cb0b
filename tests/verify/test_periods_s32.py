"""Issue 10, trust (stop 32): a prose figure is evidence only for its own period, read from its sentence, over real
captured runs (`plan` asks for a tool, a `ToolNode` runs it, `write` returns the report) in every form a tool returns a
table in, and in plain prose. A sentence stating figures for several periods pairs each with its own: 'X for fiscal
2019 and Y for fiscal 2018', 'X for the year ended December 31, 2019 compared with Y for the year ended December 31,
2018', 'Y for that fiscal year' (the year its sentence named last), the ends of a move ('for 2019 ... decreased $1.7
million to $18.2 million from $19.9 million for 2018': the end it reaches is 2019's, the one it starts from 2018's). A
figure dated another period is no evidence for the claim's, and a figure whose period is not read (an undated range)
is none for a dated claim whose own period's cell holds another value: that cell contradicts it. A dated claim verified
by prose figures of no period read says so in its note. And a figure claimed for one period whose cell holds another
value is not derived from the row's other period ('$2,410 million in 2018' as 2018's $1,790 plus the variance $620,
where $2,410 is 2019's): it is contradicted by its cell. Each rule with its negatives: the right period's figure stays
covered, an undated claim keeps its evidence, a change from the variance column stays derived."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_auditfence import Verdict
from test_false_alarms_s14 import COVERED, FLAGGED, _check
from test_table_captions_s16 import table_auditor
from test_wrong_row_s27 import ALL_FORMS
from tool_runs import section_auditor

TABLES = {
    # a rate stated for each year in the table and again in the prose below, once 'for that fiscal year'
    "capital": ("Table 2 Return on capital", [
        ["", "2019", "2018"],
        ["Return on invested capital", "12.4%", "15.2%"],
        ["Cost of capital", "8.7%", "9.3%"],
        ["Excess return", "3.7%", "5.9%"]],
        "We review our cost of capital each year. Our cost of capital was 8.7% for fiscal year 2019 and 9.3% for "
        "fiscal year 2018. Fiscal 2019 return on invested capital of 12.4% reflects an excess return of 3.7%, based on "
        "our cost of capital of 8.7%, and fiscal 2018 return on invested capital of 15.2% reflects an excess return of "
        "5.9%, based on our cost of capital of 9.3% for that fiscal year."),
    # a move between two years' figures, stated in the sentence below the table
    "expenses": ("Table 4 Corporate segment (in millions)", [
        ["", "Years Ended December 31,", "", ""],
        ["", "2019", "2018", "Increase / (Decrease)"],
        ["General and administrative", "$18.2", "$19.9", "$(1.7)"],
        ["Depreciation", "0.4", "0.4", "—"],
        ["Operating loss", "$(18.6)", "$(20.3)", "$1.7"]],
        "General and administrative expenses of the corporate segment for the year ended December 31, 2019 decreased "
        "$1.7 million to $18.2 million from $19.9 million for the year ended December 31, 2018, driven by lower "
        "bonus expense."),
    # an undated range of the years the table states one by one
    "cash flow": ("Table 6 Liquidity ($ in billions)", [
        ["", "2019", "2018", "2017"],
        ["Net cash from operations", "$11.3", "$12.1", "$13.6"],
        ["Cash and marketable securities", "$6.2", "$7.4", "$8.1"]],
        "Operations have provided funds of between $11.3 billion and $13.6 billion per year over the past three years."),
    # a variance column beside two years' amounts
    "segment": ("Table 8 Consumer segment (in millions, except for percentages)", [
        ["", "Fiscal 2019", "Fiscal 2018", "Dollar variance", "Percent variance"],
        ["Net revenues", "$2,410", "$1,790", "$620", "35%"],
        ["Operating income", "$1,180", "$905", "$275", "30%"]],
        "Net revenues grew on the products acquired at the end of fiscal 2018."),
    # a 'Change' column beside each year's amounts and shares
    "revenue mix": ("Table 3 Revenue by type (dollars in thousands)", [
        ["", "2019", "", "2018", "", "Change", ""],
        ["Licenses", "$181,400", "88%", "$174,900", "86%", "$6,500", "4%"],
        ["Hosting", "48,350", "61%", "36,120", "58%", "12,230", "34%"],
        ["Advisory", "3,815", "2%", "17,260", "8%", "(13,445)", "(78)%"]],
        "Advisory revenue fell as customers moved to hosted arrangements."),
    # a total row under a section row, beside an 'Increase (Decrease)' amount column
    "cost": ("Table 5 Cost of revenue (in thousands)", [
        ["", "2019", "2018", "Increase (Decrease) Amount"],
        ["Cost of revenue:", "", "", ""],
        ["Products", "$28,940", "$33,120", "$(4,180)"],
        ["Services", "19,170", "17,905", "1,265"],
        ["Total cost of revenue", "$48,110", "$51,025", "$(2,915)"]],
        "Cost of revenue fell on lower product volumes."),
    # net losses in parentheses, stated as a positive figure for a fiscal year in the prose below
    "subscribers": ("Table 7 Subscriber statistics", [
        ["", "Fiscal 2019", "Fiscal 2018"],
        ["Broadband subscriber net additions (losses)", "2,105", "3,380"],
        ["Video subscriber net additions (losses)", "(1,240)", "(2,315)"]],
        "VIDEO Fiscal 2019 video subscriber net losses stood at 1,240 compared to 2,315 for the prior year, mainly "
        "from competitive offers."),
    # a number in a row's label ('Scope 1'), which a claim naming the row repeats
    "emissions": ("Table 9 Greenhouse gas emissions (tonnes CO2e)", [
        ["", "FY19", "FY18"],
        ["Combustion of fuel and operation of facilities (Scope 1)", "61,204", "63,877"],
        ["Electricity, heat, steam and cooling purchased for own use (Scope 2)", "17,350", "19,012"]],
        "Emissions fell on the move to renewable electricity."),
}


@pytest.fixture
def audit(tmp_path: Path):
    return table_auditor(tmp_path, TABLES)


@pytest.mark.parametrize("form", ALL_FORMS)
def test_a_figure_for_that_year_is_the_year_its_sentence_named_last(audit, form: str) -> None:
    _check(audit, form, "capital",
           [("Cost of capital was 8.7 percent in 2019.", "8.7 percent"),
            ("Cost of capital amounted to 9.3% in 2018.", "9.3%"),
            ("Our cost of capital was 9.3%.", "9.3%")],  # undated: either year's
           # the other year's rate, stated in the table and in prose for its own year
           [("Cost of capital amounted to 9.3 percent in 2019.", "9.3 percent"),
            ("Cost of capital was 8.7% in 2018.", "8.7%")])


@pytest.mark.parametrize("form", ALL_FORMS)
def test_the_ends_of_a_move_are_the_sentence_s_year_and_the_year_before(audit, form: str) -> None:
    _check(audit, form, "expenses",
           [("General and administrative expenses were $18.2 million in 2019.", "$18.2 million"),
            ("General and administrative expenses totalled $19.9 million for the year ended December 31, 2018.",
             "$19.9 million"),
            ("General and administrative expenses decreased by $1.7 million from 2018 to 2019.", "$1.7 million")],
           # the end the move reaches claimed for the year it starts from, and the reverse
           [("General and administrative expenses totalled $18.2 million for the year ended December 31, 2018.",
             "$18.2 million"),
            ("General and administrative expenses were $19.9 million in 2019.", "$19.9 million")])


@pytest.mark.parametrize("form", ALL_FORMS)
def test_an_undated_range_backs_no_year_whose_cell_holds_another_value(audit, form: str) -> None:
    _check(audit, form, "cash flow",
           [("Net cash from operations was $11.3 billion in 2019.", "$11.3 billion"),
            ("Net cash from operations came to $13.6 billion in 2017.", "$13.6 billion")],
           # the range's ends claimed for the years whose cells hold other values
           [("Net cash from operations totalled $13.6 billion in 2019.", "$13.6 billion"),
            ("Net cash from operations was $11.3 billion in 2017.", "$11.3 billion"),
            ("Net cash from operations was $13.6 billion in 2018.", "$13.6 billion")])


@pytest.mark.parametrize("form", ALL_FORMS)
def test_a_contradicting_cell_names_its_period(audit, form: str) -> None:
    record = audit(form, "cash flow", "Net cash from operations totalled $13.6 billion in 2019.", "$13.6 billion")
    assert record.verdict is Verdict.CONTRADICTED, (record.verdict, record.notes)
    assert any("2019 value" in note and "$11.3" in note for note in record.notes), record.notes


@pytest.mark.parametrize("form", ALL_FORMS)
def test_a_period_s_figure_is_not_the_other_period_plus_the_variance(audit, form: str) -> None:
    _check(audit, form, "segment",
           [("Net revenues totalled $2,410 million in 2019.", "$2,410 million"),
            ("Net revenues were $1,790 million in 2018.", "$1,790 million"),
            ("Net revenues rose by $620 million from 2018 to 2019.", "$620 million")],
           # 2019's revenue claimed for 2018 ($1,790 + $620), 2018's operating income claimed for 2019
           [("Net revenues totalled $2,410 million in 2018.", "$2,410 million"),
            ("Operating income totalled $905 million in 2019.", "$905 million")])
    record = audit(form, "segment", "Net revenues totalled $2,410 million in 2018.", "$2,410 million")
    assert record.verdict is Verdict.CONTRADICTED, (record.verdict, record.notes)


@pytest.mark.parametrize("form", ALL_FORMS)
def test_a_period_s_figure_is_not_the_other_period_less_the_change(audit, form: str) -> None:
    _check(audit, form, "revenue mix",
           [("Advisory revenue was $3.815 million in 2019.", "$3.815 million"),
            ("Advisory revenue decreased by $13,445 thousand from 2018 to 2019.", "$13,445 thousand"),
            ("Hosting revenue totalled $36,120 thousand in 2018.", "$36,120 thousand")],
           # 2019's advisory revenue as 2018's $17,260 plus the change (13,445)
           [("Advisory revenue totalled $3.815 million in 2018.", "$3.815 million"),
            ("Hosting revenue totalled $48,350 thousand in 2018.", "$48,350 thousand")])


PROSE = {
    "backlog": "Backlog. Backlog for the year ended December 31, 2019 decreased $3.2 million to $41.6 million from "
               "$44.8 million for the year ended December 31, 2018. Orders were $52.0 million in 2019 compared with "
               "$47.5 million in 2018. Deliveries were $48.1 million for fiscal 2019 and $45.9 million for fiscal 2018.",
    "undated": "Backlog. Backlog stood at $41.6 million, the highest in the company's history. Orders reached $52.0 "
               "million. Fiscal 2019 closed with record deliveries.",
    "opened": "Backlog. In 2019, backlog rose to $41.6 million from $38.4 million.",
}


@pytest.fixture
def prose(tmp_path: Path):
    return section_auditor(tmp_path, PROSE)


def test_a_prose_figure_is_its_own_period_s(prose) -> None:
    right = [("backlog", "Backlog was $41.6 million in 2019.", "$41.6 million"),
             ("backlog", "Backlog was $44.8 million in 2018.", "$44.8 million"),
             ("backlog", "Orders were $47.5 million in 2018.", "$47.5 million"),
             ("backlog", "Deliveries came to $45.9 million in 2018.", "$45.9 million"),
             ("opened", "Backlog reached $41.6 million in 2019.", "$41.6 million")]
    wrong = [("backlog", "Backlog was $44.8 million in 2019.", "$44.8 million"),
             ("backlog", "Orders were $52.0 million in 2018.", "$52.0 million"),
             ("backlog", "Deliveries came to $48.1 million in 2018.", "$48.1 million"),
             ("opened", "Backlog was $38.4 million in 2019.", "$38.4 million")]
    for section, sentence, figure in right:
        record = prose(section, sentence, figure)
        assert record.verdict in COVERED, (sentence, record.verdict, record.notes)
    for section, sentence, figure in wrong:
        record = prose(section, sentence, figure)
        assert record.verdict in FLAGGED, (sentence, record.verdict, record.notes)


def test_a_dated_claim_backed_by_a_figure_of_no_period_read_says_so(prose) -> None:
    dated = prose("undated", "Backlog was $41.6 million in 2019.", "$41.6 million")
    assert dated.verdict is Verdict.VERIFIED, (dated.verdict, dated.notes)
    assert any("period was not read" in note and "2019" in note for note in dated.notes), dated.notes
    undated = prose("undated", "Backlog was $41.6 million.", "$41.6 million")
    assert undated.verdict is Verdict.VERIFIED and not any("period" in note for note in undated.notes), undated.notes
    # a figure whose sentence dates it says nothing of the kind
    read = prose("backlog", "Orders were $52.0 million in 2019.", "$52.0 million")
    assert read.verdict is Verdict.VERIFIED and not any("period" in note for note in read.notes), read.notes


@pytest.mark.parametrize("form", ALL_FORMS)
def test_a_total_s_period_is_not_the_other_period_plus_the_change(audit, form: str) -> None:
    _check(audit, form, "cost",
           [("Total cost of revenue amounted to $48,110 thousand in 2019.", "$48,110"),
            ("Total cost of revenue decreased by $2,915 thousand from 2018 to 2019.", "$2,915")],
           [("Total cost of revenue amounted to $48,110 thousand in 2018.", "$48,110")])
    record = audit(form, "cost", "Total cost of revenue amounted to $48,110 thousand in 2018.", "$48,110")
    assert record.verdict is Verdict.CONTRADICTED, (record.verdict, record.notes)
    assert any("2018 value" in note and "51,025" in note for note in record.notes), record.notes


@pytest.mark.parametrize("form", ALL_FORMS)
def test_a_loss_stated_positive_for_its_fiscal_year_is_its_year_s(audit, form: str) -> None:
    _check(audit, form, "subscribers",
           # the cell '(1,240)' holds the loss the prose states as 1,240: no other value of the claim's year
           [("In 2019, video subscriber net losses stood at 1,240.", "1,240"),
            ("Video subscriber net losses were 2,315 in 2018.", "2,315")],
           [("Video subscriber net losses were 2,315 in 2019.", "2,315")])


@pytest.mark.parametrize("form", ALL_FORMS)
def test_a_number_of_the_row_s_label_is_no_value_of_its_period(audit, form: str) -> None:
    _check(audit, form, "emissions",
           [("The combustion of fuel and operation of facilities (Scope 1) in FY19 was 61,204.", "61,204")],
           [("The combustion of fuel and operation of facilities (Scope 1) in FY19 was 63,877.", "63,877")])
