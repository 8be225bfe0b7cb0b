"""finalize() of a looping agent costs what its rounds add, not the square of them: a node's input holds every
earlier message again, so each repeated message is scanned for secrets and binary data once (Redactor.leaves_lines
over render_parts), and truncation joins only the head it keeps. The files must be the ones the whole-text path
(redact the full rendered text, then truncate it) writes, byte for byte, secrets redacted the same way."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.tools import tool

from pytest_auditfence import Snapshot
from pytest_auditfence.capturing import tracefiles
from pytest_auditfence.capturing.store import BlobStore, read_journal
from pytest_auditfence.capturing.topology import materialize
from pytest_auditfence.manifest import JOURNAL_NAME
from pytest_auditfence import redact as redact_module
from pytest_auditfence.redact import Redactor
from tests.capture.capture_graphs import agent_loop

OPENAI = "sk-proj-" + "Q7v" * 12
ENV_SECRET = "envsecret-4411-zz"


@tool
def get_filing(ticker: str, call: int) -> str:
    """One section of a company's filing."""
    rows = "".join(f"| {ticker} item {call}.{i} | {1000 + 37 * i + call:,} | {900 + 29 * i:,} |\n" for i in range(40))
    return f"Income statement of {ticker}, section {call} (in millions)\n| Item | FY2024 | FY2023 |\n{rows}"


def replies(rounds: int, secret_in: int | None = None) -> Iterator[AIMessage]:
    for n in range(rounds):
        words = " and more".join(f" section {n} line {i}" for i in range(12))
        if n == secret_in:  # a secret in one long message, repeated in every later node input and model call
            words += f"\nmy key is {OPENAI} and the password: {ENV_SECRET}"
        extra = {"attachment": bytes(range(48))} if n == 1 else {}  # shown as binary data in every later file
        yield AIMessage(content=f"Reading section {n}.{words}", additional_kwargs=extra,
                        tool_calls=[{"name": "get_filing", "args": {"ticker": "HALV", "call": n}, "id": f"c{n}"}])
    yield AIMessage(content="Revenue grew in every period.")


def capture(folder: Any, rounds: int, *, secret_in: int | None = None, **options: Any) -> Snapshot:
    snap = Snapshot(folder, **options)
    app = agent_loop(tools=[get_filing], messages=replies(rounds, secret_in))
    app.invoke({"messages": [HumanMessage(content="Summarise HALV's filing.")]},
               config=snap.config(recursion_limit=2 * rounds + 10))
    snap.set_report("Revenue grew in every period.")
    snap.finalize()
    return snap


def whole_text_path(folder: Any, redactor: Redactor, max_output_chars: int) -> Any:
    """What the whole-text path gives for the folder's journal (no `unredacted`: every rendered text is
    redacted in full, searched for binary data in full, then truncated)."""
    read = read_journal(folder / JOURNAL_NAME)
    return materialize(read.events, BlobStore(folder).reader().value, journal=read.summary,
                       max_output_chars=max_output_chars, redact_text=redactor.text)


@pytest.mark.parametrize(("secret_in", "max_output_chars"), [(None, 200_000), (None, 9_000), (2, 9_000)])
def test_an_agent_folder_equals_the_whole_text_path(tmp_path, monkeypatch, secret_in, max_output_chars):
    monkeypatch.setenv("FILINGS_API_KEY", ENV_SECRET)
    snap = capture(tmp_path / "t", 6, secret_in=secret_in, max_output_chars=max_output_chars)
    manifest = snap.load_manifest()
    reader = tracefiles.TraceFiles(tmp_path / "t")
    whole = whole_text_path(tmp_path / "t", Redactor(enabled=True), max_output_chars)
    expected = whole.files
    assert whole.manifest.files == manifest.files  # paths, sha256, truncated and binary flags
    assert sum(record.binary for record in manifest.files) >= 6
    for record in manifest.files:
        assert reader.text(record.path) == expected[record.path], record.path
    if max_output_chars < 200_000:
        assert any(record.truncated for record in manifest.files if record.kind == "node_input")
    texts = [reader.text(record.path) for record in manifest.files]
    assert not any(OPENAI in text or ENV_SECRET in text for text in texts)
    if secret_in is not None:  # the negative: the repeated message's secret is found in every file it is in
        later = [record.path for record in manifest.files
                 if record.kind == "node_input" and record.round > secret_in + 1]
        assert later and all("[REDACTED:openai]" in reader.text(path) for path in later)


def test_a_secret_across_lines_of_a_repeated_message_falls_back_to_the_whole_text(tmp_path, monkeypatch):
    """An env value holding a line break could span two parts: then the parts decide nothing."""
    multi = "first-half-9981\nsecond-half-7723"
    monkeypatch.setenv("MULTI_LINE_TOKEN", multi)
    redactor = Redactor(enabled=True)
    assert not redactor.leaves_lines(["x" * 300, "plain"])
    monkeypatch.delenv("MULTI_LINE_TOKEN")
    plain = Redactor(enabled=True)
    assert plain.leaves_lines(["x" * 300, "plain"])
    assert not plain.leaves_lines(["x" * 300, f"key {OPENAI}"])
    assert not plain.leaves_lines([f"{'y' * 300} {OPENAI}", "plain"])


def scanned_chars(tmp_path: Any, monkeypatch: Any, rounds: int) -> int:
    seen = [0]
    inner = redact_module._hints_in

    def counting(text: str) -> set[str]:
        seen[0] += len(text)
        return inner(text)

    monkeypatch.setattr(redact_module, "_hints_in", counting)
    capture(tmp_path / f"r{rounds}", rounds)
    monkeypatch.setattr(redact_module, "_hints_in", inner)
    return seen[0]


def test_finalize_scans_what_each_round_adds_not_the_whole_state_again(tmp_path, monkeypatch):
    """Characters scanned for secrets in a capture and its finalize, 6 against 12 rounds: about twice (each
    message once per place it is rendered); the whole-text path scanned every node input in full (x3.4 here)."""
    small, large = (scanned_chars(tmp_path, monkeypatch, rounds) for rounds in (6, 12))
    assert large / small < 2.4, (small, large)


@pytest.mark.parametrize("enabled", [True, False])
def test_share_lines_leaves_the_garbage_collector_as_it_found_it(enabled):
    """share_lines holds the collector off while its line index (a tuple per line) is alive, and gives it back
    in the state it found, also when a file cannot be stored."""
    import gc

    before = gc.isenabled()
    (gc.enable if enabled else gc.disable)()
    try:
        text = "".join(f"row {i} value {i * 7}\n" for i in range(200))
        shared = tracefiles.share_lines([("tools/r1.txt", text, False), ("nodes/a/r1.input.txt", text, True)])
        assert gc.isenabled() is enabled
        assert "[auditfence: lines 1-201 of tools/r1.txt]" in shared["nodes/a/r1.input.txt"]
        with pytest.raises(AttributeError):
            tracefiles.share_lines([("tools/r2.txt", None, False)])  # type: ignore[list-item]
        assert gc.isenabled() is enabled
    finally:
        (gc.enable if before else gc.disable)()
