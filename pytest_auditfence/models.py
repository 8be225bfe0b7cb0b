"""Serialisable results: claims and their atoms, verdicts, evidence, evidence chains, ratios.

Pure pydantic models shared by the claims, fence, verify, audit and plugin layers.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Verdict(StrEnum):
    VERIFIED = "verified"  # every atom found in the sources; evidence attached
    DERIVED = "derived"  # computed from observed numbers; formula recorded
    MISATTRIBUTED = "misattributed"  # found, but not in the source the claim cites
    CONTRADICTED = "contradicted"  # same subject, different value in the sources
    UNSUPPORTED = "unsupported"  # nothing in the sources backs it
    UNVERIFIABLE = "unverifiable"  # nothing checkable in it
    SKIPPED = "skipped"  # matched a skip pattern (soft enforcement): counted, never verified


COVERED_VERDICTS: frozenset[Verdict] = frozenset({Verdict.VERIFIED, Verdict.DERIVED})
# The default hallucination set; a Policy may add MISATTRIBUTED (strict origin) or remove it.
DEFAULT_HALLUCINATION_VERDICTS: frozenset[Verdict] = frozenset(
    {Verdict.CONTRADICTED, Verdict.UNSUPPORTED, Verdict.MISATTRIBUTED}
)


class Ratio(_Model):
    """A figure with its inputs, so a reviewer can redo the sum."""

    numerator: int
    denominator: int

    @property
    def value(self) -> float:
        """numerator / denominator; 1.0 when there is nothing to count (an empty audit covers nothing
        but also misses nothing - thresholds on empty audits are handled by the fail-closed checks)."""
        return self.numerator / self.denominator if self.denominator else 1.0

    def __float__(self) -> float:
        return self.value

    def __str__(self) -> str:
        return f"{self.numerator}/{self.denominator} ({self.value:.1%})"


QuantityKind = Literal[
    "currency", "percent", "ratio", "bps", "count", "temperature", "length", "mass", "number", "duration"
]


class Quantity(_Model):
    """A number as written, with its normalised value and the precision its writer showed."""

    text: str = Field(description="the span as written, e.g. '$1.2 billion'")
    start: int
    end: int
    value: float = Field(description="normalised value in the base unit (USD, percent points, C, km, kg, seconds)")
    kind: QuantityKind = "number"
    unit: str | None = Field(default=None, description="'USD', '%', 'bps', 'C', 'km', 'kg', ... or None")
    scale: float = 1.0
    tolerance: float = Field(
        default=0.0, description="half a unit of the last digit shown, in the base unit: 1.2 billion -> 5e7"
    )
    negative: bool = False


class Quote(_Model):
    text: str = Field(description="the quoted passage, without its quote marks")
    start: int
    end: int


ReferenceKind = Literal["url", "bracket", "passage", "named"]


class Reference(_Model):
    text: str = Field(description="as written: 'according to passage 3', '[2]', 'the 10-K'")
    start: int
    end: int
    kind: ReferenceKind
    target: str = Field(description="normalised target: 'passage 3', '2', 'https://...', '10-k'")


ClaimKind = Literal["sentence", "bullet", "table_row", "heading"]
VerdictSource = Literal["deterministic", "llm", "skipped", "none"]


class Evidence(_Model):
    """A verbatim substring of a captured file, and where exactly it sits."""

    text: str
    node: str
    file: str = Field(description="path relative to the trace folder")
    line: int = Field(ge=1)
    offset: int = Field(ge=0, description="character offset of `text` in the file")
    sha256: str = Field(description="sha256 of the file's bytes (the blob)")
    atom: str | None = Field(default=None, description="the atom of the claim this supports")


class ClaimRecord(_Model):
    """A checkable sentence, bullet or table row of the document under audit."""

    id: str = Field(description="stable id: 'c001' in document order")
    claim: str = Field(description="the claim's text as it stands in the document")
    start: int
    end: int
    kind: ClaimKind = "sentence"
    context: str | None = Field(default=None, description="table header or section heading in force")
    quantities: list[Quantity] = Field(default_factory=list)
    quotes: list[Quote] = Field(default_factory=list)
    references: list[Reference] = Field(default_factory=list)
    verdict: Verdict = Verdict.UNVERIFIABLE
    verdict_source: VerdictSource = "none"
    evidence: list[Evidence] = Field(default_factory=list)
    formula: str | None = Field(default=None, description="for `derived`: how the figure is computed")
    introduced_by: str | None = Field(default=None, description="node that first produced unbacked content")
    notes: list[str] = Field(default_factory=list)

    @property
    def checkable(self) -> bool:
        return bool(self.quantities or self.quotes or self.references)


class ChainLink(_Model):
    """One hop of an evidence chain: where the claim's content stands in one node's file."""

    node: str
    file: str
    line: int = Field(ge=1)
    text: str
    kind: Literal["report", "node_output", "tool_call", "retriever", "input", "artifact", "model_call", "node_input"]
    sha256: str | None = None


class EvidenceChain(_Model):
    """From the final report through each intermediate node to the raw source."""

    claim_id: str
    claim: str
    verdict: Verdict
    links: list[ChainLink] = Field(default_factory=list)
    introduced_by: str | None = None
    reaches_raw_data: bool = False

    def __len__(self) -> int:
        return len(self.links)
