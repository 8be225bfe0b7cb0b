"""Round-4 verifier rules against prose passages: chance sums and differences are not derivations, a
spelled range end matches its digits, action verbs name subjects, a claimed temperature finds its figure
in a sentence about temperature; each with the fabricated counterpart that must still be caught."""

from __future__ import annotations

import pytest

from pytest_auditfence.claims.quantities import parse_quantities
from pytest_auditfence.models import Verdict

PASSAGES = {
    "tools/p1.txt": (
        "passage 1: Heat the oil in a large pan over medium heat. Add the sliced cabbage and cook, stirring "
        "occasionally, for 2 to 3 minutes, or until the cabbage is softened. Transfer the potatoes and pasta to "
        "the pan of cabbage along with half a cup of the pasta cooking water and stir in the butter and cheese."
    ),
    "tools/p2.txt": (
        "passage 2: Making lemongrass tea is as simple as steeping a few stalks of lemongrass in boiling water "
        "for five to 10 minutes. You can sweeten the tea with honey or sugar, which tempers the spicy flavour "
        "of the stalks and makes a pleasant drink for a cold afternoon at home with friends."
    ),
    "tools/p3.txt": (
        "passage 3: Tromso: Annual Weather Averages. July is the hottest month in Tromso with an average "
        "temperature of 12°C (54°F) and the coldest is January at -4°C (25°F) with the most daily sunshine hours "
        "in June, when the sun does not set at all and visitors walk the streets at midnight."
    ),
    "tools/p4.txt": (
        "passage 4: Leyland cypress trees are fast growers; in good soil they grow 3 to 5 feet per year once "
        "established, which makes them a popular choice for a privacy hedge between neighbouring gardens."
    ),
    "tools/p5.txt": (
        "passage 5: Segment results for the year. Hardware revenue: $1,036 million. Services revenue: "
        "$198 million. The board approved the dividend and the buyback programme at its December meeting."
    ),
}


@pytest.fixture
def unit(prose_unit):
    return prose_unit(PASSAGES)


def test_two_ends_of_one_range_do_not_add_up_to_a_new_figure(unit):
    # '2 to 3 minutes' is one span of time, not two steps of 2 and 3 minutes summing to 5
    result = unit.check("Cook the cabbage, stirring occasionally, for about 5 minutes.")
    assert result.verdict is not Verdict.DERIVED, result.notes
    assert result.verdict in (Verdict.UNSUPPORTED, Verdict.CONTRADICTED)


def test_a_claim_that_writes_its_sum_out_is_still_derived(unit):
    result = unit.check("Cook the cabbage for 2 minutes plus 3 minutes, a total of 5 minutes.")
    assert result.verdict is Verdict.DERIVED
    assert "2" in (result.formula or "") and "3" in (result.formula or "")


def test_a_specific_unannounced_sum_is_derived_and_a_wrong_one_is_not(unit):
    assert unit.check("Hardware and services revenue came to $1,234 million.").verdict is Verdict.DERIVED
    assert unit.check("Hardware and services revenue came to $1,243 million.").verdict is not Verdict.DERIVED


def test_a_spelled_range_end_matches_its_digits():
    [five, ten] = parse_quantities("steep for five to 10 minutes.", words=True)
    assert (five.kind, five.unit, ten.kind) == ("duration", "min", "duration")
    assert five.value * 2 == ten.value


def test_a_range_whose_source_spells_one_end_is_verified(unit):
    assert unit.check("Steep the lemongrass stalks in boiling water for 5-10 minutes.").verdict is Verdict.VERIFIED
    assert unit.check("Steep the lemongrass stalks in boiling water for 6-10 minutes.").verdict is not Verdict.VERIFIED


def test_grow_names_a_subject(unit):
    assert unit.check("Leyland cypress trees grow 3 to 5 feet per year.").verdict is Verdict.VERIFIED
    assert unit.check("Leyland cypress trees grow 3 to 8 feet per year.").verdict is not Verdict.VERIFIED


def test_a_claimed_temperature_finds_its_figure_in_a_sentence_about_temperature(unit):
    assert unit.check("Warmest month: July (12°C).").verdict is Verdict.VERIFIED
    assert unit.check("Warmest month: July (14°C).").verdict is not Verdict.VERIFIED
