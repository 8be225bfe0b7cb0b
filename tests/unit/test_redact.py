"""redact: provider key patterns, credential fields, env values, the user hook, no false positives."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from pytest_auditfence.errors import AuditFenceError
from pytest_auditfence.redact import Redactor, is_credential_key
from pytest_auditfence.textfmt import render_text, stable_json

# Fake but well-formed secrets of every kind the redactor knows, with the kind it must report.
SECRETS: dict[str, str] = {
    "openai": "sk-Abc123def456GHI789jkl012MNO345pqr678STU901vwx",
    "openai-project": "sk-proj-Zy9_Xw8-Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0Fe9Dc8Ba7Zy6Xw5Vu4Ts3",
    "anthropic": "sk-ant-api03-Q1w2E3r4T5y6U7i8O9p0A1s2D3f4G5h6J7k8L9z0X1c2V3b4N5m6-AbCdEfAA",
    "github": "ghp_16C7e42F292c6912E7710c838347Ae178B4a",
    "github-oauth": "gho_16C7e42F292c6912E7710c838347Ae178B4a",
    "github-server": "ghs_16C7e42F292c6912E7710c838347Ae178B4a",
    "github-user": "ghu_16C7e42F292c6912E7710c838347Ae178B4a",
    "github-pat": "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTU",
    "aws": "AKIAIOSFODNN7EXAMPLE",
    "aws-session": "ASIAY34FZKBOKMUTVV7A",
    "google": "AIzaSyDaGmWKa4JsXZ-HjGw7ISLn_3namBGewQe",
    "tavily": "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",
    "jwt": "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
}
KIND = {
    "openai": "openai",
    "openai-project": "openai",
    "anthropic": "anthropic",
    "github": "github",
    "github-oauth": "github",
    "github-server": "github",
    "github-user": "github",
    "github-pat": "github",
    "aws": "aws",
    "aws-session": "aws",
    "google": "google",
    "tavily": "tavily",
    "jwt": "jwt",
}
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"

FINANCIAL_PROSE = """\
Apple's fiscal 2023 net sales were $383.3 billion, down 3% year over year; the risk-adjusted return
on the task-list of initiatives (see the desk-top review and the ask-price table) stayed near 1.2x.
Bearer bonds and bearer instruments are no longer issued; the bearer securities market is small.
The key risk is FX: a token amount of 0.5% of revenue; the password reset flow is out of scope.
Secret: none disclosed. Management's disk-based storage spend rose to $1.2bn (AKIA is not a key).
EPS was $6.13 (diluted), versus $6.11; gross margin 44.1%; ROE (risk-free) 1.56; ticker AAPL, MSFT.
The sk-ii brand and the skin-care line; the whisk-y tasting; husk-like shells; basket-weave; sk-8.
Ratio eyJ is not a token; the AIza prefix alone is not a key; tvly- without a key; ghp_ only.
Authorization: pending board approval. API key: see the vault. Token: approximately 12 percent.
"""


def redactor(**kwargs: Any) -> Redactor:
    kwargs.setdefault("env", {})
    return Redactor(**kwargs)


@pytest.mark.parametrize("name", sorted(SECRETS))
def test_each_secret_kind_is_redacted_in_text(name: str) -> None:
    secret = SECRETS[name]
    text = f"header {secret} trailer\nthen ({secret}), '{secret}'; key={secret}"
    out = redactor().text(text)
    assert secret not in out
    assert out.count(f"[REDACTED:{KIND[name]}]") == 4
    assert out.startswith("header ") and "trailer" in out


@pytest.mark.parametrize("name", sorted(SECRETS))
def test_each_secret_kind_is_redacted_everywhere_in_a_value(name: str) -> None:
    secret = SECRETS[name]
    value = {
        "config": {"nested": [{"deep": f"use {secret} here"}], "tuple": ("x", secret)},
        "messages": [
            HumanMessage(f"my key is {secret}"),
            AIMessage(content="", tool_calls=[{"name": "call_api", "args": {"header": secret}, "id": "c1"}]),
            ToolMessage(content=json.dumps({"echo": secret, "items": [secret]}), tool_call_id="c1", name="call_api"),
        ],
        "json_text": json.dumps({"outer": {"inner": secret}}),
        f"key-{secret}": "secret as a dict key",
    }
    out = redactor().value(value)
    flat = stable_json(out)
    assert secret not in flat
    assert secret not in render_text(out)
    assert "[REDACTED:" in flat
    # structure survives: the message is still a message, the tool call still has its name
    assert out["messages"][1]["tool_calls"][0]["name"] == "call_api"
    assert out["messages"][0]["type"] == "human"


def test_anthropic_wins_over_openai() -> None:
    out = redactor().text(SECRETS["anthropic"])
    assert out == "[REDACTED:anthropic]"


def test_secrets_hidden_behind_json_escapes_are_found() -> None:
    escaped = json.dumps({"k": SECRETS["openai"]}).replace("sk-", "\\u0073k-")
    out = redactor().value({"body": escaped})
    assert SECRETS["openai"] not in json.dumps(json.loads(out["body"]))
    assert "[REDACTED:openai]" in out["body"]


def test_aws_secret_access_key_assignment() -> None:
    text = f"[default]\naws_access_key_id = {SECRETS['aws']}\naws_secret_access_key = {AWS_SECRET}\n"
    out = redactor().text(text)
    assert AWS_SECRET not in out and SECRETS["aws"] not in out
    assert "aws_secret_access_key = [REDACTED:aws]" in out
    assert "aws_access_key_id = [REDACTED:aws]" in out


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Authorization: Bearer abc.def-ghi_1234567", "Authorization: Bearer [REDACTED:bearer]"),
        ("authorization: bearer Zm9vYmFyYmF6cXV4cXV1eA==", "authorization: bearer [REDACTED:bearer]"),
        ("BEARER XYZ12345678", "BEARER [REDACTED:bearer]"),
        ("Authorization: Basic dXNlcjpwYXNzd29yZA==", "Authorization: Basic [REDACTED:authorization]"),
        ("GET /search?api_key=abcd1234efgh&q=AAPL", "GET /search?api_key=[REDACTED:credential]&q=AAPL"),
        ('{"openai_api_key": "abcd1234efgh5678"}', '{"openai_api_key": "[REDACTED:credential]"}'),
        ("GITHUB_TOKEN=0123abcd4567efgh", "GITHUB_TOKEN=[REDACTED:credential]"),
    ],
)
def test_bearer_authorization_and_assignments(text: str, expected: str) -> None:
    assert redactor().text(text) == expected


def test_no_false_positives_on_financial_prose() -> None:
    assert redactor().text(FINANCIAL_PROSE) == FINANCIAL_PROSE
    report = {"report": FINANCIAL_PROSE, "rows": [{"metric": "net sales", "value": "$383.3B"}]}
    assert redactor().value(report) == report


def test_short_sk_prefixes_are_not_keys() -> None:
    for text in ("sk-short", "sk-test", "a task-listing", "desk-job-with-a-long-suffix-here-ok", "risk-adjusted-return-on-capital"):
        assert redactor().text(text) == text


def test_credential_named_fields_are_replaced_whole() -> None:
    value = {
        "headers": {"Authorization": "Basic xyz", "X-API-Key": "short", "Cookie": "sid=1", "Content-Type": "json"},
        "config": {"api_key": {"nested": "anything"}, "db_password": "hunter2", "token": 12345, "refresh_token": None},
        "usage": {"input_tokens": 10, "output_tokens": 5, "total_tokens": 15, "max_tokens": 100},
        "token_usage": {"total_tokens": 15},
    }
    out = redactor().value(value)
    assert out["headers"] == {
        "Authorization": "[REDACTED:authorization]",
        "Content-Type": "json",
        "Cookie": "[REDACTED:cookie]",
        "X-API-Key": "[REDACTED:x-api-key]",
    }
    assert out["config"] == {
        "api_key": "[REDACTED:api_key]",
        "db_password": "[REDACTED:db_password]",
        "refresh_token": None,
        "token": "[REDACTED:token]",
    }
    assert out["usage"] == value["usage"]
    assert out["token_usage"] == value["token_usage"]


def test_credential_fields_inside_json_strings() -> None:
    body = json.dumps({"query": "AAPL revenue", "password": "hunter2", "opts": {"apiKey": "k"}})
    out = redactor().value({"body": body})
    decoded = json.loads(out["body"])
    assert decoded == {"opts": {"apiKey": "[REDACTED:apikey]"}, "password": "[REDACTED:password]", "query": "AAPL revenue"}
    clean = json.dumps({"query": "AAPL revenue"}, indent=2)
    assert redactor().value({"body": clean}) == {"body": clean}  # untouched JSON keeps its formatting


@pytest.mark.parametrize(
    "key",
    ["api_key", "APIKEY", "x-api-key", "Authorization", "password", "client_secret", "access_token", "OPENAI_API_KEY", "set-cookie"],
)
def test_is_credential_key(key: str) -> None:
    assert is_credential_key(key)


@pytest.mark.parametrize("key", ["input_tokens", "token_usage", "max_tokens", "keywords", "monkey", "secretary_name", "author"])
def test_is_not_credential_key(key: str) -> None:
    assert not is_credential_key(key)


def test_env_values_are_redacted_longest_first() -> None:
    env = {
        "OPENAI_API_KEY": "plainvalue-not-pattern-42",
        "DB_PASSWORD": "plainvalue",  # a prefix of the one above: the longer one must win there
        "MY_SECRET_THING": "s3cr3t-phrase",
        "TOKENIZERS_PARALLELISM": "false",  # too short
        "HOME": "/home/analyst/projects",  # name says nothing secret
        "Session_Token": "lowercase-name-ok",
    }
    r = Redactor(env=env)
    text = "a plainvalue-not-pattern-42 b plainvalue c s3cr3t-phrase d false e /home/analyst/projects f lowercase-name-ok"
    assert r.text(text) == (
        "a [REDACTED:env:OPENAI_API_KEY] b [REDACTED:env:DB_PASSWORD] c [REDACTED:env:MY_SECRET_THING] "
        "d false e /home/analyst/projects f [REDACTED:env:Session_Token]"
    )
    assert r.env_names == ("DB_PASSWORD", "MY_SECRET_THING", "OPENAI_API_KEY", "Session_Token")
    assert "plainvalue" not in repr(r)


def test_env_defaults_to_os_environ_read_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AUDITFENCE_TEST_API_KEY", "value-from-environ-1")
    r = Redactor()
    monkeypatch.setenv("AUDITFENCE_TEST_API_KEY", "changed-after-construction")
    assert r.text("x value-from-environ-1 y") == "x [REDACTED:env:AUDITFENCE_TEST_API_KEY] y"
    assert r.text("changed-after-construction") == "changed-after-construction"


def test_chat_openai_config_does_not_leak_its_key() -> None:
    from langchain_openai import ChatOpenAI

    key = "sk-live-" + "Q" * 12 + "0123456789abcdefABCDEF"
    llm = ChatOpenAI(model="gpt-4o-mini", api_key=key, base_url="http://127.0.0.1:9/v1", default_headers={"Authorization": f"Bearer {key}"})
    out = redactor().value({"llm": llm, "repr": repr(llm)})
    assert key not in stable_json(out)


def test_extra_runs_after_builtins_on_every_string() -> None:
    seen: list[str] = []

    def hide_codename(text: str) -> str:
        seen.append(text)
        return text.replace("Project Falcon", "[REDACTED:codename]")

    r = redactor(extra=hide_codename)
    out = r.value({"Project Falcon": f"Project Falcon uses {SECRETS['openai']}", "n": 3})
    assert out == {"[REDACTED:codename]": "[REDACTED:codename] uses [REDACTED:openai]", "n": 3}
    assert "Project Falcon uses [REDACTED:openai]" in seen  # the hook saw built-in output, never the key
    assert all(SECRETS["openai"] not in s for s in seen)


def test_extra_that_raises_fails_closed_naming_the_callable() -> None:
    def broken_hook(text: str) -> str:
        raise ValueError("cannot handle")

    r = redactor(extra=broken_hook)
    with pytest.raises(AuditFenceError, match=r"broken_hook.*raised ValueError.*nothing was written unredacted") as info:
        r.value({"a": "text"})
    assert isinstance(info.value.__cause__, ValueError)


def test_extra_that_returns_non_str_fails_closed() -> None:
    r = redactor(extra=lambda text: None)  # type: ignore[arg-type,return-value]
    with pytest.raises(AuditFenceError, match=r"<lambda>.*returned NoneType, not str"):
        r.text("anything")


@pytest.mark.parametrize(("kwargs", "match"), [({"extra": "not callable"}, "redact= must be a callable"), ({"env": ["A=B"]}, "env=")])
def test_bad_arguments_are_clear_errors(kwargs: dict[str, Any], match: str) -> None:
    with pytest.raises(AuditFenceError, match=match):
        Redactor(**kwargs)


def test_text_rejects_non_strings() -> None:
    with pytest.raises(AuditFenceError, match=r"takes a str, got dict.*Redactor.value"):
        redactor().text({"a": 1})  # type: ignore[arg-type]


def test_disabled_redactor_leaves_everything_untouched() -> None:
    r = Redactor(enabled=False, extra=lambda t: "HOOK RAN", env={"API_KEY": "plainvalue-secret"})
    text = f"{SECRETS['openai']} plainvalue-secret"
    assert r.text(text) == text
    assert r.value({"api_key": text}) == {"api_key": text}


def test_value_is_idempotent_on_a_realistic_payload() -> None:
    r = Redactor(env={"SERVICE_TOKEN": "svc-token-value-99"})
    payload = {
        "request": {"headers": {"authorization": f"Bearer {SECRETS['jwt']}"}, "url": "https://x/?api_key=abc123def456"},
        "body": json.dumps({"messages": [{"role": "user", "content": f"{SECRETS['github']} svc-token-value-99"}]}),
    }
    once = r.value(payload)
    assert r.value(once) == once


_pieces = st.sampled_from([*SECRETS.values(), AWS_SECRET, "Bearer ", "api_key=", "aws_secret_access_key=", " ", "\n", "-", "_", "[REDACTED:", "]", "sk-", "x"])


@settings(max_examples=300, deadline=None)
@given(parts=st.lists(_pieces | st.text(max_size=30), max_size=12))
def test_text_is_idempotent(parts: list[str]) -> None:
    r = Redactor(env={"MY_API_KEY": "envsecret123"})
    text = "".join(parts)
    once = r.text(text)
    assert r.text(once) == once
    for secret in SECRETS.values():
        if secret in text and secret not in once:
            assert "[REDACTED:" in once


def test_repeated_strings_give_the_same_redaction_and_the_user_hook_sees_every_one():
    secret = "sk-proj-" + "Ab1" * 12
    value = {"a": f"key {secret}", "b": [f"key {secret}", f"key {secret}"]}
    plain = Redactor(enabled=True, env={})
    batch: dict = {}  # a flush shares one memo across its values
    first, second = plain.value(value, batch), plain.value(value, batch)
    assert first == second == plain.value(value) and secret not in json.dumps(first)
    seen: list[str] = []

    def hook(text: str) -> str:
        seen.append(text)
        return text.replace("key", "K")

    hooked = Redactor(enabled=True, extra=hook, env={})
    assert hooked.value(value, batch)["b"] == [first["a"].replace("key", "K")] * 2
    hooked.value(value, batch)
    assert len([s for s in seen if s.startswith("key ")]) == 6  # 3 strings, twice: no answer reused


# -- issue 12: the forms that used to reach trace files ------------------------------------------------


@pytest.mark.parametrize(("text", "secret"), [
    ("postgres://admin:Sup3rS3cretPw@db.internal:5432/prod", "Sup3rS3cretPw"),
    ("redis://:plainpassword@cache:6379/0", "plainpassword"),
    ("password: abcdefghijklmnopq", "abcdefghijklmnopq"),  # 17 letters, no digit
    ("db_password=shortpw", "shortpw"),
    ("settings {'password': 'correct horse battery', 'user': 'bob'}", "correct horse battery"),
    ('"{\\"client_secret\\": \\"abcdefgh12345\\"}"', "abcdefgh12345"),
    ('{"auth": "{\\\\\\"token\\\\\\": \\\\\\"deepsecretvalue1\\\\\\"}"}', "deepsecretvalue1"),
    ("short-password: password: plantedshortpw", "plantedshortpw"),
])
def test_credentials_in_every_text_form_are_redacted(text: str, secret: str) -> None:
    redacted = Redactor(env={}).text(text)
    assert secret not in redacted and "[REDACTED:" in redacted


@pytest.mark.parametrize("text", [
    "the token: approximately 5 words", "max_tokens: 1000", "input_tokens=1234", "secret sauce: ketchup",
    "password reset link sent", "see https://en.wikipedia.org/wiki/Foo:Bar@baz",
])
def test_prose_about_credentials_is_left_alone(text: str) -> None:
    assert Redactor(env={}).text(text) == text


@pytest.mark.parametrize("escape", ["\\n", "\\r\\n", "\\t"])
@pytest.mark.parametrize("name", sorted(SECRETS))
def test_a_secret_after_an_escaped_line_break_is_found(name: str, escape: str) -> None:
    # str() of a dict holding a multi-line note writes its breaks as the two characters '\n': the 'n' must not
    # read as the start of a word that the key continues
    text = "Findings: " + str({"notes": f"intro{escape.encode().decode('unicode_escape')}{SECRETS[name]}"})
    assert escape in text
    out = redactor().text(text)
    assert SECRETS[name] not in out
    assert f"[REDACTED:{KIND[name]}]" in out


@pytest.mark.parametrize("field", ["password: hunter2222", "api_key=Zq81mMx0aa91", "Bearer abcdef0123456789"])
def test_a_credential_field_after_an_escaped_line_break_is_found(field: str) -> None:
    text = repr(f"first line\n{field}\nlast line")
    out = redactor().text(text)
    assert field.split()[-1].split("=")[-1] not in out
    assert "[REDACTED:" in out


def test_words_after_an_escaped_break_are_still_words() -> None:
    # the escape is a boundary, not a licence: 'nsk-' after '\n' and 'task-list' stay as they are
    text = repr("risk\ntask-list and the\nnsk- risk-adjusted\ntokens: approximately")
    assert redactor().text(text) == text
