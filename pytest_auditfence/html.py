"""The self-contained HTML evidence page: totals, each claim highlighted by verdict, its chain with the
captured lines around each link, and the run's topology as SVG. Owns building `TestDetail` from a cascade.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from html import escape
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pytest_auditfence.capturing.tracefiles import TraceFiles, read_trace_text
from pytest_auditfence.errors import AuditError
from pytest_auditfence.manifest import INPUT_NODE, RAW_FILE_KINDS, Manifest, load_manifest
from pytest_auditfence.models import (
    COVERED_VERDICTS,
    ChainLink,
    ClaimRecord,
    EvidenceChain,
    Ratio,
    Verdict,
    hop_name,
    with_round,
)
from pytest_auditfence.report import (
    HALLUCINATED,
    OUTCOMES,
    ExcerptLine,
    FenceReport,
    FileExcerpt,
    TestDetail,
    TestEntry,
    TopologyNode,
)

if TYPE_CHECKING:  # pragma: no cover
    from pytest_auditfence.audit.cascade import Cascade

REPORT_NODE = "__report__"  # the cascade's pseudo-node for the final document
CONTEXT_LINES = 2  # lines shown before and after the lines a chain link points at
MAX_LINE_CHARS = 2000  # a longer captured line is cut in the excerpt (the page stays small)

# verdict -> (symbol, label, meaning); the symbol and label make the page readable without colour.
VERDICT_LEGEND: dict[Verdict, tuple[str, str, str]] = {
    Verdict.VERIFIED: ("\u2713", "verified", "found in the raw data"),
    Verdict.DERIVED: ("\u2211", "derived", "computed from observed figures"),
    Verdict.MISATTRIBUTED: ("\u21b7", "misattributed", "found, but not where the claim came from"),
    Verdict.CONTRADICTED: ("\u2260", "contradicted", "the sources say otherwise"),
    Verdict.UNSUPPORTED: ("\u2717", "unsupported", "nothing in the sources backs it"),
    Verdict.UNVERIFIABLE: ("\u25cb", "not checkable", "no figure, quote or reference in it"),
    Verdict.SKIPPED: ("\u2013", "skipped", "matched a skip pattern"),
}
ORIGIN_MARK = "\u26a0"
SEP = " \u00b7 "


# --------------------------------------------------------------------------------------------------
# building the detail of one audited run


def build_detail(
    cascade: Cascade,
    *,
    trace_dir: str | Path,
    manifest: Manifest | None = None,
    document: str | None = None,
) -> TestDetail:
    """Everything the page needs of one cascade, with the captured lines its chains point at embedded
    now (the trace folder may be gone when the page is written). Fails if `document` is not the
    document the cascade audited, since every claim span would then point at the wrong text."""
    trace_dir = Path(trace_dir)
    manifest = manifest if manifest is not None else load_manifest(trace_dir)
    if document is None:
        if not manifest.report:
            raise AuditError(
                f"{trace_dir}: no recorded report to show; pass document=... (the text that was audited)"
            )
        document = read_trace_text(trace_dir, manifest.report)
    if hashlib.sha256(document.encode("utf-8")).hexdigest() != cascade.result.document_sha256:
        raise AuditError(
            f"{trace_dir}: the document given for the page is not the one the cascade audited "
            f"(sha256 differs); pass the same text as final_document to the audit and to the page"
        )
    claims = sorted(cascade.claims, key=lambda c: c.id)
    chains = cascade.evidence_chains()
    tools: dict[str, set[str]] = {}
    for record in manifest.files:
        if record.tool:
            tools.setdefault(record.node, set()).add(record.tool)
    nodes = [
        TopologyNode(name=n.name, kind=n.kind, capture_level=n.capture_level.value, trust_cap=n.trust_cap,
                     rounds=n.rounds, parent=n.parent, tools=sorted(tools.get(n.name, ())))
        for n in sorted(manifest.nodes, key=lambda n: n.name)
    ]
    return TestDetail(
        source=trace_dir.name,
        document=document,
        claims=claims,
        chains=chains,
        excerpts=_excerpts(trace_dir, manifest, claims, chains),
        nodes=nodes,
        edges=sorted(manifest.edges),
        final_node=manifest.final_node,
        passport=cascade.passport.statement,
    )


def _link_span(link: ChainLink, evidence_lines: dict[tuple[str, int], int]) -> int:
    """How many lines after `link.line` the link covers (its evidence may span several lines)."""
    return max(evidence_lines.get((link.file, link.line), 0), link.text.count(" / "))


def _evidence_lines(claims: Iterable[ClaimRecord]) -> dict[tuple[str, int], int]:
    spans: dict[tuple[str, int], int] = {}
    for claim in claims:
        for ev in claim.evidence:
            key = (ev.file, ev.line)
            spans[key] = max(spans.get(key, 0), ev.text.count("\n"))
    return spans


def _excerpts(trace_dir: Path, manifest: Manifest, claims: list[ClaimRecord],
              chains: list[EvidenceChain]) -> list[FileExcerpt]:
    spans = _evidence_lines(claims)
    wanted: dict[str, set[int]] = {}

    def want(file: str, first: int, extra: int) -> None:
        wanted.setdefault(file, set()).update(
            range(max(1, first - CONTEXT_LINES), first + extra + CONTEXT_LINES + 1)
        )

    for chain in chains:
        for link in chain.links:
            if link.kind != "report":
                want(link.file, link.line, _link_span(link, spans))
    for claim in claims:
        for ev in claim.evidence:
            want(ev.file, ev.line, ev.text.count("\n"))
    records = {f.path: f for f in manifest.files}
    root = trace_dir.resolve()
    out: list[FileExcerpt] = []
    files = TraceFiles(trace_dir)
    for file in sorted(wanted):
        path = (trace_dir / file).resolve()
        # Only files inside the trace folder: a damaged manifest must not pull other files into the page.
        if not path.is_relative_to(root) or not path.is_file():
            continue
        try:
            lines = files.text(file).splitlines()
        except (OSError, UnicodeDecodeError):
            continue
        record = records.get(file)
        out.append(FileExcerpt(
            file=file,
            node=record.node if record else "",
            kind=record.kind if record else "",
            tool=record.tool if record else None,
            lines=[ExcerptLine(n=n, text=lines[n - 1][:MAX_LINE_CHARS])
                   for n in sorted(wanted[file]) if n <= len(lines)],
        ))
    return out


# --------------------------------------------------------------------------------------------------
# the CLI's entry: one cascade, one page


def entry_for_cascade(
    cascade: Cascade,
    *,
    name: str,
    trace_dir: str | Path,
    manifest: Manifest | None = None,
    document: str | None = None,
    min_coverage: float = 1.0,
    max_hallucinations: int = 0,
    detail: bool = True,
) -> TestEntry:
    """A report entry for one audited run judged against thresholds, with the page detail attached
    unless `detail=False` (the JSON report never carries it)."""
    from pytest_auditfence.assertions import check_thresholds

    shortfalls = check_thresholds(cascade.coverage, cascade.hallucinations,
                                  min_coverage=min_coverage, max_hallucinations=max_hallucinations)
    entry = TestEntry.from_claims(
        name, "fail" if shortfalls else "pass",
        thresholds={"max_hallucinations": max_hallucinations, "min_coverage": min_coverage},
        coverage=cascade.coverage, hallucinations=cascade.hallucinations, claims=cascade.claims,
        shortfalls=shortfalls,
    )
    if detail:
        entry.detail = build_detail(cascade, trace_dir=trace_dir, manifest=manifest, document=document)
    return entry


def write_cascade_html(cascade: Cascade, path: str | Path, **entry_options: Any) -> TestEntry:
    """Write the page of one cascade (`entry_for_cascade` options); returns the entry it shows."""
    entry = entry_for_cascade(cascade, **entry_options)
    write_html(FenceReport.merge([entry]), Path(path))
    return entry


# --------------------------------------------------------------------------------------------------
# rendering


def write_html(report: FenceReport, path: Path) -> None:
    """What `--fence-html PATH` writes at the end of a session: one self-contained page."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render_html(report), encoding="utf-8", newline="\n")


def _asset(name: str) -> str:
    return resources.files("pytest_auditfence").joinpath("html_assets", name).read_text(encoding="utf-8")


def _e(text: object) -> str:
    return escape(str(text), quote=True)


def render_html(report: FenceReport) -> str:
    """The page as a string: byte-identical for equal reports, every text escaped, no external resource."""
    from pytest_auditfence import __version__

    parts = [
        "<!doctype html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        "<title>auditfence evidence report</title>",
        f"<style>\n{_asset('page.css')}</style>",
        "</head><body>",
        _render_header(report),
        "<main>",
        *(_render_test(i, entry) for i, entry in enumerate(report.tests)),
        "</main>",
        f"<footer>pytest-auditfence {_e(__version__)}; select a claim (click, or Tab then Enter) to see "
        f"its evidence chain.</footer>",
        f"<script>\n{_asset('page.js')}</script>",
        "</body></html>",
    ]
    return "\n".join(parts) + "\n"


def _ratio(r: Ratio | None) -> str:
    return "-" if r is None else f"{r.numerator}/{r.denominator} ({r.value:.1%})"


def _thresholds(entry: TestEntry) -> str:
    t = entry.thresholds
    bits = []
    if "min_coverage" in t:
        bits.append(f"coverage \u2265 {float(t['min_coverage']):.1%}")
    if "max_hallucinations" in t:
        bits.append(f"hallucinations \u2264 {t['max_hallucinations']}")
    if t.get("report_only"):
        bits.append("report only")
    return ", ".join(bits) or "-"


def _outcome(outcome: str) -> str:
    return f'<span class="outcome o-{_e(outcome)}">{_e(outcome.upper())}</span>'


def _render_header(report: FenceReport) -> str:
    counts = report.counts()
    rows = []
    for i, e in enumerate(report.tests):
        rows.append(
            f'<tr><td>{_outcome(e.outcome)}</td><td class="test"><a href="#t{i}">{_e(e.nodeid)}</a></td>'
            f"<td>{_e(_ratio(e.coverage))}</td><td>{_e(_ratio(e.hallucinations))}</td>"
            f"<td>{_e(_thresholds(e))}</td></tr>"
        )
    legend = "".join(
        f'<li><span class="badge v-{v.value}">{_e(sym)} {_e(label)}</span> {_e(meaning)}</li>'
        for v, (sym, label, meaning) in VERDICT_LEGEND.items()
    )
    legend += f'<li><span class="badge v-unsupported">{ORIGIN_MARK}</span> node that introduced a fabrication</li>'
    problems = "".join(f'<p class="problem">INCOMPLETE REPORT: {_e(p)}</p>' for p in report.problems)
    table = (
        '<table class="totals"><thead><tr><th>outcome</th><th>test</th><th>coverage (n/d)</th>'
        "<th>hallucinations (n/d)</th><th>thresholds</th></tr></thead><tbody>" + "".join(rows) + "</tbody></table>"
        if rows else "<p>No fenced test ran.</p>"
    )
    totals = f"{len(report.tests)} fenced test(s): " + ", ".join(f"{counts[o]} {o}" for o in OUTCOMES)
    return (
        '<header class="top"><h1>auditfence evidence report</h1>'
        f'<p class="counts">{_e(totals)}</p>{problems}{table}'
        f'<ul class="legend" aria-label="verdict legend">{legend}</ul></header>'
    )


def _render_test(index: int, entry: TestEntry) -> str:
    tid = f"t{index}"
    head = (
        f'<section class="test" id="{tid}" aria-labelledby="{tid}-h">'
        f'<h2 id="{tid}-h">{_outcome(entry.outcome)} {_e(entry.nodeid)}</h2>'
        f'<p class="figures">coverage {_e(_ratio(entry.coverage))} \u00b7 hallucinations '
        f"{_e(_ratio(entry.hallucinations))} \u00b7 thresholds: {_e(_thresholds(entry))}</p>"
    )
    notes = "".join(f'<p class="problem">shortfall: {_e(s)}</p>' for s in entry.shortfalls)
    notes += "".join(f'<p class="problem">error: {_e(s)}</p>' for s in entry.errors)
    detail = entry.detail
    if detail is None:
        return head + notes + _claims_table(entry) + "</section>"
    if detail.passport:
        notes += f'<p class="figures">passport: {_e(detail.passport)}</p>'
    origins = _origins(detail.claims)
    excerpts = {x.file: x for x in detail.excerpts}
    claims = {c.id: c for c in detail.claims}
    chains = "".join(_render_chain(tid, ch, claims.get(ch.claim_id), excerpts) for ch in detail.chains)
    return (
        head + notes + _failing_list(tid, detail.claims) + '<div class="cols"><div class="doc">'
        f'<h3>Final report of <span class="test-name">{_e(entry.nodeid)}</span></h3>'
        f'<pre class="document">{_render_document(tid, detail.document, detail.claims)}</pre></div>'
        '<aside class="side"><div class="chain-panel" aria-live="polite">'
        f'<h3>Evidence chain · <span class="test-name">{_e(entry.nodeid)}</span></h3>'
        '<p class="hint">Select a claim in the report (click it, or Tab to it and press Enter) to see its '
        "evidence chain, link by link, down to the raw tool output.</p>"
        f"{chains}</div>"
        f'<figure class="topology"><h3>Topology of the run</h3>{render_topology(detail, origins, tid=tid)}'
        "</figure></aside></div></section>"
    )


def _failing_list(tid: str, claims: Sequence[ClaimRecord]) -> str:
    """The test's hallucinated claims at the top of its section, each a link that selects it."""
    failing = [c for c in sorted(claims, key=lambda c: c.id) if c.verdict in HALLUCINATED]
    if not failing:
        return ""
    items = "".join(
        f'<li><a href="#claim-{_e(tid)}-{_e(c.id)}" data-select="claim-{_e(tid)}-{_e(c.id)}">'
        f"{_e(c.id)} {_verdict_badge(c.verdict)} “{_e(c.claim)}”</a>"
        + (f' <span class="meta">introduced by {_e(_introducer(c.introduced_by, c.introduced_round))}</span>'
           if c.introduced_by else "")
        + "</li>"
        for c in failing
    )
    return (f'<nav class="failing" aria-label="failing claims"><h3>{len(failing)} failing claim(s)</h3>'
            f"<ol>{items}</ol></nav>")


def _claims_table(entry: TestEntry) -> str:
    if not entry.claims:
        return ""
    rows = "".join(
        f'<tr><td>{_e(c.id)}</td><td>{_verdict_badge(c.verdict)}</td><td class="claim-cell">{_e(c.claim)}</td>'
        f"<td>{_e(_introducer(c.introduced_by, c.introduced_round) if c.introduced_by else '')}</td></tr>"
        for c in entry.claims
    )
    return (
        '<table class="claims-table"><thead><tr><th>claim</th><th>verdict</th><th>text</th>'
        f"<th>introduced by</th></tr></thead><tbody>{rows}</tbody></table>"
    )


def _verdict_badge(verdict: Verdict) -> str:
    sym, label, _ = VERDICT_LEGEND[verdict]
    return f'<span class="badge v-{verdict.value}">{_e(sym)} {_e(label)}</span>'


def _is_fabrication(claim: ClaimRecord) -> bool:
    return bool(claim.introduced_by) and claim.verdict not in COVERED_VERDICTS and claim.verdict not in (
        Verdict.UNVERIFIABLE, Verdict.SKIPPED)


def _origins(claims: Sequence[ClaimRecord]) -> dict[str, list[str]]:
    """node -> ids of the fabricated claims it introduced."""
    out: dict[str, list[str]] = {}
    for claim in claims:
        if _is_fabrication(claim):
            out.setdefault(claim.introduced_by or "", []).append(claim.id)
    return {k: sorted(v) for k, v in sorted(out.items())}


def _render_document(tid: str, document: str, claims: Sequence[ClaimRecord]) -> str:
    parts: list[str] = []
    pos = 0
    for claim in sorted(claims, key=lambda c: (c.start, c.id)):
        if claim.start < pos or claim.end > len(document) or claim.end <= claim.start:
            continue  # overlapping or out of range: listed in the chain panel, not highlighted twice
        sym, label, _ = VERDICT_LEGEND[claim.verdict]
        parts.append(_e(document[pos:claim.start]))
        cid = f"{tid}-{claim.id}"
        parts.append(
            f'<span class="claim v-{claim.verdict.value}" id="claim-{_e(cid)}" data-claim="{_e(claim.id)}" '
            f'role="button" tabindex="0" aria-pressed="false" aria-controls="chain-{_e(cid)}" '
            f'title="{_e(claim.id)}: {_e(label)}">{_e(document[claim.start:claim.end])}'
            f'<span class="tag v-{claim.verdict.value}">{_e(sym)} {_e(label)}</span></span>'
        )
        pos = claim.end
    parts.append(_e(document[pos:]))
    return "".join(parts)


def _node_label(node: str) -> str:
    return {INPUT_NODE: "user input", REPORT_NODE: "final report"}.get(node, node)


def _introducer(node: str, round_: int | None) -> str:
    return with_round(_node_label(node), round_)


def _render_chain(tid: str, chain: EvidenceChain, claim: ClaimRecord | None,
                  excerpts: dict[str, FileExcerpt]) -> str:
    cid = f"{tid}-{chain.claim_id}"
    needles = _needles(claim)
    meta = [f"{len(chain.links)} link(s)",
            "reaches raw data" if chain.reaches_raw_data else "does not reach raw data"]
    if claim is not None and claim.formula:
        meta.append(f"formula: {claim.formula}")
    body = [
        f'<div class="chain" id="chain-{_e(cid)}" data-claim="{_e(chain.claim_id)}" hidden>',
        f"<h4>{_e(chain.claim_id)} {_verdict_badge(chain.verdict)}</h4>",
        f'<p class="claim-text">\u201c{_e(chain.claim)}\u201d</p>',
        f'<p class="meta">{_e(SEP.join(meta))}</p>',
    ]
    if chain.introduced_by and chain.verdict not in COVERED_VERDICTS:
        body.append(f'<p class="origin-note">{ORIGIN_MARK} introduced by node '
                    f"<b>{_e(_introducer(chain.introduced_by, chain.introduced_round))}</b>: its inputs do not hold "
                    "this content</p>")
    body.append('<ol class="links">')
    for link in chain.links:
        body.append(_render_link(link, excerpts.get(link.file), needles))
    body.append("</ol>")
    shown = {(lk.file, lk.line) for lk in chain.links}
    extra = [ev for ev in (claim.evidence if claim else []) if (ev.file, ev.line) not in shown]
    if extra:
        body.append("<h4>Also found in the raw data</h4><ol class=\"links\">")
        for ev in sorted(extra, key=lambda e: (e.file, e.line, e.offset)):
            body.append(_render_link(
                ChainLink(node=ev.node, file=ev.file, line=ev.line, text=ev.text, kind="tool_call"),
                excerpts.get(ev.file), needles, kind=(excerpts[ev.file].kind if ev.file in excerpts else "")))
        body.append("</ol>")
    if claim is not None and claim.notes:
        body.append("".join(f'<p class="meta">note: {_e(n)}</p>' for n in claim.notes))
    body.append("</div>")
    return "".join(body)


def _needles(claim: ClaimRecord | None) -> list[str]:
    """Texts to mark inside the excerpt lines: the evidence itself, else the claim's figures and quotes."""
    if claim is None:
        return []
    texts = {piece.strip() for ev in claim.evidence for piece in ev.text.split("\n")}
    texts |= {q.text for q in claim.quantities} | {q.text for q in claim.quotes}
    return sorted((t for t in texts if len(t) >= 2), key=lambda t: (-len(t), t))


def _render_link(link: ChainLink, excerpt: FileExcerpt | None, needles: list[str], *, kind: str | None = None) -> str:
    kind = kind if kind is not None else link.kind
    raw = kind in RAW_FILE_KINDS
    tool = f" \u00b7 tool {excerpt.tool}" if excerpt is not None and excerpt.tool else ""
    head = (
        f'<li data-node="{_e(link.node)}"><div class="link-head"><span class="node">{_e(_node_label(hop_name(link)))}'
        f'</span> \u00b7 {_e(kind or "?")}{_e(tool)} \u00b7 <span class="file">{_e(link.file)}:{link.line}</span>'
        + ('<span class="raw-label">raw tool output</span>' if raw and kind != "input" else "")
        + ('<span class="raw-label">user input</span>' if kind == "input" else "")
        + "</div>"
    )
    if link.kind == "report":
        return head + f'<div class="link-text">final document, line {link.line}</div></li>'
    if excerpt is None:
        return head + f'<div class="link-text">{_e(link.text)} <i>(file not available)</i></div></li>'
    last = link.line + link.text.count(" / ")
    shown = [ln for ln in excerpt.lines if link.line - CONTEXT_LINES <= ln.n <= last + CONTEXT_LINES]
    lines = []
    for ln in shown:
        hit = link.line <= ln.n <= last
        text = _mark(ln.text, needles) if hit else _e(ln.text)
        lines.append(f'<span class="ln{" hit" if hit else ""}" data-n="{ln.n}">{text}</span>')
    return head + f'<pre class="excerpt">{"".join(lines)}</pre></li>'


def _mark(text: str, needles: list[str]) -> str:
    """Escape `text` with every occurrence of the needles wrapped in <mark> (longest first, no overlap)."""
    spans: list[tuple[int, int]] = []
    for needle in needles:
        start = text.find(needle)
        while start != -1:
            end = start + len(needle)
            if all(end <= a or start >= b for a, b in spans):
                spans.append((start, end))
            start = text.find(needle, end)
    out, pos = [], 0
    for a, b in sorted(spans):
        out.append(_e(text[pos:a]) + f"<mark>{_e(text[a:b])}</mark>")
        pos = b
    out.append(_e(text[pos:]))
    return "".join(out)


# --------------------------------------------------------------------------------------------------
# topology: longest-path layers, left to right


BOX_W, BOX_H, GAP_X, GAP_Y, PAD = 168, 50, 52, 26, 14


def layout(nodes: Sequence[str], edges: Sequence[tuple[str, str]]) -> tuple[dict[str, tuple[int, int]], set[tuple[str, str]]]:
    """(layer, row) per node and the set of back edges; deterministic for the same input.

    Cycles (agent <-> tools loops) are broken by a depth-first search in sorted order; the remaining
    graph is layered by longest path from its sources and rows follow the predecessors' rows."""
    names = sorted(set(nodes) | {n for e in edges for n in e})
    succ: dict[str, list[str]] = {n: [] for n in names}
    for a, b in sorted(set(edges)):
        succ[a].append(b)
    indeg = {n: 0 for n in names}
    for a, b in set(edges):
        indeg[b] += 1
    back: set[tuple[str, str]] = set()
    state: dict[str, int] = {}
    for root in [n for n in names if indeg[n] == 0] + names:
        if root in state:
            continue
        stack = [(root, iter(succ[root]))]
        state[root] = 1
        while stack:
            node, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                state[node] = 2
                stack.pop()
            elif state.get(nxt) == 1:
                back.add((node, nxt))
            elif nxt not in state:
                state[nxt] = 1
                stack.append((nxt, iter(succ[nxt])))
    forward = sorted(e for e in set(edges) if e not in back and e[0] != e[1])
    preds: dict[str, list[str]] = {n: [] for n in names}
    remaining = {n: 0 for n in names}
    for a, b in forward:
        preds[b].append(a)
        remaining[b] += 1
    layer = {n: 0 for n in names}
    ready = sorted(n for n in names if remaining[n] == 0)
    order: list[str] = []
    while ready:
        node = ready.pop(0)
        order.append(node)
        for b in (b for a, b in forward if a == node):
            layer[b] = max(layer[b], layer[node] + 1)
            remaining[b] -= 1
            if remaining[b] == 0:
                ready.append(b)
                ready.sort()
    rows: dict[str, int] = {}
    for depth in range(max(layer.values(), default=-1) + 1):
        members = [n for n in names if layer[n] == depth]

        def key(n: str) -> tuple[float, str]:
            placed = [rows[p] for p in preds[n] if p in rows]
            return (sum(placed) / len(placed) if placed else 0.0, n)

        for i, n in enumerate(sorted(members, key=key)):
            rows[n] = i
    return {n: (layer[n], rows[n]) for n in names}, back


def _short(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


def _origin_ids(ids: Sequence[str], tid: str | None, shown: int = 3) -> str:
    """`c003, c004 +2` inside an SVG text: with `tid`, each id links to (and selects) its claim."""
    parts = []
    for cid in ids[:shown]:
        target = f"claim-{tid}-{cid}"
        parts.append(f'<a href="#{_e(target)}" data-select="{_e(target)}" class="claim-link"><tspan>{_e(cid)}</tspan></a>'
                     if tid else _e(cid))
    rest = f" +{len(ids) - shown}" if len(ids) > shown else ""
    return ", ".join(parts) + rest


def render_topology(detail: TestDetail, origins: dict[str, list[str]], *, tid: str | None = None) -> str:
    """The run's nodes and who fed whom as inline SVG; nodes that introduced a fabrication are marked,
    and with the section id `tid` each claim id of the mark is a link that selects that claim."""
    info = {n.name: n for n in detail.nodes}
    names = [n.name for n in detail.nodes]
    edges = list(detail.edges)
    sinks = [detail.final_node] if detail.final_node else []
    if not sinks:
        fed = {a for a, _ in edges}
        sinks = [n for n in names if n not in fed and n != INPUT_NODE]
    edges += [(s, REPORT_NODE) for s in sinks]
    names.append(REPORT_NODE)
    for origin in origins:
        if origin not in names:
            names.append(origin)
    pos, back = layout(names, edges)
    layers = max((p[0] for p in pos.values()), default=0) + 1
    rows = max((p[1] for p in pos.values()), default=0) + 1
    width = PAD * 2 + layers * (BOX_W + GAP_X) - GAP_X
    height = PAD * 2 + rows * (BOX_H + GAP_Y) - GAP_Y + 14

    def xy(n: str) -> tuple[int, int]:
        layer, row = pos[n]
        return PAD + layer * (BOX_W + GAP_X), PAD + 14 + row * (BOX_H + GAP_Y)

    out = [
        f'<svg viewBox="0 0 {width} {height}" role="img" '
        f'aria-label="topology: {len(pos)} nodes, {len(set(edges))} edges">',
        '<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" '
        'orient="auto-start-reverse"><path class="arrowhead" d="M0,0 L10,5 L0,10 z"/></marker></defs>',
    ]
    for a, b in sorted(set(edges)):
        ax, ay = xy(a)
        bx, by = xy(b)
        if (a, b) in back or a == b:
            # Loops are drawn under the boxes so they never cross a forward edge's path.
            x1, y1, x2, y2 = ax + BOX_W // 2, ay + BOX_H, bx + BOX_W // 2, by + BOX_H
            d = f"M{x1},{y1} C{x1},{y1 + 30} {x2},{y2 + 30} {x2},{y2 + 2}"
            cls = "tedge back"
        else:
            x1, y1, x2, y2 = ax + BOX_W, ay + BOX_H // 2, bx, by + BOX_H // 2
            mid = (x1 + x2) // 2
            d = f"M{x1},{y1} C{mid},{y1} {mid},{y2} {x2 - 2},{y2}"
            cls = "tedge"
        out.append(f'<path class="{cls}" d="{d}" marker-end="url(#arrow)"><title>{_e(a)} \u2192 {_e(b)}</title></path>')
    for name in sorted(pos):
        x, y = xy(name)
        node = info.get(name)
        kind = "input" if name == INPUT_NODE else "report" if name == REPORT_NODE else (node.kind if node else "node")
        classes = f"tnode k-{_e(kind)}" + (" origin" if name in origins else "")
        sub = []
        if node is not None and name != INPUT_NODE:
            sub.append(node.kind if node.capture_level == "instrumented" else f"{node.kind} \u00b7 {node.capture_level}")
            if node.rounds > 1:
                sub.append(f"\u00d7{node.rounds} rounds")
        tools = ", ".join(node.tools) if node is not None else ""
        title = [name] + ([f"capture {node.capture_level}, trust cap {node.trust_cap}"] if node else [])
        title += [f"tools: {tools}"] if tools else []
        title += [f"introduced fabricated claim(s): {', '.join(origins[name])}"] if name in origins else []
        out.append(
            f'<g class="{classes}" data-node="{_e(name)}"><title>{_e("; ".join(title))}</title>'
            f'<rect x="{x}" y="{y}" width="{BOX_W}" height="{BOX_H}" rx="5"/>'
            f'<text x="{x + 8}" y="{y + 16}">{_e(_short(_node_label(name), 24))}</text>'
            f'<text class="sub" x="{x + 8}" y="{y + 30}">{_e(_short(" ".join(sub), 30))}</text>'
            + (f'<text class="sub" x="{x + 8}" y="{y + 43}">{_e(_short("tools: " + tools, 30))}</text>' if tools else "")
            + (f'<text class="mark" x="{x}" y="{y - 4}">{ORIGIN_MARK} introduced '
               f'{_origin_ids(origins[name], tid)}</text>' if name in origins else "")
            + "</g>"
        )
    out.append("</svg>")
    return "".join(out)
