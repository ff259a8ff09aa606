"""Wargear choices a catalogue writes in less direct ways: a group of choices whose default is missing and whose
first choice is no weapon, a group of one choice among linked groups, a kind of model whose most follows the
unit's size, a kind of model known by a shield that has no profile, choices a group takes by default amounts, and
wargear in a bundle that gives its bearer Wounds and an invulnerable save. The fixture (tests/fixtures/bsdata-choices)
is invented in the BSData schema; every expected value is read off its XML by hand, as the comments say."""

import shutil
from fractions import Fraction
from pathlib import Path

import pytest

from mathhammer_exact import Target, Weapon, attack
from mathhammer_exact.catalogue import index
from mathhammer_exact.catalogue.build import add_checkout
from mathhammer_exact.data.datasheet import Datasheet, ModelEntry
from mathhammer_exact.decide.unit_attack import unit_attack
from mathhammer_exact.errors import MathhammerError
from mathhammer_exact.model import ModelProfile
from mathhammer_exact.units import by_name

HORDE = Target.parse("T4 Sv3+ W1 x40")  #: one wound a model, and every weapon here D1: no damage lost

# per attack against HORDE (hits on 3+: 2/3):
MAGMA = Fraction(2, 3) * Fraction(5, 6)  #: S10 v T4 wounds on 2+, AP-4 leaves Sv3+ no save: 5/9
MELT = Fraction(2, 3) * Fraction(5, 6)  #: S9 v T4 on 2+, AP-4: 5/9
DRILL = Fraction(2, 3) * Fraction(2, 3) * Fraction(2, 3)  #: S7 v T4 on 3+, AP-2 leaves a 5+ save (fails 2/3): 8/27
SLAG = Fraction(2, 3) * Fraction(1, 3) * Fraction(1, 3)  #: S3 v T4 on 5+, AP0 leaves Sv3+ (fails 1/3): 2/27


@pytest.fixture(autouse=True)
def indexed(indexed_checkout):
    indexed_checkout("bsdata-choices")


def test_a_group_whose_default_is_missing_gives_its_first_weapon_and_says_so():
    # Forge Commander: 'Support systems (1-2)' (min 1) names a default it does not hold; its first choice is a
    # Targeting array (no profile), then Magma cannon and Rock drill: the Magma cannon is taken, Rock drill offered
    commander = by_name.datasheet("Forge Commander")
    assert commander.models[0].equipment == ("magma cannon", "forge fist")
    assert [(o.replaces, o.choices) for o in commander.options] == [(("magma cannon",), ("rock drill",))]
    guessed = "Forge Commander: 'Support systems (1-2)': the catalogue names as its default choice an entry that is " \
              "none of these (id 'gone-1'); read as Magma cannon (also offered: Targeting array, Rock drill)"
    report = unit_attack("Forge Commander", HORDE, exact=True)
    assert f"note: {guessed}" in report.situation
    assert report.result.damage.mean == MAGMA == Fraction(5, 9)
    # Rock drill, A2: 2 x 8/27
    assert unit_attack("Forge Commander", HORDE, loadout=["rock drill"], exact=True).result.damage.mean == \
        2 * DRILL == Fraction(16, 27)


def test_choices_taken_by_default_amount_are_each_carried_and_each_may_be_swapped():
    # Forge Walker: 'Arms (2)' (2 of 2) names no default, but marks Magma cannon and Rock drill defaultAmount="1"
    # (each at most 2): one of each. 'Wargear' (1 of 1) holds Slag launcher (defaultAmount="1", least 1) and
    # Forge fist (least 1): both carried, neither offered as a swap.
    walker = by_name.datasheet("Forge Walker")
    assert walker.models[0].equipment == ("magma cannon", "rock drill", "slag launcher", "forge fist")
    assert [(o.replaces, o.choices) for o in walker.options] == [(("magma cannon",), ("rock drill",)),
                                                                 (("rock drill",), ("magma cannon",)),
                                                                 ((), ("melt gun",))]  # 'Hull mount' (0-1)
    assert not any("names no default" in note for note in walker.notes + walker.models[0].notes)
    report = unit_attack("Forge Walker", HORDE, exact=True)
    assert report.result.damage.mean == MAGMA + 2 * DRILL + SLAG == Fraction(11, 9)
    # a second rock drill in place of the magma cannon: 4 x 8/27 + 2/27
    two_drills = unit_attack("Forge Walker", HORDE, loadout=["rock drill"], exact=True)
    assert two_drills.result.damage.mean == 4 * DRILL + SLAG == Fraction(34, 27)
    # the one model takes both choices: the hull mount's Melt gun as well (5/9), and the second rock drill stays
    both = unit_attack("Forge Walker", HORDE, loadout=["rock drill", "melt gun"], exact=True)
    assert both.result.damage.mean == 4 * DRILL + SLAG + MELT == Fraction(49, 27)
    # numbered: the number counts the models that take it, and the header says how many the unit then carries
    assert walker.loadout_lines(["1 rock drill"]) == (
        "--loadout '1 rock drill': 2 x rock drill in the unit, 1 of them carried before (a number in --loadout counts "
        "the models that take a choice)",)
    assert walker.loadout_lines(["1 melt gun"]) == ()  # none carried before: 1 in all, as written
    # a model takes a piece of wargear once: no second swap to a rock drill
    with pytest.raises(MathhammerError, match="at most 1 model of a unit of 1 can take 'rock drill'"):
        walker.equip(["rock drill", "rock drill"])


def test_a_group_of_linked_groups_offers_every_weapon_in_them():
    # 'Forge Sister w/ special or heavy weapon' (0-1): 'Weapon' (min 1) links the groups 'Special weapons' (Melt gun)
    # and 'Heavy weapons' (Magma cannon, Rock drill), neither with a least or a default: the Melt gun by default
    sisters = by_name.datasheet("Forge Sisters")
    either = next(m for m in sisters.models if m.name == "Forge Sister w/ special or heavy weapon")
    assert either.equipment == ("melt gun",)
    assert [(o.replaces, o.choices) for o in sisters.options if o.model == either.name] == \
        [(("melt gun",), ("magma cannon", "rock drill"))]
    # 5 models: the Sister Superior, 3 Forge Sisters and the one with the magma cannon in place of a fourth
    report = unit_attack("Forge Sisters", HORDE, loadout=["magma cannon"], exact=True)
    assert sorted((f.weapon.name, f.models) for f in report.firings) == [("Magma cannon", 1), ("Slag launcher", 4)]
    assert report.result.damage.mean == 4 * SLAG + MAGMA == Fraction(23, 27)


def test_a_kinds_most_raised_by_the_units_size():
    # 'Forge Sister w/ heavy weapon': max 1, set to 2 where the unit has at least 10 models. The melt gun takes the
    # one 'special or heavy' model, so both rock drills need heavy-weapon models: 2 at 10 models, 1 at 5
    sisters = by_name.datasheet("Forge Sisters")
    assert sisters.sizes == (5, 10)
    report = unit_attack("Forge Sisters", HORDE, size=10, loadout=["melt gun", "2 rock drill"], exact=True)
    assert sorted((f.weapon.name, f.models) for f in report.firings) == \
        [("Melt gun", 1), ("Rock drill", 2), ("Slag launcher", 7)]  # the Superior and 6 of the 10 Forge Sisters
    assert report.result.damage.mean == 7 * SLAG + MELT + 2 * 2 * DRILL == Fraction(61, 27)
    with pytest.raises(MathhammerError, match=r"at most 1 model of a unit of 5 can take 'rock drill' "
                                              r"\(Forge Sister w/ heavy weapon: at most 1;"):
        sisters.equip(["melt gun", "2 rock drill"], 5)


def test_a_kind_known_by_its_shield_can_be_fielded():
    # 'Forge Sister w/ ward shield' (0-2) carries a Slag launcher and a Ward shield (min 1; no profile, an ability
    # 'Ward Shield': a 4+ invulnerable save for its bearer): named, it joins in place of a Forge Sister
    target = by_name.target_unit("Forge Sisters", loadout=["2 ward shields"])
    # the Sister Superior (her own profile) and 2 Forge Sisters without a save of their own, 2 with the shield
    assert sorted((profile.invulnerable or 0, n) for profile, n in target.target.groups) == [(0, 1), (0, 2), (4, 2)]
    with pytest.raises(MathhammerError, match="Forge Sister w/ ward shield: at most 2"):
        by_name.target_unit("Forge Sisters", loadout=["3 ward shields"])


def test_what_wargear_in_a_bundle_gives_its_bearer_goes_with_the_bundle():
    # Forge Wardens: a Warden Prime (W2, Sv3+) whose 'Weapon Option' defaults to the bundle 'Rock drill, bulwark &
    # ward shield'; the Bulwark's ability gives its bearer a Wounds characteristic of 3, the Ward Shield's a 4+
    # invulnerable save. Four Wardens (W2) carry a Slag launcher. The other choice, a Magma cannon, gives up all three.
    wardens = by_name.datasheet("Forge Wardens")
    prime = next(m for m in wardens.models if m.name == "Warden Prime")
    assert sorted(prime.equipment) == ["bulwark", "rock drill", "ward shield"]
    assert [(o.replaces, o.choices) for o in wardens.options] == [(("rock drill", "bulwark", "ward shield"),
                                                                   ("magma cannon",))]
    default = by_name.target_unit("Forge Wardens").target
    assert sorted((p.wounds, p.invulnerable, n) for p, n in default.groups) == [(2, None, 4), (3, 4, 1)]
    swapped = by_name.target_unit("Forge Wardens", loadout=["magma cannon"]).target
    assert sorted((p.wounds, p.invulnerable, n) for p, n in swapped.groups) == [(2, None, 1), (2, None, 4)]
    # a Magma cannon (S10 AP-4 D1) at the Warden Prime alone: with the ward shield its 4+ invulnerable save
    # stands (fails 1/2), without it no save: 5/9 x 1/2 and 5/9 unsaved wounds
    magma = Weapon.parse('24" A1 BS3+ S10 AP-4 D1')
    assert attack(magma, Target.of(prime.carrying(prime.equipment), 1), exact=True).unsaved.mean == Fraction(5, 18)
    assert attack(magma, Target.of(prime.carrying(["magma cannon"]), 1), exact=True).unsaved.mean == Fraction(5, 9)


def _with_xml_changed(tmp_path, monkeypatch, *changes: tuple[str, str]) -> None:
    """Index a copy of the fixture with each `old` (a piece of its XML) of `changes` written as its `new`."""
    folder = tmp_path / "checkout"
    shutil.copytree(Path(__file__).parent / "fixtures" / "bsdata-choices", folder)
    path = folder / "Test - Forge Choices.cat"
    text = path.read_text(encoding="utf-8")
    for old, new in changes:
        assert old in text
        text = text.replace(old, new, 1)
    path.write_text(text, encoding="utf-8")
    monkeypatch.setenv(index.ENVIRONMENT, str(tmp_path / "data"))
    add_checkout(folder)


def _arms_of_any_two(condition: str = "") -> tuple[tuple[str, str], ...]:
    """The Forge Walker's 'Arms (2)' as a Deff Dread's 'Wargear Options' writes its four: two of its choices in any
    combination, each at least 1 as its constraint says, then set to 0 by a modifier (with `condition`, if any)."""
    def arm(name: str, target: str, key: str) -> str:
        return (f'<entryLink import="true" name="{name}" hidden="false" type="selectionEntry" id="l-{key}" '
                f'targetId="{target}"><constraints><constraint type="max" value="2" field="selections" scope="parent" '
                f'shared="true" id="c-{key}-max"/><constraint type="min" value="1" field="selections" scope="parent" '
                f'shared="true" id="c-{key}-min"/></constraints><modifiers><modifier type="set" value="0" '
                f'field="c-{key}-min">{condition}</modifier></modifiers></entryLink>')
    cat = (Path(__file__).parent / "fixtures" / "bsdata-choices" / "Test - Forge Choices.cat").read_text()
    start = cat.index('<entryLink import="true" name="Magma cannon" hidden="false" type="selectionEntry" id="l-65"')
    old_links = cat[start:cat.index("</entryLinks>", start)]  # the group's two choices, taken by default amounts
    return ((old_links, arm("Magma cannon", "w-magma", "am") + arm("Rock drill", "w-drill", "ad")),)


@pytest.mark.parametrize(("condition", "mean"), [
    # any two: 'magma cannon' swaps the rock drill, the model carries two magma cannons: 2 x 5/9 + 2/27
    ("", 2 * MAGMA + SLAG),
    # the least set to 0 only while the unit holds something it does not: one of each stays, the rock drill too
    ('<conditions><condition type="atLeast" value="1" field="selections" scope="unit" childId="w-melt" '
     'shared="true"/></conditions>', MAGMA + 2 * DRILL + SLAG),
])
def test_a_group_of_any_combination_offers_each_default_piece_for_every_other_choice(tmp_path, monkeypatch,
                                                                                    condition, mean):
    # a trial found a Deff Dread's four weapons (any four of five, each up to four) read as one swap: 'skorcha,
    # skorcha' was refused
    _with_xml_changed(tmp_path, monkeypatch, *_arms_of_any_two(condition))
    walker = by_name.datasheet("Forge Walker")
    assert sorted(walker.models[0].equipment[:2]) == ["magma cannon", "rock drill"]  # one of each by default
    # each choice's least fills the group: no default is guessed, so none is said to be (a review found it said)
    assert any("names no default" in note for note in walker.notes + walker.models[0].notes) is bool(condition)
    assert unit_attack(walker, HORDE, loadout=["magma cannon"], exact=True).result.damage.mean == mean


def test_a_group_whose_default_is_missing_gives_the_choice_it_is_named_after(tmp_path, monkeypatch):
    # a trial found a Rogal Dorn's 'Twin Battle Cannon' group, its default id pointing nowhere, read as its first
    # choice (the oppressor cannon): 'Support systems (1-2)' renamed 'Rock drill' gives the rock drill instead
    _with_xml_changed(tmp_path, monkeypatch, ('name="Support systems (1-2)"', 'name="Rock drill"'))
    commander = by_name.datasheet("Forge Commander")
    assert commander.models[0].equipment == ("rock drill", "forge fist")
    assert [(o.replaces, o.choices) for o in commander.options] == [(("rock drill",), ("magma cannon",))]
    assert ("Forge Commander: 'Rock drill': the catalogue names as its default choice an entry that is none of these "
            "(id 'gone-1'); read as Rock drill, the choice the group is named after (also offered: Targeting array, "
            "Magma cannon)") in commander.notes + commander.models[0].notes


def _ward_shield_group(default: str, other: str, target: str) -> str:
    """The Forge Commander's 'Ward Shield' group (one choice of two): `other` (link l-w3, to `target`) or a ward
    shield (l-w4); its default the link `default` names (one that points nowhere: none)."""
    return ('<selectionEntryGroup name="Ward Shield" hidden="false" id="g-cmd-ward" '
            f'defaultSelectionEntryId="{default}"><constraints><constraint type="min" value="1" field="selections" '
            'scope="parent" shared="true" id="c-w1"/>'
            '<constraint type="max" value="1" field="selections" scope="parent" shared="true" id="c-w2"/>'
            f'</constraints><entryLinks><entryLink import="true" name="{other}" hidden="false" type="selectionEntry" '
            f'id="l-w3" targetId="{target}"/><entryLink import="true" name="Ward shield" hidden="false" '
            'type="selectionEntry" id="l-w4" targetId="w-shield"/></entryLinks></selectionEntryGroup>')


def test_a_default_that_is_an_ability_alone_is_worn_and_may_be_swapped_for_another(tmp_path, monkeypatch):
    # a trial found a Bullgryn Bone 'ead without his slabshield (its group's default id points nowhere) and a brute
    # shield refused: here a 'Ward Shield' group of a bulwark (first) and a ward shield (4+ invulnerable)
    group = _ward_shield_group("gone-2", "Bulwark", "w-bulwark")
    anchor = '<selectionEntryGroup name="Support systems (1-2)"'
    _with_xml_changed(tmp_path, monkeypatch, (anchor, group + anchor))
    commander = by_name.datasheet("Forge Commander")
    assert commander.models[0].profile.invulnerable == 4
    assert ((), ("ward shield",)) not in [(o.replaces, o.choices) for o in commander.options]
    assert (("ward shield",), ("bulwark",)) in [(o.replaces, o.choices) for o in commander.options]


WARD_TEXT = "The bearer has a 4+ invulnerable save."
UNIT_WARD_TEXT = "Models in the bearer's unit have a 4+ invulnerable save."


def test_wargear_that_protects_the_bearers_unit_protects_it_while_a_model_carries_it(tmp_path, monkeypatch):
    # the ward shield reworded to protect the bearer's unit (a weavefield crest): 'Forge Sister w/ ward shield' (0-2)
    # carries it, so Forge Sisters have no invulnerable save until one joins; then every model has it
    _with_xml_changed(tmp_path, monkeypatch, (WARD_TEXT, UNIT_WARD_TEXT))
    plain = by_name.target_unit("Forge Sisters")
    assert {profile.invulnerable for profile, _ in plain.target.groups} == {None}
    shielded = by_name.target_unit("Forge Sisters", loadout=["ward shield"])
    assert {profile.invulnerable for profile, _ in shielded.target.groups} == {4}
    assert sum(n for _, n in shielded.target.groups) == sum(n for _, n in plain.target.groups)


def test_wargear_that_protects_the_bearers_unit_is_given_up_with_it(tmp_path, monkeypatch):
    # a trial found Einhyr Hearthguard keeping their weavefield crest's 5+ invulnerable save after the Hesyr took a
    # teleport crest in its place: the Forge Commander's 'Ward Shield' group (a ward shield, reworded to protect the
    # bearer's unit, by default; or a bulwark) as in the test above
    group = _ward_shield_group("l-w4", "Bulwark", "w-bulwark")
    anchor = '<selectionEntryGroup name="Support systems (1-2)"'
    _with_xml_changed(tmp_path, monkeypatch, (anchor, group + anchor), (WARD_TEXT, UNIT_WARD_TEXT))
    assert by_name.target_unit("Forge Commander").target.single.invulnerable == 4
    swapped = by_name.target_unit("Forge Commander", loadout=["bulwark"])
    assert swapped.target.single.invulnerable is None
    assert "target note (Forge Commander): ward shield not carried (bulwark): the defences it gives the unit do " \
           "not apply" in swapped.notes
    assert not [note for note in swapped.notes if "invulnerable save 4+" in note]  # not said, then denied
    assert "target note (Forge Commander): invulnerable save 4+ for every model while one carries ward shield " \
           "(inferred from the text of 'Ward Shield')" in by_name.target_unit("Forge Commander").notes


def test_what_such_wargear_gives_its_bearer_alone_stays_the_bearers(tmp_path, monkeypatch):
    # an outside review: the ward shield protecting the bearer's unit (5+) and giving its bearer W3 and a 4+ (two more
    # abilities) gave every Forge Sister W3 and the 4+ once one carried it
    heft = ('</characteristics>\n        </profile>\n        <profile name="Ward Heft" typeId="pt-abilities" '
            'typeName="Abilities" hidden="false" id="p-heft"><characteristics><characteristic name="Description" '
            'typeId="ch-desc">The bearer has a Wounds characteristic of 3.</characteristic></characteristics>'
            '</profile><profile name="Ward Guard" typeId="pt-abilities" typeName="Abilities" hidden="false" '
            'id="p-guard"><characteristics><characteristic name="Description" typeId="ch-desc">' + WARD_TEXT +
            '</characteristic></characteristics></profile>')
    _with_xml_changed(tmp_path, monkeypatch, (WARD_TEXT + "</characteristic>\n          </characteristics>\n        "
                                              "</profile>", UNIT_WARD_TEXT.replace("4+", "5+") + "</characteristic>\n"
                                              "          " + heft))
    shielded = by_name.target_unit("Forge Sisters", loadout=["ward shield"]).target
    assert sorted((p.name, p.wounds, p.invulnerable, n) for p, n in shielded.groups) == [
        ("Forge Sister", 1, 5, 3), ("Forge Sister w/ ward shield", 3, 4, 1), ("Sister Superior", 1, 5, 1)]


OPTIONAL_MAGMA = ('</selectionEntryGroups>\n      <entryLinks><entryLink import="true" name="Magma cannon" '
                  'hidden="false" type="selectionEntry" id="l-opt" targetId="w-magma"><constraints><constraint '
                  'type="max" value="1" field="selections" scope="parent" shared="true" id="c-opt"/></constraints>'
                  '</entryLink></entryLinks>')


def test_a_weapon_a_model_may_take_beside_its_wargear_is_offered(tmp_path, monkeypatch):
    # a trial could not give a Theyn his Theyn's melee weapon (an entry of the model, none by default, at most 1):
    # here a magma cannon the Forge Commander may take beside its wargear
    _with_xml_changed(tmp_path, monkeypatch, ('</selectionEntryGroups>\n    </selectionEntry>', OPTIONAL_MAGMA +
                                              '\n    </selectionEntry>'))
    commander = by_name.datasheet("Forge Commander")
    assert ((), ("magma cannon",)) in [(o.replaces, o.choices) for o in commander.options]
    [(_, gear)] = commander.equip(["magma cannon"])
    assert sorted(gear) == sorted([*commander.models[0].equipment, "magma cannon"])


def test_a_weapon_whose_taking_changes_other_choices_is_not_offered_beside_them(tmp_path, monkeypatch):
    # twin lightning claws empty a Tactical Sergeant's two weapon groups (a condition on them names the claws): taken
    # beside his boltgun they would shoot it too; here the Forge Commander's support systems name the magma cannon
    condition = ('<modifiers><modifier type="set" value="0" field="c-13"><conditions><condition type="atLeast" '
                 'value="1" field="selections" scope="parent" childId="l-opt" shared="true"/></conditions></modifier>'
                 '</modifiers>\n              <entryLinks>\n                <entryLink import="true" name="Targeting')
    _with_xml_changed(tmp_path, monkeypatch,
                      ('</selectionEntryGroups>\n    </selectionEntry>', OPTIONAL_MAGMA + '\n    </selectionEntry>'),
                      ('<entryLinks>\n                <entryLink import="true" name="Targeting', condition))
    commander = by_name.datasheet("Forge Commander")
    assert ((), ("magma cannon",)) not in [(o.replaces, o.choices) for o in commander.options]


def _following(choice: str, link: str, target: str, hidden: str, counted: str = "") -> str:
    """A choice of the Sister Superior's weapon group that she takes where the unit holds one of its entry (or of
    the entry `counted`)."""
    held = (f'<conditions><condition type="greaterThan" value="0" field="selections" scope="u-sisters" '
            f'childId="{counted or target}" shared="true"/></conditions>')
    shows = f'<modifier type="set" value="false" field="hidden">{held}</modifier>' if hidden == "true" else ""
    return (f'<entryLink import="true" name="{choice}" hidden="{hidden}" type="selectionEntry" id="{link}" '
            f'targetId="{target}"><constraints><constraint type="min" value="0" field="selections" scope="parent" '
            f'shared="true" id="{link}-least"/></constraints><modifiers>{shows}<modifier type="set" value="1" '
            f'field="{link}-least">{held}</modifier></modifiers></entryLink>')


@pytest.mark.parametrize("counted", ["", "w-magma"])
def test_a_choice_a_model_takes_where_its_unit_does_is_offered_and_the_unit_is_alike(tmp_path, monkeypatch, counted):
    # a trial found an Einhyr Hesyr keeping his EtaCarn plasma gun beside Hearthguard with volkanite disintegrators:
    # his group's choices are hidden until the unit holds one (each one's least set to 1 then). Here the Sister
    # Superior's slag launcher becomes such a group: the slag launcher, or a hidden melt gun
    group = ('<selectionEntryGroups><selectionEntryGroup name="Superior weapon" hidden="false" id="g-sup" '
             'defaultSelectionEntryId="l-sup-slag"><constraints><constraint type="min" value="1" field="selections" '
             'scope="parent" shared="true" id="c-sup-1"/><constraint type="max" value="1" field="selections" '
             'scope="parent" shared="true" id="c-sup-2"/></constraints><entryLinks>'
             + _following("Slag launcher", "l-sup-slag", "w-slag", "false")
             + _following("Melt gun", "l-sup-melt", "w-melt", "true", counted)
             + '</entryLinks></selectionEntryGroup></selectionEntryGroups>')
    superior = ('          <entryLinks>\n            <entryLink import="true" name="Slag launcher" hidden="false" '
                'type="selectionEntry" id="l-30" targetId="w-slag">\n              <constraints>\n                '
                '<constraint type="min" value="1" field="selections" scope="parent" shared="true" id="c-31"/>\n'
                '                <constraint type="max" value="1" field="selections" scope="parent" shared="true" '
                'id="c-32"/>\n              </constraints>\n            </entryLink>\n          </entryLinks>')
    _with_xml_changed(tmp_path, monkeypatch, (superior, group))
    sisters = by_name.datasheet("Forge Sisters")
    # where the melt gun is taken as the unit holds a magma cannon, it follows no choice of the unit's (a review)
    assert ((("slag launcher",), ("melt gun",)) in [(o.replaces, o.choices) for o in sisters.options
                                                    if o.model == "Sister Superior"]) == (not counted)
    assert (("melt gun", "slag launcher") in [tuple(sorted(items)) for items in sisters.alike]) == (not counted)
    assert next(m for m in sisters.models if m.name == "Sister Superior").equipment == ("slag launcher",)


def test_wargear_its_bearer_carries_gives_a_better_save_than_its_units(tmp_path, monkeypatch):
    # a trial found a Dire Avenger Exarch with a shimmershield (the bearer: 4+) keeping his unit's 5+: a model uses its
    # best invulnerable save. Here Forge Sisters are given a 5+ (every model), and the ward shield's bearers a 4+
    unit = '<selectionEntry type="unit" import="true" name="Forge Sisters" hidden="false" id="u-sisters">'
    aegis = ('<profiles><profile name="Aegis" typeId="pt-abilities" typeName="Abilities" hidden="false" id="p-aegis">'
             '<characteristics><characteristic name="Description" typeId="ch-desc">Models in this unit have a 5+ '
             'invulnerable save.</characteristic></characteristics></profile></profiles>')
    _with_xml_changed(tmp_path, monkeypatch, (unit, unit + aegis))
    target = by_name.target_unit("Forge Sisters", loadout=["2 ward shields"]).target
    assert sorted((p.name, p.invulnerable, n) for p, n in target.groups) == [
        ("Forge Sister", 5, 2), ("Forge Sister w/ ward shield", 4, 2), ("Sister Superior", 5, 1)]


def test_a_card_says_how_many_of_each_kind_the_units_sizes_hold():
    # a trial read '0-10 x Einhyr Hearthguard' for a unit of 5 or 10 with one Hesyr: the Sister Superior is always
    # one; the Forge Sisters 4 (a unit of 5) to 9 (of 10), less what the kinds that join in their place may take
    # (1 + 2 + 2: none left, at 5); a kind that joins only as a loadout names it 0 to its most (the heavy weapon's,
    # 2 from 10 models; the ward shield's, 2)
    from mathhammer_exact.present.cards import datasheet_card
    card = datasheet_card(by_name.datasheet("Forge Sisters"))
    assert [line.split(":")[0] for line in card.splitlines() if " x " in line.split(":")[0]] == [
        "  0-9 x Forge Sister", "  1 x Sister Superior", "  0-1 x Forge Sister w/ special or heavy weapon",
        "  0-2 x Forge Sister w/ heavy weapon", "  0-2 x Forge Sister w/ ward shield"]


def test_a_default_that_is_an_ability_alone_may_be_swapped_for_a_weapon_and_its_ability_goes_with_it(tmp_path,
                                                                                                      monkeypatch):
    # a trial could not field a Wraithknight with two heavy wraithcannons: its left arm's default, a scattershield
    # (a 4+ for its bearer, -1 Damage to attacks allocated to it), was not offered for the heavy wraithcannon, as its
    # -1 Damage (read as the unit's ability) would have stayed. Here the Forge Commander's 'Ward Shield' group: the
    # ward shield (the same two abilities) by default, or a magma cannon
    ward = WARD_TEXT + " Each time an attack is allocated to the bearer, subtract 1 from the Damage characteristic " \
                       "of that attack."
    group = _ward_shield_group("l-w4", "Magma cannon", "w-magma")
    anchor = '<selectionEntryGroup name="Support systems (1-2)"'
    _with_xml_changed(tmp_path, monkeypatch, (anchor, group + anchor), (WARD_TEXT, ward))
    commander = by_name.datasheet("Forge Commander")
    assert (("ward shield",), ("magma cannon",)) in [(o.replaces, o.choices) for o in commander.options]
    kept, given_up = by_name.target_unit("Forge Commander"), by_name.target_unit("Forge Commander",
                                                                                 loadout=["magma cannon"])
    assert kept.target.single.invulnerable == 4 and given_up.target.single.invulnerable is None
    shooter = Datasheet(name="Test Gun", faction="Test", source="test", keywords=("INFANTRY",), faction_keywords=(),
                        abilities=(), models=(ModelEntry("Gunner", ModelProfile.parse("T4 Sv3+ W1", name="Gunner"), 1,
                                                         ("gun",)),),
                        weapons={"gun": {"default": Weapon.parse('24" A2 BS2+ S10 AP-4 D2', name="gun")}})
    with_shield, without = (unit_attack(shooter, target, exact=True) for target in (kept, given_up))
    # 2 shots hit 5/6 and wound (S10 v T4) 5/6: 25/18 wounds; with the shield its 4+ saves half and each deals
    # 2 - 1 = 1, without it its Sv2+ at AP-4 saves 1/6 and each deals 2 (at most 4 of its 5 wounds: none lost)
    assert with_shield.result.damage.mean == Fraction(25, 18) * Fraction(1, 2)
    assert without.result.damage.mean == Fraction(25, 18) * Fraction(5, 6) * 2
    assert [line for line in with_shield.situation if line.startswith("target has Ward Shield")]
    assert not [line for line in without.situation if line.startswith("target has Ward Shield")]


def test_wargear_that_protects_its_unit_gives_a_better_save_than_its_units_own(tmp_path, monkeypatch):
    # an outside review found a Wazbom Blastajet's force field ('Invulnerable Save (4+)' for the unit) losing to its
    # 6+: here Forge Sisters with a 5+ of their own and the ward shield reworded to give the bearer's unit a 4+
    unit = '<selectionEntry type="unit" import="true" name="Forge Sisters" hidden="false" id="u-sisters">'
    aegis = ('<profiles><profile name="Aegis" typeId="pt-abilities" typeName="Abilities" hidden="false" id="p-aegis">'
             '<characteristics><characteristic name="Description" typeId="ch-desc">Models in this unit have a 5+ '
             'invulnerable save.</characteristic></characteristics></profile></profiles>')
    _with_xml_changed(tmp_path, monkeypatch, (unit, unit + aegis), (WARD_TEXT, UNIT_WARD_TEXT))
    assert {p.invulnerable for p, _ in by_name.target_unit("Forge Sisters").target.groups} == {5}
    shielded = by_name.target_unit("Forge Sisters", loadout=["ward shield"]).target
    assert {p.invulnerable for p, _ in shielded.groups} == {4}


def test_a_pieces_feel_no_pain_against_some_attacks_is_not_read_as_against_all(tmp_path, monkeypatch):
    # a review found Flesh Hounds' collar of Khorne ('The bearer has the Feel No Pain 3+ ability against Psychic
    # Attacks', and the core rule linked: 'Feel No Pain 3+') giving Feel No Pain 3+ against every attack: the ward
    # shield so written, its bearers have it against psychic attacks only
    collar = "The bearer has the Feel No Pain 3+ ability against Psychic Attacks."
    link = ('</profiles><infoLinks><infoLink name="Feel No Pain" id="l-fnp" hidden="false" type="rule" '
            'targetId="rule-fnp"><modifiers><modifier type="append" value="3+" field="name"/></modifiers></infoLink>'
            '</infoLinks>')
    shield = f"{WARD_TEXT}</characteristic>\n          </characteristics>\n        </profile>\n      </profiles>"
    _with_xml_changed(tmp_path, monkeypatch, (shield, shield.replace(WARD_TEXT, collar).replace("</profiles>", link)))
    shielded = by_name.target_unit("Forge Sisters", loadout=["ward shield"]).target
    bearer = next(p for p, _ in shielded.groups if p.name == "Forge Sister w/ ward shield")
    assert (bearer.feel_no_pain, bearer.feel_no_pain_psychic) == (None, 3)


def _unit_wargear(carrier: str, associated: bool = True) -> str:
    """Forge Sisters' own wargear (not a model's), each at most 1 in the unit: a melt gun (a link) and a forge banner
    (an entry: an ability alone, protecting the bearer's unit), both associated with the models of `carrier` (a kind's
    or a group's id, 'model', or a category), as BattleScribe writes a Helix Gauntlet or an Icon of Khorne."""
    def with_carrier(piece: str) -> str:
        return (f'<associations><association min="1" max="1" scope="parent" childId="{carrier}" name="{piece}" '
                f'id="a-{piece[:4]}"/></associations>') if associated else ""
    most = '<constraints><constraint type="max" value="1" field="selections" scope="parent" shared="true" id="c-{}"/>' \
           '</constraints>'
    return ('</selectionEntryGroups>\n      <selectionEntries><selectionEntry type="upgrade" import="true" '
            f'name="Forge banner" hidden="false" id="w-banner">{most.format("banner")}<profiles><profile '
            'name="Forge Banner" typeId="pt-abilities" typeName="Abilities" hidden="false" id="p-banner">'
            '<characteristics><characteristic name="Description" typeId="ch-desc">Models in the bearer\'s unit have '
            'the Feel No Pain 5+ ability.</characteristic></characteristics></profile></profiles>'
            f'{with_carrier("Forge banner")}</selectionEntry></selectionEntries>'
            '<entryLinks><entryLink import="true" name="Melt gun" hidden="false" type="selectionEntry" id="l-assoc" '
            f'targetId="w-melt">{most.format("melt")}{with_carrier("Melt gun")}</entryLink></entryLinks>\n'
            '    </selectionEntry>\n    <selectionEntry type="model" import="true" name="Forge Walker"')


SISTERS_END = '</selectionEntryGroups>\n    </selectionEntry>\n    <selectionEntry type="model" import="true" ' \
              'name="Forge Walker"'
SISTER_KIND = '<selectionEntry type="model" import="true" name="Forge Sister" hidden="false" id="m-sister">'


SISTERS_GROUP = {"Forge Sister", "Forge Sister w/ special or heavy weapon", "Forge Sister w/ heavy weapon",
                 "Forge Sister w/ ward shield"}  #: the kinds of '4-9 Forge Sisters'


@pytest.mark.parametrize(("carrier", "takers"), [
    ("m-sister", {"Forge Sister"}),  # a kind
    ("g-sisters", SISTERS_GROUP),  # a group of kinds
    ("model", SISTERS_GROUP | {"Sister Superior"}),  # any model
    ("cat-sister", {"Forge Sister"}),  # a category its kind has (Jakhals' 'Jakhal')
])
def test_the_units_own_wargear_is_offered_to_the_models_it_is_associated_with(tmp_path, monkeypatch, carrier, takers):
    # a trial found an Infiltrator Squad's Helix Gauntlet and a Scarab Occult Terminator's Hellfyre missile rack
    # refused ('it offers no wargear choices'): wargear of the unit's entry, associated with a kind of its models
    category = SISTER_KIND.replace('">', '"><categoryLinks><categoryLink targetId="cat-sister" id="cl-sister" '
                                         'primary="false" name="Sister"/></categoryLinks>', 1)
    _with_xml_changed(tmp_path, monkeypatch, (SISTERS_END, _unit_wargear(carrier)), (SISTER_KIND, category))
    sisters = by_name.datasheet("Forge Sisters")
    for piece in ("melt gun", "forge banner"):
        assert {o.model for o in sisters.options if o.replaces == () and o.choices == (piece,)} == takers
    plain = unit_attack("Forge Sisters", HORDE, exact=True).result.damage.mean
    # taken as well as what the model carries: one more melt gun's 5/9 against the horde (one wound each)
    melted = unit_attack("Forge Sisters", HORDE, loadout=["melt gun"], exact=True).result.damage.mean
    assert melted - plain == MELT == Fraction(5, 9)
    with pytest.raises(MathhammerError, match="at most 1 model of a unit of 5 can take 'melt gun'"):
        sisters.equip(["2 melt gun"])
    # the banner's Feel No Pain 5+ for every model of the unit while one carries it
    bannered = by_name.target_unit("Forge Sisters", loadout=["forge banner"]).target
    assert {p.feel_no_pain for p, _ in bannered.groups} == {5}
    assert {p.feel_no_pain for p, _ in by_name.target_unit("Forge Sisters").target.groups} == {None}


def test_the_units_own_optional_wargear_associated_with_no_model_is_not_offered(tmp_path, monkeypatch):
    # without the association no model is named to carry it: not offered (as before), not guessed
    _with_xml_changed(tmp_path, monkeypatch, (SISTERS_END, _unit_wargear("m-sister", associated=False)))
    sisters = by_name.datasheet("Forge Sisters")
    assert not [o for o in sisters.options if {"melt gun", "forge banner"} & set(o.choices)]


def test_a_link_that_always_raises_a_groups_least_and_most_takes_its_default_so_many_times():
    # Forge Strider: its link to 'Strider guns' (1 of 1, default Magma cannon) sets the group's least (c-130) and most
    # (c-131) to 2, with no condition: two magma cannons, each of which may be a rock drill (a War Walker's link to
    # its Heavy Weapons); a modifier group that sets them to 3 holds only on a condition of the army: not read. Its
    # link to Melt gun (1 of 1) increments both to 2 (a Goremonger's second pistol): two melt guns. Its link to Forge
    # fist is at least 2 with a modifier that sets that least to 0: the two fists it comes with, which it may give up
    # (BSData's way of writing a Deff Dread's weapons), stay two.
    strider = by_name.datasheet("Forge Strider")
    assert strider.models[0].equipment == ("magma cannon", "magma cannon", "melt gun", "melt gun", "forge fist",
                                           "forge fist")
    assert [(o.replaces, o.choices) for o in strider.options] == [(("magma cannon",), ("rock drill",))] * 2
    assert unit_attack("Forge Strider", HORDE, exact=True).result.damage.mean == 2 * MAGMA + 2 * MELT == \
        Fraction(20, 9)
    # a rock drill (A2) for one of them: 5/9 + 2 x 8/27, and the melt guns' 10/9
    assert unit_attack("Forge Strider", HORDE, loadout=["rock drill"], exact=True).result.damage.mean == \
        MAGMA + 2 * DRILL + 2 * MELT == Fraction(61, 27)
