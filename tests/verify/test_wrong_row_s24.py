"""Issue 10, trust (stop 24): the wrong row and the wrong unit, over real captured runs, each rule with the true
sentence covered and the wrong one flagged: a claim about a total is not backed by a part row that shares its
other words (the total row names it better); a row label's note reference ('(see Note 16)') names no subject, so
the row it labels can name a claim better than its neighbour; a row the claim names by all its words but one
outnames a neighbour whose every shared word it shares too; an amount per share is backed only by a cell whose
row, section, columns or caption name a per-share amount; a figure in percentage points is a difference of two
rates, never a relative change of two amounts."""

from __future__ import annotations

import json

import pytest

from pytest_auditfence import Verdict
from test_qualifier_axes_s23 import _csv, _flagged, _html, _markdown  # stop 23's table forms
from tool_runs import section_auditor

BALANCE_ROWS = [["As of", "2019", "2018"],
                ["Assets", "", ""],
                ["Cash and equivalents", "$212", "$187"],
                ["Inventories", "340", "298"],
                ["Total assets", "$3,518", "$3,160"],
                ["Liabilities", "", ""],
                ["Accounts payable and accrued expenses", "$246", "$231"],
                ["Long-term debt", "1,120", "1,410"],
                ["Other noncurrent liabilities", "17", "63"],
                ["Total liabilities", "$1,383", "$1,704"]]
BALANCE_CAPTION = "Condensed balance sheet of the joint venture (in millions)\n\n"


BALANCE = {"balance-md": BALANCE_CAPTION + _markdown(BALANCE_ROWS),
           "balance-csv": BALANCE_CAPTION + _csv(BALANCE_ROWS),
           "balance-html": "<p>Condensed balance sheet of the joint venture (in millions)</p>" + _html(BALANCE_ROWS)}

OTHER_ASSETS_MD = """Other assets (In thousands)

|  | 2019 | 2018 |
|---|---|---|
| Assets held in rabbi trusts (see Note 12) | $41,207 | $39,655 |
| Deferred tax assets (see Note 15) | 72,118 | 58,903 |
| Other assets(1) | 16,540 | 11,082 |
| Total other assets | $129,865 | $109,640 |
"""

INCOME_MD = """Selected results (in thousands, except per share data)

|  | 2019 | 2018 |
|---|---|---|
| Revenue | 64,120 | 55,280 |
| Net income | 8,416 | 7,350 |
| Diluted earnings per share | 1.84 | 1.61 |
| Gross margin | 41.5% | 39.0% |
"""

DOCUMENTS = {**BALANCE, "other-assets": OTHER_ASSETS_MD, "income": INCOME_MD}


@pytest.fixture
def audit(tmp_path):
    return section_auditor(tmp_path, DOCUMENTS)


@pytest.mark.parametrize("section", sorted(BALANCE))
def test_a_part_row_backs_no_claim_about_the_total(audit, section: str) -> None:
    total = "In 2018, the total liabilities of the joint venture stood at ${} million."
    right = audit(section, total.format("1,704"), "1,704")
    assert right.verdict is Verdict.VERIFIED, right.notes
    assert _flagged(audit(section, total.format("63"), "63"))  # 'Other noncurrent liabilities', the row above
    assert _flagged(audit(section, "In 2019, the total assets stood at $298 million.", "298"))  # inventories, 2018
    # the part row still backs a claim about itself
    part = audit(section, "In 2018, other noncurrent liabilities stood at $63 million.", "63")
    assert part.verdict is Verdict.VERIFIED, part.notes


def test_an_amount_per_share_needs_a_per_share_cell(audit) -> None:
    assert audit("income", "Net income in 2019 was $8,416 thousand.", "8,416").verdict is Verdict.VERIFIED
    assert _flagged(audit("income", "Net income in 2019 was $8,416 per share.", "8,416"))
    assert _flagged(audit("income", "In 2018, revenue came to $55,280 per share.", "55,280"))
    # the per-share row backs the per-share figure, however the claim words it
    eps = audit("income", "Diluted earnings per share in 2019 were $1.84.", "1.84")
    assert eps.verdict is Verdict.VERIFIED, eps.notes
    earned = audit("income", "In 2019 the company earned $1.84 per diluted share.", "1.84")
    assert earned.verdict is Verdict.VERIFIED, earned.notes


def test_a_relative_change_is_no_change_in_percentage_points(audit) -> None:
    change = "The percentage change in revenue from 2018 to 2019 was {}."
    right = audit("income", change.format("15.99%"), "15.99%")  # (64,120 - 55,280) / 55,280
    assert right.verdict is Verdict.DERIVED, right.notes
    assert _flagged(audit("income", change.format("15.99 percentage points"), "15.99"))
    # a difference of two rates is one, in points
    margin = audit("income", "Gross margin rose 2.5 percentage points from 2018 to 2019.", "2.5")
    assert margin.verdict is Verdict.DERIVED, margin.notes


SEGMENT_REVENUE_MD = """Marine services revenue ($ in millions)

|  | 2019 | 2018 |
|---|---|---|
| Telecommunication - Maintenance | $71.4 | $69.8 |
| Power - Operations, Maintenance & Construction Support | 24.3 | 28.6 |
| Power - Cable Installation & Repair | 37.9 | 30.2 |
| Total segment revenue | $133.6 | $128.6 |
"""

# deferred tax rows as a JSON list of records: the section row ('Deferred tax assets') is an empty record
DEFERRED_RECORDS = json.dumps({"caption": "Deferred taxes ($ in thousands)", "rows": [
    {"line_item": "Deferred tax assets", "2019": "", "2018": ""},
    {"line_item": "Inventory", "2019": "$6,812", "2018": "$6,455"},
    {"line_item": "Accrued expenses", "2019": "2,904", "2018": "2,617"},
    {"line_item": "Total deferred tax assets", "2019": "9,716", "2018": "9,072"},
    {"line_item": "Deferred tax liabilities", "2019": "(3,118)", "2018": "(2,940)"},
    {"line_item": "Net deferred tax assets", "2019": "$6,598", "2018": "$6,132"}]})



DOCUMENTS.update({"segments": SEGMENT_REVENUE_MD, "deferred": DEFERRED_RECORDS})

# (section, claim, its right figure, a neighbouring row's figure, a claim the neighbouring row backs or None)
NAMED_BEST = [
    # a claim about a total: the total row names it better than 'Other assets(1)'
    ("other-assets", "The total other assets in 2019 were ${} thousand.", "129,865", "16,540",
     "Other assets in 2019 were $16,540 thousand."),
    # the row above shares 'assets' only; its own row, once '(see Note 15)' names nothing, names the claim better
    ("other-assets", "In 2018, the deferred tax assets stood at ${} thousand.", "58,903", "39,655", None),
    # a row named all but one word ('Support') outnames its neighbour 'Power - Cable Installation & Repair'
    ("segments", "According to the filing, the power - operations, maintenance and construction revenue in 2019 was "
     "${} million.", "24.3", "37.9", "Power cable installation and repair revenue in 2019 was $37.9 million."),
    # ... but not a row holding a claimed word it lacks: 'Net deferred tax assets' is named all but 'net', yet
    # 'inventory' is the claim's and only its own row's (the section row is an empty record)
    ("deferred", "The deferred tax assets for inventory in 2019 came to ${} thousand.", "6,812", "2,904", None),
]


@pytest.mark.parametrize(("section", "claim", "right", "wrong", "other"), NAMED_BEST)
def test_the_row_a_claim_names_best_backs_it(audit, section: str, claim: str, right: str, wrong: str,
                                             other: str | None) -> None:
    found = audit(section, claim.format(right), right)
    assert found.verdict is Verdict.VERIFIED, found.notes
    assert _flagged(audit(section, claim.format(wrong), wrong))
    if other is not None:  # the neighbouring row still backs a claim about itself
        theirs = audit(section, other, wrong)
        assert theirs.verdict is Verdict.VERIFIED, theirs.notes
