"""Every prompt of the LLM auditor and the adversarial pass, versioned, with the formats they share.

Owns PROMPT_VERSION / ADVERSARIAL_PROMPT_VERSION, the section split of claims and the rendered finding.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

# Bump on any change of wording or format: the version is recorded in every LLM cascade, and
# recorded cassettes match request bodies, so a new prompt means re-recording them.
PROMPT_VERSION = "auditor/2"
ADVERSARIAL_PROMPT_VERSION = "adversarial/1"

# The shapes the agent (and the shipped test rules) read back.
CLAIM_LINE = re.compile(r"^\[(?P<id>c\d+)\] (?P<text>.+)$", re.MULTILINE)
SEARCH_HIT_LINE = re.compile(r"^(?P<path>[^\s:][^:]*):(?P<line>\d+): (?P<text>.*)$", re.MULTILINE)
ACCEPTED = "ACCEPTED"
REJECTED = "REJECTED"
RECORDED = "RECORDED"
NO_MATCHES = "No matches"


@dataclass(frozen=True)
class PromptSource:
    path: str
    node: str
    kind: str


@dataclass(frozen=True)
class PromptClaim:
    id: str
    text: str
    context: str | None = None


def auditor_system_prompt(
    *,
    unit: str,
    node: str,
    step: str | None = None,
    round: int | None = None,
    upstream: Sequence[str],
    nodes: Sequence[str],
    edges: Sequence[tuple[str, str]],
    sources: Sequence[PromptSource],
    document: str,
    min_evidence_length: int,
) -> str:
    """The auditor's instructions: the pipeline's topology, this unit's place in it (the step: one round of
    a node) and its sources."""
    edge_lines = "\n".join(f"  {a} -> {b}" for a, b in edges) or "  (none)"
    source_lines = "\n".join(f"  {s.path}  (from {s.node}, {s.kind})" for s in sources) or "  (none)"
    # A node that runs several times (an agent loop) is audited round by round: each round only against
    # what existed when it started, so the agent is told which round it audits.
    author = f"round {round} of node {node!r} (step {step!r})" if round is not None else f"node {node!r}"
    return f"""You are an auditor checking that every claim of {document} is backed by the data this audit unit can see.
Prompt version: {PROMPT_VERSION}.

Pipeline topology
Nodes: {", ".join(nodes) or "(none)"}
Edges (upstream -> downstream):
{edge_lines}

This unit: {unit}
It audits what {author} wrote, against the data it was given before it started, from: {", ".join(upstream) or "(no upstream step)"}.
Its sources (the only files search can reach):
{source_lines}

You have two tools and nothing else:
- search(query): finds the lines of the sources that contain the query (case-insensitive, literal text).
  Use short phrases of a few words from the claim; try other words if nothing matches.
- submit(claim, claim_in_document, evidence, finding, severity, confidence): records your finding for one claim.
  claim: the claim's id as listed, e.g. c004.
  claim_in_document: the claim's text copied exactly as listed.
  evidence: text copied verbatim from one line of a search result (at least {min_evidence_length} characters);
    never from a query, never from a "{NO_MATCHES}" message, never from memory.
  finding: "supported" (the evidence says what the claim says), "contradicted" (the evidence says otherwise)
    or "unsupported" (nothing in the sources backs it; evidence may then be empty).
  severity: low, medium, high or critical: how much a reader would be misled if the finding is wrong.
  confidence: a number from 0 to 1.

Rules: search before every submit; one submit per claim; a submission that breaks a rule comes back as an
error with its reason - fix it and submit again. Claims arrive in sections. When every claim of a section has
an accepted submission, answer with a short text (no tool call) to receive the next section."""


def claim_sections(claims: Sequence[PromptClaim], *, max_claims: int = 8, max_chars: int = 4000) -> list[str]:
    """The claims as user messages of at most `max_claims` claims / about `max_chars` characters each."""
    groups: list[list[PromptClaim]] = []
    size = 0
    for claim in claims:
        line = len(_claim_line(claim))
        if not groups or len(groups[-1]) >= max_claims or (groups[-1] and size + line > max_chars):
            groups.append([])
            size = 0
        groups[-1].append(claim)
        size += line
    total = len(groups)
    return [
        f"Section {number} of {total}. Audit each claim below: search, then submit.\n\n"
        + "\n".join(_claim_line(c) for c in group)
        for number, group in enumerate(groups, start=1)
    ]


def _claim_line(claim: PromptClaim) -> str:
    text = " ".join(claim.text.split())
    context = f"\n    (in section: {' '.join(claim.context.split())})" if claim.context else ""
    return f"[{claim.id}] {text}{context}"


def adversarial_system_prompt() -> str:
    return f"""You are a SKEPTICAL senior auditor reviewing a finding produced by an automated audit system.
Prompt version: {ADVERSARIAL_PROMPT_VERSION}.
Your job is to FIND REASONS THE FINDING IS WRONG or overstated. Do not confirm - challenge.

Examine:
1. Overreach: does the finding say more than the cited evidence actually says?
2. Alternative readings: could the evidence mean something else?
3. Severity: is the severity level appropriate, or overstated?
4. Context gaps: what does the finding ignore?
5. Unverified quotes: if the evidence is missing or marked unverified, treat the finding as suspect.

If you have ANY material concern, set stands to false even if the finding is broadly correct.
Answer with one JSON object and nothing else:
{{"stands": true|false, "revised_confidence": 0.0-1.0, "weakening_evidence": "...", "caveats": ["..."],
 "recommendation": "keep"|"refine"|"flag_for_review"|"reject"}}"""


def render_finding(
    *,
    finding_id: str,
    claim: str,
    finding: str,
    severity: str,
    confidence: float,
    evidence: str | None,
    evidence_location: str | None,
    unit: str,
) -> str:
    """The finding as the reviewer reads it; evidence reached the record only through the gate."""
    if evidence:
        cited = f"Evidence (verified verbatim in {evidence_location}):\n  {' '.join(evidence.split())}"
    else:
        cited = "Evidence: none submitted (UNVERIFIED: the finding rests on a search that found nothing)."
    return (
        f"Finding {finding_id} from audit unit {unit}\n"
        f"Claim: {' '.join(claim.split())}\n"
        f"Finding: {finding}\n"
        f"Severity: {severity}\n"
        f"Confidence: {confidence:.2f}\n"
        f"{cited}"
    )
