"""Serialisable results: claims and their atoms, verdicts, evidence, evidence chains, ratios.

Pure pydantic models shared by the claims, fence, verify, audit and plugin layers.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Literal

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
        # 0/0 is no percentage at all: printing it as 100% (or 0%) would claim a result nothing supports.
        share = f"{self.value:.1%}" if self.denominator else "\u2013"
        return f"{self.numerator}/{self.denominator} ({share})"


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

    @classmethod
    def model_construct(cls, _fields_set: set[str] | None = None, **values: Any) -> Quantity:  # type: ignore[override]
        """Pydantic's `model_construct` with every field given (how the parser builds each figure of a source,
        over a million for a 100 MB capture) skips the per-field alias walk and shares one set of field names
        instead of a new one per instance: a third less memory per figure. The shared set is never changed:
        pydantic only adds to it the name of a field assigned, and every field's name is already in it.
        Any other call is pydantic's own."""
        if _fields_set is not None or cls is not Quantity:
            return super().model_construct(_fields_set, **values)
        if tuple(values) != _QUANTITY_ORDER:  # the fields in another order (or not all): pydantic's order
            if values.keys() != _QUANTITY_FIELDS.keys():
                return super().model_construct(_fields_set, **values)
            values = {name: values[name] for name in _QUANTITY_FIELDS}
        m = cls.__new__(cls)
        _set(m, "__dict__", values)  # a new dict made for this call, in the fields' order
        _set(m, "__pydantic_fields_set__", _QUANTITY_ALL_SET)
        _set(m, "__pydantic_extra__", None)
        _set(m, "__pydantic_private__", None)
        return m


_QUANTITY_FIELDS = dict.fromkeys(Quantity.model_fields)
_QUANTITY_ALL_SET = set(_QUANTITY_FIELDS)
_QUANTITY_ORDER = tuple(_QUANTITY_FIELDS)
_set = object.__setattr__


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
    introduced_round: int | None = Field(default=None, description="which round of `introduced_by` (1 = first)")
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
    kind: Literal["report", "node_output", "tool_call", "retriever", "input", "artifact", "model_call", "node_input",
                  "input_question", "tool_arguments", "handoff"]
    sha256: str | None = None
    step: str | None = Field(default=None, description="the step of the file ('agent r2') when `node` ran in more "
                                                       "than one step (an agent loop, two subgraph instances)")


class EvidenceChain(_Model):
    """From the final report through each intermediate node to the raw source."""

    claim_id: str
    claim: str
    verdict: Verdict
    links: list[ChainLink] = Field(default_factory=list)
    introduced_by: str | None = None
    introduced_round: int | None = None
    reaches_raw_data: bool = False

    def __len__(self) -> int:
        return len(self.links)


def hop_name(link: ChainLink) -> str:
    """How every view names a hop: its step ('draft r2') where the node ran more than once, else the node."""
    return link.step or link.node


def with_round(node: str, round_: int | None) -> str:
    """`introduced_by` as every view shows it: 'draft (round 1)', the node alone when no round is known."""
    return f"{node} (round {round_})" if round_ else node


# --------------------------------------------------------------------------------------------------
# LLM auditor and adversarial pass (audit/llm.py, audit/adversarial.py)

Severity = Literal["low", "medium", "high", "critical"]
SEVERITIES: tuple[str, ...] = ("low", "medium", "high", "critical")
FindingKind = Literal["supported", "contradicted", "unsupported"]
FINDING_KINDS: tuple[str, ...] = ("supported", "contradicted", "unsupported")
Recommendation = Literal["keep", "refine", "flag_for_review", "reject"]
RECOMMENDATIONS: tuple[str, ...] = ("keep", "refine", "flag_for_review", "reject")


class AdversarialVerdict(_Model):
    """A skeptical second reading of one finding (seed 002); `succeeded=False` changes nothing."""

    finding_id: str
    stands: bool = True
    revised_confidence: float = Field(default=1.0, ge=0.0, le=1.0)
    weakening_evidence: str = ""
    caveats: list[str] = Field(default_factory=list)
    recommendation: Recommendation = "keep"
    raw_response: str = ""
    succeeded: bool = False
    error: str | None = Field(default=None, description="why the review failed, when it did")


class LlmFinding(_Model):
    """What the LLM auditor submitted for one claim in one unit, as the gate accepted it."""

    id: str = Field(description="stable id: 'f001' in (claim id, hop) order")
    claim_id: str
    unit: str
    hop: int = Field(ge=1, description="1: the final document; 2..: an upstream node's output, one node deeper")
    claim: str = Field(description="the text audited at this hop (the claim, then the passage it came from)")
    finding: FindingKind
    severity: Severity
    confidence: float = Field(ge=0.0, le=1.0)
    original_confidence: float = Field(ge=0.0, le=1.0)
    evidence: Evidence | None = None
    notes: list[str] = Field(default_factory=list)
    flagged_for_review: bool = False
    review: AdversarialVerdict | None = None


class LlmUnitRun(_Model):
    """One agent run: a unit, the claims it was given, how far it got and what it cost."""

    unit: str
    node: str
    hop: int
    claims: list[str] = Field(default_factory=list)
    sections: int = 0
    model_calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    stopped: Literal["done", "step_limit", "timeout", "error"] = "done"
    error: str | None = None
    tool_errors: list[str] = Field(default_factory=list)


class AdversarialSummary(_Model):
    """What the adversarial pass looked at, what it flagged, what failed, and what it cost."""

    prompt_version: str
    severity_threshold: Severity
    examined: list[str] = Field(default_factory=list, description="finding ids reviewed in this pass")
    below_threshold: list[str] = Field(default_factory=list)
    already_reviewed: list[str] = Field(default_factory=list)
    flagged: list[str] = Field(default_factory=list, description="finding ids flagged for the reviewer")
    failed: list[str] = Field(default_factory=list)
    log: list[str] = Field(default_factory=list, description="one line per failed or unparsable review")
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0


class LlmAudit(_Model):
    """The LLM part of a cascade: prompt versions, unit runs, findings, adversarial pass, cost notes."""

    prompt_version: str
    model: str | None = None
    units: list[LlmUnitRun] = Field(default_factory=list)
    findings: list[LlmFinding] = Field(default_factory=list)
    adversarial: AdversarialSummary | None = None
    cost_notes: list[str] = Field(default_factory=list)
