"""Tests of the workflow example: plain-field state flows plan -> gather -> summarize into a cited summary."""

from __future__ import annotations

import asyncio
import re

import pytest
import workflow_app


def test_each_node_fills_its_field_and_the_summary_quotes_the_gathered_documents() -> None:
    result = workflow_app.app.invoke({"topic": "warehouse robotics"})
    assert result["queries"] == [
        "warehouse robotics market",
        "warehouse robotics adoption",
        "warehouse robotics injuries",
    ]
    assert [doc["id"] for doc in result["documents"]] == ["D1", "D2", "D3"]  # D4 is off topic
    summary = result["summary"]
    assert "- The warehouse robotics market reached $9.1 billion in 2024. [1]" in summary
    assert "38% said they run autonomous mobile robots" in summary
    assert "- Sites that deployed robots reported 22% fewer lifting injuries. [3]" in summary
    assert "cold-chain" not in summary.lower()


def test_every_quoted_sentence_is_verbatim_in_the_document_its_citation_names() -> None:
    summary = workflow_app.app.invoke({"topic": "warehouse robotics"})["summary"]
    sources = dict(re.findall(r"^\[(\d+)\] (D\d+): ", summary, re.MULTILINE))
    texts = {doc["id"]: doc["text"] for doc in workflow_app.CORPUS}
    quotes = re.findall(r"^- (.+) \[(\d+)\]$", summary, re.MULTILINE)
    assert len(quotes) == 3
    for sentence, number in quotes:
        assert sentence in texts[sources[number]]


def test_the_state_has_no_messages_channel() -> None:
    assert set(workflow_app.ResearchState.__annotations__) == {"topic", "queries", "documents", "summary"}
    result = workflow_app.app.invoke({"topic": "warehouse robotics"})
    assert set(result) == {"topic", "queries", "documents", "summary"}


def test_async_run_gives_the_same_state() -> None:
    sync = workflow_app.app.invoke({"topic": "warehouse robotics"})
    assert asyncio.run(workflow_app.app.ainvoke({"topic": "warehouse robotics"})) == sync


def test_topic_outside_the_corpus_fails_closed_naming_the_queries() -> None:
    with pytest.raises(ValueError, match=r"gather: no document matched the queries \['deep sea mining market'"):
        workflow_app.app.invoke({"topic": "deep sea mining"})


def test_missing_topic_fails_with_the_fix() -> None:
    with pytest.raises(ValueError, match=r"plan: the input has no topic; invoke with \{'topic'"):
        workflow_app.app.invoke({"topic": "  "})
