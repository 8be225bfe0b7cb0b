"""The evidence page in a real headless Chromium: select claims by mouse and keyboard, read the chain panel.

Screenshots are kept under the test's tmp_path and copied to test-artifacts/ (gitignored).
"""

from __future__ import annotations

import shutil
from pathlib import Path

from pytest_auditfence import audit_cascade_sync
from pytest_auditfence.html import entry_for_cascade, write_html
from pytest_auditfence.report import FenceReport

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"  # gitignored; CI keeps what is left here

STATE = """(() => {
  const panel = document.querySelector('.chain:not([hidden])');
  const links = panel ? [...panel.querySelectorAll(':scope > ol.links:first-of-type > li')] : [];
  const box = panel ? panel.getBoundingClientRect() : null;
  return {
    visible: [...document.querySelectorAll('.chain')].filter(c => !c.hidden).map(c => c.id),
    pressed: [...document.querySelectorAll('.claim[aria-pressed="true"]')].map(c => c.id),
    links: links.map(li => ({
      node: li.dataset.node,
      head: li.querySelector('.link-head').innerText,
      marks: [...li.querySelectorAll('mark')].map(m => m.innerText),
      hits: [...li.querySelectorAll('.ln.hit')].map(l => Number(l.dataset.n)),
      lines: [...li.querySelectorAll('.ln')].map(l => Number(l.dataset.n)),
    })),
    origin: panel && panel.querySelector('.origin-note') ? panel.querySelector('.origin-note').innerText : null,
    onChain: [...document.querySelectorAll('.tnode.on-chain')].map(n => n.closest('section').id + ':' + n.dataset.node).sort(),
    origins: [...document.querySelectorAll('.tnode.origin')].map(n => n.closest('section').id + ':' + n.dataset.node).sort(),
    panelShown: box !== null && box.width > 0 && box.height > 0 && box.top < window.innerHeight,
    hint: [...document.querySelectorAll('.chain-panel .hint')].filter(h => !h.hidden).length,
  };
})()"""


def _keep(shot: Path) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    shutil.copy2(shot, ARTIFACTS / shot.name)


def test_selecting_claims_shows_their_chains(browser, report, tmp_path):
    page = tmp_path / "report.html"
    write_html(report, page)
    browser.open(page.as_uri())
    start = browser.evaluate(STATE)
    assert start["visible"] == [] and start["pressed"] == [] and start["hint"] == 2
    # t0 is the clean run, t1 the fabricated one (tests sorted by node id); each origin is marked.
    assert start["origins"] == ["t1:filings", "t1:writer"]

    # Keyboard: Tab to the fabricated claim c004, then Enter.
    for _ in range(80):
        if browser.evaluate("document.activeElement.id") == "claim-t1-c004":
            break
        browser.press("Tab", 9)
    else:
        raise AssertionError("Tab never reached claim c004 of the fabricated run")
    browser.press("Enter", 13)
    state = browser.evaluate(STATE)
    fabricated = report.tests[1].detail
    chain = next(c for c in fabricated.chains if c.claim_id == "c004")
    assert state["visible"] == ["chain-t1-c004"] and state["pressed"] == ["claim-t1-c004"]
    assert state["origin"] == "\u26a0 introduced by node filings (round 1): its inputs do not hold this content"
    assert [lk["node"] for lk in state["links"]] == [lk.node for lk in chain.links] == ["__report__", "writer", "filings"]
    assert state["links"][2]["head"].startswith("filings \u00b7 node_output \u00b7 nodes/filings/r1.output.txt:")
    assert state["links"][2]["marks"] == ["4,100"]  # the claim's figure, found in the node's own output
    assert state["onChain"] == ["t1:__report__", "t1:filings", "t1:writer"] and state["panelShown"]
    browser.screenshot(tmp_path / "evidence-page-fabrication.png")

    # Mouse: click the verified claim c002; its chain reaches the price tool's raw output.
    browser.click("#claim-t1-c002")
    state = browser.evaluate(STATE)
    chain = next(c for c in fabricated.chains if c.claim_id == "c002")
    assert state["visible"] == ["chain-t1-c002"] and state["pressed"] == ["claim-t1-c002"]
    assert state["origin"] is None
    assert [lk["node"] for lk in state["links"]] == [lk.node for lk in chain.links]
    raw = state["links"][-1]
    assert raw["head"] == ("prices \u00b7 tool_call \u00b7 tool get_prices \u00b7 "
                           "tools/prices/r1.get_prices.1.txt:5raw tool output")
    assert raw["hits"] == [5, 6] and raw["lines"] == [3, 4, 5, 6, 7, 8]
    assert raw["marks"] == ["45.95 | 2024-11-29", "46.2 | 2024-12-31"]
    assert state["onChain"] == ["t1:__report__", "t1:prices", "t1:writer"]
    shot = browser.screenshot(tmp_path / "evidence-page.png")
    assert shot.stat().st_size > 20_000  # a rendered page, not a blank image
    _keep(shot)
    _keep(tmp_path / "evidence-page-fabrication.png")

    # The page asked for nothing but itself.
    assert browser.requested_urls() == [page.as_uri()]


def test_document_text_cannot_run_script(browser, traces, tmp_path):
    evil = ("HALV closed at $46.20 on 2024-12-31. <script>window.pwned = 1</script>\n"
            "<img src=x onerror=\"window.pwned = 2\"> Revenue was $1,234 million in FY2024.\n")
    cascade = audit_cascade_sync(trace_dir=traces["clean"], final_document=evil)
    entry = entry_for_cascade(cascade, name="evil <b>name</b>", trace_dir=traces["clean"], document=evil)
    page = tmp_path / "evil.html"
    write_html(FenceReport.merge([entry]), page)
    browser.open(page.as_uri())
    assert browser.evaluate("typeof window.pwned") == "undefined"
    assert browser.evaluate("document.querySelectorAll('img, b').length") == 0
    text = browser.evaluate("document.querySelector('pre.document').innerText")
    assert "<script>window.pwned = 1</script>" in text
    browser.click("#claim-t0-c001")
    assert browser.evaluate(STATE)["visible"] == ["chain-t0-c001"]
    assert browser.requested_urls() == [page.as_uri()]


SELECTED = """(() => {
  const claim = document.querySelector('.claim[aria-pressed="true"]');
  const box = claim ? claim.closest('pre.document').getBoundingClientRect() : null;
  const at = claim ? claim.getBoundingClientRect() : null;
  return {
    visible: [...document.querySelectorAll('.chain')].filter(c => !c.hidden).map(c => c.id),
    pressed: claim ? claim.id : null,
    inView: at !== null && at.top >= box.top && at.bottom <= box.bottom && at.top >= 0 && at.bottom <= innerHeight,
  };
})()"""


def test_failing_claims_are_listed_first_and_labels_select_their_claims(browser, report, tmp_path):
    page = tmp_path / "report.html"
    write_html(report, page)
    browser.open(page.as_uri())
    listed = browser.evaluate("""[...document.querySelectorAll('section.test')].map(s => ({
        id: s.id,
        listFirst: !s.querySelector('nav.failing') || !!s.querySelector('nav.failing + .cols'),
        failing: [...s.querySelectorAll('nav.failing a')].map(a => a.getAttribute('data-select')),
        titles: [...s.querySelectorAll('.doc h3, .chain-panel h3')].map(h => h.innerText)}))""")
    failing = [c.id for c in report.tests[1].detail.claims if c.verdict.value in ("contradicted", "unsupported",
                                                                                    "misattributed")]
    assert listed[0]["failing"] == [] and listed[1]["failing"] == [f"claim-t1-{c}" for c in failing]
    assert listed[1]["listFirst"]  # above the report and its chains
    assert failing == ["c004", "c005"]
    # panels are titled by the test, not by a trace folder's name
    assert listed[1]["titles"] == ["Final report of tests/test_note.py::test_fabricated",
                                   "Evidence chain \u00b7 tests/test_note.py::test_fabricated"]
    # the document box is short: the claim is brought into view inside it when its list entry is clicked
    browser.evaluate("document.querySelectorAll('pre.document').forEach(p => { p.style.maxHeight = '3em'; "
                     "p.style.overflow = 'auto'; })")
    browser.click("nav.failing a[data-select='claim-t1-c005']")
    state = browser.evaluate(SELECTED)
    assert state == {"visible": ["chain-t1-c005"], "pressed": "claim-t1-c005", "inView": True}
    # the topology's "introduced c004" label selects c004
    browser.click("#t1 .topology a[data-select='claim-t1-c004']")
    state = browser.evaluate(SELECTED)
    assert state == {"visible": ["chain-t1-c004"], "pressed": "claim-t1-c004", "inView": True}
    assert browser.requested_urls() == [page.as_uri()]
