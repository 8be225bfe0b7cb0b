"""The manifest of a captured run: nodes, files, runtime topology, rounds and completeness.

Owns the pydantic models written to `manifest.json` and the strict reader; knows nothing of LangGraph.
"""

from __future__ import annotations

import json
from enum import StrEnum
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from pytest_auditfence.errors import ManifestError
from pytest_auditfence.textfmt import dump_indented

MANIFEST_NAME = "manifest.json"
JOURNAL_NAME = "journal.jsonl"
BLOBS_DIR = "blobs"
REPORT_NAME = "report.md"
# 2: a blob whose text a raw-data trace file holds line for line is a `lines` entry of the pack, not a copy
# (capturing/store.py). Format 1 (every blob's bytes in the pack) is still read: its pack is the same but
# for those entries.
MANIFEST_FORMAT_VERSION = 2
READABLE_FORMAT_VERSIONS = (1, 2)

# Name of the pseudo-node that stands for the user's input to the graph.
INPUT_NODE = "__input__"


class CaptureLevel(StrEnum):
    """How a node's data was captured, from most to least trustworthy (seed 003)."""

    INSTRUMENTED = "instrumented"
    LOG_STRUCTURED = "log-structured"
    GATEWAY = "gateway"
    DECLARED = "declared"

    @property
    def trust_cap(self) -> float:
        return TRUST_CAPS[self]


TRUST_CAPS: dict[CaptureLevel, float] = {
    CaptureLevel.INSTRUMENTED: 1.0,
    CaptureLevel.LOG_STRUCTURED: 0.85,
    CaptureLevel.GATEWAY: 0.7,
    CaptureLevel.DECLARED: 0.4,
}

NodeKind = Literal["node", "subgraph", "tool", "input", "artifact"]

FileKind = Literal[
    "input",  # the user's input to the graph, its questions left out (observed: raw data)
    "input_question",  # the questions the user asked (not evidence for their answers unless the policy says so)
    "node_input",  # the state a node received
    "node_output",  # the update a node returned
    "tool_call",  # one tool call's output or error (observed: raw data)
    "tool_arguments",  # the arguments of one tool call (declared: written by the model or the node's code)
    "handoff",  # a tool call that returned a Command (a hand-off): the agent's own words (declared)
    "retriever",  # documents a retriever returned (observed: raw data)
    "model_call",  # one chat model call: messages in, message out, usage (declared)
    "artifact",  # declared data saved with save_artifact (raw data, declared level)
    "report",  # the final document under audit
]

# The observed zone (seed 003): file kinds whose content came from outside the agent's own generation, the
# ground an audit stands on. Everything a model wrote (messages, tool-call arguments, hand-off payloads,
# structured outputs) is in the declared zone and never backs a claim.
RAW_FILE_KINDS: frozenset[str] = frozenset({"input", "tool_call", "retriever", "artifact"})
# A tool whose run called a chat model returns model-written text: evidence, but capped at this trust.
MODEL_DERIVED_TRUST_CAP = 0.5


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=False)


class FileRecord(_Model):
    """One grep-friendly text file in the trace folder."""

    path: str = Field(description="POSIX path relative to the trace folder")
    sha256: str = Field(description="sha256 of the file's bytes; the same content is in blobs/")
    kind: FileKind
    node: str = Field(description="namespaced node that produced or received it, e.g. 'research/search'")
    round: int = Field(default=1, ge=1, description="which run of the node (1 = first)")
    step: int | None = Field(default=None, description="langgraph_step, when known")
    tool: str | None = None
    tool_call_id: str | None = None
    error: bool = False
    truncated: bool = Field(default=False, description="cut at max_output_chars (the marker says how much)")
    model_derived: bool = Field(
        default=False, description="a tool call whose run called a chat model: its output is model-written"
    )
    binary: bool = Field(default=False, description="holds bytes that are not UTF-8 text: not searchable")


class NodeRecord(_Model):
    """A node of the runtime topology."""

    name: str = Field(description="namespaced name: 'write', 'research/search'")
    kind: NodeKind = "node"
    capture_level: CaptureLevel = CaptureLevel.INSTRUMENTED
    trust_cap: float = 1.0
    files: list[str] = Field(default_factory=list, description="paths of this node's files, sorted")
    rounds: int = Field(default=1, ge=0)
    parent: str | None = Field(default=None, description="enclosing subgraph node, if any")


class StepRecord(_Model):
    """One step of the cascade: one round of a node, in one instance of its subgraph."""

    name: str = Field(description="'<node> r<round>', e.g. 'research/search r2': its files are nodes/<node>/r<round>.*")
    node: str
    round: int = Field(ge=1)
    step: int | None = Field(default=None, description="langgraph_step within its own graph")
    within: str | None = Field(default=None, description="the host step whose subgraph run this step is part of")
    instance: int | None = Field(default=None, ge=1,
                                 description="which of the host step's subgraph runs, in an order every rerun shares "
                                             "(docs/capture.md, 'Rounds, instances and steps')")
    upstream: list[str] = Field(default_factory=list,
                                description="steps that fed it ('__input__': the user's input); never a later one")
    pushed: bool = Field(default=False, description="started by a Send: its input file holds the Send's argument "
                                                    "only, and the state may still reach it (a tool's injected state)")


class JournalSummary(_Model):
    events: int = 0
    gaps: list[tuple[int, int]] = Field(
        default_factory=list, description="missing sequence ranges (first, last) - a recorded fact"
    )
    broken_lines: int = 0
    digest: str | None = Field(
        default=None, description="sha256 of the events without their meta (integrity.journal_digest)"
    )


class Manifest(_Model):
    """What `Snapshot.finalize()` writes and `load_manifest()` reads back."""

    format_version: int = MANIFEST_FORMAT_VERSION
    complete: bool = False
    incomplete_reason: str | None = None
    nodes: list[NodeRecord] = Field(default_factory=list)
    edges: list[tuple[str, str]] = Field(
        default_factory=list, description="(upstream, downstream) node names: who fed whom in this run"
    )
    entry_nodes: list[str] = Field(default_factory=list, description="nodes fed by the user's input")
    final_node: str | None = Field(default=None, description="last top-level node to finish")
    rounds: dict[str, int] = Field(default_factory=dict, description="nodes that ran more than once")
    declared_dependencies: dict[str, list[str]] = Field(default_factory=dict)
    steps: list[StepRecord] = Field(default_factory=list, description="every round of every node, with what fed it")
    files: list[FileRecord] = Field(default_factory=list)
    report: str | None = Field(default=None, description="path of the final document, if set")
    journal: JournalSummary = Field(default_factory=JournalSummary)

    # -- convenience lookups (not serialised) -------------------------------------------------
    def node(self, name: str) -> NodeRecord:
        for record in self.nodes:
            if record.name == name:
                return record
        known = ", ".join(sorted(r.name for r in self.nodes)) or "(none)"
        raise KeyError(f"no node named {name!r} in the manifest; known nodes: {known}")

    def upstream(self, name: str) -> list[str]:
        return sorted({a for a, b in self.edges if b == name})

    def downstream(self, name: str) -> list[str]:
        return sorted({b for a, b in self.edges if a == name})

    def files_of(self, node: str, *kinds: str) -> list[FileRecord]:
        return [f for f in self.files if f.node == node and (not kinds or f.kind in kinds)]

    def raw_files(self) -> list[FileRecord]:
        return [f for f in self.files if f.kind in RAW_FILE_KINDS]

    def to_json(self) -> str:
        """Sorted, byte-stable JSON (what `manifest.json` holds)."""
        return dump_indented(self.model_dump(mode="json")) + "\n"


def load_manifest(trace_dir: str | Path) -> Manifest:
    """Read and validate `manifest.json` of a trace folder; every problem is a `ManifestError`."""
    path = Path(trace_dir) / MANIFEST_NAME
    if not path.is_file():
        raise ManifestError(
            f"{path}: no manifest. A capture writes it in Snapshot.finalize() (or on leaving "
            f"`with Snapshot(...)`); run the graph with config=snapshot.config() and finalize it first."
        )
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ManifestError(
            f"{path}: not readable as JSON ({exc}). The manifest is written by Snapshot.finalize(); "
            f"do not edit it by hand - delete the trace folder and capture the run again."
        ) from exc
    if not isinstance(raw, dict):
        raise ManifestError(f"{path}: expected a JSON object, found {type(raw).__name__}; capture the run again.")
    version = raw.get("format_version")
    if isinstance(version, bool) or version not in READABLE_FORMAT_VERSIONS:
        raise ManifestError(
            f"{path}: format_version {version!r}, this pytest-auditfence reads "
            f"{' and '.join(map(str, READABLE_FORMAT_VERSIONS))}; capture the run again with this version."
        )
    try:
        manifest = Manifest.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise ManifestError(
            f"{path}: invalid at '{where}': {first['msg']} ({exc.error_count()} problem(s)). "
            f"The manifest was edited or damaged; delete the trace folder and capture the run again."
        ) from exc
    known = {n.name for n in manifest.nodes}
    for a, b in manifest.edges:
        for end in (a, b):
            if end not in known and end != INPUT_NODE:
                raise ManifestError(
                    f"{path}: edge ({a!r}, {b!r}) names node {end!r} that is not in 'nodes'. "
                    f"The manifest was edited or damaged; capture the run again."
                )
    return manifest
