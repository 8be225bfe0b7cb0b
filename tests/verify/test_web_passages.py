"""Verdicts against scraped web passages: units written loosely, subjects named by abbreviation or left to
the unit, inflected subject words, and derivations whose operands the rest of the claim names."""

from __future__ import annotations

import pytest

from pytest_auditfence.models import Verdict

# each passage is one long line, as retrieved web text is
PASSAGES = {
    "tools/p1.txt": (
        "passage 1:Monday:The Long Beach forecast for Apr 24 is 70 degrees and Sunny. There is 53 percentage "
        "chance of rain and 6 mph winds from the South. Tuesday:The Long Beach forecast for Apr 25 is 68 degrees "
        "and Sunny. There is 58 percentage chance of rain and 8 mph winds from the West."
    ),
    "tools/p2.txt": (
        "passage 2:Bangkok is located in ICT - Indochina Time zone and currently does not observe Daylight Saving "
        "Time. There is a 13:0 hours time difference between Chicago and Bangkok right now. When the pressure "
        "gets to around 50psi, a switch turns the pump off. Pork chops should be baked for 45 minutes, in a "
        "convection oven, at  a temperature of 325A°. Broil the fish 4 in. from the heat for a crisp skin."
    ),
    "tools/p3.txt": (
        "passage 3:Growth of seedlings is very fast. Growing to heights of 120 feet or more at maturity, most "
        "sequoia trees will grow at a rate of 3 to 5 feet per year. Egg Donors' Body Mass Index must be between "
        "18 and 29 because overweight donors' health may be affected. 3  Cook the roast for about 2 more hours "
        "usually 6 hours total. The average speed is 60 miles per hour (mph) for the trip. Smoking the "
        "brisket over oak takes 14 hours at a low heat."
    ),
}
# a research node's findings: short structured lines, one figure each
FINDINGS = "Findings for HALV (FY2024):\n- revenue: $1,234 million\n- net income: $151 million\n- employees: 4,850\n"


@pytest.fixture
def unit(prose_unit):
    return prose_unit(PASSAGES, others={"nodes/research.txt": (FINDINGS, "research", "node_output")})


def test_a_figure_in_degrees_is_about_temperature_without_the_word(unit):
    result = unit.check("Temperature: 68 °F")
    assert result.verdict is Verdict.VERIFIED
    assert "68 degrees" in result.evidence[0].text
    # a fabricated temperature is still flagged
    assert unit.check("Temperature: 75 °F").verdict in (Verdict.UNSUPPORTED, Verdict.CONTRADICTED)
    # the implied subject is temperature only: a degree figure does not back another subject
    assert unit.check("The humidity is 68 percent.").verdict is not Verdict.VERIFIED


def test_hours_and_minutes_of_a_duration(unit):
    assert unit.check("The time difference between Chicago and Bangkok is 13 hours.").verdict is Verdict.VERIFIED
    assert unit.check("The time difference between Chicago and Bangkok is 12 hours.").verdict is not Verdict.VERIFIED


def test_units_glued_or_written_out(unit):
    assert unit.check("Once the pressure reaches around 50 psi, a switch turns off the pump.").verdict is Verdict.VERIFIED
    assert unit.check("Once the pressure reaches around 60 psi, a switch turns off the pump.").verdict is not Verdict.VERIFIED
    assert unit.check("The average speed is 60 mph for the trip.").verdict is Verdict.VERIFIED
    assert unit.check("Broil the fish 4 inches from the heat.").verdict is Verdict.VERIFIED
    assert unit.check("Bake the pork chops in a convection oven at 325°F.").verdict is Verdict.VERIFIED


def test_an_inflected_subject_word_is_the_same_subject(unit):
    # 'Smoked' in the claim, 'Smoking' in the source sentence: the only word the two share
    assert unit.check("Smoked for 14 hours.").verdict is Verdict.VERIFIED
    assert unit.check("Smoked for 16 hours.").verdict is not Verdict.VERIFIED
    # the 14 hours stand about smoking, not about resting
    assert unit.check("Rested for 14 hours.").verdict is not Verdict.VERIFIED


def test_an_abbreviation_names_the_spelled_out_subject(unit):
    assert unit.check("BMI: 18-29").verdict is Verdict.VERIFIED
    assert unit.check("BMI: 18-35").verdict is not Verdict.VERIFIED


def test_a_small_number_whose_unit_follows_a_word_later(unit):
    # 'cook for about 2 more hours': the unit stands two words after the number
    assert unit.check("Cook the roast for 2 hours more.").verdict is Verdict.VERIFIED
    assert unit.check("Cook the roast for 4 hours more.").verdict is not Verdict.VERIFIED


def test_a_ratio_whose_operands_the_rest_of_the_claim_names_is_derived(unit):
    result = unit.check("Net margin was 12.2%, net income divided by revenue.")
    assert result.verdict is Verdict.DERIVED
    assert result.formula == "$151 million / $1,234 million × 100 = 12.2%"
    assert {e.node for e in result.evidence} == {"research"}
    # a fabricated margin is not derived from the same lines
    assert unit.check("Net margin was 14.5%, net income divided by revenue.").verdict is Verdict.UNSUPPORTED
