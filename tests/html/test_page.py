"""The evidence page without a browser: self-contained, escaped, deterministic; layout and detail building.

The plugin's --fence-html is run through pytester, serially and under xdist, on a real LangGraph app.
"""

from __future__ import annotations

import random
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from pytest_auditfence import audit_cascade_sync
from pytest_auditfence.errors import AuditError
from pytest_auditfence.html import build_detail, layout, render_html
from pytest_auditfence.report import FenceReport, TestEntry


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))


def _tags(page: str) -> list[tuple[str, dict[str, str | None]]]:
    parser = _Tags()
    parser.feed(page)
    return parser.tags


def test_page_loads_no_resource_of_any_kind(report):
    page = render_html(report)
    tags = _tags(page)
    for tag, attrs in tags:
        assert tag not in ("link", "img", "iframe", "object", "embed", "base"), tag
        assert "src" not in attrs, (tag, attrs)
        href = attrs.get("href")
        assert href is None or href.startswith("#"), (tag, href)
    assert not re.search(r"https?://", page)
    assert "@import" not in page and "url(" not in page.replace('marker-end="url(#arrow)"', "")
    assert [t for t, _ in tags].count("script") == 1 and [t for t, _ in tags].count("style") == 1


def test_page_is_byte_identical_for_equal_reports(report, runs, traces):
    # Entries travel from xdist workers as JSON; the page must not depend on that round trip or on order.
    again = FenceReport.merge(
        TestEntry.model_validate_json(e.model_dump_json()) for e in reversed(list(runs.values()))
    )
    assert render_html(again) == render_html(report)
    assert str(traces["clean"].parent) not in render_html(report)  # no absolute path of the captures


def test_every_claim_has_a_selectable_span_and_a_chain(report):
    page = render_html(report)
    for i, entry in enumerate(report.tests):
        for claim in entry.detail.claims:
            assert f'id="claim-t{i}-{claim.id}"' in page and f'aria-controls="chain-t{i}-{claim.id}"' in page
            assert f'<div class="chain" id="chain-t{i}-{claim.id}"' in page


def test_totals_show_outcomes_and_figures_with_inputs(report):
    page = render_html(report)
    assert "2 fenced test(s): 1 pass, 1 fail, 0 audit-error, 0 report-only" in page
    assert "coverage 2/4 (50.0%)" in page and "hallucinations 2/4 (50.0%)" in page
    assert "coverage \u2265 100.0%, hallucinations \u2264 0" in page
    assert "shortfall: hallucinations 2/4 (50.0%) &gt; max_hallucinations 0" in page


def test_fabrication_origins_are_marked_in_the_topology(report):
    page = render_html(report)
    fabricated = page[page.index('id="t1"'):]
    origins = re.findall(r'<g class="tnode k-node origin" data-node="([^"]+)">', fabricated)
    assert origins == ["filings", "writer"]
    for cid in ("c004", "c005"):  # each id of a mark is a link that selects its claim
        assert (f'\u26a0 introduced <a href="#claim-t1-{cid}" data-select="claim-t1-{cid}" class="claim-link">'
                f"<tspan>{cid}</tspan></a>") in fabricated
    clean = page[page.index('id="t0"'):page.index('id="t1"')]
    assert " origin" not in clean.replace("origin-note", "")


def test_text_from_the_run_is_escaped_everywhere(report):
    entry = report.tests[0]
    hostile = "<script>alert('x')</script>"
    detail = entry.detail.model_copy(update={
        "document": entry.detail.document,
        "nodes": [n.model_copy(update={"tools": [hostile]}) for n in entry.detail.nodes],
        "passport": hostile,
    })
    page = render_html(FenceReport.merge([entry.model_copy(update={
        "nodeid": f"t.py::test[{hostile}]", "detail": detail, "shortfalls": [hostile]})]))
    assert hostile not in page
    assert page.count("<script>") == 1  # the page's own


def test_entry_without_detail_lists_its_claims(runs):
    plain = runs["fabricated"].model_copy(update={"detail": None})
    page = render_html(FenceReport.merge([plain]))
    assert '<table class="claims-table">' in page and "introduced by" in page
    assert "Diluted EPS reached $9.75 in FY2024." in page and 'class="chain"' not in page


def test_detail_refuses_a_document_that_was_not_audited(traces):
    cascade = audit_cascade_sync(trace_dir=traces["clean"])
    with pytest.raises(AuditError, match="not the one the cascade audited"):
        build_detail(cascade, trace_dir=traces["clean"], document="Revenue was $5 million.\n")


def test_detail_embeds_only_the_lines_around_each_link(runs):
    detail = runs["fabricated"].detail
    excerpts = {x.file: [ln.n for ln in x.lines] for x in detail.excerpts}
    assert excerpts["tools/prices/r1.get_prices.1.txt"] == [3, 4, 5, 6, 7, 8]
    assert "report.md" not in excerpts  # the document itself is shown whole
    assert detail.source == "fabricated" and detail.final_node == "writer"
    assert {n.name: n.tools for n in detail.nodes}["prices"] == ["get_prices"]


def test_layout_layers_by_longest_path_and_breaks_loops():
    nodes = ["__input__", "agent", "tools", "write", "__report__"]
    edges = [("__input__", "agent"), ("agent", "tools"), ("tools", "agent"), ("agent", "write"),
             ("write", "__report__"), ("__input__", "write")]
    pos, back = layout(nodes, edges)
    assert back == {("tools", "agent")}
    assert {n: p[0] for n, p in pos.items()} == {"__input__": 0, "agent": 1, "tools": 2, "write": 2, "__report__": 3}
    rng = random.Random(7)
    for _ in range(5):
        shuffled_nodes, shuffled_edges = nodes[:], edges[:]
        rng.shuffle(shuffled_nodes)
        rng.shuffle(shuffled_edges)
        assert layout(shuffled_nodes, shuffled_edges) == (pos, back)


PLUGIN_TESTS = '''
import pytest
from traced_app import build_app


def _run(fence_snapshot, fabricate):
    result = build_app(fabricate=fabricate).invoke(
        {"messages": [("user", "Write a research note on HALV")]}, config=fence_snapshot.config())
    fence_snapshot.set_report(result["messages"][-1].content)


@pytest.mark.fence(min_coverage=1.0, max_hallucinations=0)
def test_clean(fence_snapshot):
    _run(fence_snapshot, False)


@pytest.mark.fence(min_coverage=1.0, max_hallucinations=0)
def test_fabricated(fence_snapshot):
    _run(fence_snapshot, True)
'''


def test_fence_html_option_writes_the_same_page_serially_and_under_xdist(pytester, traced_app):
    pytester.makepyfile(traced_app=Path(traced_app.__file__).read_text(encoding="utf-8"), test_note=PLUGIN_TESTS)
    pytester.syspathinsert()
    serial = pytester.runpytest("-p", "no:xdist", "--fence-html=out/serial.html", "--fence-report=serial.json")
    serial.assert_outcomes(passed=1, failed=1)
    serial.stdout.fnmatch_lines(["fence report (JSON) written to serial.json",
                                 f"HTML evidence chains written to {(pytester.path / 'out' / 'serial.html').as_uri()}"])
    parallel = pytester.runpytest("-n", "2", "--fence-html=out/parallel.html", "--fence-report=parallel.json")
    parallel.assert_outcomes(passed=1, failed=1)
    page = (pytester.path / "out" / "serial.html").read_text(encoding="utf-8")
    assert page == (pytester.path / "out" / "parallel.html").read_text(encoding="utf-8")
    assert (pytester.path / "serial.json").read_bytes() == (pytester.path / "parallel.json").read_bytes()
    assert '"detail"' not in (pytester.path / "serial.json").read_text(encoding="utf-8")
    assert "test_note.py::test_fabricated" in page and 'id="chain-t1-c005"' in page
    assert str(pytester.path) not in page
    assert re.findall(r'class="tnode k-node origin" data-node="([^"]+)"', page) == ["filings", "writer"]
