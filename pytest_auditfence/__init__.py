"""pytest-auditfence: claim-to-source traceability of LangGraph agent output as a test outcome.

Public names are loaded lazily so that loading the pytest plugin imports no LangGraph or LangChain.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

# public name -> module that defines it
_EXPORTS: dict[str, str] = {
    # capture
    "Snapshot": "pytest_auditfence.snapshot",
    "capture": "pytest_auditfence.capturing.wrap",
    "wrap": "pytest_auditfence.capturing.wrap",
    "instrument_graph": "pytest_auditfence.capturing.wrap",
    "import_debug_events": "pytest_auditfence.capturing.importers",
    "import_run_tree": "pytest_auditfence.capturing.importers",
    "read_trace_text": "pytest_auditfence.capturing.tracefiles",
    "Manifest": "pytest_auditfence.manifest",
    "NodeRecord": "pytest_auditfence.manifest",
    "FileRecord": "pytest_auditfence.manifest",
    "CaptureLevel": "pytest_auditfence.manifest",
    # claims, verdicts, results
    "ClaimRecord": "pytest_auditfence.models",
    "Evidence": "pytest_auditfence.models",
    "EvidenceChain": "pytest_auditfence.models",
    "ChainLink": "pytest_auditfence.models",
    "Verdict": "pytest_auditfence.models",
    "Ratio": "pytest_auditfence.models",
    "extract_claims": "pytest_auditfence.claims.extract",
    "parse_quantities": "pytest_auditfence.claims.quantities",
    # fence and audit
    "Fence": "pytest_auditfence.fence",
    "FenceGroup": "pytest_auditfence.audit.cascade",
    "Cascade": "pytest_auditfence.audit.cascade",
    "audit_cascade_sync": "pytest_auditfence.audit.cascade",
    "Passport": "pytest_auditfence.audit.cascade",
    "Policy": "pytest_auditfence.audit.policy",
    # assertions
    "assert_traceable": "pytest_auditfence.assertions",
    "assert_claim_traced": "pytest_auditfence.assertions",
    "assert_no_fabricated_evidence": "pytest_auditfence.assertions",
    # errors
    "AuditFenceError": "pytest_auditfence.errors",
    "TraceDirError": "pytest_auditfence.errors",
    "ManifestError": "pytest_auditfence.errors",
    "JournalError": "pytest_auditfence.errors",
    "IncompleteCaptureError": "pytest_auditfence.errors",
    "FenceError": "pytest_auditfence.errors",
    "AuditError": "pytest_auditfence.errors",
    "CassetteMissError": "pytest_auditfence.errors",
}

__all__ = sorted([*_EXPORTS, "__version__"])


def __getattr__(name: str) -> Any:
    module_name = _EXPORTS.get(name)
    if module_name is None:
        raise AttributeError(f"module 'pytest_auditfence' has no attribute {name!r}")
    value = getattr(importlib.import_module(module_name), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__


if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs only
    from pytest_auditfence.assertions import (
        assert_claim_traced,
        assert_no_fabricated_evidence,
        assert_traceable,
    )
    from pytest_auditfence.audit.cascade import Cascade, FenceGroup, Passport, audit_cascade_sync
    from pytest_auditfence.audit.policy import Policy
    from pytest_auditfence.capturing.importers import import_debug_events, import_run_tree
    from pytest_auditfence.capturing.tracefiles import read_trace_text
    from pytest_auditfence.capturing.wrap import capture, instrument_graph, wrap
    from pytest_auditfence.claims.extract import extract_claims
    from pytest_auditfence.claims.quantities import parse_quantities
    from pytest_auditfence.errors import (
        AuditFenceError,
        AuditError,
        CassetteMissError,
        FenceError,
        IncompleteCaptureError,
        JournalError,
        ManifestError,
        TraceDirError,
    )
    from pytest_auditfence.fence import Fence
    from pytest_auditfence.manifest import CaptureLevel, FileRecord, Manifest, NodeRecord
    from pytest_auditfence.models import (
        ChainLink,
        ClaimRecord,
        Evidence,
        EvidenceChain,
        Ratio,
        Verdict,
    )
    from pytest_auditfence.snapshot import Snapshot
