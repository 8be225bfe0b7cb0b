"""Named references: a person or organisation is grounded by a source that names it; a document type
("the 10-K") only by that document; a citation of nothing captured is a dangling reference."""

from __future__ import annotations

from pathlib import Path

from pytest_auditfence.claims.extract import extract_claims
from pytest_auditfence.fence import Fence, Source
from pytest_auditfence.models import Verdict
from pytest_auditfence.verify import SourceIndex, resolve_reference, verify_claim

PASSAGE = ("passage 1:Grief counsellor Dr. Therese Rando describes six processes of mourning in her book, "
           "from recognising the loss to reinvesting in new relationships and routines over time.")
ESTIMATES = "consensus EPS FY2025: 2.85\nmean price target: 52.00\n"


def check(tmp_path: Path, sentence: str, files: dict[str, tuple[str, str]]) -> tuple[Verdict, list[str]]:
    sources = []
    for path, (text, label) in files.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text, encoding="utf-8")
        sources.append(Source.from_file(tmp_path, path, node="research", kind="tool_call", label=label))
    [claim] = extract_claims(sentence)
    fence = Fence(tmp_path, sources, sentence)
    result = verify_claim(claim, fence, SourceIndex.build(tmp_path, sources))
    return result.verdict, result.notes


def test_a_person_named_in_a_source_grounds_the_citation(tmp_path: Path) -> None:
    verdict, notes = check(tmp_path, "According to Dr. Therese Rando, mourning has six processes.",
                           {"tools/read_passage.txt": (PASSAGE, "read_passage")})
    assert verdict is Verdict.VERIFIED, notes


def test_a_person_no_source_names_is_a_dangling_reference(tmp_path: Path) -> None:
    # no figure: 'six processes' is a count read like '6 processes' (stop 25), and a found figure with a dangling
    # reference is verified with a note unless the policy is strict (as for digits)
    verdict, notes = check(tmp_path, "According to Dr. Elena Marsh, mourning has several processes.",
                           {"tools/read_passage.txt": (PASSAGE, "read_passage")})
    assert verdict is Verdict.UNSUPPORTED and "dangling reference" in notes


def test_a_document_type_is_not_resolved_by_a_file_that_only_mentions_it(tmp_path: Path) -> None:
    # the mention stands deep in the file (a leading line naming the document would declare it)
    text = ESTIMATES + "".join(f"rating {i}: hold\n" for i in range(8)) + "analysts read the 10-K first\n"
    (tmp_path / "estimates.txt").write_text(text, encoding="utf-8")
    source = Source.from_file(tmp_path, "estimates.txt", node="research", kind="tool_call", label="get_estimates")
    index = SourceIndex.build(tmp_path, [source])
    [cited] = extract_claims("EPS is expected at $2.85 (source: 10-K).")
    assert resolve_reference(cited.references[0], index) == []
    [person] = extract_claims("According to Dr. Therese Rando, analysts read it.")
    (tmp_path / "p.txt").write_text(PASSAGE, encoding="utf-8")
    passage = Source.from_file(tmp_path, "p.txt", node="research", kind="tool_call", label="read_passage")
    assert resolve_reference(person.references[0], SourceIndex.build(tmp_path, [source, passage])) == ["p.txt"]


def test_a_possessive_and_a_title_do_not_hide_the_name(tmp_path: Path) -> None:
    (tmp_path / "q.txt").write_text("question: how to let go, ebook by therese rando\n", encoding="utf-8")
    source = Source.from_file(tmp_path, "q.txt", node="__input__", kind="input", label="input")
    [claim] = extract_claims("According to Dr. Therese Rando's book, grief has six processes.")
    assert resolve_reference(claim.references[0], SourceIndex.build(tmp_path, [source])) == ["q.txt"]
