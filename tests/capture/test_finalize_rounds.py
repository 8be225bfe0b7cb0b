"""finalize() of a looping agent grows with its rounds, not their square, in what it renders, scans and keeps:
a short message that every later node input repeats is searched for secrets a bounded number of times (its
parts are remembered once nothing is found in them), and the line sharer holds one str per repeated line
(the earlier file's), not one per file that repeats it. The files stay those of the whole-text path."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage

from pytest_auditfence import Snapshot, textfmt
from pytest_auditfence import redact as redact_module
from pytest_auditfence.capturing import tracefiles
from pytest_auditfence.redact import Redactor
from tests.capture.capture_graphs import agent_loop
from tests.capture.test_finalize_linear import get_filing, whole_text_path

OPENAI = "sk-proj-" + "Hw5" * 12
NEEDLE = "Reading section 3."


def short_replies(rounds: int, secret_in: int | None = None) -> Iterator[AIMessage]:
    for n in range(rounds):  # short messages: each rendered below the length a part is tested alone at
        secret = f" key {OPENAI}" if n == secret_in else ""
        yield AIMessage(content=f"Reading section {n}.{secret}",
                        tool_calls=[{"name": "get_filing", "args": {"ticker": "HALV", "call": n}, "id": f"c{n}"}])
    yield AIMessage(content="Revenue grew in every period.")


def run(folder: Any, rounds: int, secret_in: int | None = None) -> Snapshot:
    snap = Snapshot(folder)
    app = agent_loop(tools=[get_filing], messages=short_replies(rounds, secret_in))
    app.invoke({"messages": [HumanMessage(content="Summarise HALV's filing.")]},
               config=snap.config(recursion_limit=2 * rounds + 10))
    return snap


def needle_scans(tmp_path: Any, monkeypatch: Any, rounds: int) -> int:
    """How many times finalize() hands the redactor's hint search a text holding NEEDLE."""
    seen = [0]
    inner = redact_module._hints_in

    def counting(text: str) -> set[str]:
        seen[0] += text.count(NEEDLE)
        return inner(text)

    snap = run(tmp_path / f"r{rounds}", rounds)
    monkeypatch.setattr(redact_module, "_hints_in", counting)
    snap.finalize()
    monkeypatch.setattr(redact_module, "_hints_in", inner)
    return seen[0]


def test_a_short_repeated_message_is_searched_for_secrets_a_bounded_number_of_times(tmp_path, monkeypatch):
    # c38155d searched it once per later file: 42 times at 16 rounds, 90 at 32
    at16, at32 = needle_scans(tmp_path, monkeypatch, 16), needle_scans(tmp_path, monkeypatch, 32)
    assert at32 == at16 <= 30, (at16, at32)


def test_a_secret_in_a_short_repeated_message_is_redacted_in_every_later_file(tmp_path):
    """The negative: a short part that holds a secret is not remembered as clean, so every later file that
    repeats it is redacted; the folder is the whole-text path's, byte for byte."""
    snap = run(tmp_path / "t", 24, secret_in=3)
    snap.finalize()
    manifest = snap.load_manifest()
    reader = tracefiles.TraceFiles(tmp_path / "t")
    whole = whole_text_path(tmp_path / "t", Redactor(enabled=True), 200_000)
    assert whole.manifest.files == manifest.files
    later = [r.path for r in manifest.files if r.kind in ("node_input", "model_call") and r.round > 4]
    assert len(later) >= 30
    for record in manifest.files:
        text = reader.text(record.path)
        assert text == whole.files[record.path], record.path
        assert OPENAI not in text
    assert all("[REDACTED:openai]" in reader.text(path) for path in later)


@pytest.mark.parametrize("rounds", [16, 32])
def test_the_line_sharer_keeps_one_str_per_repeated_line(tmp_path, monkeypatch, rounds):
    """Every node input repeats the earlier ones: the lines it shares are the earlier file's objects, so what
    the sharer holds grows with the distinct lines (c38155d: 19,955 objects for 1,408 lines at 16 rounds)."""
    sharers: list[tracefiles.LineSharer] = []
    init = tracefiles.LineSharer.__init__

    def recording(self: tracefiles.LineSharer) -> None:
        init(self)
        sharers.append(self)

    monkeypatch.setattr(tracefiles.LineSharer, "__init__", recording)
    snap = run(tmp_path / "t", rounds)
    snap.finalize()
    (sharer,) = sharers
    lines = [line for file_lines in sharer.lines.values() for line in file_lines]
    distinct = len(set(lines))
    assert len(lines) > 10 * distinct  # the folder does repeat itself
    assert len({id(line) for line in lines}) < 1.5 * distinct
    reader = tracefiles.TraceFiles(tmp_path / "t")  # and every file still reads back as it was rendered
    for path, file_lines in sharer.lines.items():
        assert reader.text(path) == "\n".join(file_lines), path


def rendered_messages(tmp_path: Any, monkeypatch: Any, rounds: int) -> int:
    """How many messages finalize() hands the renderer (each call of `_Renderer.message`)."""
    calls = [0]
    inner = textfmt._Renderer.message

    def counting(self: Any, *args: Any) -> Any:
        calls[0] += 1
        return inner(self, *args)

    snap = run(tmp_path / f"m{rounds}", rounds)
    with monkeypatch.context() as patch:
        patch.setattr(textfmt._Renderer, "message", counting)
        snap.finalize()
    return calls[0]


def test_a_node_input_renders_only_the_messages_its_round_added(tmp_path, monkeypatch):
    """Each node input and model call lists every earlier message again: the renderer takes the entries of the
    ones the last such list began with (the same blocks) and visits the new ones: 161 and 273 messages at 16
    and 32 rounds (c38155d: 901 and 3,333, all of them)."""
    at16, at32 = rendered_messages(tmp_path, monkeypatch, 16), rendered_messages(tmp_path, monkeypatch, 32)
    assert at32 / at16 < 2.2, (at16, at32)
