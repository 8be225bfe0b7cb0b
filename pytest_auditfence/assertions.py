"""Assertion helpers on audit results, and the dozen-line rendering of a failed audit.

Works on any object with the cascade's attributes (claims, coverage, hallucinations, trace_claim);
never imports pytest - helpers raise AssertionError with `__tracebackhide__` set.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from pytest_auditfence.capturing.tracefiles import TraceFiles
from pytest_auditfence.manifest import MANIFEST_NAME, load_manifest
from pytest_auditfence.models import (
    COVERED_VERDICTS,
    ChainLink,
    ClaimRecord,
    EvidenceChain,
    Ratio,
    hop_name,
    with_round,
)

from pytest_auditfence.settings import MAX_FAILURE_CLAIMS, failure_claims_shown

MAX_FAILURE_LINES = 12
_TEXT_WIDTH = 90
_WRAP_WIDTH = 100


def _short(text: str, width: int = _TEXT_WIDTH) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 3] + "..."


def render_chain(chain: EvidenceChain | None) -> str:
    """`report.md:3 <- write nodes/write.txt:4 <- draft r2 tools/draft/r2.lookup.1.txt:2` on one line; a hop
    through a node that ran more than once names its step."""
    if chain is None or not chain.links:
        return "(no evidence chain)"
    hops = [f"{hop_name(link)} {link.file}:{link.line}" for link in chain.links]
    tail = "" if chain.reaches_raw_data else "  [does not reach raw data]"
    return " <- ".join(hops) + tail


def check_thresholds(
    coverage: Ratio, hallucinations: Ratio, *, min_coverage: float, max_hallucinations: int
) -> list[str]:
    """The shortfalls of an audit against thresholds, each naming both sides of the comparison."""
    shortfalls = []
    if coverage.denominator == 0 and min_coverage > 0:
        # Vacuous coverage must not pass the gate: a report with nothing checkable traced nothing.
        shortfalls.append(
            "coverage 0/0: the report has no checkable claim (no figure, quote or reference), so nothing "
            "was traced; set min_coverage=0 if such a report is expected"
        )
    elif coverage.value < min_coverage:
        shortfalls.append(f"coverage {coverage} < min_coverage {min_coverage:.1%}")
    if hallucinations.numerator > max_hallucinations:
        shortfalls.append(f"hallucinations {hallucinations} > max_hallucinations {max_hallucinations}")
    return shortfalls


def _wrapped(label: str, text: str, indent: str = "    ", width: int = _WRAP_WIDTH, sep: str = ": ") -> list[str]:
    """`label: text` wrapped at word boundaries, continuation lines aligned under the text; never cut."""
    import textwrap

    first = f"{indent}{label}{sep}"
    return textwrap.wrap(" ".join(text.split()), width=max(width, len(first) + 20), initial_indent=first,
                         subsequent_indent=" " * len(first), break_long_words=False, break_on_hyphens=False)


def render_chain_lines(chain: EvidenceChain | None, indent: str = "    ") -> list[str]:
    """The whole chain, one hop per line (`chain: hop`, then `<- hop`), each with its text; nothing cut."""
    if chain is None or not chain.links:
        return [f"{indent}chain: (no evidence chain)"]
    lines: list[str] = []
    for i, link in enumerate(chain.links):
        label, sep = ("chain", ": ") if i == 0 else ("   <-", "  ")
        lines += _wrapped(label, f"{hop_name(link)} {link.file}:{link.line} | {link.text}", indent, sep=sep)
    if not chain.reaches_raw_data:
        lines.append(f"{indent}       [does not reach raw data]")
    return lines


def _introduced(claim: ClaimRecord, rounds: dict[str, int]) -> str:
    if not claim.introduced_by:
        return "unknown (no single node)"
    # the deterministic audit names the round itself; otherwise it is read off the chain (see _rounds_of)
    round_ = claim.introduced_round if claim.introduced_round is not None else rounds.get(claim.introduced_by)
    return with_round(claim.introduced_by, round_)


def render_failure(
    *,
    shortfalls: Sequence[str],
    failing: Sequence[ClaimRecord],
    chains: dict[str, EvidenceChain],
    coverage: Ratio,
    hallucinations: Ratio,
    trace_dir: str | Path | None = None,
    rounds: dict[str, int] | None = None,
    llm_lines: dict[str, list[str]] | None = None,
    max_claims: int | None = MAX_FAILURE_CLAIMS,
) -> str:
    """A failed audit: why, the trace folder once, then per failing claim its verdict, text, the node
    (and round) that introduced it, the verifier's notes, the evidence it found, the whole chain
    (wrapped, never cut) and, for an LLM audit, the confidence and the reviewer's caveats. The first
    `max_claims` claims (None: all); the rest are counted, never silently dropped."""
    lines = [
        f"fence audit failed: {'; '.join(shortfalls) or 'claims failed'}",
        f"coverage {coverage}, hallucinations {hallucinations}",
    ]
    if trace_dir is not None:
        lines.append(f"trace folder: {Path(trace_dir).resolve()}")
    ordered = sorted(failing, key=lambda c: c.id)
    shown = ordered if max_claims is None else ordered[:max_claims]
    for claim in shown:
        lines.append(f"{claim.id} {claim.verdict.value}: \"{' '.join(claim.claim.split())}\"")
        lines.append(f"    introduced by: {_introduced(claim, rounds or {})}")
        for note in claim.notes:
            lines += _wrapped("note", note)
        for ev in claim.evidence:
            lines += _wrapped("sources hold", f"{ev.file}:{ev.line} \"{ev.text}\"")
        lines += (llm_lines or {}).get(claim.id, [])
        lines += render_chain_lines(chains.get(claim.id))
    rest = len(ordered) - len(shown)
    if rest:
        lines.append(f"... and {rest} more failing claim(s); run pytest with -v to see all of them, "
                     f"or --fence-report=PATH")
    return "\n".join(lines)


def _failing_claims(cascade: Any) -> list[ClaimRecord]:
    return list(cascade.failing_claims())


def _chains_for(cascade: Any, claims: Sequence[ClaimRecord]) -> dict[str, EvidenceChain]:
    return {c.id: cascade.trace_claim(c) for c in claims}


def _rounds_of(cascade: Any, claims: Sequence[ClaimRecord], chains: dict[str, EvidenceChain]) -> dict[str, int]:
    """node -> the round that introduced a claim: the round of the node's file on the claim's chain,
    else the node's only round, else (the final node) its last round, whose output is the document."""
    trace_dir = getattr(cascade, "trace_dir", None)
    if trace_dir is None or not (Path(trace_dir) / MANIFEST_NAME).is_file():
        return {}
    manifest = load_manifest(trace_dir)
    files = manifest.files
    by_path = {f.path: f.round for f in files}
    node_rounds: dict[str, set[int]] = {}
    for f in files:
        if f.node:
            node_rounds.setdefault(f.node, set()).add(f.round)
    rounds: dict[str, int] = {}
    for claim in claims:
        node = claim.introduced_by
        if not node:
            continue
        chain = chains.get(claim.id)
        on_chain = [by_path[link.file] for link in (chain.links if chain else []) if link.node == node
                    and link.file in by_path]
        if on_chain:
            rounds[node] = on_chain[-1]
        elif len(node_rounds.get(node, ())) == 1:
            rounds[node] = next(iter(node_rounds[node]))
        elif node == manifest.final_node and node_rounds.get(node):
            rounds[node] = max(node_rounds[node])  # the final document is the last round's output
    return rounds


def _llm_lines(cascade: Any) -> dict[str, list[str]]:
    """claim id -> the LLM auditor's confidence and the adversarial reviewer's verdict and caveats."""
    llm = getattr(getattr(cascade, "result", None), "llm", None)
    out: dict[str, list[str]] = {}
    for finding in (llm.findings if llm is not None else []):
        text = f"{finding.finding} (hop {finding.hop}), confidence {finding.confidence:.2f}"
        if finding.confidence != finding.original_confidence:
            text += f" (was {finding.original_confidence:.2f})"
        lines = _wrapped("llm auditor", text)
        review = finding.review
        if review is not None and review.succeeded:
            caveats = "; ".join(review.caveats) or "no caveat"
            lines += _wrapped("reviewer", f"{review.recommendation}: {caveats}")
        elif review is not None:
            lines += _wrapped("reviewer", f"review failed ({review.error or 'no reason recorded'}); finding kept")
        out.setdefault(finding.claim_id, []).extend(lines)
    return out


def render_cascade_failure(cascade: Any, shortfalls: Sequence[str], *, max_claims: int | None | Any = ...) -> str:
    """The failure message of `cascade`; `max_claims` defaults to what the run asked for (-v: all)."""
    if max_claims is ...:
        max_claims = failure_claims_shown()
    failing = _failing_claims(cascade)
    chains = _chains_for(cascade, failing)
    return render_failure(
        shortfalls=shortfalls,
        failing=failing,
        chains=chains,
        coverage=cascade.coverage,
        hallucinations=cascade.hallucinations,
        trace_dir=getattr(cascade, "trace_dir", None),
        rounds=_rounds_of(cascade, failing, chains),
        llm_lines=_llm_lines(cascade),
        max_claims=max_claims,
    )


def _require_complete(cascade: Any) -> None:
    __tracebackhide__ = True
    if not cascade.complete:
        errors = "; ".join(cascade.errors) or "no reason recorded"
        raise AssertionError(f"the audit is incomplete, so nothing can be asserted on it: {errors}")


def assert_traceable(cascade: Any, min_coverage: float = 1.0, max_hallucinations: int = 0) -> None:
    """Fail unless the audit is complete, coverage >= min_coverage and hallucinations <= max_hallucinations."""
    __tracebackhide__ = True
    from pytest_auditfence.settings import SettingsError, validate_marker

    try:
        validate_marker((), {"min_coverage": min_coverage, "max_hallucinations": max_hallucinations})
    except SettingsError as exc:
        raise ValueError(f"assert_traceable: {exc}") from None
    _require_complete(cascade)
    shortfalls = check_thresholds(
        cascade.coverage, cascade.hallucinations, min_coverage=min_coverage, max_hallucinations=max_hallucinations
    )
    if shortfalls:
        raise AssertionError(render_cascade_failure(cascade, shortfalls))


def _link_names(cascade: Any) -> Callable[[ChainLink], set[str]]:
    """Names a link answers to: its node, the node's last segment, and for a tool call the tool's name
    (from the capture's manifest, since a chain link records the calling node, not the tool)."""
    tools: dict[str, str] = {}
    trace_dir = getattr(cascade, "trace_dir", None)
    if trace_dir is not None and (Path(trace_dir) / MANIFEST_NAME).is_file():
        tools = {f.path: f.tool for f in load_manifest(trace_dir).files if f.tool}

    def names(link: ChainLink) -> set[str]:
        found = {link.node, link.node.rsplit("/", 1)[-1]}
        if link.file in tools:
            found.add(tools[link.file])
        return found

    return names


def assert_claim_traced(cascade: Any, text: Any, to: str | None = None) -> EvidenceChain:
    """Fail unless the claim (its text, id or record) is covered and its evidence chain passes through
    node or tool `to` (a namespaced node, its last segment, or a tool's name); returns the chain."""
    __tracebackhide__ = True
    _require_complete(cascade)
    chain = cascade.trace_claim(text)
    if chain.verdict not in COVERED_VERDICTS:
        raise AssertionError(
            f"claim {chain.claim_id} is {chain.verdict.value}, not traced: \"{_short(chain.claim)}\"\n"
            f"    introduced by: {with_round(chain.introduced_by or 'unknown', chain.introduced_round)}\n"
            f"    chain: {render_chain(chain)}"
        )
    names = _link_names(cascade) if to is not None else None
    if names is not None and not any(to in names(link) for link in chain.links):
        nodes = ", ".join(sorted({n for link in chain.links for n in names(link)})) or "(none)"
        raise AssertionError(
            f"claim {chain.claim_id} is {chain.verdict.value} but its chain does not pass through {to!r}; "
            f"it passes through: {nodes}\n    chain: {render_chain(chain)}"
        )
    return chain


def _locate(trace_dir: Path, rel: str) -> Path | None:
    path = (trace_dir / rel).resolve()
    root = trace_dir.resolve()
    if root not in path.parents or not path.is_file():
        return None
    return path


def fabricated_evidence(claims: Sequence[ClaimRecord], trace_dir: str | Path) -> list[str]:
    """Every piece of evidence that is not byte-for-byte where it says it is (file, offset, line, sha256)."""
    trace_dir = Path(trace_dir)
    files = TraceFiles(trace_dir)  # a file stored by reference is the text it stands for
    problems: list[str] = []
    for claim in sorted(claims, key=lambda c: c.id):
        for ev in claim.evidence:
            path = _locate(trace_dir, ev.file)
            if path is None:
                problems.append(f"{claim.id}: evidence cites {ev.file!r}, which is not a file of the trace folder")
                continue
            data = files.data(ev.file)
            content = data.decode("utf-8", errors="replace")
            if hashlib.sha256(data).hexdigest() != ev.sha256:
                problems.append(f"{claim.id}: {ev.file} changed since the audit (sha256 differs)")
            if content[ev.offset : ev.offset + len(ev.text)] != ev.text:
                found = "elsewhere in the file" if ev.text in content else "nowhere in the file"
                problems.append(
                    f"{claim.id}: evidence {_short(ev.text, 60)!r} is not at offset {ev.offset} of {ev.file} "
                    f"(it is {found})"
                )
            elif content.count("\n", 0, ev.offset) + 1 != ev.line:
                problems.append(f"{claim.id}: evidence in {ev.file} is on line "
                                f"{content.count(chr(10), 0, ev.offset) + 1}, not line {ev.line}")
    return problems


def assert_no_fabricated_evidence(cascade: Any, trace_dir: str | Path | None = None) -> None:
    """Fail if any evidence of any claim is not a verbatim substring of the captured file it cites.

    `trace_dir` defaults to the cascade's own `trace_dir`.
    """
    __tracebackhide__ = True
    folder = trace_dir if trace_dir is not None else getattr(cascade, "trace_dir", None)
    if folder is None:
        raise ValueError(
            "assert_no_fabricated_evidence: this result does not know its trace folder; "
            "pass trace_dir=fence_snapshot.trace_dir"
        )
    problems = fabricated_evidence(list(cascade.claims), folder)
    if problems:
        shown = problems[:MAX_FAILURE_LINES - 1]
        more = [f"... and {len(problems) - len(shown)} more"] if len(problems) > len(shown) else []
        raise AssertionError("\n".join([f"{len(problems)} piece(s) of fabricated evidence:", *shown, *more]))


def explain_comparison(op: str, left: Any, right: Any) -> list[str] | None:
    """Lines for pytest_assertrepr_compare when a Ratio or a cascade is compared; None otherwise."""
    if op != "==":
        return None
    if isinstance(left, Ratio) and isinstance(right, Ratio):
        return [
            f"{left} == {right}",
            f"numerators {left.numerator} vs {right.numerator}, denominators {left.denominator} vs {right.denominator}",
        ]
    if all(hasattr(x, "claims") and hasattr(x, "coverage") and hasattr(x, "hallucinations") for x in (left, right)):
        lines = [f"audit results differ: coverage {left.coverage} vs {right.coverage}, "
                 f"hallucinations {left.hallucinations} vs {right.hallucinations}"]
        before = {c.id: c for c in left.claims}
        after = {c.id: c for c in right.claims}
        for cid in sorted(before.keys() | after.keys()):
            a, b = before.get(cid), after.get(cid)
            if a is None or b is None:
                lines.append(f"{cid}: only on the {'right' if a is None else 'left'}: "
                             f"\"{_short((a or b).claim, 60)}\"")  # type: ignore[union-attr]
            elif a.verdict != b.verdict or a.introduced_by != b.introduced_by:
                lines.append(f"{cid}: {a.verdict.value} (introduced by {a.introduced_by}) vs "
                             f"{b.verdict.value} (introduced by {b.introduced_by})")
        return lines
    return None
