"""The adversarial pass (seed 002): a skeptical second LLM reading of the LLM auditor's findings.

Owns `review_findings`, `review_cascade`, `apply_verdict`, `parse_verdict` and `severity_at_or_above`.
"""

# Rules (each has a test): confidence never increases; a verdict never drops a finding (a "reject" or a
# finding that does not stand is flagged for the human reviewer and stays); a failed or unparsable
# review leaves the finding exactly as it was and is logged in the summary; a finding with a successful
# review is not reviewed again; at most `concurrency` reviews run at once; tokens and cost are counted.
# Verdicts (claims' verified / unsupported / contradicted) are never changed by this pass.

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from pytest_auditfence.audit.prompts import ADVERSARIAL_PROMPT_VERSION, adversarial_system_prompt, render_finding
from pytest_auditfence.errors import AuditError
from pytest_auditfence.models import (
    RECOMMENDATIONS,
    SEVERITIES,
    AdversarialSummary,
    AdversarialVerdict,
    LlmFinding,
)

if TYPE_CHECKING:  # pragma: no cover
    from pytest_auditfence.audit.cascade import Cascade
    from pytest_auditfence.audit.llm import UsageMeter

__all__ = [
    "AdversarialVerdict",
    "apply_verdict",
    "parse_verdict",
    "review_cascade",
    "review_findings",
    "severity_at_or_above",
]

_FLAGGING = ("flag_for_review", "reject")


def severity_at_or_above(severity: str, threshold: str) -> bool:
    """low < medium < high < critical."""
    for name, value in (("severity", severity), ("threshold", threshold)):
        if value not in SEVERITIES:
            raise AuditError(f"{name} {value!r}: choose one of {', '.join(SEVERITIES)}.")
    return SEVERITIES.index(severity) >= SEVERITIES.index(threshold)


def parse_verdict(finding_id: str, text: str) -> AdversarialVerdict:
    """The reviewer's JSON answer as a verdict; anything malformed is `succeeded=False` with the reason."""

    def failed(reason: str) -> AdversarialVerdict:
        return AdversarialVerdict(finding_id=finding_id, raw_response=text, succeeded=False, error=reason)

    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end < start:
        return failed("the answer holds no JSON object")
    try:
        data = json.loads(text[start:end + 1])
    except ValueError as exc:
        return failed(f"the answer is not valid JSON ({exc})")
    if not isinstance(data, dict):
        return failed("the answer's JSON is not an object")
    stands = data.get("stands")
    if not isinstance(stands, bool):
        return failed(f"'stands' must be true or false, got {stands!r}")
    confidence = data.get("revised_confidence")
    if isinstance(confidence, bool) or not isinstance(confidence, (int, float)) or not 0 <= confidence <= 1:
        return failed(f"'revised_confidence' must be a number from 0 to 1, got {confidence!r}")
    recommendation = data.get("recommendation")
    if recommendation not in RECOMMENDATIONS:
        return failed(f"'recommendation' must be one of {', '.join(RECOMMENDATIONS)}, got {recommendation!r}")
    caveats = data.get("caveats", [])
    if isinstance(caveats, str):
        caveats = [caveats] if caveats.strip() else []
    if not isinstance(caveats, list) or not all(isinstance(c, str) for c in caveats):
        return failed(f"'caveats' must be a list of strings, got {caveats!r}")
    weakening = data.get("weakening_evidence", "")
    if not isinstance(weakening, str):
        return failed(f"'weakening_evidence' must be a string, got {weakening!r}")
    return AdversarialVerdict(finding_id=finding_id, stands=stands, revised_confidence=float(confidence),
                              weakening_evidence=weakening, caveats=caveats, recommendation=recommendation,
                              raw_response=text, succeeded=True)


def apply_verdict(finding: LlmFinding, verdict: AdversarialVerdict) -> LlmFinding:
    """The finding after its review: confidence only down, notes and a reviewer flag added, never removed."""
    if verdict.finding_id != finding.id:
        raise AuditError(f"apply_verdict: verdict for {verdict.finding_id!r} applied to finding {finding.id!r}.")
    if not verdict.succeeded:
        return finding
    notes = list(finding.notes)
    flagged = finding.flagged_for_review
    if verdict.stands and verdict.recommendation == "keep":
        if verdict.caveats:
            notes.append("[Adversarial review - keep, with caveats] " + "; ".join(verdict.caveats))
    else:
        parts = [f"[Adversarial review - recommendation: {verdict.recommendation}]"]
        if verdict.weakening_evidence:
            parts.append(verdict.weakening_evidence)
        parts.extend(verdict.caveats)
        notes.append(" ".join(parts))
        flagged = flagged or not verdict.stands or verdict.recommendation in _FLAGGING
    return finding.model_copy(update={
        # A favourable second reading must not inflate a weak finding.
        "confidence": min(finding.confidence, verdict.revised_confidence),
        "notes": notes,
        "flagged_for_review": flagged,
        "review": verdict,
    })


async def review_findings(
    findings: Sequence[LlmFinding],
    *,
    llm: Any,
    severity_threshold: str = "medium",
    concurrency: int = 4,
    prices: Mapping[str, tuple[float, float]] | None = None,
    meter: UsageMeter | None = None,
) -> tuple[list[LlmFinding], AdversarialSummary]:
    """Review each finding at or above `severity_threshold` once; returns the findings (same order) and a summary.

    A model call that fails or an answer that does not parse leaves its finding unchanged and adds a line
    to `summary.log`; a `CassetteMissError` propagates unchanged.
    """
    from pytest_auditfence.audit.llm import UsageMeter, _model_name, find_cassette_miss, raise_first_exception

    if not callable(getattr(llm, "ainvoke", None)):
        raise AuditError(f"llm={type(llm).__name__}: the adversarial pass needs a LangChain chat model (ainvoke()).")
    if severity_threshold not in SEVERITIES:
        raise AuditError(f"severity_threshold={severity_threshold!r}: choose one of {', '.join(SEVERITIES)}.")
    if isinstance(concurrency, bool) or not isinstance(concurrency, int) or concurrency < 1:
        raise AuditError(f"concurrency={concurrency!r}: expected an int >= 1.")
    meter = meter if meter is not None else UsageMeter(prices, default_model=_model_name(llm))
    summary = AdversarialSummary(prompt_version=ADVERSARIAL_PROMPT_VERSION,
                                 severity_threshold=severity_threshold)  # type: ignore[arg-type]
    chosen: list[LlmFinding] = []
    for finding in findings:
        if finding.review is not None and finding.review.succeeded:
            summary.already_reviewed.append(finding.id)
        elif not severity_at_or_above(finding.severity, severity_threshold):
            summary.below_threshold.append(finding.id)
        else:
            chosen.append(finding)
    semaphore = asyncio.Semaphore(concurrency)
    tokens_before = (meter.input_tokens, meter.output_tokens, meter.cost_usd)

    async def review(finding: LlmFinding) -> AdversarialVerdict:
        from langchain_core.messages import HumanMessage, SystemMessage

        location = f"{finding.evidence.file}:{finding.evidence.line}" if finding.evidence else None
        prompt = render_finding(finding_id=finding.id, claim=finding.claim, finding=finding.finding,
                                severity=finding.severity, confidence=finding.confidence,
                                evidence=finding.evidence.text if finding.evidence else None,
                                evidence_location=location, unit=finding.unit)
        async with semaphore:
            try:
                reply = await llm.ainvoke([SystemMessage(content=adversarial_system_prompt()),
                                           HumanMessage(content=prompt)])
            except Exception as exc:
                if find_cassette_miss(exc) is not None:
                    raise
                message = " ".join(str(exc).split())[:200]
                return AdversarialVerdict(finding_id=finding.id, succeeded=False,
                                          error=f"model call failed: {type(exc).__name__}: {message}")
        meter.add(reply)
        return parse_verdict(finding.id, _text(reply.content))

    verdicts = await asyncio.gather(*(review(f) for f in chosen), return_exceptions=True)
    raise_first_exception(verdicts)
    by_id = {v.finding_id: v for v in verdicts if isinstance(v, AdversarialVerdict)}
    out: list[LlmFinding] = []
    for finding in findings:
        verdict = by_id.get(finding.id)
        if verdict is None:
            out.append(finding)
            continue
        summary.examined.append(finding.id)
        if not verdict.succeeded:
            summary.failed.append(finding.id)
            summary.log.append(f"{finding.id} ({finding.claim_id}): review failed, finding left as it was: {verdict.error}")
        reviewed = apply_verdict(finding, verdict)
        if reviewed.flagged_for_review and not finding.flagged_for_review:
            summary.flagged.append(finding.id)
        out.append(reviewed)
    summary.input_tokens = meter.input_tokens - tokens_before[0]
    summary.output_tokens = meter.output_tokens - tokens_before[1]
    summary.cost_usd = round(meter.cost_usd - tokens_before[2], 10)
    return out, summary


async def review_cascade(
    cascade: Cascade,
    *,
    llm: Any,
    severity_threshold: str = "medium",
    concurrency: int = 4,
    prices: Mapping[str, tuple[float, float]] | None = None,
) -> Cascade:
    """A new cascade whose LLM findings went through the adversarial pass (already reviewed ones are skipped).

    Claims keep their verdicts; each reviewed finding's outcome is noted on its claim, and the pass's
    tokens and cost are added to `cascade.usage`.
    """
    from pytest_auditfence.audit.cascade import Cascade, TokenUsage
    from pytest_auditfence.audit.llm import UsageMeter, _model_name

    result = cascade.result
    if result.llm is None:
        raise AuditError(
            "review_cascade: this cascade has no LLM findings (it was audited with llm=None). Audit with "
            "FenceGroup.audit_cascade(..., llm=model, adversarial=True) instead."
        )
    meter = UsageMeter(prices, default_model=_model_name(llm))
    findings, summary = await review_findings(result.llm.findings, llm=llm, severity_threshold=severity_threshold,
                                              concurrency=concurrency, meter=meter)
    notes: dict[str, list[str]] = {}
    for finding in findings:
        if finding.id not in summary.examined or finding.id in summary.failed or finding.review is None:
            continue
        original = next(f for f in result.llm.findings if f.id == finding.id)
        note = (f"adversarial review of {finding.id}: {finding.review.recommendation}, "
                f"{'stands' if finding.review.stands else 'does not stand'}, confidence "
                f"{original.confidence:.2f} -> {finding.confidence:.2f}")
        if finding.flagged_for_review:
            note += "; FLAGGED for the reviewer"
        notes.setdefault(finding.claim_id, []).append(note)
    claims = [c.model_copy(update={"notes": [*c.notes, *notes[c.id]]}) if c.id in notes else c for c in result.claims]
    usage = TokenUsage(
        input_tokens=result.usage.input_tokens + meter.input_tokens,
        output_tokens=result.usage.output_tokens + meter.output_tokens,
        total_tokens=result.usage.total_tokens + meter.input_tokens + meter.output_tokens,
        cost_usd=round(result.usage.cost_usd + meter.cost_usd, 10),
    )
    llm_record = result.llm.model_copy(update={
        "findings": findings, "adversarial": summary,
        "cost_notes": sorted(set(result.llm.cost_notes) | meter.notes),
    })
    updated = result.model_copy(update={"claims": claims, "usage": usage, "llm": llm_record})
    return Cascade(updated, fences=cascade.group.fences, trace_dir=cascade.trace_dir)


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # content blocks of some providers
        return "".join(b.get("text", "") if isinstance(b, dict) else str(b) for b in content)
    return str(content)
