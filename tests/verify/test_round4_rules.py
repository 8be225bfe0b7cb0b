"""Round-4 verifier rules against prose passages: chance sums and differences are not derivations, a
spelled range end matches its digits, action verbs name subjects, a claimed temperature finds its figure
in a sentence about temperature; each with the fabricated counterpart that must still be caught."""

from __future__ import annotations

import pytest

from pytest_auditfence.claims.extract import find_references
from pytest_auditfence.claims.quantities import parse_quantities
from pytest_auditfence.fence import Fence
from pytest_auditfence.models import ClaimRecord, Verdict
from pytest_auditfence.verify import SourceIndex, verify_claim

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


_TAIL = (" The rest of the passage is about other matters: serving suggestions, side dishes, storing the leftovers"
         " in the refrigerator and reheating them gently the next day.")
CITED = {
    "tools/a.txt": "passage 1: Preheat grill to medium (or bake in oven at 375°). Place one chicken breast on foil.",
    "tools/b.txt": "passage 2: Preheat oven to 375°F. Place 1 chicken breast in the center of each sheet of foil.",
    "tools/c.txt": "passage 3: Fold the sides of the foil together over the chicken breast, crimping the edges.",
    "tools/d.txt": "passage 4: Bake the meatloaf at 350 degrees for 1 hour, until the centre is cooked through.",
    "tools/e.txt": "passage 5: An oven at 350°F (175°C) cooks a meatloaf in about an hour, depending on its size.",
}
CITED = {path: text + _TAIL for path, text in CITED.items()}


class _CitingUnit:
    """Like the prose unit, with the claim's '(passage N)' citations read, as the extractor reads them."""

    def __init__(self, unit):
        self.unit = unit

    def check(self, sentence: str) -> ClaimRecord:
        fence = Fence(self.unit.root, self.unit.sources, sentence, name="unit")
        claim = ClaimRecord(id="c001", claim=sentence, start=0, end=len(sentence),
                            quantities=parse_quantities(sentence), references=find_references(sentence))
        assert claim.references, sentence
        return verify_claim(claim, fence, SourceIndex.build(self.unit.root, self.unit.sources))


@pytest.fixture
def cited_unit(prose_unit):
    return _CitingUnit(prose_unit(CITED))


def test_a_cited_source_that_leaves_the_unit_implicit_is_not_misattributed(cited_unit):
    # passage 1 writes '375°' and passage 2 '375°F': the claim citing passage 1 holds
    assert cited_unit.check("Preheat the oven to 375°F (passage 1).").verdict is Verdict.VERIFIED
    assert cited_unit.check("Preheat the oven to 375°F (passage 3).").verdict is Verdict.MISATTRIBUTED


def test_a_restated_conversion_over_the_cited_source_is_derived_there(cited_unit):
    # '175°C' stands verbatim only in passage 5; passage 4 has the 350 degrees it converts
    result = cited_unit.check("Bake the meatloaf for 1 hour at 350°F (175°C) (passage 4).")
    assert result.verdict is Verdict.DERIVED, result.notes
    assert all(e.file == "tools/d.txt" for e in result.evidence)
    assert cited_unit.check("Bake the meatloaf for 1 hour at 350°F (175°C) (passage 3).").verdict is Verdict.MISATTRIBUTED


FORMS = {
    "tools/f1.txt": (
        "passage 1: Claim the simplified home office deduction on Form 8829 or on Schedule C, where the "
        "deduction goes on line 30. Self-employed people also file the 1040 form with the schedule attached, "
        "and keep the records for 3 years after the return is filed with the tax authority."
    ),
}


def test_a_numbered_form_or_line_no_source_names_is_unsupported(prose_unit):
    unit = prose_unit(FORMS)
    assert unit.check("Enter the deduction on line 30 of Schedule C and keep records for 3 years.").verdict \
        is Verdict.VERIFIED
    assert unit.check("File Form 1040 and keep the records for 3 years.").verdict is Verdict.VERIFIED  # '1040 form'
    for sentence, name in (("Enter the deduction on Line 29 of Schedule C and keep records for 3 years.", "Line 29"),
                           ("File Form 4506 and keep the records for 3 years.", "Form 4506")):
        result = unit.check(sentence)
        assert result.verdict in (Verdict.UNSUPPORTED, Verdict.CONTRADICTED)
        assert any(f"{name!r} is named by no source" in note for note in result.notes)


RATIOS = {
    "tools/r1.txt": (
        "passage 1: Gross profit is sales minus the cost of sales. For example, with sales of $400 and a cost of "
        "goods sold of $300, the gross profit is $100 and the gross margin is 0.25 of sales, a figure analysts "
        "compare between companies of the same industry over several years."
    ),
}


def test_a_small_figure_shown_to_two_decimals_is_checked(prose_unit):
    unit = prose_unit(RATIOS)
    assert unit.check("The gross margin is 0.25 of sales.").verdict is Verdict.VERIFIED
    result = unit.check("The gross margin is 0.75 of sales.")
    assert result.verdict in (Verdict.UNSUPPORTED, Verdict.CONTRADICTED), result.notes
    # one decimal or a whole number stays too common to prove anything
    assert unit.check("The gross margin is 0.7 of sales.").verdict is Verdict.UNVERIFIABLE


BEEF = {
    "tools/b1.txt": (
        "passage 1: Insert a meat thermometer and place it in the oven until the beef registers 120 degrees F. "
        "Beef will probably cook in 20 to 25 minutes depending on its temperature before it goes in the oven, "
        "and it should rest on a board under foil before it is sliced against the grain."
    ),
}


def test_the_same_range_is_found_whatever_words_stand_around_it(prose_unit):
    unit = prose_unit(BEEF)
    assert unit.check("Roast the tenderloin for 20 to 25 minutes.").verdict is Verdict.VERIFIED
    # one end alone is no range, and a different partner is a different range
    assert unit.check("Roast the tenderloin for 25 minutes.").verdict is not Verdict.VERIFIED
    assert unit.check("Roast the tenderloin for 15 to 25 minutes.").verdict is not Verdict.VERIFIED
