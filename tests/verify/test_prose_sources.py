"""Verdicts against long prose sources (web passages as retrievers return them): subject proximity, units the
source leaves implicit, ranges, and the stricter evidence a contradiction needs."""

from __future__ import annotations

import pytest

from pytest_auditfence.models import Verdict

# each passage is one long line, as retrieved web text is
PASSAGES = {
    "tools/p1.txt": (
        "passage 1: Mix the flour, yeast and salt, then knead the dough until smooth and let the dough rest "
        "for 30 minutes in a warm place covered with a damp towel. Shape the loaves and slash the tops with a "
        "sharp knife. Preheat the oven to 350 degrees and bake the loaves for 45 minutes until golden brown. "
        "Egg donors must be between the ages of 21 and 32 and in good health. Broil 4-6 in. from the heat "
        "for a crisp crust on the rolls."
    ),
    "tools/p2.txt": (
        "passage 2: A well pump fills the pressure tank with water and compresses the air above it; when the "
        "pressure gets to around 50psi, a switch turns the pump off, and the tank holds about 10 gallons of "
        "usable water between cycles of the pump in a typical household installation. Preheat the grill to "
        "400°F before searing the steaks for the best crust on the outside."
    ),
}


@pytest.fixture
def unit(prose_unit):
    return prose_unit(PASSAGES)


def test_a_figure_next_to_its_subject_is_verified(unit):
    result = unit.check("Let the dough rest for 30 minutes.")
    assert result.verdict is Verdict.VERIFIED
    assert "rest for 30 minutes" in result.evidence[0].text


def test_a_figure_found_only_about_something_else_is_not_verified(unit):
    # '30 minutes' stands in the passage, but about the resting dough, not the baking
    result = unit.check("Bake the loaves for 30 minutes until golden brown.")
    assert result.verdict is Verdict.UNSUPPORTED
    assert any("away from its subject" in note for note in result.notes)


def test_the_unit_a_source_leaves_implicit_is_accepted_by_its_subject(unit):
    assert unit.check("Preheat the oven to 350°F.").verdict is Verdict.VERIFIED
    assert unit.check("Egg donors must be 21-32 years old.").verdict is Verdict.VERIFIED
    assert unit.check("Preheat the oven to 370°F.").verdict is not Verdict.VERIFIED


def test_a_degree_sign_backs_only_a_temperature(unit):
    # '350 degrees' is no length, however near the oven
    assert unit.check("Preheat the oven to 350 inches.").verdict is not Verdict.VERIFIED


def test_a_restated_conversion_of_an_implicit_unit_is_derived(unit):
    result = unit.check("Preheat the oven to 350°F (180°C).")
    assert result.verdict is Verdict.DERIVED
    assert "unit conversion" in (result.formula or "")


def test_small_range_ends_match_only_as_the_same_range(unit):
    assert unit.check("Broil the rolls 4-6 inches from the heat.").verdict is Verdict.VERIFIED
    assert unit.check("Broil the rolls 4-7 inches from the heat.").verdict is not Verdict.VERIFIED


def test_a_figure_present_in_the_sources_is_never_contradicted(unit):
    # '50psi' is no parsed quantity, but the figure stands in the source: not a contradiction
    result = unit.check("Once the pressure reaches around 50 psi, a switch turns off the pump.")
    assert result.verdict is not Verdict.CONTRADICTED


def test_a_different_value_next_to_the_same_subject_is_contradicted(unit):
    result = unit.check("Preheat the grill to 425°F before searing the steaks.")
    assert result.verdict is Verdict.CONTRADICTED
    assert "400°F" in result.evidence[0].text


def test_a_claim_without_subject_words_is_placed_by_value(unit):
    assert unit.check("Answer: 45 minutes.").verdict is Verdict.VERIFIED
