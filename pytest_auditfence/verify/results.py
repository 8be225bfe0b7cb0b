"""Result types the verifier's stages pass along: where an atom stands (`AtomMatch`), one atom's verdict
(`AtomResult`), and the order of severity in which a claim takes the worst verdict of its atoms.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from pydantic import BaseModel, ConfigDict

from pytest_auditfence.models import Quantity, Quote, Reference, Verdict


# Worst first: a claim takes the worst verdict of its atoms.
SEVERITY: tuple[Verdict, ...] = (
    Verdict.CONTRADICTED,
    Verdict.UNSUPPORTED,
    Verdict.MISATTRIBUTED,
    Verdict.DERIVED,
    Verdict.VERIFIED,
)


Atom = Quantity | Quote | Reference


How = Literal["exact", "normalised", "converted"]


class AtomMatch(BaseModel):
    """Where one atom of a claim stands in the sources."""

    model_config = ConfigDict(extra="forbid")

    atom: str
    source: str
    node: str
    kind: str
    line: int
    offset: int
    text: str
    how: How
    sha256: str


@dataclass
class AtomResult:
    atom: str
    verdict: Verdict
    spans: list[tuple[int, int, int]] = field(default_factory=list)  # (file, start, end) to cite
    note: str | None = None
    formula: str | None = None
