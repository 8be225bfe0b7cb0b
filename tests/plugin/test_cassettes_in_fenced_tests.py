"""Cassettes in fenced tests: the app's own model calls and the auditor's, recorded once and replayed offline.

pytester projects run a real LangGraph app whose node calls `ChatOpenAI` over HTTP, audited with mode="llm".
"""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest

# pytester's in-process runs drop modules first imported inside them; a re-imported vcrpy YAML loader
# mixed with the surviving yaml module cannot read cassettes, so both stay loaded from here.
import langchain_openai  # noqa: F401
import vcr.serializers.yamlserializer  # noqa: F401
import yaml

import pytest_auditfence.audit.llm  # noqa: F401
from pytest_auditfence.settings import CASSETTE_DIR_INI, SettingsError, parse_cassette_dir
from pytest_auditfence.testing import ChatRequest, Reply, ScriptedOpenAIServer
from pytest_auditfence.testing.auditor_rules import AuditorRule, ClaimPlan

pytestmark = pytest.mark.filterwarnings("ignore::pytest.PytestAssertRewriteWarning")

# Planted in the client's api_key and in the tool output the app sends to the model: never in a cassette.
API_KEY = "sk-proj-PLANTEDcassetteKEY0123456789abcdef"
CLOSED = "http://127.0.0.1:9/v1"  # replays point here: nothing listens
REPORT = ("Revenue was $383.3 billion in fiscal 2023.\n"
          "Margins improved because services revenue grew faster than hardware revenue.\n")

LLM_APP = f'''
import os
from typing import TypedDict

from langchain_core.tools import tool
from langchain_openai import ChatOpenAI
from langgraph.graph import START, StateGraph

PROMPT = os.environ.get("APP_PROMPT", "Write the report from these findings:")


@tool
def lookup_notes(ticker: str) -> str:
    """Reported figures and analyst notes."""
    return (f"{{ticker}} revenue fiscal 2023: $383.3 billion\\n"
            "Services revenue grew faster than hardware revenue during the year.\\n"
            "debug: api key {API_KEY}")


class State(TypedDict, total=False):
    ticker: str
    findings: str
    report: str


def build(llm):
    def research(state, config):
        return {{"findings": lookup_notes.invoke({{"ticker": state["ticker"]}}, config=config)}}

    def write(state, config):
        reply = llm.invoke([("user", PROMPT + "\\n" + state["findings"])], config=config)
        return {{"report": reply.content}}

    return StateGraph(State).add_sequence([research, write]).add_edge(START, "research").compile()


def model():
    return ChatOpenAI(model="gpt-4o-mini", base_url=os.environ["APP_BASE_URL"], api_key="{API_KEY}",
                      max_retries=0, temperature=0)
'''

CONFTEST = '''
import pytest
from llmapp import model


@pytest.fixture
def fence_llm():
    return model()
'''

TESTS = '''
import pytest
from llmapp import build, model


@pytest.mark.fence(mode="llm", adversarial=True, min_coverage=1.0, max_hallucinations=0)
def test_traced(fence_snapshot):
    out = build(model()).invoke({"ticker": "AAPL"}, config=fence_snapshot.config())
    fence_snapshot.set_report(out["report"])


@pytest.mark.fence
def test_no_http(fence_snapshot):
    from langchain_core.tools import tool

    @tool
    def figures(ticker: str) -> str:
        """Figures."""
        return "AAPL revenue fiscal 2023: $383.3 billion"

    figures.invoke({"ticker": "AAPL"}, config=fence_snapshot.config())
    fence_snapshot.set_report("Revenue was $383.3 billion in fiscal 2023.")
'''

TRACED = "test_llm_fenced.py::test_traced"
CASSETTE = Path("cassettes/test_llm_fenced/test_traced.yaml")


def rule() -> object:
    auditor = AuditorRule({"margins improved": ClaimPlan(
        queries=("services revenue",), evidence="Services revenue grew faster than hardware revenue",
        severity="medium")})  # medium: the adversarial reviewer is asked about it too

    def answer(request: ChatRequest) -> Reply:
        if request.last_user_text.startswith("Write the report") and not request.tools:
            return Reply(content=REPORT)  # the app's own call
        return auditor(request)  # type: ignore[operator]

    return answer


def port_is_closed(port: int) -> bool:
    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) != 0


@pytest.fixture
def llm_project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    pytester.makepyfile(llmapp=LLM_APP, conftest=CONFTEST, test_llm_fenced=TESTS)
    pytester.syspathinsert()
    monkeypatch.setenv("APP_BASE_URL", CLOSED)
    return pytester


def record(project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, *args: str) -> tuple[pytest.RunResult, int]:
    with ScriptedOpenAIServer(rule=rule()) as server:  # type: ignore[arg-type]
        monkeypatch.setenv("APP_BASE_URL", server.base_url)
        result = project.runpytest("--fence-record-mode=once", *args)
        port, calls = server.port, [r.json for r in server.chat_requests]
    monkeypatch.setenv("APP_BASE_URL", f"http://127.0.0.1:{port}/v1")  # the same address, now closed
    assert port_is_closed(port)
    app_calls = [c for c in calls if not c.get("tools") and c["messages"][0]["content"].startswith("Write the report")]
    assert len(app_calls) == 1 and any(c.get("tools") for c in calls)  # the app's call and the auditor's
    return result, port


def report_entry(path: Path, nodeid: str) -> dict:
    return next(t for t in json.loads(path.read_text())["tests"] if t["nodeid"] == nodeid)


def test_record_then_replay_offline_gives_the_same_outcome_and_a_byte_identical_report(
    llm_project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    recorded, _ = record(llm_project, monkeypatch, "--fence-report=recorded.json")
    recorded.assert_outcomes(passed=2)
    entry = report_entry(llm_project.path / "recorded.json", TRACED)
    verdicts = {c["claim"]: c["verdict"] for c in entry["claims"]}
    assert verdicts == {"Revenue was $383.3 billion in fiscal 2023.": "verified",
                        "Margins improved because services revenue grew faster than hardware revenue.": "verified"}
    # one cassette per test, only for the test that made HTTP calls
    assert sorted(p.relative_to(llm_project.path).as_posix() for p in llm_project.path.rglob("*.yaml")) == \
        [CASSETTE.as_posix()]
    text = (llm_project.path / CASSETTE).read_text()
    assert "Write the report from these findings:" in text and '"submit"' in text  # app and auditor calls
    for secret in (API_KEY, "PLANTED", "sk-proj", "Bearer", "org-scripted", "proj_scripted", "scripted-session"):
        assert secret not in text, secret

    replayed = llm_project.runpytest("--fence-report=replayed.json")  # server stopped, replay only
    replayed.assert_outcomes(passed=2)
    parallel = llm_project.runpytest("-n", "2", "--fence-report=parallel.json")
    parallel.assert_outcomes(passed=2)
    first = (llm_project.path / "recorded.json").read_bytes()
    assert (llm_project.path / "replayed.json").read_bytes() == first
    assert (llm_project.path / "parallel.json").read_bytes() == first
    assert not any("unused cassette" in line for line in replayed.outlines + parallel.outlines)


def test_a_changed_prompt_is_an_error_naming_cassette_nearest_request_field_and_command(
    llm_project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    record(llm_project, monkeypatch)
    monkeypatch.setenv("APP_PROMPT", "Write the brief from these findings:")
    for args in ((), ("-n", "2")):
        result = llm_project.runpytest("--fence-report=r.json", *args)
        result.assert_outcomes(passed=1, errors=1)  # an error, not a traceability failure
        result.stdout.fnmatch_lines([
            "*ERROR at call of test_traced*",
            f"cassette miss: POST http://127.0.0.1/v1/chat/completions has no recorded response in {CASSETTE} "
            "(record mode 'none')",
            "  nearest recorded: #* POST /v1/chat/completions (body *% similar)",
            "  differs at: body.messages[[]0[]].content: recorded 'Write the report* / now 'Write the brief*",
            f"  re-record: rm {CASSETTE} && pytest {TRACED} --fence-record-mode=once  (or *new_episodes*)",
        ])
        result.stdout.fnmatch_lines(["ERROR test_llm_fenced.py::test_traced - *cassette miss: POST*"])
        assert "Traceback" not in result.stdout.str()
        entry = report_entry(llm_project.path / "r.json", TRACED)
        assert entry["outcome"] == "audit-error" and entry["errors"][0].startswith("cassette miss: POST")
        assert result.ret == pytest.ExitCode.TESTS_FAILED


def test_an_auditor_miss_is_an_error_too(llm_project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    record(llm_project, monkeypatch)
    # the app's call still replays; the adversarial reviewer's call is gone from the cassette
    path = llm_project.path / CASSETTE
    data = yaml.safe_load(path.read_text())
    kept = [i for i in data["interactions"] if "Claim:" not in i["request"]["body"]]
    assert len(kept) == len(data["interactions"]) - 1
    path.write_text(yaml.safe_dump({**data, "interactions": kept}))
    result = llm_project.runpytest()
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(["*ERROR at call of test_traced*", "cassette miss: POST *", "  re-record: rm *"])


def test_unused_cassettes_are_reported_only_when_the_whole_module_ran(
    llm_project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    record(llm_project, monkeypatch)
    stale = llm_project.path / "cassettes/test_llm_fenced/test_renamed_long_ago.yaml"
    stale.write_text((llm_project.path / CASSETTE).read_text())
    line = ("unused cassette: cassettes/test_llm_fenced/test_renamed_long_ago.yaml (no test of "
            "test_llm_fenced.py replayed or recorded it; delete it if its test is gone, or re-record)")
    whole = llm_project.runpytest()
    whole.assert_outcomes(passed=2)
    whole.stdout.fnmatch_lines(["*- auditfence -*", "*", line])
    assert whole.ret == pytest.ExitCode.OK and stale.is_file()  # reported, never deleted
    llm_project.runpytest("-n", "2").stdout.fnmatch_lines([line])
    for partial in ((TRACED,), ("-k", "traced")):
        assert line not in llm_project.runpytest(*partial).outlines


def test_fence_cassette_dir_ini_moves_the_cassettes_under_the_rootdir(
    llm_project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    llm_project.makeini(f"[pytest]\n{CASSETTE_DIR_INI} = recorded/llm\n")
    record(llm_project, monkeypatch).__getitem__(0).assert_outcomes(passed=2)
    assert [p.relative_to(llm_project.path).as_posix() for p in llm_project.path.rglob("*.yaml")] == \
        ["recorded/llm/test_llm_fenced/test_traced.yaml"]
    llm_project.runpytest().assert_outcomes(passed=2)


@pytest.mark.parametrize(("text", "expected"), [
    ("", None), ("  ", None), ("tests/cassettes", "tests/cassettes"), ("./a//b/", "a/b"), ("a\\b", "a/b"),
])
def test_cassette_dir_values(text: str, expected: str | None) -> None:
    assert parse_cassette_dir(text) == expected


@pytest.mark.parametrize(("text", "problem"), [
    ("/srv/cassettes", "is absolute"), ("C:\\cassettes", "is absolute"), ("../elsewhere", "climbs out"),
    ("a/../../b", "climbs out"), ("./.", "names no folder"),
])
def test_bad_cassette_dir_is_refused_with_the_fix(text: str, problem: str) -> None:
    with pytest.raises(SettingsError, match=f"ini option fence_cassette_dir = .* {problem}.*; give a folder "
                                            "relative to the rootdir, e.g. fence_cassette_dir = tests/cassettes"):
        parse_cassette_dir(text)


def test_bad_cassette_dir_ini_is_a_usage_error(pytester: pytest.Pytester) -> None:
    pytester.makeini(f"[pytest]\n{CASSETTE_DIR_INI} = /abs/cassettes\n")
    pytester.makepyfile("def test_x(): pass")
    result = pytester.runpytest()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*ini option fence_cassette_dir = '/abs/cassettes' is absolute*"])


def test_coexists_with_pytest_recording_on_the_same_test(
    llm_project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Our cassettes go elsewhere, so a second file would show a second patch; theirs serves every call.
    llm_project.makeini(f"[pytest]\n{CASSETTE_DIR_INI} = ours\n")
    llm_project.makeconftest(CONFTEST + '''

@pytest.fixture(scope="module")
def vcr_config():
    return {}  # no filters of the suite's own: ours still keep secrets out of the file
''')
    llm_project.makepyfile(test_llm_fenced=TESTS.replace('@pytest.mark.fence(mode="llm"',
                                                          '@pytest.mark.vcr\n@pytest.mark.fence(mode="llm"'))
    recorded, _ = record(llm_project, monkeypatch, "--record-mode=once")
    recorded.assert_outcomes(passed=2)
    assert sorted(p.relative_to(llm_project.path).as_posix() for p in llm_project.path.rglob("*.yaml")) == \
        [CASSETTE.as_posix()]  # pytest-recording's file (same default layout), no second one under ours/
    written = (llm_project.path / CASSETTE).read_text()
    for secret in (API_KEY, "PLANTED", "Bearer"):
        assert secret not in written
    replayed = llm_project.runpytest("--record-mode=none")
    replayed.assert_outcomes(passed=2)
    assert not any("unused cassette" in line for line in replayed.outlines)
