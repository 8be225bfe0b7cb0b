"""The `auditfence` command: audit a captured trace folder, show its topology, diff two fence reports.

Exit statuses are for CI: 0 pass, 1 shortfall or regression, 2 usage or input error, 3 audit error.
"""

from __future__ import annotations

import argparse
import math
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from pytest_auditfence.errors import AuditError, AuditFenceError, IncompleteCaptureError, ManifestError
from pytest_auditfence.manifest import MANIFEST_NAME, Manifest

EXIT_PASS = 0
EXIT_SHORTFALL = 1
EXIT_USAGE = 2
EXIT_AUDIT_ERROR = 3
PROG = "auditfence"


class _InputError(Exception):
    """A file or folder named on the command line cannot be used (exit 2)."""


# -- argument types ----------------------------------------------------------------------------------


def _fraction(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(
            f"expected a fraction from 0.0 to 1.0 (e.g. --min-coverage 0.95 for 95%), got {text!r}"
        )
    return value


def _count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(
            f"expected a whole number of claims, 0 or more (e.g. --max-hallucinations 0), got {text!r}"
        )
    return value


def build_parser() -> argparse.ArgumentParser:
    from pytest_auditfence import __version__
    from pytest_auditfence.settings import DEFAULTS

    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Claim-to-source traceability of captured LangGraph runs (pytest-auditfence).",
        epilog="exit status: 0 pass, 1 shortfall or regression, 2 usage or input error, 3 audit error",
    )
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__} (pytest-auditfence)")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    audit = commands.add_parser(
        "audit", help="audit a trace folder's final document against its captured data",
        description="Trace every claim of the final document to the raw data of a captured run.",
    )
    audit.add_argument("trace_dir", metavar="TRACE_DIR", help="folder a Snapshot captured into")
    audit.add_argument("--document", metavar="FILE",
                       help="the document to audit (default: the report recorded in the trace)")
    audit.add_argument("--json", metavar="OUT", help="write the result as a fence report (JSON) to OUT")
    audit.add_argument("--html", metavar="OUT", help="write the self-contained evidence page to OUT")
    audit.add_argument("--min-coverage", type=_fraction, default=DEFAULTS.min_coverage, metavar="X",
                       help=f"lowest passing coverage, 0.0-1.0 (default {DEFAULTS.min_coverage})")
    audit.add_argument("--max-hallucinations", type=_count, default=DEFAULTS.max_hallucinations, metavar="N",
                       help=f"most hallucinated claims that still pass (default {DEFAULTS.max_hallucinations})")
    audit.add_argument("--name", metavar="NAME",
                       help="the run's id in the JSON/HTML report (default: the trace folder's name); "
                            "keep it stable to compare runs with auditfence diff")
    audit.add_argument("--progress", action="store_true",
                       help="report progress on stderr even when it is not a terminal")

    show = commands.add_parser("show", help="show a trace folder's nodes, edges, rounds and completeness")
    show.add_argument("trace_dir", metavar="TRACE_DIR", help="folder a Snapshot captured into")

    diff = commands.add_parser("diff", help="compare a fence report with a baseline; exit 1 on any regression")
    diff.add_argument("baseline", metavar="BASELINE", help="the committed fence report (JSON)")
    diff.add_argument("report", metavar="REPORT", help="this run's fence report (JSON)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    args = build_parser().parse_args(argv)
    try:
        if args.command == "audit":
            return _audit(args)
        if args.command == "show":
            return _show(args)
        return _diff(args)
    except (_InputError, ManifestError) as exc:
        _err(str(exc))
        return EXIT_USAGE


def _err(message: str) -> None:
    print(f"{PROG}: error: {message}", file=sys.stderr)


# -- inputs --------------------------------------------------------------------------------------------


def _trace_manifest(trace_dir: str) -> tuple[Path, Manifest]:
    from pytest_auditfence.manifest import load_manifest

    path = Path(trace_dir)
    if not path.exists():
        raise _InputError(
            f"TRACE_DIR {trace_dir}: no such folder. Pass the folder a Snapshot captured into "
            f"(e.g. one that pytest --fence-trace-dir=DIR kept, DIR/<test id>)."
        )
    if not path.is_dir():
        raise _InputError(f"TRACE_DIR {trace_dir}: not a folder. Pass the trace folder that holds {MANIFEST_NAME}.")
    return path, load_manifest(path)


def _read_text(path_text: str, what: str, fix: str) -> str:
    path = Path(path_text)
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise _InputError(f"{what} {path_text}: no such file. {fix}") from None
    except IsADirectoryError:
        raise _InputError(f"{what} {path_text}: is a folder, not a file. {fix}") from None
    except UnicodeDecodeError as exc:
        raise _InputError(f"{what} {path_text}: not UTF-8 text ({exc.reason}). {fix}") from None
    except OSError as exc:
        raise _InputError(f"{what} {path_text}: cannot be read ({exc.strerror}). {fix}") from None


def _write_text(path_text: str, what: str, text: str) -> None:
    path = Path(path_text)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8", newline="\n")
    except OSError as exc:
        raise _InputError(f"{what} {path_text}: cannot be written ({exc.strerror}); choose a writable path") from None


# -- audit ---------------------------------------------------------------------------------------------


class _Progress:
    """Progress of one audit on stderr: a ticking line on a terminal, plain lines with --progress."""

    def __init__(self, stream: TextIO, *, forced: bool) -> None:
        self.stream = stream
        self.tty = stream.isatty()
        self.enabled = forced or self.tty
        self.started = time.monotonic()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._label = ""

    def say(self, line: str) -> None:
        if self.enabled:
            print(f"{PROG}: {line}", file=self.stream, flush=True)

    def start(self, label: str) -> None:
        self._label = label
        self.started = time.monotonic()
        self.say(label)
        if self.tty:
            self._thread = threading.Thread(target=self._tick, name="auditfence-progress", daemon=True)
            self._thread.start()

    def _tick(self) -> None:
        # Quiet for the first second: a short audit should not flicker.
        while not self._stop.wait(0.25):
            elapsed = time.monotonic() - self.started
            if elapsed >= 1.0:
                self.stream.write(f"\r{PROG}: {self._label} {elapsed:5.1f}s")
                self.stream.flush()

    def stop(self, line: str) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self.stream.write("\r\033[K")
        self.say(f"{line} in {time.monotonic() - self.started:.2f}s")


def _audit(args: argparse.Namespace) -> int:
    from pytest_auditfence.audit.cascade import audit_cascade_sync
    from pytest_auditfence.claims.extract import extract_claims

    trace_dir, manifest = _trace_manifest(args.trace_dir)
    if args.document is not None:
        document = _read_text(args.document, "--document", "Pass the final document (a text or markdown file).")
        doc_name = args.document
    elif manifest.report:
        from pytest_auditfence.capturing.tracefiles import read_trace_text

        try:
            document = read_trace_text(trace_dir, manifest.report)
        except OSError as exc:
            raise _InputError(f"{trace_dir / manifest.report} (recorded report): cannot be read "
                              f"({exc.strerror or exc}). Capture the run again, or pass --document FILE.") from exc
        doc_name = manifest.report
    else:
        raise _InputError(
            f"TRACE_DIR {args.trace_dir}: the capture recorded no final document (snapshot.set_report was "
            f"not called). Pass the document to audit with --document FILE."
        )
    progress = _Progress(sys.stderr, forced=args.progress)
    progress.start(f"auditing {len(extract_claims(document))} claim(s) of {doc_name} over "
                   f"{len(manifest.nodes)} node(s)")
    try:
        cascade = audit_cascade_sync(manifest=manifest, trace_dir=trace_dir, final_document=document)
    except ManifestError:
        raise
    except IncompleteCaptureError as exc:
        _err(f"incomplete capture: {exc}")
        return EXIT_AUDIT_ERROR
    except AuditFenceError as exc:
        _err(f"audit error: {exc}")
        return EXIT_AUDIT_ERROR
    except Exception as exc:  # fail closed: an audit that broke is never a pass
        _err(f"audit error ({type(exc).__name__}): {exc}")
        return EXIT_AUDIT_ERROR
    finally:
        progress.stop("audit finished")
    if not cascade.complete:
        _err(f"audit incomplete: {'; '.join(cascade.errors) or 'no reason given'}")
        return EXIT_AUDIT_ERROR
    return _judge(args, cascade, trace_dir, manifest, document, progress)


def _judge(args: argparse.Namespace, cascade: object, trace_dir: Path, manifest: Manifest, document: str,
           progress: _Progress) -> int:
    from pytest_auditfence.assertions import render_cascade_failure
    from pytest_auditfence.html import entry_for_cascade, render_html
    from pytest_auditfence.report import FenceReport

    try:
        entry = entry_for_cascade(
            cascade, name=args.name or trace_dir.resolve().name, trace_dir=trace_dir, manifest=manifest, document=document,
            min_coverage=args.min_coverage, max_hallucinations=args.max_hallucinations,  # type: ignore[arg-type]
            detail=bool(args.html),
        )
    except AuditError as exc:
        _err(f"audit error: {exc}")
        return EXIT_AUDIT_ERROR
    report = FenceReport.merge([entry])
    print(entry.one_line())
    print(cascade.passport.statement)  # type: ignore[attr-defined]
    if entry.shortfalls:
        print(render_cascade_failure(cascade, entry.shortfalls, max_claims=None))  # every failing claim
    if args.json:
        _write_text(args.json, "--json", report.to_json())
        print(f"json report: {args.json}")
    if args.html:
        progress.say(f"writing {args.html}")
        _write_text(args.html, "--html", render_html(report))
        print(f"html report: {args.html}")
    return EXIT_SHORTFALL if entry.shortfalls else EXIT_PASS


# -- show ----------------------------------------------------------------------------------------------


def _table(rows: list[tuple[str, ...]], indent: str = "  ") -> list[str]:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return [indent + "  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]


def _show(args: argparse.Namespace) -> int:
    trace_dir, m = _trace_manifest(args.trace_dir)
    status = "complete" if m.complete else f"INCOMPLETE: {m.incomplete_reason or 'the run raised or events were lost'}"
    lines = [f"trace {trace_dir.resolve().name}: {status}", f"nodes ({len(m.nodes)}):"]
    rows = [("name", "kind", "capture", "trust cap", "rounds", "parent", "files")]
    for n in sorted(m.nodes, key=lambda n: n.name):
        rows.append((n.name, n.kind, n.capture_level.value, f"{n.trust_cap:.2f}", str(n.rounds),
                     n.parent or "-", str(len(n.files))))
    lines += _table(rows)
    lines.append(f"edges ({len(m.edges)}):")
    lines += [f"  {a} -> {b}" for a, b in sorted(m.edges)] or ["  (none)"]
    lines.append(f"entry nodes: {', '.join(m.entry_nodes) or '(none)'}")
    lines.append(f"final node: {m.final_node or '(none)'}")
    if m.rounds:
        lines.append("repeated nodes: " + ", ".join(f"{k} x{v}" for k, v in sorted(m.rounds.items())))
    for node, deps in sorted(m.declared_dependencies.items()):
        lines.append(f"declared: {node} <- {', '.join(deps)}")
    tools = sorted({(f.node, f.tool) for f in m.files if f.kind == "tool_call" and f.tool})
    lines.append(f"tool calls: {sum(1 for f in m.files if f.kind == 'tool_call')}"
                 + (f" ({', '.join(f'{n}:{t}' for n, t in tools)})" if tools else ""))
    gaps = ", ".join(f"{a}-{b}" for a, b in m.journal.gaps) or "none"
    lines.append(f"journal: {m.journal.events} event(s), gaps: {gaps}, broken lines: {m.journal.broken_lines}")
    lines.append(f"report: {m.report or '(none recorded)'}")
    print("\n".join(lines))
    return EXIT_PASS


# -- diff ----------------------------------------------------------------------------------------------


def _read_report(path_text: str, what: str) -> object:
    from pytest_auditfence.report import FenceReport, ReportError

    fix = "Write one with pytest --fence-report=PATH or auditfence audit TRACE_DIR --json PATH."
    text = _read_text(path_text, what, fix)
    try:
        return FenceReport.from_json(text, source=f"{what} {path_text}")
    except ReportError as exc:
        raise _InputError(str(exc)) from None


def _diff(args: argparse.Namespace) -> int:
    from pytest_auditfence.report import FenceReport, compare_to_baseline

    baseline = _read_report(args.baseline, "BASELINE")
    current = _read_report(args.report, "REPORT")
    assert isinstance(baseline, FenceReport) and isinstance(current, FenceReport)
    comparison = compare_to_baseline(current, baseline, ran=[t.nodeid for t in current.tests],
                                     baseline_name=args.baseline)
    print("\n".join(comparison.lines()))
    if not current.complete:
        for problem in current.problems:
            print(f"INCOMPLETE REPORT: {problem}")
        return EXIT_SHORTFALL
    return EXIT_SHORTFALL if comparison.regressions else EXIT_PASS


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
