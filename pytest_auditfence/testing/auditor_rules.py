"""A rule for `ScriptedOpenAIServer` that acts as the LLM auditor and as the adversarial reviewer, offline.

Owns `AuditorRule`, `ClaimPlan` and `ReviewPlan`: each reply is decided from the request alone (so
concurrent agents stay deterministic), including scripted fabrications the fence gate must reject.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pytest_auditfence.audit.prompts import ACCEPTED, CLAIM_LINE, RECORDED, REJECTED, SEARCH_HIT_LINE
from pytest_auditfence.testing.replies import ChatRequest, Reply, ScriptError, ToolCall, message_text

TRICKS: tuple[str, ...] = ("no_search", "invented_evidence", "echoed_query", "claim_not_in_document",
                           "borrowed_search", "unsupporting_line", "padded_evidence", "word_as_claim")
"""Fabrications a `ClaimPlan` can try before its honest submission; the gate must reject each one.

`borrowed_search` submits a line found by a search for `decoy` (another claim's words) without a search of
its own; `unsupporting_line` searches `decoy` and the claim and submits the decoy's line; `padded_evidence`
submits two fragments of a hit line joined by 30 spaces; `word_as_claim` gives 'in' as claim_in_document."""

_STOP = frozenset("""a an the and or but of to in on at by for with from as is are was were be been being this that
these those it its than then so because due into over under more most much very also has have had""".split())
_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9'-]*")


@dataclass(frozen=True)
class ClaimPlan:
    """How the scripted auditor handles claims whose text contains the plan's key (case-insensitive).

    `queries` are searched in order until one finds lines (default: word pairs of the claim). The
    evidence is the first hit line, or the part of a hit line equal to `evidence` when given.
    `finding` defaults to "supported" when a search found lines, else "unsupported". `fabricate`
    lists `TRICKS` to try first, each once. `endless` keeps searching and never submits (to reach the
    step limit); `delay` sleeps that many seconds before each answer (to reach the unit timeout).
    """

    queries: tuple[str, ...] = ()
    evidence: str | None = None
    finding: str | None = None
    severity: str = "low"
    confidence: float = 0.9
    fabricate: tuple[str, ...] = ()
    endless: bool = False
    delay: float = 0.0
    decoy: str | None = None

    def __post_init__(self) -> None:
        unknown = [t for t in self.fabricate if t not in TRICKS]
        if unknown:
            raise ScriptError(f"ClaimPlan(fabricate=...) has unknown tricks {unknown}; choose from {', '.join(TRICKS)}")


@dataclass(frozen=True)
class ReviewPlan:
    """How the scripted reviewer answers for findings whose claim contains the plan's key.

    By default the finding stands, is kept, with its own confidence. `raw` answers that text verbatim
    (e.g. something that is not JSON); `fail` answers HTTP 500.
    """

    stands: bool = True
    revised_confidence: float | None = None
    recommendation: str = "keep"
    caveats: tuple[str, ...] = ()
    weakening_evidence: str = ""
    raw: str | None = None
    fail: bool = False


@dataclass(frozen=True)
class _Call:
    name: str
    args: dict[str, Any]
    result: str


class AuditorRule:
    """`ScriptedOpenAIServer(rule=AuditorRule(...))`: requests with a `submit` tool get the auditor's next
    tool call; other requests get the reviewer's JSON verdict.

    The auditor works through the listed claims (`[c004] text`) one at a time: search, then submit; a
    rejected submission is followed by the next step of its plan, so recovery after a tool error is
    what the real agent loop has to make happen.
    """

    def __init__(
        self,
        plans: Mapping[str, ClaimPlan] | None = None,
        reviews: Mapping[str, ReviewPlan] | None = None,
        *,
        default_plan: ClaimPlan | None = None,
        default_review: ReviewPlan | None = None,
    ) -> None:
        self.plans = dict(plans or {})
        self.reviews = dict(reviews or {})
        self.default_plan = default_plan or ClaimPlan()
        self.default_review = default_review or ReviewPlan()

    def __call__(self, request: ChatRequest) -> Reply:
        if "submit" in request.tool_names:
            return self._audit(request)
        return self._review(request)

    # -- the auditor ---------------------------------------------------------------------------------
    def _plan(self, text: str) -> ClaimPlan:
        folded = text.casefold()
        return next((p for key, p in self.plans.items() if key.casefold() in folded), self.default_plan)

    def _audit(self, request: ChatRequest) -> Reply:
        claims: list[tuple[str, str]] = []
        for message in request.messages:
            if message.get("role") == "user":
                claims.extend((m.group("id"), m.group("text")) for m in CLAIM_LINE.finditer(message_text(message)))
        calls = _calls(request.messages)
        done_at = [i for i, c in enumerate(calls) if c.name == "submit" and c.result.startswith((ACCEPTED, RECORDED))]
        done = {str(calls[i].args.get("claim")) for i in done_at}
        pending = [c for c in claims if c[0] not in done]
        if not pending:
            return Reply(content="Every claim of this section has a finding.")
        claim_id, text = pending[0]
        plan = self._plan(text)
        if plan.delay:
            time.sleep(plan.delay)
        start = done_at[-1] + 1 if done_at else 0
        searched_before = any(c.name == "search" for c in calls[:start])
        return Reply(tool_calls=[_next_call(claim_id, text, plan, calls[start:], searched_before)])

    # -- the reviewer ----------------------------------------------------------------------------------
    def _review(self, request: ChatRequest) -> Reply:
        text = request.last_user_text
        claim = re.search(r"^Claim: (.*)$", text, re.MULTILINE)
        confidence = re.search(r"^Confidence: ([0-9.]+)$", text, re.MULTILINE)
        if claim is None or confidence is None:
            raise ScriptError("AuditorRule: a request without a submit tool is not an adversarial review prompt")
        folded = claim.group(1).casefold()
        plan = next((p for key, p in self.reviews.items() if key.casefold() in folded), self.default_review)
        if plan.fail:
            return Reply(status=500, error="scripted reviewer unavailable", headers={"x-should-retry": "false"})
        if plan.raw is not None:
            return Reply(content=plan.raw)
        revised = plan.revised_confidence if plan.revised_confidence is not None else float(confidence.group(1))
        verdict = {"stands": plan.stands, "revised_confidence": revised, "recommendation": plan.recommendation,
                   "caveats": list(plan.caveats), "weakening_evidence": plan.weakening_evidence}
        return Reply(content=json.dumps(verdict, sort_keys=True))


def _calls(messages: list[dict[str, Any]]) -> list[_Call]:
    results = {m.get("tool_call_id"): message_text(m) for m in messages if m.get("role") == "tool"}
    out: list[_Call] = []
    for message in messages:
        if message.get("role") != "assistant":
            continue
        for call in message.get("tool_calls") or []:
            function = call.get("function", {})
            try:
                args = json.loads(function.get("arguments") or "{}")
            except ValueError:
                args = {}
            out.append(_Call(function.get("name", ""), args if isinstance(args, dict) else {},
                             results.get(call.get("id"), "")))
    return out


def default_queries(text: str) -> list[str]:
    """Pairs of adjacent content words, then the longest single words: what a careful auditor tries."""
    words = _WORD.findall(text)
    pairs = [f"{a} {b}" for a, b in zip(words, words[1:])
             if a.casefold() not in _STOP and b.casefold() not in _STOP]
    singles = sorted((w for w in words if w.casefold() not in _STOP), key=lambda w: (-len(w), w))
    return list(dict.fromkeys([*pairs[:3], *singles[:2]]))[:4] or [text[:40]]


def _hit_lines(result: str) -> list[str]:
    return [m.group("text") for m in SEARCH_HIT_LINE.finditer(result)]


def _evidence(lines: list[str], wanted: str | None) -> str | None:
    for line in lines:
        if wanted is not None:
            at = line.casefold().find(wanted.casefold())
            if at >= 0:
                return line[at:at + len(wanted)]
            continue
        cleaned = line.strip().removeprefix("- ").strip()[:300]
        if len(cleaned) >= 20:
            return cleaned
    return None


def _next_call(claim_id: str, text: str, plan: ClaimPlan, current: list[_Call], searched_before: bool) -> ToolCall:
    def submit(claim_in_document: str, evidence: str, finding: str) -> ToolCall:
        return ToolCall("submit", {"claim": claim_id, "claim_in_document": claim_in_document, "evidence": evidence,
                                   "finding": finding, "severity": plan.severity, "confidence": plan.confidence})

    queries = list(plan.queries) or default_queries(text)
    searches = [c for c in current if c.name == "search"]
    if plan.endless:
        return ToolCall("search", {"query": f"{queries[0]} {len(searches) + 1}"})
    tricks = [t for t in plan.fabricate if not (t == "no_search" and searched_before)]
    rejected = sum(1 for c in current if c.name == "submit" and c.result.startswith(REJECTED))
    trick = tricks[rejected] if rejected < len(tricks) else None
    if trick == "no_search" and not searches:
        return submit(text, f"The sources clearly state that {text}", "supported")
    decoy_lines = [line for c in searches if c.args.get("query") == plan.decoy for line in _hit_lines(c.result)]
    if trick in ("borrowed_search", "unsupporting_line"):
        if plan.decoy is None:
            raise ScriptError(f"ClaimPlan(fabricate=({trick!r},)) needs decoy=<a query for another claim's line>")
        if not any(c.args.get("query") == plan.decoy for c in searches):
            return ToolCall("search", {"query": plan.decoy})
        if trick == "unsupporting_line" and not any(c.args.get("query") in queries for c in searches):
            return ToolCall("search", {"query": queries[0]})
        line = decoy_lines[0].strip().removeprefix("- ").strip() if decoy_lines else plan.decoy
        return submit(text, line, "supported")
    own = [c for c in searches if c.args.get("query") != plan.decoy and c.args.get("query") != f"proof that {text}"]
    # an honest auditor whose evidence was rejected tries the next hit line, then the next query
    honest_rejections = max(0, rejected - len(tricks))
    candidates: list[str] = []
    for call in reversed(own):
        for line in _hit_lines(call.result):
            found = _evidence([line], plan.evidence)
            if found is not None and found not in candidates:
                candidates.append(found)
    evidence = candidates[honest_rejections] if honest_rejections < len(candidates) else None
    if evidence is None:
        if len(own) < len(queries):
            return ToolCall("search", {"query": queries[len(own)]})
        return submit(text, "", plan.finding or "unsupported")
    if trick == "invented_evidence":
        return submit(text, f"The analyst notes confirm that {text}", "supported")
    if trick == "echoed_query":
        echo = f"proof that {text}"
        if not any(c.args.get("query") == echo for c in searches):
            return ToolCall("search", {"query": echo})
        return submit(text, echo, "supported")
    if trick == "claim_not_in_document":
        return submit(f"It is beyond doubt that {text}", evidence, "supported")
    if trick == "padded_evidence":
        return submit(text, evidence[:2] + " " * 30 + evidence[-2:], "supported")
    if trick == "word_as_claim":
        return submit("in", evidence, "supported")
    return submit(text, evidence, plan.finding or "supported")
