"""The `pytest_auditfence_*` hook specifications: how conftest files and plugins extend a fenced run.

Added in `pytest_addhooks`; the plugin ships its default audit and checks as implementations of these
hooks (`pytest_auditfence.plugin.DefaultHooks`), so a user's implementation runs beside or instead of ours.
"""

from __future__ import annotations

from typing import Any

import pluggy

hookspec = pluggy.HookspecMarker("pytest")


@hookspec
def pytest_auditfence_redactors(config: Any) -> list[Any] | None:
    """Return callables `str -> str` that scrub text before a fenced test's capture writes anything.

    Every implementation's callables run, in hook order, after the built-in redaction of API keys,
    bearer tokens and secret-named environment variables, which always runs (it cannot be turned off
    through this hook). Return None or [] to add nothing.
    """


@hookspec(firstresult=True)
def pytest_auditfence_audit(
    item: Any, settings: Any, manifest: Any, trace_dir: Any, final_document: str, llm: Any
) -> Any:
    """Run the audit of one fenced test's capture and return a cascade.

    The first non-None result wins. The default implementation calls
    `pytest_auditfence.audit.cascade.audit_cascade_sync`; implement this hook to audit differently
    (e.g. a custom claim extractor) - the returned object needs `claims`, `coverage`,
    `hallucinations`, `complete`, `errors`, `failing_claims()` and `trace_claim()`.
    """


@hookspec
def pytest_auditfence_extract_claims(config: Any, document: str) -> list[Any] | None:
    """Return the claims (`pytest_auditfence.ClaimRecord`) found in the document under audit.

    Every implementation runs and their claims are merged: a claim whose span an earlier
    implementation already returned is kept once (yours run before the built-in markdown extraction,
    which is the default implementation), and ids are renumbered c001... in document order. Each
    claim's `document[start:end]` must equal its `claim` text, or the audit is an error. Use it to add
    domain claims the built-in extraction misses (e.g. figures written in words) with their atoms.
    """


@hookspec
def pytest_auditfence_checks(item: Any, settings: Any, cascade: Any) -> list[str] | None:
    """Return shortfalls (one message each) of a fenced test's audit; any shortfall fails the test.

    Every implementation runs; their lists are concatenated. The default implementation checks
    `min_coverage` and `max_hallucinations`. Add a check by returning messages such as
    `["claim c003 must come from the 'pricing' tool"]`.
    """


@hookspec
def pytest_auditfence_modify_report(config: Any, report: Any) -> None:
    """Edit the session's `FenceReport` (pytest_auditfence.report) in place before it is written.

    Called once, on the controller (not on xdist workers), before `--fence-report`,
    `--fence-md-summary` and the baseline comparison use it.
    """
