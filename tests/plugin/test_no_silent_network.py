"""No silent live calls: in replay mode every request of a test that uses a fence fixture, marked or
not, is served from its cassette or is a cassette miss naming the re-record command.

A user's suite in a temp folder, run in a subprocess (the plugin loaded from its entry point, like a
user's run) against a scripted server that is *running* during replay: it must see no request.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from pytest_auditfence.testing import ChatRequest, Reply, ScriptedOpenAIServer

pytestmark = pytest.mark.filterwarnings("ignore::pytest.PytestAssertRewriteWarning")

API_KEY = "sk-proj-PLANTEDnetworkKEY0123456789abcdef"
QUERY_KEY = "PLANTEDqueryKEY0123456789"
CLOSED = "http://127.0.0.1:9/v1"  # nothing listens on the discard port
REPORT = "Revenue was $383.3 billion in fiscal 2023."

APP = f'''
import os
from typing import TypedDict

from langchain_core.tools import tool
from langchain_openai import ChatOpenAI
from langgraph.graph import START, StateGraph


@tool
def lookup(ticker: str) -> str:
    """Reported figures."""
    return f"{{ticker}} revenue fiscal 2023: $383.3 billion"


class State(TypedDict, total=False):
    ticker: str
    findings: str
    report: str


def model():
    return ChatOpenAI(model="gpt-4o-mini", base_url=os.environ["APP_BASE_URL"], api_key="{API_KEY}",
                      max_retries=0, temperature=0, default_query={{"api_key": "{QUERY_KEY}"}})


def build():
    llm = model()

    def research(state, config):
        return {{"findings": lookup.invoke({{"ticker": state["ticker"]}}, config=config)}}

    def write(state, config):
        return {{"report": llm.invoke([("user", "Write the report: " + state["findings"])], config=config).content}}

    return StateGraph(State).add_sequence([research, write]).add_edge(START, "research").compile()
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
from llmapp import build


def test_unmarked(fence_snapshot):
    out = build().invoke({"ticker": "AAPL"}, config=fence_snapshot.config())
    assert "383.3" in out["report"]


def test_unmarked_with_fence_audit(fence_snapshot, fence_audit):
    out = build().invoke({"ticker": "AAPL"}, config=fence_snapshot.config())
    assert fence_audit(final_document=out["report"]).coverage.numerator == 1


def test_only_the_model_fixture(fence_llm):
    assert "383.3" in fence_llm.invoke("Write the report: AAPL").content


@pytest.mark.fence
def test_marked(fence_snapshot):
    out = build().invoke({"ticker": "AAPL"}, config=fence_snapshot.config())
    fence_snapshot.set_report(out["report"])


def test_no_fence_fixture_is_left_alone():
    pass
'''

NAMES = ("test_marked", "test_only_the_model_fixture", "test_unmarked", "test_unmarked_with_fence_audit")


def answer(request: ChatRequest) -> Reply:
    return Reply(content=REPORT)


@pytest.fixture
def suite(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    pytester.makepyfile(llmapp=APP, conftest=CONFTEST, test_app=TESTS)
    monkeypatch.setenv("PYTHONPATH", str(pytester.path))
    monkeypatch.setenv("APP_BASE_URL", CLOSED)
    return pytester


def cassette_files(root: Path) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*.yaml"))


def test_replay_mode_sends_no_request_of_any_fenced_test_and_names_the_rerecord_command(
    suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    with ScriptedOpenAIServer(rule=answer) as server:  # live, listening: a silent call would reach it
        monkeypatch.setenv("APP_BASE_URL", server.base_url)
        result = suite.runpytest_subprocess("-p", "no:cacheprovider")
        reached = list(server.requests)
    assert reached == []
    result.assert_outcomes(passed=1, errors=4)
    for name in NAMES:
        result.stdout.fnmatch_lines([
            f"*ERROR at call of {name}*",
            f"cassette miss: POST http://127.0.0.1/v1/chat/completions has no recorded response in "
            f"cassettes/test_app/{name}.yaml (record mode 'none')",
            "  the cassette file does not exist: this test was never recorded",
            f"  re-record: pytest test_app.py::{name} --fence-record-mode=once",
        ])
    assert cassette_files(suite.path) == []


def test_recording_works_the_same_for_marked_and_unmarked_tests(
    suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    with ScriptedOpenAIServer(rule=answer) as server:
        monkeypatch.setenv("APP_BASE_URL", server.base_url)
        recorded = suite.runpytest_subprocess("--fence-record-mode=once", "-p", "no:cacheprovider")
        calls = len(server.chat_requests)
    recorded.assert_outcomes(passed=5)
    assert calls == 4
    assert cassette_files(suite.path) == [f"cassettes/test_app/{name}.yaml" for name in NAMES]
    for name in NAMES:
        text = (suite.path / f"cassettes/test_app/{name}.yaml").read_text()
        for secret in (API_KEY, QUERY_KEY, "Bearer", "x-stainless"):
            assert secret not in text, (name, secret)
    # the server is gone; the base URL now points where nothing listens
    replayed = suite.runpytest_subprocess("-p", "no:cacheprovider")
    replayed.assert_outcomes(passed=5)
    replayed.stdout.no_fnmatch_line("*unused cassette*")


VCR_TESTS = '''
import pytest
from llmapp import build, model


@pytest.fixture
def drafted():
    return model().invoke("Write the report: AAPL").content


@pytest.mark.vcr
def test_vcr_and_a_fixture_call(drafted, fence_snapshot):
    assert "383.3" in drafted


@pytest.mark.vcr
@pytest.mark.fence
def test_vcr_and_fence(fence_snapshot):
    out = build().invoke({"ticker": "AAPL"}, config=fence_snapshot.config())
    fence_snapshot.set_report(out["report"])


@pytest.mark.vcr
def test_vcr_and_fence_fixture(fence_snapshot):
    out = build().invoke({"ticker": "AAPL"}, config=fence_snapshot.config())
    assert "383.3" in out["report"]
'''


def test_pytest_recording_cassettes_replay_on_another_port_without_secrets(
    suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    suite.makepyfile(test_app=VCR_TESTS)
    with ScriptedOpenAIServer(rule=answer) as server:
        monkeypatch.setenv("APP_BASE_URL", server.base_url)
        recorded = suite.runpytest_subprocess("--record-mode=once", "-p", "no:cacheprovider")
    recorded.assert_outcomes(passed=3)
    files = cassette_files(suite.path)
    assert files == ["cassettes/test_app/test_vcr_and_a_fixture_call.yaml", "cassettes/test_app/test_vcr_and_fence.yaml",
                     "cassettes/test_app/test_vcr_and_fence_fixture.yaml"]
    for file in files:
        data = yaml.safe_load((suite.path / file).read_text())
        (request,) = [i["request"] for i in data["interactions"]]
        headers = {name.lower() for name in request["headers"]}
        assert "authorization" not in headers and not any(h.startswith("x-stainless") for h in headers), headers
        assert QUERY_KEY not in request["uri"] and API_KEY not in (suite.path / file).read_text()
    # the user configured no matchers: the replay on another port (the discard port) still matches
    replayed = suite.runpytest_subprocess("--record-mode=none", "-p", "no:cacheprovider")
    replayed.assert_outcomes(passed=3)


def test_a_miss_in_a_pytest_recording_cassette_names_its_own_record_option(
    suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    suite.makepyfile(test_app=VCR_TESTS)
    result = suite.runpytest_subprocess("--record-mode=none", "-p", "no:cacheprovider")
    result.assert_outcomes(errors=3)
    result.stdout.fnmatch_lines([
        "*ERROR at call of test_vcr_and_fence_fixture*",
        "cassette miss: POST http://127.0.0.1/v1/chat/completions has no recorded response in "
        "cassettes/test_app/test_vcr_and_fence_fixture.yaml (record mode 'none')",
        "  re-record: pytest test_app.py::test_vcr_and_fence_fixture --record-mode=once",
    ])
    result.stdout.fnmatch_lines([
        "*ERROR at setup of test_vcr_and_a_fixture_call*",
        "cassette miss: POST http://127.0.0.1/v1/chat/completions has no recorded response in "
        "cassettes/test_app/test_vcr_and_a_fixture_call.yaml (record mode 'none')",
        "  re-record: pytest test_app.py::test_vcr_and_a_fixture_call --record-mode=once",
    ])


FIXTURE_TESTS = '''
import pytest
from llmapp import build, model


@pytest.fixture
def drafted():
    """A fixture that calls the model while it is set up, before the test body runs."""
    return model().invoke("Write the report: AAPL").content


@pytest.fixture(scope="module")
def shared_draft():
    """Set up once, during the set-up of the first test that asks for it."""
    return model().invoke("Write the shared report: AAPL").content


@pytest.fixture
def reviewed_after():
    yield
    model().invoke("Review the report: AAPL")  # called at teardown


def test_setup_call(drafted, fence_snapshot):
    assert "383.3" in drafted


def test_module_fixture_call(shared_draft, fence_snapshot):
    assert "383.3" in shared_draft


def test_teardown_call(reviewed_after, fence_snapshot):
    pass


@pytest.mark.fence
def test_marked_setup_call(drafted, fence_snapshot):
    out = build().invoke({"ticker": "AAPL"}, config=fence_snapshot.config())
    fence_snapshot.set_report(out["report"])
'''

FIXTURE_NAMES = ("test_marked_setup_call", "test_module_fixture_call", "test_setup_call", "test_teardown_call")


def test_model_calls_of_fixture_set_up_and_teardown_are_served_from_the_cassette_too(
    suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    suite.makepyfile(test_app=FIXTURE_TESTS)
    with ScriptedOpenAIServer(rule=answer) as server:  # live: a silent call at set-up would reach it
        monkeypatch.setenv("APP_BASE_URL", server.base_url)
        result = suite.runpytest_subprocess("-p", "no:cacheprovider")
        reached = list(server.requests)
    assert reached == []
    result.assert_outcomes(passed=1, errors=4)  # test_teardown_call passes its call, errors at teardown
    for name, phase in (("test_setup_call", "setup"), ("test_module_fixture_call", "setup"),
                        ("test_marked_setup_call", "setup"), ("test_teardown_call", "teardown")):
        result.stdout.fnmatch_lines([
            f"*ERROR at {phase} of {name}*",
            f"cassette miss: POST http://127.0.0.1/v1/chat/completions has no recorded response in "
            f"cassettes/test_app/{name}.yaml (record mode 'none')",
            f"  re-record: pytest test_app.py::{name} --fence-record-mode=once",
        ])
    assert cassette_files(suite.path) == []

    with ScriptedOpenAIServer(rule=answer) as server:
        monkeypatch.setenv("APP_BASE_URL", server.base_url)
        recorded = suite.runpytest_subprocess("--fence-record-mode=once", "-p", "no:cacheprovider")
        calls = len(server.chat_requests)
    recorded.assert_outcomes(passed=4)
    assert calls == 5  # one per fixture, and the marked test's app
    assert cassette_files(suite.path) == [f"cassettes/test_app/{name}.yaml" for name in FIXTURE_NAMES]
    for name in FIXTURE_NAMES:
        assert API_KEY not in (suite.path / f"cassettes/test_app/{name}.yaml").read_text()
    monkeypatch.setenv("APP_BASE_URL", CLOSED)
    replayed = suite.runpytest_subprocess("-p", "no:cacheprovider")
    replayed.assert_outcomes(passed=4)
    replayed.stdout.no_fnmatch_line("*unused cassette*")
