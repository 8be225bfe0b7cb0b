"""Shared set-up of the verifier tests on prose: a trace folder of long retrieved passages (plus any other
files), and a one-sentence claim verified against it through a real fence and index."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from pytest_auditfence.claims.quantities import parse_quantities
from pytest_auditfence.fence import Fence, Source
from pytest_auditfence.models import ClaimRecord
from pytest_auditfence.verify import SHORT_LINE, SourceIndex, verify_claim


@dataclass
class ProseUnit:
    root: Path
    sources: list[Source]

    def check(self, sentence: str) -> ClaimRecord:
        fence = Fence(self.root, self.sources, sentence, name="unit")
        claim = ClaimRecord(id="c001", claim=sentence, start=0, end=len(sentence),
                            quantities=parse_quantities(sentence))
        return verify_claim(claim, fence, SourceIndex.build(self.root, self.sources))


@pytest.fixture
def prose_unit(tmp_path: Path) -> Callable[..., ProseUnit]:
    """`prose_unit(passages, others={path: (text, node, kind)})`: each passage one long line, as retrieved
    web text is, captured as a `read_passage` tool result of node 'retrieve'."""

    def make(passages: dict[str, str], others: dict[str, tuple[str, str, str]] | None = None) -> ProseUnit:
        root = tmp_path / "trace"
        files = {path: (text, "retrieve", "tool_call") for path, text in passages.items()}
        for path, text in passages.items():
            assert len(text) > SHORT_LINE  # long prose: proximity applies
        files.update(others or {})
        sources = []
        for path, (text, node, kind) in files.items():
            (root / path).parent.mkdir(parents=True, exist_ok=True)
            (root / path).write_text(text if path not in passages else text + "\n", encoding="utf-8")
            label = "read_passage" if path in passages else None
            sources.append(Source.from_file(root, path, node=node, kind=kind, label=label))
        return ProseUnit(root, sources)

    return make



@pytest.fixture
def tool_results_verdict(tmp_path: Path) -> Callable[[dict[str, tuple[str, str, str]]], Callable[[str], ClaimRecord]]:
    """`tool_results_verdict({path: (text, node, tool label)})` writes the files as captured tool results and
    returns a function verifying one extracted sentence against them through a real fence and index."""
    from pytest_auditfence.claims.extract import extract_claims

    def make(files: dict[str, tuple[str, str, str]]) -> Callable[[str], ClaimRecord]:
        sources = []
        for path, (text, node, label) in files.items():
            (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / path).write_text(text, encoding="utf-8")
            sources.append(Source.from_file(tmp_path, path, node=node, kind="tool_call", label=label))
        index = SourceIndex.build(tmp_path, sources)

        def verdict(sentence: str) -> ClaimRecord:
            (claim,) = extract_claims(sentence)
            return verify_claim(claim, Fence(tmp_path, sources, sentence, name="unit"), index)

        return verdict

    return make
