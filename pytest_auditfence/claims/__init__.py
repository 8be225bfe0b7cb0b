"""Claims of a document under audit: sentences, bullets and table rows with their atoms.

`quantities` normalises numbers; `extract` splits markdown into `ClaimRecord`s with quotes and references.
"""

from __future__ import annotations

from pytest_auditfence.claims.extract import extract_claims
from pytest_auditfence.claims.quantities import (
    QuantityScanner,
    ScannedQuantity,
    detect_scale_context,
    parse_quantities,
    quantities_match,
)

__all__ = [
    "QuantityScanner",
    "ScannedQuantity",
    "detect_scale_context",
    "extract_claims",
    "parse_quantities",
    "quantities_match",
]
