"""The deterministic verifier: finds a claim's atoms in a unit's sources and gives the claim its verdict; no LLM.

Stages, one module each, in the order data flows: `sources` (files read into located quantities),
`normalise` (precision, comparable kinds), `match` (an atom to source figures about its subject),
`derive` (computed figures), `references` (citations, origin rules), `verdict` (`verify_claim`).
"""

from __future__ import annotations

from pytest_auditfence.verify.derive import DERIVE_POOL, counted
from pytest_auditfence.verify.match import SHORT_LINE, find_atom, near_subject, subject_keys
from pytest_auditfence.verify.normalise import CONVERSION_SLACK, is_weak
from pytest_auditfence.verify.references import resolve_reference
from pytest_auditfence.verify.results import SEVERITY, Atom, AtomMatch
from pytest_auditfence.verify.sources import WEAK_LIMIT, FileIndex, IndexCache, SourceIndex, content_words
from pytest_auditfence.verify.verdict import verify_claim

# the name callers of the single-module verifier used
_is_weak = is_weak

__all__ = [
    "CONVERSION_SLACK", "DERIVE_POOL", "SEVERITY", "SHORT_LINE", "WEAK_LIMIT", "Atom", "AtomMatch", "FileIndex",
    "IndexCache", "SourceIndex", "content_words", "counted", "find_atom", "is_weak", "near_subject", "resolve_reference",
    "subject_keys", "verify_claim",
]
