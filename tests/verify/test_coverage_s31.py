"""Issue 10, stop 31: kinds of correct answers flagged in every rendering, fixed at their root, over real captured runs
(`plan` asks for a tool, a `ToolNode` runs it, `write` returns the report) in the forms a tool returns a table in. A
roll-forward's balance rows dated alone ('At 1 January', 'At 31 December', under year columns) are the balances of
what the section's title names ('18 Investment in associates'), each on its own day of its column's year: a claim
naming that day and the title's words names the row. A year is a period, not a figure, in a prose figure's clause:
'the low sale price per share for each quarter in 2018 came to $5.99' is one clause (the report's own line, read at
the report hop, holds another sentence after the list). Every rule has its negative: the other balance's row, an
invented figure, another row, the wrong scale, another column's figure is flagged."""

from __future__ import annotations

from pathlib import Path

import pytest

from test_false_alarms_s14 import _check
from test_tables_s28 import ALL_FORMS
from test_table_captions_s16 import FORMS, table_auditor
from tool_runs import COVERED, FLAGGED, claim_of, tool_run_auditor

from langchain_core.tools import tool

from pytest_auditfence.verify import tables

TITLE = ("18 Investment in associates\n"
         "Investment in associates comprises a 32.4 per cent holding in the ordinary shares of an Indian shopping centre "
         "developer. Both companies are incorporated in India.")

TABLES: dict[str, tuple[str, list[list[str]], str]] = {
    # a roll-forward whose balance rows name their day alone; the section's title stands below the table (a document
    # tool renders the table first), and names what the balances are of
    "roll-forward": ("Table 1", [
        ["£m", "2019", "2018"],
        ["At 1 January", "65.6", "64.8"],
        ["Share of post-tax (loss)/profit of associates", "(0.3)", "2.3"],
        ["Impairment", "(7.4)", "–"],
        ["Foreign exchange movements", "(4.2)", "(1.5)"],
        ["At 31 December", "53.7", "65.6"]],
        TITLE),
    # the same table under no title: its balance rows name nothing a claim could name them by
    "untitled roll-forward": ("Table 1", [
        ["£m", "2019", "2018"],
        ["At 1 January", "65.6", "64.8"],
        ["Impairment", "(7.4)", "–"],
        ["At 31 December", "53.7", "65.6"]],
        "Investment in associates comprises a 32.4 per cent holding in the ordinary shares of a developer."),
    # a quarterly price range: the report states the lows as a 'respectively' list, then another sentence on its line
    "price range": ("Table 1", [
        ["2018", "Low share price", "High share price"],
        ["First Quarter", "$ 5.99", "$ 8.40"],
        ["Second Quarter", "$ 4.79", "$ 6.48"],
        ["Third Quarter", "$ 2.66", "$ 4.63"],
        ["Fourth Quarter", "$ 1.88", "$ 3.39"]],
        "The following table shows the high and low sale prices per share of our common stock for each quarter of 2018:"),
    # a payment schedule by maturity bucket, each row with its total
    "obligations": ("Table 1 Contractual obligations (Dollars in thousands)", [
        ["Contractual Obligations", "Less Than 1 Year", "2-5 Years", "Total"],
        ["Operating Lease Obligations:", "$812", "$1,960", "$2,772"],
        ["Other Long-Term Liabilities:", "", "", ""],
        ["Mobile app commitment", "500", "—", "500"],
        ["Cloud services commitment", "1,500", "1,500", "3,000"],
        ["Total", "$2,812", "$3,460", "$6,272"]],
        "The Company leases its offices under operating leases."),
}


@pytest.fixture
def audit(tmp_path: Path):
    return table_auditor(tmp_path, TABLES)


def test_a_section_title_is_a_note_number_and_a_few_words_alone_on_its_line() -> None:
    assert tables.section_title(f"| £m | 2019 |\n|---|---|\n| At 1 January | 65.6 |\n\n{TITLE}\n") == "Investment in associates"
    assert tables.section_title("paragraphs:\n    - 3. Investments in subsidiaries\n    - The Company ...") == \
        "Investments in subsidiaries"
    assert tables.section_title("<p>Note 21. Equity - dividends</p>") == "Equity - dividends"
    assert tables.section_title("(5) GOODWILL AND OTHER INTANGIBLE ASSETS\n") == "GOODWILL AND OTHER INTANGIBLE ASSETS"
    # a sentence, a figure, a year, a list item of many words are no title
    assert tables.section_title("1 The Company sold 5 million units in the year.\n2019 Annual Report\n") == ""
    assert tables.section_title("2. Preheat the oven and then bake the bread for thirty minutes until it is golden\n") == ""


@pytest.mark.parametrize("form", ["markdown", "html", "csv", "pdf"])  # the JSON forms are tables once captured
def test_balance_rows_dated_alone_stand_for_their_day_of_the_column_year(form: str) -> None:
    caption, rows, below = TABLES["roll-forward"]
    text = FORMS[form](caption, rows, below)
    days = {(c.label.row, c.label.title, *tables.balance_day(c.label)) for c in tables.read_tables(text)
            if c.label.row.startswith("At ")}
    assert days == {("At 1 January", "Investment in associates", (2019, 1, 1)),
                    ("At 1 January", "Investment in associates", (2018, 1, 1)),
                    ("At 31 December", "Investment in associates", (2019, 12, 31)),
                    ("At 31 December", "Investment in associates", (2018, 12, 31))}
    # a flow row keeps no title: it names its own subject
    assert {c.label.title for c in tables.read_tables(text) if c.label.row == "Impairment"} == {""}


@pytest.mark.parametrize("form", ALL_FORMS)
def test_a_claim_naming_a_balance_day_and_the_title_names_that_balance_row(audit, form: str) -> None:
    _check(audit, form, "roll-forward",
           [("The percentage change in the total investment in associates from 31 December 2018 to 31 December 2019 "
             "was -18.14 percent.", "-18.14 percent"),
            ("According to the filing, the percentage change in the total investment in associates from 1 January "
             "2018 to 1 January 2019 was 1.23%.", "1.23%"),
            ("The investment in associates stood at 53.7 at 31 December 2019.", "53.7")],
           [("The percentage change in the total investment in associates from 31 December 2018 to 31 December 2019 "
             "was 1.23 percent.", "1.23 percent"),  # the opening balances' change
            ("The percentage change in the total investment in associates from 1 January 2018 to 1 January 2019 was "
             "-18.14%.", "-18.14%"),  # the closing balances' change
            ("The percentage change in the total investment in associates from 31 December 2018 to 31 December 2019 "
             "was -18.41 percent.", "-18.41 percent"),  # invented
            ("The investment in associates stood at 65.6 at 31 December 2019.", "65.6"),  # the opening balance of 2019
            ("The investment in associates stood at 53.7 at 1 January 2019.", "53.7"),  # the closing balance
            ("The investment in associates stood at 53.7 billion at 31 December 2019.", "53.7 billion"),  # scale
            ("The impairment of associates stood at 53.7 at 31 December 2019.", "53.7")])  # another row


@pytest.mark.parametrize("form", ["markdown", "json"])
def test_without_a_title_or_a_day_no_balance_row_is_named(audit, form: str) -> None:
    # under no title the balance rows name nothing; a claim naming a year alone does not say which balance of it
    _check(audit, form, "untitled roll-forward", [],
           [("The investment in associates stood at 53.7 at 31 December 2019.", "53.7")])
    _check(audit, form, "roll-forward", [],
           [("The investment in associates stood at 65.6 in 2019.", "65.6")])


LOWS = ("The low sale price per share for each quarter in 2018 in chronological order came to $5.99 and $4.79 and "
        "$2.66 and $1.88, respectively.")


@pytest.mark.parametrize("form", ALL_FORMS)
@pytest.mark.parametrize("follows", ["", " In the first quarter of 2018, the difference between the low and high price "
                                         "was $2.41."])
def test_a_respectively_list_followed_on_its_line_is_traced_through_the_report(tmp_path: Path, form: str,
                                                                               follows: str) -> None:
    # the report's own line is the source the report hop reads: '2018' before the list ended the figures' clause
    # there, so '$5.99' lost the 'per share' its clause names when a second sentence made the line a sentence line
    audit = table_auditor(tmp_path, TABLES)
    for figure in ("$5.99", "$4.79", "$1.88"):
        record = audit(form, "price range", LOWS + follows, figure)
        assert record.verdict in COVERED, (figure, record.verdict, record.notes)
    wrong = LOWS.replace("$5.99", "$8.40")  # the first quarter's high
    record = audit(form, "price range", wrong + follows, "$8.40")
    assert record.verdict in FLAGGED, (record.verdict, record.notes)
    wrong = LOWS.replace("$4.79", "$4.97")  # invented
    record = audit(form, "price range", wrong + follows, "$4.97")
    assert record.verdict in FLAGGED, (record.verdict, record.notes)


NOTE = ("Market information. The low sale price per share in the first quarter of 2018 came to $5.99, while our net "
        "revenue in 2018 was $102.2 million and net income in the year was $3.1 million; the board declared no dividend "
        "in 2018 and expects to retain its earnings for the growth of the business in the coming years.\n")


@pytest.mark.parametrize("sentence, figure, covered", [
    ("The low sale price per share in the first quarter of 2018 was $5.99.", "$5.99", True),
    ("The low sale price per share in the first quarter of 2018 was $3.10.", "$3.10", False),  # net income's digits
    ("The low sale price per share in the first quarter of 2018 was $5.90.", "$5.90", False),  # invented
])
def test_a_year_ends_no_clause_of_a_prose_figure(tmp_path: Path, sentence: str, figure: str, covered: bool) -> None:
    @tool
    def get_note(name: str) -> str:
        """One note of the annual report, as prose."""
        return NOTE

    run = tool_run_auditor(tmp_path, [get_note], "Answer the analyst's questions on the annual report.")
    record = claim_of(run([("get_note", {"name": "market"})], sentence), figure)
    assert record.verdict in (COVERED if covered else FLAGGED), (record.verdict, record.notes)


ACCRUED = """Table 1

|  | December31, |  |
|---|---|---|
|  | 2019 | 2018 |
| Accrued payroll and employee benefits | $121.4 | $98.2 |
| Derivative liabilities | 87.1 | 112.6 |
| Current portion of operating lease liabilities | 41.2 | — |
| Tax-related accruals | 30.8 | 38.4 |
| Accrued legal and professional | 22.5 | 12.3 |
| Accrued marketing and advertising expenses | 16.9 | 18.0 |
| Accrued acquisition consideration payable | 9.7 | 70.1 |
| Accrued other | 35.6 | 41.9 |
|  | $365.2 | $391.5 |

Accrued liabilities consisted of the following (in millions).
"""


@pytest.mark.parametrize("sentence, figure, covered", [
    ("According to the filing, the average tax related accruals for 2018 and 2019 was $34.6 million.", "$34.6 million",
     True),
    ("The average tax related accruals for 2018 and 2019 was $34.6 million.", "$34.6 million", True),
    ("According to the filing, the tax related accruals in 2019 were $30.8 million.", "$30.8 million", True),
    ("According to the filing, the average tax related accruals for 2018 and 2019 was $36.4 million.", "$36.4 million",
     False),  # invented
    ("According to the filing, the average accrued other for 2018 and 2019 was $34.6 million.", "$34.6 million",
     False),  # another row
    ("According to the filing, the average tax related accruals for 2018 and 2019 was $34.6 billion.", "$34.6 billion",
     False),  # the wrong scale
])
def test_a_cited_source_names_no_row_of_a_derived_figure(tmp_path: Path, sentence: str, figure: str,
                                                         covered: bool) -> None:
    # the tool's output as the next node receives it opens with its name line ('get_filing_section'): 'the filing'
    # named every row of the table there, and the average of one row was lost among the others at the 'write' hop
    from tool_runs import one_section_auditor
    record = one_section_auditor(tmp_path, ACCRUED)(sentence, figure)
    assert record.verdict in (COVERED if covered else FLAGGED), (record.verdict, record.notes)


@pytest.mark.parametrize("form", ALL_FORMS)
def test_a_maturity_bucket_cues_no_difference(audit, form: str) -> None:
    # 'less than one year' names a bucket: it made a claim about that bucket a difference, which the row's total
    # less that bucket gave (the other bucket's figure)
    _check(audit, form, "obligations",
           [("The operating lease obligations less than one year were $812 thousand.", "$812 thousand"),
            ("The operating lease obligations due in 2-5 years were $1,960 thousand.", "$1,960 thousand")],
           [("The operating lease obligations less than one year were $1,960 thousand.", "$1,960 thousand"),
            ("The cloud services commitment less than one year was $1,500 million.", "$1,500 million"),
            ("The operating lease obligations less than one year were $821 thousand.", "$821 thousand")])
