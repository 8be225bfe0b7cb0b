"""The deterministic verifier on real trace-like files: each verdict, its evidence, and the gate it passed."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from pytest_auditfence.audit.policy import OriginRule, Policy
from pytest_auditfence.claims.quantities import parse_quantities
from pytest_auditfence.errors import FenceError
from pytest_auditfence.fence import Fence, Source
from pytest_auditfence.models import ClaimRecord, Quote, Reference, Verdict
from pytest_auditfence.verify import IndexCache, SourceIndex, find_atom, verify_claim

FILES = {
    "tools/001_get_income_statement.txt": (
        "tool: get_income_statement\n"
        "args: ticker=NVDA\n"
        "\n"
        "Income statement (in millions)\n"
        "| Item | FY2024 | FY2023 |\n"
        "|---|---|---|\n"
        "| Revenue | 96,995 | 81,797 |\n"
        "| Net income | 1,234 | 1,100 |\n"
        "Gross margin: 44.1%\n"
    ),
    "tools/002_passage_3.txt": "passage 3: The oven was preheated to 205 °C before the bake.\n",
    "tools/003_passage_4.txt": (
        "passage 4: Analysts expect net income of $1,234 million, said the\n"
        "  company’s chief executive, calling it “a record year for the data center business”.\n"
        "Source: https://example.com/nvda/q4-results\n"
    ),
}

REPORT = """# NVDA
Net income was $1.2 billion.
Net income was $1.24 billion.
Operating cash flow was $1.24 billion.
Revenue grew 18.6% year over year.
The oven ran at 400 °F, according to passage 3.
According to passage 3, net income was $1,234 million.
According to passage 4, net income was $1,234 million.
The CEO called it "A record year for the data center business".
The CEO called it "the best year in our history".
Results are at https://example.com/nvda/q4-results and https://example.com/made-up.
The outlook is encouraging.
The company has three segments and ranks 2 in its region.
Net income was $1.2 billion while capex hit $9.9 billion.
"""


@pytest.fixture
def unit(tmp_path: Path):
    root = tmp_path / "trace"
    for path, text in FILES.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text, encoding="utf-8")
    sources = [
        Source.from_file(root, path, node="research" if "income" in path else "news", kind="tool_call",
                         label=path.split("_", 1)[1][:-4])
        for path in FILES
    ]
    fence = Fence(root, sources, REPORT, name="unit")
    return root, sources, fence, SourceIndex.build(root, sources)


def make_claim(sentence: str, *, document: str = REPORT) -> ClaimRecord:
    """A claim as the extractor gives it: its text, span and atoms (quantities parsed by the claims layer)."""
    start = document.index(sentence)
    quotes, references = [], []
    if '"' in sentence:
        a = sentence.index('"') + 1
        b = sentence.index('"', a)
        quotes.append(Quote(text=sentence[a:b], start=start + a, end=start + b))
    for word in ("passage 3", "passage 4"):
        if word in sentence:
            at = sentence.index(word)
            references.append(Reference(text=word, start=start + at, end=start + at + len(word),
                                        kind="passage", target=word))
    for token in sentence.split():
        if token.startswith("https://"):
            url = token.rstrip(".")
            at = sentence.index(url)
            references.append(Reference(text=url, start=start + at, end=start + at + len(url), kind="url", target=url))
    return ClaimRecord(id="c001", claim=sentence, start=start, end=start + len(sentence),
                       quantities=parse_quantities(sentence, offset=start), quotes=quotes, references=references)


def check(unit, sentence: str, **kwargs) -> ClaimRecord:
    root, _, fence, index = unit
    result = verify_claim(make_claim(sentence), fence, index, **kwargs)
    assert result.verdict_source == "deterministic"
    for ev in result.evidence:  # evidence is always a verbatim substring at its recorded offset
        data = (root / ev.file).read_bytes()
        text = data.decode("utf-8")
        assert text[ev.offset : ev.offset + len(ev.text)] == ev.text
        assert text.count("\n", 0, ev.offset) + 1 == ev.line
        assert hashlib.sha256(data).hexdigest() == ev.sha256
        assert len(ev.text.strip()) >= fence.min_evidence_length
    return result


def test_scaled_figure_matches_a_table_in_millions(unit):
    result = check(unit, "Net income was $1.2 billion.")
    assert result.verdict is Verdict.VERIFIED
    assert [(e.file, e.line, e.text, e.node, e.atom) for e in result.evidence] == [
        ("tools/001_get_income_statement.txt", 8, "| Net income | 1,234 | 1,100 |", "research", "$1.2 billion")
    ]


def test_more_precise_wrong_figure_is_contradicted_by_the_same_subject(unit):
    result = check(unit, "Net income was $1.24 billion.")
    assert result.verdict is Verdict.CONTRADICTED
    assert result.evidence[0].text == "| Net income | 1,234 | 1,100 |"
    assert any("1,234" in note for note in result.notes)


def test_figure_found_nowhere_and_subject_absent_is_unsupported(unit):
    result = check(unit, "Operating cash flow was $1.24 billion.")
    assert result.verdict is Verdict.UNSUPPORTED and result.evidence == []


def test_percent_change_is_derived_with_its_formula(unit):
    result = check(unit, "Revenue grew 18.6% year over year.")
    assert result.verdict is Verdict.DERIVED
    assert result.formula == "(96,995 - 81,797) / 81,797 × 100 = 18.6%"
    assert [e.line for e in result.evidence] == [7]


def test_fahrenheit_claim_matches_celsius_source_by_conversion(unit):
    result = check(unit, "The oven ran at 400 °F, according to passage 3.")
    assert result.verdict is Verdict.VERIFIED
    assert result.evidence[0].file == "tools/002_passage_3.txt"
    assert any("conversion" in note for note in result.notes)


def test_figure_cited_to_the_wrong_passage_is_misattributed(unit):
    wrong = check(unit, "According to passage 3, net income was $1,234 million.")
    assert wrong.verdict is Verdict.MISATTRIBUTED
    assert wrong.evidence[0].file in {"tools/001_get_income_statement.txt", "tools/003_passage_4.txt"}
    right = check(unit, "According to passage 4, net income was $1,234 million.")
    assert right.verdict is Verdict.VERIFIED
    assert [e.file for e in right.evidence] == ["tools/003_passage_4.txt"]


def test_quote_matches_across_case_quote_marks_and_line_wrap(unit):
    result = check(unit, 'The CEO called it "A record year for the data center business".')
    assert result.verdict is Verdict.VERIFIED
    assert result.evidence[0].line == 2 and "record year" in result.evidence[0].text
    invented = check(unit, 'The CEO called it "the best year in our history".')
    assert invented.verdict is Verdict.UNSUPPORTED


def test_urls_must_appear_in_the_sources(unit):
    result = check(unit, "Results are at https://example.com/nvda/q4-results and https://example.com/made-up.")
    assert result.verdict is Verdict.UNSUPPORTED
    assert any("made-up" in note for note in result.notes)
    assert [e.line for e in result.evidence] == [3]


def test_claims_without_atoms_or_with_only_small_numbers_are_unverifiable(unit):
    assert check(unit, "The outlook is encouraging.").verdict is Verdict.UNVERIFIABLE
    # a small number that counts no noun ('ranks 2 in its region'); '2 regional offices' is a count, and checked
    weak = check(unit, "The company has three segments and ranks 2 in its region.")
    assert weak.verdict is Verdict.UNVERIFIABLE
    assert any("small unit-less numbers not checked: 2" in note for note in weak.notes)


def test_claim_takes_the_worst_verdict_of_its_atoms(unit):
    result = check(unit, "Net income was $1.2 billion while capex hit $9.9 billion.")
    assert result.verdict is Verdict.UNSUPPORTED
    assert [e.atom for e in result.evidence] == ["$1.2 billion"]


def test_every_piece_of_evidence_passed_the_fence_gate(unit):
    _, _, fence, _ = unit
    result = check(unit, "Revenue grew 18.6% year over year.")
    accepted = [s.evidence for s in fence.accepted]
    assert [e.text for e in result.evidence] == sorted(set(accepted))  # both operands stand on one line
    assert all(s.evidence_location is not None for s in fence.accepted)


def test_gate_rejection_fails_closed(unit):
    root, sources, _, index = unit
    fence = Fence(root, sources, "a different document", name="other")
    result = verify_claim(make_claim("Net income was $1.2 billion."), fence, index)
    assert result.verdict is Verdict.UNSUPPORTED and result.evidence == []
    assert any("Claim text not found in the document under audit" in n for n in result.notes)
    assert len(fence.rejections) == 1


def test_origin_rule_marks_a_figure_from_the_wrong_tool_misattributed(unit):
    rule = Policy(origin_rules=(OriginRule(subject=r"net income", sources=("passage_4",)),))
    assert check(unit, "Net income was $1.2 billion.", policy=rule).verdict is Verdict.VERIFIED
    strict = {"origin_rules": {"net income": ["get_income_statement"]}}
    assert check(unit, "Net income was $1.2 billion.", policy=strict).verdict is Verdict.VERIFIED
    oven_only = {"origin_rules": {"net income": ["passage_3"]}}
    result = check(unit, "Net income was $1.2 billion.", policy=oven_only)
    assert result.verdict is Verdict.MISATTRIBUTED
    assert any("origin rule requires tools/002_passage_3.txt" in note for note in result.notes)


def test_find_atom_reports_place_and_how_in_source_order(unit):
    _, _, _, index = unit
    claim = make_claim("According to passage 4, net income was $1,234 million.")
    matches = find_atom(claim.quantities[0], index)
    assert [(m.source, m.line, m.text, m.how) for m in matches] == [
        ("tools/001_get_income_statement.txt", 8, "1,234", "normalised"),
        ("tools/003_passage_4.txt", 1, "$1,234 million", "exact"),
    ]
    oven = find_atom(make_claim("The oven ran at 400 °F, according to passage 3.").quantities[0], index)
    assert [(m.text, m.how) for m in oven] == [("205 °C", "converted")]


def test_index_cache_parses_each_blob_once(unit):
    root, sources, _, _ = unit
    cache = IndexCache()
    first = SourceIndex.build(root, sources, cache=cache)
    second = SourceIndex.build(root, list(reversed(sources)), cache=cache)
    assert len(cache) == len(sources)
    assert first.files[0] is second.files[-1]


def test_index_refuses_what_the_fence_refuses(unit, tmp_path):
    root, sources, fence, _ = unit
    with pytest.raises(FenceError, match="'\\.\\.' leaves the sandbox"):
        SourceIndex.build(root, [Source(path="../x.txt", node="n", kind="tool_call", sha256="0" * 64)])
    narrow = Fence(root, sources[:1], REPORT)
    with pytest.raises(FenceError, match="build the SourceIndex from the fence's sources"):
        verify_claim(make_claim("Net income was $1.2 billion."), narrow, SourceIndex.build(root, sources))


def test_extracted_report_claims_get_their_verdicts(unit):
    """The claims layer's extractor feeds the verifier directly: table rows, bullets, citations."""
    from pytest_auditfence.claims.extract import extract_claims

    root, sources, _, index = unit
    report = (
        "# NVDA\n\n"
        "Income statement (in millions)\n\n| Item | FY2024 | FY2023 |\n|---|---|---|\n| Revenue | 96,995 | 81,797 |\n\n"
        "- Revenue grew 18.6% in FY2024.\n"
        "- Net income was **$1.2 billion**, according to passage 4.\n"
        "- Net income was $1.3 billion, according to passage 4.\n"
        "- We remain optimistic.\n"
    )
    fence = Fence(root, sources, report, name="report")
    verdicts = {c.claim: verify_claim(c, fence, index).verdict for c in extract_claims(report) if c.kind != "heading"}
    assert verdicts == {
        "Revenue | 96,995 | 81,797": Verdict.VERIFIED,
        "Revenue grew 18.6% in FY2024.": Verdict.DERIVED,
        "Net income was **$1.2 billion**, according to passage 4.": Verdict.VERIFIED,
        "Net income was $1.3 billion, according to passage 4.": Verdict.CONTRADICTED,
        "We remain optimistic.": Verdict.UNVERIFIABLE,
    }
    assert fence.rejections == []
