"""Units are dimensions: a source figure backs a claim only in the claim's own dimension (power is no energy,
a price per kWh is no amount), SI prefixes restate one figure, and a figure with a unit is always checked."""

from __future__ import annotations


import pytest

from pytest_auditfence.models import Verdict

STORAGE = (
    "arguments:\n  query: US storage 2024\nnode: research\noutput: In 2024 US storage additions reached 10.3 GW,"
    " led by Texas and California, and battery pack prices fell to $139 per kWh on average.\ntool: web_search\n"
)


@pytest.fixture
def verdict_of(tool_results_verdict):
    return tool_results_verdict({"tools/research/r1.web_search.1.txt": (STORAGE, "research", "web_search")})


@pytest.mark.parametrize(
    "sentence",
    [
        "US storage additions reached 10.3 GW in 2024.",
        "US storage additions reached 10,300 MW in 2024.",  # the same figure in another prefix
        "Battery pack prices fell to $139/kWh.",
    ],
)
def test_a_figure_in_its_own_dimension_is_verified(verdict_of, sentence):
    assert verdict_of(sentence).verdict is Verdict.VERIFIED


@pytest.mark.parametrize(
    "sentence",
    [
        "Sodium-ion packs were $10 per kWh cheaper.",  # verified by '10.3 GW' before issue 10
        "US storage additions reached 10.3 GWh in 2024.",  # energy, not power
        "Battery pack prices fell to $139 per tonne.",  # another denominator
    ],
)
def test_a_figure_of_another_dimension_is_no_evidence(verdict_of, sentence):
    record = verdict_of(sentence)
    assert record.verdict not in (Verdict.VERIFIED, Verdict.DERIVED), record.notes


def test_an_invented_small_figure_with_a_unit_is_checked_not_unverifiable(verdict_of):
    # '4.6' alone is a weak atom; '4.6 GW' is a measured amount that no source states
    record = verdict_of("Texas added 4.6 GW of storage.")
    assert record.verdict in (Verdict.UNSUPPORTED, Verdict.CONTRADICTED), record.notes
