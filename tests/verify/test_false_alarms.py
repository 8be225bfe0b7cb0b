"""Issue 10, false alarms on true reports: rules that let a correct figure read from (or computed from) a
table be covered, each over real captured runs (`plan` asks for a tool, a `ToolNode` runs it, `write`
returns the report) in three forms a tool returns a table in: a JSON table, a markdown table under a
caption, the text of a PDF page. Every rule has its negative: the wrong period, row or figure is flagged."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from langchain_core.tools import tool

from pytest_auditfence import Verdict
from tool_runs import claim_of, tool_run_auditor

COVERED = (Verdict.VERIFIED, Verdict.DERIVED)
FLAGGED = (Verdict.CONTRADICTED, Verdict.UNSUPPORTED, Verdict.MISATTRIBUTED)


# -- one table, three forms: small negatives written in parentheses ('(598)', '(23)') ---------------------

OTHER_INCOME = [["", "2019", "2018"],
                ["Interest income", "2,515", "1,310"],
                ["Interest expense", "(5,940)", "(598)"],
                ["Allowance for expected credit losses", "(135)", "(23)"]]


def _markdown(caption: str, rows: list[list[str]]) -> str:
    lines = [caption, "", "| " + " | ".join(rows[0]) + " |", "|" + "---|" * len(rows[0])]
    return "\n".join(lines + ["| " + " | ".join(r) + " |" for r in rows[1:]]) + "\n"


def _page(caption: str, rows: list[list[str]]) -> str:
    width = max(len(r[0]) for r in rows) + 3
    lines = [caption, ""] + [r[0].ljust(width) + "   ".join(c.rjust(9) for c in r[1:]) for r in rows]
    return "\n".join(line.rstrip() for line in lines) + "\n"


FORMS = {
    "json": lambda caption, rows: json.dumps({"caption": caption, "table": rows}),
    "markdown": _markdown,
    "pdf": _page,
}


@tool
def get_table(form: str, table: str) -> str:
    """One table of the annual report, in the form asked for ('json', 'markdown' or 'pdf')."""
    caption, rows = TABLES[table]
    return FORMS[form](caption, rows)


TABLES: dict[str, tuple[str, list[list[str]]]] = {
    "other income": ("Other income (expense) (in thousands)", OTHER_INCOME),
}


@pytest.fixture
def audit(tmp_path: Path):
    run = tool_run_auditor(tmp_path, [get_table], "Answer the analyst's questions on the annual report.")

    def verdict(form: str, table: str, sentence: str, figure: str) -> Any:
        record = claim_of(run([("get_table", {"form": form, "table": table})], sentence), figure)
        return record

    return verdict


@pytest.mark.parametrize("form", sorted(FORMS))
def test_a_small_negative_in_parentheses_is_a_cell_figure(audit, form: str) -> None:
    # '(598)' alone in a cell is the negative an accountant writes, not a list's enumerator '(1)'
    record = audit(form, "other income", "Interest expense was -$598 thousand in 2018.", "-$598 thousand")
    assert record.verdict is Verdict.VERIFIED, record.notes
    record = audit(form, "other income",
                   "The change in the allowance for expected credit losses from 2018 to 2019 was -$112 thousand.",
                   "-$112 thousand")
    assert record.verdict is Verdict.DERIVED and "(-135)" in (record.formula or ""), record.notes
    record = audit(form, "other income", "The average interest expense for 2018 and 2019 was -$3,269 thousand.",
                   "-$3,269 thousand")
    assert record.verdict is Verdict.DERIVED, record.notes


@pytest.mark.parametrize("form", sorted(FORMS))
def test_a_small_negative_of_another_period_or_value_is_flagged(audit, form: str) -> None:
    for sentence, figure in [("Interest expense was -$598 thousand in 2019.", "-$598 thousand"),  # other period
                             ("Interest expense was -$589 thousand in 2018.", "-$589 thousand"),  # invented
                             ("Interest income was -$598 thousand in 2018.", "-$598 thousand"),  # other row
                             ("The change in the allowance for expected credit losses from 2018 to 2019 was "
                              "-$121 thousand.", "-$121 thousand")]:
        record = audit(form, "other income", sentence, figure)
        assert record.verdict in FLAGGED, (sentence, record.verdict, record.notes)
