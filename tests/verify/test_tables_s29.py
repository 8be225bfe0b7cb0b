"""Issue 10, stop 29: reading bugs of one table form, found where a correct sentence was covered in one form and
flagged in another (TAT-QA tuning sections rendered in all six forms with one wording), over real captured runs
(`plan` asks for a tool, a `ToolNode` runs it, `write` returns the report). On page text a header spanning a group
of columns written over the first of them ('Net additions (losses)' over two columns) heads the whole group, as the
grid forms read it; an HTML paragraph's last sentence ends at its closing tag ('respectively ... RSUs.</p>'), so a
'respectively' series is not run into the next paragraph; a search for a JSON table's cells ('- (197)', one a line)
holds their figures, so a derivation's operands pass the fence gate. Every rule has its negative: an invented figure,
the wrong row, column, period or unit is flagged."""

from __future__ import annotations

from pathlib import Path

import pytest

from test_false_alarms_s14 import _check
from test_table_captions_s16 import FORMS, _page, table_auditor
from test_tables_s28 import ALL_FORMS
from tool_runs import one_section_auditor

from pytest_auditfence.verify.tables import read_tables

TABLES: dict[str, tuple[str, list[list[str]], str]] = {
    # two headers each spanning two columns, written over the first of them; a first column of its own
    "spanning groups": ("Table 1 Customer statistics", [
        ["", "", "Net additions (losses)", "", "% of penetration(2)", ""],
        ["", "May 31, 2019", "May 31, 2019", "May 31, 2018 (1)", "May 31, 2019", "May 31, 2018"],
        ["Primary service units", "804,512", "14,230", "19,870", "", ""],
        ["Internet service customers", "512,310", "18,420", "22,150", "48.3", "47.1"],
        ["Video service customers", "288,904", "(5,120)", "(7,345)", "33.9", "35.2"],
        ["Telephony service customers", "131,066", "610", "4,875", "15.7", "16.4"]],
        "(1) Excludes customers of an acquisition. (2) As a percentage of homes passed."),
    # a row of negative figures, read by the derivation from a JSON table whose cells stand one a line
    "tax reconciliation": ("Table 2 (In thousands)", [
        ["", "June 1, 2019", "June 2, 2018", "June 3, 2017"],
        ["Statutory federal income tax (benefit)", "$13,206", "$31,877", "$(36,412)"],
        ["State income tax (benefit)", "2,451", "2,980", "(2,874)"],
        ["Tax exempt interest income", "(184)", "(96)", "(215)"],
        ["Other, net", "(812)", "(507)", "(688)"]],
        "The differences between income tax expense at the effective rate and at the statutory rate were as follows:"),
    # three years of one row each: a count of the years in which a row's figure passes a threshold
    "regions": ("Table 3 Net sales by region (in thousands)", [
        ["", "2019", "2019 % of total", "2018", "2018 % of total", "2017", "2017 % of total"],
        ["Americas", "$241,310", "21.4%", "$198,450", "19.9%", "$205,120", "22.0%"],
        ["Europe", "$512,880", "45.5%", "$480,200", "48.1%", "$402,960", "43.2%"],
        ["Asia Pacific", "372,505", "33.1%", "319,730", "32.0%", "324,615", "34.8%"],
        ["Total net sales", "$1,126,695", "100.0%", "$998,380", "100.0%", "$932,695", "100.0%"]],
        "Net sales by the region of the customer."),
}


@pytest.fixture
def audit(tmp_path: Path):
    return table_auditor(tmp_path, TABLES)


@pytest.mark.parametrize("form", sorted(FORMS))
def test_a_header_over_the_first_column_of_its_group_heads_the_group(audit, form: str) -> None:
    # page text: 'Net additions (losses)' stood over 2019's column only, so 2018's was any figure of the row's 2018
    _check(audit, form, "spanning groups",
           [("The average net additions of internet service customers between 2018 and 2019 were 20,285.", "20,285"),
            ("The change in net additions of telephony service customers from 2018 to 2019 was -4,265.", "-4,265"),
            ("The net additions of primary service units in 2018 were 19,870.", "19,870")],
           [("The average net additions of internet service customers between 2018 and 2019 were 20,258.",
             "20,258"),  # invented
            ("The average net additions of internet service customers between 2018 and 2019 were 265,365.",
             "265,365"),  # 2019's customers, not its net additions
            ("The change in net additions of telephony service customers from 2018 to 2019 was -4,625.",
             "-4,625"),  # invented
            ("The net additions of primary service units in 2018 were 14,230.", "14,230"),  # 2019's
            ("The net additions of video service customers in 2018 were -5,120.", "-5,120")])  # 2019's


def test_a_page_header_over_the_first_column_of_each_group_is_read_over_the_group() -> None:
    caption, rows, below = TABLES["spanning groups"]
    text = _page(caption, rows, below)
    read = {(c.label.row, text[c.start:c.end]): c.label.columns for c in read_tables(text)}
    assert read[("Internet service customers", "512,310")] == ("May 31, 2019",)
    assert read[("Internet service customers", "18,420")] == ("Net additions (losses)", "May 31, 2019")
    assert read[("Internet service customers", "22,150")] == ("Net additions (losses)", "May 31, 2018")
    assert read[("Internet service customers", "48.3")] == ("% of penetration", "May 31, 2019")
    assert read[("Internet service customers", "47.1")] == ("% of penetration", "May 31, 2018")


def test_a_page_header_over_the_last_column_of_each_group_is_not_spread_to_the_right() -> None:
    # written over the last column of each group, the last group would end past the table: no group is read, so the
    # column right of 'Net additions' is not given it (it belongs to '% of penetration', which stands over its right)
    rows = [["", "", "", "Net additions", "", "% of penetration"],
            ["", "2019", "2019", "2018", "2019", "2018"],
            ["Internet service customers", "512,310", "18,420", "22,150", "48.3", "47.1"],
            ["Video service customers", "288,904", "(5,120)", "(7,345)", "33.9", "35.2"]]
    text = _page("Table 1", rows, "")
    read = {text[c.start:c.end]: c.label.columns for c in read_tables(text)}
    assert "Net additions" not in read["48.3"]
    assert read["22,150"] == ("Net additions", "2018")


HTML_SECTION = """<p><b>Table 1 $ in millions</b></p>
<table>
<tr><th></th><th>2019 Number of Shares</th><th>2018 Number of Shares</th></tr>
<tr><td>Non-vested at beginning of year</td><td>298,510</td><td>412,880</td></tr>
<tr><td>Shares granted</td><td>241,600</td><td>185,000</td></tr>
<tr><td>Shares vested</td><td>77,140</td><td>299,370</td></tr>
</table>
<p>RESTRICTED STOCK UNITS</p>
<p>The Company estimates the fair value of the granted shares at the grant date. For the years ended December 31, 2019, 2018 and 2017, the Company recognized $0.4 million, $0.7 million and $0.5 million, respectively, of stock-based compensation expense related to the RSUs.</p>
<p>As of December 31, 2019, total compensation cost not yet recognized related to unvested RSUs was approximately $0.9 million, to be recognized over 2.1 years.</p>
<p>Debt securities included approximately $47 million of Bell Canada debentures at December 31, 2019 and approximately $62 million of Bell Canada debentures at December 31, 2018.</p>
<p>The plan holds no other securities of the Company.</p>
"""


@pytest.mark.parametrize("markup", [True, False])
def test_a_sentence_of_an_html_paragraph_ends_at_its_closing_tag(tmp_path: Path, markup: bool) -> None:
    # the last sentence of a paragraph ran into the next one ('... RSUs.</p>\n<p>As of December 31, 2019, ...'), so
    # its 'respectively' series of figures was not its own sentence's; the same text without markup as a control
    document = HTML_SECTION if markup else HTML_SECTION.replace("<p>", "").replace("</p>", "")
    audit = one_section_auditor(tmp_path, document)
    right = [("The total stock-based compensation expense related to the RSUs recognised by the company between "
              "2017 and 2019 was $1.6 million.", "$1.6 million"),
             ("The average Bell Canada debentures for 2018 and 2019 were $54.5 million.", "$54.5 million")]
    wrong = [("The total stock-based compensation expense related to the RSUs recognised by the company between "
              "2017 and 2019 was $1.7 million.", "$1.7 million"),  # invented
             ("The total stock-based compensation expense related to the RSUs recognised by the company between "
              "2018 and 2019 was $1.6 million.", "$1.6 million"),  # three years' total for two
             ("The average Bell Canada debentures for 2018 and 2019 were $45.5 million.", "$45.5 million")]  # invented
    _check(lambda _form, _table, sentence, figure: audit(sentence, figure), "html", "", right, wrong)


@pytest.mark.parametrize("form", sorted(FORMS))
def test_a_mean_of_negative_cells_passes_the_gate_in_every_form(audit, form: str) -> None:
    # JSON table: the operands' evidence '- (96)' / '- (215)' (one cell a line) was searched, but the search was not
    # the claim's: no word of it, and its figures read as list enumerators, not as -96 and -215
    _check(audit, form, "tax reconciliation",
           [("The average tax exempt interest income was -$165 thousand.", "-$165 thousand"),
            ("The average other, net was -$669 thousand.", "-$669 thousand")],
           [("The average tax exempt interest income was -$156 thousand.", "-$156 thousand"),  # invented
            ("The average tax exempt interest income was -$669 thousand.", "-$669 thousand"),  # the row below's
            ("The average tax exempt interest income was -$165 million.", "-$165 million")])  # the wrong scale


@pytest.mark.parametrize("form", ALL_FORMS)
def test_a_count_of_the_years_a_row_passes_a_threshold_is_counted(audit, form: str) -> None:
    # Americas over $200,000 thousand: 2019 and 2017, not 2018 (198,450); the count was never checked (unverifiable)
    _check(audit, form, "regions",
           [("In answer to how many years did net sales from Americas exceed $200,000 thousand, the figure is 2.", "2."),
            ("The number of years in which Asia Pacific net sales were more than $320 million was 2.", "2."),
            ("From 2018 to 2019, the number of years in which Europe net sales exceeded $500,000 thousand was 1.", "1."),
            ("The number of years in which the Americas share of net sales was below 21% was 1.", "1.")],
           [("In answer to how many years did net sales from Americas exceed $200,000 thousand, the figure is 3.", "3."),
            ("In answer to how many years did net sales from Americas exceed $200,000 thousand, the figure is 1.", "1."),
            ("The number of years in which Asia Pacific net sales were more than $320 million was 3.", "3."),
            # the wrong scale: every year's is more than $320 thousand
            ("The number of years in which Asia Pacific net sales were more than $320 thousand was 2.", "2."),
            # the years of the range only, not all three
            ("From 2018 to 2019, the number of years in which Europe net sales exceeded $500,000 thousand was 2.", "2."),
            # the percentages, not the amounts (every amount is above 21)
            ("The number of years in which the Americas share of net sales was below 21% was 0.", "0.")])


@pytest.mark.parametrize("form", ["markdown", "records"])
def test_a_count_of_no_one_row_is_not_checked(audit, form: str) -> None:
    # no row is named (every region's sales): the count is left unchecked, never verified by a chance row
    record = audit(form, "regions", "The number of years in which regional net sales exceeded $300,000 thousand "
                                    "was 2.", "2.")
    assert record.verdict.value == "unverifiable", (record.verdict, record.notes)
