"""Issue 10, stop 30: a correct sentence covered in one form or wording of its table and flagged in another is a
reader's bug, fixed where the form is read, over real captured runs (`plan` asks for a tool, a `ToolNode` runs it,
`write` returns the report). On page text two header cells alike but for their footnote marks ('FY18**' beside
'FY18***') each head the column under their right edge, however narrow its figures. Every rule has its negative:
an invented figure, the other series' column, the wrong scale or unit is flagged."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from test_false_alarms_s14 import _check
from test_table_captions_s16 import FORMS, _page, table_auditor
from test_tables_s28 import ALL_FORMS

from pytest_auditfence.verify.tables import read_tables

TABLES: dict[str, tuple[str, list[list[str]], str]] = {
    # one period twice under two footnote marks ('FY18**' the comparable group, 'FY18***' the full one), below a
    # spanning header; a narrow figure ('0') stands nearer the start of the next header than of its own
    "marked periods": ("Greenhouse gas emissions", [
        ["", "", "Emissions reported in tonnes CO2e*", ""],
        ["Emissions from:", "FY19**", "FY18**", "FY18***"],
        ["Fuel combustion on site (Scope 1)", "48,210", "51,377", "60,940"],
        ["Purchased electricity and heat (Scope 2)", "21,905", "25,118", "49,602"],
        ["Total gross emissions (Scope 1 and 2)", "70,115", "76,495", "110,542"],
        ["Renewable electricity tariff", "-18,244", "0", "0"],
        ["Total net emissions (Scope 1 and 2)", "51,871", "76,495", "110,542"]],
        "* Calculated under the GHG Protocol. ** UK and Ireland only, comparable with FY19. *** Full group."),
    # the line that introduces the table is the last paragraph of the section, below others (a document tool renders
    # the table first): it names what the rows count ('warrants'), which no row label says
    "warrants": ("Table 1", [
        ["", "Outstanding as of December 31,", "Exercise", "Exercisable"],
        ["Issuance date", "2019", "price", "through"],
        ["Mar 2012 - Oct 2014", "1,305,000", "2.50 - 3.75", "Mar-2023"],
        ["May-2017", "377,140", "8", "Nov-2020"],
        ["May-2017", "905,000", "6", "Nov-2021"],
        ["Sep - 2019", "612,500", "6", "Dec-2022"],
        ["Total", "3,199,640", "", ""]],
        "NOTE 9 - SHAREHOLDERS' EQUITY (Cont.)\n"
        "Since its inception the Company has raised approximately $41,000, net in cash, in private placements and "
        "public offerings.\n"
        "Warrants:\n"
        "The following table sets forth the number, exercise price and expiration date of the Company's warrants "
        "outstanding as of December 31, 2019:"),
}


@pytest.fixture
def audit(tmp_path: Path):
    return table_auditor(tmp_path, TABLES)


def test_page_text_headers_alike_but_for_their_marks_head_the_columns_under_them() -> None:
    # 'FY18**' and 'FY18***' read alike once their marks are cut: the '0' under 'FY18**' took the mark of the
    # header whose start is nearest its own ('FY18***'), so the comparable group had no FY18 cell in that row
    caption, rows, below = TABLES["marked periods"]
    text = _page(caption, rows, below)
    marks = [(c.label.columns[-1], c.label.mark) for c in read_tables(text) if c.label.row.startswith("Renewable")]
    assert marks == [("FY19", "**"), ("FY18", "**"), ("FY18", "***")]


@pytest.mark.parametrize("form", sorted(FORMS))  # records of one header row cannot hold the spanning header
def test_a_change_within_one_marked_series(audit, form: str) -> None:
    _check(audit, form, "marked periods",
           [("The change in the renewable electricity tariff from FY18 to FY19 for UK and Ireland only was -18,244.",
             "-18,244"),
            ("The change in fuel combustion on site (Scope 1) from FY18 to FY19 for UK and Ireland only was -3,167.",
             "-3,167")],
           [("The change in the renewable electricity tariff from FY18 to FY19 for UK and Ireland only was -18,424.",
             "-18,424"),  # invented
            ("The change in fuel combustion on site (Scope 1) from FY18 to FY19 for UK and Ireland only was -12,730.",
             "-12,730"),  # FY18 of the full group (the other series)
            ("The change in the renewable electricity tariff from FY18 to FY19 for UK and Ireland only was "
             "-18,244 thousand.", "-18,244 thousand")])  # tonnes, not thousands of them


@pytest.mark.parametrize("form", ALL_FORMS)
def test_the_last_paragraph_introducing_the_table_names_what_it_holds(audit, form: str) -> None:
    # 'warrants' is no row's or column's word: the lead-in names it (in JSON too, where the text follows the table)
    _check(audit, form, "warrants",
           [("The warrants issued in September 2019 came to 612,500 at the end of 2019.", "612,500")],
           [("The warrants issued in September 2019 came to 621,500 at the end of 2019.", "621,500"),  # invented
            ("The warrants issued in September 2019 came to 377,140 at the end of 2019.", "377,140"),  # May 2017's
            ("The warrants issued in September 2019 came to 612,500 thousand at the end of 2019.",
             "612,500 thousand"),  # no scale is stated
            ("The warrants issued in September 2019 had an exercise price of $612,500.", "$612,500")])


def _wrapped_page(caption: str, rows: list[list[str]], below: str) -> str:
    """Page text whose paragraphs below the table are wrapped at 80 characters, a blank line between them."""
    return _page(caption, rows, "\n\n".join(textwrap.fill(p, 80) for p in below.split("\n")))


@pytest.mark.parametrize("follows", ["", "The warrants were issued with the units of each offering."])
def test_a_lead_in_is_read_below_the_table_only_as_the_last_paragraph(follows: str) -> None:
    caption, rows, below = TABLES["warrants"]
    text = _wrapped_page(caption, rows, "\n".join(filter(None, [below, follows])))
    captions = {c.label.caption for c in read_tables(text)}
    assert len(captions) == 1
    # wrapped over two lines, the lead-in is still one sentence; a paragraph after it may be what it introduces
    assert ("warrants outstanding as of December 31, 2019" in captions.pop()) == (not follows)
