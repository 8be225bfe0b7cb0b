"""Audit policy: which verdicts count as hallucinations, origin rules, gate settings.

A frozen pydantic model, serialised into every cascade result so an audit can be redone exactly.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from pytest_auditfence.models import COVERED_VERDICTS, Verdict


class OriginRule(BaseModel):
    """A figure about `subject` must come from one of `sources` (node or tool names), else misattributed."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    subject: str = Field(description="case-insensitive regular expression matched against the claim text")
    sources: tuple[str, ...] = Field(description="node names or tool names allowed as the raw origin")

    @field_validator("subject")
    @classmethod
    def _compiles(cls, value: str) -> str:
        try:
            re.compile(value)
        except re.error as exc:
            raise ValueError(f"origin rule subject {value!r} is not a valid regular expression: {exc}") from exc
        return value

    @field_validator("sources")
    @classmethod
    def _not_empty(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        if not value:
            raise ValueError("an origin rule needs at least one allowed source (a node or tool name)")
        return tuple(sorted(value))

    def applies_to(self, claim_text: str) -> bool:
        return re.search(self.subject, claim_text, flags=re.IGNORECASE) is not None


class Policy(BaseModel):
    """How strictly an audit judges; the default fails closed (misattribution counts)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    misattribution: Literal["strict", "lenient"] = Field(
        default="strict",
        description="strict: a misattributed claim is a hallucination; lenient: reported, not counted",
    )
    hallucination_verdicts: tuple[Verdict, ...] | None = Field(
        default=None,
        description="explicit set of verdicts counted as hallucinations (overrides `misattribution`)",
    )
    origin_rules: tuple[OriginRule, ...] = ()
    min_evidence_length: int = Field(default=20, ge=1)
    skip_patterns: tuple[str, ...] = Field(
        default=(), description="regexes: matching claims are recorded as skipped, counted, never verified"
    )
    allow_incomplete: bool = Field(
        default=False, description="audit a capture marked incomplete instead of refusing it"
    )
    questions_are_evidence: bool = Field(
        default=False,
        description="let the user's questions ('Did revenue grow 14%?') back claims; by default only the "
                    "rest of the user's input does, so an echo of a question is not evidence for its answer",
    )

    @field_validator("skip_patterns")
    @classmethod
    def _patterns_compile(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        for pattern in value:
            try:
                re.compile(pattern)
            except re.error as exc:
                raise ValueError(f"skip pattern {pattern!r} is not a valid regular expression: {exc}") from exc
        return value

    @model_validator(mode="after")
    def _no_covered_hallucinations(self) -> Policy:
        if self.hallucination_verdicts is not None:
            bad = sorted(v.value for v in self.hallucination_verdicts if v in COVERED_VERDICTS)
            if bad:
                raise ValueError(f"hallucination_verdicts may not include covered verdicts {bad}")
        return self

    @property
    def counted_verdicts(self) -> frozenset[Verdict]:
        if self.hallucination_verdicts is not None:
            return frozenset(self.hallucination_verdicts)
        base = {Verdict.CONTRADICTED, Verdict.UNSUPPORTED}
        if self.misattribution == "strict":
            base.add(Verdict.MISATTRIBUTED)
        return frozenset(base)

    def is_hallucination(self, verdict: Verdict) -> bool:
        return verdict in self.counted_verdicts

    def skips(self, claim_text: str) -> bool:
        return any(re.search(p, claim_text, flags=re.IGNORECASE) for p in self.skip_patterns)
