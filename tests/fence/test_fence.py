"""The fence gate: each rule of the validation table, the sandbox, ordering, linking, soft enforcement."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from pytest_auditfence.errors import FenceError
from pytest_auditfence.fence import (
    REASON_NO_MATCH,
    REASON_NO_SEARCH,
    REASON_NOT_IN_DOCUMENT,
    Fence,
    Source,
    reason_too_short,
)
from pytest_auditfence.gate import RULE_SEARCH_FOR_CLAIM

from fence_files import REPORT

CLAIM = "Apple's net sales were $383.3 billion in 2023."
GOOD_EVIDENCE = "Total net sales were $383,285 million in fiscal 2023,"


def make(trace, **kwargs) -> Fence:
    root, sources = trace
    return Fence(root, sources, REPORT, **kwargs)


def test_search_then_verbatim_evidence_is_accepted_with_its_location(trace):
    fence = make(trace)
    record = fence.search("net sales")
    assert [(h.source, h.line) for h in record.hits] == [
        ("tools/001_get_financials.txt", 3),
        ("nodes/research.txt", 1),
    ]
    sub = fence.submit(CLAIM, CLAIM, GOOD_EVIDENCE, "net sales match")
    assert sub.accepted and sub.reason is None
    assert sub.evidence_location is not None
    assert (sub.evidence_location.source, sub.evidence_location.line) == ("tools/001_get_financials.txt", 3)
    assert fence.accepted == [sub] and fence.rejections == []


def test_submit_without_search_is_rejected(trace):
    fence = make(trace)
    sub = fence.submit(CLAIM, CLAIM, GOOD_EVIDENCE, "f")
    assert not sub.accepted and sub.reason == REASON_NO_SEARCH


def test_short_evidence_is_rejected_with_its_length(trace):
    fence = make(trace)
    fence.search("net sales")
    sub = fence.submit(CLAIM, CLAIM, "  net sales  ", "f")
    assert not sub.accepted and sub.reason == reason_too_short(9, 20)
    assert fence.rejections == [sub]


def test_min_evidence_length_is_configurable(trace):
    fence = make(trace, min_evidence_length=10)
    fence.search("net sales")
    assert fence.submit(CLAIM, CLAIM, "sales were $383,285", "f").accepted
    assert not make(trace).submit(CLAIM, CLAIM, "sales were $383,285", "f").accepted


def test_fabricated_evidence_is_rejected(trace):
    fence = make(trace)
    fence.search("net sales")
    sub = fence.submit(CLAIM, CLAIM, "Total net sales were $383,300 million in fiscal 2023", "f")
    assert not sub.accepted and sub.reason == REASON_NO_MATCH


def test_query_echoed_back_is_never_evidence(trace):
    fence = make(trace)
    query = "net sales were $383.3 billion in 2023 says the company"
    record = fence.search(query)
    assert record.hits == []
    sub = fence.submit(CLAIM, CLAIM, query, "f")
    assert sub.reason == REASON_NO_MATCH


def test_evidence_must_come_from_a_hit_line_not_from_elsewhere_in_the_file(trace):
    fence = make(trace)
    fence.search("net sales")  # hits line 3 of financials, not line 4
    sub = fence.submit(CLAIM, CLAIM, "compared with $394,328 million in fiscal 2022.", "f")
    assert sub.reason == REASON_NO_MATCH


def test_claim_not_in_document_is_rejected(trace):
    fence = make(trace)
    fence.search("net sales")
    sub = fence.submit(CLAIM, "Apple's net sales were $400 billion in 2023.", GOOD_EVIDENCE, "f")
    assert not sub.accepted and sub.reason == REASON_NOT_IN_DOCUMENT


def test_claim_in_document_ignores_markdown_emphasis_and_line_wrapping(trace):
    fence = make(trace)
    fence.set_document("Apple's **net\n sales** were $383.3 billion in _2023_.")
    fence.search("net sales")
    assert fence.submit(CLAIM, CLAIM, GOOD_EVIDENCE, "f").accepted


def test_evidence_outside_the_history_window_is_rejected(trace):
    fence = make(trace, history_window=2)
    fence.search("net sales")
    fence.search("headline")
    assert fence.submit(CLAIM, CLAIM, GOOD_EVIDENCE, "f").accepted
    fence.search("price")
    sub = fence.submit(CLAIM, CLAIM, GOOD_EVIDENCE, "f")
    assert sub.reason.startswith(f"{RULE_SEARCH_FOR_CLAIM}: ")


def test_every_rejection_is_kept_in_order(trace):
    fence = make(trace)
    first = fence.submit(CLAIM, CLAIM, GOOD_EVIDENCE, "f")
    fence.search("net sales")
    second = fence.submit(CLAIM, CLAIM, "short", "f")
    accepted = fence.submit(CLAIM, CLAIM, GOOD_EVIDENCE, "f")
    assert fence.rejections == [first, second]
    assert [s.seq for s in fence.submissions] == [1, 3, 4]
    assert fence.counts() == {
        "accepted": 1, "rejected": 2, "searches": 1, "skipped": 0, "submissions": 3, "unenforced": 0
    }
    assert accepted.accepted


def test_phrase_wrapped_across_lines_is_found_and_located_verbatim(trace):
    root, _ = trace
    fence = make(trace)
    record = fence.search("the headset ships early next year in the United States")
    assert [(h.source, h.line) for h in record.hits] == [("tools/002_get_news.txt", 3), ("tools/002_get_news.txt", 4)]
    wrapped = "the headset ships early next year in the United States at a price of $3,499"
    sub = fence.submit("The headset costs $3,499.", "The headset costs $3,499.", wrapped, "f")
    assert sub.accepted
    evidence = fence.evidence_for(sub, atom="$3,499")
    text = (root / evidence.file).read_text(encoding="utf-8")
    assert text[evidence.offset : evidence.offset + len(evidence.text)] == evidence.text
    assert "\n" in evidence.text and evidence.line == 3 and evidence.node == "research/tools"
    assert len(fence.search("ships early next", whitespace_insensitive=False).hits) == 1
    assert fence.search("next year in the", whitespace_insensitive=False).hits == []


def test_results_follow_source_order_then_line_order(trace):
    root, sources = trace
    forward = Fence(root, sources, REPORT).search("gross margin")
    backward = Fence(root, list(reversed(sources)), REPORT).search("gross margin")
    assert [h.source for h in forward.hits] == ["tools/001_get_financials.txt", "nodes/research.txt"]
    assert [h.source for h in backward.hits] == ["nodes/research.txt", "tools/001_get_financials.txt"]
    lines = Fence(root, sources, REPORT).search("million").hits
    assert [(h.source, h.line) for h in lines] == [
        ("tools/001_get_financials.txt", 3),
        ("tools/001_get_financials.txt", 4),
    ]


def test_hits_carry_line_offset_text_and_sha(trace):
    root, sources = trace
    hit = Fence(root, sources, REPORT).search("headline").hits[0]
    text = (root / hit.source).read_text(encoding="utf-8")
    assert text[hit.offset : hit.offset + len(hit.text)] == hit.text == text.splitlines()[hit.line - 1]
    assert hit.sha256 == sources[1].sha256


def test_max_hits_truncates_in_stable_order(trace):
    fence = make(trace)
    record = fence.search("e", max_hits=3)
    assert record.truncated and [(h.source, h.line) for h in record.hits] == [
        ("tools/001_get_financials.txt", 1),
        ("tools/001_get_financials.txt", 2),
        ("tools/001_get_financials.txt", 3),
    ]


def test_case_sensitivity_and_regex(trace):
    fence = make(trace)
    assert len(fence.search("GROSS MARGIN").hits) == 2
    assert fence.search("GROSS MARGIN", ignore_case=False).hits == []
    record = fence.search(r"\$\d{3},\d{3} million", regex=True)
    assert record.regex and [h.line for h in record.hits] == [3, 4]
    with pytest.raises(FenceError, match=r"not a valid regular expression.*regex=False"):
        fence.search("(unclosed", regex=True)


def test_search_can_be_narrowed_to_some_sources_but_not_widened(trace):
    fence = make(trace)
    record = fence.search("gross margin", sources=["nodes/research.txt"])
    assert [h.source for h in record.hits] == ["nodes/research.txt"]
    with pytest.raises(FenceError, match=r"'report.md' is not one of its sources"):
        fence.search("x", sources=["report.md"])


def test_bad_arguments_are_refused(trace):
    root, sources = trace
    with pytest.raises(FenceError, match="empty"):
        make(trace).search("   ")
    with pytest.raises(FenceError, match="backend 'grep' unknown"):
        Fence(root, sources, REPORT, backend="grep")
    with pytest.raises(FenceError, match="skip pattern '\\(' is not a valid regular expression"):
        Fence(root, sources, REPORT, skip_patterns=["("])
    with pytest.raises(FenceError, match="listed twice"):
        Fence(root, [sources[0], sources[0]], REPORT)


# -- sandbox -----------------------------------------------------------------------------------------


def test_sandbox_refuses_parent_directory_paths(trace, tmp_path):
    root, _ = trace
    (tmp_path / "secret.txt").write_text("api key\n")
    bad = Source(path="../secret.txt", node="n", kind="tool_call", sha256="0" * 64)
    with pytest.raises(FenceError, match=r"'\.\./secret\.txt'.*'\.\.' leaves the sandbox.*relative to the fence root"):
        Fence(root, [bad], REPORT)


def test_sandbox_refuses_absolute_paths(trace, tmp_path):
    root, _ = trace
    bad = Source(path=str(tmp_path / "secret.txt"), node="n", kind="tool_call", sha256="0" * 64)
    with pytest.raises(FenceError, match="absolute paths are outside the sandbox"):
        Fence(root, [bad], REPORT)


def test_sandbox_refuses_symlinks_that_escape(trace, tmp_path):
    root, _ = trace
    outside = tmp_path / "outside.txt"
    outside.write_text("revenue was $1 trillion\n")
    os.symlink(outside, root / "tools" / "003_link.txt")
    bad = Source(path="tools/003_link.txt", node="n", kind="tool_call", sha256="0" * 64)
    with pytest.raises(FenceError, match="outside the fence root.*symlink"):
        Fence(root, [bad], REPORT)


def test_missing_file_and_changed_file_fail_closed(trace):
    root, sources = trace
    with pytest.raises(FenceError, match="no such file"):
        Fence(root, [Source(path="tools/nope.txt", node="n", kind="tool_call", sha256="0" * 64)], REPORT)
    (root / sources[0].path).write_text("Total net sales were $999,999 million\n")
    with pytest.raises(FenceError, match="changed after capture"):
        Fence(root, sources, REPORT).search("net sales")


# -- link, soft enforcement, skip patterns, persistence ---------------------------------------------------


def test_link_lets_evidence_cite_upstream_search_history(trace):
    root, sources = trace
    upstream = Fence(root, sources[:2], "raw data", name="tools")
    upstream.search("net sales")
    downstream = Fence(root, sources[2:], REPORT, name="report")
    downstream.search("net sales")
    assert downstream.submit(CLAIM, CLAIM, GOOD_EVIDENCE, "f").reason == REASON_NO_MATCH
    downstream.link(upstream)
    sub = downstream.submit(CLAIM, CLAIM, GOOD_EVIDENCE, "f")
    assert sub.accepted and sub.evidence_location.source == "tools/001_get_financials.txt"
    assert downstream.evidence_for(sub).file == "tools/001_get_financials.txt"
    with pytest.raises(FenceError, match="cannot link a fence to itself"):
        downstream.link(downstream)


def test_enforce_false_accepts_but_keeps_the_failed_check(trace):
    fence = make(trace, enforce=False)
    sub = fence.submit(CLAIM, CLAIM, "made up", "f")
    assert sub.accepted and not sub.enforced and sub.reason == REASON_NO_SEARCH
    assert fence.counts()["unenforced"] == 1


def test_conditional_enforcement_decides_per_claim(trace):
    fence = make(trace, enforce=lambda claim: "$" in claim)
    fence.search("net sales")
    strict = fence.submit(CLAIM, CLAIM, "fabricated evidence of some length", "f")
    lenient = fence.submit("Apple is well run.", "Apple is well run.", "fabricated evidence of some length", "f")
    assert not strict.accepted and strict.enforced
    assert lenient.accepted and not lenient.enforced and lenient.reason is not None


def test_skip_patterns_record_without_checks_and_never_accept(trace):
    fence = make(trace, skip_patterns=[r"(?i)\boutlook\b", r"^opinion:"])
    skipped = fence.submit("The outlook is bright.", "not even in the document", "", "f")
    by_finding = fence.submit("x", "y", "", "opinion: fine")
    assert skipped.skipped and not skipped.accepted and "outlook" in skipped.reason
    assert by_finding.skipped
    assert fence.skipped == [skipped, by_finding] and fence.rejections == [] and fence.accepted == []
    assert fence.counts()["skipped"] == 2


def test_state_round_trips_through_json(trace):
    root, _ = trace
    fence = make(trace, skip_patterns=["outlook"])
    fence.search("net sales")
    fence.submit(CLAIM, CLAIM, GOOD_EVIDENCE, "f", atom="$383.3 billion")
    fence.submit(CLAIM, CLAIM, "short", "f")
    data = json.loads(json.dumps(fence.to_dict(), sort_keys=True))
    assert str(root) not in json.dumps(data)
    loaded = Fence.from_dict(data, root)
    assert loaded.to_dict() == fence.to_dict()
    assert loaded.submissions[0].extra == {"atom": "$383.3 billion"}
    # the sequence continues where it stopped
    assert loaded.search("margin").seq == 4


def test_callable_enforcement_must_be_supplied_again_on_load(trace):
    root, _ = trace
    data = make(trace, enforce=lambda claim: True).to_dict()
    with pytest.raises(FenceError, match="pass enforce=<the callable>"):
        Fence.from_dict(data, root)
    assert Fence.from_dict(data, root, enforce=False).enforce is False


def test_root_must_be_a_folder(tmp_path: Path):
    with pytest.raises(FenceError, match="is not a folder"):
        Fence(tmp_path / "nope", [], "")


def test_evidence_spanning_a_blank_line_is_accepted(tmp_path):
    # a bullet list under its lead-in sentence: the evidence crosses an empty line of the file
    (tmp_path / "answer.txt").write_text("answer:\n  The reserved area codes are:\n\n  * 456\n  * 500\n")
    source = Source.from_file(tmp_path, "answer.txt", node="answer", kind="node_output")
    fence = Fence(tmp_path, [source], "* 456")
    evidence = "The reserved area codes are:\n\n  * 456"
    assert [h.line for h in fence.search(evidence).hits] == [2, 3, 4]
    sub = fence.submit("456", "456", evidence, "listed")
    assert sub.accepted, sub.reason
    assert sub.evidence_location is not None and sub.evidence_location.line == 2
