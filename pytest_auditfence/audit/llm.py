"""The LLM auditor: one LangGraph agent per audit unit whose only tools are the unit's fence search and submit.

Owns `audit_with_llm` (deterministic cascade first, then agents for the semantic claims, hop by hop down the
topology), the merge of verdicts, token usage and cost (`UsageMeter`, `DEFAULT_PRICES`).
"""

# How a semantic claim is judged (the claims the deterministic pass found nothing checkable in):
# hop 1 audits it in the unit of the step that wrote it (a sink step, else an earlier round of a sink's
# node, whose output holds it; else the report unit) against what existed when that step started. Accepted
# evidence that sits in an earlier step's output sends the passage one hop deeper, to that step's unit,
# until the evidence is raw data (tool call, input, retriever, artifact): only then is the claim
# `verified`. `contradicted` / `unsupported` at any hop end the chain with that verdict and name the step
# whose output was under audit as `introduced_by` / `introduced_round`.
# Fail closed: a claim the agent never submitted for (it stopped, hit the step limit or the timeout, or
# the model call failed) is `unsupported` with a note "not reached by the LLM auditor", and the cascade
# is incomplete (`complete=False`, one entry in `errors` per unit that fell short).

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pytest_auditfence.audit.prompts import (
    ACCEPTED,
    NO_MATCHES,
    PROMPT_VERSION,
    RECORDED,
    REJECTED,
    PromptClaim,
    PromptSource,
    auditor_system_prompt,
    claim_sections,
)
from pytest_auditfence.capturing.tracefiles import read_trace_text
from pytest_auditfence.errors import AuditError, CassetteMissError
from pytest_auditfence.fence import normalise_markdown
from pytest_auditfence.gate import RULE_SEARCH_FOR_CLAIM, query_belongs
from pytest_auditfence.manifest import RAW_FILE_KINDS
from pytest_auditfence.models import (
    FINDING_KINDS,
    SEVERITIES,
    ChainLink,
    ClaimRecord,
    Evidence,
    EvidenceChain,
    LlmAudit,
    LlmFinding,
    LlmUnitRun,
    Verdict,
)

if TYPE_CHECKING:  # pragma: no cover
    from langchain_core.messages import ToolMessage

    from pytest_auditfence.audit.cascade import AuditUnit, Cascade, _Auditor
    from pytest_auditfence.audit.policy import Policy
    from pytest_auditfence.manifest import Manifest

# USD per million tokens (input, output): list prices of a few common models when this was written.
# Pass prices={...} for yours; a model in neither table costs 0 and the result says so.
DEFAULT_PRICES: dict[str, tuple[float, float]] = {
    "gpt-4o": (2.50, 10.00),
    "gpt-4o-mini": (0.15, 0.60),
    "gpt-4.1": (2.00, 8.00),
    "gpt-4.1-mini": (0.40, 1.60),
    "gpt-4.1-nano": (0.10, 0.40),
    "o3-mini": (1.10, 4.40),
    "claude-3-5-haiku": (0.80, 4.00),
    "claude-sonnet-4": (3.00, 15.00),
    "claude-opus-4": (15.00, 75.00),
}

TOOL_SCHEMAS: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {
            "name": "search",
            "description": "Find the lines of this unit's sources that contain the query (literal, case-insensitive).",
            "parameters": {
                "type": "object",
                "properties": {"query": {"type": "string", "description": "a short phrase from the claim"}},
                "required": ["query"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "submit",
            "description": "Record the finding for one claim; evidence must be copied from a search result line.",
            "parameters": {
                "type": "object",
                "properties": {
                    "claim": {"type": "string", "description": "the claim id as listed, e.g. c004"},
                    "claim_in_document": {"type": "string", "description": "the claim's text exactly as listed"},
                    "evidence": {"type": "string", "description": "verbatim text from one search result line"},
                    "finding": {"type": "string", "enum": list(FINDING_KINDS)},
                    "severity": {"type": "string", "enum": list(SEVERITIES)},
                    "confidence": {"type": "number", "minimum": 0, "maximum": 1},
                },
                "required": ["claim", "claim_in_document", "evidence", "finding", "severity", "confidence"],
            },
        },
    },
]

_MAX_HITS = 20
_MAX_SHOWN_LINE = 600
_MIN_WORDS = 3


# --------------------------------------------------------------------------------------------------
# usage and cost


def price_for(model: str | None, prices: Mapping[str, tuple[float, float]]) -> tuple[float, float] | None:
    """The (input, output) USD-per-million price of `model`: exact name, else the longest dated prefix."""
    if not model:
        return None
    if model in prices:
        return prices[model]
    best = max((k for k in prices if model.startswith(k + "-")), key=len, default=None)
    return prices[best] if best is not None else None


class UsageMeter:
    """Tokens and cost of model calls, from each reply's `usage_metadata` and a price table."""

    def __init__(self, prices: Mapping[str, tuple[float, float]] | None = None, *, default_model: str | None = None) -> None:
        self.prices = _checked_prices(prices)
        self.default_model = default_model
        self.input_tokens = 0
        self.output_tokens = 0
        self.cost_usd = 0.0
        self.models: set[str] = set()
        self.notes: set[str] = set()

    def add(self, message: Any) -> tuple[int, int]:
        metadata = getattr(message, "response_metadata", None) or {}
        model = metadata.get("model_name") or metadata.get("model") or self.default_model
        usage = getattr(message, "usage_metadata", None)
        if not usage:
            self.notes.add(f"model {model!r} reported no token usage for some calls; they count as 0 tokens")
            return 0, 0
        tokens_in, tokens_out = int(usage.get("input_tokens", 0)), int(usage.get("output_tokens", 0))
        self.input_tokens += tokens_in
        self.output_tokens += tokens_out
        if model:
            self.models.add(str(model))
        price = price_for(model, self.prices)
        if price is None:
            self.notes.add(
                f"no price for model {model!r}: its calls cost 0 here; pass prices={{{str(model)!r}: "
                f"(input_usd, output_usd)}} per million tokens"
            )
        else:
            self.cost_usd += (tokens_in * price[0] + tokens_out * price[1]) / 1_000_000
        return tokens_in, tokens_out

    def cost(self) -> float:
        return round(self.cost_usd, 10)


def _checked_prices(prices: Mapping[str, tuple[float, float]] | None) -> dict[str, tuple[float, float]]:
    table = dict(DEFAULT_PRICES)
    if prices is None:
        return table
    if not isinstance(prices, Mapping):
        raise AuditError(f"prices={prices!r}: expected a dict model name -> (input_usd, output_usd) per million tokens.")
    for name, pair in prices.items():
        ok = (isinstance(name, str) and isinstance(pair, (tuple, list)) and len(pair) == 2
              and all(isinstance(p, (int, float)) and not isinstance(p, bool) and p >= 0 and math.isfinite(p)
                      for p in pair))
        if not ok:
            raise AuditError(
                f"prices[{name!r}] = {pair!r}: expected (input_usd, output_usd) per million tokens, two "
                f"non-negative numbers, e.g. prices={{'gpt-4o-mini': (0.15, 0.60)}}."
            )
        table[name] = (float(pair[0]), float(pair[1]))
    return table


# --------------------------------------------------------------------------------------------------
# what the agents work on


@dataclass
class _Item:
    claim_id: str
    text: str
    context: str | None
    author: str  # the step whose output is under audit (REPORT_NODE for text only the report holds)


@dataclass
class _Found:
    finding: str
    severity: str
    confidence: float
    evidence: Evidence | None


@dataclass
class _Task:
    key: str
    unit: AuditUnit
    node: str
    step: str  # the step whose output is under audit ('agent r4'), or the report's pseudo-node
    round: int | None
    hop: int
    document_label: str
    items: list[_Item] = field(default_factory=list)


@dataclass
class _Run:
    task: _Task
    found: dict[str, _Found] = field(default_factory=dict)
    searched: bool = False
    queries: list[str] = field(default_factory=list)
    sections: int = 0
    model_calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    stopped: str = "done"
    error: str | None = None
    tool_errors: list[str] = field(default_factory=list)
    limit: int = 0

    def record(self) -> LlmUnitRun:
        return LlmUnitRun(unit=self.task.key, node=self.task.node, hop=self.task.hop,
                          claims=[i.claim_id for i in self.task.items], sections=self.sections,
                          model_calls=self.model_calls, input_tokens=self.input_tokens,
                          output_tokens=self.output_tokens, stopped=self.stopped,  # type: ignore[arg-type]
                          error=self.error, tool_errors=self.tool_errors)


@dataclass
class _Trail:
    """One semantic claim followed down the topology, hop by hop."""

    claim: ClaimRecord
    hops: list[tuple[_Task, _Found]] = field(default_factory=list)
    visited: set[str] = field(default_factory=set)
    verdict: Verdict | None = None
    introduced_by: str | None = None
    notes: list[str] = field(default_factory=list)

    def end(self, verdict: Verdict, introduced_by: str | None, note: str | None = None) -> None:
        self.verdict = verdict
        self.introduced_by = None if verdict is Verdict.VERIFIED else introduced_by
        if note:
            self.notes.append(note)


class _StepLimit(Exception):
    pass


DEFAULT_STEPS_PER_CLAIM = 6
"""Model calls one claim may use: search, submit, and two more search-and-submit tries after a rejection."""
DEFAULT_UNIT_TIMEOUT = 120.0
"""Seconds one batch (at most `section_claims` claims of one unit) may take before it stops as timed out."""


@dataclass(frozen=True)
class _Settings:
    max_steps: int | None
    unit_timeout: float
    concurrency: int
    section_claims: int
    steps_per_claim: int

    def budget(self, claims: int) -> int:
        """Model calls one batch of `claims` claims may make: `max_steps` when given, else per claim."""
        return self.max_steps if self.max_steps is not None else self.steps_per_claim * claims + 2


def is_semantic(claim: ClaimRecord) -> bool:
    """A claim the deterministic pass had nothing to check in (no quantity, quote or reference)."""
    return (claim.verdict is Verdict.UNVERIFIABLE and claim.verdict_source == "deterministic"
            and not claim.checkable and claim.kind != "heading" and len(claim.claim.split()) >= _MIN_WORDS)


class _Planner:
    """Which unit audits which text: builds (once) the fenced LLM units and registers them in the cascade.

    Units are steps (`manifest.steps`: one round of a node in one run of its subgraph), as in the deterministic
    cascade: a step's unit holds what existed before it started (the outputs of the steps that fed it and of
    their ancestors, the user's input), its own round's raw data and, for a subgraph's host, what its inner
    steps wrote. Never a later round, never another instance of its subgraph."""

    def __init__(self, auditor: _Auditor) -> None:
        from pytest_auditfence.audit.cascade import REPORT_NODE

        self.auditor = auditor
        self.report_node = REPORT_NODE
        self.units: dict[str, tuple[AuditUnit, str, str]] = {}  # key -> (unit, step, document label)
        self.outputs: dict[str, str] = {}

    def output_text(self, step: str) -> str:
        if step not in self.outputs:
            files = self.auditor._step_files(step, "node_output")
            self.outputs[step] = "\n".join(read_trace_text(self.auditor.trace_dir, f.path) for f in files)
        return self.outputs[step]

    def _register(self, key: str, parts: list[AuditUnit | None], step: str, document: str | None, label: str) -> str:
        if key not in self.units:
            # A fresh fence per LLM unit: its search history is the agent's own, so "search before
            # submit" is checked against what this agent searched, not the deterministic pass.
            present = [p for p in parts if p is not None]
            records = [r for p in present for r in p.files.values()]
            upstream = sorted({u for p in present for u in p.upstream})
            unit = self.auditor._unit(key, present[0].node, upstream, records, step=present[0].step)
            if document is not None:
                unit.fence.set_document(document)
            self.auditor.units[key] = unit
            self.units[key] = (unit, step, label)
        return key

    def _step_parts(self, step: str) -> list[AuditUnit | None]:
        nothing: frozenset[str] = frozenset()
        return [self.auditor.step_unit(step), self.auditor.earlier_unit(step, nothing),
                self.auditor.inner_step_unit(step, nothing)]

    def _authors(self) -> list[str]:
        """The steps whose output the report may quote: the sink steps, then the other rounds of their nodes
        (latest first: a report that joins every message of an agent loop)."""
        sinks = self.auditor._sink_steps()
        steps = self.auditor.steps
        others = [s for node in dict.fromkeys(steps.split(s)[0] or s for s in sinks)
                  for s in reversed(steps.of_node(node)) if s not in sinks]
        return [*sinks, *others]

    def first(self, claim: ClaimRecord) -> tuple[str, _Item]:
        wanted = normalise_markdown(claim.claim)
        for step in self._authors():
            if wanted and wanted in normalise_markdown(self.output_text(step)):
                key = self._register(f"llm:{step}", self._step_parts(step), step, None, "the final document")
                return key, _Item(claim.id, claim.claim, claim.context, step)
        key = self._register("llm:report", [self.auditor.report_unit()], self.report_node, None, "the final document")
        return key, _Item(claim.id, claim.claim, claim.context, self.report_node)

    def deeper(self, step: str, claim_id: str, passage: str) -> tuple[str, _Item]:
        # A subgraph host's result is its whole final state: what any of its inner steps wrote is in it, so
        # its unit holds those outputs too (the deterministic cascade's inner_step_unit, the same edge convention).
        key = self._register(f"llm:{step}:output", self._step_parts(step), step, self.output_text(step),
                             f"the output of step {step!r}")
        return key, _Item(claim_id, passage, None, step)

    def task(self, key: str, hop: int, items: list[_Item]) -> _Task:
        unit, step, label = self.units[key]
        node, round_ = self.auditor.steps.split(step)
        return _Task(key=key, unit=unit, node=node or step, step=step, round=round_, hop=hop,
                     document_label=label, items=items)


# --------------------------------------------------------------------------------------------------
# the audit


async def audit_with_llm(
    *,
    manifest: Manifest | None = None,
    trace_dir: Any,
    final_document: str | None = None,
    llm: Any,
    policy: Policy | None = None,
    adversarial: bool = False,
    severity_threshold: str = "medium",
    max_steps: int | None = None,
    unit_timeout: float = DEFAULT_UNIT_TIMEOUT,
    concurrency: int = 4,
    prices: Mapping[str, tuple[float, float]] | None = None,
    section_claims: int = 8,
    extractor: Callable[[str], list[ClaimRecord]] | None = None,
    steps_per_claim: int = DEFAULT_STEPS_PER_CLAIM,
) -> Cascade:
    """The deterministic cascade, then an LLM agent per unit for the claims it could not check (async).

    Atom-bearing claims keep their deterministic verdicts; semantic claims get the agents' verdicts
    (`verdict_source="llm"`, evidence located in its file).

    A unit's claims are audited in batches of at most `section_claims`, each batch one agent conversation
    (so a report of hundreds of claims costs tokens in proportion to its claims, not to their square).
    Budgets follow the claims: a batch may make `steps_per_claim` model calls per claim (+2), or exactly
    `max_steps` when that is given, and may take `unit_timeout` seconds (default 120); a batch that hits
    either leaves the cascade incomplete with an error naming its unit, and its claims without a finding
    count as unsupported. Batches of one unit run in order (its fence history stays deterministic); at most
    `concurrency` units run at once. `prices` adds to or overrides `DEFAULT_PRICES`. `adversarial=True`
    then reviews the findings at or above `severity_threshold` (see `audit.adversarial`); `extractor`
    replaces the claim extraction, as in the deterministic cascade. A `CassetteMissError` propagates
    unchanged.
    """
    from pytest_auditfence.audit.cascade import Cascade, TokenUsage, _Auditor, _summarise

    settings = _check_options(llm, severity_threshold, max_steps, unit_timeout, concurrency, section_claims,
                              steps_per_claim)
    meter = UsageMeter(prices, default_model=_model_name(llm))
    if extractor is None:
        auditor = _Auditor(manifest, trace_dir, final_document, policy)
    else:
        auditor = _Auditor(manifest, trace_dir, final_document, policy, extractor)
    base = auditor.run()
    claims = list(base.result.claims)
    chains = {c.claim_id: c for c in base.result.chains}

    planner = _Planner(auditor)
    trails = {c.id: _Trail(claim=c) for c in claims if is_semantic(c)}
    bound = llm.bind_tools(TOOL_SCHEMAS)
    topology = (sorted(n.name for n in auditor.manifest.nodes), sorted(auditor.manifest.edges))
    semaphore = asyncio.Semaphore(settings.concurrency)
    max_hops = len(auditor.steps.records) + 1
    runs: list[_Run] = []

    pending = [planner.first(trail.claim) for trail in trails.values()]
    for key, item in pending:
        trails[item.claim_id].visited.add(item.author)
    hop = 1
    while pending:
        grouped: dict[str, list[_Item]] = {}
        for key, item in pending:
            grouped.setdefault(key, []).append(item)
        tasks = [planner.task(key, hop, sorted(items, key=lambda i: i.claim_id)) for key, items in sorted(grouped.items())]
        outcomes = await asyncio.gather(
            *(_run_unit(task, bound, settings, meter, semaphore, topology, auditor) for task in tasks),
            return_exceptions=True,
        )
        raise_first_exception(outcomes)
        pending = []
        for task, outcome in zip(tasks, outcomes, strict=True):
            runs.append(outcome)
            missing = [i.claim_id for i in task.items if i.claim_id not in outcome.found]
            if outcome.stopped != "done" or missing:
                auditor.errors.append(_unit_error(outcome, missing, settings))
            for item in task.items:
                trail = trails[item.claim_id]
                found = outcome.found.get(item.claim_id)
                if found is None:
                    trail.end(Verdict.UNSUPPORTED, item.author,
                              f"not reached by the LLM auditor (unit {task.key!r}, hop {hop}: {_stop_text(outcome)})")
                    continue
                trail.hops.append((task, found))
                if found.finding != "supported":
                    trail.end(Verdict(found.finding), item.author)
                    continue
                assert found.evidence is not None  # supported findings passed the gate with evidence
                record = auditor.files.get(found.evidence.file)
                if record is None or record.kind in RAW_FILE_KINDS or record.kind in auditor.input_kinds:
                    trail.end(Verdict.VERIFIED, None)
                    continue
                # The evidence is what an earlier step wrote: the claim is followed into that step's unit.
                step = auditor.steps.of(record)
                if step is None or step in trail.visited or hop >= max_hops:
                    where = auditor.steps.label(step) if step is not None else f"node {record.node!r}"
                    trail.end(Verdict.UNSUPPORTED, item.author,
                              f"the evidence chain returns to {where} without reaching raw data")
                else:
                    trail.visited.add(step)
                    pending.append(planner.deeper(step, item.claim_id, found.evidence.text))
        hop += 1

    findings = _findings(trails)
    merged: list[ClaimRecord] = []
    for claim in claims:
        trail = trails.get(claim.id)
        if trail is None:
            merged.append(claim)
            continue
        record, chain = _merge(trail, auditor, findings)
        merged.append(record)
        chains[claim.id] = chain

    result = _summarise(auditor, merged, [chains[c.id] for c in merged])
    result.usage = TokenUsage(input_tokens=meter.input_tokens, output_tokens=meter.output_tokens,
                              total_tokens=meter.input_tokens + meter.output_tokens, cost_usd=meter.cost())
    result.llm = LlmAudit(prompt_version=PROMPT_VERSION, model=_model_name(llm),
                          units=sorted((r.record() for r in runs), key=lambda u: (u.hop, u.unit)),
                          findings=findings, cost_notes=sorted(meter.notes))
    cascade = Cascade(result, fences={name: unit.fence for name, unit in auditor.units.items()},
                      trace_dir=auditor.trace_dir)
    if adversarial:
        from pytest_auditfence.audit.adversarial import review_cascade

        cascade = await review_cascade(cascade, llm=llm, severity_threshold=severity_threshold,
                                       concurrency=settings.concurrency, prices=prices)
    return cascade


def _check_options(llm: Any, severity_threshold: str, max_steps: int | None, unit_timeout: float, concurrency: int,
                   section_claims: int, steps_per_claim: int = DEFAULT_STEPS_PER_CLAIM) -> _Settings:
    if not callable(getattr(llm, "bind_tools", None)) or not callable(getattr(llm, "ainvoke", None)):
        raise AuditError(
            f"llm={type(llm).__name__}: the LLM auditor needs a LangChain chat model with bind_tools() and "
            f"ainvoke(), e.g. ChatOpenAI(model='gpt-4o-mini'); pass llm=None for the deterministic audit."
        )
    if severity_threshold not in SEVERITIES:
        raise AuditError(f"severity_threshold={severity_threshold!r}: choose one of {', '.join(SEVERITIES)}.")
    for name, value, low in (("max_steps", 1 if max_steps is None else max_steps, 1), ("concurrency", concurrency, 1),
                             ("section_claims", section_claims, 1), ("steps_per_claim", steps_per_claim, 2)):
        if isinstance(value, bool) or not isinstance(value, int) or value < low:
            raise AuditError(f"{name}={value!r}: expected an int >= {low}.")
    if isinstance(unit_timeout, bool) or not isinstance(unit_timeout, (int, float)) or not unit_timeout > 0:
        raise AuditError(f"unit_timeout={unit_timeout!r}: expected a positive number of seconds, e.g. 120.")
    return _Settings(max_steps=max_steps, unit_timeout=float(unit_timeout), concurrency=concurrency,
                     section_claims=section_claims, steps_per_claim=steps_per_claim)


def _model_name(llm: Any) -> str | None:
    for attribute in ("model_name", "model", "model_id"):
        value = getattr(llm, attribute, None)
        if isinstance(value, str) and value:
            return value
    return None


def find_cassette_miss(exc: BaseException) -> BaseException | None:
    """The cassette miss behind `exc` (ours, or vcrpy's before translation), however a client wrapped it."""
    seen: set[int] = set()
    stack = [exc]
    while stack:
        current = stack.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        if isinstance(current, CassetteMissError) or type(current).__name__ == "CannotOverwriteExistingCassetteException":
            return current
        stack.extend(e for e in (current.__cause__, current.__context__) if e is not None)
        if isinstance(current, BaseExceptionGroup):
            stack.extend(current.exceptions)
    return None


def raise_first_exception(outcomes: list[Any]) -> None:
    """Re-raise what `gather(..., return_exceptions=True)` caught: a cassette miss first and unchanged."""
    errors = [o for o in outcomes if isinstance(o, BaseException)]
    for error in errors:
        miss = find_cassette_miss(error)
        if miss is not None:
            raise miss if isinstance(miss, CassetteMissError) else error
    if errors:
        raise errors[0]


def _stop_text(run: _Run) -> str:
    return {"done": "the agent ended without submitting for it", "step_limit": "step limit reached",
            "timeout": "timed out", "error": f"model call failed: {run.error}"}[run.stopped]


def _unit_error(run: _Run, missing: list[str], settings: _Settings) -> str:
    task = run.task
    where = f"LLM unit {task.key!r} (hop {task.hop})"
    left = f"; claims without a finding: {', '.join(missing)} (counted unsupported)" if missing else ""
    if run.stopped == "step_limit":
        fix = "Raise max_steps= or lower section_claims=." if settings.max_steps is not None else (
            f"Raise steps_per_claim= (now {settings.steps_per_claim}).")
        return f"{where}: step limit reached ({run.limit} model calls){left}. {fix}"
    if run.stopped == "timeout":
        return (f"{where}: timed out after {settings.unit_timeout:g} s{left}. Raise unit_timeout= (seconds per "
                f"batch of at most section_claims claims) or lower section_claims=.")
    if run.stopped == "error":
        return f"{where}: the model call failed ({run.error}){left}. Check the model and run the audit again."
    return f"{where}: the auditor ended without a finding for {', '.join(missing)} (counted unsupported)."


# --------------------------------------------------------------------------------------------------
# one agent


async def _run_unit(task: _Task, bound: Any, settings: _Settings, meter: UsageMeter, semaphore: asyncio.Semaphore,
                    topology: tuple[list[str], list[tuple[str, str]]], auditor: _Auditor) -> _Run:
    """The unit's claims in batches of `section_claims`, one agent conversation each, in order; the first
    batch that stops short (step limit, timeout, model error) ends the unit's run."""
    run = _Run(task=task)
    batches = [task.items[i:i + settings.section_claims] for i in range(0, len(task.items), settings.section_claims)]
    run.sections = len(batches)
    async with semaphore:
        for batch in batches:
            run.limit = settings.budget(len(batch))
            calls_before = run.model_calls
            try:
                await asyncio.wait_for(_agent(run, batch, bound, settings, meter, topology, auditor, calls_before),
                                       settings.unit_timeout)
            except TimeoutError:
                run.stopped = "timeout"
            except _StepLimit:
                run.stopped = "step_limit"
            except Exception as exc:
                if find_cassette_miss(exc) is not None:
                    raise
                if type(exc).__name__ == "GraphRecursionError":
                    run.stopped = "step_limit"
                else:
                    run.stopped = "error"
                    run.error = f"{type(exc).__name__}: {' '.join(str(exc).split())[:200]}"
            if run.stopped != "done":
                break
    return run


async def _agent(run: _Run, batch: list[_Item], bound: Any, settings: _Settings, meter: UsageMeter,
                 topology: tuple[list[str], list[tuple[str, str]]], auditor: _Auditor, calls_before: int) -> None:
    from langchain_core.messages import HumanMessage, SystemMessage
    from langgraph.graph import END, START, MessagesState, StateGraph

    task = run.task
    unit = task.unit
    sections = claim_sections([PromptClaim(i.claim_id, i.text, i.context) for i in batch],
                              max_claims=settings.section_claims)
    system = auditor_system_prompt(
        unit=task.key, node=task.node, step=task.step, round=task.round, upstream=unit.upstream,
        nodes=topology[0], edges=topology[1],
        sources=[PromptSource(s.path, s.node, s.kind) for s in unit.sources], document=task.document_label,
        min_evidence_length=unit.fence.min_evidence_length,
    )
    items = {i.claim_id: i for i in batch}

    # Node functions below take an unannotated state: LangGraph would try to resolve a string
    # annotation naming this local class (postponed annotations) and fail.
    class State(MessagesState):
        section: int

    async def agent(state) -> dict[str, Any]:
        if run.model_calls - calls_before >= run.limit:
            raise _StepLimit
        run.model_calls += 1
        reply = await bound.ainvoke(state["messages"])
        tokens_in, tokens_out = meter.add(reply)
        run.input_tokens += tokens_in
        run.output_tokens += tokens_out
        return {"messages": [reply]}

    def tools(state) -> dict[str, Any]:
        last = state["messages"][-1]
        answers = [_execute(call, run, items) for call in getattr(last, "tool_calls", [])]
        for bad in getattr(last, "invalid_tool_calls", []) or []:
            answers.append(_tool_reply(bad.get("id") or "", bad.get("name") or "", False,
                                       f"{REJECTED}: the arguments are not valid JSON ({bad.get('error') or 'unparsable'}); "
                                       "call the tool again with a JSON object."))
            run.tool_errors.append(f"invalid arguments for {bad.get('name')!r}")
        return {"messages": answers}

    def next_section(state) -> dict[str, Any]:
        index = state["section"]
        return {"messages": [HumanMessage(content=sections[index])], "section": index + 1}

    def route(state) -> str:
        last = state["messages"][-1]
        if getattr(last, "tool_calls", None) or getattr(last, "invalid_tool_calls", None):
            return "tools"
        return "next_section" if state["section"] < len(sections) else END

    graph = StateGraph(State)
    graph.add_node("agent", agent)
    graph.add_node("tools", tools)
    graph.add_node("next_section", next_section)
    graph.add_edge(START, "next_section")
    graph.add_edge("next_section", "agent")
    graph.add_conditional_edges("agent", route, ["tools", "next_section", END])
    graph.add_edge("tools", "agent")
    app = graph.compile()
    # Our own counter stops the agent at max_steps model calls; the recursion limit is only a backstop.
    limit = 2 * run.limit + len(sections) + 5
    await app.ainvoke({"messages": [SystemMessage(content=system)], "section": 0},
                      config={"recursion_limit": limit})


def _tool_reply(call_id: str, name: str, ok: bool, content: str) -> ToolMessage:
    from langchain_core.messages import ToolMessage

    return ToolMessage(content=content, tool_call_id=call_id, name=name, status="success" if ok else "error")


def _execute(call: Mapping[str, Any], run: _Run, items: dict[str, _Item]) -> ToolMessage:
    name = call.get("name") or ""
    args = call.get("args") or {}
    call_id = call.get("id") or ""
    if name == "search":
        ok, content = _search(run, args)
    elif name == "submit":
        ok, content = _submit(run, items, args)
    else:
        ok, content = False, f"{REJECTED}: unknown tool {name!r}; the only tools are search and submit."
    if not ok:
        run.tool_errors.append(content.splitlines()[0][:200])
    return _tool_reply(call_id, name, ok, content)


def _search(run: _Run, args: Mapping[str, Any]) -> tuple[bool, str]:
    from pytest_auditfence.errors import FenceError

    query = args.get("query")
    if not isinstance(query, str) or not query.strip():
        return False, f"{REJECTED}: search needs a non-empty query string, got {query!r}."
    try:
        record = run.task.unit.fence.search(query, max_hits=_MAX_HITS)
    except FenceError as exc:
        return False, f"{REJECTED}: {exc}"
    run.searched = True
    run.queries.append(query)
    if not record.hits:
        return True, f"{NO_MATCHES} for {query!r} in this unit's sources. Try other words."
    more = " (more lines matched: use a longer phrase)" if record.truncated else ""
    lines = [f"{len(record.hits)} matching line(s) for {query!r}{more}:"]
    for hit in record.hits:
        text = hit.text if len(hit.text) <= _MAX_SHOWN_LINE else hit.text[:_MAX_SHOWN_LINE] + " [line cut]"
        lines.append(f"{hit.source}:{hit.line}: {text}")
    return True, "\n".join(lines)


def _submit(run: _Run, items: dict[str, _Item], args: Mapping[str, Any]) -> tuple[bool, str]:
    raw_id = str(args.get("claim", "")).strip().strip("[]").lower()
    item = items.get(raw_id)
    if item is None:
        known = ", ".join(sorted(items))
        return False, f"{REJECTED}: claim {args.get('claim')!r} is not one of this unit's claims ({known}); pass the id as listed."
    finding, severity = args.get("finding"), args.get("severity")
    if finding not in FINDING_KINDS:
        return False, f"{REJECTED}: finding {finding!r} must be one of {', '.join(FINDING_KINDS)}."
    if severity not in SEVERITIES:
        return False, f"{REJECTED}: severity {severity!r} must be one of {', '.join(SEVERITIES)}."
    confidence = args.get("confidence")
    if isinstance(confidence, bool) or not isinstance(confidence, (int, float)) or not 0 <= confidence <= 1:
        return False, f"{REJECTED}: confidence {confidence!r} must be a number from 0 to 1."
    claim_text, evidence = args.get("claim_in_document"), args.get("evidence", "")
    if not isinstance(claim_text, str) or not isinstance(evidence, str):
        return False, f"{REJECTED}: claim_in_document and evidence must be strings."
    if finding == "unsupported" and not evidence.strip():
        # Nothing is asserted about the sources, so nothing goes through the evidence gate; the agent must
        # still have looked, and name the claim correctly.
        if not any(query_belongs(q, item.text) for q in run.queries):
            return False, (f"{REJECTED}: {RULE_SEARCH_FOR_CLAIM}: no search for {item.claim_id} was made: search with "
                           f"words of the claim before submitting that nothing backs it.")
        if not _same_text(claim_text, item.text):
            return False, f"{REJECTED}: claim_in_document is not the text of {item.claim_id}; copy it as listed."
        run.found[item.claim_id] = _Found(finding, severity, float(confidence), None)
        return True, f"{RECORDED}: {item.claim_id} unsupported."
    fence = run.task.unit.fence
    submission = fence.submit(item.text, claim_text, evidence, finding, claim_id=item.claim_id,
                              severity=severity, confidence=float(confidence))
    if not submission.accepted:
        return False, (f"{REJECTED}: {submission.reason}. Search with words of {item.claim_id} and copy evidence that "
                       f"says what the claim says verbatim from a result line, with claim_in_document as listed.")
    located = fence.evidence_for(submission)
    run.found[item.claim_id] = _Found(finding, severity, float(confidence), located)
    return True, f"{ACCEPTED}: {finding} for {item.claim_id}; evidence at {located.file}:{located.line}."


def _same_text(given: str, listed: str) -> bool:
    a, b = normalise_markdown(given).casefold(), normalise_markdown(listed).casefold()
    return bool(a) and (a == b or (a in b and 2 * len(a) >= len(b)) or b in a)


# --------------------------------------------------------------------------------------------------
# merge


def _findings(trails: dict[str, _Trail]) -> list[LlmFinding]:
    out: list[LlmFinding] = []
    for claim_id in sorted(trails):
        for task, found in trails[claim_id].hops:
            item = next(i for i in task.items if i.claim_id == claim_id)
            out.append(LlmFinding(
                id=f"f{len(out) + 1:03d}", claim_id=claim_id, unit=task.key, hop=task.hop, claim=item.text,
                finding=found.finding, severity=found.severity, confidence=found.confidence,  # type: ignore[arg-type]
                original_confidence=found.confidence, evidence=found.evidence,
            ))
    return out


def _merge(trail: _Trail, auditor: _Auditor, findings: list[LlmFinding]) -> tuple[ClaimRecord, EvidenceChain]:
    claim = trail.claim
    verdict = trail.verdict or Verdict.UNSUPPORTED
    notes = list(claim.notes)
    links: list[ChainLink] = [auditor._report_link(claim)]
    evidence: list[Evidence] = []
    for task, found in trail.hops:
        notes.append(f"LLM auditor, unit {task.key!r} (hop {task.hop}): {found.finding}, severity {found.severity}, "
                     f"confidence {found.confidence:.2f}")
        if found.evidence is not None:
            evidence.append(found.evidence)
            links.append(auditor._link(found.evidence, task.unit))
    notes.extend(trail.notes)
    ids = [f.id for f in findings if f.claim_id == claim.id]
    if ids:
        notes.append(f"LLM findings: {', '.join(ids)}")
    node, round_ = auditor.steps.split(trail.introduced_by)  # 'agent r2' -> ('agent', 2)
    record = claim.model_copy(update={"verdict": verdict, "verdict_source": "llm", "evidence": evidence,
                                      "introduced_by": node, "introduced_round": round_, "notes": notes})
    chain = EvidenceChain(claim_id=claim.id, claim=claim.claim, verdict=verdict, links=links,
                          introduced_by=node, introduced_round=round_, reaches_raw_data=verdict is Verdict.VERIFIED)
    return record, chain
