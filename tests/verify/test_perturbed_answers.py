"""Issue 10, trust: wrong figures that passed as `verified` or `derived` (TAT-QA perturbations, stop 13), over
real captured runs. Each rule with the true sentence covered and the perturbed one flagged: a header spanning a
date's sub-columns, a figure 'for the prior year', a difference of two subjects' rates, a ratio leaving out a row
the claim names, and a 'respectively' list paired figure by figure."""

from __future__ import annotations

from pathlib import Path

import pytest
from langchain_core.tools import tool

from pytest_auditfence import Verdict
from tool_runs import claim_of, tool_run_auditor

COVERED = (Verdict.VERIFIED, Verdict.DERIVED)

# a header row spanning two sub-columns per date, written in the first one (a PDF page and markdown alike)
DEBT_ROWS = [
    ["", "December 31, 2019", "", "December 31, 2018", ""],
    ["(In millions)", "Carrying Amount", "Fair Value", "Carrying Amount", "Fair Value"],
    ["Senior notes due 2027", "$ 612.5", "$ 640.3", "$ 598.1", "$ 577.9"],
    ["Term loan", "210.0", "210.0", "250.0", "250.0"],
    ["Total debt", "$ 822.5", "$ 850.3", "$ 848.1", "$ 827.9"],
]


def _debt_markdown() -> str:
    lines = ["Table 3 (in millions)", "", "| " + " | ".join(DEBT_ROWS[0]) + " |", "|---|---|---|---|---|"]
    return "\n".join(lines + ["| " + " | ".join(r) + " |" for r in DEBT_ROWS[1:]]) + "\n"


def _debt_pdf() -> str:
    widths = [max(len(r[j]) for r in DEBT_ROWS) for j in range(5)]
    lines = ["Table 3 (in millions)", ""]
    for row in DEBT_ROWS:
        rest = "   ".join(c.rjust(widths[j + 1]) for j, c in enumerate(row[1:]))
        lines.append((row[0].ljust(widths[0]) + "   " + rest).rstrip())
    return "\n".join(lines) + "\n"


SUBSCRIBERS = """Subscriber statistics

Fiscal 2019 broadband subscribers net additions stood at 18,204 compared to 19,877 for the prior year, driven by
network expansion. Fiscal 2019 video subscribers net losses stood at 3,310 compared to 4,052 for the prior year.
"""

CUSTOMERS = """Revenue from significant customers (fiscal year)

|  | 2019 | 2018 | 2017 |
|---|---|---|---|
| Northwind Traders | 41% | 45% | 38% |
| Contoso Ltd. | 17% | 12% | 15% |
"""

DEFERRED = """Deferred tax assets (in thousands)

|  | 2019 | 2018 |
|---|---|---|
| Deferred revenue | 512 | 498 |
| Accrued warranty | 61 | 54 |
| Inventory reserves | 830 | 790 |
| Gross deferred tax assets | 24,310 | 23,950 |
"""

REGIONS = """Geographic information

Based on the ship-to locations, revenue from sales into Korea accounted for 31%, 28%, and 24% of total revenue in
2019, 2018, and 2017, respectively; revenue from sales into Vietnam accounted for 16%, 19%, and 21% of total revenue
in 2019, 2018, and 2017, respectively; and revenue from sales into Mexico accounted for 9%, 27%, and 7% of total
revenue in 2019, 2018, and 2017, respectively.
"""

DOCUMENTS = {"debt-md": _debt_markdown(), "debt-pdf": _debt_pdf(), "subscribers": SUBSCRIBERS,
             "customers": CUSTOMERS, "deferred": DEFERRED, "regions": REGIONS}


@tool
def get_filing_section(section: str) -> str:
    """One section of an annual report: its table and the paragraphs around it."""
    return DOCUMENTS[section]


@pytest.fixture
def audit(tmp_path: Path):
    run = tool_run_auditor(tmp_path, [get_filing_section], "Answer the questions on the annual report.")

    def verdict(section: str, sentence: str, figure: str):
        record = claim_of(run([("get_filing_section", {"section": section})], sentence), figure)
        return record

    return verdict


def _flagged(record) -> bool:
    return record.verdict in (Verdict.UNSUPPORTED, Verdict.CONTRADICTED)


@pytest.mark.parametrize("section", ["debt-md", "debt-pdf"])
def test_a_header_spanning_sub_columns_dates_each_of_them(audit, section: str) -> None:
    fair_2019 = "The fair value of total debt as of December 31, 2019 was ${} million."
    record = audit(section, fair_2019.format("850.3"), "850.3")
    assert record.verdict is Verdict.VERIFIED, record.notes
    assert audit(section, "The fair value of total debt as of December 31, 2018 was $827.9 million.",
                 "827.9").verdict is Verdict.VERIFIED
    # the 2018 fair value (the sub-column without a date of its own) is no 2019 figure
    assert _flagged(audit(section, fair_2019.format("827.9"), "827.9"))
    # the 2018 carrying amount, the perturbation that passed on TAT-QA
    assert _flagged(audit(section, fair_2019.format("848.1"), "848.1"))


@pytest.mark.parametrize("section", ["debt-md", "debt-pdf"])
def test_the_sub_column_the_claim_names_is_the_one_checked(audit, section: str) -> None:
    carrying = audit(section, "The carrying amount of total debt as of December 31, 2019 was $822.5 million.", "822.5")
    assert carrying.verdict is Verdict.VERIFIED, carrying.notes
    # the carrying amount of the same date and row is no fair value
    assert _flagged(audit(section, "The fair value of total debt as of December 31, 2019 was $822.5 million.", "822.5"))
    assert _flagged(audit(section, "The carrying amount of total debt as of December 31, 2019 was $850.3 million.",
                          "850.3"))


def test_a_figure_for_the_prior_year_is_the_year_before_its_sentences(audit) -> None:
    sentence = "The net additions for broadband subscribers in {} came to {}."
    assert audit("subscribers", sentence.format(2019, "18,204"), "18,204").verdict is Verdict.VERIFIED
    assert _flagged(audit("subscribers", sentence.format(2019, "19,877"), "19,877"))  # last year's figure


def test_a_difference_of_two_subjects_rates_is_no_derivation(audit) -> None:
    pair = "The percentage of revenue from Northwind and Contoso in 2019 were {} and 17%, respectively."
    assert audit("customers", pair.format("41%"), "41%").verdict is Verdict.VERIFIED
    # 45% (Northwind, 2018) - 17% (Contoso, 2019) = 28%: a difference of two subjects' rates is a figure of neither
    assert _flagged(audit("customers", pair.format("28%"), "28%"))
    # the difference of one subject's rates over the years the claim names stays derived
    change = audit("customers", "Northwind's share of revenue decreased by 4% from 2018 to 2019.", "4%")
    assert change.verdict in COVERED, change.notes


def test_a_ratio_uses_every_row_the_claim_names(audit) -> None:
    share = "The proportion, in percentage, of deferred revenue and accrued warranty over gross deferred tax assets " \
            "in 2019 was {}."
    # 512 / 24,310 = 2.11%: deferred revenue alone, leaving out the accrued warranty the claim names
    assert _flagged(audit("deferred", share.format("2.11%"), "2.11%"))
    ratio = audit("deferred", "The ratio of inventory reserves to accrued warranty in 2019 was 13.61.", "13.61")
    assert ratio.verdict is Verdict.DERIVED, ratio.notes  # 830 / 61: the two rows it names


def test_a_respectively_list_pairs_each_figure_with_its_year_and_subject(audit) -> None:
    sentence = "The percentage revenue from sales into Vietnam in 2017, 2018, and 2019 was {}, {} and {}, respectively."
    right = audit("regions", sentence.format("21%", "19%", "16%"), "21%")
    assert right.verdict is Verdict.VERIFIED, right.notes
    # 24% is Korea's 2017 share: the year fits, the subject does not
    assert _flagged(audit("regions", sentence.format("24%", "19%", "16%"), "24%"))
    # the list read in the source's order (2019 first) pairs 16% with 2017: wrong
    assert _flagged(audit("regions", sentence.format("16%", "19%", "21%"), "16%"))
    # 27% is Mexico's 2018 share, stated in another clause of the same sentence
    assert _flagged(audit("regions", "Revenue from sales into Vietnam in 2018 was 27%.", "27%"))
    assert audit("regions", "Revenue from sales into Vietnam in 2018 was 19%.", "19%").verdict is Verdict.VERIFIED
