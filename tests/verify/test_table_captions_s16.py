"""Issue 10, stop 16: where a table states its scale and what its 'Total' row totals, over real captured runs
(`plan` asks for a tool, a `ToolNode` runs it, `write` returns the report) in the forms a tool returns a table in
(markdown, HTML, CSV-like text, the text of a PDF page, a JSON table). A lead-in sentence below the last table states
its scale as a caption does; a header row holding only a scale is the caption, not a column's header; a row 'Total'
alone totals what the caption names. Every rule has its negative: the wrong scale, period, row or an invented figure
is flagged."""

from __future__ import annotations

import csv
import html
import io
import json
from pathlib import Path

import pytest
from langchain_core.tools import tool

from test_false_alarms_s14 import _check
from tool_runs import claim_of, tool_run_auditor


def _markdown(caption: str, rows: list[list[str]], below: str) -> str:
    lines = [caption, "", "| " + " | ".join(rows[0]) + " |", "|" + "---|" * len(rows[0])]
    return "\n".join(lines + ["| " + " | ".join(r) + " |" for r in rows[1:]] + ["", below]) + "\n"


def _html(caption: str, rows: list[list[str]], below: str) -> str:
    out = [f"<p><b>{html.escape(caption)}</b></p>", "<table>"]
    for i, row in enumerate(rows):
        tag = "th" if i == 0 else "td"
        out.append("<tr>" + "".join(f"<{tag}>{html.escape(c)}</{tag}>" for c in row) + "</tr>")
    return "\n".join([*out, "</table>", f"<p>{html.escape(below)}</p>"]) + "\n"


def _csv(caption: str, rows: list[list[str]], below: str) -> str:
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows(rows)
    return "\n".join([caption, buf.getvalue().rstrip("\n"), "", below]) + "\n"


def _page(caption: str, rows: list[list[str]], below: str) -> str:
    widths = [max(len(r[j]) for r in rows) for j in range(len(rows[0]))]
    lines = [caption, ""]
    for row in rows:
        lines.append((row[0].ljust(widths[0]) + "   " + "   ".join(c.rjust(widths[j + 1]) for j, c in
                                                                  enumerate(row[1:]))).rstrip())
    return "\n".join([*lines, "", below]) + "\n"


def _json(caption: str, rows: list[list[str]], below: str) -> str:
    return json.dumps({"caption": caption, "table": rows, "text": below})


def _records(caption: str, rows: list[list[str]], below: str) -> str:
    """JSON records, each keyed by its column's header ('December 31 2 0 1 8'), as a document tool returns them."""
    keys = ["line_item", *rows[0][1:]]
    return json.dumps({"caption": caption, "rows": [dict(zip(keys, row, strict=True)) for row in rows[1:]],
                       "text": below})


FORMS = {"markdown": _markdown, "html": _html, "csv": _csv, "pdf": _page, "json": _json}

TABLES: dict[str, tuple[str, list[list[str]], str]] = {
    # the scale stated only by the sentence that introduces the table, rendered below it
    "other assets": ("Table 1", [
        ["", "2019", "2018"],
        ["Prepaid rent", "525", "410"],
        ["Security deposits", "1,248", "1,190"],
        ["Net income per share", "1.25", "1.10"]],
        "Other assets consist of the following (in thousands, except per share data):"),
    # a scale in prose below the table that introduces no table is not the table's scale
    "other assets, prose below": ("Table 1", [
        ["", "2019", "2018"],
        ["Prepaid rent", "525", "410"],
        ["Security deposits", "1,248", "1,190"]],
        "Market revenue grew to $3 billion (in millions, 3,000) over the year."),
    # a header row holding only a scale, standing over one column
    "scale row": ("Table 1", [
        ["", "2019", "2018"],
        ["", "", "(in millions)"],
        ["Product revenue", "1,248", "1,100"],
        ["Service revenue", "312", "290"]],
        ""),
    # a header row holding only a scale, in the labels' column ('($ in millions) | | ')
    "scale in the labels' column": ("Inventories. The plant processed 129.1 million pounds of chicken in 2019.", [
        ["", "2019", "2018"],
        ["(In millions)", "", ""],
        ["Product revenue", "1,248", "1,100"],
        ["Service revenue", "312", "290"]],
        ""),
    # a letter-spaced year after the day of a date header ('December 31 2 0 1 8', a PDF's spacing)
    "spaced year": ("Deferred tax assets (U.S. $ in thousands)", [
        ["", "December 31 2019", "December 31 2 0 1 8"],
        ["Operating loss carryforward", "73,260", "57,768"],
        ["Net deferred tax asset", "795", "772"]],
        ""),
    # a 'Total' row alone, named by the lead-in below the table ('U.S.' ends no sentence)
    "income by region": ("Table 1 $ in millions", [
        ["", "2019", "2018", "2017"],
        ["United States", "$65.8", "$62.8", "$45.6"],
        ["Foreign", "0.3", "0.1", "(0.1)"],
        ["Total", "$66.1", "$62.9", "$45.5"]],
        "The following table summarizes our U.S. and foreign components of income (loss) from continuing operations "
        "before income taxes (in millions):"),
    # a row of figures without a label under a section: its subtotal where the section's rows add up to it
    "debtors": ("Debtors (in millions)", [
        ["", "2019", "2018"],
        ["Amounts falling due within one year:", "", ""],
        ["Amounts owed by subsidiaries", "242,976", "220,871"],
        ["Taxation recoverable", "233", "–"],
        ["Other debtors", "215", "362"],
        ["", "243,424", "221,233"],
        ["Amounts falling due after more than one year:", "", ""],
        ["Derivative financial instruments", "3,439", "2,449"],
        ["Deferred tax", "41", "31"],
        ["", "3,480", "2,480"]],
        ""),
    # a 'Total' row alone under a caption naming what it totals
    "segments": ("Revenue by segment (in millions)", [
        ["", "2019", "2018"],
        ["Americas", "1,200", "1,000"],
        ["Europe", "800", "700"],
        ["Total", "2,000", "1,700"]],
        ""),
}


def table_auditor(tmp_path: Path, tables: dict[str, tuple[str, list[list[str]], str]]):
    """`audit(form, table, sentence, figure)`: the claim holding `figure` (see `_check`), in a captured run whose
    `get_table` tool returns one of `tables` (caption, rows, the text below it) in the form asked for."""

    @tool
    def get_table(form: str, table: str) -> str:
        """One table of the annual report with the text below it, in the form asked for."""
        caption, rows, below = tables[table]
        return {**FORMS, "records": _records}[form](caption, rows, below)

    run = tool_run_auditor(tmp_path, [get_table], "Answer the analyst's questions on the annual report.")
    return lambda form, table, sentence, figure: claim_of(run([("get_table", {"form": form, "table": table})], sentence),
                                                          figure)


@pytest.fixture
def audit(tmp_path: Path):
    return table_auditor(tmp_path, TABLES)


@pytest.mark.parametrize("form", ["markdown", "html", "csv", "pdf"])
def test_a_lead_in_below_the_table_states_its_scale(audit, form: str) -> None:
    _check(audit, form, "other assets",
           [("Security deposits were $1.248 million in 2019.", "$1.248 million"),
            ("Net income per share was $1.25 in 2019.", "$1.25")],
           [("Security deposits were $1.248 billion in 2019.", "$1.248 billion"),  # the wrong scale
            ("Security deposits were $1.248 million in 2018.", "$1.248 million"),  # the other period
            ("Security deposits were $1.284 million in 2019.", "$1.284 million")])  # invented


@pytest.mark.parametrize("form", ["markdown", "pdf"])
def test_a_scale_in_prose_below_that_introduces_no_table_is_not_its_scale(audit, form: str) -> None:
    _check(audit, form, "other assets, prose below", [],
           [("Security deposits were $1.248 billion in 2019.", "$1.248 billion")])


@pytest.mark.parametrize("form", sorted(FORMS))
def test_a_header_row_of_a_scale_alone_is_the_caption(audit, form: str) -> None:
    _check(audit, form, "scale row",
           [("Product revenue was $1.248 billion in 2019.", "$1.248 billion"),
            ("Service revenue was $312 million in 2019.", "$312 million")],
           [("Product revenue was $1.248 million in 2019.", "$1.248 million"),  # the wrong scale
            ("Product revenue was $1.248 billion in 2018.", "$1.248 billion"),  # the other period
            ("Service revenue was $321 million in 2019.", "$321 million")])  # invented


@pytest.mark.parametrize("form", sorted(FORMS))
def test_a_total_row_alone_totals_what_the_caption_names(audit, form: str) -> None:
    # (2,000 - 1,700) / 1,700 = 17.65%
    _check(audit, form, "segments",
           [("The percentage change in total revenue from 2018 to 2019 was 17.65%.", "17.65%")],
           [("The percentage change in total revenue from 2018 to 2019 was 16.75%.", "16.75%"),  # invented
            ("The percentage change in total revenue from 2018 to 2019 was 14.29%.", "14.29%"),  # Europe's
            ("The percentage change in total cost from 2018 to 2019 was 17.65%.", "17.65%")])  # another subject


@pytest.mark.parametrize("form", sorted(FORMS))
def test_a_scale_row_in_the_labels_column_is_the_caption_not_a_section(audit, form: str) -> None:
    # the scale row states the table's scale and currency before the prose above it ('pounds' of chicken is no GBP)
    _check(audit, form, "scale in the labels' column",
           [("Product revenue was $1.248 billion in 2019.", "$1.248 billion"),
            ("Service revenue was $290 million in 2018.", "$290 million")],
           [("Product revenue was $1.248 million in 2019.", "$1.248 million"),  # the wrong scale
            ("Product revenue was $1.1 billion in 2019.", "$1.1 billion"),  # the other period
            ("Service revenue was $209 million in 2018.", "$209 million")])  # invented


@pytest.mark.parametrize("form", ["records", "json", "markdown"])
def test_a_letter_spaced_year_after_a_day_is_the_year(audit, form: str) -> None:
    _check(audit, form, "spaced year",
           [("The operating loss carryforward in 2019 and 2018 was $73,260 thousand and $57,768 thousand, "
             "respectively.", "$57,768 thousand"),
            ("The percentage change in the net deferred tax asset from 2018 to 2019 was 2.98%.", "2.98%")],
           [("The operating loss carryforward in 2019 and 2018 was $57,768 thousand and $73,260 thousand, "
             "respectively.", "$57,768 thousand"),  # the other period
            ("The percentage change in the net deferred tax asset from 2018 to 2019 was 3.98%.", "3.98%")])  # invented


@pytest.mark.parametrize("form", ["markdown", "html", "csv", "pdf"])
def test_a_lead_in_below_the_table_names_its_total_row(audit, form: str) -> None:
    _check(audit, form, "income by region",
           [("The total income from continuing operations before income taxes in 2019 was $66.1 million.",
             "$66.1 million"),
            ("The percentage change in total income from continuing operations between 2018 and 2019 was 5.09%.",
             "5.09%")],
           [("The total income from continuing operations before income taxes in 2019 was $62.9 million.",
             "$62.9 million"),  # the other period
            ("The total revenue in 2019 was $66.1 million.", "$66.1 million"),  # another subject
            ("The percentage change in total income from continuing operations between 2018 and 2019 was 4.78%.",
             "4.78%")])  # the United States' change


@pytest.mark.parametrize("form", sorted(FORMS))
def test_a_row_without_a_label_that_adds_up_its_section_is_its_total(audit, form: str) -> None:
    _check(audit, form, "debtors",
           [("The total amount falling due within one year in 2019 was $243,424 million.", "$243,424 million"),
            ("The average total amount falling due within one year for 2018 and 2019 was $232,328.5 million.",
             "$232,328.5 million")],
           [("The total amount falling due within one year in 2018 was $243,424 million.", "$243,424 million"),
            ("The total amount falling due within one year in 2019 was $243,424 billion.", "$243,424 billion"),
            ("The average total amount falling due within one year for 2018 and 2019 was $232,382.5 million.",
             "$232,382.5 million")])  # invented
