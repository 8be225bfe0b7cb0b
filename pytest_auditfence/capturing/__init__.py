"""Capture of agent runs into a trace folder: callback handler, journal and blob store, topology.

Names are exported lazily so importing this package loads no LangChain or LangGraph.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS: dict[str, str] = {
    "capture": "pytest_auditfence.capturing.wrap",
    "wrap": "pytest_auditfence.capturing.wrap",
    "instrument_graph": "pytest_auditfence.capturing.wrap",
    "import_debug_events": "pytest_auditfence.capturing.importers",
    "import_run_tree": "pytest_auditfence.capturing.importers",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module_name = _EXPORTS.get(name)
    if module_name is None:
        raise AttributeError(f"module 'pytest_auditfence.capturing' has no attribute {name!r}")
    value = getattr(importlib.import_module(module_name), name)
    globals()[name] = value
    return value
