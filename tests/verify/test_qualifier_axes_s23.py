"""Issue 10, trust (stop 23): wrong cells and prose figures that backed claims, over real captured runs, each rule
with the true sentence covered and the wrong one flagged: a cell labelled with one side of a label axis (within /
after one year, current / non-current, basic / diluted, before / after tax, continuing / discontinued, ...) backs
no claim naming the other side, as evidence or as an operand; a sentence opening 'In 2019,' dates its figures; a
prose amount 'of X' is no evidence for a claim that never names X when a table row carries the claim's subject; a
date in words in a header ('Year Ended December 31, 2019') names no subject."""

from __future__ import annotations

import pytest

from pytest_auditfence import Verdict
from tool_runs import section_auditor

COVERED = (Verdict.VERIFIED, Verdict.DERIVED)

MATURITY_ROWS = [["", "2019", "2018"],
                 ["Due within one year", "221,233", "198,410"],
                 ["Due after more than one year", "412,907", "380,115"],
                 ["Total", "634,140", "578,525"]]
MATURITY_CAPTION = "Contractual obligations (in thousands)\n\n"


def _markdown(rows: list[list[str]]) -> str:
    head, *body = rows
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    return "\n".join(lines + ["| " + " | ".join(r) + " |" for r in body]) + "\n"


def _csv(rows: list[list[str]]) -> str:
    return "\n".join(",".join(f'"{c}"' if "," in c else c for c in r) for r in rows) + "\n"


def _html(rows: list[list[str]]) -> str:
    return "<table>" + "".join("<tr>" + "".join(f"<td>{c}</td>" for c in r) + "</tr>" for r in rows) + "</table>"


def _page(rows: list[list[str]]) -> str:
    return "\n".join(f"{r[0]:<34}" + "".join(f"{c:>14}" for c in r[1:]) for r in rows) + "\n"


MATURITY = {"maturity-md": MATURITY_CAPTION + _markdown(MATURITY_ROWS),
            "maturity-csv": MATURITY_CAPTION + _csv(MATURITY_ROWS),
            "maturity-html": "<p>Contractual obligations (in thousands)</p>" + _html(MATURITY_ROWS),
            "maturity-pdf": MATURITY_CAPTION + _page(MATURITY_ROWS)}

# the same line item split by a column header: within one year / after one year, as lease tables print it
SPLIT_COLUMNS_MD = """Lease liabilities (in millions)

|  | Within one year | After one year | Total |
|---|---|---|---|
| Operating leases | 48.2 | 310.5 | 358.7 |
| Finance leases | 6.1 | 22.4 | 28.5 |
"""

# a maturity table's buckets as columns: 'Less than 1 year' ... 'More than 5 years'
BUCKETS_MD = """Contractual obligations (in millions)

|  | Total | Less than 1 year | 1-3 years | 3-5 years | More than 5 years |
|---|---|---|---|---|---|
| Long-term debt | 4,647.6 | 310.2 | 1,120.4 | 1,317.0 | 1,900.0 |
| Interest payments | 1,204.6 | 190.5 | 352.1 | 301.9 | 360.1 |
"""

EPS_MD = """Earnings per share, year ended December 31

|  | 2019 | 2018 |
|---|---|---|
| Basic | $2.41 | $2.12 |
| Diluted | $2.37 | $2.09 |
"""

TAX_MD = """Profit (in thousands)

|  | 2019 | 2018 |
|---|---|---|
| Profit before tax | 1,820 | 1,655 |
| Income tax expense | (418) | (371) |
| Profit after tax | 1,402 | 1,284 |
"""

OPERATIONS_MD = """Net income (in thousands)

|  | 2019 | 2018 |
|---|---|---|
| Income from continuing operations | 5,318 | 4,902 |
| Income from discontinued operations | 1,207 | 966 |
"""

TAX_KIND_MD = """Income tax expense (in millions)

|  | 2019 | 2018 |
|---|---|---|
| Current tax | 31.6 | 27.9 |
| Deferred tax | 4.2 | 5.8 |
"""

LICENSES = """Intangible assets (in millions)

|  | 2019 | 2018 |
|---|---|---|
| FCC licenses | 41.2 | 38.9 |
| State licenses | 2.5 | 2.5 |

In 2019, FCC licenses increased by $4.6 million as a result of acquisitions, partially offset by $2.3 million of
impairments. State licenses were unchanged.
"""

OPENING_PROSE = ("Results of operations. In 2019, revenue was $48.2 million and gross profit was $12.6 million. "
                 "In 2018, revenue was $41.0 million, up from $39.5 million.\n")

DATED_HEADER = """Selected data

|  | Year Ended December 31, 2019 | Year Ended December 31, 2018 |
|---|---|---|
| Accounts receivable | 1,240 | 1,105 |
|  | 88 | 74 |
"""

ROLL_ROWS = [["", "Number of Shares", "Weighted Average Grant Date Fair Value"],
             ["Nonvested at January 1, 2018", "214", "$18.40"], ["Granted", "96", "22.15"], ["Vested", "(71)", "17.90"],
             ["Forfeited", "(12)", "19.05"], ["Nonvested at December 31, 2018", "227", "20.12"],
             ["Granted", "140", "25.30"], ["Vested", "(88)", "19.75"], ["Forfeited", "(27)", "21.60"],
             ["Nonvested at December 31, 2019", "252", "$23.04"]]
ROLL_CAPTION = "Restricted stock units (shares in thousands)\n\n"
ROLL_FORWARD = {"roll-md": ROLL_CAPTION + _markdown(ROLL_ROWS), "roll-csv": ROLL_CAPTION + _csv(ROLL_ROWS),
                "roll-pdf": ROLL_CAPTION + _page(ROLL_ROWS)}

PPE_MD = """Property, plant and equipment (in millions)

|  | December 31, 2019 | December 31, 2018 |
|---|---|---|
| Land | 412.5 | 409.8 |
| Buildings | 3,118.2 | 2,987.0 |
| Less: accumulated depreciation | (2,964.6) | (2,755.1) |
| Property, plant and equipment, net | 566.1 | 641.7 |
"""

# one row label repeated under two section rows
SECTIONS_MD = """Property valuations

|  | 2019 | 2018 |
|---|---|---|
| Freehold: |  |  |
| Internal valuation | 71% | 66% |
| External valuation | 29% | 34% |
| Leasehold: |  |  |
| Internal valuation | 77% | 62% |
| External valuation | 23% | 38% |
"""

DOCUMENTS = {**MATURITY, **ROLL_FORWARD, "buckets": BUCKETS_MD, "ppe": PPE_MD, "sections": SECTIONS_MD, "split-columns": SPLIT_COLUMNS_MD, "eps": EPS_MD, "tax": TAX_MD, "operations": OPERATIONS_MD,
             "tax-kind": TAX_KIND_MD, "licenses": LICENSES, "opening": OPENING_PROSE, "dated": DATED_HEADER}


@pytest.fixture
def audit(tmp_path):
    return section_auditor(tmp_path, DOCUMENTS)


def _flagged(record) -> bool:
    return record.verdict in (Verdict.UNSUPPORTED, Verdict.CONTRADICTED)


@pytest.mark.parametrize("section", sorted(MATURITY))
def test_the_within_one_year_subtotal_backs_no_claim_after_one_year(audit, section: str) -> None:
    after = "In 2019, obligations due after more than one year were ${} thousand."
    right = audit(section, after.format("412,907"), "412,907")
    assert right.verdict is Verdict.VERIFIED, right.notes
    assert _flagged(audit(section, after.format("221,233"), "221,233"))  # the other side of the axis
    assert _flagged(audit(section, after.format("380,115"), "380,115"))  # 2018's column
    assert _flagged(audit(section, after.format("412,907").replace("thousand", "million"), "412,907"))  # scale
    within = audit(section, "In 2019, obligations due within one year were $221,233 thousand.", "221,233")
    assert within.verdict is Verdict.VERIFIED, within.notes


def test_a_share_of_the_buckets_after_five_years_is_no_share_within_them(audit) -> None:
    share = "The proportion of long-term debt payments due in {} was {}."
    right = audit("buckets", share.format("more than 5 years", "0.41"), "0.41")
    assert right.verdict is Verdict.DERIVED, right.notes  # 1,900.0 / 4,647.6
    assert _flagged(audit("buckets", share.format("5 years or below", "0.41"), "0.41"))  # the bucket after 5 years
    within = audit("buckets", share.format("less than 1 year", "0.07"), "0.07")
    assert within.verdict is Verdict.DERIVED, within.notes  # 310.2 / 4,647.6
    assert _flagged(audit("buckets", share.format("less than 1 year", "0.08"), "0.08"))  # 360.1 / 4,647.6: interest


def test_an_operand_of_the_other_side_makes_no_derivation(audit) -> None:
    change = "The change in obligations due after more than one year from 2018 to 2019 was ${} thousand."
    right = audit("maturity-md", change.format("32,792"), "32,792")
    assert right.verdict is Verdict.DERIVED, right.notes  # 412,907 - 380,115
    # 22,823 = 221,233 - 198,410: the change of the obligations due within one year
    assert _flagged(audit("maturity-md", change.format("22,823"), "22,823"))
    sum_after = "Obligations due after more than one year in 2019 and 2018 totalled ${} thousand."
    assert audit("maturity-md", sum_after.format("793,022"), "793,022").verdict is Verdict.DERIVED
    assert _flagged(audit("maturity-md", sum_after.format("419,643"), "419,643"))  # the two within-one-year cells


# (section, sentence, the figure its side holds, figures of the other side or of another period)
ONE_SIDE = [
    ("split-columns", "Operating lease liabilities due after one year were ${} million.", "310.5", ["48.2", "22.4"]),
    ("eps", "Diluted earnings per share in 2019 were ${}.", "2.37", ["2.41", "2.09"]),
    ("eps", "Basic earnings per share in 2019 were ${}.", "2.41", ["2.37"]),
    ("tax", "Profit after tax in 2019 was ${} thousand.", "1,402", ["1,820"]),
    ("tax", "Profit before tax in 2019 was ${} thousand.", "1,820", ["1,402"]),
    ("tax-kind", "The deferred tax expense in 2019 was ${} million.", "4.2", ["31.6"]),
    ("tax-kind", "The current tax expense in 2019 was ${} million.", "31.6", ["4.2"]),
    ("operations", "Income from discontinued operations in 2019 was ${} thousand.", "1,207", ["5,318"]),
]


@pytest.mark.parametrize(("section", "sentence", "right", "wrong"), ONE_SIDE, ids=[f"{c[0]}-{c[2]}" for c in ONE_SIDE])
def test_one_side_of_a_label_axis_backs_no_claim_of_the_other(audit, section: str, sentence: str, right: str,
                                                              wrong: list[str]) -> None:
    found = audit(section, sentence.format(right), right)
    assert found.verdict is Verdict.VERIFIED, found.notes
    for figure in wrong:
        assert _flagged(audit(section, sentence.format(figure), figure)), figure


def test_a_change_of_continuing_operations_takes_no_discontinued_operand(audit) -> None:
    change = "The change in income from continuing operations from 2018 to 2019 was ${} thousand."
    assert audit("operations", change.format("416"), "416").verdict is Verdict.DERIVED  # 5,318 - 4,902
    assert _flagged(audit("operations", change.format("241"), "241"))  # 1,207 - 966, the discontinued change


def test_a_sentence_opening_with_its_year_dates_its_figures(audit) -> None:
    assert audit("opening", "Revenue in 2019 was $48.2 million.", "48.2").verdict is Verdict.VERIFIED
    assert audit("opening", "Revenue in 2018 was $41.0 million.", "41.0").verdict is Verdict.VERIFIED
    assert _flagged(audit("opening", "Revenue in 2018 was $48.2 million.", "48.2"))  # 2019's sentence
    assert _flagged(audit("opening", "Gross profit in 2018 was $12.6 million.", "12.6"))


def test_a_prose_amount_of_another_thing_backs_no_row_of_the_table(audit) -> None:
    assert audit("licenses", "State licenses in 2018 were $2.5 million.", "2.5").verdict is Verdict.VERIFIED
    assert _flagged(audit("licenses", "State licenses in 2018 were $2.3 million.", "2.3"))  # '$2.3 million of impairments'
    named = audit("licenses", "Impairments of FCC licenses in 2019 were $2.3 million.", "2.3")
    assert named.verdict is Verdict.VERIFIED, named.notes  # the claim names what the amount is of
    grew = audit("licenses", "FCC licenses increased by $4.6 million in 2019.", "4.6")
    assert grew.verdict is Verdict.VERIFIED, grew.notes


def test_a_date_in_words_names_no_subject(audit) -> None:
    right = audit("dated", "Accounts receivable for the year ended December 31, 2019 were $1,240.", "1,240")
    assert right.verdict is Verdict.VERIFIED, right.notes
    # the unlabelled row's 88 stands under 'Year Ended December 31, 2019' only, which says when, not what
    assert _flagged(audit("dated", "Inventory write-downs for the year ended December 31, 2019 were $88.", "88"))


@pytest.mark.parametrize("section", sorted(ROLL_FORWARD))
def test_a_roll_forward_dates_its_movements_by_the_balances_around_them(audit, section: str) -> None:
    forfeited = "The number of shares forfeited in {} was {} thousand."
    right = audit(section, forfeited.format(2019, 27), "27")
    assert right.verdict is Verdict.VERIFIED, right.notes
    assert audit(section, forfeited.format(2018, 12), "12").verdict is Verdict.VERIFIED
    assert _flagged(audit(section, forfeited.format(2019, 12), "12"))  # 2018's forfeitures
    assert _flagged(audit(section, "In 2018, 140 thousand shares were granted.", "140"))  # 2019's grants
    change = "The change in the number of shares granted from 2018 to 2019 was {} thousand."
    assert audit(section, change.format(44), "44").verdict is Verdict.DERIVED  # 140 - 96
    assert _flagged(audit(section, change.format(15), "15"))  # 27 - 12: forfeitures, not grants


def test_a_percentage_change_is_measured_from_the_earlier_period(audit) -> None:
    change = "The change in accumulated depreciation between December 31, 2018 and 2019 was {} percent."
    right = audit("ppe", change.format("7.6"), "7.6")
    assert right.verdict is Verdict.DERIVED, right.notes  # (2,964.6 - 2,755.1) / 2,755.1
    # 7.1 = (2,964.6 - 2,755.1) / 2,964.6: the change over the later period's value, from 2019 back to 2018
    assert _flagged(audit("ppe", change.format("7.1"), "7.1"))
    grew = audit("ppe", "Buildings grew 4.4% in 2019.", "4.4")
    assert grew.verdict is Verdict.DERIVED, grew.notes  # (3,118.2 - 2,987.0) / 2,987.0


def test_a_row_under_a_section_the_claim_does_not_name_is_no_operand(audit) -> None:
    mean = "The average freehold internal valuation for 2018 and 2019 was {}%."
    right = audit("sections", mean.format("68.5"), "68.5")
    assert right.verdict is Verdict.DERIVED, right.notes  # (71% + 66%) / 2
    assert _flagged(audit("sections", mean.format("69.5"), "69.5"))  # the leasehold row's mean
    assert _flagged(audit("sections", mean.format("74"), "74"))  # 2019's freehold and leasehold rows
    both = audit("sections", "The average internal valuation in 2019 was 74%.", "74")
    assert both.verdict is Verdict.DERIVED, both.notes  # no section named: the mean of the column's two rows
