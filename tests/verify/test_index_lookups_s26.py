"""Stop 26 (issue 14, follow-up), every answer kept: the pre-pass (`quantities.PlainRuns`) maps its numbers to lines
by their offsets and the file's own line starts (no line-break tokens), and finds the wrapped lines by a search for
the breaks after a digit, a space or a tab; `verify_claim`'s second pass hands `locate` what its first pass found
about the claim's subject (`about`), so a figure not found is not looked up and placed a second time."""

from __future__ import annotations

import random
from pathlib import Path

from langchain_core.tools import tool

from pytest_auditfence.claims import quantities
from pytest_auditfence.fence import FileStore, LoadedFile, Source
from pytest_auditfence.models import COVERED_VERDICTS
from pytest_auditfence.verify import match
from pytest_auditfence.verify.sources import SourceIndex

from test_compact_index import _bench_corpus
from test_lazy_front_s24 import PIECES
from test_prepass_s25 import BREAKING, _same_as_per_line
from tool_runs import claim_of, tool_run_auditor

# the ends of long lines a writer or capture wrapped, and what the next line may start with
LONG = "The oven is preheated and the tray is set on the middle rack for "
TAILS = ["20", "20 ", "20\t", "20 \t ", "٢٠", "٢٠ ", "20 \r", "20x", "20.", "2 0", "20\u00a0", "", " ", "\t"]
HEADS = ["minutes or until golden", "- item", "Key: value", "| a | b |", "5 more", "°C", "%", "  tonnes", "", "\n",
         "é units", "hours: 3"]


def _same_everywhere(text: str) -> None:
    """`PlainRuns` with the file's line starts holds what it holds without them (its columns, line starts and
    risky lines), and each line gets what `plain_runs` gives it."""
    given = quantities.PlainRuns(text, LoadedFile("x.txt", text, "").starts)
    alone = quantities.PlainRuns(text)
    assert given.risky == alone.risky and list(given.starts) == list(alone.starts)
    assert (list(given.values), list(given.decimals), list(given.offsets)) == \
        (list(alone.values), list(alone.decimals), list(alone.offsets))
    _same_as_per_line(text)


def test_the_prepass_with_the_files_line_starts_gives_every_line_what_plain_runs_gives() -> None:
    rng = random.Random(2614)
    for _ in range(400):
        lines = []
        for _ in range(rng.randint(1, 30)):
            if rng.random() < 0.4:  # a long line that may be wrapped, then what follows it
                lines.append(LONG[:rng.randint(20, len(LONG))] + rng.choice(TAILS))
                lines.append(rng.choice(HEADS) + "".join(rng.choice(PIECES) for _ in range(rng.randint(0, 3))))
            else:
                lines.append("".join(rng.choice(PIECES + BREAKING) for _ in range(rng.randint(0, 12))))
        _same_everywhere(rng.choice(["\n", "\r\n"]).join(lines) + rng.choice(["", "\n", "12", "12\n"]))
    for text in ("", "\n", "\n\n5", "5", LONG + "20\nminutes", LONG + "20\n", LONG + "٢٠\nminutes"):
        _same_everywhere(text)


def test_the_prepass_on_the_bench_files_and_a_wrapped_line_is_read_as_before(tmp_path: Path) -> None:
    root, sources = _bench_corpus(tmp_path)
    store = FileStore(root)
    for source in sources[:12]:
        _same_everywhere(store.load(source).text)
    wrapped = LONG + "20"
    assert quantities.PlainRuns(wrapped + "\nminutes or until golden").risky == {1}  # a unit on the next line
    assert quantities.PlainRuns(wrapped + "\nKey: value").risky == set()  # a field, no continuation
    assert quantities.PlainRuns(LONG[:30] + "20\nminutes").risky == set()  # too short to be wrapped


FILING = ("NORD annual report 2024\n"
          "net_income: -1230000000\n"
          "revenue: 5400000000\n"
          "news: NORD opened 14 stores and closed 3 in 2024.\n")


@tool
def get_financials(company: str) -> str:
    """The company's financial statements."""
    return FILING


def test_a_figure_not_found_at_first_is_not_looked_up_again_and_gets_its_verdict(tmp_path: Path, monkeypatch) -> None:
    report = ("NORD reported revenue of $5.4 billion in 2024. "
              "It posted a loss of $1.23 billion for the year. "
              "Its cash fell by a loss of $1.45 billion. "  # invented
              "Revenue was $5.9 billion.")  # invented
    cascade = tool_run_auditor(tmp_path, [get_financials], "Summarise NORD's year.")(
        [("get_financials", {"company": "NORD"})], report)
    for true in ("$5.4 billion", "$1.23 billion"):
        assert claim_of(cascade, true).verdict in COVERED_VERDICTS, true
    for wrong in ("$1.45 billion", "$5.9 billion"):
        assert claim_of(cascade, wrong).verdict not in COVERED_VERDICTS, wrong

    trace = tmp_path / "trace0"
    sources = [Source.from_file(trace, str(p.relative_to(trace)), node="tools", kind="tool_call")
               for p in sorted(trace.rglob("*.txt")) if "net_income" in p.read_text(encoding="utf-8")]
    assert sources
    index = SourceIndex.build(trace, sources)
    asked: list[float] = []
    find_atom = match.find_atom
    monkeypatch.setattr(match, "find_atom", lambda atom, idx: asked.append(atom.value) or find_atom(atom, idx))
    for fragment in ("$5.4 billion", "$1.23 billion", "$1.45 billion", "$5.9 billion"):
        claim = claim_of(cascade, fragment)
        q = next(q for q in claim.quantities if q.text == fragment)
        about = match.about_subject(claim, q, find_atom(q, index), index)
        asked.clear()
        fresh = match.locate(claim, q, index)
        assert asked[:1] == [q.value]  # asked alone, `locate` looks the figure up first
        asked.clear()
        handed = match.locate(claim, q, index, about)
        assert handed == fresh, fragment
        assert q.value not in asked  # handed what the first pass found, it does not look the figure up again
        if fragment == "$1.23 billion":
            assert not about and handed and -q.value in asked  # found as the negative the source records
        if fragment in ("$1.45 billion", "$5.9 billion"):
            assert not about and not handed
