"""The pytest glue: the only module of the package that imports pytest.

Registers the `fence` marker, the `--fence-*` options, hooks and fixtures; capture, audit, reports and
snapshots live in modules that never import pytest and are imported here only when a test needs them.
"""

from __future__ import annotations

import contextlib
import hashlib
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import pytest

from pytest_auditfence import settings as fence_settings
from pytest_auditfence.settings import MARKER_NAME, RECORD_MODES, FenceSettings, SettingsError

if TYPE_CHECKING:
    from pytest_auditfence.report import BaselineComparison, FenceReport, Outcome, TestEntry

WORKEROUTPUT_KEY = "auditfence_entries"
CASSETTES_WORKEROUTPUT_KEY = "auditfence_cassettes"
# (name, value) in the call report's user_properties (so it survives xdist) of a test stopped by a miss.
CASSETTE_MISS_PROPERTY = ("fence_error", "cassette-miss")

# A test that requests any of these has every HTTP request of its call phase served from a cassette.
FENCE_FIXTURES = ("fence_snapshot", "fence_audit", "fence_llm")

# CLI option dest -> setting name; only these settings have a command-line layer.
_CLI_SETTINGS = {"fence_record_mode": "record_mode", "fence_trace_dir": "trace_dir"}


@dataclass
class _SessionState:
    ini: dict[str, Any]
    cli: dict[str, Any]
    entries: list[Any] = field(default_factory=list)  # TestEntry, from this process or from workers
    fenced_seen: set[str] = field(default_factory=set)  # node ids whose reports carried fence numbers
    ran: set[str] = field(default_factory=set)
    problems: list[str] = field(default_factory=list)
    report: Any = None
    comparison: Any = None
    gate_lines: list[str] = field(default_factory=list)
    written: list[str] = field(default_factory=list)  # "<what> written to <path>" lines for the summary
    cassettes: _CassetteUse = field(default_factory=lambda: _CassetteUse())


@dataclass
class _CassetteUse:
    """What the drift check needs: the cassette folder, the cassettes that served a call, which tests
    each wholly collected fenced module holds, and which tests did not pass (their files are not judged)."""

    folder: str | None = None  # ini fence_cassette_dir, relative to the rootdir
    used: set[str] = field(default_factory=set)  # resolved paths of cassettes that played or recorded
    module_items: dict[str, set[str]] = field(default_factory=dict)  # module node id -> item node ids
    whole_modules: set[str] = field(default_factory=set)  # modules whose own collect report was seen
    fenced_items: set[str] = field(default_factory=set)
    module_paths: dict[str, str] = field(default_factory=dict)
    modules: dict[str, dict[str, Any]] = field(default_factory=dict)  # wholly selected fenced modules
    not_passed: set[str] = field(default_factory=set)
    lines: list[str] = field(default_factory=list)


_STATE = pytest.StashKey[_SessionState]()
_MARKER_KWARGS = pytest.StashKey[dict[str, Any]]()
_SETTINGS = pytest.StashKey[FenceSettings]()
_SNAPSHOT = pytest.StashKey[Any]()
_LLM = pytest.StashKey[Any]()
_BAD_MARKERS = pytest.StashKey[list[str]]()


def _is_worker(config: pytest.Config) -> bool:
    return hasattr(config, "workerinput")


def _uses_fence(item: pytest.Item) -> bool:
    names = getattr(item, "fixturenames", ())
    return item.get_closest_marker(MARKER_NAME) is not None or any(name in names for name in FENCE_FIXTURES)


# -- options, ini, marker, hooks -------------------------------------------------------------------


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("auditfence", "claim-to-source traceability (pytest-auditfence)")
    group.addoption("--fence-report", dest="fence_report", metavar="PATH", default=None,
                    help="write the session's fence results as sorted, schema-versioned JSON to PATH")
    group.addoption("--fence-baseline", dest="fence_baseline", metavar="PATH", default=None,
                    help="compare with a committed fence report: any test whose coverage drops or whose "
                         "hallucinations rise fails the session")
    group.addoption("--fence-update-baseline", dest="fence_update_baseline", action="store_true", default=False,
                    help="write this session's results to the --fence-baseline file instead of comparing")
    group.addoption("--fence-md-summary", dest="fence_md_summary", metavar="PATH", default=None,
                    help="write a markdown table of fenced tests to PATH (e.g. $GITHUB_STEP_SUMMARY)")
    group.addoption("--fence-record-mode", dest="fence_record_mode", default=None, choices=RECORD_MODES,
                    help=f"record mode of the per-test cassettes every HTTP call of a fenced test (the app's and "
                         f"the auditor's) replays from: {', '.join(RECORD_MODES)} "
                         f"(default: ini fence_record_mode, else none = replay only)")
    group.addoption("--fence-html", dest="fence_html", metavar="PATH", default=None,
                    help="write a self-contained HTML page of every fenced test's evidence chains to PATH")
    group.addoption("--fence-trace-dir", dest="fence_trace_dir", metavar="DIR", default=None,
                    help="keep each fenced test's capture in DIR/<test id> instead of tmp_path")
    for key, text in fence_settings.INI_HELP.items():
        parser.addini(key, text, default="")


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    from pytest_auditfence import hookspecs

    pluginmanager.add_hookspecs(hookspecs)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", fence_settings.marker_signature())
    try:
        ini = fence_settings.parse_ini({key: config.getini(key) for key in fence_settings.INI_HELP})
        cassette_folder = fence_settings.parse_cassette_dir(config.getini(fence_settings.CASSETTE_DIR_INI))
    except SettingsError as exc:
        raise pytest.UsageError(str(exc)) from None
    cli = {name: getattr(config.option, dest, None) for dest, name in _CLI_SETTINGS.items()}
    config.stash[_STATE] = _SessionState(ini=ini, cli=cli, cassettes=_CassetteUse(folder=cassette_folder))
    config.pluginmanager.register(DefaultHooks(), "auditfence-defaults")
    # assert_traceable and the marker show the same: the first ten failing claims, all of them with -v.
    shown = None if config.get_verbosity() > 0 else fence_settings.MAX_FAILURE_CLAIMS
    previous = fence_settings.show_failure_claims(shown)
    config.add_cleanup(lambda: fence_settings.show_failure_claims(previous))
    if not _is_worker(config):
        config.pluginmanager.register(_ReportTracker(config.stash[_STATE]), "auditfence-tracker")
        _check_report_options(config)


def _check_report_options(config: pytest.Config) -> None:
    opt = config.option
    if opt.fence_update_baseline and not opt.fence_baseline:
        raise pytest.UsageError(
            "--fence-update-baseline needs the file to write: add --fence-baseline=PATH "
            "(e.g. --fence-baseline=fence-baseline.json --fence-update-baseline)"
        )
    if opt.fence_baseline and not opt.fence_update_baseline and not Path(opt.fence_baseline).is_file():
        raise pytest.UsageError(
            f"--fence-baseline: {opt.fence_baseline} does not exist. Create it from a good run with: "
            f"pytest --fence-baseline={opt.fence_baseline} --fence-update-baseline"
        )


# -- collection: validate every fence marker up front ----------------------------------------------


@pytest.hookimpl(wrapper=True)
def pytest_pycollect_makeitem(collector: pytest.Collector, name: str, obj: object) -> Iterator[Any]:
    result = yield
    items = result if isinstance(result, list) else [result]
    problems = [p for item in items if isinstance(item, pytest.Item) for p in _check_fenced_item(item)]
    if problems:
        collector.stash.setdefault(_BAD_MARKERS, []).extend(problems)
    return result


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(collector: pytest.Collector) -> Iterator[pytest.CollectReport]:
    # A bad marker turns its module (or class) into a collection error listing every bad test; done
    # here rather than as a UsageError because xdist workers report collection errors like any other,
    # while a UsageError raised on a worker only crashes it.
    report = yield
    problems = collector.stash.get(_BAD_MARKERS, None)
    if not problems or report.failed:
        return report
    message = "invalid fence marker(s):\n  " + "\n  ".join(problems)
    return pytest.CollectReport(collector.nodeid, "failed", message, [])


def _check_fenced_item(item: pytest.Item) -> list[str]:
    """Validate the item's fence markers; stash the closest one's arguments. Returns the problems."""
    marker = item.get_closest_marker(MARKER_NAME)
    if marker is None:
        return []
    state = item.config.stash[_STATE]
    try:
        for each in item.iter_markers(MARKER_NAME):
            fence_settings.validate_marker(each.args, each.kwargs)
        kwargs = fence_settings.validate_marker(marker.args, marker.kwargs)
        fence_settings.resolve_settings(cli=state.cli, marker=kwargs, ini=state.ini)
    except SettingsError as exc:
        return [f"{item.nodeid}: @pytest.mark.fence: {exc}"]
    if "fence_snapshot" not in getattr(item, "fixturenames", ()):
        return [
            f"{item.nodeid}: @pytest.mark.fence audits the run captured by the fence_snapshot fixture, "
            f"but the test does not use it; add fence_snapshot to the test's arguments and run the "
            f"graph with config=fence_snapshot.config()"
        ]
    item.stash[_MARKER_KWARGS] = kwargs
    return []


# -- collection: which fenced modules were collected whole (for the unused-cassette check) ----------


def pytest_collectreport(report: pytest.CollectReport) -> None:
    if not report.passed:
        return
    use = _cassette_use_of(report)
    if use is None:
        return
    for node in report.result:
        if isinstance(node, pytest.Module):
            continue
        module = node.nodeid.partition("::")[0]
        if isinstance(node, pytest.Item):
            use.module_items.setdefault(module, set()).add(node.nodeid)
            use.module_paths.setdefault(module, str(node.path))
            if _uses_fence(node):
                use.fenced_items.add(node.nodeid)
        if "::" not in report.nodeid and report.nodeid == module:
            # A module's own report exists only when the module was collected whole, not picked by node id.
            use.whole_modules.add(module)


def _cassette_use_of(report: pytest.CollectReport) -> _CassetteUse | None:
    # Collect reports carry no config; every node of the report's result does.
    for node in report.result:
        state = node.config.stash.get(_STATE, None)
        return None if state is None else state.cassettes
    return None


def pytest_collection_finish(session: pytest.Session) -> None:
    state = session.config.stash.get(_STATE, None)
    if state is None:
        return
    use = state.cassettes
    selected = {item.nodeid for item in session.items}
    from pytest_auditfence.cassettes import cassette_path

    root = session.config.rootpath
    for module in sorted(use.whole_modules):
        items = use.module_items.get(module, set())
        if not items or not items <= selected or not items & use.fenced_items:
            continue
        module_file = Path(use.module_paths[module])
        folder = root / use.folder if use.folder else None
        use.modules[module] = {
            "folder": str(cassette_path(f"{module}::t", module_file, folder).parent),
            "tests": {nodeid: {"fenced": nodeid in use.fenced_items,
                               "cassette": str(cassette_path(nodeid, module_file, folder).resolve())}
                      for nodeid in sorted(items)},
        }


# -- fixtures ----------------------------------------------------------------------------------------


@pytest.fixture
def fence_config() -> dict[str, Any]:
    """Settings for fenced tests of this scope (min_coverage, mode, policy, ...); override it in a
    conftest.py at any scope. Precedence: command line > fence marker > this fixture > ini > default."""
    return {}


@pytest.fixture
def fence_llm() -> Any:
    """The chat model for `mode="llm"` audits; None (deterministic only) unless you override it."""
    return None


def _settings_for(item: pytest.Item, fixture_values: Any) -> FenceSettings:
    state = item.config.stash[_STATE]
    if not isinstance(fixture_values, dict):
        raise pytest.UsageError(
            f"the fence_config fixture must return a dict of settings, it returned {type(fixture_values).__name__}"
        )
    try:
        return fence_settings.resolve_settings(
            cli=state.cli, marker=item.stash.get(_MARKER_KWARGS, None), fixture=fixture_values, ini=state.ini
        )
    except SettingsError as exc:
        raise pytest.UsageError(f"{item.nodeid}: {exc}") from None


def _folder_name(nodeid: str) -> str:
    safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", nodeid).strip("_")
    if len(safe) > 120 or safe != nodeid:
        # Different ids can sanitise alike ("a/b" and "a_b"); a short digest keeps the folders apart.
        safe = f"{safe[:110]}-{hashlib.sha256(nodeid.encode()).hexdigest()[:8]}"
    return safe


def _redaction(config: pytest.Config) -> bool | Callable[[str], str]:
    """What `Snapshot(redact=...)` gets: the built-in rules always run there; hook redactors follow."""
    chain = [f for group in config.hook.pytest_auditfence_redactors(config=config) for f in (group or [])]
    if not chain:
        return True

    def redact(text: str) -> str:
        for f in chain:
            text = f(text)
        return text

    return redact


@pytest.fixture
def fence_snapshot(
    request: pytest.FixtureRequest, tmp_path: Path, fence_config: dict[str, Any], fence_llm: Any
) -> Iterator[Any]:
    """A `Snapshot` in a per-test folder (tmp_path, or --fence-trace-dir/<test id>); pass
    `config=fence_snapshot.config()` to the graph and record the final document with `set_report`."""
    from pytest_auditfence.snapshot import Snapshot

    item = request.node
    settings = _settings_for(item, fence_config)
    item.stash[_SETTINGS] = settings
    item.stash[_LLM] = fence_llm
    folder = Path(settings.trace_dir) / _folder_name(item.nodeid) if settings.trace_dir else tmp_path / "fence-trace"
    snap = Snapshot(folder, replace=True, redact=_redaction(item.config), max_output_chars=settings.max_output_chars)
    item.stash[_SNAPSHOT] = snap
    cassette = item.stash.get(_CASSETTE, None)
    if cassette is not None and getattr(cassette, "auditfence", False):
        from pytest_auditfence.cassettes import set_record_mode

        set_record_mode(cassette, settings.record_mode)  # fence_config may set it; fixtures before it had the ini's
    yield snap
    snap.finalize()


def _run_audit(item: pytest.Item, settings: FenceSettings, snap: Any, final_document: str | None, llm: Any) -> Any:
    from pytest_auditfence.errors import AuditError

    snap.finalize()
    manifest = snap.load_manifest()
    if settings.mode == "llm" and llm is None:
        raise AuditError(
            "mode='llm' needs a chat model: override the fence_llm fixture to return one "
            "(e.g. ChatOpenAI(...)), or use mode='deterministic'"
        )
    def audit() -> Any:
        return item.config.hook.pytest_auditfence_audit(
            item=item, settings=settings, manifest=manifest, trace_dir=snap.trace_dir,
            final_document=final_document, llm=llm if settings.mode == "llm" else None,
        )

    if settings.mode != "llm":
        return audit()
    # Every LLM call of an audit replays from the test's cassette (record only when asked to); in a
    # marked test that cassette is already open for the body, and is reused.
    with _test_cassette(item, settings.record_mode):
        return audit()


# -- cassettes: one per test, open for the body and the audit of marked tests ------------------------


def _cassette_file(item: pytest.Item) -> Path:
    from pytest_auditfence.cassettes import cassette_path

    folder = item.config.stash[_STATE].cassettes.folder
    return cassette_path(item.nodeid, Path(item.path), item.config.rootpath / folder if folder else None)


@contextlib.contextmanager
def _test_cassette(item: pytest.Item, record_mode: str) -> Iterator[Any]:
    """The test's cassette (or a suite's already active one, e.g. pytest-recording's) around the block."""
    from pytest_auditfence.cassettes import use_cassette

    config = item.config
    their_config = getattr(item, "funcargs", {}).get("vcr_config")
    with use_cassette(_cassette_file(item), record_mode, test_nodeid=item.nodeid, extra_filters=_filters(config),
                      match_foreign=not _user_matchers(their_config)) as cassette:
        try:
            yield cassette
        finally:
            if cassette.play_count or cassette.dirty:
                config.stash[_STATE].cassettes.used.add(str(Path(cassette.path).resolve()))


def _filters(config: pytest.Config) -> list[Callable[[str], str]]:
    return [f for group in config.hook.pytest_auditfence_redactors(config=config) for f in (group or [])]


def _user_matchers(vcr_config: Any) -> bool:
    """pytest-recording's cassette gets our matching (never the port) unless the suite chose matchers."""
    return isinstance(vcr_config, dict) and "match_on" in vcr_config


def _fail_on_cassette_miss(item: pytest.Item, miss: BaseException, *, record: bool) -> None:
    """A miss means the recording is out of date, not that the claims are untraceable: an ERROR."""
    __tracebackhide__ = True
    message = str(miss)
    if record:  # a marked test's report entry says audit-error
        _record_error(item, item.stash.get(_SETTINGS, None), message)
    item.user_properties.append(CASSETTE_MISS_PROPERTY)
    pytest.fail(message, pytrace=False)


def _is_cassette_miss(exc: BaseException) -> bool:
    from pytest_auditfence.audit.llm import find_cassette_miss

    return find_cassette_miss(exc) is not None


def pytest_report_teststatus(report: pytest.TestReport, config: pytest.Config) -> tuple[str, str, str] | None:
    if report.when == "call" and report.failed and any(
        tuple(p) == CASSETTE_MISS_PROPERTY for p in report.user_properties
    ):
        return "error", "E", "ERROR"
    return None


@pytest.fixture
def fence_audit(request: pytest.FixtureRequest, fence_snapshot: Any, fence_llm: Any) -> Callable[..., Any]:
    """`fence_audit(final_document=None)` audits this test's capture now and returns the cascade;
    without a document it audits the report recorded with `fence_snapshot.set_report`."""
    item = request.node

    def audit(final_document: str | None = None) -> Any:
        return _run_audit(item, item.stash[_SETTINGS], fence_snapshot, final_document, fence_llm)

    return audit


@pytest.fixture
def chain_snapshot(snapshot: Any) -> Any:
    """syrupy's `snapshot` with the evidence-chain extension: `assert cascade.evidence_chains() == chain_snapshot`."""
    from pytest_auditfence.chain_snapshot import EvidenceChainExtension

    return snapshot.use_extension(EvidenceChainExtension)


# -- the audit of marked tests ---------------------------------------------------------------------


class DefaultHooks:
    """The default implementations of the `pytest_auditfence_*` hooks (trylast: users' run first)."""

    @pytest.hookimpl(trylast=True)
    def pytest_auditfence_audit(
        self, item: pytest.Item, settings: FenceSettings, manifest: Any, trace_dir: Any,
        final_document: str | None, llm: Any,
    ) -> Any:
        from pytest_auditfence.audit.cascade import audit_cascade_sync

        options: dict[str, Any] = {}
        if settings.adversarial:
            options["adversarial"] = True
        hook = item.config.hook

        def extractor(document: str) -> list[Any]:
            found = hook.pytest_auditfence_extract_claims(config=item.config, document=document)
            return [claim for claims in found for claim in (claims or [])]

        return audit_cascade_sync(
            manifest=manifest, trace_dir=trace_dir, final_document=final_document, llm=llm,
            policy=settings.policy, extractor=extractor, **options,
        )

    @pytest.hookimpl(trylast=True)
    def pytest_auditfence_extract_claims(self, config: pytest.Config, document: str) -> list[Any]:
        from pytest_auditfence.claims.extract import extract_claims

        return extract_claims(document)

    @pytest.hookimpl(trylast=True)
    def pytest_auditfence_checks(self, item: pytest.Item, settings: FenceSettings, cascade: Any) -> list[str]:
        from pytest_auditfence.assertions import check_thresholds

        return check_thresholds(
            cascade.coverage, cascade.hallucinations,
            min_coverage=settings.min_coverage, max_hallucinations=settings.max_hallucinations,
        )


def _scrub(text: str, *roots: Any) -> str:
    # Absolute temp paths differ per run; the report must not.
    for root, label in roots:
        if root:
            text = text.replace(str(root), label)
    return text


def _record(item: pytest.Item, entry: TestEntry) -> None:
    item.config.stash[_STATE].entries.append(entry)
    item.user_properties.append(("fence_outcome", entry.outcome))
    if entry.coverage is not None and entry.hallucinations is not None:
        item.user_properties.append(("fence_coverage", str(entry.coverage)))
        item.user_properties.append(("fence_hallucinations", str(entry.hallucinations)))


def _record_error(item: pytest.Item, settings: FenceSettings | None, message: str,
                  outcome: Outcome = "audit-error") -> None:
    """Record a fenced test that has no audit result; the report gets the message without the run's
    temp paths (it must be byte-stable), the user sees it as it is."""
    from pytest_auditfence.report import TestEntry

    snap = item.stash.get(_SNAPSHOT, None)
    stable = _scrub(
        message,
        (getattr(snap, "trace_dir", None), "<trace_dir>"),
        (item.config.rootpath, "<rootdir>"),
    )
    thresholds = settings.thresholds() if settings else {}
    _record(item, TestEntry(nodeid=item.nodeid, outcome=outcome, thresholds=thresholds, errors=[stable]))


def _audit_error(item: pytest.Item, settings: FenceSettings | None, message: str) -> NoReturn:
    """The audit could not judge the run: the test fails in its call phase (one outcome), closed."""
    __tracebackhide__ = True
    _record_error(item, settings, message)
    pytest.fail(message, pytrace=False)


class _NothingToAudit(Exception):
    """The run gave the marker nothing to audit (no capture, no report); its message says the fix."""


def _audit_marked(item: pytest.Item) -> None:
    __tracebackhide__ = True
    from pytest_auditfence.assertions import render_cascade_failure
    from pytest_auditfence.report import TestEntry

    settings = item.stash.get(_SETTINGS, None)
    snap = item.stash.get(_SNAPSHOT, None)
    if settings is None or snap is None:
        _audit_error(item, settings, "the fence marker found no capture: the fence_snapshot fixture was not set up")
    try:
        manifest = snap.finalize()
        if not manifest.files or all(f.kind == "report" for f in manifest.files):
            raise _NothingToAudit(
                "nothing was captured: no node or tool ran with the fence_snapshot callbacks; "
                "run the graph with config=fence_snapshot.config()"
            )
        if manifest.report is None:
            raise _NothingToAudit(
                "the test set no report: record the final document with fence_snapshot.set_report(text) "
                "in the test body so the marker knows what to audit"
            )
        cascade = _run_audit(item, settings, snap, None, item.stash.get(_LLM, None))
    except Exception as exc:  # fail closed: any failure to audit is an audit error, never a pass
        if _is_cassette_miss(exc):
            raise  # reported by pytest_runtest_call, with the re-record command
        kind = "" if isinstance(exc, _NothingToAudit) else f" ({type(exc).__name__})"
        failure = f"fence audit error{kind}: {exc}"
    else:
        failure = None
    if failure is not None:  # raised outside the except block: the message stands alone, not chained
        _audit_error(item, settings, failure)
    if not cascade.complete:
        _audit_error(item, settings, "fence audit incomplete: " + ("; ".join(cascade.errors) or "no reason given"))
    shortfalls = [s for group in item.config.hook.pytest_auditfence_checks(
        item=item, settings=settings, cascade=cascade) for s in (group or [])]
    outcome = "report-only" if settings.report_only else "fail" if shortfalls else "pass"
    entry = TestEntry.from_claims(
        item.nodeid, outcome, thresholds=settings.thresholds(), coverage=cascade.coverage,
        hallucinations=cascade.hallucinations, claims=cascade.claims, shortfalls=shortfalls,
    )
    if item.config.option.fence_html:
        from pytest_auditfence.html import build_detail

        # Built here, while the trace folder exists (and on the worker that ran the test).
        entry.detail = build_detail(cascade, trace_dir=snap.trace_dir, manifest=manifest)
    _record(item, entry)
    if outcome == "fail":  # the first ten failing claims, every one with -v
        pytest.fail(render_cascade_failure(cascade, shortfalls), pytrace=False)


def _record_mode_of(item: pytest.Item) -> str:
    """The record mode of a test whose fence_snapshot fixture did not resolve its settings (it uses
    only fence_llm, say): the command line, else the ini, else replay only."""
    settings = item.stash.get(_SETTINGS, None)
    if settings is not None:
        return settings.record_mode
    state = item.config.stash[_STATE]
    return fence_settings.resolve_settings(cli=state.cli, ini=state.ini).record_mode


# The test's cassette, opened before its first fixture is set up and closed after its last teardown.
_CASSETTE_STACK = pytest.StashKey[contextlib.ExitStack]()
_CASSETTE = pytest.StashKey[Any]()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Iterator[None]:
    # Model calls of fixtures (a function fixture that drafts with the LLM, a module fixture set up for
    # this test) are served from the test's cassette like the body's: nothing leaves the machine on replay.
    if not _uses_fence(item):
        return (yield)
    from pytest_auditfence.cassettes import check_cassette, translate_misses
    from pytest_auditfence.errors import CassetteMissError, CassetteYamlError

    stack = item.stash[_CASSETTE_STACK] = contextlib.ExitStack()
    try:  # a damaged cassette is this test's audit error in every report, not a raw yaml traceback
        check_cassette(_cassette_file(item), item.nodeid)
        # The record mode of the command line or ini; fence_snapshot applies a fence_config one.
        item.stash[_CASSETTE] = stack.enter_context(_test_cassette(item, _record_mode_of(item)))
        with translate_misses(item.nodeid):
            return (yield)
    except (CassetteMissError, CassetteYamlError) as exc:
        problem = exc
    _fail_on_cassette_miss(item, problem, record=_MARKER_KWARGS in item.stash)


@pytest.hookimpl(wrapper=True)
def pytest_fixture_setup(fixturedef: pytest.FixtureDef[Any], request: pytest.FixtureRequest) -> Iterator[Any]:
    # pytest-recording's `vcr` fixture opens its cassette while the test is set up: our filters and
    # matching apply from then on, also to the calls of fixtures set up after it.
    result = yield
    if fixturedef.argname == "vcr" and result is not None and isinstance(request.node, pytest.Item) \
            and _uses_fence(request.node):
        from vcr.cassette import Cassette

        from pytest_auditfence.cassettes import adopt_cassette

        if isinstance(result, Cassette):
            their_config = request.getfixturevalue("vcr_config") if "vcr_config" in request.fixturenames else None
            adopt_cassette(result, _filters(request.config), matching=not _user_matchers(their_config))
    return result


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    stack = item.stash.get(_CASSETTE_STACK, None)
    if stack is None:
        return (yield)
    from pytest_auditfence.cassettes import translate_misses
    from pytest_auditfence.errors import CassetteMissError

    del item.stash[_CASSETTE_STACK]
    if _CASSETTE in item.stash:
        del item.stash[_CASSETTE]
    try:
        with stack, translate_misses(item.nodeid):  # the cassette closes after the last finalizer ran
            return (yield)
    except CassetteMissError as exc:
        miss = exc
    _fail_on_cassette_miss(item, miss, record=False)  # the test's own outcome is already reported


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    # Every test that uses a fence fixture, marked or not, runs inside the test's cassette (open since
    # its set-up): in replay mode no request leaves the machine (it replays, or it is a miss naming the fix).
    if not _uses_fence(item):
        return (yield)
    from pytest_auditfence.cassettes import translate_misses
    from pytest_auditfence.errors import CassetteMissError

    marked = _MARKER_KWARGS in item.stash
    settings = item.stash.get(_SETTINGS, None)
    miss: CassetteMissError | None = None
    result = None
    # One cassette for the whole test: the app's own model calls in the body and the auditor's after it
    # (a cassette a fixture opened in between, e.g. a suite's own vcr.use_cassette, gets our filters).
    with _test_cassette(item, _record_mode_of(item)):
        try:
            with translate_misses(item.nodeid):
                result = yield
        except CassetteMissError as exc:
            miss = exc
        except (pytest.skip.Exception, pytest.xfail.Exception):
            raise
        except BaseException as exc:
            if marked and isinstance(exc, Exception):
                # A plain failure with the body's own error; the report says nothing was audited.
                _record_error(item, settings, f"the test body raised {type(exc).__name__} before the audit; "
                                              f"nothing was audited", outcome="fail")
            raise
        else:
            try:
                with translate_misses(item.nodeid):
                    if marked:
                        _audit_marked(item)
            except CassetteMissError as exc:
                miss = exc
    if miss is not None:  # raised outside the cassette block, so the miss is not chained to it
        _fail_on_cassette_miss(item, miss, record=marked)
    return result


# -- reports, xdist merge, baseline gate -----------------------------------------------------------


class _ReportTracker:
    """On the controller: which tests ran and which carried fence numbers (to detect lost results)."""

    def __init__(self, state: _SessionState) -> None:
        self.state = state

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if not report.passed:
            self.state.cassettes.not_passed.add(report.nodeid)
        if report.when != "teardown":
            return
        self.state.ran.add(report.nodeid)
        if any(key == "fence_outcome" for key, _ in report.user_properties):
            self.state.fenced_seen.add(report.nodeid)


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: Any) -> None:
    from pytest_auditfence.report import TestEntry

    state = node.config.stash[_STATE]
    output = getattr(node, "workeroutput", None) or {}
    if error is not None or WORKEROUTPUT_KEY not in output:
        state.problems.append(
            f"xdist worker {node.gateway.id} went down ({error or 'no results sent'}); "
            f"fence results of the tests it ran are missing"
        )
        return
    state.entries.extend(TestEntry.model_validate_json(text) for text in output[WORKEROUTPUT_KEY])
    cassettes = output.get(CASSETTES_WORKEROUTPUT_KEY) or {}
    state.cassettes.used.update(cassettes.get("used", ()))
    state.cassettes.modules.update(cassettes.get("modules", {}))


def unused_cassette_lines(use: _CassetteUse, ran: set[str], rootdir: Path) -> list[str]:
    """One line per cassette file that no test used, in the folders of wholly run fenced modules.

    A file named after a test that is not fenced (e.g. pytest-recording's) or that did not pass is
    left unjudged: it may be someone else's, or its test stopped before its calls.
    """
    lines = []
    for module, info in sorted(use.modules.items()):
        tests = info["tests"]
        if not set(tests) <= ran:
            continue
        unjudged = {t["cassette"] for nodeid, t in tests.items() if not t["fenced"] or nodeid in use.not_passed}
        folder = Path(info["folder"])
        files = sorted(folder.glob("*.yaml")) if folder.is_dir() else []
        for file in files:
            resolved = str(file.resolve())
            if resolved in use.used or resolved in unjudged:
                continue
            try:
                shown = file.resolve().relative_to(rootdir.resolve()).as_posix()
            except ValueError:
                shown = file.name
            lines.append(f"unused cassette: {shown} (no test of {module} replayed or recorded it; "
                         f"delete it if its test is gone, or re-record)")
    return lines


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    config = session.config
    state = config.stash.get(_STATE, None)
    if state is None:
        return
    if _is_worker(config):
        config.workeroutput[WORKEROUTPUT_KEY] = [e.model_dump_json() for e in state.entries]  # type: ignore[attr-defined]
        config.workeroutput[CASSETTES_WORKEROUTPUT_KEY] = {  # type: ignore[attr-defined]
            "used": sorted(state.cassettes.used), "modules": state.cassettes.modules,
        }
        return
    state.cassettes.lines = unused_cassette_lines(state.cassettes, state.ran, config.rootpath)
    opt = config.option
    wanted = opt.fence_report or opt.fence_baseline or opt.fence_md_summary or opt.fence_html
    if not (state.entries or state.problems or state.fenced_seen or wanted):
        return
    from pytest_auditfence.report import FenceReport

    got = {e.nodeid for e in state.entries}
    lost = sorted(state.fenced_seen - got)
    problems = [*state.problems, *(f"{n}: its fence result never reached the controller" for n in lost)]
    report = FenceReport.merge(state.entries, problems=problems)
    config.hook.pytest_auditfence_modify_report(config=config, report=report)
    state.report = report
    if opt.fence_report:
        report.write(opt.fence_report)
        state.written.append(f"fence report (JSON) written to {opt.fence_report}")
    if opt.fence_html:
        from pytest_auditfence.html import write_html

        write_html(report, Path(opt.fence_html))
        state.written.append(f"HTML evidence chains written to {Path(opt.fence_html).resolve().as_uri()}")
    failed = not report.complete
    if opt.fence_update_baseline:
        if report.complete:
            report.write(opt.fence_baseline)
            state.gate_lines = [f"fence baseline {opt.fence_baseline} updated ({len(report.tests)} test(s))"]
        else:
            state.gate_lines = [f"fence baseline {opt.fence_baseline} NOT updated: the report is incomplete"]
    elif opt.fence_baseline:
        comparison = _compare(report, opt.fence_baseline, state)
        failed = failed or comparison is None or bool(comparison.regressions)
    if opt.fence_md_summary:  # after the gate, so its totals can say whether the gate failed
        gate_error = state.gate_lines[0] if opt.fence_baseline and not opt.fence_update_baseline \
            and state.comparison is None else None
        summary = report.markdown(state.comparison, gate_error=gate_error)
        Path(opt.fence_md_summary).write_text(summary, encoding="utf-8")
        state.written.append(f"fence summary (markdown) written to {opt.fence_md_summary}")
    if failed and session.exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def _compare(report: FenceReport, path: str, state: _SessionState) -> BaselineComparison | None:
    from pytest_auditfence.report import FenceReport, ReportError, compare_to_baseline

    try:
        baseline = FenceReport.read(path)
    except ReportError as exc:
        state.gate_lines = [f"fence baseline error: {exc}"]
        return None
    comparison = compare_to_baseline(report, baseline, ran=state.ran, baseline_name=path)
    state.comparison = comparison
    state.gate_lines = comparison.lines()
    return comparison


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    state = config.stash.get(_STATE, None)
    if state is None or _is_worker(config):
        return
    lines = (state.report.lines() + state.gate_lines if state.report is not None else []) + state.cassettes.lines
    lines += state.written
    if not lines:
        return
    terminalreporter.write_sep("-", "auditfence")
    for line in lines:
        terminalreporter.write_line(line)


def pytest_assertrepr_compare(config: pytest.Config, op: str, left: Any, right: Any) -> list[str] | None:
    if not type(left).__module__.startswith("pytest_auditfence"):
        return None
    from pytest_auditfence.assertions import explain_comparison

    return explain_comparison(op, left, right)
