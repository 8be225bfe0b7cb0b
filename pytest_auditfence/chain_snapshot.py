"""The syrupy extension that stores evidence chains as sorted, human-readable golden files.

One block per claim, every line tagged with the claim id so a pull-request diff reads as
"[c003] lost its source"; volatile fields (sha256, absolute paths, run ids) are left out. Format 2 names the
introducer's round and, for a node that ran more than once, each hop's step.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import PurePosixPath, PureWindowsPath
from typing import Any

from syrupy.extensions.single_file import SingleFileSnapshotExtension, WriteMode

from pytest_auditfence.models import EvidenceChain, hop_name, with_round

CHAINS_FORMAT_VERSION = 2
_UUID = re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b", re.IGNORECASE)
_ISO_TIME = re.compile(r"\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})?\b")


def _stable_path(path: str) -> str:
    # Chains carry trace-folder-relative paths; an absolute one would change with tmp_path.
    for flavour in (PurePosixPath, PureWindowsPath):
        p = flavour(path)
        if p.is_absolute():
            return "<abs>/" + p.name
    return path


def _stable_text(text: str) -> str:
    text = " ".join(text.split())
    return _ISO_TIME.sub("<time>", _UUID.sub("<uuid>", text))


def _as_chains(data: Any) -> list[EvidenceChain]:
    if isinstance(data, EvidenceChain):
        return [data]
    if hasattr(data, "evidence_chains"):
        return list(data.evidence_chains())
    if isinstance(data, Iterable) and not isinstance(data, str | bytes | dict):
        items = list(data)
        if all(isinstance(i, EvidenceChain) for i in items):
            return items
    raise TypeError(
        f"chain_snapshot compares evidence chains: pass cascade.evidence_chains(), one EvidenceChain or a "
        f"cascade; got {type(data).__name__}"
    )


def serialize_chains(data: Any) -> str:
    """The golden-file text of evidence chains, sorted by claim id; same chains, same bytes."""
    chains = sorted(_as_chains(data), key=lambda c: c.claim_id)
    out = [f"# auditfence evidence chains, format {CHAINS_FORMAT_VERSION}, {len(chains)} claim(s)"]
    for chain in chains:
        tag = f"[{chain.claim_id}]"
        out.append("")
        out.append(f"{tag} claim: {_stable_text(chain.claim)}")
        out.append(f"{tag} verdict: {chain.verdict.value}")
        out.append(f"{tag} introduced_by: {with_round(chain.introduced_by, chain.introduced_round) if chain.introduced_by else '-'}")
        out.append(f"{tag} reaches_raw_data: {'yes' if chain.reaches_raw_data else 'NO'}")
        if not chain.links:
            out.append(f"{tag} source: none")
        for i, link in enumerate(chain.links, start=1):
            out.append(
                # the step ('agent r2') only where the node ran more than once: a node's rounds read apart
                f"{tag} link {i}: {link.kind} {hop_name(link)} @ {_stable_path(link.file)}:{link.line} | "
                f"{_stable_text(link.text)}"
            )
    return "\n".join(out) + "\n"


class EvidenceChainExtension(SingleFileSnapshotExtension):
    """`assert cascade.evidence_chains() == chain_snapshot` writes `__snapshots__/<module>/<test>.chains`."""

    _write_mode = WriteMode.TEXT
    file_extension = "chains"

    def serialize(self, data: Any, **kwargs: Any) -> str:
        return serialize_chains(data)
