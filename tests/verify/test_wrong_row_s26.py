"""Issue 10, trust (stop 26): wrong-row figures that passed, over real captured runs (`plan` asks for a tool, a
`ToolNode` runs it, `write` returns the report) in every form a tool returns a table in, each rule with its
negative:
- 'state' names a subject as a noun ('Current: State' of an income tax table, 'current state tax'), so the
  'Current: Federal' row no longer ties with it; as the verb of a text ('the sources state that ...') it names
  none, so the 'State' row does not outname the row a claim so worded names;
- a 'Total' column of a row split into maturity buckets backs no claim naming one of the row's own buckets (the
  bucket's cell is the claim's), while a claim naming a span that no column of the row holds ('within five years'
  where the later bucket is nil) is still backed by it;
- a figure written in words with a dimension of its own ('twenty percent', 'nine million dollars') that the sources
  state nowhere, in digits or in words, is flagged like its digits; a spelled count ('five stores') and a spelled
  figure the sources state about something else stay unchecked, as counts in digits do;
- a label repeated under two section rows that a claim names ('underlying rights and other for both finite-lived
  and indefinite-lived') is summed over its own rows, never with the total of one of those sections;
- a claim naming a year only is derived as the sum or mean of that year's quarter rows when all four stand in its
  column; one quarter's cell, or three quarters, back no year claim."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_auditfence import Verdict
from test_false_alarms_s14 import _check
from test_quarter_rows_s25 import TABLES as QUARTER_TABLES
from test_table_captions_s16 import FORMS, table_auditor
from test_tables_s24 import TABLES as TABLES_S24
from tool_runs import COVERED, FLAGGED, one_section_auditor

TABLES = {
    "income taxes": ("Table 1 Components of income tax expense", [
        ["", "2019", "2018"],
        ["Current: Federal", "$1,139,927", "$1,294,253"],
        ["Current: State", "428,501", "423,209"],
        ["", "1,568,428", "1,717,462"],
        ["Deferred: Federal", "34,466", "(470,166)"],
        ["Deferred: State", "6,106", "(83,296)"],
        ["", "40,572", "(553,462)"],
        ["Income tax expense", "$1,609,000", "$1,164,000"]],
        "The components of income tax expense from operations for fiscal 2019 and fiscal 2018 consisted of the "
        "following."),
    # Total | Less than 1 year | 1-3 years | 3-5 years | More than 5 years
    "obligations": TABLES_S24["obligations"],
    # quarter rows under one year's columns: an Item 5 stock price table and a quarterly results table
    "stock prices": QUARTER_TABLES["stock prices"],  # First Quarter ... Fourth Quarter under 2018 | Low | High
    "quarters": ("Table 2 Quarterly results (in thousands)", [
        ["", "2019", ""],
        ["", "Net revenue", "Gross profit"],
        ["First Quarter", "1,200", "400"],
        ["Second Quarter", "1,350", "450"],
        ["Third Quarter", "1,410", "470"],
        ["Fourth Quarter", "1,640", "560"]],
        "Unaudited quarterly results of operations:"),
    # one label under two section rows, each section closed by its total
    "intangibles": ("Table 3 Identifiable intangible assets, net (in millions)", [
        ["", "2019", "2018"],
        ["Finite-lived intangible assets:", "", ""],
        ["Customer relationships", "1,098.9", "1,191.4"],
        ["Underlying rights and other", "1.9", "2.1"],
        ["Total finite-lived intangible assets", "1,100.8", "1,193.5"],
        ["Indefinite-lived intangible assets:", "", ""],
        ["Certifications", "3.5", "3.5"],
        ["Underlying rights and other", "14.5", "15.1"],
        ["Total indefinite-lived intangible assets", "18.0", "18.6"]],
        "Identifiable intangible assets as of June 30 were as follows:"),
}

ALL_FORMS = sorted([*FORMS, "records"])


@pytest.fixture
def audit(tmp_path: Path):
    return table_auditor(tmp_path, TABLES)


@pytest.mark.parametrize("form", ALL_FORMS)
def test_state_as_a_noun_names_its_row(audit, form: str) -> None:
    _check(audit, form, "income taxes",
           [("The current state tax in 2019 was 428,501.", "428,501"),
            ("The current federal tax in 2018 was $1,294,253.", "$1,294,253")],
           # the federal row's figure claimed of the state row, and the other way round
           [("The current state tax in 2018 was 1,294,253.", "1,294,253"),
            ("The current state tax in 2019 was $1,139,927.", "$1,139,927"),
            ("The current federal tax in 2019 was 428,501.", "428,501")])


@pytest.mark.parametrize("form", ALL_FORMS)
def test_state_as_the_verb_of_a_text_names_no_row(audit, form: str) -> None:
    # the negative: 'the sources state' must not make the 'State' rows the claim's
    _check(audit, form, "income taxes",
           [("The sources state that the current federal tax in 2019 was $1,139,927.", "$1,139,927"),
            ("The filings do not state more than that the current federal tax in 2018 was $1,294,253.", "$1,294,253")],
           [("The sources state that the current federal tax in 2019 was $428,501.", "$428,501")])


@pytest.mark.parametrize("form", ALL_FORMS)
def test_a_total_column_backs_a_span_no_column_of_its_row_holds(audit, form: str) -> None:
    # the negative of test_maturity_total_s25: 1,020 + 2,050 + 1,442 = 4,512 is all of the operating leases, due
    # within five years as the 'More than 5 years' bucket is nil, so the Total cell is the claim's figure
    _check(audit, form, "obligations",
           [("The operating lease obligations due within five years were $4,512 thousand.", "$4,512 thousand"),
            ("The operating lease obligations due in 1-3 years were $2,050 thousand.", "$2,050 thousand")],
           [("The operating lease obligations due within five years were $4,521 thousand.", "$4,521 thousand"),
            ("The operating lease obligations due in 1-3 years were $4,512 thousand.", "$4,512 thousand")])


RESULTS = ("Results for 2019. Revenue grew 12% to $4.1 million, driven by two new products. We opened 7 stores and "
           "closed three stores. Operating margin was 8 percent.")


@pytest.mark.parametrize(("sentence", "figure", "verdicts"), [
    ("Revenue grew twelve percent in 2019.", "twelve percent", COVERED),
    ("Operating margin was eight percent in 2019.", "eight percent", COVERED),
    ("Revenue was four million dollars in 2019.", "four million dollars", COVERED),  # $4.1 million as shown
    ("The company closed three stores in 2019.", "three stores", COVERED),
    # invented, stated nowhere in digits or words: flagged
    ("Revenue grew twenty percent in 2019.", "twenty percent", FLAGGED),
    ("Operating margin was nine percent in 2019.", "nine percent", FLAGGED),
    ("Revenue was nine million dollars in 2019.", "nine million dollars", FLAGGED),
    # the negatives: a spelled count found nowhere, and a spelled figure the source states of another subject ('7
    # stores'), stay unchecked (a writer's count, or a chance match, as often as not)
    ("The company opened five stores in 2019.", "five", (Verdict.UNVERIFIABLE,)),
    ("Operating margin was seven percent in 2019.", "seven percent", (Verdict.UNVERIFIABLE,)),
])
def test_a_spelled_figure_with_a_dimension_stated_nowhere_is_flagged(tmp_path: Path, sentence: str, figure: str,
                                                                      verdicts: tuple[Verdict, ...]) -> None:
    record = one_section_auditor(tmp_path, RESULTS)(sentence, figure)
    assert record.verdict in verdicts, (sentence, record.verdict, record.notes)


# (PDF page text too: a spanning year line heads each sub-header it stands over, 'Low' and 'High' alike)
@pytest.mark.parametrize("form", ALL_FORMS)
def test_a_year_is_the_sum_or_mean_of_all_its_quarters(audit, form: str) -> None:
    # (21.40 + 22.75 + 24.05 + 19.60) / 4 = 21.95; 1,200 + 1,350 + 1,410 + 1,640 = 5,600
    _check(audit, form, "stock prices",
           [("The average quarterly low sale price of the common stock in 2018 was $21.95.", "$21.95"),
            ("The low sale price of the common stock in the second quarter of 2018 was $22.75.", "$22.75")],
           [("The average quarterly low sale price of the common stock in 2018 was $21.59.", "$21.59"),  # invented
            ("The low sale price of the common stock in 2018 was $22.75.", "$22.75"),  # one quarter's
            # the mean of the first three quarters: a part of the year
            ("The average quarterly low sale price of the common stock in 2018 was $22.73.", "$22.73")])
    _check(audit, form, "quarters",
           # a sum is named ('total'): a year's price or balance is no sum of its quarters'
           [("The total net revenue in 2019 was $5,600 thousand.", "$5,600 thousand"),
            ("The total gross profit in 2019 was $1.88 million.", "$1.88 million")],
           [("The total net revenue in 2019 was $1,640 thousand.", "$1,640 thousand"),  # the fourth quarter's
            ("The total net revenue in 2019 was $3,960 thousand.", "$3,960 thousand"),  # three quarters
            ("The total gross profit in 2019 was $5,600 thousand.", "$5,600 thousand")])  # the other column's


@pytest.mark.parametrize("form", ALL_FORMS)
def test_a_label_under_two_sections_is_summed_without_a_sections_total(audit, form: str) -> None:
    _check(audit, form, "intangibles",
           # 1.9 + 14.5; the negatives: a section's total with a row of another label, and an item over its total
           [("The total underlying rights and other for both finite-lived and indefinite-lived intangible assets in "
             "2019 came to $16.4 million.", "$16.4 million"),
            ("The total finite-lived intangible assets plus the certifications came to $1,104.3 million in 2019.",
             "$1,104.3 million"),
            ("The underlying rights and other as a percentage of the total finite-lived intangible assets in 2019 "
             "was 0.17%.", "0.17%")],
           # 1,100.8 + 14.5: the finite-lived total summed with the other section's row of the claim's label
           [("The total underlying rights and other for both finite-lived and indefinite-lived intangible assets in "
             "2019 came to $1,115.3 million.", "$1,115.3 million"),
            ("The total underlying rights and other for both finite-lived and indefinite-lived intangible assets in "
             "2019 came to $16.1 million.", "$16.1 million")])
