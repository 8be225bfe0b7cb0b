"""Cassettes recorded from real `ChatOpenAI` calls to the scripted server, then replayed with its port closed."""

from __future__ import annotations

import asyncio
import json
import random
import socket
from pathlib import Path
from typing import Any

import pytest
import vcr
import yaml
from langchain_core.messages import BaseMessage
from langchain_core.tools import tool
from langchain_openai import ChatOpenAI

from pytest_auditfence.cassettes import (
    RECORD_MODES,
    CassetteConfigError,
    active_cassette,
    cassette_path,
    make_vcr,
    use_cassette,
)
from pytest_auditfence.errors import CassetteMissError
from pytest_auditfence.testing import ChatRequest, Reply, ScriptedOpenAIServer, ToolCall

API_KEY = "sk-proj-PLANTEDsecret0123456789abcdef"
NODEID = "tests/cassettes/test_cassettes.py::test_example[param-1]"


@tool
def search(query: str) -> str:
    """Search the sources."""
    return query


def rule(request: ChatRequest) -> Reply:
    """Answers depend only on the request, so recording order never matters."""
    text = request.last_user_text
    if text.startswith("tool:"):
        return Reply(tool_calls=[ToolCall("search", {"query": text[5:]})])
    return Reply(content=f"answer to {text}")


def llm(base_url: str, **kwargs: Any) -> ChatOpenAI:
    return ChatOpenAI(model="gpt-4o-mini", base_url=base_url, api_key=API_KEY, max_retries=0, **kwargs)


def outcome(message: BaseMessage) -> str:
    """Everything a test could compare about a reply, except LangChain's per-run message id."""
    data = {"content": message.content, "tool_calls": getattr(message, "tool_calls", None),
            "usage": getattr(message, "usage_metadata", None), "metadata": message.response_metadata}
    return json.dumps(data, sort_keys=True)


def workload(base_url: str) -> list[str]:
    """Plain, tool-calling, streaming (with usage) and concurrent async calls."""
    model = llm(base_url, stream_usage=True)
    results = [outcome(model.invoke("revenue 2023")),
               outcome(model.bind_tools([search]).invoke("tool:gross margin"))]
    chunks = list(model.stream("stream the services story"))
    full = chunks[0]
    for chunk in chunks[1:]:
        full = full + chunk
    results.append(outcome(full))

    async def many() -> list[BaseMessage]:
        return await asyncio.gather(*(model.ainvoke(f"concurrent {i}") for i in range(8)))

    results.extend(outcome(m) for m in asyncio.run(many()))
    return results


def port_is_closed(port: int) -> bool:
    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) != 0


def test_record_then_replay_with_the_server_stopped_gives_identical_results(tmp_path: Path) -> None:
    path = tmp_path / "cassette.yaml"
    with ScriptedOpenAIServer(rule=rule) as server:
        base_url, port = server.base_url, server.port
        with use_cassette(path, "once"):
            recorded = workload(base_url)
        calls_while_recording = len(server.requests)
    assert calls_while_recording == 11 and path.is_file()
    assert port_is_closed(port)
    with use_cassette(path):  # replay only, the default
        replayed = workload(base_url)
    assert replayed == recorded
    assert "answer to concurrent 7" in recorded[-1] and '"query": "gross margin"' in recorded[1]


def test_the_port_is_not_matched(tmp_path: Path) -> None:
    path = tmp_path / "cassette.yaml"
    with ScriptedOpenAIServer(rule=rule) as server, use_cassette(path, "once"):
        recorded = outcome(llm(server.base_url).invoke("revenue 2023"))
        first_port = server.port
    with ScriptedOpenAIServer(rule=lambda request: Reply(content="live, not replayed")) as other:
        with use_cassette(path):
            replayed = outcome(llm(other.base_url).invoke("revenue 2023"))
        assert other.requests == []  # served from the cassette although this port differs
        assert f":{other.port}" not in path.read_text() and f":{first_port}" not in path.read_text()
    assert replayed == recorded


def test_concurrent_replays_get_their_own_responses(tmp_path: Path) -> None:
    prompts = [f"prompt {i}" for i in range(8)]
    path = tmp_path / "cassette.yaml"

    async def ask(base_url: str, order: list[str]) -> dict[str, str]:
        model = llm(base_url)
        answers = await asyncio.gather(*(model.ainvoke(p) for p in order))
        return {p: a.content for p, a in zip(order, answers, strict=True)}

    with ScriptedOpenAIServer(rule=rule) as server:
        base_url = server.base_url
        with use_cassette(path, "once"):
            asyncio.run(ask(base_url, prompts))
    shuffled = prompts[:]
    random.Random(7).shuffle(shuffled)
    with use_cassette(path):
        replayed = asyncio.run(ask(base_url, shuffled))
    assert replayed == {p: f"answer to {p}" for p in prompts}


def test_concurrent_recordings_are_byte_identical(tmp_path: Path) -> None:
    async def record_twice(base_url: str) -> None:
        # one event loop: LangChain caches its async HTTP client per base_url across loops
        model = llm(base_url)
        for name, order in (("a.yaml", range(6)), ("b.yaml", reversed(range(6)))):
            with use_cassette(tmp_path / name, "once"):
                await asyncio.gather(*(model.ainvoke(f"q{i}") for i in order))

    with ScriptedOpenAIServer(rule=rule) as server:
        asyncio.run(record_twice(server.base_url))
    assert (tmp_path / "a.yaml").read_bytes() == (tmp_path / "b.yaml").read_bytes()


def test_no_secret_reaches_the_cassette(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ACME_SERVICE_TOKEN", "acme-token-value-42")
    path = tmp_path / "cassette.yaml"
    with ScriptedOpenAIServer(rule=lambda request: Reply(content="key sk-live-ECHOEDKEY1234567890 seen")) as server:
        model = ChatOpenAI(model="gpt-4o-mini", base_url=server.base_url, api_key=API_KEY, max_retries=0,
                           organization="org-PLANTEDorganization",
                           default_headers={"x-api-key": "PLANTED-x-api-key", "cookie": "session=PLANTED"})
        codename = [lambda text: text.replace("internal-codename", "[X]")]
        with use_cassette(path, "once", extra_filters=codename):
            model.invoke(f"my key is {API_KEY}, token acme-token-value-42, project internal-codename")
            list(model.stream("stream with Bearer abcdefghijklmnop1234"))
        sent_headers = server.requests[0].headers
    assert sent_headers["openai-organization"] == "org-PLANTEDorganization"  # the client did send them
    text = path.read_text()
    for secret in (API_KEY, "PLANTED", "acme-token-value-42", "internal-codename", "ECHOEDKEY",
                   "abcdefghijklmnop1234", "sk-", "org-scripted", "proj_scripted", "scripted-session", "req_"):
        assert secret not in text, secret
    interactions = yaml.safe_load(text)["interactions"]
    for interaction in interactions:
        request_headers = {h.lower() for h in interaction["request"]["headers"]}
        assert not any(h.startswith("x-stainless-") for h in request_headers)
        assert not request_headers & {"authorization", "openai-organization", "x-api-key", "cookie", "host"}
        response_headers = {h.lower() for h in interaction["response"]["headers"]}
        assert not response_headers & {"openai-organization", "openai-project", "set-cookie", "x-request-id",
                                       "date", "server"}
    # the scrubbed request still matches its recording: redaction runs on both sides before matching
    with use_cassette(path, extra_filters=codename):
        replayed = model.invoke(f"my key is {API_KEY}, token acme-token-value-42, project internal-codename")
    assert replayed.content == "key [REDACTED:openai] seen"


def record_one(path: Path, prompts: list[str], mode: str = "once") -> ScriptedOpenAIServer:
    with ScriptedOpenAIServer(rule=rule) as server, use_cassette(path, mode):
        model = llm(server.base_url)
        for prompt in prompts:
            model.invoke(prompt)
    return server


def test_miss_names_cassette_nearest_request_differing_field_and_command(tmp_path: Path) -> None:
    path = tmp_path / "cassettes" / "test_example.yaml"
    record_one(path, ["first question", "What was revenue in 2023?"])
    history = [("user", "What was revenue in 2023?"), ("assistant", "ok"), ("user", "and in 2022?")]
    with ScriptedOpenAIServer(rule=rule) as server:
        model = llm(server.base_url)
        with pytest.raises(CassetteMissError) as info, use_cassette(path, test_nodeid=NODEID):
            model.invoke("What was revenue in 2024?")
        assert server.requests == []  # replay-only: the miss never reaches the network
    message = str(info.value)
    bodies = [i["request"]["body"] for i in yaml.safe_load(path.read_text())["interactions"]]
    nearest = next(n for n, body in enumerate(bodies) if "2023" in body)
    assert str(path.name) in message
    assert f"nearest recorded: #{nearest} POST /v1/chat/completions" in message
    assert "differs at: body.messages[0].content: recorded 'What was revenue in 2023?' / now " \
           "'What was revenue in 2024?'" in message
    assert f"pytest '{NODEID}' --fence-record-mode=once" in message
    assert info.value.differing_field.startswith("body.messages[0].content")  # type: ignore[attr-defined]
    assert len(message.splitlines()) == 4
    with pytest.raises(CassetteMissError, match=r"differs at: body.messages\[1\]: not recorded"), \
            use_cassette(path, test_nodeid=NODEID):
        llm("http://127.0.0.1:9/v1").invoke(history[:1] + history[1:])


def test_miss_when_the_cassette_does_not_exist_and_when_replayed_twice(tmp_path: Path) -> None:
    path = tmp_path / "never.yaml"
    with pytest.raises(CassetteMissError, match="does not exist") as info, use_cassette(path, test_nodeid=NODEID):
        llm("http://127.0.0.1:9/v1").invoke("x")
    assert "rm " not in str(info.value) and "--fence-record-mode=once" in str(info.value)
    assert not path.exists()  # "none" never writes
    record_one(path, ["only once"])
    with pytest.raises(CassetteMissError, match="recorded 1 time"), use_cassette(path):
        model = llm("http://127.0.0.1:9/v1")
        model.invoke("only once")
        model.invoke("only once")


@pytest.mark.parametrize("kind", ["astream", "ainvoke", "stream"])
def test_misses_are_not_wrapped_by_the_client(tmp_path: Path, kind: str) -> None:
    path = tmp_path / "c.yaml"
    record_one(path, ["recorded"])
    model = llm("http://127.0.0.1:9/v1")

    async def run_async() -> None:
        if kind == "astream":
            [c async for c in model.astream("not recorded")]
        else:
            await model.ainvoke("not recorded")

    with pytest.raises(CassetteMissError, match="recorded 'recorded' / now 'not recorded'"), use_cassette(path):
        if kind == "stream":
            list(model.stream("not recorded"))
        else:
            asyncio.run(run_async())


def count_interactions(path: Path) -> int:
    return len(yaml.safe_load(path.read_text())["interactions"])


def test_record_mode_once_records_only_a_new_cassette(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    record_one(path, ["a"])
    with ScriptedOpenAIServer(rule=rule) as server, use_cassette(path, "once"):
        model = llm(server.base_url)
        assert model.invoke("a").content == "answer to a"
        with pytest.raises(CassetteMissError):
            model.invoke("b")
        assert server.requests == []
    assert count_interactions(path) == 1


def test_record_mode_new_episodes_replays_old_and_records_new(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    record_one(path, ["a"])
    with ScriptedOpenAIServer(rule=rule) as server, use_cassette(path, "new_episodes"):
        model = llm(server.base_url)
        model.invoke("a")
        model.invoke("b")
        assert [r.json["messages"][0]["content"] for r in server.requests] == ["b"]
    assert count_interactions(path) == 2


def test_record_mode_all_rerecords_everything_without_duplicates(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    record_one(path, ["a", "b"])
    with ScriptedOpenAIServer(rule=lambda request: Reply(content="new")) as server, use_cassette(path, "all"):
        assert llm(server.base_url).invoke("a").content == "new"
        assert len(server.requests) == 1
    answers = [json.loads(i["response"]["body"]["string"])["choices"][0]["message"]["content"]
               for i in yaml.safe_load(path.read_text())["interactions"]]
    assert sorted(answers) == ["answer to b", "new"]


def test_unknown_record_mode_is_rejected() -> None:
    assert RECORD_MODES == ("none", "once", "new_episodes", "all")
    with pytest.raises(CassetteConfigError, match=r"'rewrite' is not one of none, once, new_episodes, all"):
        make_vcr("rewrite")
    with pytest.raises(CassetteConfigError, match="--fence-record-mode=once"):
        with use_cassette("x.yaml", "sometimes"):
            pass


@pytest.mark.parametrize(("nodeid", "folder", "expected"), [
    ("tests/test_mod.py::test_a", None, "tests/cassettes/test_mod/test_a.yaml"),
    ("tests/test_mod.py::TestX::test_a", None, "tests/cassettes/test_mod/TestX.test_a.yaml"),
    ("tests/test_mod.py::test_a[param-1]", None, "tests/cassettes/test_mod/test_a[param-1].yaml"),
    ("tests/test_mod.py::test_a", "recorded", "recorded/tests/test_mod/test_a.yaml"),
])
def test_cassette_path_layout(nodeid: str, folder: str | None, expected: str) -> None:
    path = cassette_path(nodeid, Path("tests/test_mod.py"), None if folder is None else Path(folder))
    assert path.as_posix() == expected


def test_cassette_names_are_sanitised_stable_and_distinct() -> None:
    module = Path("tests/test_mod.py")
    slash = cassette_path("tests/test_mod.py::test_a[a/b]", module)
    underscore = cassette_path("tests/test_mod.py::test_a[a_b]", module)
    assert slash.name.startswith("test_a[a_b]-") and slash.suffix == ".yaml"
    assert slash != underscore
    assert slash == cassette_path("tests/test_mod.py::test_a[a/b]", module)
    long = cassette_path("tests/test_mod.py::test_a[" + "x" * 400 + "]", module)
    assert len(long.name) < 140
    with pytest.raises(CassetteConfigError, match="names no test"):
        cassette_path("tests/test_mod.py", module)


def test_an_active_vcr_cassette_is_reused_not_patched_twice(tmp_path: Path) -> None:
    """What pytest-recording's `@pytest.mark.vcr` does: a plain `vcr.VCR().use_cassette` around the test."""
    theirs, ours = tmp_path / "theirs.yaml", tmp_path / "ours.yaml"
    with ScriptedOpenAIServer(rule=rule) as server:
        with vcr.VCR(record_mode="once").use_cassette(str(theirs)) as outer:
            assert active_cassette() is outer
            with use_cassette(ours, "once") as inner:
                assert inner is outer
                llm(server.base_url).invoke("through the suite's cassette")
        assert active_cassette() is None
    assert not ours.exists()
    recorded = yaml.safe_load(theirs.read_text())["interactions"]
    assert "through the suite's cassette" in recorded[0]["request"]["body"]
    # a miss in the suite's cassette still surfaces as our error, with our message
    with vcr.VCR(record_mode="none").use_cassette(str(theirs)):
        with pytest.raises(CassetteMissError, match="differs at") as info, use_cassette(ours, test_nodeid=NODEID):
            llm("http://127.0.0.1:9/v1").invoke("something else")
    assert type(info.value.__cause__).__name__ == "CannotOverwriteExistingCassetteException"


pytest_plugins = ("pytester",)


def test_coexists_with_pytest_recording_marker(pytester: pytest.Pytester, tmp_path: Path) -> None:
    with ScriptedOpenAIServer(rule=rule) as server:
        pytester.makepyfile(f"""
            import pytest
            from langchain_openai import ChatOpenAI
            from pytest_auditfence.cassettes import use_cassette

            @pytest.mark.vcr
            def test_both(vcr, tmp_path):
                with use_cassette(tmp_path / "ours.yaml", "once") as cassette:
                    assert cassette is vcr
                    model = ChatOpenAI(model="m", base_url="{server.base_url}", api_key="sk-x", max_retries=0)
                    assert model.invoke("hello").content == "answer to hello"
                assert not (tmp_path / "ours.yaml").exists()
        """)
        result = pytester.runpytest_subprocess("--record-mode=once", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    assert list(pytester.path.glob("cassettes/*/test_both.yaml"))


# -- issue 12: a damaged cassette is a named error ------------------------------------------------------


def test_invalid_cassette_yaml_is_a_named_error_with_the_file_and_the_command(tmp_path: Path) -> None:
    from pytest_auditfence.errors import CassetteYamlError

    path = tmp_path / "broken.yaml"
    path.write_text("interactions:\n- request: {body: 'unclosed\n  method: POST\n", encoding="utf-8")
    with ScriptedOpenAIServer(rule=rule) as server:
        with pytest.raises(CassetteYamlError, match=r"broken\.yaml: not a readable vcrpy YAML cassette at line \d+"
                                                    r".*rm .*broken\.yaml && pytest .*--fence-record-mode=once"):
            with use_cassette(path, "none", test_nodeid=NODEID):
                llm(server.base_url).invoke("hello")


def test_invalid_cassette_yaml_reaches_the_json_report_as_an_audit_error(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_broken='''
        import pytest

        @pytest.mark.fence(mode="llm", min_coverage=0.0)
        def test_uses_a_cassette(fence_snapshot):
            fence_snapshot.set_report("Nothing here.")
    ''')
    folder = pytester.path / "cassettes" / "test_broken"
    folder.mkdir(parents=True)
    (folder / "test_uses_a_cassette.yaml").write_text("interactions: [\n  {request: :\n", encoding="utf-8")
    result = pytester.runpytest("--fence-report=report.json")
    result.stdout.fnmatch_lines(["*test_uses_a_cassette.yaml: not a readable vcrpy YAML cassette*--fence-record-mode*"])
    report = json.loads((pytester.path / "report.json").read_text())
    (entry,) = [t for t in report["tests"] if t["nodeid"].endswith("test_uses_a_cassette")]
    assert entry["outcome"] == "audit-error" and "not a readable vcrpy YAML cassette" in entry["errors"][0]
