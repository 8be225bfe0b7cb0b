"""The cascade audit: audit units from the captured topology, claim tracing, verdicts and the passport.

One unit per downstream node (its incoming edges merged, so a fan-in is one unit); every claim of the
final report is traced node by node, through each unit's fence, down to raw data. No LLM by default.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field

from pytest_auditfence.audit.policy import Policy
from pytest_auditfence.capturing.tracefiles import read_trace_text
from pytest_auditfence.errors import AuditError, IncompleteCaptureError, ManifestError
from pytest_auditfence.manifest import (
    INPUT_NODE,
    MODEL_DERIVED_TRUST_CAP,
    RAW_FILE_KINDS,
    CaptureLevel,
    FileRecord,
    Manifest,
    load_manifest,
)
from pytest_auditfence.models import (
    COVERED_VERDICTS,
    ChainLink,
    ClaimRecord,
    Evidence,
    EvidenceChain,
    LlmAudit,
    Ratio,
    Verdict,
)

if TYPE_CHECKING:  # pragma: no cover
    from pytest_auditfence.fence import Fence, Source
    from pytest_auditfence.verify import SourceIndex

CASCADE_FORMAT_VERSION = 1
# Pseudo-node standing for the final document: a claim whose content is in no node's output was
# introduced by whatever wrote the report outside the captured run.
REPORT_NODE = "__report__"
RAW_UNIT = "__raw__"
# Observed file kinds as the cascade reads a chain; the user's questions are among its sources only when
# Policy(questions_are_evidence=True) puts them there.
_RAW_KINDS = RAW_FILE_KINDS | {"input_question"}


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Rejection(_Model):
    """A submission the fence gate refused, kept with its reason."""

    unit: str
    claim: str
    evidence: str
    reason: str


class UnitResult(_Model):
    """What one audit unit saw and did: its node, the upstream nodes merged into it, its sources."""

    name: str
    node: str
    upstream: list[str] = Field(default_factory=list)
    sources: list[str] = Field(default_factory=list)
    searches: int = 0
    submissions: int = 0
    accepted: int = 0
    rejections: list[Rejection] = Field(default_factory=list)


class Passport(_Model):
    """The qualified verdict of seed 003: verified trust capped by the weakest capture level involved."""

    verified_trust: float
    capture_level: CaptureLevel
    trust_cap: float
    coverage: Ratio
    hallucinations: Ratio
    complete: bool
    statement: str


class TokenUsage(_Model):
    input_tokens: int = 0
    output_tokens: int = 0
    total_tokens: int = 0
    cost_usd: float = 0.0


class CascadeResult(_Model):
    """Everything a cascade knows, serialisable: reload it and compare without re-running the audit."""

    format_version: int = CASCADE_FORMAT_VERSION
    document_sha256: str
    policy: Policy
    claims: list[ClaimRecord]
    chains: list[EvidenceChain]
    units: list[UnitResult]
    coverage: Ratio
    hallucinations: Ratio
    skipped: Ratio
    passport: Passport
    complete: bool
    errors: list[str] = Field(default_factory=list)
    nodes: list[str] = Field(default_factory=list)
    edges: list[tuple[str, str]] = Field(default_factory=list)
    usage: TokenUsage = Field(default_factory=TokenUsage)
    # Only LLM audits fill it; left out of the JSON when None so deterministic results stay byte-stable.
    llm: LlmAudit | None = None


# --------------------------------------------------------------------------------------------------
# audit units


@dataclass
class AuditUnit:
    """One node's inputs as a searchable, fenced set of sources."""

    name: str
    node: str
    upstream: list[str]
    sources: list[Source]
    fence: Fence
    index: SourceIndex
    files: dict[str, FileRecord] = field(default_factory=dict)
    step: str | None = None  # the round of `node` it audits ('research/search r2'); None: all rounds merged

    def result(self) -> UnitResult:
        return UnitResult(
            name=self.name,
            node=self.node,
            upstream=self.upstream,
            sources=[s.path for s in self.sources],
            searches=len(self.fence.history),
            submissions=len(self.fence.submissions),
            accepted=sum(1 for s in self.fence.submissions if s.accepted),
            rejections=[
                Rejection(unit=self.name, claim=r.claim, evidence=r.evidence, reason=r.reason or "")
                for r in self.fence.rejections
            ],
        )


class FenceGroup:
    """The audit units of one run, and the claims of the final document once audited."""

    def __init__(self, units: list[UnitResult], all_claims: list[ClaimRecord],
                 fences: dict[str, Fence] | None = None) -> None:
        self.units = units
        self.all_claims = all_claims
        self.fences = fences or {}

    def unit(self, name: str) -> UnitResult:
        """A unit by name: a step ('synthesizer r1'), or a node whose output was audited in one step only."""
        for unit in self.units:
            if unit.name == name:
                return unit
        rounds = [u for u in self.units if u.node == name and u.name.startswith(f"{name} r")]
        if len(rounds) == 1:
            return rounds[0]
        if rounds:
            raise KeyError(f"node {name!r} ran in {len(rounds)} steps; name one: "
                           f"{', '.join(u.name for u in rounds)}")
        raise KeyError(f"no audit unit {name!r}; units: {', '.join(u.name for u in self.units)}")

    @classmethod
    async def audit_cascade(
        cls,
        *,
        manifest: Manifest | None = None,
        trace_dir: str | Path,
        final_document: str | None = None,
        llm: Any = None,
        policy: Policy | None = None,
        extractor: Callable[[str], list[ClaimRecord]] | None = None,
        **llm_options: Any,
    ) -> Cascade:
        """Audit a captured run: every claim of `final_document` traced to raw data (async).

        `manifest` defaults to the one in `trace_dir`; `final_document` defaults to the report recorded
        with `Snapshot.set_report`. With `llm=None` the audit is deterministic (no model call).
        `extractor(document) -> list[ClaimRecord]` replaces the built-in claim extraction (the pytest
        plugin passes one that merges the `pytest_auditfence_extract_claims` hook results).
        """
        if llm is not None:
            from pytest_auditfence.audit import llm as llm_auditor  # lazy: pulls in langgraph

            if extractor is not None:
                llm_options["extractor"] = extractor
            return await llm_auditor.audit_with_llm(
                manifest=manifest, trace_dir=trace_dir, final_document=final_document, llm=llm,
                policy=policy, **llm_options,
            )
        if llm_options:
            raise AuditError(
                f"{', '.join(sorted(llm_options))} only apply to the LLM auditor, and no llm was given; "
                f"pass llm=<a LangChain chat model> or drop those options."
            )
        return _Auditor(manifest, trace_dir, final_document, policy, extractor).run()


class _AuditLoop:
    """One long-lived event loop, in a daemon thread, for every synchronous audit of the process.

    A chat model may cache clients per event loop (langchain-openai keeps one async HTTP client per
    base_url); a fresh `asyncio.run` per audit would close the loop under that client, and the second
    LLM audit of a test would fail with "Event loop is closed"."""

    _lock = threading.Lock()
    _loop: asyncio.AbstractEventLoop | None = None

    @classmethod
    def get(cls) -> asyncio.AbstractEventLoop:
        with cls._lock:
            if cls._loop is None or cls._loop.is_closed():
                loop = asyncio.new_event_loop()
                threading.Thread(target=loop.run_forever, name="auditfence-audit-loop", daemon=True).start()
                cls._loop = loop
            return cls._loop


def audit_cascade_sync(**kwargs: Any) -> Cascade:
    """`FenceGroup.audit_cascade` for synchronous callers, also from inside a running event loop (an
    async test): the audit runs on the package's own long-lived loop and this call waits for it."""
    future = asyncio.run_coroutine_threadsafe(FenceGroup.audit_cascade(**kwargs), _AuditLoop.get())
    return future.result()


# --------------------------------------------------------------------------------------------------
# steps: one round of a node in one subgraph instance


def _node_of(step: str) -> str:
    """'research/search r2' -> 'research/search'; a name without a round ('__input__') is its own node."""
    return _STEP_NAME.sub("", step)


_STEP_NAME = re.compile(r" r\d+$")
_ITEM = re.compile(r"^- ", re.MULTILINE)
_TOOL_CALL_TYPE = re.compile(r"^(?:  )?type: tool_call$", re.MULTILINE)


def _is_tool_calls(text: str) -> bool:
    """A node input written as a list of tool calls: every item ('- ' at a line start) has 'type: tool_call'
    among its own keys (not inside its arguments, which are indented further)."""
    items = _ITEM.split(text.strip())
    return len(items) > 1 and not items[0] and all(_TOOL_CALL_TYPE.search(item) for item in items[1:])


class _Steps:
    """The cascade's steps (manifest.steps) and what existed when each started.

    `feeds(s)`: the steps whose outputs `s`'s output may come from. A step's host (the node whose subgraph
    run it is part of) hands in only what the host itself was given, so an entry edge from the host is read
    as the host's own feeds, never the host's output (written after the step ran). `ancestors(s)`: every
    step that ended before `s` started."""

    def __init__(self, manifest: Manifest, trace_dir: Path) -> None:
        from pytest_auditfence.manifest import StepRecord

        self.records: dict[str, StepRecord] = {s.name: s for s in manifest.steps}
        if not self.records:
            # No steps recorded: wrapped functions only, or a folder captured before steps were (format 1
            # without 'steps'). One step per node is exact while each node ran once; rounds or instances
            # could not be told apart (one round would back another), so such a folder is refused.
            rounds = {(f.node, f.round) for f in manifest.files if f.kind in ("node_output", "node_input")}
            _refuse_merged_rounds(trace_dir, manifest, rounds)
            for node, round_ in sorted(rounds):
                ups = [u if u == INPUT_NODE else f"{u} r{r}" for u in manifest.upstream(node)
                       for r in sorted({r for n, r in rounds if n == u} or {1})]
                name = f"{node} r{round_}"
                self.records[name] = StepRecord(name=name, node=node, round=round_, upstream=ups)
        self.by_round = {(r.node, r.round): r.name for r in self.records.values()}
        self.files: dict[str, dict[str, list[FileRecord]]] = {}
        for f in manifest.files:
            step = self.by_round.get((f.node, f.round))
            if step is not None:
                self.files.setdefault(step, {}).setdefault(f.kind, []).append(f)
        self._feeds: dict[str, list[str]] = {}
        self._ancestors: dict[str, set[str]] = {}

    def of(self, record: FileRecord) -> str | None:
        return self.by_round.get((record.node, record.round))

    def of_node(self, node: str) -> list[str]:
        return sorted((r.name for r in self.records.values() if r.node == node),
                      key=lambda n: self.records[n].round)

    def split(self, name: str | None) -> tuple[str | None, int | None]:
        record = self.records.get(name) if name else None
        return (record.node, record.round) if record is not None else (name, None)

    def label(self, name: str | None) -> str:
        node, round_ = self.split(name)
        return f"{node!r}" + (f" (round {round_})" if round_ is not None and len(self.of_node(node or "")) > 1 else "")

    def hosts(self, name: str) -> list[str]:
        out: list[str] = []
        host = self.records[name].within if name in self.records else None
        while host is not None and host not in out:
            out.append(host)
            host = self.records[host].within if host in self.records else None
        return out

    def children(self, name: str) -> list[str]:
        return sorted(r.name for r in self.records.values() if r.within == name)

    def feeds(self, name: str) -> list[str]:
        if name not in self._feeds:
            self._feeds[name] = []  # a guard while computing (a malformed manifest cannot recurse forever)
            hosts = self.hosts(name)
            out: set[str] = set()
            for up in self.records[name].upstream if name in self.records else ():
                out.update(self.before(up) if up in hosts else {up})
            self._feeds[name] = sorted(out)
        return self._feeds[name]

    def through_host(self, name: str) -> set[str]:
        """The feeds of `name` that reach it only through its host (what the host was given): a subgraph's
        entry is handed what the host's code built, so these count only for content its own input holds."""
        if name not in self.records:
            return set()
        hosts = self.hosts(name)
        direct = {u for u in self.records[name].upstream if u not in hosts}
        return set(self.feeds(name)) - direct

    def before(self, name: str) -> set[str]:
        """What `name` was fed at its start: its feeds, without the steps of its own subgraph run."""
        return {u for u in self.feeds(name) if name not in self.hosts(u)}

    def ancestors(self, name: str) -> set[str]:
        if name not in self._ancestors:
            found: set[str] = set()
            frontier = list(self.before(name))
            while frontier:
                up = frontier.pop()
                if up in found or up == INPUT_NODE:
                    continue
                found.add(up)
                frontier.extend(self.feeds(up))
            self._ancestors[name] = found
        return self._ancestors[name]


def _refuse_merged_rounds(trace_dir: Path, manifest: Manifest, rounds: set[tuple[str, int]]) -> None:
    again = sorted({node for node, round_ in rounds if round_ > 1})
    if again:
        raise ManifestError(
            f"{trace_dir}: the manifest (format_version {manifest.format_version}) has no 'steps': it was written "
            f"by a pytest-auditfence that did not record rounds and subgraph instances, and {', '.join(again)} "
            f"ran more than once, so one round could back another's claims. Capture the run again with this "
            f"version (rerun the test or script that wrote the folder)."
        )


# --------------------------------------------------------------------------------------------------
# the deterministic auditor


def _first_covered(candidates: list[ClaimRecord], fence: Any, index: SourceIndex) -> ClaimRecord | None:
    """The first candidate (an atom, then its whole claim) that these sources cover, with its evidence."""
    from pytest_auditfence.verify import verify_claim

    for candidate in candidates:
        checked = verify_claim(candidate, fence, index)
        if checked.verdict in COVERED_VERDICTS and checked.evidence:
            return checked
    return None


@dataclass
class _AtomTrace:
    links: list[ChainLink]
    reached_raw: bool
    introduced_by: str | None  # a step name ('research/draft r2'), REPORT_NODE, or None
    derived: list[str]


class _Auditor:
    def __init__(self, manifest: Manifest | None, trace_dir: str | Path, document: str | None,
                 policy: Policy | None, extractor: Callable[[str], list[ClaimRecord]] | None = None) -> None:
        from pytest_auditfence.fence import FileStore
        from pytest_auditfence.verify import IndexCache

        self.extractor = extractor

        self.trace_dir = Path(trace_dir)
        if not self.trace_dir.is_dir():
            raise ManifestError(
                f"{self.trace_dir}: trace folder not found. Pass the folder a Snapshot captured into "
                f"(snapshot.trace_dir)."
            )
        self.manifest = manifest if manifest is not None else load_manifest(self.trace_dir)
        from pytest_auditfence.integrity import verify_trace

        verify_trace(self.trace_dir, self.manifest)  # every file read below is the one captured (sha256)
        self.policy = policy or Policy()
        self.input_kinds = ("input", "input_question") if self.policy.questions_are_evidence else ("input",)
        if not self.manifest.complete and not self.policy.allow_incomplete:
            reason = self.manifest.incomplete_reason or "the run raised or capture events were lost"
            raise IncompleteCaptureError(
                f"{self.trace_dir}: the capture is incomplete ({reason}); an audit of a partial run "
                f"could pass by accident, so it is refused. Fix the run and capture again, or pass "
                f"Policy(allow_incomplete=True) to audit what was captured."
            )
        if document is not None:  # passed directly: redacted like captured data before it reaches any output
            from pytest_auditfence.redact import Redactor

            document = Redactor().text(document)
        self.document = document if document is not None else self._recorded_report()
        self.files = {f.path: f for f in self.manifest.files}
        self.steps = _Steps(self.manifest, self.trace_dir)
        self.cache = IndexCache()
        # one store for the audit: every unit's fence and index read a file from disk (and check its sha256) once
        self.store = FileStore(self.trace_dir.resolve())
        self.units: dict[str, AuditUnit] = {}
        # Per node: what it received (its input files) and the outputs of its earlier ancestors; used only
        # when a figure is in neither its raw data nor its direct upstream outputs (see _hop).
        self.received: dict[str, AuditUnit | None] = {}
        self.dispatch: dict[str, bool] = {}  # step -> started by a Send of tool calls (see _tool_dispatch)
        self.earlier: dict[tuple[str, frozenset[str]], AuditUnit | None] = {}
        self.indexes: dict[tuple[str, ...], SourceIndex] = {}
        # the value lookups the claims' figures make (`verify.sources.expected_lookups`), known once the claims are
        # read: each index keeps by value only the deferred numbers they can reach (any other lookup is answered too)
        self.expected: list[tuple[float, float]] | None = None
        self.raw_periods: frozenset[str] | None = None  # see _raw_periods
        self.errors: list[str] = []

    # -- inputs ------------------------------------------------------------------------------
    def _recorded_report(self) -> str:
        if not self.manifest.report:
            raise AuditError(
                f"{self.trace_dir}: no final document. Pass final_document=..., or record it during the "
                f"run with snapshot.set_report(text)."
            )
        path = self.trace_dir / self.manifest.report
        try:
            return read_trace_text(self.trace_dir, self.manifest.report)
        except OSError as exc:
            raise AuditError(f"{path}: the recorded report cannot be read ({exc}); capture the run again.") from exc

    def _source(self, record: FileRecord) -> Source:
        from pytest_auditfence.fence import Source

        path = self.trace_dir / record.path
        if not path.is_file():
            raise ManifestError(
                f"{path}: listed in the manifest but missing from the trace folder; the folder was "
                f"changed after capture. Capture the run again."
            )
        return Source(path=record.path, node=record.node, kind=record.kind, sha256=record.sha256,
                      label=_label(record))

    def _unit(self, name: str, node: str, upstream: list[str], records: Iterable[FileRecord],
              step: str | None = None) -> AuditUnit:
        from pytest_auditfence.fence import Fence

        unique = _by_path(records)
        sources = [self._source(r) for r in unique]
        fence = Fence(self.trace_dir, sources, self.document, name=name,
                      min_evidence_length=self.policy.min_evidence_length, store=self.store)
        index = self._index(sources)
        return AuditUnit(name=name, node=node, upstream=upstream, sources=sources, fence=fence,
                         index=index, files={r.path: r for r in unique}, step=step)

    def _outputs(self, node: str) -> list[FileRecord]:
        return [f for f in self.manifest.files if f.node == node and f.kind == "node_output"]

    def _sinks(self) -> list[str]:
        with_output = {f.node for f in self.manifest.files if f.kind == "node_output"}
        parents = {n.name: n.parent for n in self.manifest.nodes}
        # a host's edge into its own subgraph is not a consumer of its output
        has_downstream = {a for a, b in self.manifest.edges if b in with_output and parents.get(b) != a}
        sinks = {n for n in with_output if n not in has_downstream}
        if self.manifest.final_node and self.manifest.final_node in with_output:
            sinks.add(self.manifest.final_node)
        return sorted(sinks)

    def _step_files(self, step: str, *kinds: str) -> list[FileRecord]:
        return self.steps.files.get(step, {}).get(kinds[0], []) if len(kinds) == 1 else [
            f for k in kinds for f in self.steps.files.get(step, {}).get(k, [])]

    def _sink_steps(self) -> list[str]:
        """The steps whose output no later step was fed (the final node's last round among them)."""
        with_output = [s for s in self.steps.records if self._step_files(s, "node_output")]
        consumed = {u for s in self.steps.records for u in self.steps.feeds(s)}
        sinks = {s for s in with_output if s not in consumed}
        final = self.manifest.final_node
        rounds = [r for r in self.steps.records.values() if r.node == final and r.within is None
                  and self._step_files(r.name, "node_output")]
        if rounds:
            sinks.add(max(rounds, key=lambda r: r.round).name)
        return sorted(sinks)

    def report_unit(self) -> AuditUnit:
        unit = self.units.get(REPORT_NODE)
        if unit is None:
            sinks = self._sink_steps()
            records = [f for s in sinks for f in self._step_files(s, "node_output")]
            if not records:
                # No graph node produced output (tools captured with wrap/capture, artifacts): the report
                # was written straight from the captured raw data.
                records = self.manifest.raw_files()
                sinks = sorted({f.node for f in records})
            unit = self.units[REPORT_NODE] = self._unit("report", REPORT_NODE, sinks, records)
        return unit

    def report_rounds_unit(self, seen: frozenset[str]) -> AuditUnit | None:
        """The outputs of the other rounds of the nodes whose last steps the report unit holds."""
        sinks = set(self._sink_steps())
        steps = frozenset(s for n in sorted({_node_of(s) for s in sinks}) for s in self.steps.of_node(n)
                          if s not in sinks and s not in seen)
        key = ("report rounds", steps)
        if key not in self.earlier:
            records = [f for s in sorted(steps) for f in self._step_files(s, "node_output")]
            self.earlier[key] = self._unit("report earlier rounds", REPORT_NODE, sorted(steps), records) if records else None
        return self.earlier[key]

    def step_unit(self, step: str) -> AuditUnit:
        """The unit auditing one round's output: the outputs of the steps that fed it (fan-in merged), the
        user's input and the round's own raw data - nothing that existed only after it started."""
        unit = self.units.get(step)
        if unit is None:
            feeds = self.steps.feeds(step)
            records: list[FileRecord] = [f for up in feeds for f in self._step_files(up, "node_output")]
            # The user's input is in the state every node receives, so it is a source of every unit
            # (a later node quoting the question has not invented it).
            records.extend(f for f in self.manifest.files if f.kind in self.input_kinds)
            records.extend(self._step_files(step, *_RAW_KINDS))
            unit = self.units[step] = self._unit(step, _node_of(step), feeds, records, step=step)
        return unit

    def received_unit(self, step: str) -> AuditUnit | None:
        """The files of the state a round was given (its input files), or None when none was captured."""
        if step not in self.received:
            records = self._step_files(step, "node_input")
            self.received[step] = self._unit(f"{step} input", _node_of(step), [], records, step=step) if records else None
        return self.received[step]

    def earlier_unit(self, step: str, seen: frozenset[str]) -> AuditUnit | None:
        """The outputs of the round's ancestors beyond the steps that fed it directly, not yet on the path. A
        LangGraph node is given the whole state: what a node two steps back wrote is still in it ('fetch ->
        analyze -> write', where write quotes fetch's data that analyze did not repeat). Only steps that
        ended before this round started: never a later round, never another instance of its subgraph."""
        wanted = frozenset(self.steps.ancestors(step) - set(self.steps.feeds(step)) - seen - {step, INPUT_NODE})
        key = (step, wanted)
        if key not in self.earlier:
            records = [f for a in sorted(wanted) for f in self._step_files(a, "node_output")]
            self.earlier[key] = (self._unit(f"{step} earlier state", _node_of(step), sorted(wanted), records, step=step)
                                 if records else None)
        return self.earlier[key]

    def inner_step_unit(self, step: str, seen: frozenset[str]) -> AuditUnit | None:
        """The outputs of the steps of this round's own subgraph run(s), beyond its last step, not on the path."""
        inner = frozenset(self.steps.children(step)) - set(self.steps.feeds(step)) - seen
        if not inner:
            return None
        key = (f"{step} inner", inner)
        if key not in self.earlier:
            records = [f for n in sorted(inner) for f in self._step_files(n, "node_output")]
            self.earlier[key] = (self._unit(f"{step} inner nodes", _node_of(step), sorted(inner), records, step=step)
                                 if records else None)
        return self.earlier[key]

    def raw_unit(self) -> AuditUnit:
        unit = self.units.get(RAW_UNIT)
        if unit is None:
            unit = self.units[RAW_UNIT] = self._unit("raw data", RAW_UNIT, [], self._raw_records())
        return unit

    def _raw_periods(self) -> frozenset[str]:
        """The periods the run's raw data names (see verify.verdict.periods_named), computed once."""
        if self.raw_periods is None:
            from pytest_auditfence.verify.verdict import periods_named

            # the raw data's index, not its unit: the LLM auditor lists the units it used
            sources = [self._source(r) for r in _by_path(self._raw_records())]
            self.raw_periods = periods_named(self._index(sources))
        return self.raw_periods

    def _raw_records(self) -> list[FileRecord]:
        return [f for f in self.manifest.files if f.kind in RAW_FILE_KINDS or f.kind in self.input_kinds]

    # -- tracing -----------------------------------------------------------------------------
    def _check(self, claim: ClaimRecord, unit: AuditUnit) -> ClaimRecord:
        from pytest_auditfence.verify import verify_claim

        return verify_claim(claim, unit.fence, unit.index)

    def _link(self, evidence: Evidence, unit: AuditUnit) -> ChainLink:
        record = unit.files.get(evidence.file) or self.files.get(evidence.file)
        kind = record.kind if record is not None else "node_output"
        step = self.steps.of(record) if record is not None else None
        several = step is not None and len(self.steps.of_node(record.node)) > 1  # type: ignore[union-attr]
        return ChainLink(node=evidence.node, file=evidence.file, line=evidence.line,
                         text=_line_text(self.trace_dir, evidence), kind=kind, sha256=evidence.sha256,
                         step=step if several else None)

    def _index(self, sources: list[Source]) -> SourceIndex:
        from pytest_auditfence.verify import SourceIndex

        key = tuple(s.path for s in sources)
        index = self.indexes.get(key)
        if index is None:
            index = self.indexes[key] = SourceIndex.build(self.trace_dir, sources, cache=self.cache,
                                                          store=self.store, expected=self.expected)
            # a hop asks where a figure came from: a period the claim names passes a hop when the hop's sources
            # or the run's raw data name it (a loop's later round is given the date of an earlier tool call); a
            # period named nowhere stops at the first hop that lacks it, its introducer. For the raw data's own
            # index the union is its own periods: whether a period is made up is the raw data's verdict.
            index.memo["periods elsewhere"] = self._raw_periods
        return index

    def _step_of(self, path: str) -> str | None:
        record = self.files.get(path)
        return self.steps.of(record) if record is not None else None

    def _hop(self, atom_claim: ClaimRecord, whole: ClaimRecord, unit: AuditUnit,
             seen: frozenset[str]) -> ClaimRecord | None:
        """Check an atom at one unit: raw data first, then the outputs of upstream steps not yet on the
        path, then both together (a figure derived from raw and upstream).

        The atom alone is tried first; failing that, the whole claim, whose other figures tell the verifier
        where a derived figure's operands stand ("$198 million (operating margin 16.0%)"): if the whole
        claim holds at this unit, so does each of its atoms."""
        raw = [s for s in unit.sources if s.kind in _RAW_KINDS]
        upstream = [s for s in unit.sources if s.kind not in _RAW_KINDS and self._step_of(s.path) not in seen]
        candidates = [atom_claim] if whole is atom_claim else [atom_claim, whole]
        inherited = self.steps.through_host(unit.step) if unit.step else set()
        if inherited:
            # What the host was given reaches a subgraph's entry only as far as the host handed it in.
            given = [s for s in upstream if self._step_of(s.path) in inherited]
            upstream = [s for s in upstream if self._step_of(s.path) not in inherited]
            if given and self._received(candidates, unit.step or ""):
                upstream += given
        for part in (raw, upstream, raw + upstream if raw and upstream else []):
            if part:
                checked = _first_covered(candidates, unit.fence, self._index(part))
                if checked is not None:
                    return checked
        if unit.node == REPORT_NODE:
            # The document is written from the final state: the earlier rounds of the last nodes are in it
            # (a report that joins every message of an agent loop, not only the last one).
            rounds = self.report_rounds_unit(seen)
            return _first_covered(candidates, rounds.fence, rounds.index) if rounds is not None else None
        if unit.step is None:
            return None
        inner = self.inner_step_unit(unit.step, seen)
        if inner is not None:
            # A subgraph's result is its whole final state: what any inner node wrote is in it, not only
            # what its last step wrote (a create_agent's tool output its final answer does not repeat).
            checked = _first_covered(candidates, inner.fence, inner.index)
            if checked is not None:
                return checked
        if not self._tool_dispatch(unit.step) and not self._received(candidates, unit.step):
            return None
        # The round was given the content, but not by the steps that fed it directly: an earlier step's output
        # still in the state. Only looked at when the round's own input holds the content (an overwritten
        # value is not in it; a Send's argument holds only what the sender put in it), or when its input is a
        # ToolNode's call sent by a Send (tool calls only: its tools read the state injected, as a hand-off
        # tool does to pass the messages on).
        earlier = self.earlier_unit(unit.step, seen)
        return _first_covered(candidates, earlier.fence, earlier.index) if earlier is not None else None

    def _dead_end_origin(self, step: str, atom_claim: ClaimRecord, whole: ClaimRecord | None) -> str:
        """Who introduced content that a trace cannot follow past `step`: the round itself, unless it was
        given the content by the host step it runs in. A subgraph invoked inside a node function gets its
        input from that function's code ('outer' built the query 'outer/search' received). Every earlier
        step of the run that could have written it was searched already (earlier_unit), so content the
        round was given that no earlier step explains came in with the user's input, or from its host."""
        candidates = [atom_claim] if whole is None else [atom_claim, whole]
        if not self._received(candidates, step):
            return step
        host = self.steps.records[step].within if step in self.steps.records else None
        while host is not None:
            if not self._received(candidates, host):
                return host  # the host's code built it: it was not in what the host was given
            host = self.steps.records[host].within
        return step

    def _tool_dispatch(self, step: str) -> bool:
        """Was the round started by a Send whose argument is tool calls only (create_agent's `Send("tools",
        [tool_call])`)? Its tools may read the whole state, which its input file does not show."""
        record = self.steps.records.get(step)
        if record is None or not record.pushed:
            return False
        if step not in self.dispatch:
            texts = [read_trace_text(self.trace_dir, f.path) for f in self._step_files(step, "node_input")]
            self.dispatch[step] = bool(texts) and all(_is_tool_calls(t) for t in texts)
        return self.dispatch[step]

    def _received(self, candidates: list[ClaimRecord], step: str) -> bool:
        """Does the state the round was given hold the atom (alone or with its claim)?"""
        received = self.received_unit(step)
        return received is not None and _first_covered(candidates, received.fence, received.index) is not None

    def trace_atom(self, atom_claim: ClaimRecord, whole: ClaimRecord | None = None) -> _AtomTrace:
        """Follow one atom from the report down the steps; depth-first, preferring paths to raw data."""
        best_dead_end: tuple[int, list[ChainLink], str] | None = None

        def dead_end(links: list[ChainLink], origin: str) -> None:
            nonlocal best_dead_end
            if best_dead_end is None or len(links) > best_dead_end[0]:
                best_dead_end = (len(links), links, origin)

        def visit(unit: AuditUnit, links: list[ChainLink], seen: frozenset[str],
                  derived: list[str]) -> _AtomTrace | None:
            checked = self._hop(atom_claim, whole or atom_claim, unit, seen)
            if checked is None:
                dead_end(links, self._dead_end_origin(unit.step, atom_claim, whole) if unit.step else unit.node)
                return None
            formulas = derived + ([checked.formula] if checked.verdict is Verdict.DERIVED and checked.formula else [])
            raw_links: list[ChainLink] = []
            onward: list[tuple[str, ChainLink]] = []
            for ev in sorted(checked.evidence, key=lambda e: (e.file, e.line, e.offset)):
                link = self._link(ev, unit)
                step = self._step_of(ev.file)
                if link.kind in _RAW_KINDS:
                    raw_links.append(link)
                elif step is not None and step not in seen:
                    onward.append((step, link))
            if raw_links:
                return _AtomTrace(links=links + _dedupe(raw_links), reached_raw=True, introduced_by=None,
                                  derived=formulas)
            for step, link in onward:
                found = visit(self.step_unit(step), links + [link], seen | {step}, formulas)
                if found is not None:
                    return found
            if not onward:  # found only in files that lead nowhere new: a dead end here
                dead_end(links, unit.step or unit.node)
            return None

        report_link = self._report_link(atom_claim)
        result = visit(self.report_unit(), [report_link], frozenset(), [])
        if result is not None:
            return result
        assert best_dead_end is not None
        _, links, origin = best_dead_end
        return _AtomTrace(links=links, reached_raw=False, introduced_by=origin, derived=[])

    def _report_link(self, claim: ClaimRecord) -> ChainLink:
        line = self.document.count("\n", 0, claim.start) + 1
        return ChainLink(node=REPORT_NODE, file=self.manifest.report or "report.md", line=line,
                         text=claim.claim, kind="report")

    # -- verdicts ----------------------------------------------------------------------------
    def judge(self, claim: ClaimRecord) -> tuple[ClaimRecord, EvidenceChain]:
        if self.policy.skips(claim.claim):
            judged = claim.model_copy(update={"verdict": Verdict.SKIPPED, "verdict_source": "skipped",
                                              "notes": [*claim.notes, "matched a skip pattern: not checked"]})
            return judged, EvidenceChain(claim_id=claim.id, claim=claim.claim, verdict=Verdict.SKIPPED,
                                         links=[self._report_link(claim)])
        if not claim.checkable:
            return self._judge_atomless(claim)

        atoms = _atoms(claim)
        whole = claim if len(atoms) > 1 else None
        traces = [self.trace_atom(atom, whole) for atom in atoms]
        raw = self._check(claim, self.raw_unit())
        notes = list(raw.notes)
        dead = [t for t in traces if not t.reached_raw]
        verdict = raw.verdict
        introduced_by: str | None = None
        if dead:
            introduced_by = _origin_of_unbacked(dead)
            if verdict in COVERED_VERDICTS:
                # The content exists in raw data, but not on the path the claim actually came through.
                verdict = Verdict.MISATTRIBUTED
                notes.append(
                    f"found in raw data, but {self.steps.label(introduced_by)} produced it without any of its "
                    f"inputs holding it"
                )
        elif verdict not in COVERED_VERDICTS and verdict is not Verdict.MISATTRIBUTED:
            # Each figure was found hop by hop, yet the claim as a whole (its figures together, with its
            # subject) is not backed by the raw data: the raw-data verdict stands, fail closed, and the
            # node that wrote it from raw data is named.
            if traces:
                introduced_by = self._step_of_link(_deepest_node([lk for t in traces for lk in t.links]))
                notes.append("each figure was found along the topology, but the claim as a whole is not backed "
                             "by the raw data")
        elif verdict is Verdict.VERIFIED and any(t.derived for t in traces):
            verdict = Verdict.DERIVED

        formulas = [f for t in traces for f in t.derived]
        verdict, rule_note = self._origin_rules(claim, verdict, traces)
        if rule_note:
            notes.append(rule_note)
        links = _ordered_links(traces)
        if verdict not in COVERED_VERDICTS:
            notes.extend(self._unreadable_notes())
        derived_from_model = sorted({_label(self.files[lk.file]) or lk.node for lk in links
                                     if lk.file in self.files and self.files[lk.file].model_derived})
        if derived_from_model and verdict in COVERED_VERDICTS:
            notes.append(
                f"model-derived evidence: {', '.join(derived_from_model)} called a chat model during its run, so "
                f"its output is model-written; trust capped at {MODEL_DERIVED_TRUST_CAP:.2f}"
            )
        if verdict in COVERED_VERDICTS:
            introduced_by = None
        elif introduced_by is None:
            introduced_by = _origin_of_unbacked(traces) or self._step_of_link(_citing_node(claim, links))
        node, round_ = self.steps.split(introduced_by)

        judged = raw.model_copy(update={
            "verdict": verdict,
            "verdict_source": "deterministic",
            "formula": raw.formula or ("; ".join(dict.fromkeys(formulas)) or None),
            "introduced_by": node,
            "introduced_round": round_,
            "notes": list(dict.fromkeys(notes)),
        })
        chain = EvidenceChain(claim_id=claim.id, claim=claim.claim, verdict=verdict, links=links,
                              introduced_by=node, introduced_round=round_,
                              reaches_raw_data=bool(traces) and all(t.reached_raw for t in traces))
        return judged, chain

    def _judge_atomless(self, claim: ClaimRecord) -> tuple[ClaimRecord, EvidenceChain]:
        """A claim without figures, quotes or references ("net income fell in Q1") is not checked, except
        for the periods it names: one the raw data does not name as the claim does flags it `unsupported`
        (introduced by the report). Whatever else it says stays `unverifiable`: a period named is no proof
        of the rest."""
        from pytest_auditfence.claims.quantities import period_mentions

        verdict, notes = Verdict.UNVERIFIABLE, list(claim.notes)
        if period_mentions(claim.claim):
            raw = self._check(claim, self.raw_unit())
            if raw.verdict is Verdict.UNSUPPORTED:
                verdict, notes = raw.verdict, raw.notes
        introduced = REPORT_NODE if verdict is Verdict.UNSUPPORTED else None
        judged = claim.model_copy(update={"verdict": verdict, "verdict_source": "deterministic", "notes": notes,
                                          "introduced_by": introduced})
        return judged, EvidenceChain(claim_id=claim.id, claim=claim.claim, verdict=verdict,
                                     links=[self._report_link(claim)], introduced_by=introduced)

    def _step_of_link(self, link: ChainLink | None) -> str | None:
        if link is None or link.kind == "report":
            return REPORT_NODE if link is not None else None
        return self._step_of(link.file) or link.node

    def _unreadable_notes(self) -> list[str]:
        """What a claim that is not covered may have missed: sources cut short or holding binary data."""
        notes: list[str] = []
        searched = [f for f in self.manifest.files if f.kind in _RAW_KINDS or f.kind == "node_output"]
        cut = [f.path for f in searched if f.truncated]
        if cut:
            notes.append(
                f"source(s) cut at max_output_chars, the rest not searched: {', '.join(cut)}; keep more with "
                f"fence_config max_output_chars (ini fence_max_output_chars, Snapshot(max_output_chars=...))"
            )
        binary = [f.path for f in searched if f.binary]
        if binary:
            notes.append(f"source(s) hold binary data (bytes that are not UTF-8 text) and could not be searched: "
                         f"{', '.join(binary)}")
        return notes

    def _origin_rules(self, claim: ClaimRecord, verdict: Verdict, traces: list[_AtomTrace]) -> tuple[Verdict, str | None]:
        if verdict not in COVERED_VERDICTS:
            return verdict, None
        for rule in self.policy.origin_rules:
            if not rule.applies_to(claim.claim):
                continue
            origins: set[str] = set()
            for trace in traces:
                for link in trace.links:
                    if link.kind in _RAW_KINDS:
                        record = self.files.get(link.file)
                        origins.add(link.node)
                        if record is not None and record.tool:
                            origins.add(record.tool)
            if not origins & set(rule.sources):
                return Verdict.MISATTRIBUTED, (
                    f"origin rule {rule.subject!r} requires {', '.join(rule.sources)}; "
                    f"the figure came from {', '.join(sorted(origins)) or 'nowhere'}"
                )
        return verdict, None

    # -- the whole audit ---------------------------------------------------------------------
    def run(self) -> Cascade:
        from pytest_auditfence.claims.extract import extract_claims

        claims = checked_claims(self.document, (self.extractor or extract_claims)(self.document))
        from pytest_auditfence.verify.sources import expected_lookups

        self.expected = expected_lookups(q for claim in claims for q in claim.quantities)
        judged: list[ClaimRecord] = []
        chains: list[EvidenceChain] = []
        for claim in claims:
            record, chain = self.judge(claim)
            judged.append(record)
            chains.append(chain)
        # Every topology unit is materialised so the result lists the whole cascade, even units no
        # claim reached.
        self.report_unit()
        for step in sorted(s for s in self.steps.records if self._step_files(s, "node_output")):
            self.step_unit(step)
        result = _summarise(self, judged, chains)
        units = {name: unit.fence for name, unit in self.units.items()}
        return Cascade(result, fences=units, trace_dir=self.trace_dir)


def _summarise(auditor: _Auditor, claims: list[ClaimRecord], chains: list[EvidenceChain]) -> CascadeResult:
    policy = auditor.policy
    checkable = [c for c in claims if c.verdict not in (Verdict.UNVERIFIABLE, Verdict.SKIPPED)]
    covered = [c for c in checkable if c.verdict in COVERED_VERDICTS]
    hallucinated = [c for c in checkable if policy.is_hallucination(c.verdict)]
    coverage = Ratio(numerator=len(covered), denominator=len(checkable))
    hallucinations = Ratio(numerator=len(hallucinated), denominator=len(checkable))
    skipped = Ratio(numerator=sum(1 for c in claims if c.verdict is Verdict.SKIPPED), denominator=len(claims))
    passport = _passport(auditor.manifest, chains, coverage, hallucinations, auditor.files)
    units = sorted((u.result() for u in auditor.units.values()), key=lambda u: (u.node != REPORT_NODE, u.name))
    return CascadeResult(
        document_sha256=hashlib.sha256(auditor.document.encode("utf-8")).hexdigest(),
        policy=policy,
        claims=claims,
        chains=chains,
        units=units,
        coverage=coverage,
        hallucinations=hallucinations,
        skipped=skipped,
        passport=passport,
        complete=auditor.manifest.complete and not auditor.errors,
        errors=auditor.errors,
        nodes=sorted(n.name for n in auditor.manifest.nodes),
        edges=sorted(auditor.manifest.edges),
    )


def _passport(manifest: Manifest, chains: list[EvidenceChain], coverage: Ratio,
              hallucinations: Ratio, files: dict[str, FileRecord] | None = None) -> Passport:
    levels = {n.name: n.capture_level for n in manifest.nodes}
    involved: set[CaptureLevel] = set()
    model_derived = False
    for chain in chains:
        for link in chain.links:
            if link.node in levels:
                involved.add(levels[link.node])
            record = (files or {}).get(link.file)
            model_derived = model_derived or (record is not None and record.model_derived
                                              and chain.verdict in COVERED_VERDICTS)
    if not involved:
        involved = {n.capture_level for n in manifest.nodes} or {CaptureLevel.INSTRUMENTED}
    weakest = min(involved, key=lambda lv: lv.trust_cap)
    cap = weakest.trust_cap
    by = f"the {weakest.value} capture level"
    if model_derived and MODEL_DERIVED_TRUST_CAP < cap:
        cap, by = MODEL_DERIVED_TRUST_CAP, "model-derived tool output"
    trust = round(min(coverage.value if coverage.denominator else 0.0, cap), 4)
    statement = (
        f"verified trust {trust:.2f}: coverage {coverage}, capped at {cap:.2f} by "
        f"{by}; hallucinations {hallucinations.numerator}"
        f"{'' if manifest.complete else '; capture INCOMPLETE'}"
    )
    return Passport(verified_trust=trust, capture_level=weakest, trust_cap=cap, coverage=coverage,
                    hallucinations=hallucinations, complete=manifest.complete, statement=statement)


# --------------------------------------------------------------------------------------------------
# the result users hold


class Cascade:
    """The result of `FenceGroup.audit_cascade`: claims with verdicts, chains, units, metrics, passport."""

    def __init__(self, result: CascadeResult, *, fences: dict[str, Fence] | None = None,
                 trace_dir: Path | None = None) -> None:
        self.result = result
        self.trace_dir = trace_dir
        self.group = FenceGroup(result.units, result.claims, fences)

    # metrics
    @property
    def claims(self) -> list[ClaimRecord]:
        return self.result.claims

    @property
    def coverage(self) -> Ratio:
        return self.result.coverage

    @property
    def hallucinations(self) -> Ratio:
        return self.result.hallucinations

    @property
    def skipped(self) -> Ratio:
        return self.result.skipped

    @property
    def passport(self) -> Passport:
        return self.result.passport

    @property
    def policy(self) -> Policy:
        return self.result.policy

    @property
    def complete(self) -> bool:
        return self.result.complete

    @property
    def errors(self) -> list[str]:
        return self.result.errors

    @property
    def usage(self) -> TokenUsage:
        return self.result.usage

    @property
    def rejections(self) -> list[Rejection]:
        return [r for u in self.result.units for r in u.rejections]

    def failing_claims(self) -> list[ClaimRecord]:
        """Claims counted as hallucinations under the cascade's policy, in document order."""
        return [c for c in self.result.claims if self.result.policy.is_hallucination(c.verdict)]

    def evidence_chains(self) -> list[EvidenceChain]:
        return sorted(self.result.chains, key=lambda c: c.claim_id)

    def trace_claim(self, claim: ClaimRecord | str) -> EvidenceChain:
        """The evidence chain of a claim: a ClaimRecord, a claim id ('c003') or a piece of its text."""
        chains = {c.claim_id: c for c in self.result.chains}
        if isinstance(claim, ClaimRecord):
            if claim.id in chains and chains[claim.id].claim == claim.claim:
                return chains[claim.id]
            text = claim.claim
        else:
            if claim in chains:
                return chains[claim]
            text = claim
        needle = " ".join(text.split()).casefold()
        hits = [c for c in self.result.chains if needle and needle in " ".join(c.claim.split()).casefold()]
        if len(hits) == 1:
            return hits[0]
        if not hits:
            raise KeyError(f"no claim of the audited document contains {text!r}; "
                           f"cascade.claims lists the {len(self.result.chains)} claims found")
        ids = ", ".join(c.claim_id for c in hits)
        raise KeyError(f"{text!r} is in {len(hits)} claims ({ids}); pass a longer text or a claim id")

    # persistence
    def to_json(self) -> str:
        """Sorted, byte-stable JSON; `Cascade.from_json` reads it back to an equal object."""
        data = self.result.model_dump(mode="json")
        if data.get("llm") is None:
            data.pop("llm", None)
        for item in (*data["claims"], *data["chains"]):  # a claim with no introducer names no round
            if item.get("introduced_round") is None:
                item.pop("introduced_round", None)
        for link in (lk for chain in data["chains"] for lk in chain["links"]):  # a node that ran once: no step
            if link.get("step") is None:
                link.pop("step", None)
        return json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n"

    @classmethod
    def from_json(cls, text: str) -> Cascade:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise AuditError(f"cascade JSON is not valid JSON ({exc}); export it again with Cascade.to_json()") from exc
        version = data.get("format_version") if isinstance(data, dict) else None
        if version != CASCADE_FORMAT_VERSION:
            raise AuditError(f"cascade JSON has format_version {version!r}; this version reads "
                             f"{CASCADE_FORMAT_VERSION}. Re-run the audit to export it again.")
        return cls(CascadeResult.model_validate(data))

    def save(self, path: str | Path) -> None:
        Path(path).write_text(self.to_json(), encoding="utf-8")

    @classmethod
    def load(cls, path: str | Path) -> Cascade:
        return cls.from_json(Path(path).read_text(encoding="utf-8"))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Cascade) and self.result == other.result

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return (f"<Cascade coverage={self.coverage} hallucinations={self.hallucinations.numerator} "
                f"claims={len(self.claims)} complete={self.complete}>")


# --------------------------------------------------------------------------------------------------
# helpers


def checked_claims(document: str, claims: Iterable[ClaimRecord]) -> list[ClaimRecord]:
    """Claims from any extractor, made safe to audit: each must be a ClaimRecord whose span holds its text;
    claims with the same span are kept once; ids are renumbered c001... in document order."""
    unique: dict[tuple[int, int], ClaimRecord] = {}
    for claim in claims:
        if not isinstance(claim, ClaimRecord):
            raise AuditError(
                f"a claim extractor returned {type(claim).__name__}, not a ClaimRecord; build claims with "
                f"pytest_auditfence.ClaimRecord (or pytest_auditfence.extract_claims)."
            )
        if not (0 <= claim.start <= claim.end <= len(document)) or document[claim.start:claim.end] != claim.claim:
            raise AuditError(
                f"claim {claim.claim[:60]!r} has span {claim.start}:{claim.end}, which does not hold its text "
                f"in the document; set start/end to where the claim stands (document[start:end] == claim)."
            )
        unique.setdefault((claim.start, claim.end), claim)
    ordered = sorted(unique.values(), key=lambda c: (c.start, c.end))
    return [c.model_copy(update={"id": f"c{i:03d}"}) for i, c in enumerate(ordered, start=1)]


def _by_path(records: Iterable[FileRecord]) -> list[FileRecord]:
    """One record per path, in path order."""
    return sorted({r.path: r for r in records}.values(), key=lambda r: r.path)


def _atoms(claim: ClaimRecord) -> list[ClaimRecord]:
    """One single-atom claim per quantity and quote, so each is traced along its own path."""
    from pytest_auditfence.verify import _is_weak, counted

    atoms: list[ClaimRecord] = []
    for q in claim.quantities:
        if _is_weak(q):  # proves nothing on its own; the verifier does not check it either
            continue
        if counted(claim, q):  # a count's threshold: a constant of the count the verifier checks, no figure of data
            continue
        atoms.append(claim.model_copy(update={"quantities": [q], "quotes": [], "references": []}))
    for qt in claim.quotes:
        atoms.append(claim.model_copy(update={"quantities": [], "quotes": [qt], "references": []}))
    return atoms


def _origin_of_unbacked(traces: list[_AtomTrace]) -> str | None:
    dead = sorted(t.introduced_by for t in traces if t.introduced_by)
    return dead[0] if dead else None


def _ordered_links(traces: list[_AtomTrace]) -> list[ChainLink]:
    """All atoms' paths as one chain that reads from the report down: the report, then intermediate
    nodes hop by hop (the nearer the report, the earlier), then the raw sources."""
    ranked: list[tuple[int, int, ChainLink]] = []
    for trace in traces:
        for depth, link in enumerate(trace.links):
            tier = 0 if link.kind == "report" else 2 if link.kind in _RAW_KINDS else 1
            ranked.append((tier, depth, link))
    ranked.sort(key=lambda item: (item[0], item[1]))  # stable: atoms keep their order within a tier
    return _dedupe([link for _, _, link in ranked])


def _deepest_node(links: list[ChainLink]) -> ChainLink | None:
    """The last node's link before raw data on a chain (the one that wrote the content from the raw data);
    None: only the report."""
    nodes = [lk for lk in links if lk.kind not in _RAW_KINDS and lk.node != REPORT_NODE]
    return nodes[-1] if nodes else next((lk for lk in links if lk.kind == "report"), None)


def _citing_node(claim: ClaimRecord, links: list[ChainLink]) -> ChainLink | None:
    """For a wrong citation: the deepest node's link on the chain whose output still carries the citation."""
    cited = [r.text.casefold() for r in claim.references]
    nodes = [lk for lk in links if lk.kind not in _RAW_KINDS and lk.node != REPORT_NODE]
    for link in reversed(nodes):
        if any(c in link.text.casefold() for c in cited):
            return link
    return nodes[0] if nodes else next((lk for lk in links if lk.kind == "report"), None)


def _dedupe(links: list[ChainLink]) -> list[ChainLink]:
    seen: set[tuple[str, str, int]] = set()
    out: list[ChainLink] = []
    for link in links:
        key = (link.node, link.file, link.line)
        if key not in seen:
            seen.add(key)
            out.append(link)
    return out


def _label(record: FileRecord) -> str | None:
    if record.tool:
        return record.tool
    if record.kind == "input":
        return "input"
    return record.node


def _line_text(trace_dir: Path, evidence: Evidence) -> str:
    """The lines the evidence spans, whitespace-normalised: what a reviewer reads in a chain link."""
    try:
        lines = read_trace_text(trace_dir, evidence.file).splitlines()
    except OSError:
        return evidence.text
    last = evidence.line - 1 + evidence.text.count("\n")
    spanned = [ln.strip() for ln in lines[evidence.line - 1:last + 1] if ln.strip()]
    return " / ".join(spanned) if spanned else evidence.text
