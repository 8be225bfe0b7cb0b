"""Issue 10, false alarms on true reports: rules that let a correct figure read from (or computed from) a
table be covered, each over real captured runs (`plan` asks for a tool, a `ToolNode` runs it, `write`
returns the report) in three forms a tool returns a table in: a JSON table, a markdown table under a
caption, the text of a PDF page. Every rule has its negative: the wrong period, row or figure is flagged."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from langchain_core.tools import tool

from pytest_auditfence import Verdict
from tool_runs import claim_of, tool_run_auditor

COVERED = (Verdict.VERIFIED, Verdict.DERIVED)
FLAGGED = (Verdict.CONTRADICTED, Verdict.UNSUPPORTED, Verdict.MISATTRIBUTED)


# -- one table, three forms: small negatives written in parentheses ('(598)', '(23)') ---------------------

OTHER_INCOME = [["", "2019", "2018"],
                ["Interest income", "2,515", "1,310"],
                ["Interest expense", "(5,940)", "(598)"],
                ["Allowance for expected credit losses", "(135)", "(23)"]]


def _markdown(caption: str, rows: list[list[str]]) -> str:
    lines = [caption, "", "| " + " | ".join(rows[0]) + " |", "|" + "---|" * len(rows[0])]
    return "\n".join(lines + ["| " + " | ".join(r) + " |" for r in rows[1:]]) + "\n"


def _page(caption: str, rows: list[list[str]]) -> str:
    width = max(len(r[0]) for r in rows) + 3
    lines = [caption, ""] + [r[0].ljust(width) + "   ".join(c.rjust(9) for c in r[1:]) for r in rows]
    return "\n".join(line.rstrip() for line in lines) + "\n"


FORMS = {
    "json": lambda caption, rows: json.dumps({"caption": caption, "table": rows}),
    "markdown": _markdown,
    "pdf": _page,
}


@tool
def get_table(form: str, table: str) -> str:
    """One table of the annual report, in the form asked for ('json', 'markdown' or 'pdf')."""
    caption, rows = TABLES[table]
    return FORMS[form](caption, rows)


TABLES: dict[str, tuple[str, list[list[str]]]] = {
    "other income": ("Other income (expense) (in thousands)", OTHER_INCOME),
}


@pytest.fixture
def audit(tmp_path: Path):
    run = tool_run_auditor(tmp_path, [get_table], "Answer the analyst's questions on the annual report.")

    def verdict(form: str, table: str, sentence: str, figure: str) -> Any:
        record = claim_of(run([("get_table", {"form": form, "table": table})], sentence), figure)
        return record

    return verdict


@pytest.mark.parametrize("form", sorted(FORMS))
def test_a_small_negative_in_parentheses_is_a_cell_figure(audit, form: str) -> None:
    # '(598)' alone in a cell is the negative an accountant writes, not a list's enumerator '(1)'
    record = audit(form, "other income", "Interest expense was -$598 thousand in 2018.", "-$598 thousand")
    assert record.verdict is Verdict.VERIFIED, record.notes
    record = audit(form, "other income",
                   "The change in the allowance for expected credit losses from 2018 to 2019 was -$112 thousand.",
                   "-$112 thousand")
    assert record.verdict is Verdict.DERIVED and "(-135)" in (record.formula or ""), record.notes
    record = audit(form, "other income", "The average interest expense for 2018 and 2019 was -$3,269 thousand.",
                   "-$3,269 thousand")
    assert record.verdict is Verdict.DERIVED, record.notes


@pytest.mark.parametrize("form", sorted(FORMS))
def test_a_small_negative_of_another_period_or_value_is_flagged(audit, form: str) -> None:
    for sentence, figure in [("Interest expense was -$598 thousand in 2019.", "-$598 thousand"),  # other period
                             ("Interest expense was -$589 thousand in 2018.", "-$589 thousand"),  # invented
                             ("Interest income was -$598 thousand in 2018.", "-$598 thousand"),  # other row
                             ("The change in the allowance for expected credit losses from 2018 to 2019 was "
                              "-$121 thousand.", "-$121 thousand")]:
        record = audit(form, "other income", sentence, figure)
        assert record.verdict in FLAGGED, (sentence, record.verdict, record.notes)


# -- a year's quarters as header rows ('Fiscal 2018' over 'First' over 'Quarter') -------------------------

QUARTERS = [["", "Fiscal 2018", "", "", "", ""],
            ["", "First Quarter", "Second Quarter", "Third Quarter", "Fourth Quarter", "Total"],
            ["Revenues", "88,081", "89,767", "93,669", "94,395", "365,912"],
            ["Gross profit", "37,443", "36,838", "38,187", "38,422", "150,890"]]


def _quarter_page(caption: str, rows: list[list[str]]) -> str:
    # page text sets the year over the quarters, and each quarter's words on two lines
    lines = [caption, "", " " * 60 + "Fiscal 2018",
             " " * 27 + "".join(w.rjust(11) for w in ("First", "Second", "Third", "Fourth")),
             " " * 27 + "".join(w.rjust(11) for w in ("Quarter", "Quarter", "Quarter", "Quarter", "Total"))]
    lines += [r[0].ljust(27) + "".join(c.rjust(11) for c in r[1:]) for r in rows[2:]]
    return "\n".join(lines) + "\n"


TABLES["quarters"] = ("Quarterly results ($ in thousands)", QUARTERS)
PAGE_FORMS = {"quarters": _quarter_page}


@tool
def get_page(table: str) -> str:
    """The text of the annual report's page that holds a table."""
    caption, rows = TABLES[table]
    return PAGE_FORMS[table](caption, rows)


@pytest.fixture
def audit_page(tmp_path: Path):
    run = tool_run_auditor(tmp_path, [get_page], "Answer the analyst's questions on the annual report.")
    return lambda table, sentence, figure: claim_of(run([("get_page", {"table": table})], sentence), figure)


QUARTER_CLAIMS = [
    ("Revenue in the first quarter of fiscal 2018 as a percentage of the total revenue that year was 24.07%.",
     "24.07%", Verdict.DERIVED),
    ("The change in revenues between the second and first quarter in fiscal 2018 was $1,686 thousand.",
     "$1,686 thousand", Verdict.DERIVED),
    ("Revenue in the fiscal 2018 third quarter was $93.669 million.", "$93.669 million", Verdict.VERIFIED),
]
QUARTER_WRONG = [
    # another quarter's cell, another quarter's share, and a difference of other quarters
    ("Revenue in the fiscal 2018 second quarter was $93.669 million.", "$93.669 million"),
    ("Revenue in the second quarter of fiscal 2018 as a percentage of the total revenue that year was 24.07%.",
     "24.07%"),
    ("The change in revenues between the fourth and third quarter in fiscal 2018 was $1,686 thousand.",
     "$1,686 thousand"),
    ("Gross profit in the first quarter of fiscal 2018 was $37,443 million.", "$37,443 million"),  # wrong scale
]


# page text of this table is `_quarter_page` (the year centred over its quarters), not the generic `_page`
QUARTER_FORMS = ["json", "markdown", "page"]


@pytest.mark.parametrize("form", QUARTER_FORMS)
def test_a_quarter_column_under_its_year_backs_that_quarter(audit, audit_page, form: str) -> None:
    for sentence, figure, verdict in QUARTER_CLAIMS:
        record = audit_page("quarters", sentence, figure) if form == "page" else audit(form, "quarters", sentence, figure)
        assert record.verdict is verdict, (sentence, record.verdict, record.notes)


@pytest.mark.parametrize("form", QUARTER_FORMS)
def test_another_quarters_cell_is_flagged(audit, audit_page, form: str) -> None:
    for sentence, figure in QUARTER_WRONG:
        record = audit_page("quarters", sentence, figure) if form == "page" else audit(form, "quarters", sentence, figure)
        assert record.verdict in FLAGGED, (sentence, record.verdict, record.notes)


# -- page text: a header line wider than prose, and a line that only states the scale ---------------------

COST_PAGE = """Table 1 Cost of revenue

                                             Fiscal years ended July 31,
                                                                    2019                                                      2018                         Change
                                                                  Amount   % of total revenue                               Amount   % of total revenue       ($)   (%)
                                                                                                (In thousands, except percentages)
Cost of revenue:
License and subscription                                      $ 64,798                   9%                             $ 35,452                   5%    29,346    83
Services                                                       243,053                   34                              246,548                   38   (3,495)   (1)
Total cost of revenue                                        $ 324,350                  45%                              296,783                  45%    27,567     9
"""
TABLES["cost of revenue"] = ("", [])
PAGE_FORMS["cost of revenue"] = lambda caption, rows: COST_PAGE


def test_a_wide_page_header_dates_its_columns_and_a_scale_line_is_no_column(audit_page) -> None:
    for sentence, figure, verdict in [
        ("The average services cost for 2018 and 2019 was $244.8005 million.", "$244.8005 million", Verdict.DERIVED),
        ("Total cost of revenue was $296,783 thousand in 2018.", "$296,783 thousand", Verdict.VERIFIED),
    ]:
        record = audit_page("cost of revenue", sentence, figure)
        assert record.verdict is verdict, (sentence, record.verdict, record.notes)
    for sentence, figure in [
        ("Total cost of revenue was $296,783 thousand in 2019.", "$296,783 thousand"),  # the other year
        ("The average services cost for 2018 and 2019 was $245.8005 million.", "$245.8005 million"),  # invented
        ("Total cost of revenue was 296,783% in 2018.", "296,783%"),  # an amount is no percentage
    ]:
        record = audit_page("cost of revenue", sentence, figure)
        assert record.verdict in FLAGGED, (sentence, record.verdict, record.notes)


# -- records rendered as rows: a record of words only is the section of the records below it ---------------

TAX_RECORDS = [{"line_item": "United Kingdom corporation tax expense:", "2019 €m": "", "2018 €m": ""},
               {"line_item": "Current year", "2019 €m": "21", "2018 €m": "70"},
               {"line_item": "Overseas current tax expense:", "2019 €m": "", "2018 €m": ""},
               {"line_item": "Current year", "2019 €m": "1,098", "2018 €m": "1,055"},
               {"line_item": "Total current tax expense", "2019 €m": "1,119", "2018 €m": "1,125"}]


@tool
def get_records(note: str) -> str:
    """A note of the annual report as JSON records, one per line item."""
    return json.dumps({"caption": "Taxation (in millions)", "rows": TAX_RECORDS})


@pytest.fixture
def audit_records(tmp_path: Path):
    run = tool_run_auditor(tmp_path, [get_records], "Answer the analyst's questions on the annual report.")
    return lambda sentence, figure: claim_of(run([("get_records", {"note": "taxation"})], sentence), figure)


def test_a_record_of_words_only_heads_the_records_below_it(audit_records) -> None:
    record = audit_records("The 2019 United Kingdom corporation current year tax expense was €21 million.", "€21 million")
    assert record.verdict is Verdict.VERIFIED, record.notes
    record = audit_records("The 2018 overseas current year tax expense was €1,055 million.", "€1,055 million")
    assert record.verdict is Verdict.VERIFIED, record.notes
    for sentence, figure in [
        ("The 2019 United Kingdom corporation current year tax expense was €1,098 million.", "€1,098 million"),
        ("The 2019 United Kingdom corporation current year tax expense was €70 million.", "€70 million"),
        ("The 2019 overseas current year tax expense was €21 million.", "€21 million"),
    ]:
        record = audit_records(sentence, figure)
        assert record.verdict in FLAGGED, (sentence, record.verdict, record.notes)


# -- a Title Case row is named by its words, not by the initials of its capitalised run --------------------

OBLIGATIONS = [["Contractual obligations", "2019", "2018"],
               ["Operating Lease Obligations", "840", "1,960"],
               ["Purchase Commitments", "1,500", "700"],
               ["Total Contractual Obligations", "2,340", "2,660"]]
TABLES["obligations"] = ("Contractual obligations (in thousands)", OBLIGATIONS)


@pytest.mark.parametrize("form", sorted(FORMS))
def test_a_title_case_row_is_named_by_its_words(audit, form: str) -> None:
    record = audit(form, "obligations", "Operating lease obligations were $1,960 thousand in 2018.", "$1,960 thousand")
    assert record.verdict is Verdict.VERIFIED, record.notes
    # the row the claim names holds another value: a contradiction that cites the row's cell
    record = audit(form, "obligations", "Operating lease obligations were $1,690 thousand in 2018.", "$1,690 thousand")
    assert record.verdict is Verdict.CONTRADICTED and "1,960" in " ".join(record.notes), record.notes
    # a claim about the part is not contradicted by the total row, nor backed by it
    record = audit(form, "obligations", "Contractual obligations were $2,340 thousand in 2018.", "$2,340 thousand")
    assert record.verdict in FLAGGED, record.notes


def test_a_label_naming_a_period_among_words_is_the_rows_label_a_bare_date_is_not() -> None:
    from pytest_auditfence.verify.tables import read_tables

    text = _markdown("Debt (in millions)", [["", "December 31, 2019", "December 31, 2018"],
                                            ["4.875% Senior Notes due December 2022", "421.9", "421.1"],
                                            ["Nonvested at January 1, 2018", "168", "98"],
                                            ["Dec-2021", "842", "900"]])
    rows = [c.label.row for c in read_tables(text)]
    assert rows == ["4.875% Senior Notes due December 2022"] * 2 + ["Nonvested at January 1, 2018"] * 2 + ["", ""]


# -- a row named by two capitals ('UK'), which no three-letter word rule reads ------------------------------

REVENUE_BY_COUNTRY = {"UK": ("83.2", "73.5"), "USA": ("222.2", "199.0"), "Germany": ("143.5", "128.4"),
                      "Total revenue from external customers": ("448.9", "400.9")}
COUNTRIES = [["Revenue by country", "2019", "2018"], *([name, *cells] for name, cells in REVENUE_BY_COUNTRY.items())]
TABLES["countries"] = ("Revenue from external customers ($ in millions)", COUNTRIES)


@pytest.mark.parametrize("form", sorted(FORMS))
def test_a_row_named_by_two_capitals_is_the_claims_row(audit, form: str) -> None:
    record = audit(form, "countries", "The change in revenue from external customers from the UK from 2018 to 2019 "
                                      "was $9.7 million.", "$9.7 million")
    assert record.verdict is Verdict.DERIVED and "83.2 - 73.5" in (record.formula or ""), record.notes
    for sentence, figure in [
        ("The change in revenue from external customers from the UK from 2018 to 2019 was $9.9 million.",
         "$9.9 million"),  # invented
        ("The change in revenue from external customers from the UK from 2018 to 2019 was $23.2 million.",
         "$23.2 million"),  # the USA row's change
        ("Revenue from external customers from the UK was $73.5 million in 2019.", "$73.5 million"),  # other year
    ]:
        record = audit(form, "countries", sentence, figure)
        assert record.verdict in FLAGGED, (sentence, record.verdict, record.notes)


def test_two_capitals_that_name_a_period_or_scale_are_no_subject() -> None:
    from pytest_auditfence.verify.sources import abbreviations

    # 'FY' is a stopword: as a key it made every 'FY 2019' column name a claim's subject
    assert abbreviations("The change from FY 2018 to FY 2019 in UK and US revenue, in USD BN") == ["uk", "us"]
