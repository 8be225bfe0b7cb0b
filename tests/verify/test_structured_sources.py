"""The verifier on tool results rendered the way capture writes them: `key: value` lines and tables whose
scale and unit are declared by the record, the field name or the row label, and citations of them."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_auditfence.claims.extract import extract_claims
from pytest_auditfence.fence import Fence, Source
from pytest_auditfence.models import Verdict
from pytest_auditfence.verify import SourceIndex, resolve_reference, verify_claim

# Rendered as capture renders a tool's JSON answer: sorted keys, so `units:` comes after the rows.
FILES = {
    ("filings", "tools/filings/r1.get_income_statement.1.txt"): (
        "arguments:\n  ticker: HALV\nnode: filings\noutput:\n"
        "  company: Halvorsen Robotics Inc.\n"
        "  document: Form 10-K for the fiscal year ended 2024-12-31\n"
        "  rows:\n"
        "    FY2023 | FY2024 | line_item\n"
        "    1102 | 1234 | Revenue\n"
        "    40.6 | 41.3 | Gross margin (%)\n"
        "    2.06 | 2.41 | Diluted EPS (USD)\n"
        "    1990 | 2031 | Operating expenses\n"
        "  source: 10-K\n"
        "  units: USD millions, except per-share amounts and percentages\n"
        "tool: get_income_statement\n"
    ),
    ("macro", "tools/macro/r1.get_macro_indicator.1.txt"): (
        "arguments:\n  series: unemployment_rate\nnode: macro\noutput:\n"
        "  label: Unemployment rate\n  period: 2024-12\n  unit: percent\n  value: 4.1\n"
        "tool: get_macro_indicator\n"
    ),
    ("price_history", "tools/price_history/r1.get_price_statistics.1.txt"): (
        "arguments:\n  ticker: HALV\nnode: price_history\noutput:\n"
        "  fiscal_year: 2024\n  high_52w: 48.9\n  market_cap_usd_millions: 5210\n  return_1y_pct: 18.6\n"
        "  shares_outstanding: 7.2\n"
        "tool: get_price_statistics\n"
    ),
    # A data API's ratios are fractions: 0.2430 is a 24.3% margin.
    ("ratios", "tools/ratios/r1.get_key_ratios.1.txt"): (
        "arguments:\n  ticker: HALV\nnode: ratios\noutput:\n"
        "  payout_ratio: 0.1548\n  profit_margins: 0.243\n  revenue_growth: 0.061\n  ytdReturn: 0.1204\n"
        "tool: get_key_ratios\n"
    ),
    # Rows of records, fractions and signed amounts: the column header says what each cell is.
    ("quarterly", "tools/quarterly/r1.get_quarters.1.txt"): (
        "arguments:\n  ticker: HALV\nnode: quarterly\noutput:\n"
        "  currency: USD\n"
        "  quarters:\n"
        "    eps | net_income | operating_margin | period | revenue\n"
        "    -0.42 | -1230000000 | -0.057 | Q2 2024 | 21450000000\n"
        "    0.31 | 890000000 | 0.038 | Q3 2024 | 23100000000\n"
        "tool: get_quarters\n"
    ),
    ("retrieve", "tools/retrieve/r1.read_passage.1.txt"): (
        "arguments:\n  n: 1\nnode: retrieve\noutput: passage 1: The plant opened with 350 workers.\n"
        "tool: read_passage\n"
    ),
    ("retrieve", "tools/retrieve/r1.read_passage.2.txt"): (
        "arguments:\n  n: 2\nnode: retrieve\noutput: passage 2: The plant employs 1,800 people today.\n"
        "tool: read_passage\n"
    ),
}


@pytest.fixture
def verdict_of(tmp_path: Path):
    root = tmp_path / "trace"
    sources = []
    for (node, path), text in FILES.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text, encoding="utf-8")
        sources.append(Source.from_file(root, path, node=node, kind="tool_call", label=Path(path).stem.split(".")[1]))
    index = SourceIndex.build(root, sources)

    def verdict(sentence: str):
        (claim,) = extract_claims(sentence)
        fence = Fence(root, sources, sentence, name="unit")
        return verify_claim(claim, fence, index)

    verdict.index = index  # type: ignore[attr-defined]
    return verdict


@pytest.mark.parametrize(
    "sentence",
    [
        "Revenue reached $1.2 billion in FY2024.",  # 1234 under "units: USD millions" (declared after the rows)
        "Revenue was $1,102 million in FY2023.",
        "Gross margin was 41.3% in FY2024.",  # the row label "Gross margin (%)" makes the cells percent
        "Diluted EPS was $2.41.",  # a per-share row keeps its own scale
        "Unemployment was 4.1% in December.",  # "unit: percent" of the record
        "The one-year return was 18.6%.",  # the field name "return_1y_pct"
        "Market capitalisation is $5.2 billion.",  # the field name "market_cap_usd_millions"
        "Operating expenses were $2,031 million.",  # a four-digit numeric field is not a year
        "The 52-week high was $48.90.",  # "52-week" names the metric; it is not an amount to find
        "Profit margins were 24.3%.",  # "profit_margins: 0.243": a fraction given as a percentage
        "Revenue grew 6.1% year over year.",  # "revenue_growth: 0.061"
        "The payout ratio is 15.5%.",  # 0.1548 shown to the claim's precision
        "The year-to-date return is 12.0%.",  # camelCase 'ytdReturn' names a return
        "Sales reached $1.2 billion in FY2024.",  # 'sales' and the row label 'Revenue' name one metric
        "Operating margin was 3.8% in Q3 2024.",  # the column header names the fraction 0.038
        "Operating margin was -5.7% in Q2 2024.",
        "The company lost $0.42 per share in Q2 2024.",  # eps -0.42: a loss is a negative figure
        "Net income fell to -$1.23 billion.",
    ],
)
def test_declared_scales_and_units_back_the_report(verdict_of, sentence: str) -> None:
    record = verdict_of(sentence)
    assert record.verdict in (Verdict.VERIFIED, Verdict.DERIVED), record.notes
    assert record.evidence


@pytest.mark.parametrize(
    "sentence",
    [
        "Revenue reached $1.3 billion in FY2024.",  # the precision shown rules 1,234 million out
        "Revenue reached $1.2 million in FY2024.",  # wrong scale
        "Gross margin was $41.3 million in FY2024.",  # a percent row is never scaled into money
        "Diluted EPS was $2.41 billion.",  # the per-share row takes no scale from the record
        "Shares outstanding were 7.2%.",  # a bare number without a percent cue is not a percent
        "Shares outstanding were 7.2 billion.",  # nor is it scaled without a declared scale
        "Unemployment was 4.1 million.",
        "The 52-week high was $49.90.",
        "Revenue grew 6.2% year over year.",  # 0.061 is 6.1%
        "Analysts see 24.3% upside.",  # 0.243 is the profit margin, not an upside
        "The payout ratio is 15.4%.",
        "Operating margin was 3.9% in Q3 2024.",
        "EPS was 0.42 in Q2 2024.",  # earnings where the source has a loss per share (-0.42)
        "Net income was $1.23 billion in FY2024.",  # 1234 is the Revenue row's, another metric
        "Operating expenses were $1.23 billion.",
        "Revenue was 3.8% of sales.",  # 0.038 is in the operating margin column, not revenue's
    ],
)
def test_declared_units_do_not_verify_fabrications(verdict_of, sentence: str) -> None:
    record = verdict_of(sentence)
    assert record.verdict in (Verdict.CONTRADICTED, Verdict.UNSUPPORTED), (record.verdict, record.notes)


def test_years_stay_years_in_date_fields(verdict_of) -> None:
    index = verdict_of.index
    texts = [q.text for fi in index.files for q in fi.quantities]
    assert "2031" in texts and "1990" in texts  # numeric cells
    assert "2024" not in texts  # "fiscal_year: 2024" is a date field


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("The plant employs 1,800 people (passage 2).", Verdict.VERIFIED),
        ("According to passage 1, the plant employs 1,800 people.", Verdict.MISATTRIBUTED),
        ("Revenue reached $1.2 billion (source: 10-K).", Verdict.VERIFIED),  # "source: 10-K" line
        ("Revenue reached $1.2 billion, according to the annual report.", Verdict.VERIFIED),  # dangling: not judged
        ("The 52-week high was $48.90 (source: price history).", Verdict.VERIFIED),  # node name
        ("The 52-week high was $48.90 (source: 10-K).", Verdict.MISATTRIBUTED),
        ("Unemployment was 4.1% (source: 10-K).", Verdict.MISATTRIBUTED),
    ],
)
def test_citations_resolve_to_the_source_they_name(verdict_of, sentence: str, expected: Verdict) -> None:
    record = verdict_of(sentence)
    assert record.verdict is expected, record.notes


def test_passage_reference_resolves_after_the_rendered_arguments(verdict_of) -> None:
    (claim,) = extract_claims("See passage 2 and the 10-K.")
    by_kind = {r.kind: r for r in claim.references}
    assert resolve_reference(by_kind["passage"], verdict_of.index) == ["tools/retrieve/r1.read_passage.2.txt"]
    assert resolve_reference(by_kind["named"], verdict_of.index) == ["tools/filings/r1.get_income_statement.1.txt"]


@pytest.mark.parametrize(
    "sentence",
    [
        "Operating expenses were $2,031 million, about 410 °F (210 °C) hot.",  # 410 °F is in no source
        "The plant employs 1,800 people (about 2,000 people).",  # the same unit: not a conversion
    ],
)
def test_parenthetical_restatement_needs_its_original_in_the_sources(verdict_of, sentence) -> None:
    assert verdict_of(sentence).verdict in (Verdict.UNSUPPORTED, Verdict.CONTRADICTED)


def test_parenthetical_unit_conversion_is_derived_from_the_figure_before_it(tmp_path: Path) -> None:
    root = tmp_path / "trace"
    (root / "tools").mkdir(parents=True)
    (root / "tools" / "recipe.txt").write_text(
        "passage 1: Preheat the oven to 350 degrees F and roast the ribs at 65-75 degrees F for six hours.\n",
        encoding="utf-8",
    )
    sources = [Source.from_file(root, "tools/recipe.txt", node="retrieve", kind="tool_call", label="read_passage")]
    index = SourceIndex.build(root, sources)

    def judge(sentence: str) -> Verdict:
        (claim,) = extract_claims(sentence)
        return verify_claim(claim, Fence(root, sources, sentence, name="u"), index).verdict

    assert judge("Preheat the oven to 350°F (175°C).") is Verdict.DERIVED  # cookbook rounding of 176.7
    # each end converts within both figures' precision (a direct match); "six hours" is in words
    assert judge("Roast at 65-75°F (18-24°C) for 6 hours.") in (Verdict.VERIFIED, Verdict.DERIVED)
    assert judge("Preheat the oven to 350°F (190°C).") in (Verdict.UNSUPPORTED, Verdict.CONTRADICTED)  # wrong
    assert judge("Preheat the oven to 375°F (190°C).") is Verdict.CONTRADICTED  # the oven has 350 in the source


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("Revenue was $1.5 billion in FY2024.", Verdict.CONTRADICTED),  # the Revenue row says otherwise
        # an amount per employee is another figure than the revenue it divides: not backed, not contradicted
        ("Revenue per employee was $480,000 in FY2024.", Verdict.UNSUPPORTED),
    ],
)
def test_a_per_unit_figure_is_not_contradicted_by_the_whole_amount(verdict_of, sentence: str, expected) -> None:
    assert verdict_of(sentence).verdict is expected
