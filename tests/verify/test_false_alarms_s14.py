"""Issue 10, false alarms on true reports (stop 14): rules that let a correct figure computed from a table be
covered, each over real captured runs (`plan` asks for a tool, a `ToolNode` runs it, `write` returns the report)
in the forms a tool returns a table in (a JSON table, a markdown table under a caption, the text of a PDF page,
JSON records under paragraphs). Every rule has its negative: the wrong period, row, ratio or an invented figure
is flagged."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from langchain_core.tools import tool

from pytest_auditfence import Verdict
from test_false_alarms import FORMS, get_page
from tool_runs import claim_of, tool_run_auditor

COVERED = (Verdict.VERIFIED, Verdict.DERIVED)
FLAGGED = (Verdict.CONTRADICTED, Verdict.UNSUPPORTED, Verdict.MISATTRIBUTED)


def _records(caption: str, rows: list[list[str]], paragraphs: list[str]) -> str:
    """JSON records under the section's paragraphs, as a document tool returns a table with its notes."""
    keys = ["line_item"] + rows[0][1:]
    return json.dumps({"caption": caption, "paragraphs": paragraphs,
                       "rows": [dict(zip(keys, row, strict=True)) for row in rows[1:]]})


TABLES: dict[str, tuple[str, list[list[str]]]] = {
    # per-share rows under a section row, beside amounts in millions
    "eps": ("Net income per share (In millions, except per share amounts)", [
        ["", "2019", "2018", "2017"],
        ["Net income", "$ 1,169", "$ 116", "$ 481"],
        ["Shares used in basic computation", "254", "268", "275"],
        ["Net Income per Share:", "", "", ""],
        ["Basic", "$ 4.60", "$ 0.43", "$ 1.75"],
        ["Diluted net income per common share", "$ 4.51", "$ 0.42", "$ 1.71"]]),
    # rates in points, a negative one in parentheses
    "growth": ("Breakup of revenue growth", [
        ["", "FY 2019 (%)", "FY 2018 (%)"],
        ["Business growth", "11.4", "6.7"],
        ["Impact of exchange rate", "7.6", "(2.3)"],
        ["Total growth", "19.0", "4.4"]]),
    "balance": ("Parent entity balance sheet ($ in thousands)", [
        ["", "2019", "2018"],
        ["Total current assets", "121,041", "73,202"],
        ["Total assets", "383,665", "336,032"],
        ["Total current liabilities", "154,619", "90,392"],
        ["Total liabilities", "155,521", "92,364"],
        ["Total equity", "228,144", "243,668"]]),
    "cash flow": ("Free cash flow (in € millions)", [
        ["", "2019", "2018", "2017"],
        ["Operating free cash flow", "7,071", "7,001", "5,627"],
        ["Taxation", "(1,040)", "(1,010)", "(761)"],
        ["Free cash flow", "4,411", "4,044", "3,316"]]),
    "deferred tax": ("Deferred tax assets ($ in thousands)", [
        ["", "2019", "2018"],
        ["Deferred revenue", "425", "398"],
        ["Accrued warranty", "33", "41"],
        ["Inventory reserves", "1,204", "1,150"],
        ["Gross deferred tax assets", "38,771", "35,500"]]),
    "segments": ("Revenue and cost of sales ($ in millions)", [
        ["", "2019", "2018"],
        ["Revenue:", "", ""],
        ["Product", "39,005", "36,709"],
        ["Services", "12,899", "12,621"],
        ["Total", "51,904", "49,330"],
        ["Cost of sales:", "", ""],
        ["Product", "14,863", "14,427"],
        ["Services", "4,375", "4,297"],
        ["Total", "19,238", "18,724"]]),
    "customers": ("Customers as a percentage of revenue", [
        ["", "2019", "2018", "2017"],
        ["Apple Inc. (“Apple”)", "32%", "36%", "34%"],
        ["Huawei Technologies Co., Ltd. (“Huawei”)", "13%", "8%", "11%"]]),
    "receivables": ("Accounts receivable ($ in thousands)", [
        ["", "Accounts Receivable, Gross", "Allowance for Losses", "Accounts Receivable, Net"],
        ["December 31, 2019", "", "", ""],
        ["Transaction related", "$12,863", "$(238)", "$12,625"],
        ["Total", "$19,731", "$(238)", "$19,493"],
        ["December 31, 2018", "", "", ""],
        ["Transaction related", "$14,704", "$(168)", "$14,536"],
        ["Total", "$15,568", "$(168)", "$15,400"]]),
    "subscribers": ("Customer statistics", [
        ["", "Customers August 31, 2019", "Net additions August 31, 2019", "Net additions August 31, 2018 (1)"],
        ["Internet service customers", "446,137", "21,189", "21,417"],
        ["Video service customers", "312,555", "(4,697)", "(6,760)"]]),
    "segment balances": ("Contract balances by segment ($ in thousands)", [
        ["", "Cubic Transportation Systems", "Cubic Mission Solutions", "Cubic Global Defense", "Total"],
        ["Net balances at September 30, 2018", "$ 200,000", "170,000", "140,000", "510,000"],
        ["Net balances at September 30, 2019", "$ 254,592", "181,424", "142,081", "578,097"]]),
    "restricted shares": ("Non-vested restricted shares", [
        ["", "2019", "2018"],
        ["Non-vested at January 1", "1,283,000", "1,100,000"],
        ["Granted", "473,550", "520,000"],
        ["Vested", "(365,223)", "(320,100)"],
        ["Forfeited", "(12,632)", "(16,900)"],
        ["Non-vested at December 31", "1,378,695", "1,283,000"]]),
    "cost of revenue": ("Cost of revenue ($ in thousands)", [
        ["", "2019 Amount", "2019 % of total revenue", "2018 Amount", "2018 % of total revenue"],
        ["Services", "243,053", "34%", "246,548", "38%"],
        ["Total cost of revenue", "324,350", "45%", "296,783", "45%"]]),
}

HOTELS = ("Hotels", [
    ["", "F19 53 WEEKS", "F18 52 WEEKS", "CHANGE"],
    ["Sales", "1,671", "1,612", "3.7%"],
    ["EBITDA", "372", "361", "3.5%"],
    ["Depreciation and amortisation", "(111)", "(102)", "9.9%"],
    ["EBIT", "261", "259", "1.0%"]])
HOTEL_NOTES = ["Hotels sales increased by 3.7% in F19.",
               "Normalised gross profit declined by 54 bps reflecting business mix. Costs of doing business were well "
               "controlled and declined by 18 bps on a normalised basis.",
               "Normalised ROFE decreased by 38 bps due to an increase in funds employed."]


@tool
def get_table(form: str, table: str) -> str:
    """One table of the annual report, in the form asked for ('json', 'markdown', 'pdf' or 'records')."""
    if table == "hotels":
        return _records("Table 1 $ in millions", HOTELS[1], HOTEL_NOTES)
    caption, rows = TABLES[table]
    return FORMS[form](caption, rows)


@pytest.fixture
def audit(tmp_path: Path):
    run = tool_run_auditor(tmp_path, [get_table], "Answer the analyst's questions on the annual report.")

    def verdict(form: str, table: str, sentence: str, figure: str) -> Any:
        return claim_of(run([("get_table", {"form": form, "table": table})], sentence), figure)

    return verdict


def _check(audit, form: str, table: str, right: list[tuple[str, str]], wrong: list[tuple[str, str]]) -> None:
    for sentence, figure in right:
        record = audit(form, table, sentence, figure)
        assert record.verdict in COVERED, (sentence, record.verdict, record.notes)
    for sentence, figure in wrong:
        record = audit(form, table, sentence, figure)
        assert record.verdict in FLAGGED, (sentence, record.verdict, record.notes)


@pytest.mark.parametrize("form", sorted(FORMS))
def test_per_share_rows_keep_no_scale_under_a_section_or_per_common_share(audit, form: str) -> None:
    # '(In millions, except per share amounts)': 'Basic' under 'Net Income per Share:' is dollars per share
    _check(audit, form, "eps",
           [("The change in the basic net income per share between 2017 and 2018 was -$1.32.", "-$1.32"),
            ("The change in diluted net income per common share between 2017 and 2018 was -$1.29.", "-$1.29")],
           [("The change in the basic net income per share between 2017 and 2018 was -$1.23.", "-$1.23"),
            ("The change in the basic net income per share between 2018 and 2019 was -$1.32.", "-$1.32"),
            ("The change in diluted net income per common share between 2018 and 2019 was -$1.29.", "-$1.29")])


@pytest.mark.parametrize("form", sorted(FORMS))
def test_a_parenthesised_rate_under_a_percent_header_is_negative(audit, form: str) -> None:
    _check(audit, form, "growth",
           [("The change in impact of exchange rate from FY 2018 to FY 2019 was 9.9 percent.", "9.9 percent")],
           # 7.6 - 2.3 reads '(2.3)' as a rise; 10.9 is invented; business growth changed 4.7
           [("The change in impact of exchange rate from FY 2018 to FY 2019 was 5.3 percent.", "5.3 percent"),
            ("The change in impact of exchange rate from FY 2018 to FY 2019 was 10.9 percent.", "10.9 percent"),
            ("The change in business growth from FY 2018 to FY 2019 was 9.9 percent.", "9.9 percent")])


def test_bps_in_the_notes_above_records_is_no_unit_of_the_table(audit) -> None:
    # 'declined by 54 bps' in a paragraph above the rows made every cell a basis point figure (1,671 bps)
    _check(audit, "records", "hotels",
           [("The average sales for years F19 and F18 was $1,641.5 million.", "$1,641.5 million"),
            ("The nominal difference in EBITDA between F19 and F18 came to $11 million.", "$11 million"),
            ("We put the percentage constitution of depreciation and amortisation in EBITDA in F19 at 29.84%.",
             "29.84%")],
           [("The average sales for years F19 and F18 was $1,614.5 million.", "$1,614.5 million"),
            ("The average EBIT for years F19 and F18 was $1,641.5 million.", "$1,641.5 million"),
            ("We put the percentage constitution of depreciation and amortisation in EBITDA in F18 at 29.84%.",
             "29.84%"),
            ("We put the percentage constitution of depreciation and amortisation in EBITDA in F19 at 30.84%.",
             "30.84%")])


@pytest.mark.parametrize("form", sorted(FORMS))
def test_a_named_ratio_divides_the_rows_its_definition_names(audit, form: str) -> None:
    _check(audit, form, "balance",
           [("The current ratio in 2019 was 0.78.", "0.78"),
            ("We put the debt-to-asset ratio in 2018 at 0.27.", "0.27"),
            ("The change in current ratio from 2018 to 2019 was -0.03.", "-0.03")],
           [("The current ratio in 2019 was 0.81.", "0.81"),  # 2018's ratio
            ("The current ratio in 2019 was 0.88.", "0.88"),  # invented
            ("We put the debt-to-equity ratio in 2018 at 0.27.", "0.27"),  # another ratio's definition
            ("The change in current ratio from 2018 to 2019 was -0.13.", "-0.13")])


@pytest.mark.parametrize("form", sorted(FORMS))
def test_a_two_year_means_change_and_a_difference_of_two_means(audit, form: str) -> None:
    _check(audit, form, "cash flow",
           # (4,411 + 4,044) / 2 - (4,044 + 3,316) / 2; (4,411 + 4,044) / 2 - (7,071 + 7,001) / 2
           [("The change between 2018 and 2019 average free cash flow came to €547.5 million.", "€547.5 million"),
            ("The difference between the average free cash flow and the average operating free cash flow from 2018 "
             "to 2019 came to €2,808.5 million.", "€2,808.5 million")],
           [("The change between 2018 and 2019 average free cash flow came to €557.5 million.", "€557.5 million"),
            ("The change between 2018 and 2019 average operating free cash flow came to €547.5 million.",
             "€547.5 million"),
            ("The difference between the average free cash flow and the average operating free cash flow from 2017 "
             "to 2018 came to €2,808.5 million.", "€2,808.5 million"),
            # one 'average' names no difference of two means
            ("The difference between the average free cash flow and operating free cash flow from 2018 to 2019 came "
             "to €2,808.5 million.", "€2,808.5 million")])


@pytest.mark.parametrize("form", sorted(FORMS))
def test_a_share_of_a_sum_uses_every_row_the_claim_names(audit, form: str) -> None:
    _check(audit, form, "deferred tax",
           [("In 2019, the proportion of deferred revenue and accrued warranty over gross deferred tax assets was "
             "1.18%.", "1.18%")],
           [("In 2018, the proportion of deferred revenue and accrued warranty over gross deferred tax assets was "
             "1.18%.", "1.18%"),
            ("In 2019, the proportion of deferred revenue and accrued warranty over gross deferred tax assets was "
             "1.28%.", "1.28%"),
            ("In 2019, the proportion of deferred revenue and inventory reserves over gross deferred tax assets "
             "was 1.18%.", "1.18%")])


@pytest.mark.parametrize("form", sorted(FORMS))
def test_a_total_row_alone_totals_its_section(audit, form: str) -> None:
    _check(audit, form, "segments",
           [("The percentage change in total revenue between 2018 and 2019 was 5.22%.", "5.22%"),
            ("The change in total cost of sales between 2018 and 2019 was $514 million.", "$514 million")],
           [("The percentage change in total cost of sales between 2018 and 2019 was 5.22%.", "5.22%"),
            ("The percentage change in total revenue between 2018 and 2019 was 5.32%.", "5.32%"),
            ("The change in total revenue between 2018 and 2019 was $514 million.", "$514 million")])


@pytest.mark.parametrize("form", sorted(FORMS))
def test_a_row_is_named_by_the_short_name_its_label_defines(audit, form: str) -> None:
    _check(audit, form, "customers",
           [("The average percentage of revenue from Apple and Huawei in 2017 was 22.5%.", "22.5%"),
            ("The average percentage of revenue from Apple and Huawei in 2018 was 22%.", "22%")],
           [("The average percentage of revenue from Apple and Huawei in 2018 was 22.5%.", "22.5%"),
            ("The average percentage of revenue from Apple and Huawei in 2017 was 23.5%.", "23.5%")])


# page text sets such a date line centred over the columns, as a header: the rule reads the other forms
@pytest.mark.parametrize("form", ["json", "markdown"])
def test_a_date_row_dates_the_block_below_it(audit, form: str) -> None:
    _check(audit, form, "receivables",
           [("The change in the total gross accounts receivable between 2018 and 2019 was $4,163 thousand.",
             "$4,163 thousand"),
            ("The percentage change in the total allowance for losses between 2018 and 2019 was 41.67%.", "41.67%")],
           [("The change in the total gross accounts receivable between 2018 and 2019 was $4,263 thousand.",
             "$4,263 thousand"),
            # 2019's gross total less 2018's net total: two columns, however the total rows are named
            ("The change in the total gross accounts receivable between 2018 and 2019 was $4,331 thousand.",
             "$4,331 thousand"),
            ("The total gross accounts receivable in 2018 was $19,731 thousand.", "$19,731 thousand"),
            ("The total net accounts receivable in 2019 was $15,400 thousand.", "$15,400 thousand")])


# the generic page layout sets headers wider than their columns, which page text does not align (see the real
# page layout of the last test)
@pytest.mark.parametrize("form", ["json", "markdown"])
def test_a_footnote_mark_on_a_period_header_splits_no_series(audit, form: str) -> None:
    _check(audit, form, "subscribers",
           [("The average net additions of internet service customers between 2018 and 2019 was 21,303.", "21,303")],
           [("The average net additions of internet service customers between 2018 and 2019 was 21,403.", "21,403"),
            ("The average net additions of video service customers between 2018 and 2019 was 21,303.", "21,303")])


@pytest.mark.parametrize("form", ["json", "markdown"])
def test_the_words_of_a_row_name_no_column_of_it(audit, form: str) -> None:
    # 'total cost of revenue' names the row; '% of total revenue' is no series the claim picks by those words
    _check(audit, form, "cost of revenue",
           [("The average total cost of revenue for 2018 and 2019 was $310,566.5 thousand.", "$310,566.5 thousand")],
           [("The average total cost of revenue for 2018 and 2019 was $311,566.5 thousand.", "$311,566.5 thousand"),
            ("The average services cost of revenue for 2018 and 2019 was $310,566.5 thousand.",
             "$310,566.5 thousand")])


def test_the_words_of_a_row_name_no_column_of_it_on_a_page(tmp_path: Path) -> None:
    # the page of test_false_alarms ('Amount' and '% of total revenue' under each year, a scale line below)
    run = tool_run_auditor(tmp_path, [get_page], "Answer the analyst's questions on the annual report.")
    for sentence, figure, covered in [
            ("The average total cost of revenue for 2018 and 2019 was $310,566.5 thousand.", "$310,566.5 thousand", True),
            ("The average total cost of revenue for 2018 and 2019 was $310,656.5 thousand.", "$310,656.5 thousand", False),
            ("The average total cost of revenue for 2017 and 2018 was $310,566.5 thousand.", "$310,566.5 thousand", False)]:
        record = claim_of(run([("get_page", {"table": "cost of revenue"})], sentence), figure)
        assert (record.verdict in COVERED) is covered and (covered or record.verdict in FLAGGED), (sentence, record.notes)


# page text: the generic layout sets these headers wider than their columns (see above)
@pytest.mark.parametrize("form", ["json", "markdown"])
def test_the_columns_a_claim_names_are_the_parts_of_a_row(audit, form: str) -> None:
    # the mean of three segments' cells beside their 'Total' column; a share of two of them in that total
    _check(audit, form, "segment balances",
           [("The average of the net balances at September 30, 2019 for Cubic Transportation Systems, Cubic Mission "
             "Solutions and Cubic Global Defense came to $192,699 thousand.", "$192,699 thousand"),
            ("The proportion of net balances of Cubic Transportation Systems and Cubic Global Defense over total net "
             "balances at September 30, 2019 was 0.69.", "0.69")],
           [("The average of the net balances at September 30, 2018 for Cubic Transportation Systems, Cubic Mission "
             "Solutions and Cubic Global Defense came to $192,699 thousand.", "$192,699 thousand"),
            ("The average of the net balances at September 30, 2019 for Cubic Transportation Systems and Cubic "
             "Mission Solutions came to $192,699 thousand.", "$192,699 thousand"),
            ("The average of the net balances at September 30, 2019 for Cubic Transportation Systems, Cubic Mission "
             "Solutions and Cubic Global Defense came to $193,699 thousand.", "$193,699 thousand"),
            ("The proportion of net balances of Cubic Transportation Systems and Cubic Global Defense over total net "
             "balances at September 30, 2018 was 0.69.", "0.69")])


@pytest.mark.parametrize("form", sorted(FORMS))
def test_a_deduction_a_claim_names_by_its_verb_is_its_cell_in_parentheses(audit, form: str) -> None:
    # 'shares vested ... 365,223': the roll-forward deducts them as '(365,223)'
    _check(audit, form, "restricted shares",
           [("The number of non-vested shares vested in 2019 was 365,223.", "365,223"),
            ("We put the number of non-vested shares forfeited in 2018 at 16,900.", "16,900")],
           [("The number of non-vested shares vested in 2018 was 365,223.", "365,223"),
            ("The number of non-vested shares vested in 2019 was 365,232.", "365,232"),
            ("The number of non-vested shares forfeited in 2019 was 365,223.", "365,223"),
            ("The number of non-vested shares granted in 2019 was 12,632.", "12,632")])
