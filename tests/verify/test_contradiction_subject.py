"""`contradicted` needs the same subject, dimension and period with another value; a figure that differs
from another subject's figure is `unsupported` (issue 10), over real captured runs."""

from __future__ import annotations

from pathlib import Path

from langchain_core.tools import tool

from pytest_auditfence import Verdict
from tool_runs import claim_of, tool_run_auditor

FILING = ("Subscription revenue was $80 million in 2023, up from $70 million in 2022. Operating costs were "
          "stable across the year, and the board approved a new buyback plan for the next year.\n\n"
          "Hardware sales declined as the company exited the consumer market.")


@tool
def get_filing(section: str) -> str:
    """A section of a filing, as prose."""
    return FILING


def _verdict(tmp_path: Path, report: str) -> Verdict:
    run = tool_run_auditor(tmp_path, [get_filing], "How did revenue do in 2023?")
    return claim_of(run([("get_filing", {"section": "mdna"})], report), "$77 million").verdict


def test_a_figure_of_another_subject_is_unsupported_not_contradicted(tmp_path: Path) -> None:
    # 'revenue' is shared, 'hardware' is not: the $80 million is subscription revenue's
    assert _verdict(tmp_path, "Hardware revenue was $77 million in 2023.") is Verdict.UNSUPPORTED


def test_the_same_subject_and_period_with_another_value_is_contradicted(tmp_path: Path) -> None:
    assert _verdict(tmp_path, "Subscription revenue was $77 million in 2023.") is Verdict.CONTRADICTED


def test_the_same_subject_in_another_period_is_unsupported(tmp_path: Path) -> None:
    # the source states subscription revenue for 2023 and 2022, not for 2021
    assert _verdict(tmp_path, "Subscription revenue was $77 million in 2021.") is Verdict.UNSUPPORTED


def test_the_correct_figure_is_still_verified(tmp_path: Path) -> None:
    run = tool_run_auditor(tmp_path, [get_filing], "How did revenue do in 2023?")
    cascade = run([("get_filing", {"section": "mdna"})], "Subscription revenue was $80 million in 2023.")
    assert claim_of(cascade, "$80 million").verdict is Verdict.VERIFIED
