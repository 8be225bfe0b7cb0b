"""Exceptions of pytest-auditfence.

Every message names the thing that was wrong, what was found, and the fix (STYLE.md rule 11).
"""

from __future__ import annotations


class AuditFenceError(Exception):
    """Base class of every error this package raises on purpose."""


class TraceDirError(AuditFenceError):
    """A trace folder cannot be used: it already holds a run, is missing, or is not a folder."""


class ManifestError(AuditFenceError):
    """`manifest.json` is missing, unreadable, hand-edited into an invalid shape, or of another format version."""


class JournalError(AuditFenceError):
    """`journal.jsonl` has a broken line or is unreadable."""


class IncompleteCaptureError(AuditFenceError):
    """An audit was asked of a capture that is marked incomplete (the run raised, or events were lost)."""


class FenceError(AuditFenceError):
    """Misuse of the fence gate: a search outside the sandbox, a bad argument."""


class AuditError(AuditFenceError):
    """An audit could not be completed (step limit, timeout, a unit that failed); fails closed."""


class CassetteMissError(AuditFenceError):
    """An LLM request had no recorded response in the test's cassette (replay-only mode)."""


class IntegrityError(ManifestError):
    """A trace folder disagrees with its manifest: a file, blob or journal changed after capture (fails closed)."""


class CassetteYamlError(AuditFenceError):
    """A cassette file is not valid YAML (or not a vcrpy cassette): named with its line and the re-record command."""
