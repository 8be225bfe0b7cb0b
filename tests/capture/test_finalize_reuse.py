"""finalize() renders the values it has just stored from memory (BlobStore.recent_value) rather than parsing
the blobs back: the files it writes must be the ones the stored blobs give, secrets redacted the same way."""

from __future__ import annotations

from langchain_core.messages import HumanMessage

from pytest_auditfence import Snapshot
from pytest_auditfence.capturing.store import BlobStore, read_journal
from pytest_auditfence.capturing.topology import materialize
from pytest_auditfence.manifest import JOURNAL_NAME
from pytest_auditfence.redact import Redactor
from tests.capture.capture_graphs import agent_loop

SECRET = "sk-proj-" + "Q7v" * 12


def test_finalize_from_memory_writes_what_the_stored_blobs_give(tmp_path):
    snap = Snapshot(tmp_path / "trace")
    question = f"Prices for AAPL, MSFT, GOOG please; my key is {SECRET}"
    agent_loop().invoke({"messages": [HumanMessage(content=question)]},
                        config=snap.config(metadata={"api_key": SECRET}))
    written = snap.finalize()
    assert written.files and all(SECRET not in p.read_text() for p in (tmp_path / "trace").rglob("*.txt"))

    # The same journal materialised by a reader that has nothing in memory: every value from the pack.
    read = read_journal(tmp_path / "trace" / JOURNAL_NAME)
    fresh = BlobStore(tmp_path / "trace")
    again = materialize(read.events, fresh.reader().value, journal=read.summary,
                        redact_text=Redactor(enabled=True).text)
    assert [(f.path, f.sha256) for f in again.manifest.files] == [(f.path, f.sha256) for f in written.files]
