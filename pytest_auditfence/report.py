"""The session report: per-test entries, byte-stable JSON, markdown and terminal lines, xdist merge.

Also owns the baseline comparison (the CI gate). Knows nothing of pytest; the plugin feeds it data.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from pytest_auditfence.errors import AuditFenceError
from pytest_auditfence.models import ClaimRecord, EvidenceChain, Ratio, Verdict, with_round

REPORT_SCHEMA_VERSION = 1
Outcome = Literal["pass", "fail", "audit-error", "report-only"]
OUTCOMES: tuple[str, ...] = ("pass", "fail", "audit-error", "report-only")
NO_FIGURE = "\u2013"  # what a figure that was not measured (or has a zero denominator) prints as


class ReportError(AuditFenceError):
    """A report or baseline file is missing, unreadable, of another schema version, or inconsistent."""


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ClaimSummary(_Model):
    id: str
    claim: str
    verdict: Verdict
    introduced_by: str | None = None
    introduced_round: int | None = Field(default=None, description="which round of `introduced_by` (1 = first)")

    @property
    def introducer(self) -> str:
        """`draft (round 1)`, as the failure message and the chain golden files name it."""
        return with_round(self.introduced_by, self.introduced_round) if self.introduced_by else "unknown"


class ExcerptLine(_Model):
    n: int = Field(ge=1, description="line number in the captured file")
    text: str


class FileExcerpt(_Model):
    """The lines of one captured file that an evidence chain points at, with a few around them."""

    file: str = Field(description="path relative to the trace folder")
    node: str
    kind: str
    tool: str | None = None
    lines: list[ExcerptLine] = Field(default_factory=list, description="sparse, sorted by line number")


class TopologyNode(_Model):
    name: str
    kind: str = "node"
    capture_level: str = "instrumented"
    trust_cap: float = 1.0
    rounds: int = 1
    parent: str | None = None
    tools: list[str] = Field(default_factory=list)


class TestDetail(_Model):
    """What the HTML page shows of one audited run beyond the figures: the document, each claim and its
    chain, the excerpts the chains point at, and the topology. Never written to the JSON report."""

    __test__ = False

    source: str = Field(description="name of the trace folder (never an absolute path)")
    document: str
    claims: list[ClaimRecord] = Field(default_factory=list)
    chains: list[EvidenceChain] = Field(default_factory=list)
    excerpts: list[FileExcerpt] = Field(default_factory=list)
    nodes: list[TopologyNode] = Field(default_factory=list)
    edges: list[tuple[str, str]] = Field(default_factory=list)
    final_node: str | None = None
    passport: str | None = None


class TestEntry(_Model):
    """One fenced test: what it demanded, what it measured (with inputs), and the outcome."""

    __test__ = False  # not a pytest test class despite the name

    nodeid: str
    outcome: Outcome
    thresholds: dict[str, Any] = Field(default_factory=dict)
    coverage: Ratio | None = None
    hallucinations: Ratio | None = None
    claims: list[ClaimSummary] = Field(default_factory=list)
    shortfalls: list[str] = Field(default_factory=list)
    errors: list[str] = Field(default_factory=list)
    # Filled only when an HTML page is asked for; travels from xdist workers, stays out of the JSON report.
    detail: TestDetail | None = None

    @classmethod
    def from_claims(
        cls,
        nodeid: str,
        outcome: Outcome,
        *,
        thresholds: dict[str, Any],
        coverage: Ratio | None,
        hallucinations: Ratio | None,
        claims: Iterable[ClaimRecord],
        shortfalls: Sequence[str] = (),
        errors: Sequence[str] = (),
    ) -> TestEntry:
        summaries = [
            ClaimSummary(id=c.id, claim=c.claim, verdict=c.verdict, introduced_by=c.introduced_by,
                         introduced_round=c.introduced_round if c.introduced_by else None)
            for c in claims
        ]
        return cls(
            nodeid=nodeid,
            outcome=outcome,
            thresholds=thresholds,
            coverage=coverage,
            hallucinations=hallucinations,
            claims=sorted(summaries, key=lambda s: s.id),
            shortfalls=list(shortfalls),
            errors=list(errors),
        )

    def one_line(self) -> str:
        cov, hal = _ratio(self.coverage), _ratio(self.hallucinations)
        return f"{self.outcome.upper():<12} {self.nodeid}  coverage {cov}  hallucinations {hal}"


def _dump(data: Any) -> str:
    return json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


class FenceReport(_Model):
    """What `--fence-report` writes: schema-versioned, sorted by node id, byte-stable."""

    schema_version: int = REPORT_SCHEMA_VERSION
    complete: bool = True
    problems: list[str] = Field(default_factory=list, description="why the report is incomplete, if it is")
    tests: list[TestEntry] = Field(default_factory=list)

    @classmethod
    def merge(cls, entries: Iterable[TestEntry], *, problems: Sequence[str] = ()) -> FenceReport:
        """One report from fragments (one per test, from any worker); a node id seen twice fails closed."""
        by_id: dict[str, TestEntry] = {}
        dupes: list[str] = []
        for entry in entries:
            if entry.nodeid in by_id and by_id[entry.nodeid] != entry:
                dupes.append(entry.nodeid)
            by_id[entry.nodeid] = entry
        all_problems = sorted(
            {*problems, *(f"{n}: two different results were received for this test" for n in dupes)}
        )
        return cls(
            complete=not all_problems,
            problems=all_problems,
            tests=[by_id[k] for k in sorted(by_id)],
        )

    def entry(self, nodeid: str) -> TestEntry | None:
        for e in self.tests:
            if e.nodeid == nodeid:
                return e
        return None

    def counts(self) -> dict[str, int]:
        counts = dict.fromkeys(OUTCOMES, 0)
        for e in self.tests:
            counts[e.outcome] += 1
        return counts

    def failed(self) -> bool:
        return not self.complete or any(e.outcome in ("fail", "audit-error") for e in self.tests)

    def to_json(self) -> str:
        # The page detail (document, excerpts) would bloat committed baselines; the JSON keeps the figures.
        return _dump(self.model_dump(mode="json", exclude={"tests": {"__all__": {"detail"}}}))

    @classmethod
    def from_json(cls, text: str, *, source: str = "report") -> FenceReport:
        try:
            raw = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ReportError(
                f"{source}: not valid JSON ({exc}); regenerate it with --fence-report or --fence-update-baseline"
            ) from exc
        version = raw.get("schema_version") if isinstance(raw, dict) else None
        if version != REPORT_SCHEMA_VERSION:
            raise ReportError(
                f"{source}: schema_version {version!r}, this pytest-auditfence reads {REPORT_SCHEMA_VERSION}; "
                f"regenerate it with --fence-update-baseline"
            )
        try:
            return cls.model_validate(raw)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"])
            raise ReportError(
                f"{source}: invalid at '{where}': {first['msg']}; regenerate it with --fence-update-baseline"
            ) from exc

    @classmethod
    def read(cls, path: str | Path) -> FenceReport:
        path = Path(path)
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise ReportError(
                f"baseline {path} does not exist; create it with: pytest --fence-baseline={path} "
                f"--fence-update-baseline"
            ) from None
        except OSError as exc:
            raise ReportError(f"baseline {path} is not readable ({exc})") from exc
        return cls.from_json(text, source=str(path))

    def write(self, path: str | Path) -> None:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(self.to_json(), encoding="utf-8")

    def lines(self) -> list[str]:
        """Terminal summary: one line per fenced test, then totals; nothing when no test was fenced."""
        if not self.tests and self.complete:
            return []
        out = [e.one_line() for e in self.tests]
        counts = self.counts()
        out.append(
            f"{len(self.tests)} fenced test(s): "
            + ", ".join(f"{counts[o]} {o}" for o in OUTCOMES)
        )
        out.extend(f"INCOMPLETE REPORT: {p}" for p in self.problems)
        return out

    def markdown(self, comparison: BaselineComparison | None = None, *, gate_error: str | None = None) -> str:
        """A table for CI step summaries (GitHub's $GITHUB_STEP_SUMMARY); with the baseline comparison,
        the totals say whether the gate failed and the regressions name their new claims."""
        rows = ["## auditfence", "", "| test | outcome | coverage | hallucinations |", "|---|---|---|---|"]
        for e in self.tests:
            cov, hal = _ratio(e.coverage), _ratio(e.hallucinations)
            rows.append(f"| `{_md_cell(e.nodeid)}` | {e.outcome} | {cov} | {hal} |")
        counts = self.counts()
        totals = ", ".join(f"{counts[o]} {o}" for o in OUTCOMES)
        gate_failed = gate_error is not None or (comparison is not None and bool(comparison.regressions))
        if gate_failed:
            totals += " - baseline gate FAILED"
        rows += ["", f"**{totals}**"]
        if gate_error is not None:
            rows += ["", f"**baseline gate FAILED**: {_md_cell(gate_error)}"]
        elif comparison is not None:
            rows += ["", *comparison.markdown()]
        for p in self.problems:
            rows.append(f"\n> incomplete report: {_md_cell(p)}")
        return "\n".join(rows) + "\n"


def _md_cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


HALLUCINATED = frozenset({Verdict.CONTRADICTED, Verdict.UNSUPPORTED, Verdict.MISATTRIBUTED})


class BaselineRow(_Model):
    nodeid: str
    status: Literal["regressed", "improved", "same", "new", "not-run", "no-result"]
    coverage_before: Ratio | None = None
    coverage_after: Ratio | None = None
    hallucinations_before: Ratio | None = None
    hallucinations_after: Ratio | None = None
    new_claims: list[ClaimSummary] = Field(
        default_factory=list, description="claims hallucinated now whose text the baseline did not hallucinate")

    def claim_lines(self, indent: str = "  ") -> list[str]:
        """One line per newly hallucinated claim, naming the test, the claim and the node that wrote it."""
        return [f"{indent}{self.nodeid}: new {c.verdict.value} claim {c.id} \"{c.claim}\" "
                f"(introduced by {c.introducer})" for c in self.new_claims]

    @property
    def fails(self) -> bool:
        return self.status in ("regressed", "no-result")


class BaselineComparison(_Model):
    baseline: str
    rows: list[BaselineRow] = Field(default_factory=list)

    @property
    def regressions(self) -> list[BaselineRow]:
        return [r for r in self.rows if r.fails]

    def lines(self) -> list[str]:
        """A table of deltas; only rows that changed or fail, so a clean gate prints one line."""
        shown = [r for r in self.rows if r.status != "same"]
        if not self.regressions:
            head = f"fence baseline {self.baseline}: no regression ({len(self.rows)} test(s) compared)"
        else:
            head = f"fence baseline {self.baseline}: {len(self.regressions)} regression(s) - the session fails"
        if not shown:
            return [head]
        table = [("status", "test", "coverage before -> after", "hallucinations before -> after")]
        for r in shown:
            table.append(
                (
                    r.status,
                    r.nodeid,
                    f"{_ratio(r.coverage_before)} -> {_ratio(r.coverage_after)}",
                    f"{_ratio(r.hallucinations_before)} -> {_ratio(r.hallucinations_after)}",
                )
            )
        widths = [max(len(row[i]) for row in table) for i in range(4)]
        rows = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in table]
        return [head, *rows, *(line for r in self.regressions for line in r.claim_lines())]

    def markdown(self) -> list[str]:
        """The gate's section of the markdown summary: its verdict, the regressed tests and their new claims."""
        if not self.regressions:
            return [f"**baseline gate passed**: no regression against `{_md_cell(self.baseline)}` "
                    f"({len(self.rows)} test(s) compared)"]
        out = [f"**baseline gate FAILED**: {len(self.regressions)} regression(s) against "
               f"`{_md_cell(self.baseline)}` - the session fails", "",
               "| test | status | coverage before -> after | hallucinations before -> after |", "|---|---|---|---|"]
        for r in self.regressions:
            out.append(f"| `{_md_cell(r.nodeid)}` | {r.status} | {_ratio(r.coverage_before)} -> "
                       f"{_ratio(r.coverage_after)} | {_ratio(r.hallucinations_before)} -> "
                       f"{_ratio(r.hallucinations_after)} |")
        claims = [f"- `{_md_cell(r.nodeid)}`: new {c.verdict.value} claim {c.id} \"{_md_cell(c.claim)}\" "
                  f"(introduced by `{c.introducer}`)" for r in self.regressions for c in r.new_claims]
        return out + ([""] + claims if claims else [])


def _ratio(r: Ratio | None) -> str:
    return str(r) if r is not None else NO_FIGURE


def compare_to_baseline(
    current: FenceReport, baseline: FenceReport, *, ran: Iterable[str], baseline_name: str = "baseline"
) -> BaselineComparison:
    """Per test: coverage dropping or hallucinations rising is a regression; a baseline test that ran
    in this session without a fence result fails closed; one that did not run is listed, not judged."""
    ran_ids = set(ran)
    rows: list[BaselineRow] = []
    for before in baseline.tests:
        after = current.entry(before.nodeid)
        if after is None:
            status = "no-result" if before.nodeid in ran_ids else "not-run"
            rows.append(
                BaselineRow(
                    nodeid=before.nodeid,
                    status=status,
                    coverage_before=before.coverage,
                    hallucinations_before=before.hallucinations,
                )
            )
            continue
        rows.append(_compare_entry(before, after))
    known = {b.nodeid for b in baseline.tests}
    for after in current.tests:
        if after.nodeid not in known:
            rows.append(
                BaselineRow(
                    nodeid=after.nodeid,
                    status="new",
                    coverage_after=after.coverage,
                    hallucinations_after=after.hallucinations,
                )
            )
    return BaselineComparison(baseline=baseline_name, rows=sorted(rows, key=lambda r: r.nodeid))


def _compare_entry(before: TestEntry, after: TestEntry) -> BaselineRow:
    row = BaselineRow(
        nodeid=after.nodeid,
        status="same",
        coverage_before=before.coverage,
        coverage_after=after.coverage,
        hallucinations_before=before.hallucinations,
        hallucinations_after=after.hallucinations,
    )
    if after.coverage is None or after.hallucinations is None:
        if before.coverage is not None or before.hallucinations is not None:
            row.status = "no-result"
        return row
    if before.coverage is None or before.hallucinations is None:
        row.status = "improved"
        return row
    worse = (
        after.coverage.value < before.coverage.value
        or after.hallucinations.numerator > before.hallucinations.numerator
    )
    better = (
        after.coverage.value > before.coverage.value
        or after.hallucinations.numerator < before.hallucinations.numerator
    )
    row.status = "regressed" if worse else "improved" if better else "same"
    if worse:
        # Claim ids follow document order and shift when a sentence is added; the text is what identifies one.
        known = {" ".join(c.claim.split()) for c in before.claims if c.verdict in HALLUCINATED}
        row.new_claims = [c for c in after.claims if c.verdict in HALLUCINATED and " ".join(c.claim.split()) not in known]
    return row
