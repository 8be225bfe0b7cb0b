"""chain_snapshot golden files (update, drift, unused detection) and the pytest_auditfence_* hooks."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.filterwarnings("ignore::pytest.PytestAssertRewriteWarning")

CHAIN_TEST = """
import os
from graphapp import run

def test_chains(fence_snapshot, fence_audit, chain_snapshot):
    run(fence_snapshot, invent=os.environ.get("INVENT") == "1")
    assert fence_audit().evidence_chains() == chain_snapshot
"""


def test_snapshot_update_then_drift_reads_as_claim_lost_its_source(project, monkeypatch):
    project.makepyfile(test_golden=CHAIN_TEST)
    missing = project.runpytest()
    missing.assert_outcomes(failed=1)
    written = project.runpytest("--snapshot-update")
    written.assert_outcomes(passed=1)
    golden = project.path / "__snapshots__" / "test_golden" / "test_chains.chains"
    text = golden.read_text()
    assert "[c002] verdict: verified" in text
    assert "[c002] link 4: tool_call research @ tools/research/r1.lookup_revenue.1.txt:3 | " in text
    assert str(project.path) not in text
    project.runpytest().assert_outcomes(passed=1)
    monkeypatch.setenv("INVENT", "1")
    drift = project.runpytest("-vv")
    drift.assert_outcomes(failed=1)
    out = drift.stdout.str()
    for line in ("+ [c003] claim: Services revenue was $99.9 billion in fiscal 2023.",
                 "+ [c003] verdict: contradicted", "+ [c003] introduced_by: write", "+ [c003] reaches_raw_data: NO"):
        assert line in out


def test_unused_chain_snapshot_is_reported(project, monkeypatch):
    # syrupy stays silent about unused snapshots on xdist workers; when this suite itself runs under
    # -n 2 the in-process pytester run inherits the worker's environment, so clear it.
    for name in ("PYTEST_XDIST_WORKER", "PYTEST_XDIST_WORKER_COUNT", "PYTEST_XDIST_TESTRUNUID"):
        monkeypatch.delenv(name, raising=False)
    project.makepyfile(test_golden=CHAIN_TEST)
    project.runpytest("--snapshot-update").assert_outcomes(passed=1)
    project.makepyfile(test_golden="def test_chains():\n    pass\n")
    result = project.runpytest()
    result.stdout.fnmatch_lines(["*1 snapshot unused*"])
    assert result.ret != pytest.ExitCode.OK


def test_user_hooks_add_checks_redact_and_edit_the_report(project):
    project.makeconftest("""
        def pytest_auditfence_checks(item, settings, cascade):
            if len(cascade.claims) < 5:
                return [f"team rule: at least 5 claims, found {len(cascade.claims)}"]

        def pytest_auditfence_redactors(config):
            return [lambda text: text.replace("AAPL", "[TICKER]")]

        def pytest_auditfence_modify_report(config, report):
            report.tests[0].errors.append("reviewed by conftest")
    """)
    project.makepyfile(test_fenced="""
        import pytest
        from graphapp import run

        @pytest.mark.fence
        def test_a(fence_snapshot):
            run(fence_snapshot)
            fence_snapshot.finalize()
            assert "[TICKER] revenue" in (fence_snapshot.trace_dir / "tools/research/r1.lookup_revenue.1.txt").read_text()
    """)
    result = project.runpytest("--fence-report=r.json")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["fence audit failed: team rule: at least 5 claims, found 2"])
    assert '"reviewed by conftest"' in (project.path / "r.json").read_text()


EXTRACTOR_TEST = """
from graphapp import run

def test_words(fence_snapshot, fence_audit):
    report = run(fence_snapshot)
    cascade = fence_audit(report + "Services brought in eighty-five and one fifth billion dollars.\\n")
    claim = next(c for c in cascade.claims if "eighty-five" in c.claim)
    print("VERDICT", claim.verdict.value, claim.id, cascade.coverage)
"""


def test_extract_claims_hook_adds_claims_the_builtin_extraction_misses(project):
    project.makepyfile(test_words=EXTRACTOR_TEST)
    before = project.runpytest("-s")
    before.assert_outcomes(passed=1)
    before.stdout.fnmatch_lines(["*VERDICT unverifiable c003 1/1 (100.0%)"])
    project.makeconftest("""
        from pytest_auditfence.models import ClaimRecord, Quantity

        def pytest_auditfence_extract_claims(config, document):
            phrase = "eighty-five and one fifth billion dollars"
            at = document.find(phrase)
            if at < 0:
                return None
            end = document.index(".", at) + 1
            start = document.rfind("\\n", 0, at) + 1
            quantity = Quantity(text=phrase, start=at, end=at + len(phrase), value=85.2e9, kind="currency",
                                unit="USD", scale=1e9, tolerance=0.05e9)
            return [ClaimRecord(id="x1", claim=document[start:end], start=start, end=end, quantities=[quantity])]
    """)
    after = project.runpytest("-s")
    after.assert_outcomes(passed=1)
    # now checked: the figure is in the tool output but in no node's output (the test appended it to
    # the report), so it is found in raw data yet misattributed - and it counts in the denominator
    after.stdout.fnmatch_lines(["*VERDICT misattributed c003 1/2 (50.0%)"])


def test_extract_claims_hook_with_a_bad_span_is_an_audit_error(project):
    project.makepyfile(test_words=EXTRACTOR_TEST)
    project.makeconftest("""
        from pytest_auditfence.models import ClaimRecord

        def pytest_auditfence_extract_claims(config, document):
            return [ClaimRecord(id="x", claim="not in the document", start=0, end=5)]
    """)
    result = project.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*does not hold its text in the document*"])
