"""Issue 10, trust: wrong figures that passed as `verified` or `derived` (TAT-QA perturbations, stop 13), over
real captured runs. Each rule with the true sentence covered and the perturbed one flagged: a header spanning a
date's sub-columns, a figure 'for the prior year', a difference of two subjects' rates, a ratio leaving out a row
the claim names, a 'respectively' list paired figure by figure; then the derivations the extra perturbations
found: quarter columns beside a total, a summand that only moves the last digit, a change's sign, a percentage
change read as a ratio, a sibling column's pair, a sum of two of three years."""

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


# -- derivations: the causes the extra perturbations of the tuning sections found (`--perturb-seeds 3`) ---------

QUARTERS_PDF = """Quarterly results (in thousands, except percentages)

                                                  Fiscal 2019
                               First     Second      Third     Fourth
                             Quarter    Quarter    Quarter    Quarter      Total
Revenues                    $ 51,204   $ 53,890   $ 49,117   $ 47,606   $201,817
Gross margin                   38.4%      39.9%      37.6%      36.9%      38.2%
                                                  Fiscal 2018
                               First     Second      Third     Fourth
                             Quarter    Quarter    Quarter    Quarter      Total
Revenues                    $ 48,310   $ 50,022   $ 51,774   $ 52,108   $202,214
Gross margin                   40.6%      39.2%      38.8%      38.5%      39.3%
"""

INCOME_MD = """Income before income taxes (in millions)

|  | 2019 | 2018 | 2017 |
|---|---|---|---|
| United States | $71.4 | $58.2 | $49.6 |
| Foreign | 0.3 | 0.1 | (0.1) |
| Total | $71.7 | $58.3 | $49.5 |
"""

RESERVE_MD = """Company balance sheet (£m)

|  | 2019 | 2018 |
|---|---|---|
| Called-up share capital | 9.3 | 9.5 |
| Capital redemption reserve | 0.9 | 0.6 |
| Retained earnings | 1,227.0 | 1,372.3 |
"""

SEGMENTS_MD = """Revenue from external customers (in millions)

|  | 2019 | 2018 |
|---|---|---|
| Germany | 91.6 | 80.2 |
| France | 44.9 | 47.3 |
| Total revenue from external customers | 702.4 | 655.0 |
"""

BREAKDOWN_MD = """Restructuring charges by segment (in millions)

| Segment | Total Expected Charges | Cumulative Charges Incurred | Remaining Expected Charges |
|---|---|---|---|
| Sensors | $212 | $187 | $25 |
| Connectors | 104 | 93 | 11 |
"""

DOCUMENTS.update({"quarters": QUARTERS_PDF, "income": INCOME_MD, "reserve": RESERVE_MD, "segments": SEGMENTS_MD,
                  "breakdown": BREAKDOWN_MD})


def test_a_comparison_of_totals_uses_the_total_columns_not_the_quarters(audit) -> None:
    change = "The change in the Total Gross Margin between Fiscal 2018 and 2019 was {}."
    right = audit("quarters", change.format("1.1 percent"), "1.1 percent")  # 39.3% - 38.2%
    assert right.verdict is Verdict.DERIVED, right.notes
    assert _flagged(audit("quarters", change.format("0.7 percent"), "0.7 percent"))  # 40.6% - 39.9%: two quarters
    assert _flagged(audit("quarters", change.format("1.5 percent"), "1.5 percent"))  # 38.4% - 36.9%: Q1 less Q4 2019


def test_a_summand_of_a_few_units_of_the_last_digit_is_no_evidence(audit) -> None:
    sentence = "The total income before income taxes in 2019 and 2018 came to {} and $58.3 million, respectively."
    assert audit("income", sentence.format("$71.7 million"), "$71.7").verdict is Verdict.VERIFIED
    assert _flagged(audit("income", sentence.format("$71.5 million"), "$71.5"))  # $71.4 + 0.1, $71.4 + ...
    assert _flagged(audit("income", sentence.format("$71.3 million"), "$71.3"))  # $71.4 - 0.1


def test_a_change_between_two_periods_keeps_its_sign(audit) -> None:
    sentence = "The change in Capital redemption reserve in 2019 from 2018 came to {}."
    assert audit("reserve", sentence.format("£0.3 million"), "£0.3").verdict is Verdict.DERIVED  # 0.9 - 0.6
    assert _flagged(audit("reserve", sentence.format("-£0.3 million"), "£0.3"))  # 0.6 - 0.9: the wrong way round
    fell = audit("reserve", "Called-up share capital decreased by £0.2 million from 2018 to 2019.", "£0.2")
    assert fell.verdict is Verdict.DERIVED, fell.notes  # a fall stated without its sign


def test_a_percentage_change_is_no_ratio(audit) -> None:
    sentence = "The percentage change in revenue from external customers from Germany in 2019 from 2018 was {}."
    right = audit("segments", sentence.format("14.21%"), "14.21%")  # (91.6 - 80.2) / 80.2
    assert right.verdict is Verdict.DERIVED, right.notes
    # 91.6 / 702.4 = 13.04%: Germany's share of the total, which the claim does not state
    assert _flagged(audit("segments", sentence.format("13.04%"), "13.04%"))


def test_a_difference_between_two_rows_is_of_the_column_the_claim_names(audit) -> None:
    sentence = "The difference in total expected charges between Sensors and Connectors was {}."
    assert audit("breakdown", sentence.format("$108 million"), "$108").verdict is Verdict.DERIVED  # 212 - 104
    assert _flagged(audit("breakdown", sentence.format("$94 million"), "$94"))  # 187 - 93: cumulative charges


def test_a_total_over_three_years_is_no_sum_of_two(audit) -> None:
    sentence = "The total income before income taxes from 2017 to 2019 was {}."
    assert _flagged(audit("income", sentence.format("$130.0 million"), "$130.0"))  # 71.7 + 58.3: 2017 left out
    assert _flagged(audit("income", sentence.format("$121.2 million"), "$121.2"))  # 71.7 + 49.5: 2018 left out


FILMS_MD = """Films released

|  | 2019 | 2018 | 2017 | Increase (Decrease) 2019 vs 2018 |
|---|---|---|---|---|
| Hindi films | 7 | 10 | 12 | (3) |
| Regional films | 46 | 41 | 38 | 5 |
"""

DOCUMENTS["films"] = FILMS_MD


def test_an_increase_is_no_single_cell_of_the_same_digits(audit) -> None:
    # regional films rose from 38 to 41 (+3); 41 is the 2018 cell, no increase
    assert _flagged(audit("films", "The increase / (decrease) in regional films from 2017 to 2018 was 41.", "41"))
    derived = audit("films", "The increase / (decrease) in regional films from 2017 to 2018 was 3.", "3")
    assert derived.verdict is not Verdict.CONTRADICTED, derived.notes
    # a column of changes states the increase itself
    column = audit("films", "The increase in regional films in 2019 vs 2018 was 5.", "5")
    assert column.verdict is Verdict.VERIFIED, column.notes
