"""How catalogue entries become a unit's models, wargear, Leader lists and notes: hidden wargear a modifier
shows, a group's default wargear that is no weapon, Leader lists written as '- X' lines, wargear named as
players type it, models all equipped alike, and notes only for what the unit of the question has. The
fixture (tests/fixtures/bsdata-units) is invented in the BSData schema; every expected value is read off its
XML by hand, as the comments say."""

from fractions import Fraction

import pytest

from mathhammer_exact import Target
from mathhammer_exact.catalogue.abilities import leader_units
from mathhammer_exact.decide.unit_attack import unit_attack, volley
from mathhammer_exact.errors import MathhammerError
from mathhammer_exact.units import by_name

HORDE = Target.parse("T4 Sv3+ W1 x40")  #: one wound a model: no damage is lost to overkill


@pytest.fixture(autouse=True)
def indexed(indexed_checkout):
    indexed_checkout("bsdata-units")


def test_hidden_wargear_shown_by_a_modifier_is_carried():
    # the Forge Master's Melt gun is hidden, shown by an unconditional modifier; his Forge fist is hidden, shown
    # where the unit has no Forge hammer (0 by default) and has a Forge fist (the Forge Guard's default): both his.
    # His Arc gun is shown only where the unit has an Arc gun: none by default, so it is no choice of his.
    guard = by_name.datasheet("Forge Guard")
    master = next(m for m in guard.models if m.name == "Forge Master")
    assert master.equipment == ("slag launcher", "melt gun", "forge fist", "ward crest")
    assert [(o.replaces, o.choices) for o in guard.options if o.model == "Forge Master"] == \
        [(("forge fist",), ("forge hammer",)), (("ward crest",), ("jump crest",))]  # 'Crest': one or the other
    # the smallest unit: the Forge Master and 2 Forge Guard (the group '2-4 Forge Guard'), each with both guns
    assert {w.name: n for w, n, _ in volley(guard).weapons} == {"Slag launcher": 3, "Melt gun": 3}
    assert {w.name: n for w, n, _ in volley(guard, melee=True).weapons} == {"Forge fist": 3}


def test_the_unit_shoots_and_fights_with_its_sergeants_weapons():
    # Melt gun: hits on 3+ (2/3), S9 wounds T4 on 2+ (5/6), AP-4 leaves Sv3+ no save: 5/9 a shot, 3 shots;
    # Slag launcher: 2/3 to hit, S3 v T4 on 5+ (1/3), Sv3+ fails on 1-2 (1/3): 2/27 a shot, 3 shots
    shooting = unit_attack("Forge Guard", HORDE, exact=True)
    assert shooting.result.damage.mean == 3 * Fraction(5, 9) + 3 * Fraction(2, 27) == Fraction(17, 9)
    # Forge fist, A2 each: 2/3 to hit, S8 v T4 on 2+ (5/6), AP-2 leaves a 5+ save (fails 2/3): 10/27, 6 attacks
    fighting = unit_attack("Forge Guard", HORDE, melee=True, exact=True)
    assert fighting.result.damage.mean == 6 * Fraction(10, 27) == Fraction(20, 9)


def test_a_default_crest_gives_its_unit_its_invulnerable_save():
    # 'Crest' (min 1, default the Ward crest: 'models in the bearer's unit have a 5+ invulnerable save')
    target = by_name.target_unit("Forge Guard")
    assert {profile.invulnerable for profile, _ in target.target.groups} == {5}
    worn = by_name.target_unit("Forge Guard", loadout=["ward crest"])  # named: carried, so accepted
    assert worn.target == target.target
    assert any("target wargear (Forge Guard): ward crest" in note for note in worn.notes)


def test_leader_lists_in_every_form_the_data_writes():
    # '- X' lines, a blank line between them, an aside in brackets, and the note after the list not read
    assert by_name.datasheet("Forge Lord").leader_of == ("Forge Guard", "Iron Warriors")
    assert leader_units("This model can be attached to the following units:\n- **^^Breacher Team^^**\n"
                        "- **^^Strike Team^^**") == ["Breacher Team", "Strike Team"]
    assert leader_units("This model can be attached to the following units:\n■ Boyz\n■ Nobz\n\nYou can attach this "
                        "model to one of the above units even if...") == ["Boyz", "Nobz"]
    assert leader_units("This model can be attached to the following units: ^^**Einhyr Hearthguard, Hearthkyn "
                        "Warriors**^^") == ["Einhyr Hearthguard", "Hearthkyn Warriors"]
    assert leader_units("Leader: while a Bodyguard unit contains a Leader, ...") == []


def test_wargear_named_plural_or_singular_all_models_alike():
    # Iron Warriors: 5-10 Iron Warriors, each a Flail gun or a Reaper gun, and an error where the unit has one of
    # each ('All models must be equipped identically'): without a number, every model takes the Reaper gun
    warriors = by_name.datasheet("Iron Warriors")
    assert warriors.alike == (("flail gun", "reaper gun"),)
    report = unit_attack("Iron Warriors", HORDE, loadout=["reaper guns"], exact=True)
    assert [(f.weapon.name, f.models) for f in report.firings] == [("Reaper gun", 5)]
    # A2 each, hits on 4+ (1/2), S4 v T4 on 4+ (1/2), AP-1 leaves a 4+ save (fails 1/2): 1/8 an attack, 10 attacks
    assert report.result.damage.mean == 10 * Fraction(1, 8) == Fraction(5, 4)
    assert "--loadout 'reaper guns': 'reaper guns' read as 'reaper gun'" in report.situation
    assert "--loadout 'reaper guns': reaper gun for 5 models, every model that can take it (the datasheet's models " \
           "are equipped alike)" in report.situation
    with pytest.raises(MathhammerError, match=r"every model carries the same one of flail gun, reaper gun .*this "
                                              "loadout has flail gun and reaper gun"):
        warriors.equip(["3 reaper guns"])


def test_without_a_number_one_model_takes_a_choice_and_the_header_says_so():
    # Iron Rabble: the same models without the error: a choice without a number is one model's, and the
    # header says how many could take it; a number gives it to that many
    rabble = by_name.datasheet("Iron Rabble")
    assert [(f.weapon.name, f.models) for f in unit_attack("Iron Rabble", HORDE, loadout=["reaper gun"]).firings] == \
        [("Reaper gun", 1), ("Flail gun", 4)]
    assert rabble.loadout_lines(["reaper gun"]) == (
        "--loadout 'reaper gun': reaper gun for 1 model (no number given; 1 to 5 can take it: write e.g. "
        "'5 reaper gun')",)
    assert sum(gear == ["reaper gun"] for _, gear in rabble.equip(["5 reaper guns"])) == 5
    with pytest.raises(MathhammerError, match=r"cannot take 'reaper cannon' \(options: reaper gun\)"):
        rabble.equip(["reaper cannon"])


def test_notes_say_only_what_the_answer_used():
    # Forge Lord: 'Weapons' defaults to 'Slag pistol and forge hammer'; the other bundle's groups name no
    # default, which matters only where that bundle is taken: no note of them, and no swap of their weapons
    lord = by_name.datasheet("Forge Lord")
    assert lord.notes_for() == ()
    assert [(o.replaces, o.choices) for o in lord.options] == \
        [(("slag pistol", "forge hammer"), ("pistol and melee weapon",))]
    # Forge Guard: the heavy weapon kind (none by default) names no default heavy weapon; said where it is in
    guard = by_name.datasheet("Forge Guard")
    guessed = "Forge Guard w/ heavy weapon: 'Heavy weapon': the catalogue names no default choice; read as Magma " \
              "cannon (also offered: Rock drill)"
    assert guessed not in guard.notes_for()
    assert guessed in guard.notes_for(["magma cannon"])
    assert f"note: {guessed}" in unit_attack("Forge Guard", HORDE, loadout=["magma cannon"]).situation
