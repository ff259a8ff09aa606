"""How a catalogue unit's composition is read: its sizes, its default models and wargear, the most of each
kind. The fixture (tests/fixtures/bsdata-composition) is invented in the BSData schema; every expected value
is read off its XML by hand, as the comments say."""

from collections import Counter

import attrs
import pytest
from click.testing import CliRunner

from mathhammer_exact.catalogue.build import add_checkout
from mathhammer_exact.cli import cli
from mathhammer_exact.decide.unit_attack import volley
from mathhammer_exact.errors import MathhammerError
from mathhammer_exact.units import by_name

CHECKOUT = "tests/fixtures/bsdata-composition"


@pytest.fixture
def sheet(tmp_path, monkeypatch):
    monkeypatch.setenv("MATHHAMMER_DATA", str(tmp_path))
    add_checkout(__import__("pathlib").Path(CHECKOUT))
    return by_name.datasheet


def kinds(unit, loadout=(), size=None):
    return {name: n for name, n in Counter(m.name for m, _ in unit.equip(list(loadout), size)).items()}


def test_a_leader_beside_a_group_of_nine_is_a_unit_of_ten(sheet):
    # Hewer Band: the Hewer Boss (min 1, max 1) beside the group 'Hewers' (min 9, max 9): always 10 models,
    # and the group's default kind (Hewer) fills it, not a special-weapon kind with no most of its own
    band = sheet("Hewer Band")
    assert band.allowed_sizes() == (10,)
    assert kinds(band) == {"Hewer": 9, "Hewer Boss": 1}
    with pytest.raises(MathhammerError, match="comes in units of 10 models, not 9"):
        band.counts(9)


def test_a_most_per_unit_on_a_kind_of_model(sheet):
    # each special kind: max 1 with the unit's scope (scope="u-band"); the special group: max 2
    band = sheet("Hewer Band")
    assert kinds(band, ["blast drill", "rock cannon"]) == {"Hewer": 7, "Hewer Boss": 1, "Hewer w/ Blast Drill": 1,
                                                          "Hewer w/ Rock Cannon": 1}
    with pytest.raises(MathhammerError, match=r"at most 1 model .*\(Hewer w/ Blast Drill: at most 1; asked"):
        band.equip(["2 blast drill"])  # the full group 'Hewers' is no bound: a Hewer makes way, 9 stay 9
    with pytest.raises(MathhammerError, match=r"\(Hewer w/ Special Weapon: at most 2; Hewer w/ Blast Drill: at most 1"):
        band.equip(["blast drill", "rock cannon", "blast drill"])  # both bounds are met


def test_an_error_a_group_of_kinds_raises_limits_them(tmp_path, monkeypatch):
    # a trial found Plague Marines of 5 fielding two special-weapon kinds, where their group 'Special weapons'
    # (max 2) raises 'Max 1 {this} per 5 models' below 10 models: here 'Hewer w/ Special Weapon' (max 2) raises
    # it below 11 models (a Hewer Band is always 10) when it holds more than 1, so 1 of them at most
    error = ('<modifiers><modifier type="add" value="Max 1 {this} per 5 models" field="error"><conditionGroups>'
             '<conditionGroup type="and"><conditions>'
             '<condition type="lessThan" value="11" field="selections" scope="u-band" childId="model" shared="true" '
             'includeChildSelections="true"/>'
             '<condition type="greaterThan" value="1" field="selections" scope="u-band" childId="g-special" '
             'shared="true" includeChildSelections="true"/>'
             '</conditions></conditionGroup></conditionGroups></modifier></modifiers>')
    anchor = '<constraint type="max" value="2" field="selections" scope="parent" shared="true" id="c-32"/>\n' \
             '              </constraints>'
    folder = tmp_path / "checkout"
    __import__("shutil").copytree(CHECKOUT, folder)
    path = next(folder.glob("*.cat"))
    text = path.read_text(encoding="utf-8")
    assert anchor in text
    path.write_text(text.replace(anchor, anchor + error, 1), encoding="utf-8")
    monkeypatch.setenv("MATHHAMMER_DATA", str(tmp_path / "data"))
    add_checkout(folder)
    band = by_name.datasheet("Hewer Band")
    assert kinds(band, ["blast drill"]) == {"Hewer": 8, "Hewer Boss": 1, "Hewer w/ Blast Drill": 1}
    with pytest.raises(MathhammerError, match=r"\(Hewer w/ Special Weapon: at most 1; .*together they pass that limit"):
        band.equip(["blast drill", "rock cannon"])


def test_a_kinds_most_raised_inside_one_unit_composition(tmp_path, monkeypatch):
    # a trial found Cadian Shock Troops of 20 refused a second plasma gun: each special kind has max 1, raised by 1
    # where it is inside the bundle '2 Shock Trooper Sergeants and 18 Shock Troopers' (instanceOf an ancestor). Here
    # both bundles' Levy w/ Blast Drill get max 1 and that modifier naming the large bundle: 2 at 10, 1 at 5
    raised = ('<modifiers><modifier type="increment" value="1" field="{}"><conditions><condition type="instanceOf" '
              'value="1" field="selections" scope="ancestor" childId="b-large" shared="true" '
              'includeChildSelections="true"/></conditions></modifier></modifiers>')
    folder = tmp_path / "checkout"
    __import__("shutil").copytree(CHECKOUT, folder)
    path = next(folder.glob("*.cat"))
    text = path.read_text(encoding="utf-8")
    for ident, most in (("c-86", "2"), ("c-67", "1")):
        constraint = f'<constraint type="max" value="{most}" field="selections" scope="parent" shared="true" ' \
                     f'id="{ident}"/>\n                      </constraints>'
        assert constraint in text
        text = text.replace(constraint, constraint.replace(f'value="{most}"', 'value="1"') + raised.format(ident))
    path.write_text(text, encoding="utf-8")
    monkeypatch.setenv("MATHHAMMER_DATA", str(tmp_path / "data"))
    add_checkout(folder)
    levy = by_name.datasheet("Levy Mob")
    assert kinds(levy, ["2 blast drill"], 10) == {"Levy Chief": 2, "Levy": 6, "Levy w/ Blast Drill": 2}
    with pytest.raises(MathhammerError, match="Levy w/ Blast Drill: at most 1"):
        levy.equip(["2 blast drill"], 5)


def test_a_unit_composition_of_bundles_limits_bundles_not_models(sheet):
    # Levy Mob: the group 'Unit Composition' (max 1) holds bundles; its default '1 Levy Chief and 4 Levies'
    # has a group '4 Levies' (min 4, max 4) of Levy (min 3) and Levy w/ Blast Drill (max 1)
    levy = sheet("Levy Mob")
    assert levy.counts() == {"Levy Chief": 1, "Levy": 4, "Levy w/ Blast Drill": 0}
    assert [limit.what for limit in levy.limits] == ["4 Levies"]
    assert kinds(levy, ["blast drill"]) == {"Levy": 3, "Levy Chief": 1, "Levy w/ Blast Drill": 1}


def test_each_unit_composition_is_a_size_of_the_unit(sheet):
    # Levy Mob's other bundle, '2 Levy Chiefs and 8 Levies': Levy Chief (min 2, max 2) beside the group
    # '8 Levies' (min 8, max 8) of Levy (min 7, max 8) and Levy w/ Blast Drill (max 2): a unit of 10
    levy = sheet("Levy Mob")
    assert levy.allowed_sizes() == (5, 10)
    assert kinds(levy, size=10) == {"Levy Chief": 2, "Levy": 8}
    assert kinds(levy, ["blast drill"], 10) == {"Levy Chief": 2, "Levy": 7, "Levy w/ Blast Drill": 1}
    assert sum(n for _, n in levy.as_target(10).groups) == 10
    with pytest.raises(MathhammerError, match=r"at most 1 model of a unit of 5 can take 'blast drill'"):
        levy.equip(["2 blast drill"], 5)  # the small bundle's drill: max 1
    assert not any("not read" in note for note in levy.notes)


def test_a_kind_in_place_of_another_adds_no_model(sheet):
    # Quarry Crew: Crew Chief (1), Crewman (3, max 3) and Crewman w/ Two Drills (max 1), whose selection
    # lowers the Crewmen's most by 1 (a decrement repeat): 4 models, never 5
    assert sheet("Quarry Crew").allowed_sizes() == (4,)


def test_wargear_taken_twice(sheet):
    # Forge Suits: 2 Forge Suits; each has 'Fusion lance' (min 2) in a group with no least, and 'Weapons'
    # (min 2, max 2; no default, so its first choice, Slag cannon, twice, and a note says so)
    suits = sheet("Forge Suits")
    assert Counter(suits.models[0].equipment) == {"fusion lance": 2, "slag cannon": 2, "forge fists": 1}
    assert {w.name: n for w, n, _ in volley(suits).weapons} == {"Slag cannon": 4, "Fusion lance": 4}
    assert any("'Weapons': the catalogue names no default choice; read as Slag cannon (also offered: Ember gun)" in n
               for n in suits.notes_for())  # the note of the kind Forge Suit, in the unit
    # a model swaps one of its two slag cannons for an ember gun: 3 slag cannons and 1 ember gun fire
    fired = {w.name: n for w, n, _ in volley(suits, ["ember gun"]).weapons}
    assert fired == {"Ember gun": 1, "Slag cannon": 3, "Fusion lance": 4}


def test_a_loadout_names_the_melee_weapon_a_model_fights_with(sheet):
    # Hewer Lord carries a great maul and a chain glaive (each min 1): he fights with one; the loadout names it
    lord = sheet("Hewer Lord")
    assert [(w.name, n) for w, n, _ in volley(lord, melee=True).weapons] == [("Great maul", 1)]
    assert volley(lord, melee=True).chosen == (
        "Hewer Lord fights with its Great maul (it also carries Chain glaive: name one in --loadout to fight with it)",)
    named = volley(lord, ["chain glaive"], melee=True)
    assert [(w.name, n) for w, n, _ in named.weapons] == [("Chain glaive", 1)] and named.chosen == ()
    with pytest.raises(MathhammerError, match="at most 1 model of a unit of 1 can take 'chain glaive'"):
        lord.equip(["chain glaive", "chain glaive"])


def test_wargear_that_adds_to_its_bearers_wounds(sheet):
    # Slab Wardens: the plain kind W2; the Shield kind's profile W2 with 'Slab Shield' (add 1 to the bearer's
    # Wounds): 2 + 1 = 3; the Banner kind's profile already W3 = 2 + 1 with the same shield (as some catalogues
    # write it): taken as counted, not added again. Both are said in notes of its defences: where the unit is the
    # target, not where it attacks.
    wardens = sheet("Slab Wardens")
    assert {m.name: m.profile.wounds for m in wardens.models} == {
        "Slab Warden": 2, "Slab Warden w/ Shield": 3, "Slab Warden w/ Banner and Shield": 3}
    assert wardens.notes == wardens.defence_notes == ()
    assert {m.name: m.defences for m in wardens.models} == {
        "Slab Warden": (),
        "Slab Warden w/ Shield": ("Wounds 3 for Slab Warden w/ Shield: its profile's 2 and 1 from 'Slab Shield'",),
        "Slab Warden w/ Banner and Shield": ("'Slab Shield' taken as counted in the Wounds of Slab Warden w/ Banner "
                                             "and Shield (W3, the unit's other models W2)",)}
    # said of the kinds in the unit only: the default unit (3 plain Slab Wardens) carries no shield
    assert wardens.defences_for() == ()
    one_shield = tuple(attrs.evolve(m, count=int(m.name == "Slab Warden w/ Shield")) for m in wardens.models)
    shielded = attrs.evolve(wardens, models=one_shield, sizes=(1,))
    assert shielded.defences_for() == wardens.models[1].defences
    runner = CliRunner()
    assert "Slab Shield" not in runner.invoke(cli, ["unit", "Slab Wardens", "-t", "MEQ"]).output
    assert "Slab Shield" not in runner.invoke(cli, ["unit", "Slab Wardens", "-t", "Slab Wardens"]).output
    assert "Note: Wounds 3 for Slab Warden w/ Shield: its profile's 2 and 1 from 'Slab Shield'" in runner.invoke(
        cli, ["show", "Slab Wardens"]).output.splitlines()
