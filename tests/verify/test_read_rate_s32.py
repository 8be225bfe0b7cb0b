"""Stop 32 (issue 14, the audit's read rate), every answer kept: what the stages work out from one file alone (its
spelled figures, its tables' rows and month ranks, the periods it names, its flattened text) is kept with the file's
`FileIndex` (shared by sha256 through the audit's `IndexCache`), so a cascade that builds one `SourceIndex` an audit
unit works it out once a file, not once a unit; and the cascade's fences and indexes read each file through one
`FileStore`. Tests compare the shared answers with those of units that read every file on their own."""

from __future__ import annotations

from pathlib import Path

from langchain_core.tools import tool

from pytest_auditfence.fence import Source
from pytest_auditfence.models import COVERED_VERDICTS
from pytest_auditfence.verify import IndexCache, count, match, verdict
from pytest_auditfence.verify.sources import SourceIndex

from tool_runs import claim_of, tool_run_auditor

# a review as a data tool returns it: spelled counts and amounts in prose, a table of months, prose naming periods
REVIEW = ("HERON annual review\n"
          "news: HERON opened twelve new stores in 2024 and raised half a million dollars from the old depot.\n"
          "news: HERON's revenue was $4.2 billion in fiscal 2024, up from $3.9 billion in fiscal 2023.\n"
          "\n"
          "Monthly store sales (in thousands)\n"
          "| Month | Stores | Sales |\n"
          "|---|---|---|\n"
          "| Jan - 2024 | 40 | 1,200 |\n"
          "| Feb - 2024 | 41 | 1,350 |\n"
          "| Mar - 2024 | 44 | 1,410 |\n"
          "| Total | | 3,960 |\n")

OUTLOOK = ("HERON outlook\n"
           "news: HERON expects to open fifteen new stores in 2025; the third quarter of 2024 closed with 44 stores.\n")

REPORT = ("HERON opened 12 new stores in 2024.\n"  # true: 'twelve new stores'
          "HERON raised $0.5 million from the old depot.\n"  # true: 'half a million dollars'
          "HERON's sales were $1,350 thousand in Feb 2024.\n"  # true: its month's cell
          "HERON's revenue was $4.2 billion in fiscal 2024.\n"  # true
          "HERON expects to open 15 new stores in 2025.\n"  # true: the outlook's 'fifteen'
          "HERON opened 13 new stores in 2024.\n"  # invented: another count
          "HERON raised $0.7 million from the old depot.\n"  # invented
          "HERON's sales were $1,200 thousand in Feb 2024.\n"  # invented: January's cell (another row)
          "HERON's sales were $1,350 million in Feb 2024.\n"  # invented: the wrong scale
          "HERON's revenue was $4.2 billion in fiscal 2021.\n")  # invented: a period no source names

TRUE = ("12 new stores", "$0.5 million", "$1,350 thousand", "$4.2 billion in fiscal 2024", "15 new stores")
INVENTED = ("13 new stores", "$0.7 million", "$1,200 thousand", "$1,350 million", "fiscal 2021")


@tool
def get_review(company: str) -> str:
    """The company's annual review."""
    return REVIEW


@tool
def get_outlook(company: str) -> str:
    """The company's outlook."""
    return OUTLOOK


def _claims(cascade) -> list[str]:  # type: ignore[no-untyped-def]
    return [claim.model_dump_json() for claim in cascade.claims]


def _audit(tmp_path: Path, monkeypatch, *, shared: bool):  # type: ignore[no-untyped-def]
    """The report audited over one captured run; `shared=False`: every unit's index reads its files on its own (the
    cache answers nothing), as each unit alone would. The indexes the cascade built, with the cascade."""
    built: list[SourceIndex] = []
    build = SourceIndex.build

    def kept(*args, **kwargs):  # type: ignore[no-untyped-def]
        index = build(*args, **kwargs)
        built.append(index)
        return index

    with monkeypatch.context() as patched:
        patched.setattr(SourceIndex, "build", kept)
        if not shared:
            patched.setattr(IndexCache, "get", lambda self, sha256: None)
        run = tool_run_auditor(tmp_path / ("shared" if shared else "alone"), [get_review, get_outlook],
                               "Summarise HERON's year.")
        cascade = run([("get_review", {"company": "HERON"}), ("get_outlook", {"company": "HERON"})], REPORT)
    return cascade, built


def _by_sha(built: list[SourceIndex]) -> dict[str, list[tuple[SourceIndex, int]]]:
    found: dict[str, list[tuple[SourceIndex, int]]] = {}
    for index in built:
        for f, source in enumerate(index.sources):
            found.setdefault(source.sha256, []).append((index, f))
    return found


def test_a_cascade_reads_a_file_shared_by_its_units_once_and_audits_as_units_reading_alone(tmp_path: Path,
                                                                                           monkeypatch) -> None:
    cascade, built = _audit(tmp_path, monkeypatch, shared=True)
    for true in TRUE:
        assert claim_of(cascade, true).verdict in COVERED_VERDICTS, true
    for wrong in INVENTED:
        assert claim_of(cascade, wrong).verdict not in COVERED_VERDICTS, wrong
    shared = {sha: places for sha, places in _by_sha(built).items() if len(places) > 1}
    assert len(built) > 2 and shared  # the units of a captured run hold files in common (the input, the tools' outputs)
    for places in shared.values():
        # one index of the file, one read of it, and what the stages worked out from it, for every unit holding it
        assert len({id(index.files[f]) for index, f in places}) == 1
        assert len({id(index.loaded(f)) for index, f in places}) == 1
    assert len({id(index.store) for index in built}) == 1
    tools = [index for index in built if any(s.path.startswith("tools/") for s in index.sources)]
    assert any(_SPELLED_KEY in index.files[f].memo for index in tools for f in range(len(index.files)))
    # every unit reading its files on its own (no file shared): the same claims, verdicts, evidence and notes
    alone, alone_built = _audit(tmp_path, monkeypatch, shared=False)
    assert len(alone_built) == len(built)
    assert any(len({id(index.files[f]) for index, f in places}) > 1 for places in _by_sha(alone_built).values())
    assert _claims(alone) == _claims(cascade)


_SPELLED_KEY = "spelled figures"


def _write(root: Path, name: str, text: str) -> Source:
    (root / "tools").mkdir(parents=True, exist_ok=True)
    (root / "tools" / name).write_text(text, encoding="utf-8")
    return Source.from_file(root, f"tools/{name}", node="tools", kind="tool_call")


def test_two_indexes_sharing_a_file_answer_as_fresh_ones_and_work_the_file_out_once(tmp_path: Path) -> None:
    """Two units over overlapping files (the review in both) with one cache: each file's spelled figures, table
    rows, row blocks, month ranks, named periods and metric periods are worked out once (the same object in both
    units), and every answer is the one an index of its own files alone gives, in either order of asking."""
    review, outlook = _write(tmp_path, "review.txt", REVIEW), _write(tmp_path, "outlook.txt", OUTLOOK)
    cache = IndexCache()
    first = SourceIndex.build(tmp_path, [review, outlook], cache=cache)
    second = SourceIndex.build(tmp_path, [outlook, review], cache=cache)
    assert len(cache) == 2 and first.files[0] is second.files[1] and first.files[1] is second.files[0]

    def answers(index: SourceIndex) -> list[object]:
        return [sorted((index.sources[f].path, q.start, q.value) for f, q in index.spelled_near(value, 0.0))
                for value in (12.0, 15.0, 5e5, 13.0)] + [
            verdict.periods_named(index),
            sorted((metric, sorted(keys)) for metric, keys in verdict._metric_periods(index).items()),
            {index.sources[f].path: (count._grids(index, f), count._blocks(index, f), index.flat_text(f))
             for f in range(len(index.files))},
        ]

    later = answers(second)  # the second unit asks first: the first reads what it worked out
    assert answers(first) == answers(SourceIndex.build(tmp_path, [review, outlook]))
    assert later == answers(SourceIndex.build(tmp_path, [outlook, review]))
    for key in (_SPELLED_KEY, "table rows", "row blocks", "period keys", "metric periods", "flat text"):
        assert key in first.files[0].memo, key
    # the spelled figures found: 'twelve' and 'half a million' of the review, 'fifteen' of the outlook; 13 nowhere
    assert [len(found) for found in later[:4]] == [1, 1, 1, 0]
    assert {"2024", "2023", "2025"} <= later[4] and "2021" not in later[4]


# prose whose figures several claims match: a 'respectively' sentence of two clauses, figures of two quarters, a
# figure compared with another period's
PROSE = ("ORCA annual report\n"
         "news: Revenue from sales into Taiwan accounted for 13%, 9% and 14% of total revenue in 2019, 2018 and 2017, "
         "respectively; revenue from sales into the United States accounted for 11%, 12% and 10% of total revenue in "
         "2019, 2018 and 2017, respectively.\n"
         "news: ORCA's net income was $50 million in the third quarter of 2024, up from $40 million in the second "
         "quarter of 2024.\n"
         "news: ORCA's gross margin was 13.0% in 2019 compared to 18.3% for 2018.\n")

PROSE_REPORT = ("Sales into Taiwan accounted for 9% of total revenue in 2018.\n"  # true
                "Sales into the United States accounted for 12% of total revenue in 2018.\n"  # true
                "Sales into Taiwan accounted for 12% of total revenue in 2018.\n"  # invented: the US clause's figure
                "Sales into the United States accounted for 9% of total revenue in 2018.\n"  # invented: Taiwan's
                "ORCA's net income was $50 million in the third quarter of 2024.\n"  # true
                "ORCA's net income was $40 million in the third quarter of 2024.\n"  # invented: the second quarter's
                "ORCA's gross margin was 18.3% in 2018.\n"  # true
                "ORCA's gross margin was 18.3% in 2019.\n")  # invented: 2018's figure
PROSE_TRUE = ("Taiwan accounted for 9%", "United States accounted for 12%", "$50 million", "18.3% in 2018")
PROSE_INVENTED = ("Taiwan accounted for 12%", "United States accounted for 9%", "$40 million", "18.3% in 2019")


@tool
def get_report(company: str) -> str:
    """The company's annual report."""
    return PROSE


def test_what_a_source_figure_says_of_itself_is_read_once_and_answers_every_claim_as_read_fresh(
        tmp_path: Path, monkeypatch) -> None:
    """A source figure's own words (its sentence's subject, the clause of a 'respectively' list it stands in, its
    period, its quarter) follow from the file's text alone: read once a figure for the audit (`match.per_figure`, in
    the file's `LoadedFile.memo`), whichever claims match it, and every claim's verdict, evidence and notes are those
    of an audit that reads them afresh for each claim; a claim's own subject likewise (`claim_subject`)."""
    run = tool_run_auditor(tmp_path, [get_report], "Summarise ORCA's year.")
    read: list[tuple[int, int]] = []
    periods = match.prose_periods

    def counted(text: str, start: int, end: int):  # type: ignore[no-untyped-def]
        read.append((start, end))
        return periods(text, start, end)

    monkeypatch.setattr(match, "prose_periods", counted)
    cascade = run([("get_report", {"company": "ORCA"})], PROSE_REPORT)
    for true in PROSE_TRUE:
        assert claim_of(cascade, true).verdict in COVERED_VERDICTS, true
    for wrong in PROSE_INVENTED:
        assert claim_of(cascade, wrong).verdict not in COVERED_VERDICTS, wrong
    assert read and len(read) == len(set(read))  # each figure's period read once, for every claim and unit
    # read afresh for every claim: the memo answers nothing, the claim's subject is read again
    monkeypatch.setattr(match, "per_figure", lambda loaded, read, start, end: read(loaded, start, end))
    monkeypatch.setattr(match, "claim_subject", lambda claim: match._claim_subject.__wrapped__(claim.claim,
                                                                                                claim.context))
    read.clear()
    fresh = run([("get_report", {"company": "ORCA"})], PROSE_REPORT)
    assert len(read) > len(set(read))
    assert _claims(fresh) == _claims(cascade)
