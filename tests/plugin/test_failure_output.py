"""A failing fenced test explains itself: per failing claim the claim, verdict, introducing node and
round, the verifier's note, the whole chain (wrapped, not cut) and once the absolute trace folder; the
first ten claims by default, all with -v; in mode="llm" the confidence and the reviewer's caveat.

Users' suites in temp folders, run in subprocesses.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

pytestmark = pytest.mark.filterwarnings("ignore::pytest.PytestAssertRewriteWarning")

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
SEGMENTS = 12

APP = f'''
from typing import TypedDict

from langchain_core.tools import tool
from langgraph.graph import START, StateGraph


@tool
def segment_figures(ticker: str) -> str:
    """Revenue by segment."""
    return "\\n".join(f"segment {{k}} revenue fiscal 2023: ${{k}}.5 billion" for k in range(1, {SEGMENTS + 1}))


class State(TypedDict, total=False):
    ticker: str
    findings: str
    report: str


def research(state):
    return {{"findings": segment_figures.invoke({{"ticker": state["ticker"]}})}}


def write(state):
    # every figure is off by fifty billion, in sentences longer than a terminal line
    return {{"report": "\\n".join(
        f"Segment {{k}} revenue was ${{k + 50}}.5 billion in fiscal 2023, according to the quarterly filing "
        f"that the research team collected, checked and summarised for the board."
        for k in range(1, {SEGMENTS + 1}))}}


app = StateGraph(State).add_sequence([research, write]).add_edge(START, "research").compile()
'''

TESTS = '''
import pytest
from segments import app


@pytest.mark.fence
def test_segments(fence_snapshot):
    out = app.invoke({"ticker": "AAPL"}, config=fence_snapshot.config())
    fence_snapshot.set_report(out["report"])
'''


def failure_report(result: pytest.RunResult) -> list[str]:
    """The FAILURES section's lines: with CI set, pytest repeats the whole message in the short summary."""
    lines = result.outlines
    return lines[:next(i for i, line in enumerate(lines) if "short test summary info" in line)]


def claim_ids(lines: list[str]) -> list[str]:
    return [m.group(1) for line in lines if (m := re.match(r"(c\d{3}) contradicted: ", line))]


def test_each_failing_claim_is_explained_with_note_round_and_the_whole_chain(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(segments=APP, test_segments=TESTS)
    short = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    short.assert_outcomes(failed=1)
    lines = failure_report(short)
    [folder_line] = [line for line in lines if line.startswith("trace folder: ")]  # once
    folder = Path(folder_line.removeprefix("trace folder: "))
    assert folder.is_absolute() and (folder / "manifest.json").is_file()
    assert claim_ids(lines) == [f"c{i:03d}" for i in range(1, 11)]  # the first ten
    sentence = ("Segment 1 revenue was $51.5 billion in fiscal 2023, according to the quarterly filing that the "
                "research team collected, checked and summarised for the board.")
    short.stdout.fnmatch_lines([
        f"c001 contradicted: \"{sentence}\"",
        "    introduced by: write (round 1)",
        "    note: $51.5 billion contradicted: the same subject has '$* billion' in",
        "          tools/research/r1.segment_figures.1.txt",
        "    sources hold: tools/research/r1.segment_figures.1.txt:* \"segment * revenue fiscal 2023: $*",
        "    chain: __report__ report.md:1 | Segment 1 revenue *",
    ])
    # the chain is wrapped, not cut: its hops' lines joined give each hop's whole text back
    start = next(i for i, line in enumerate(lines) if line.startswith("    chain: __report__ report.md:1 "))
    end = next(i for i in range(start, len(lines)) if lines[i].strip() == "[does not reach raw data]")
    hops = [hop.strip() for hop in " ".join(line.strip() for line in lines[start:end]).split(" <- ")]
    assert hops == [f"chain: __report__ report.md:1 | {sentence}", f"write nodes/write/r1.output.txt:2 | {sentence}"]
    short.stdout.fnmatch_lines(["... and 2 more failing claim(s); run pytest with -v to see all of them, "
                                "or --fence-report=PATH"])
    section = lines[:next(i for i, line in enumerate(lines) if "- auditfence -" in line)]
    assert not any(line.rstrip().endswith("...") for line in section)  # nothing cut

    complete = pytester.runpytest_subprocess("-v", "-p", "no:cacheprovider")
    assert claim_ids(failure_report(complete)) == [f"c{i:03d}" for i in range(1, SEGMENTS + 1)]
    complete.stdout.no_fnmatch_line("*more failing claim(s)*")


def test_llm_mode_failure_shows_the_confidence_and_the_reviewers_caveat(pytester: pytest.Pytester) -> None:
    # The committed agent-loop example (LLM auditor, adversarial pass, recorded cassettes), made strict.
    shutil.copytree(EXAMPLES / "agent_loop", pytester.path, dirs_exist_ok=True,
                    ignore=shutil.ignore_patterns("__pycache__"))
    test_file = pytester.path / "test_agent_loop_llm_audit.py"
    test_file.write_text(test_file.read_text().replace("min_coverage=0.8, max_hallucinations=1",
                                                       "min_coverage=0.8, max_hallucinations=0"))
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider",
                                           "test_agent_loop_llm_audit.py::test_agent_answer_passes_the_fence"
                                           "_with_one_known_hallucination")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines([
        "c* unsupported: *",
        "    introduced by: agent (round 4)",  # the agent ran four rounds; the last wrote the answer
        "*",
        "    llm auditor: unsupported (hop 1), confidence 0.85*",
        "    reviewer: keep: *",
        "    chain: __report__ report.md:*",
    ])


ASSERTED = '''
from pytest_auditfence import assert_traceable
from segments import app


def test_segments_asserted(fence_snapshot, fence_audit):
    out = app.invoke({"ticker": "AAPL"}, config=fence_snapshot.config())
    assert_traceable(fence_audit(final_document=out["report"]), min_coverage=1.0, max_hallucinations=0)
'''


def assertion_lines(result: pytest.RunResult) -> list[str]:
    """The AssertionError's message in the FAILURES section, without pytest's `E` margin."""
    return [line[1:].strip() for line in failure_report(result) if line.startswith("E ")]


def test_assert_traceable_shows_the_first_ten_failing_claims_and_all_of_them_with_v(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(segments=APP, test_asserted=ASSERTED)
    short = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    short.assert_outcomes(failed=1)
    assert claim_ids(assertion_lines(short)) == [f"c{i:03d}" for i in range(1, 11)]
    short.stdout.fnmatch_lines(["E   *... and 2 more failing claim(s); run pytest with -v to see all of them*"])
    complete = pytester.runpytest_subprocess("-v", "-p", "no:cacheprovider")
    complete.assert_outcomes(failed=1)
    assert claim_ids(assertion_lines(complete)) == [f"c{i:03d}" for i in range(1, SEGMENTS + 1)]
    complete.stdout.no_fnmatch_line("*more failing claim(s)*")


LOOP_TESTS = '''
import pytest
from pytest_auditfence import assert_claim_traced
from traced_app import build_looping_app

app = build_looping_app()


@pytest.mark.fence
def test_drafts(fence_snapshot):
    out = app.invoke({"drafts": []}, config=fence_snapshot.config())
    fence_snapshot.set_report(out["report"])


def test_margin_traced(fence_snapshot, fence_audit):
    out = app.invoke({"drafts": []}, config=fence_snapshot.config())
    assert_claim_traced(fence_audit(final_document=out["report"]), "Operating margin was 22%.")
'''


def test_a_hop_through_a_looping_node_names_its_step_and_the_introducer_its_round(pytester: pytest.Pytester) -> None:
    # tests/cli/traced_app.py's looping run: round 1 of draft invents a margin, round 2 repeats it
    shutil.copy(Path(__file__).resolve().parents[1] / "cli" / "traced_app.py", pytester.path)
    pytester.makepyfile(test_drafts=LOOP_TESTS)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(failed=2)
    lines = failure_report(result)
    # the marker's message: one hop per line; draft ran twice, so each of its hops names the round (step)
    start = lines.index("c002 unsupported: \"Operating margin was 22%.\"")
    claim = lines[start:next(i for i in range(start, len(lines)) if "[does not reach raw data]" in lines[i])]
    assert "    introduced by: draft (round 1)" in claim
    hops = [line.strip().removeprefix("chain: ").removeprefix("<-").strip().split(" | ")[0]
            for line in claim if line.strip().startswith(("chain: ", "<- "))]
    assert hops == ["__report__ report.md:1", "writer nodes/writer/r1.output.txt:1",
                    "draft r2 nodes/draft/r2.output.txt:2", "draft r1 nodes/draft/r1.output.txt:2"]
    # assert_claim_traced's one-line chain and its introducer say the same
    message = assertion_lines(result)
    assert "introduced by: draft (round 1)" in message
    assert ("chain: __report__ report.md:1 <- writer nodes/writer/r1.output.txt:1 <- "
            "draft r2 nodes/draft/r2.output.txt:2 <- draft r1 nodes/draft/r1.output.txt:2  "
            "[does not reach raw data]") in message
