"""The `auditfence` console script run as a subprocess on real captured LangGraph runs.

Covers exit statuses, output lines, the JSON/HTML files it writes, and every input error's message.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from traced_app import LOOPED_FABRICATION, PLANTED

from pytest_auditfence import __version__, audit_cascade_sync
from pytest_auditfence.html import render_html
from pytest_auditfence.report import FenceReport, compare_to_baseline


def test_clean_run_passes_with_the_librarys_numbers(cli, captured):
    result = cli("audit", captured["clean"])
    assert result.returncode == 0, result.stderr
    cascade = audit_cascade_sync(trace_dir=captured["clean"])
    first = result.stdout.splitlines()[0].split()
    assert first[:2] == ["PASS", "clean"]
    assert f"coverage {cascade.coverage}" in result.stdout and cascade.coverage.numerator == 2
    assert f"hallucinations {cascade.hallucinations}" in result.stdout and cascade.hallucinations.numerator == 0
    assert cascade.passport.statement in result.stdout
    assert result.stderr == ""  # no progress when stderr is not a terminal and --progress is absent


def test_fabricated_run_fails_and_names_each_origin(cli, captured):
    result = cli("audit", captured["fabricated"])
    assert result.returncode == 1, result.stderr
    out = result.stdout
    assert out.startswith("FAIL ")
    assert "coverage 2/4 (50.0%) < min_coverage 100.0%" in out
    assert "hallucinations 2/4 (50.0%) > max_hallucinations 0" in out
    for figure, node in PLANTED.items():
        block = out[out.index(figure):]
        assert block.splitlines()[1].strip() == f"introduced by: {node} (round 1)", out


def test_thresholds_decide_the_exit_status(cli, captured):
    assert cli("audit", captured["fabricated"], "--min-coverage", "0.5", "--max-hallucinations", "2").returncode == 0
    assert cli("audit", captured["fabricated"], "--min-coverage", "0.5", "--max-hallucinations", "1").returncode == 1
    assert cli("audit", captured["fabricated"], "--min-coverage", "0.51", "--max-hallucinations", "2").returncode == 1


def test_json_report_is_byte_stable_and_holds_no_paths(cli, captured, tmp_path):
    for out in ("a.json", "b.json"):
        assert cli("audit", captured["fabricated"], "--json", out, "--name", "nightly").returncode == 1
    text = (tmp_path / "a.json").read_text(encoding="utf-8")
    assert text == (tmp_path / "b.json").read_text(encoding="utf-8")
    assert str(tmp_path) not in text and str(captured["fabricated"]) not in text
    report = FenceReport.from_json(text)
    (entry,) = report.tests
    assert (entry.nodeid, entry.outcome) == ("nightly", "fail")
    assert entry.thresholds == {"max_hallucinations": 0, "min_coverage": 1.0}
    assert {c.introduced_by for c in entry.claims if c.introduced_by} == set(PLANTED.values())
    assert "detail" not in json.loads(text)["tests"][0]  # the page detail stays out of the JSON


def test_html_page_is_written_deterministically(cli, captured, tmp_path):
    for out in ("a.html", "sub/b.html"):
        assert cli("audit", captured["fabricated"], "--html", out).returncode == 1
    page = (tmp_path / "a.html").read_text(encoding="utf-8")
    assert page == (tmp_path / "sub" / "b.html").read_text(encoding="utf-8")
    assert str(tmp_path) not in page and str(captured["fabricated"].parent) not in page
    assert 'id="chain-t0-c005"' in page and "Diluted EPS reached $9.75 in FY2024." in page
    assert "html report: a.html" in cli("audit", captured["fabricated"], "--html", "a.html").stdout


def test_document_option_audits_another_text_and_escapes_it(cli, captured, tmp_path):
    doc = tmp_path / "note.md"
    doc.write_text("HALV closed at $46.20 on 2024-12-31. <script>alert(1)</script> Revenue was $999 million.\n",
                   encoding="utf-8")
    result = cli("audit", captured["clean"], "--document", doc, "--html", "page.html")
    assert result.returncode == 1, result.stderr
    assert "$999 million" in result.stdout
    page = (tmp_path / "page.html").read_text(encoding="utf-8")
    assert "<script>alert(1)</script>" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page


def test_progress_goes_to_stderr_when_asked(cli, captured, tmp_path):
    result = cli("audit", captured["clean"], "--progress", "--html", "p.html")
    assert result.returncode == 0
    lines = result.stderr.splitlines()
    assert lines[0] == "auditfence: auditing 4 claim(s) of report.md over 4 node(s)"
    assert lines[1].startswith("auditfence: audit finished in ") and lines[1].endswith("s")
    assert lines[2] == "auditfence: writing p.html"
    assert "auditfence:" not in result.stdout


def test_version(cli):
    result = cli("--version")
    assert (result.returncode, result.stdout.strip()) == (0, f"auditfence {__version__} (pytest-auditfence)")


# -- input errors: exit 2, naming the file and the fix --------------------------------------------------


def test_missing_folder(cli):
    result = cli("audit", "no/such/trace")
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.strip() == (
        "auditfence: error: TRACE_DIR no/such/trace: no such folder. Pass the folder a Snapshot captured into "
        "(e.g. one that pytest --fence-trace-dir=DIR kept, DIR/<test id>)."
    )
    assert cli("show", "no/such/trace").returncode == 2


def test_trace_dir_that_is_a_file(cli, tmp_path):
    (tmp_path / "file.txt").write_text("x", encoding="utf-8")
    result = cli("audit", "file.txt")
    assert result.returncode == 2 and "TRACE_DIR file.txt: not a folder" in result.stderr


def test_missing_manifest(cli, trace_copy):
    trace = trace_copy("clean")
    (trace / "manifest.json").unlink()
    for command in ("audit", "show"):
        result = cli(command, trace)
        assert result.returncode == 2, command
        assert f"{trace / 'manifest.json'}: no manifest" in result.stderr
        assert "Snapshot.finalize()" in result.stderr


def test_broken_manifest_json(cli, trace_copy):
    trace = trace_copy("clean")
    manifest = trace / "manifest.json"
    manifest.write_text(manifest.read_text(encoding="utf-8")[:-40], encoding="utf-8")
    result = cli("audit", trace)
    assert result.returncode == 2
    assert f"{manifest}: not readable as JSON" in result.stderr and "capture the run again" in result.stderr


def test_manifest_with_a_damaged_field(cli, trace_copy):
    trace = trace_copy("clean")
    manifest = trace / "manifest.json"
    data = json.loads(manifest.read_text(encoding="utf-8"))
    data["nodes"][1]["rounds"] = "twice"
    manifest.write_text(json.dumps(data), encoding="utf-8")
    result = cli("show", trace)
    assert result.returncode == 2
    assert f"{manifest}: invalid at 'nodes.1.rounds'" in result.stderr


def test_file_listed_in_the_manifest_but_deleted(cli, trace_copy):
    trace = trace_copy("clean")
    (trace / "tools" / "prices" / "r1.get_prices.1.txt").unlink()
    result = cli("audit", trace)
    assert result.returncode == 2
    assert "r1.get_prices.1.txt: listed in the manifest but missing from the trace folder" in result.stderr


def test_incomplete_capture_is_an_audit_error(cli, captured):
    result = cli("audit", captured["broken"], "--document", "/dev/null")
    assert result.returncode == 3, result.stderr
    assert "auditfence: error: incomplete capture:" in result.stderr
    assert "ConnectionError" in result.stderr and "capture again" in result.stderr
    shown = cli("show", captured["broken"])
    assert shown.returncode == 0
    assert shown.stdout.splitlines()[0].startswith("trace broken: INCOMPLETE: ")


def test_no_recorded_report_and_no_document(cli, trace_copy):
    trace = trace_copy("clean")
    manifest = trace / "manifest.json"
    data = json.loads(manifest.read_text(encoding="utf-8"))
    data["report"] = None
    manifest.write_text(json.dumps(data), encoding="utf-8")
    result = cli("audit", trace)
    assert result.returncode == 2
    assert "recorded no final document" in result.stderr and "--document FILE" in result.stderr


def test_missing_document_file(cli, captured):
    result = cli("audit", captured["clean"], "--document", "missing.md")
    assert result.returncode == 2
    assert "--document missing.md: no such file" in result.stderr


@pytest.mark.parametrize(
    ("option", "value", "expected"),
    [
        ("--min-coverage", "1.5", "expected a fraction from 0.0 to 1.0"),
        ("--min-coverage", "-0.1", "expected a fraction from 0.0 to 1.0"),
        ("--min-coverage", "nan", "expected a fraction from 0.0 to 1.0"),
        ("--min-coverage", "95%", "expected a fraction from 0.0 to 1.0"),
        ("--max-hallucinations", "-1", "expected a whole number of claims"),
        ("--max-hallucinations", "1.5", "expected a whole number of claims"),
        ("--max-hallucinations", "many", "expected a whole number of claims"),
    ],
)
def test_bad_threshold_values(cli, captured, option, value, expected):
    result = cli("audit", captured["clean"], option, value)
    assert result.returncode == 2 and result.stdout == ""
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith(f"auditfence audit: error: argument {option}: {expected}")
    assert last.endswith(f"got '{value}'")


def test_no_command_is_a_usage_error(cli):
    result = cli()
    assert result.returncode == 2 and "COMMAND" in result.stderr


# -- show and diff --------------------------------------------------------------------------------------


def test_show_lists_nodes_edges_and_completeness(cli, captured):
    result = cli("show", captured["fabricated"])
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "trace fabricated: complete"
    rows = {line.split()[0]: line.split() for line in lines if line.startswith("  ") and len(line.split()) == 7}
    assert rows["filings"] == ["filings", "node", "instrumented", "1.00", "1", "-", "4"]
    assert rows["writer"] == ["writer", "node", "instrumented", "1.00", "1", "-", "2"]
    assert rows["__input__"][1] == "input"
    for edge in ("__input__ -> filings", "__input__ -> prices", "filings -> writer", "prices -> writer"):
        assert f"  {edge}" in lines
    assert "entry nodes: filings, prices" in lines
    assert "final node: writer" in lines
    assert "tool calls: 2 (filings:get_filing, prices:get_prices)" in lines
    journal = next(line for line in lines if line.startswith("journal: "))
    assert journal.endswith("event(s), gaps: none, broken lines: 0")
    assert lines[-1] == "report: report.md"


def test_diff_reports_a_regression_as_a_table(cli, captured, tmp_path):
    assert cli("audit", captured["clean"], "--json", "base.json", "--name", "nightly").returncode == 0
    assert cli("audit", captured["fabricated"], "--json", "now.json", "--name", "nightly").returncode == 1
    result = cli("diff", "base.json", "now.json")
    assert result.returncode == 1, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "fence baseline base.json: 1 regression(s) - the session fails"
    assert lines[1].split() == ["status", "test", "coverage", "before", "->", "after", "hallucinations",
                                "before", "->", "after"]
    assert lines[2].split() == ["regressed", "nightly", "2/2", "(100.0%)", "->", "2/4", "(50.0%)",
                                "0/2", "(0.0%)", "->", "2/4", "(50.0%)"]
    same = cli("diff", "base.json", "base.json")
    assert same.returncode == 0
    assert same.stdout.strip() == "fence baseline base.json: no regression (1 test(s) compared)"
    improved = cli("diff", "now.json", "base.json")
    assert improved.returncode == 0 and "improved" in improved.stdout


def test_diff_input_errors(cli, captured, tmp_path):
    assert cli("audit", captured["clean"], "--json", "base.json").returncode == 0
    missing = cli("diff", "nope.json", "base.json")
    assert missing.returncode == 2
    assert "BASELINE nope.json: no such file. Write one with pytest --fence-report=PATH" in missing.stderr
    (tmp_path / "broken.json").write_text("{not json", encoding="utf-8")
    broken = cli("diff", "base.json", "broken.json")
    assert broken.returncode == 2 and "REPORT broken.json: not valid JSON" in broken.stderr
    (tmp_path / "old.json").write_text('{"schema_version": 0, "tests": []}', encoding="utf-8")
    old = cli("diff", "old.json", "base.json")
    assert old.returncode == 2 and "BASELINE old.json: schema_version 0" in old.stderr


def test_diff_fails_closed_on_an_incomplete_report(cli, tmp_path):
    report = FenceReport.merge([], problems=["xdist worker gw1 went down"])
    (tmp_path / "base.json").write_text(FenceReport().to_json(), encoding="utf-8")
    (tmp_path / "now.json").write_text(report.to_json(), encoding="utf-8")
    result = cli("diff", "base.json", "now.json")
    assert result.returncode == 1
    assert "INCOMPLETE REPORT: xdist worker gw1 went down" in result.stdout


def test_unwritable_output_is_an_input_error(cli, captured, tmp_path):
    (tmp_path / "blocker").write_text("a file, not a folder", encoding="utf-8")
    result = cli("audit", captured["clean"], "--json", "blocker/out.json")
    assert result.returncode == 2
    assert "--json blocker/out.json: cannot be written" in result.stderr


def test_written_paths_are_relative_to_the_working_folder(cli, captured, tmp_path: Path):
    assert cli("audit", captured["clean"], "--html", "deep/er/page.html").returncode == 0
    assert (tmp_path / "deep" / "er" / "page.html").is_file()


def test_progress_is_shown_on_a_terminal_without_asking(captured, tmp_path):
    import os
    import pty
    import subprocess
    import sys

    leader, follower = pty.openpty()
    try:
        done = subprocess.run([str(Path(sys.executable).parent / "auditfence"), "audit", str(captured["clean"])], cwd=tmp_path, stderr=follower,
                              stdout=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True, timeout=120)
        os.close(follower)
        chunks = []
        while True:
            try:
                data = os.read(leader, 4096)
            except OSError:  # the terminal is drained and closed
                break
            if not data:
                break
            chunks.append(data)
    finally:
        os.close(leader)
    terminal = b"".join(chunks).decode("utf-8")
    assert done.returncode == 0
    assert "auditfence: auditing 4 claim(s) of report.md over 4 node(s)" in terminal
    assert "auditfence: audit finished in " in terminal
    assert "auditfence:" not in done.stdout


def test_every_view_of_a_looping_run_names_the_step_of_each_hop_and_the_introducers_round(
    cli, captured, looping, tmp_path
):
    # draft ran twice: its hops read `draft r2` / `draft r1` (writer ran once: named alone), and the
    # fabrication is `draft (round 1)`, in the words of the chain golden files (docs/snapshot.md)
    result = cli("audit", looping, "--json", "now.json", "--html", "page.html", "--name", "nightly")
    assert result.returncode == 1, result.stderr
    out = result.stdout.splitlines()
    block = out[out.index(f'c002 unsupported: "{LOOPED_FABRICATION}"'):]
    assert block[1] == "    introduced by: draft (round 1)"
    hops = [line.strip().removeprefix("chain:").removeprefix("<-").split(" | ")[0].strip()
            for line in block if line.strip().startswith(("chain:", "<-"))]
    assert hops == ["__report__ report.md:1", "writer nodes/writer/r1.output.txt:1",
                    "draft r2 nodes/draft/r2.output.txt:2", "draft r1 nodes/draft/r1.output.txt:2"]
    # the JSON report carries the round; the page names it and each hop's step
    report = FenceReport.read(tmp_path / "now.json")
    assert [(c.id, c.introduced_by, c.introduced_round) for c in report.tests[0].claims] == [
        ("c001", None, None), ("c002", "draft", 1)]
    page = (tmp_path / "page.html").read_text(encoding="utf-8")
    assert "introduced by node <b>draft (round 1)</b>" in page
    assert '<span class="meta">introduced by draft (round 1)</span>' in page  # the failing-claims list
    # c001: draft r2's output and its tool call; c002: draft r2's and draft r1's outputs
    assert page.count('<span class="node">draft r2</span>') == 3 and page.count('<span class="node">draft r1</span>') == 1
    assert '<span class="node">writer</span>' in page
    assert "<td>draft (round 1)</td>" in render_html(report)  # a page from the JSON alone: the claims table
    # the baseline gate names the round of each new claim, in the terminal and in the markdown summary
    assert cli("audit", captured["clean"], "--json", "base.json", "--name", "nightly").returncode == 0
    diff = cli("diff", "base.json", "now.json")
    assert diff.returncode == 1, diff.stderr
    assert diff.stdout.splitlines()[-1] == (
        f'  nightly: new unsupported claim c002 "{LOOPED_FABRICATION}" (introduced by draft (round 1))')
    comparison = compare_to_baseline(report, FenceReport.read(tmp_path / "base.json"), ran=["nightly"])
    assert comparison.markdown()[-1] == (
        f'- `nightly`: new unsupported claim c002 "{LOOPED_FABRICATION}" (introduced by `draft (round 1)`)')
