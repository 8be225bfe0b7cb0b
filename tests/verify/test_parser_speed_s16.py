"""Stop 16 made the quantity parser cheaper without changing a reading: the number search skips to a digit
before its branches, a `key: value` line's value is read greedily, a wrapped line's digit tail is tested with
`rstrip` and `isdecimal`, and the URL mask and lone fractions are skipped on texts that cannot hold them. These
tests pin each piece to the form it replaced (the old patterns, written out here) over the strings where the two
could part, and audit a captured run whose tool output exercises every piece: the true figures covered, a wrong
scale, a wrong unit, the other period's figure and an invented figure flagged."""

from __future__ import annotations

import random
import re
from pathlib import Path

from langchain_core.tools import tool

from pytest_auditfence import Snapshot
from pytest_auditfence.audit.cascade import audit_cascade_sync
from pytest_auditfence.claims import quantities
from pytest_auditfence.models import COVERED_VERDICTS

from tool_runs import claim_of, tool_app

# the patterns before stop 16, as they were written
OLD_NUMBER = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?")
OLD_KEY_VALUE = re.compile(
    r"^[ \t]*(?:[-*][ \t]+)?(?P<key>[A-Za-z_][^:\n|]{0,79}?)[ \t]*:[ \t]+(?P<value>\S[^\n]*?)[ \t]*$")
OLD_WRAPPED_TAIL = re.compile(r"\d[ \t]*$")
OLD_URL_MASK = re.compile(r"https?://[^\s<>()\[\]\"']+|www\.[^\s<>()\[\]\"']+|@[\w-]+\.[\w.-]+")

# pieces that meet the patterns' edges: colons, pipes, spaces, tabs, '\r', '\v', a non-breaking space, digits of
# other scripts (Arabic-Indic '٣' is a decimal digit, '²' a digit but not a decimal one), separators, fractions
PIECES = [*"ab:: \t\t\n\r|-*_1,.٣²\u00a0\x0b/@½", "key", "k: ", "1,234", ".5", "http://x.io/3", "www.a.b/4",
          "@co.uk", " million", "%"]


def _strings(count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choice(PIECES) for _ in range(rng.randint(0, 16))) for _ in range(count)]


def _spans(m: re.Match[str] | None) -> tuple | None:
    return None if m is None else (m.span(), m.span("key"), m.span("value"))


def test_the_number_search_finds_the_same_runs_as_before() -> None:
    for text in _strings(40_000, 1) + ["1,234,567.89 and 12,34 or ٣٤٥ then ²3", "no digits at all"]:
        assert [m.span() for m in quantities._NUMBER.finditer(text)] == [m.span() for m in OLD_NUMBER.finditer(text)]


def test_a_key_value_line_splits_where_it_did() -> None:
    edges = ["revenue: 1,234  ", "time: 10:30 close\t", "a: b:c", "note:  x", "k: v\r", "k: v \x0b", "k:v",
             "k: ", "- price: $5\t \t", "k: v\n", "k: v\nw", "x" * 81 + ": 5", "| a: 5 |"]
    for text in _strings(40_000, 2) + edges:
        assert _spans(quantities._KEY_VALUE.match(text)) == _spans(OLD_KEY_VALUE.match(text)), repr(text)
    assert quantities._KEY_VALUE.match("revenue: 1,234  ").group("value") == "1,234"


def test_a_line_ends_in_a_digit_as_the_old_search_said() -> None:
    for line in [s for s in _strings(40_000, 3) if "\n" not in s] + ["bake for 20", "x ٣ \t", "x ²", "x 2\r", ""]:
        assert quantities._wrapped_tail(line) == (OLD_WRAPPED_TAIL.search(line) is not None), repr(line)


def test_the_url_mask_and_lone_fractions_are_skipped_only_where_they_find_nothing() -> None:
    for text in _strings(40_000, 4):
        if not quantities._may_hold_url(text):
            assert OLD_URL_MASK.search(text) is None, repr(text)
        if text.isascii():
            assert quantities._LONE_VULGAR.search(text) is None, repr(text)
    # where they do find something, it is still read: a URL's digits are no figure, a lone '½ hour' is one
    assert [q.text for q in quantities.parse_quantities("see https://x.io/2024/55 for 12 units")] == ["12"]
    assert [q.value for q in quantities.parse_quantities("rest for ½ hour", words=True)] == [1800.0]


FILING = """Quarterly results (source: https://ir.example.com/2024/q3/results-77)
fiscal_year: 2024
revenue_usd_millions: 1,234   \t
gross margin: 41.2%
Management expects shipments of the new freight line to reach roughly 340
  thousand tonnes in the coming fiscal year, up from the year before.
Contact: ir@example.com for the 10-K.
| Item | FY2024 | FY2023 |
|---|---|---|
| Operating income | 456 | 398 |
"""


@tool
def get_quarterly_results(company: str) -> str:
    """The company's quarterly results page."""
    return FILING


def test_a_captured_run_over_every_changed_reading_is_verified_and_its_fabrications_flagged(tmp_path: Path) -> None:
    calls = [("get_quarterly_results", {"company": "HALV"})]
    report = ("Revenue was $1,234 million in FY2024.\n"
              "Gross margin was 41.2% in FY2024.\n"
              "Shipments should reach 340 thousand tonnes.\n"
              "Operating income was $456 in FY2024.\n"
              "Revenue was $1,234 billion in FY2024.\n"  # wrong scale
              "Gross margin was 41.2 bps in FY2024.\n"  # wrong unit
              "Operating income was $398 in FY2024.\n"  # the other period's cell
              "Shipments should reach 377 thousand tonnes.\n")  # invented
    snap = Snapshot(tmp_path / "trace")
    tool_app([get_quarterly_results], calls, report).invoke({"messages": [("user", "Write a note.")]},
                                                            config=snap.config())
    snap.set_report(report)
    snap.finalize()
    cascade = audit_cascade_sync(trace_dir=snap.trace_dir, final_document=report)
    for true in ("$1,234 million", "41.2% in", "340 thousand", "$456"):
        assert claim_of(cascade, true).verdict in COVERED_VERDICTS, true
    for wrong in ("$1,234 billion", "41.2 bps", "$398", "377 thousand"):
        assert claim_of(cascade, wrong).verdict not in COVERED_VERDICTS, wrong
