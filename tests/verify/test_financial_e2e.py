"""Issue 10 end to end: verdicts on financial tables, scales, units, periods, arithmetic and citations,
over real captured runs. Each test runs a compiled LangGraph graph (`plan` asks for tools, a `ToolNode`
runs them, `write` returns the report), captures it with a `Snapshot` and audits the report with the
cascade, as a user's test would. Every rule has its negative: the wrong column, unit, scale or citation,
and an invented figure, each flagged and never `verified`.

Tests that fail on today's verifier are `xfail(strict=True)` with what is missing; the rebuild of the
verifier removes the marker when it makes them pass."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from langchain_core.tools import tool

from pytest_auditfence import Verdict
from tool_runs import claim_of, tool_run_auditor

COVERED = (Verdict.VERIFIED, Verdict.DERIVED)


def missing(what: str) -> pytest.MarkDecorator:
    return pytest.mark.xfail(strict=True, reason=f"issue 10: {what}")


# -- the tools: what a filings API, a document store and a web search return ----------------------------


@tool
def get_income_statement(ticker: str) -> str:
    """Income statement rows of a company's 10-K, as JSON (a list of lists under 'table')."""
    return json.dumps({
        "company": "Halvorsen Robotics Inc.", "ticker": ticker, "title": "Consolidated income statement",
        "units": "USD millions",
        "table": [["line_item", "FY2021", "FY2022", "FY2023", "FY2024"],
                  ["Revenue", "1,000", "1,051", "1,102", "1,234"],
                  ["Cost of revenue", "590", "611", "655", "724"],
                  ["Net income", "92", "104", "121", "151"],
                  ["Employees", "4,100", "4,380", "4,610", "4,850"]],
    })


@tool
def get_segment_data(ticker: str) -> list[dict[str, Any]]:
    """Segment revenue records (USD millions) for FY2024."""
    return [{"segment": "Industrial", "revenue_usd_millions": 612, "fiscal_year": 2024},
            {"segment": "Medical", "revenue_usd_millions": 418, "fiscal_year": 2024},
            {"segment": "Logistics", "revenue_usd_millions": 204, "fiscal_year": 2024}]


@tool
def get_billing_metrics(ticker: str) -> dict[str, Any]:
    """Billing revenue and net sales fields of a data API."""
    return {"ticker": "AAPL", "metric": "Billing", "revenue_usd_millions": 77, "net_sales_musd": "383,285",
            "fiscal_year": 2023}


COMPENSATION_MD = """Table 4. Stock-based compensation expense by line item (in thousands)

| | 2019 | 2018 |
|---|---|---|
| Cost of revenue | 212 | 198 |
| Research and development | 1,140 | 962 |
| Stock-based compensation | 525 | 480 |
| Total | 1,877 | 1,640 |
"""


@tool
def get_note(note: str) -> str:
    """A note of the annual report, as markdown."""
    return COMPENSATION_MD


FISCAL_MD = """Consolidated statements of operations (in millions, except per share data)

| Years ended | July 29, 2017 | July 30, 2016 |
|---|---|---|
| Revenue | 48,005 | 49,247 |
| Net income | 9,609 | 10,739 |
| Diluted EPS | 1.90 | 2.11 |
"""


@tool
def get_statement(company: str) -> str:
    """A statement of operations, as markdown."""
    return FISCAL_MD


PDF_PAGE = """ACME CORP -- ANNUAL REPORT 2019                                                   Page 47
CONSOLIDATED BALANCE SHEETS
(In millions)

                                              Years Ended December 31,
                                              2019            2018
Current liabilities
   Accounts payable                           $ 1248          $ 1102
   Accrued compensation                          361             344
Total current liabilities                     $ 1609          $ 1446
Long-term debt                                  2,950           3,100
"""


@tool
def read_pdf_page(page: int) -> str:
    """Text of one page of the annual report PDF (a text extraction)."""
    return PDF_PAGE


SEARCH = """Results for "battery storage 2024":
1. https://energy.example.org/storage-2024
   Grid storage additions reached 10.3 GW in 2024, led by California and Arizona.
2. https://news.example.com/sodium-ion
   Sodium-ion packs cost $87 per kWh in 2024, against $95 per kWh for LFP packs.
3. https://stats.example.net/capacity
   Utility-scale battery capacity in the US totalled 26 GW at the end of 2024.
"""


@tool
def web_search(query: str) -> str:
    """Search the web; returns a numbered list of URLs with a snippet each."""
    return SEARCH


PAGES = {
    "https://energy.example.org/storage-2024": "Grid storage additions reached 10.3 GW in 2024. California "
    "added 4.2 GW of batteries, more than any other state.",
    "https://news.example.com/sodium-ion": "Sodium-ion packs cost $87 per kWh in 2024, $8 per kWh less than "
    "LFP packs at $95 per kWh.",
}


@tool
def fetch(url: str) -> str:
    """Fetch the text of a web page."""
    return PAGES[url]


PASSAGES = {1: "Profile: The company has operated for twenty years and employs 4,850 people in nine countries.",
            2: "Dividends: The board raised the dividend for the 65th consecutive year, to $2.41 per share."}


@tool
def fetch_passage(n: int) -> str:
    """One passage of the company profile (the text only, without a header)."""
    return PASSAGES[n]


SEGMENT_MD = """Table 5. Consumer segment (in millions, except for percentages)

|  | Fiscal Year |  | Variance in |  |
|---|---|---|---|---|
|  | 2019 | 2018 | Dollar | Percent |
| Net revenues | $2,410 | $2,050 | $360 | 18% |
| Operating income (loss) | $(120) | $(310) | $190 | 61% |
| Deferred revenue | 520 | 490 | 30 | 6% |
"""


@tool
def get_segment_table(segment: str) -> str:
    """A segment's results with their variance columns, as markdown."""
    return SEGMENT_MD


MOVEMENTS_CSV = """Table 6. Movement of investments (in millions)
,2019,2018
Additions (Note (a)),"4,618","6,807"
Transfers (Note (b)),"(1,421)","(7,816)"
Disposals (Note (c)),"(1,664)","(1,405)"
"""


@tool
def get_movements(note: str) -> str:
    """A note's movement table, as CSV with footnote marks after the row labels."""
    return MOVEMENTS_CSV


QUARTERS_MD = """Table 7. Quarterly results (in millions, except percentages)

| | Fiscal 2019 | Fiscal 2019 | Fiscal 2018 | Fiscal 2018 |
|---|---|---|---|---|
| | First Quarter | Second Quarter | First Quarter | Second Quarter |
| Revenue | 410 | 452 | 388 | 401 |
| Gross margin | 41.5% | 41.2% | 40.8% | 40.6% |
"""


@tool
def get_quarters(year: int) -> str:
    """Quarterly results of two fiscal years, as markdown."""
    return QUARTERS_MD


OBLIGATIONS_CSV = """Table 8. Contractual obligations (in thousands)
,Payments due by period,,
Contractual obligations,Less than 1 year,1-3 years,Total
Operating lease obligations,$840,"$1,960","$2,800"
Purchase commitments,"1,500",700,"2,200"
Total,"$2,340","$2,660","$5,000"
"""


@tool
def get_obligations(note: str) -> str:
    """The contractual obligations table of the annual report, as CSV-like text."""
    return OBLIGATIONS_CSV


NET_SALES_MD = """Table 9. Net sales by product line (in thousands)

| Net sales | 2019 | 2018 |
|---|---|---|
| Ceramic Parts | 300 | 280 |
| Film Parts | 500 | 410 |
| Total Electronic Parts | 800 | 690 |
| Other Products | 450 | 390 |
| Total Net Sales | 1,250 | 1,080 |
"""


@tool
def get_net_sales(year: int) -> str:
    """Net sales by product line, as markdown."""
    return NET_SALES_MD


TOOLS = [get_statement, get_income_statement, get_segment_data, get_billing_metrics, get_note, read_pdf_page, web_search,
         fetch, fetch_passage, get_segment_table, get_movements, get_quarters, get_obligations, get_net_sales]


@pytest.fixture
def audit(tmp_path: Path):
    """`audit(calls, report) -> Cascade`: one captured run whose tools answer `calls`, audited."""
    return tool_run_auditor(tmp_path, TOOLS, "Write a research note on the company.")


def case(calls: list[tuple[str, dict[str, Any]]], sentence: str, figure: str, *, id: str,
         missing_today: str | None = None) -> Any:
    """One report sentence over the tools' answers; `missing_today` marks it xfail with what is missing."""
    marks = [missing(missing_today)] if missing_today else []
    return pytest.param(calls, sentence, figure, id=id, marks=marks)


INCOME = [("get_income_statement", {"ticker": "HALV"})]
NOTE = [("get_note", {"note": "stock-based compensation"})]
PDF = [("read_pdf_page", {"page": 47})]
FISCAL = [("get_statement", {"company": "CSCO"})]
SEGMENTS = [("get_segment_data", {"ticker": "HALV"})]
BILLING = [("get_billing_metrics", {"ticker": "AAPL"})]
WEB = [("web_search", {"query": "battery storage 2024"}),
       ("fetch", {"url": "https://energy.example.org/storage-2024"}),
       ("fetch", {"url": "https://news.example.com/sodium-ion"})]
PROFILE = [("fetch_passage", {"n": 1}), ("fetch_passage", {"n": 2})]



# -- correct figures: a cell read with its row label, its column (period) and the table's scale; a
# restatement in another scale with the precision shown; units as dimensions; numbers as words

CORRECT = [
    case(INCOME, "Revenue was $1,234 million in FY2024.", "$1,234 million", id="json-table-cell"),
    case(INCOME, "Net income reached $121 million in FY2023.", "$121 million", id="json-table-cell-other-row"),
    case(NOTE, "Stock-based compensation was $525 thousand in 2019.", "$525 thousand",
         id="markdown-caption-in-thousands"),
    case(NOTE, "Stock-based compensation was $480,000 in 2018.", "$480,000", id="markdown-thousands-written-out"),
    case(PDF, "Accounts payable were $1,248 million at the end of 2019.", "$1,248 million",
         id="pdf-page-in-millions"),
    case(PDF, "Total current liabilities were $1.609 billion in 2019.", "$1.609 billion",
         id="pdf-page-restated-in-billions"),
    case(PDF, "Accrued compensation, a current liability, was $361 million in 2019.", "$361 million",
         id="pdf-page-sub-row-under-section-row"),
    case(FISCAL, "Fiscal 2017 revenue was $48,005 million.", "$48,005 million", id="fiscal-year-of-a-dated-column"),
    case(FISCAL, "Diluted EPS was $1.90 in fiscal 2017.", "$1.90", id="per-share-row-keeps-its-scale"),
    case(BILLING, "Billing revenue was $77 million.", "$77 million", id="record-field-named-by-unit"),
    case(BILLING, "AAPL net sales were $383,285 million in fiscal 2023.", "$383,285 million",
         id="record-field-musd-with-ticker"),
    case(SEGMENTS, "Industrial revenue was $612 million in FY2024.", "$612 million", id="json-records-row"),
    case(INCOME, "Revenue was $1.234 billion in FY2024.", "$1.234 billion", id="restated-billions-every-digit"),
    case(INCOME, "Revenue was $1.23 billion in FY2024.", "$1.23 billion", id="restated-billions-rounded"),
    case(INCOME, "Revenue was $1,234,000,000 in FY2024.", "$1,234,000,000", id="restated-in-units"),
    case(WEB, "Grid storage additions reached 10.3 GW in 2024.", "10.3 GW", id="capacity-in-gw"),
    case(WEB, "Sodium-ion packs cost $87 per kWh in 2024.", "$87 per kWh", id="price-per-kwh"),
    case(WEB, "Sodium-ion packs were $8 per kWh cheaper than LFP packs.", "$8 per kWh", id="difference-per-kwh"),
    case(PROFILE, "The company has operated for 20 years.", "20 years", id="number-written-as-a-word"),
    case(PROFILE, "The dividend rose for the 65th consecutive year.", "65th", id="ordinal"),
]


@pytest.mark.parametrize("calls, sentence, figure", CORRECT)
def test_a_correct_figure_is_covered(audit, calls, sentence: str, figure: str) -> None:
    cascade = audit(calls, sentence)
    record = claim_of(cascade, figure)
    assert record.verdict in COVERED, (record.verdict, record.notes)
    assert record.evidence and all(e.node == "tools" for e in record.evidence), record.evidence
    assert cascade.hallucinations.numerator == 0


# -- the negatives: the wrong column, row, unit, scale or precision, and invented figures

WRONG = [
    case(NOTE, "Stock-based compensation was $480 thousand in 2019.", "$480 thousand", id="markdown-wrong-column"),
    case(NOTE, "Stock-based compensation was $525 million in 2019.", "$525 million", id="markdown-wrong-scale"),
    case(NOTE, "Research and development was $525 thousand in 2019.", "$525 thousand", id="markdown-wrong-row"),
    case(INCOME, "Revenue was $1,102 million in FY2024.", "$1,102 million", id="json-table-wrong-column"),
    case(PDF, "Accounts payable were $1,102 million at the end of 2019.", "$1,102 million",
         id="pdf-page-wrong-column"),
    case(PDF, "Accounts payable were 1,248 GW at the end of 2019.", "1,248 GW", id="pdf-page-wrong-unit"),
    case(FISCAL, "Fiscal 2017 revenue was $49,247 million.", "$49,247 million", id="fiscal-wrong-column"),
    case(FISCAL, "Diluted EPS was $1.90 million in fiscal 2017.", "$1.90 million", id="per-share-as-millions"),
    case(BILLING, "Billing revenue was $77 billion.", "$77 billion", id="record-wrong-scale"),
    case(BILLING, "AAPL net sales were $383,825 million in fiscal 2023.", "$383,825 million",
         id="record-digits-swapped"),
    case(SEGMENTS, "Industrial revenue was $418 million in FY2024.", "$418 million", id="json-records-wrong-row"),
    case(INCOME, "Revenue was $1.3 billion in FY2024.", "$1.3 billion", id="restated-beyond-precision"),
    case(INCOME, "Revenue was $1,234 thousand in FY2024.", "$1,234 thousand", id="restated-wrong-scale"),
    case(INCOME, "Revenue was $12.34 billion in FY2024.", "$12.34 billion", id="restated-ten-times"),
    case(WEB, "Sodium-ion packs were $10.3 per kWh cheaper than LFP packs.", "$10.3 per kWh",
         id="gw-figure-for-a-price-per-kwh"),
    case(WEB, "Sodium-ion packs cost $78 per kWh in 2024.", "$78 per kWh", id="price-digits-swapped"),
    case(WEB, "Texas added 4.6 GW of batteries in 2024.", "4.6 GW", id="invented-gw"),
    case(WEB, "California also added 3 MW of rooftop storage.", "3 MW", id="invented-small-figure-with-unit"),
    case(PROFILE, "The company has operated for 30 years.", "30 years", id="number-as-word-wrong"),
    case(PROFILE, "The dividend rose for the 66th consecutive year.", "66th", id="ordinal-wrong"),
    case(WEB, "Sodium-ion packs cost $87 per kWh in 2021.", "$87 per kWh", id="year-no-source-names"),
    case(PROFILE, "The board raised the dividend to $2.41 per share in the fifth quarter.", "fifth quarter",
         id="quarter-no-source-names"),
]


@pytest.mark.parametrize("calls, sentence, figure", WRONG)
def test_a_wrong_figure_is_flagged_never_verified(audit, calls, sentence: str, figure: str) -> None:
    cascade = audit(calls, sentence)
    record = claim_of(cascade, figure)
    assert cascade.policy.is_hallucination(record.verdict), (record.verdict, record.notes, record.evidence)
    assert cascade.hallucinations.numerator == 1


# -- periods: another period's value of the same subject is what makes a claim contradicted

OTHER_PERIOD = [
    case(INCOME, "Revenue was $1,102 million in FY2024.", "$1,102 million", id="json-table"),
    case(NOTE, "Stock-based compensation was $480 thousand in 2019.", "$480 thousand", id="markdown"),
    case(PDF, "Accounts payable were $1,102 million at the end of 2019.", "$1,102 million", id="pdf-page"),
    case(FISCAL, "Fiscal 2017 revenue was $49,247 million.", "$49,247 million", id="fiscal-year-of-a-dated-column"),
]


@pytest.mark.parametrize("calls, sentence, figure", OTHER_PERIOD)
def test_another_periods_value_is_contradicted(audit, calls, sentence: str, figure: str) -> None:
    record = claim_of(audit(calls, sentence), figure)
    assert record.verdict is Verdict.CONTRADICTED, (record.verdict, record.notes)


# -- derived figures: several steps, operands about the claim's subject, the formula recorded

DERIVED = [
    case(SEGMENTS, "The three segments' revenue totalled $1,234 million in FY2024.", "$1,234 million",
         id="sum-of-three"),
    case(SEGMENTS, "Average segment revenue was $411.3 million in FY2024.", "$411.3 million", id="average"),
    case(SEGMENTS, "Industrial and Medical together made up 83.5% of FY2024 revenue.", "83.5%",
         id="ratio-of-a-sum"),
    case(INCOME, "Revenue grew 12.0% in FY2024.", "12.0%", id="percent-change"),
    case(INCOME, "Revenue grew at a 7.3% CAGR from FY2021 to FY2024.", "7.3%", id="cagr"),
    case(INCOME, "Net margin was 12.2% in FY2024.", "12.2%", id="margin"),
]


@pytest.mark.parametrize("calls, sentence, figure", DERIVED)
def test_a_computed_figure_is_derived_with_its_formula(audit, calls, sentence: str, figure: str) -> None:
    cascade = audit(calls, sentence)
    record = claim_of(cascade, figure)
    assert record.verdict is Verdict.DERIVED, (record.verdict, record.notes)
    assert record.formula and record.evidence, record
    assert cascade.hallucinations.numerator == 0


WRONG_DERIVED = [
    case(SEGMENTS, "The three segments' revenue totalled $1,334 million in FY2024.", "$1,334 million", id="sum"),
    case(SEGMENTS, "Average segment revenue was $451.3 million in FY2024.", "$451.3 million", id="average"),
    case(SEGMENTS, "Industrial and Medical together made up 88.5% of FY2024 revenue.", "88.5%",
         id="ratio-of-a-sum"),
    case(INCOME, "Revenue grew 14.0% in FY2024.", "14.0%", id="percent-change"),
    case(INCOME, "Revenue grew at a 9.3% CAGR from FY2021 to FY2024.", "9.3%", id="cagr"),
    # a few percent off, and operands of another subject or period: each new operation's negatives
    case(SEGMENTS, "The three segments' revenue totalled $1,234 million in FY2023.", "$1,234 million",
         id="sum-of-another-period"),
    case(SEGMENTS, "Average segment revenue was $423.7 million in FY2024.", "$423.7 million", id="average-3pct-off"),
    case(SEGMENTS, "Industrial and Logistics together made up 83.5% of FY2024 revenue.", "83.5%",
         id="share-of-other-items"),
    case(SEGMENTS, "Industrial and Medical together made up 86.0% of FY2024 revenue.", "86.0%", id="share-3pct-off"),
    case(INCOME, "Revenue grew at a 7.3% CAGR from FY2022 to FY2024.", "7.3%", id="cagr-of-another-range"),
    case(INCOME, "Revenue grew at a 7.5% CAGR from FY2021 to FY2024.", "7.5%", id="cagr-3pct-off"),
    case(INCOME, "Net margin was 12.6% in FY2024.", "12.6%", id="margin-3pct-off"),
    case(INCOME, "Net margin was 11.0% in FY2024.", "11.0%", id="margin-of-the-other-period"),
    case(INCOME, "Employee margin was 12.2% in FY2024.", "12.2%", id="margin-of-another-row"),
]


@pytest.mark.parametrize("calls, sentence, figure", WRONG_DERIVED)
def test_a_miscomputed_figure_is_flagged(audit, calls, sentence: str, figure: str) -> None:
    cascade = audit(calls, sentence)
    record = claim_of(cascade, figure)
    assert cascade.policy.is_hallucination(record.verdict), (record.verdict, record.notes)


def test_the_constant_100_of_a_written_formula_is_not_an_atom(audit) -> None:
    cascade = audit(INCOME, "Revenue grew 12.0% in FY2024, that is (1,234 - 1,102) / 1,102 x 100.")
    record = claim_of(cascade, "12.0%")
    assert record.verdict is Verdict.DERIVED, (record.verdict, record.notes)
    assert not any("100 found" in note for c in cascade.claims for note in c.notes)
    assert cascade.hallucinations.numerator == 0


@pytest.mark.parametrize("formula", ["(1,234 - 1,102) / 1,120 x 100", "(1,234 - 1,102) / 655 x 100"],
                         ids=["wrong-operand", "operand-of-another-row"])
def test_a_written_formula_with_a_wrong_operand_is_flagged(audit, formula: str) -> None:
    cascade = audit(INCOME, f"Revenue grew 12.0% in FY2024, that is {formula}.")
    assert cascade.hallucinations.numerator >= 1


# -- citations: the cited source must hold the figure; a citation resolves to the call that fetched it


def test_a_claim_citing_the_page_that_holds_the_figure_is_verified(audit) -> None:
    record = claim_of(audit(WEB, "Sodium-ion packs cost $87 per kWh (source: https://news.example.com/sodium-ion)."),
                      "$87 per kWh")
    assert record.verdict is Verdict.VERIFIED, (record.verdict, record.notes)
    assert not any("resolves to no source" in note for note in record.notes), record.notes


def test_a_claim_citing_another_page_is_misattributed(audit) -> None:
    cascade = audit(WEB, "Sodium-ion packs cost $87 per kWh (source: https://energy.example.org/storage-2024).")
    record = claim_of(cascade, "$87 per kWh")
    assert record.verdict is Verdict.MISATTRIBUTED, (record.verdict, record.notes)
    assert cascade.hallucinations.numerator == 1


def test_a_passage_cited_by_number_resolves_to_fetch_passage_n(audit) -> None:
    record = claim_of(audit(PROFILE, "According to passage 2, the dividend is $2.41 per share."), "$2.41")
    assert record.verdict is Verdict.VERIFIED, (record.verdict, record.notes)
    assert not any("resolves to no source" in note for note in record.notes), record.notes
    assert {e.file for e in record.evidence} == {"tools/tools/r1.fetch_passage.2.txt"}, record.evidence


def test_a_passage_cited_by_the_wrong_number_is_misattributed(audit) -> None:
    cascade = audit(PROFILE, "According to passage 1, the dividend is $2.41 per share.")
    record = claim_of(cascade, "$2.41")
    assert record.verdict is Verdict.MISATTRIBUTED, (record.verdict, record.notes)
    assert cascade.hallucinations.numerator == 1



# -- stop 11: arithmetic over a row's period columns beside its variance columns, signed operands, a footnote
# mark that is no scale, and counted comparisons (each with its negatives)

SEGMENT = [("get_segment_table", {"segment": "consumer"})]
MOVEMENTS = [("get_movements", {"note": "investments"})]
QUARTERS = [("get_quarters", {"year": 2019})]

ROW_ARITHMETIC = [
    case(SEGMENT, "The average net revenues for fiscal 2019 and 2018 were $2,230 million.", "$2,230 million",
         id="mean-of-the-named-periods-not-of-the-variance-columns"),
    case(SEGMENT, "The 2019 average deferred revenue was $505 million.", "$505 million",
         id="average-of-a-year-opening-and-closing"),
    case(SEGMENT, "The change in operating income (loss) from 2018 to 2019 was $190 million.", "$190 million",
         id="difference-of-negative-cells"),
    case(SEGMENT, "The percentage change in operating income (loss) from 2018 to 2019 was 61.29%.", "61.29%",
         id="percentage-change-over-a-negative-base"),
    case(MOVEMENTS, "The change in transfers between 2018 year end and 2019 year end was $6,395 million.",
         "$6,395 million", id="change-to-a-year-end"),
    case(QUARTERS, "The change in first-quarter gross margin between fiscal 2018 and 2019 was 0.7 percent.",
         "0.7 percent", id="change-of-a-rate-within-one-series"),
]


@pytest.mark.parametrize("calls, sentence, figure", ROW_ARITHMETIC)
def test_arithmetic_over_a_rows_periods_is_derived(audit, calls, sentence: str, figure: str) -> None:
    cascade = audit(calls, sentence)
    record = claim_of(cascade, figure)
    assert record.verdict is Verdict.DERIVED, (record.verdict, record.notes)
    assert record.evidence and cascade.hallucinations.numerator == 0, record.notes


def test_a_negative_operand_is_written_signed_in_the_formula(audit) -> None:
    record = claim_of(audit(SEGMENT, "The change in operating income (loss) from 2018 to 2019 was $190 million."),
                      "$190 million")
    assert record.formula is not None and "(-120)" in record.formula and "(-310)" in record.formula, record.formula


ROW_ARITHMETIC_WRONG = [
    case(SEGMENT, "The average net revenues for fiscal 2019 and 2018 were $2,340 million.", "$2,340 million",
         id="mean-5pct-off"),
    case(SEGMENT, "The 2019 average deferred revenue was $525 million.", "$525 million", id="average-of-a-year-4pct-off"),
    case(SEGMENT, "The change in operating income (loss) from 2018 to 2019 was $430 million.", "$430 million",
         id="difference-with-the-signs-dropped"),
    case(SEGMENT, "The percentage change in operating income (loss) from 2018 to 2019 was 63.5%.", "63.5%",
         id="percentage-change-3pct-off"),
    # 'net' names a line item, no computation: $2,410 - $360 (the variance) is no 2019 figure
    case(SEGMENT, "Net revenues were $2,050 million in 2019.", "$2,050 million", id="the-other-periods-value"),
    # two 2018 cells ($2,050 - $490) that happen to differ by the figure are no operands of a 2019 claim
    case(SEGMENT, "Consumer segment revenues were $1,560 million in 2019.", "$1,560 million",
         id="a-chance-difference-of-another-periods-cells"),
    # 41.5% (Q1 2019) - 40.6% (Q2 2018) crosses two quarters' series; (41.2% - 40.6%) / 40.6% is a relative change
    # of two rates the claim does not call a percentage change
    case(QUARTERS, "The change in gross margin between fiscal 2018 and 2019 was 0.9 percent.", "0.9 percent",
         id="a-chance-pair-across-two-series"),
    case(QUARTERS, "The change in gross margin between fiscal 2018 and 2019 was 1.5 percent.", "1.5 percent",
         id="a-relative-change-of-rates-not-named"),
    # '(b)' after a row label is a footnote mark: the cells are in millions, not billions
    case(MOVEMENTS, "Transfers were -$1,421 billion in 2019.", "-$1,421 billion", id="a-footnote-mark-is-no-scale"),
    case(MOVEMENTS, "The change in transfers between 2018 year end and 2019 year end was $6,395 billion.",
         "$6,395 billion", id="change-to-a-year-end-wrong-scale"),
]


@pytest.mark.parametrize("calls, sentence, figure", ROW_ARITHMETIC_WRONG)
def test_wrong_arithmetic_over_a_rows_periods_is_flagged(audit, calls, sentence: str, figure: str) -> None:
    cascade = audit(calls, sentence)
    record = claim_of(cascade, figure)
    assert cascade.policy.is_hallucination(record.verdict), (record.verdict, record.notes)


@pytest.mark.parametrize("count", ["1", "2"])
def test_a_counted_comparison_is_unverifiable_never_verified_by_a_chance_cell(audit, count: str) -> None:
    # $2,050 million is the 2018 cell: looked up as a figure, the threshold 'verified' a right and a wrong count
    # alike; the count is of the row's cells above it, which the verifier does not count
    sentence = f"In answer to how many years did net revenues exceed $2,050 million, the figure is {count}."
    cascade = audit(SEGMENT, sentence)
    record = claim_of(cascade, "$2,050 million")
    assert record.verdict is Verdict.UNVERIFIABLE, (record.verdict, record.notes)
    assert any("threshold of a counted comparison" in n and "$2,050 million" in n for n in record.notes), record.notes
    assert any("a count" in n and n.endswith(count) for n in record.notes), record.notes


# -- stop 12: a share the claim names as 'A as a percentage of (the total) B' (its whole in A's column or row)

OBLIGATIONS = [("get_obligations", {"note": "contractual obligations"})]
NET_SALES = [("get_net_sales", {"year": 2019})]

# the sentences of the cases below: the part's row, the whole, the figure
LEASE_SHARE = ("Operating lease obligations due in less than one year as a percentage of the total contractual "
               "obligations were {}.")
PURCHASE_SHARE = ("Purchase commitments due in less than one year as a percentage of the total contractual "
                  "obligations came to {}.")
ELECTRONIC_SHARE = "The 2019 net sales from total electronic parts as a percentage of the 2019 total net sales was {}."


def share_case(calls, sentence: str, figure: str, id: str):
    return case(calls, sentence.format(figure), figure, id=id)


NAMED_SHARE = [
    share_case(OBLIGATIONS, LEASE_SHARE, "35.90%", id="over-the-total-row-of-its-column"),
    share_case(OBLIGATIONS, PURCHASE_SHARE, "64.10%", id="another-row-over-the-same-total"),
    case(OBLIGATIONS, "Operating lease obligations due in less than one year as a percentage of the total operating "
                      "lease obligations were 30.00%.", "30.00%", id="over-the-total-column-of-its-row"),
    # Title Case rows: the part names 'Total Electronic Parts' by its words, not by its initials ('tep')
    share_case(NET_SALES, ELECTRONIC_SHARE, "64.00%", id="a-total-row-over-another-total-row"),
]


@pytest.mark.parametrize("calls, sentence, figure", NAMED_SHARE)
def test_a_named_share_of_a_total_is_derived(audit, calls, sentence: str, figure: str) -> None:
    cascade = audit(calls, sentence)
    record = claim_of(cascade, figure)
    assert record.verdict is Verdict.DERIVED, (record.verdict, record.notes)
    assert record.formula and "× 100" in record.formula and record.evidence, record
    assert cascade.hallucinations.numerator == 0


def test_a_named_shares_formula_names_its_operands(audit) -> None:
    record = claim_of(audit(OBLIGATIONS, LEASE_SHARE.format("35.90%")), "35.90%")
    assert record.formula is not None and "$840" in record.formula and "$2,340" in record.formula, record.formula


NAMED_SHARE_WRONG = [
    share_case(OBLIGATIONS, LEASE_SHARE, "37.00%", id="3pct-off"),
    # 35.90% is the lease obligations' share, not the purchase commitments'
    share_case(OBLIGATIONS, PURCHASE_SHARE, "35.90%", id="another-rows-share"),
    # $840 over the 1-3 years total ($2,660) and over the grand total ($5,000): neither is in its column or row
    share_case(OBLIGATIONS, LEASE_SHARE, "31.58%", id="over-another-columns-total"),
    share_case(OBLIGATIONS, LEASE_SHARE, "16.80%", id="over-the-grand-total"),
    share_case(NET_SALES, ELECTRONIC_SHARE, "66.00%", id="title-case-rows-3pct-off"),
    # 690 / 1,080 = 63.89%: the 2018 cells are no operands of a 2019 claim
    share_case(NET_SALES, ELECTRONIC_SHARE, "63.89%", id="the-other-periods-share"),
]


@pytest.mark.parametrize("calls, sentence, figure", NAMED_SHARE_WRONG)
def test_a_miscomputed_named_share_is_flagged(audit, calls, sentence: str, figure: str) -> None:
    cascade = audit(calls, sentence)
    record = claim_of(cascade, figure)
    assert cascade.policy.is_hallucination(record.verdict), (record.verdict, record.notes)
