"""Claim extraction from markdown reports: spans, kinds, table contexts, quotes and references."""

from __future__ import annotations

import pytest

from pytest_auditfence import extract_claims as exported
from pytest_auditfence.claims.extract import extract_claims, find_quotes, find_references, split_sentences
from pytest_auditfence.errors import AuditFenceError

REPORT = """# Apple Inc. (AAPL) analysis

According to the 10-K, Apple Inc. reported revenue of $383.3B in FY2023, down 2.8% from 2022 [1]. \
The U.S. segment grew to $1.2 billion, e.g. in services. Management said "we remain very confident \
in our pipeline" on the call (Source: Bloomberg).

## Highlights

- Gross margin was 44.1%, up 80 bps.
- Net income was **$97.0 billion** (passage 3).
  It was a record, see https://investor.apple.com/sec-filings/.
1. Buybacks of $77.6 billion per the earnings call.
2. Dividends of $0.24 per share.

Income statement (in millions, except per share data)

| Metric | FY2023 | FY2022 | Margin (%) |
|---|---|---|---|
| Revenue | 383,285 | 394,328 | 44.1 |
| Net income | 96,995 | (99,803) | 25.3 |
| EPS (diluted) | 6.13 | 6.11 | n/a |

We expect growth to continue. See [the filing](https://www.sec.gov/x.htm) and passages 1-3.
"""


@pytest.fixture(scope="module")
def claims():
    return extract_claims(REPORT)


def test_spans_are_exact_and_ids_in_order(claims):
    assert [c.id for c in claims] == [f"c{i:03d}" for i in range(1, len(claims) + 1)]
    starts = [c.start for c in claims]
    assert starts == sorted(starts)
    for c in claims:
        assert REPORT[c.start:c.end] == c.claim
        for atom in [*c.quantities, *c.quotes, *c.references]:
            assert c.start <= atom.start <= atom.end <= c.end
        for atom in [*c.quantities, *c.quotes]:
            assert REPORT[atom.start:atom.end] == atom.text


def test_claim_kinds_and_texts(claims):
    got = [(c.kind, c.claim.split("\n")[0][:40]) for c in claims]
    assert got == [
        ("heading", "Apple Inc. (AAPL) analysis"),
        ("sentence", "According to the 10-K, Apple Inc. report"),
        ("sentence", "The U.S. segment grew to $1.2 billion, e"),
        ("sentence", 'Management said "we remain very confiden'),
        ("heading", "Highlights"),
        ("bullet", "Gross margin was 44.1%, up 80 bps."),
        ("bullet", "Net income was **$97.0 billion** (passag"),
        ("bullet", "Buybacks of $77.6 billion per the earnin"),
        ("bullet", "Dividends of $0.24 per share."),
        ("table_row", "Revenue | 383,285 | 394,328 | 44.1"),
        ("table_row", "Net income | 96,995 | (99,803) | 25.3"),
        ("table_row", "EPS (diluted) | 6.13 | 6.11 | n/a"),
        ("sentence", "We expect growth to continue."),
        ("sentence", "See [the filing](https://www.sec.gov/x.h"),
    ]


def test_bullet_continuation_lines_belong_to_the_item(claims):
    item = claims[6]
    assert item.claim.endswith("see https://investor.apple.com/sec-filings/.")
    assert [r.target for r in item.references] == ["passage 3", "https://investor.apple.com/sec-filings"]
    assert [q.text for q in item.quantities] == ["$97.0 billion"]


def test_sentence_atoms(claims):
    first = claims[1]
    assert [(q.text, q.value) for q in first.quantities] == [("$383.3B", 383.3e9), ("2.8%", 2.8)]
    assert [(r.kind, r.target, r.text) for r in first.references] == [
        ("named", "10-k", "According to the 10-K"),
        ("bracket", "1", "[1]"),
    ]
    assert first.context == "Apple Inc. (AAPL) analysis"
    quote = claims[3]
    assert [q.text for q in quote.quotes] == ["we remain very confident in our pipeline"]
    assert [(r.kind, r.target) for r in quote.references] == [("named", "bloomberg")]
    assert claims[5].context == "Highlights"
    assert [(q.kind, q.value) for q in claims[5].quantities] == [("percent", 44.1), ("bps", 0.8)]
    assert [(r.kind, r.target) for r in claims[7].references] == [("named", "earnings call")]


def test_table_rows_take_caption_and_column_context(claims):
    revenue, net_income, eps = claims[9], claims[10], claims[11]
    assert revenue.context == "Income statement (in millions, except per share data)\n" + (
        "| Metric | FY2023 | FY2022 | Margin (%) |"
    )
    assert [(q.text, q.value, q.kind) for q in revenue.quantities] == [
        ("383,285", 383285e6, "number"),
        ("394,328", 394328e6, "number"),
        ("44.1", 44.1, "percent"),
    ]
    assert [(q.text, q.value, q.negative) for q in net_income.quantities][1] == ("(99,803)", -99803e6, True)
    # "except per share data": the EPS row keeps its own scale
    assert [q.value for q in eps.quantities] == [6.13, 6.11]


def test_last_sentence_links_and_passage_ranges(claims):
    last = claims[-1]
    assert [(r.kind, r.target) for r in last.references] == [
        ("url", "https://www.sec.gov/x.htm"),
        ("passage", "passage 1"),
        ("passage", "passage 2"),
        ("passage", "passage 3"),
    ]
    assert last.quantities == []
    assert claims[-2].checkable is False


def test_table_with_currency_header_and_no_caption():
    doc = "| Segment | Revenue ($M) | Growth (%) |\n|:--|--:|--:|\n| iPhone | 200,583 | -2.4 |\n"
    (row,) = extract_claims(doc)
    assert row.kind == "table_row"
    assert [(q.kind, q.unit, q.value) for q in row.quantities] == [
        ("currency", "USD", 200583e6),
        ("percent", "%", -2.4),
    ]


@pytest.mark.parametrize(
    ("text", "sentences"),
    [
        ("Apple Inc. grew 5%. Revenue rose.", ["Apple Inc. grew 5%.", "Revenue rose."]),
        ("The U.S. market is big. It grew.", ["The U.S. market is big.", "It grew."]),
        ("Some, e.g. services, grew. Others fell.", ["Some, e.g. services, grew.", "Others fell."]),
        ("Revenue was 3.5 billion. Costs rose!", ["Revenue was 3.5 billion.", "Costs rose!"]),
        ("It ranked No. 3 in sales. Next.", ["It ranked No. 3 in sales.", "Next."]),
        ("Dr. J. Smith said so. Why? Because.", ["Dr. J. Smith said so.", "Why?", "Because."]),
        ('He said "It grew." Then it fell.', ['He said "It grew."', "Then it fell."]),
        ("Revenue rose vs. 2022 levels. 2024 will differ.", ["Revenue rose vs. 2022 levels.", "2024 will differ."]),
    ],
)
def test_sentence_splitting(text, sentences):
    assert [text[s:e] for s, e in split_sentences(text, 0, len(text))] == sentences


@pytest.mark.parametrize(
    ("text", "quotes"),
    [
        ('He said "demand remains very strong" today.', ["demand remains very strong"]),
        ("He said “demand remains very strong” today.", ["demand remains very strong"]),
        ("He said 'demand remains very strong' today.", ["demand remains very strong"]),
        ("He called it 'the best ever quarter' and it's fine.", ["the best ever quarter"]),
        # not citations: scare quotes, the question answered, proposed wording, titles
        ("It's the company's 'best ever quarter' and it's fine.", []),
        ('The answer to the question "What does ex dividend mean?" is simple.', []),
        ('Use a subject line such as "Application for 10 days leave."', []),
        ('She cried at "The Notebook" and "The Source Code," said the post.', []),
        # punctuation closing a quoted sentence is not part of the citation
        ('Passage 3 says "the plant employs 1,800 people."', ["the plant employs 1,800 people"]),
        ('The CEO said: "demand is strong, very strong," and left.', ["demand is strong, very strong"]),
        ("He said 'we don't see weakness' here.", ["we don't see weakness"]),
        ('A "short quote" is skipped.', []),
        ("It's Apple's and Google's year.", []),
    ],
)
def test_quotes(text, quotes):
    found = find_quotes(text)
    assert [q.text for q in found] == quotes
    for q in found:
        assert text[q.start:q.end] == q.text


@pytest.mark.parametrize(
    ("text", "refs"),
    [
        ("as shown [2].", [("bracket", "2")]),
        ("as shown [1, 2].", [("bracket", "1"), ("bracket", "2")]),
        ("as shown [1-3].", [("bracket", "1"), ("bracket", "2"), ("bracket", "3")]),
        ("a [link](https://a.example.com/Path/) here", [("url", "https://a.example.com/Path")]),
        ("See https://example.com/report.pdf.", [("url", "https://example.com/report.pdf")]),
        ("according to passage 3", [("passage", "passage 3")]),
        ("Passage 2 and 3 say", [("passage", "passage 2"), ("passage", "passage 3")]),
        ("(Passage 1)", [("passage", "passage 1")]),
        ("according to the 10-K filing", [("named", "10-k")]),
        ("the 10-Q shows", [("named", "10-q")]),
        ("per the earnings call", [("named", "earnings call")]),
        ("as reported by Reuters, sales fell", [("named", "reuters")]),
        ("According to the Wall Street Journal, x", [("named", "wall street journal")]),
        ("(Source: Bloomberg)", [("named", "bloomberg")]),
        ("EPS of $2 per share", []),
        ("[text](#anchor) and [2](x)", []),
    ],
)
def test_references(text, refs):
    assert [(r.kind, r.target) for r in find_references(text)] == refs


def test_headings_lists_and_code_blocks():
    doc = "Intro line one.\n\n```\nrevenue 5% in code\n```\n\n### 2.1 Revenue\n* a) first item 5%\n+ second 6%\n"
    claims = extract_claims(doc)
    assert [(c.kind, c.claim) for c in claims] == [
        ("sentence", "Intro line one."),
        ("heading", "2.1 Revenue"),
        ("bullet", "a) first item 5%"),
        ("bullet", "second 6%"),
    ]
    assert claims[1].quantities == []
    assert [q.text for q in claims[2].quantities] == ["5%"]


def test_empty_and_whitespace_documents():
    assert extract_claims("") == []
    assert extract_claims("\n\n   \n") == []


def test_public_export_and_bad_input():
    assert exported is extract_claims
    with pytest.raises(AuditFenceError, match="extract_claims"):
        extract_claims(None)  # type: ignore[arg-type]


def test_a_source_list_defines_its_labels_and_cites_nothing() -> None:
    # "Sources:" heading a list, and "[1] ..." opening its lines, are definitions of the report's own
    # citations, not citations of sources the audit must find
    refs = find_references("Sources:\n[1] D1: Market outlook\n- [2] D2: Adoption survey")
    assert refs == []
    assert [r.target for r in find_references("Revenue grew 12% [1].")] == ["1"]
    assert [r.target for r in find_references("Source: 10-K.")] == ["10-k"]


def test_bold_label_lines_and_hard_breaks_are_claims_of_their_own() -> None:
    # LLM reports list facts as '**Label:** value' lines, often with markdown hard breaks; joined into one
    # sentence, one wrong figure would sink the others and the report could not say which line is wrong.
    doc = (
        "Intro line one\ncontinues here.\n"
        "**Revenue:** $94.93B  \n**Net income**: $14.7B\n"
        "A line with a break\\\nthe next line\nwraps on.\n"
    )
    claims = extract_claims(doc)
    assert [c.claim for c in claims] == [
        "Intro line one\ncontinues here.",
        "**Revenue:** $94.93B",
        "**Net income**: $14.7B",
        "A line with a break",
        "the next line\nwraps on.",
    ]
    assert all(doc[c.start:c.end] == c.claim for c in claims)
    assert [q.text for q in claims[2].quantities] == ["$14.7B"]
