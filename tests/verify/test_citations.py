"""Citations resolve to the tool call that fetched the source (by its arguments), a cited URL is a citation, and a
figure that stands only elsewhere is misattributed: in a search result listing several URLs, elsewhere means in
another result's block. Structured fields of another period or scale are no evidence."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_auditfence.models import Verdict

FILES = {
    # passages fetched by number: the content does not say which passage it is, the call's arguments do
    ("retrieve", "tools/retrieve/r1.fetch_passage.1.txt"): (
        "arguments:\n  n: 1\nnode: retrieve\noutput: The plant opened in 1998 with 350 workers.\ntool: fetch_passage\n"
    ),
    ("retrieve", "tools/retrieve/r1.fetch_passage.2.txt"): (
        "arguments:\n  n: 2\nnode: retrieve\noutput: The plant employs 1,800 people today.\ntool: fetch_passage\n"
    ),
    ("research", "tools/research/r1.web_search.1.txt"): (
        "arguments:\n  query: storage 2024\nnode: research\noutput:\n"
        "  - content: US storage additions reached 10.3 GW in 2024.\n    url: https://example.org/storage-2024\n"
        "  - content: Battery pack prices fell to $139 per kWh.\n    url: https://example.org/pack-prices\n"
        "tool: web_search\n"
    ),
    ("research", "tools/research/r1.fetch.1.txt"): (
        "arguments:\n  url: https://example.org/annual\nnode: research\noutput: Revenue was $4.2 billion.\ntool: fetch\n"
    ),
    ("data", "tools/data/r1.get_fundamentals.1.txt"): (
        "arguments:\n  ticker: AAPL\nnode: data\noutput:\n  fiscal_year: 2023\n  net_sales_musd: 383,285\n"
        "  ticker: AAPL\ntool: get_fundamentals\n"
    ),
    ("data", "tools/data/r1.get_segment.1.txt"): (
        "arguments:\n  segment: billing\nnode: data\noutput:\n  revenue_usd_millions: 77\n  segment: Billing\n"
        "tool: get_segment\n"
    ),
}


@pytest.fixture
def verdict_of(tool_results_verdict):
    return tool_results_verdict({path: (text, node, Path(path).stem.split(".")[1]) for (node, path), text in FILES.items()})


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("According to passage 2, the plant employs 1,800 people.", Verdict.VERIFIED),
        ("According to passage 1, the plant employs 1,800 people.", Verdict.MISATTRIBUTED),  # the wrong citation
        ("US storage additions reached 10.3 GW (source: https://example.org/storage-2024).", Verdict.VERIFIED),
        # the figure is in the same search result, but under the other URL
        ("US storage additions reached 10.3 GW (source: https://example.org/pack-prices).", Verdict.MISATTRIBUTED),
        ("Revenue was $4.2 billion (source: https://example.org/annual).", Verdict.VERIFIED),
        ("Revenue was $4.2 billion (source: https://example.org/storage-2024).", Verdict.MISATTRIBUTED),
    ],
)
def test_a_figure_is_verified_only_in_the_source_its_claim_cites(verdict_of, sentence, expected):
    record = verdict_of(sentence)
    assert record.verdict is expected, record.notes


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("AAPL net sales were $383,285 million.", Verdict.VERIFIED),  # 'unsupported' before issue 10
        ("AAPL net sales were $383.3 billion in fiscal 2023.", Verdict.VERIFIED),
        ("AAPL net sales were $383,285 million in fiscal 2022.", Verdict.UNSUPPORTED),  # another period's record
        ("AAPL net sales were $383,285 thousand.", Verdict.UNSUPPORTED),  # the wrong scale
        ("Billing revenue was $77 million.", Verdict.VERIFIED),
        ("Billing revenue was $77 billion.", Verdict.UNSUPPORTED),
    ],
)
def test_structured_fields_by_their_key_scale_and_period(verdict_of, sentence, expected):
    record = verdict_of(sentence)
    assert record.verdict is expected, record.notes
