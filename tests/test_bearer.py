"""Whom a rule read from text is for: the bearer, the bearer's unit, the models of the unit, or the unit a
CHARACTER leads. A bearer's invulnerable save goes to its model alone, which becomes a group of its own."""

from pathlib import Path

import pytest

from mathhammer_exact.catalogue.abilities import feel_no_pain, invulnerable, scope
from mathhammer_exact.catalogue.build import add_checkout
from mathhammer_exact.catalogue.convert import to_datasheet
from mathhammer_exact.catalogue.roster import read_roster
from mathhammer_exact.data.datasheet import TargetUnit
from mathhammer_exact.decide.unit_attack import unit_attack
from mathhammer_exact.units import by_name


@pytest.mark.parametrize(("text", "whom"), [
    ("The bearer has a 4+ invulnerable save.", "model"),
    ("This model has a 4+ invulnerable save.", "model"),
    ("Models in the bearer's unit have a 5+ invulnerable save.", "unit"),
    ("Models in the bearer’s unit have a 5+ invulnerable save.", "unit"),  # a typographic apostrophe
    ("Models in this unit have a 5+ invulnerable save.", "unit"),
    ("Shots at this unit are hard. It has a 5+ invulnerable save.", "unit"),  # no subject named: the unit
    ("While this model is leading a unit, models in that unit have a 4+ invulnerable save.", "leading"),
])
def test_the_subject_of_the_sentence_decides(text, whom):
    assert scope(text, text.index("+") - 1) == whom
    assert invulnerable("Some ability", text)["scope"] == whom


def test_a_save_whose_sentence_goes_on_with_each_time_holds_always():
    # 'The bearer has a 4+ invulnerable save and each time an attack is allocated ...': the condition is the second
    # clause's, not the save's (a Wraithknight's scattershield waited for --with)
    text = ("The bearer has a 4+ invulnerable save and each time an attack is allocated to the bearer, subtract 1 from "
            "the Damage characteristic of that attack.")
    found = invulnerable("Scattershield", text)
    assert found is not None and (found["value"], found["conditional"], found["scope"]) == (4, False, "model")


def test_feel_no_pain_readings_say_whom_too():
    assert feel_no_pain("Kit", "", "The bearer has the Feel No Pain 5+ ability.")["scope"] == "model"
    assert feel_no_pain("Kit", "", "Models in the bearer's unit have the Feel No Pain 6+ ability.")["scope"] == "unit"


def test_an_army_list_bearer_is_a_group_of_its_own():
    unit = to_datasheet(read_roster(Path("tests/fixtures/bearer.ros")).units[0])
    # four Quarrymen, one of them carrying the shield crest; the foreman's field kit is for the whole unit
    groups = [(m.name, m.count, m.profile.invulnerable, m.profile.feel_no_pain) for m in unit.models]
    assert groups == [("Quarryman #2", 3, None, 6), ("Quarryman #1", 1, 4, 6), ("Quarry Foreman", 1, None, 6)]
    crest = "invulnerable save 4+ (the bearer: Quarryman #1) inferred from the text of 'Shield crest'"
    assert crest in unit.defences_for() and crest in unit.models[1].defences  # the bearer's kind's
    assert crest not in unit.models[0].defences
    # the foreman's ward is for the unit it leads: not in the profile (the text reader applies such a reading when
    # the model leads the unit of the question: tests/test_ability_text.py), and no note says otherwise
    assert not any("Foreman's ward" in note for note in (*unit.notes, *unit.defences_for()))
    # its text is read as the crest's bearer's save, which the profile holds: not named 'not applied' as well (as a
    # trial found a Theyn's weavefield crest: "the bearer's alone", though his save was applied)
    attacked = unit_attack("Incursor Squad", TargetUnit(unit.as_target(), unit.name, unit))
    assert not any("Shield crest" in line and "note" not in line for line in attacked.situation)


def test_a_datasheet_bearer_keeps_its_save(tmp_path, monkeypatch):
    monkeypatch.setenv("MATHHAMMER_DATA", str(tmp_path))
    add_checkout(Path("tests/fixtures/bsdata-wargear"))
    sheet = by_name.datasheet("Quarry Squad")
    saves = {m.name: m.profile.invulnerable for m in sheet.models}
    assert saves == {"Quarryman": None, "Quarry Foreman": None, "Quarryman w/ Heavy Weapon": None,
                     "Quarryman w/ Sling": None, "Quarryman w/ Pick": None, "Quarryman w/ Blast Charge": 5}
    target = sheet.as_target(5)
    assert all(p.invulnerable is None for p, _ in target.groups)
