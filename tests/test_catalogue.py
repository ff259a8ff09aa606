"""Indexing a BSData checkout and finding its units by name, on invented data in the same schema
(tests/fixtures/bsdata: shared entries linked from a library, a multi-profile weapon, model groups,
points brackets, an invulnerable save, a Feel No Pain link, a Leader)."""

from __future__ import annotations

import json
import os
import re
import sqlite3
from collections import Counter
from fractions import Fraction
from pathlib import Path

import attrs
import pytest
from click.testing import CliRunner

from mathhammer_exact import Context, Firing, MathhammerError, Target, Weapon, attack
from mathhammer_exact.catalogue import build, index, library
from mathhammer_exact.catalogue.abilities import best, charge_rolls, feel_no_pain, invulnerable, leader_units
from mathhammer_exact.catalogue.convert import _defence, model_text, to_datasheet, weapon_text
from mathhammer_exact.cli import cli
from mathhammer_exact.data.datasheet import Datasheet, Least
from mathhammer_exact.decide.unit_attack import unit_attack, volley
from mathhammer_exact.present.cards import card
from mathhammer_exact.units import by_name

FIXTURES = Path(__file__).parent / "fixtures"
CHECKOUT = FIXTURES / "bsdata"


@pytest.fixture
def data_dir(tmp_path, monkeypatch):
    """An empty data directory of our own, so no test touches the player's."""
    folder = tmp_path / "data"
    monkeypatch.setenv(index.ENVIRONMENT, str(folder))
    return folder


@pytest.fixture
def indexed(data_dir):
    build.add_checkout(CHECKOUT)
    return data_dir


def run(*args: str):
    return CliRunner().invoke(cli, list(args))


# --------------------------------------------------------------------- strings from characteristics
def test_weapon_text_from_characteristics():
    chars = {"Range": '24"', "A": "D6+1", "BS": "3+", "S": "4", "AP": "-1", "D": "D3", "Keywords": "Heavy, Blast"}
    assert weapon_text(chars, False) == '24" AD6+1 BS3+ S4 AP-1 D=D3 [Heavy, Blast]'
    melee = {"Range": "Melee", "A": "3", "WS": "4+", "S": "4", "AP": "0", "D": "1", "Keywords": "-"}
    assert weapon_text(melee, True) == "Melee A3 WS4+ S4 AP0 D=1"
    assert weapon_text({**chars, "Range": "36", "Keywords": "-"}, False).startswith('36" ')  # inch mark added


def test_model_text_from_characteristics():
    stats = {"M": '6"', "T": "4", "SV": "3+", "W": "2", "LD": "6+", "OC": "2"}
    assert model_text(stats, "inv5+", ("INFANTRY",)) == 'M6" T4 Sv3+ W2 Ld6+ OC2 inv5+ [INFANTRY]'
    assert model_text({**stats, "M": "-", "OC": "-"}) == "T4 Sv3+ W2 Ld6+"  # fortifications print '-'


@pytest.mark.parametrize(("name", "text", "expected"), [
    ("Invulnerable Save", "4+", (4, False, False)),
    ("Invulnerable Save (5+)", "", (5, False, False)),
    ("Invulnerable Save", "This model has a 5+ invulnerable save against ranged attacks.", (5, True, False)),
    ("Iron Hide", "Models in this unit have a 4+ invulnerable save.", (4, False, True)),
    ("Iron Hide", "This model has an invulnerable save of 6+.", (6, False, True)),
    ("Melta Lance", "Attacks made with this weapon ignore invulnerable saves. Roll a D6: on a 4+ ...", None),
])
def test_invulnerable_saves_from_abilities(name, text, expected):
    found = invulnerable(name, text)
    assert (found and (found["value"], found["ranged_only"], found["inferred"])) == expected


def test_a_save_under_a_condition_is_held_for_with():
    text = "Invented text. While this unit is in cover, models in this unit have a 5+ invulnerable save."
    found = invulnerable("Hunker", text)
    assert found is not None and found["conditional"] and found["inferred"]
    assert not invulnerable("Hunker", "Models in this unit have a 5+ invulnerable save.")["conditional"]
    listed = "Once per battle you can shout. If you do, until your next turn:\n- Add 1 to Attacks.\n- Models " \
             "from your army with this ability have a 5+ invulnerable save."
    assert invulnerable("Shout", listed)["conditional"]
    notes: list[str] = []
    held: dict = {}
    assert _defence({"invulnerable": found, "feel_no_pain": None, "keywords": [], "abilities": []},
                    {"name": "X", "stats": {}}, notes, held=held) == ""
    assert notes == []  # not a note: an ability of the unit's, which --with 'Hunker' applies to every model
    [reading] = held["Hunker"].values()
    assert (reading.rule.situation, reading.rule.effect.invulnerable, reading.rule.models, reading.needs) == (
        "target", 5, (), "under the condition its text states")


def _record(**changes):
    """A one-model unit record as the index holds it."""
    stats = {"M": '6"', "T": "4", "SV": "3+", "W": "2", "LD": "6+", "OC": "1"}
    record = {"name": "Pebble", "faction": "Test", "keywords": ["INFANTRY"], "faction_keywords": [],
              "abilities": [], "models": [{"name": "Pebble", "min": 1, "max": 1, "options": [], "equipment": [],
                                           "stats": stats}],
              "weapons": {}, "sizes": [1], "points": {}, "leader_of": [], "invulnerable": None,
              "feel_no_pain": None, "notes": [], "edition": "10e"}
    return {**record, **changes}


def test_a_conditional_save_read_from_text_is_left_to_the_answer():
    # Feel No Pain under a condition: the text reader reads the same ability, and each answer says whether it is
    # applied (with --with, "assumed"): no note says "not applied" beside it
    text = "While the Rumble is active for your army, models in this unit have the Feel No Pain 5+ ability."
    fnp = feel_no_pain("Rumble Time", "", text)
    assert fnp["conditional"]
    read = to_datasheet(_record(feel_no_pain=fnp, abilities=["Rumble Time"],
                                ability_texts=[["Rumble Time", text, ""]]))
    assert [a.name for a in read.read_rules if a.readings] == ["Rumble Time"]
    assert read.notes == () and read.models[0].profile.feel_no_pain is None
    # an ability whose text is not kept (a rule linked by name): its Feel No Pain alone, for --with 'Rumble Time'
    unread = to_datasheet(_record(feel_no_pain=fnp, abilities=["Rumble Time"]))
    assert unread.notes == unread.defence_notes == ()
    [ability] = unread.read_rules
    assert [(r.rule.effect.feel_no_pain, r.needs) for r in ability.readings] == [
        (5, "under the condition its text states")]


def test_a_model_that_rides_in_another_until_it_is_destroyed_is_left_out():
    # a trial found Canis Rex's Sir Hekhtur firing his pistol beside the Knight, and counted in the target: he is not
    # on the battlefield until the Knight is destroyed (the catalogue counts him in the unit's size, 2)
    stats = {"M": '6"', "T": "3", "SV": "4+", "W": "3", "LD": "5+", "OC": "1"}
    squire = {"name": "Squire", "min": 1, "max": 1, "options": [], "equipment": [], "stats": stats}
    text = ("If your Pebble model is destroyed, this model is treated as a model disembarking from a destroyed "
            "Transport and must perform an Emergency Disembarkation.")
    record = _record(models=[*_record()["models"], squire], sizes=[2], points={"2": 415},
                     ability_texts=[["Riding Along", text, "Squire"]], abilities=["Riding Along"])
    knight = to_datasheet(record)
    assert [m.name for m in knight.models] == ["Pebble"]
    assert (knight.allowed_sizes(), knight.points) == ((1,), {1: 415})
    assert ("Squire is not on the battlefield until the Pebble model is destroyed (then it disembarks): left out of "
            "the unit's attacks and of it as a target (the unit destroyed is the Pebble model destroyed)"
            ) in knight.notes


def test_a_feel_no_pain_against_some_attacks_beside_a_general_one():
    # a trial found Aleya's 'Feel No Pain 3+ against Psychic Attacks and mortal wounds' lost beside her Feel No Pain
    # 5+ (a rule linked by name): the record keeps one Feel No Pain, the general one
    text = "This model has the Feel No Pain 3+ ability against Psychic Attacks and mortal wounds."
    general = feel_no_pain("Feel No Pain", "5+", "")
    sheet = to_datasheet(_record(feel_no_pain=general, abilities=["Feel No Pain 5+", "Daughter"],
                                 ability_texts=[["Daughter", text, ""]]))
    profile = sheet.models[0].profile
    assert (profile.feel_no_pain, profile.feel_no_pain_mortal, profile.feel_no_pain_psychic) == (5, 3, 3)
    # not one under a condition, one while it leads, one of another kind of model, nor wargear's (a review)
    for other, kind, bearers in (("While this model is within 6\" of an objective, it has the Feel No Pain 3+ ability "
                                  "against mortal wounds.", "", {}),
                                 ("While this model is leading a unit, models in that unit have the Feel No Pain 3+ "
                                  "ability against mortal wounds.", "", {}),
                                 (text, "Someone Else", {}), (text, "", {"Daughter": {"model": {}}})):
        sheet = to_datasheet(_record(feel_no_pain=general, abilities=["Feel No Pain 5+", "Daughter"],
                                     ability_texts=[["Daughter", other, kind]], bearers=bearers))
        assert sheet.models[0].profile.feel_no_pain_mortal is None, other


def test_saves_that_hold_against_some_attacks_only():
    inv = invulnerable("Invulnerable Save", "Models in this unit have a 5+ invulnerable save against ranged attacks.")
    fnp = feel_no_pain("Null Field", "", "Models in this unit have the Feel No Pain 4+ ability against Psychic "
                                         "Attacks.")
    profile = to_datasheet(_record(invulnerable=inv, feel_no_pain=fnp)).models[0].profile
    assert (profile.invulnerable, profile.invulnerable_ranged) == (None, 5)
    assert (profile.feel_no_pain, profile.feel_no_pain_psychic) == (None, 4)
    assert (profile.movement, profile.objective_control) == (6, 1)


def test_sizes_the_models_cannot_fill_are_replaced_and_said():
    pebble = _record()["models"][0]
    models = [{**pebble, "name": "Pack Leader"}, {**pebble, "name": "Hound", "min": 8, "max": 8}]
    sheet = to_datasheet(_record(models=models, sizes=[8], points={"8": 65}))  # 1 + 8 models cannot make 8
    assert (sheet.sizes, sheet.points) == ((9,), {})
    assert sheet.notes == ("unit size read as 9 (the catalogue's sizes, 8, do not fit its models); points not read",)


def test_stealth_ability_and_keywords_once_each():
    sheet = to_datasheet(_record(abilities=["Stealth"], keywords=["INFANTRY", "SCOUT", "INFANTRY"]))
    assert sheet.keywords == ("INFANTRY", "SCOUT")
    assert "STEALTH" in sheet.models[0].profile.keywords
    already = to_datasheet(_record(abilities=["Stealth"], keywords=["INFANTRY", "STEALTH"]))
    assert "STEALTH" in already.models[0].profile.keywords


def test_a_stated_save_wins_over_prose_and_conditions():
    stated = invulnerable("Invulnerable Save", "4+")
    prose = invulnerable("Iron Hide", "Models in this unit have a 5+ invulnerable save.")
    conditional = invulnerable("Hunker", "While this unit is in cover, models in it have a 3+ invulnerable save.")
    assert best(best(None, conditional), prose) is prose
    assert best(best(conditional, prose), stated) is stated
    assert best(stated, prose) is stated and best(stated, None) is stated


@pytest.mark.parametrize(("name", "suffix", "text", "expected"), [
    ("Feel No Pain", "5+", "", (5, False, "")),  # a rule link with its value appended
    ("Feel No Pain 6+", "", "", (6, False, "")),  # as a roster prints it
    ("Tough Hide", "", "This model has the Feel No Pain 4+ ability against mortal wounds.", (4, True, "mortal")),
    ("Blessed", "", "Models in this unit have the Feel No Pain 5+ ability against Psychic Attacks.",
     (5, True, "psychic")),
    ("Tough Hide", "", "Add 1 to the Toughness characteristic.", None),
])
def test_feel_no_pain_from_rules(name, suffix, text, expected):
    found = feel_no_pain(name, suffix, text)
    assert (found and (found["value"], found["inferred"], found.get("against", ""))) == expected


def test_leader_units_from_the_leader_ability():
    text = "This model can be attached to the following units:\n■ Gravel Wardens\n■ Scree Walkers"
    assert leader_units(text) == ["Gravel Wardens", "Scree Walkers"]


# --------------------------------------------------------------------- indexing
def test_add_reports_what_it_understood(data_dir):
    report = build.add_checkout(CHECKOUT)
    assert (report.files, report.units) == (4, 4)
    assert report.tally.weapons == {"found": 11, "parsed": 10, "failed": 1}
    assert report.tally.failures == {"'S*': this Strength is given elsewhere on the datasheet": 1}  # Mirror lance
    assert report.tally.unmodelled == {"Zapblast": 1}  # the Shard pistol's invented rule, kept by name
    assert report.path == data_dir / index.FILENAME
    assert [p.name for p in data_dir.iterdir()] == [index.FILENAME]  # no temporary file left behind


def test_unit_with_model_group_linked_weapons_and_points(indexed):
    sheet = by_name.datasheet("Gravel Wardens")
    assert sheet.faction == "Gravel Host" and sheet.source == "BSData Test - Gravel Host.cat"
    assert sheet.keywords == ("INFANTRY", "BATTLELINE") and sheet.faction_keywords == ("GRAVEL HOST",)
    assert sheet.sizes == (5, 10) and sheet.points == {5: 90, 10: 180}  # base cost, then 'set 180 at 6+ models'
    warden, leader = sheet.models  # the most numerous first: the order a defender loses them in
    assert (leader.name, leader.count, leader.max, leader.equipment) == ("Warden Leader", 1, None,
                                                                         ("pebble rifle", "rock fist"))
    assert (warden.name, warden.count, warden.max, warden.equipment) == ("Warden", 4, 9, ("pebble rifle", "rock fist"))
    assert sheet.counts(10) == {"Warden Leader": 1, "Warden": 9}
    # the Weapon group's default is the rifle; the other choice is an option
    [option] = sheet.options
    assert (option.model, option.replaces, option.choices) == ("Warden Leader", ("pebble rifle",), ("slingshot",))
    # one weapon with two named profiles, linked from the library catalogue
    assert sheet.weapons["slingshot"] == {
        "pellet": Weapon.parse('18" AD3 BS3+ S4 AP0 D1 [BLAST]', name="Slingshot (pellet)"),
        "boulder": Weapon.parse('18" A1 BS3+ S9 AP-2 DD3', name="Slingshot (boulder)")}
    assert "glitter bomb" not in sheet.weapons  # Crusade-only wargear is left out
    # invulnerable save from the shared ability, Feel No Pain from the rule link with '6+' appended
    assert {(m.profile.invulnerable, m.profile.feel_no_pain) for m in sheet.models} == {(5, 6)}
    assert "Feel No Pain 6+" in sheet.abilities


def test_leader_and_inferred_invulnerable_save(indexed):
    sheet = by_name.datasheet("warden captain")
    assert sheet.leader_of == ("Gravel Wardens",)
    assert sheet.models[0].profile.invulnerable == 4
    assert "invulnerable save 4+ inferred from the text of 'Stone Skin'" in sheet.defences_for()  # said as a target
    assert "weapon Mirror lance left out: 'S*': this Strength is given elsewhere on the datasheet" in sheet.notes
    assert sheet.weapons["shard pistol"]["default"].ignored == ("Zapblast",)
    assert sheet.points == {1: 65}


def test_single_model_vehicle_with_two_of_one_weapon(indexed):
    sheet = by_name.datasheet("Scree Walker")
    assert sheet.models[0].equipment == ("gravel flail", "twin gravel cannon", "twin gravel cannon")
    assert sheet.weapons["twin gravel cannon"]["default"].range == 36
    profile = sheet.models[0].profile
    assert (profile.feel_no_pain, profile.feel_no_pain_mortal) == (None, 5)  # 'against mortal wounds'
    # a VEHICLE shoots every ranged weapon: the flail's ranged profile and both cannons
    shots = [(w.name, n) for w, n, _ in volley(sheet).weapons]
    assert shots == [("Gravel flail (fling)", 1), ("Twin gravel cannon", 2)]


def test_a_weapon_with_ranged_and_melee_profiles_is_shot_and_fought_with(indexed):
    sheet = by_name.datasheet("Scree Walker")
    assert list(sheet.kind_of("gravel flail", melee=False)) == ["fling"]
    assert list(sheet.kind_of("gravel flail", melee=True)) == ["strike"]
    assert [(w.name, n) for w, n, _ in volley(sheet, melee=True).weapons] == [("Gravel flail (strike)", 1)]


@pytest.mark.parametrize("typed", ["gravel wardens", "GRAVEL-WARDENS", " Gravel  Wardens ", "Gravel Wardens @ gravel"])
def test_names_are_matched_forgivingly(indexed, typed):
    assert by_name.datasheet(typed).name == "Gravel Wardens"


def test_a_unit_whose_weapons_are_linked_from_the_library(indexed):
    sand = by_name.datasheet("dune walker")
    assert (sand.faction, sand.models[0].profile.toughness, sand.models[0].equipment) == (
        "Sand Host", 8, ("pebble rifle",) * 3)  # a weapon linked from the library, three of it
    assert sand.notes == ()


def test_a_near_miss_says_did_you_mean(indexed):
    assert by_name.datasheet("Gravel Warden").name == "Gravel Wardens"  # the singular: test_catalogue_names
    with pytest.raises(MathhammerError, match=r"unknown unit 'Gravel Wadrens' \(did you mean 'Gravel Wardens'\?\)"):
        by_name.datasheet("Gravel Wadrens")


def test_indexed_unit_as_target(indexed):
    target = by_name.find_target("Gravel Wardens")
    assert target.model_count == 5 and target.groups[0][0].invulnerable == 5


def test_a_leader_by_name_joins_a_unit_it_can_lead(indexed):
    target = by_name.find_target("Gravel Wardens", leader="warden captain")
    assert target.attached
    assert [(p.name, n, p.character) for p, n in target.groups] == [
        ("Warden", 4, False), ("Warden Leader", 1, False), ("Warden Captain", 1, True)]
    with pytest.raises(MathhammerError, match=r"Warden Captain cannot lead Scree Walker \(it can lead: Gravel "):
        by_name.find_target("Scree Walker", leader="Warden Captain")


def test_models_beside_a_composition_bundle_count_in_the_units_size(tmp_path, monkeypatch):
    # a trial found Jakhals read as 9 models with no points: its bundle '8 chainblades' counts the Jakhals alone, and
    # its Pack Leader and one Dishonoured stand beside it (10 models, 65 points)
    def group(name: str, least: int, entries: str) -> str:
        return (f'<selectionEntryGroup name="{name}" hidden="false" id="g-{name.lower()}"><constraints>'
                f'<constraint type="min" value="{least}" field="selections" scope="parent" shared="true" '
                f'id="c-{name.lower()}-a"/><constraint type="max" value="1" field="selections" scope="parent" '
                f'shared="true" id="c-{name.lower()}-b"/></constraints><selectionEntries>{entries}</selectionEntries>'
                "</selectionEntryGroup>")
    bundle = ('<selectionEntry type="upgrade" import="true" name="8 blades" hidden="false" id="b-eight">'
              f'<selectionEntries>{_kind("Packer", 8, 8)}</selectionEntries></selectionEntry>')
    unit = ('<selectionEntry type="unit" import="true" name="Cinder Pack" hidden="false" id="u-pack">'
            '<costs><cost name="pts" typeId="ct-pts" value="65"/></costs><selectionEntries>'
            f'{_kind("Pack Leader", 1, 1)}</selectionEntries><selectionEntryGroups>{group("Pack", 1, bundle)}'
            f'{group("Outcasts", 1, _kind("Outcast", 0, 1))}</selectionEntryGroups></selectionEntry>')
    _index_priced(tmp_path, monkeypatch, unit)
    pack = by_name.datasheet("Cinder Pack")
    assert (pack.allowed_sizes(), pack.points) == ((10,), {10: 65})
    assert pack.counts() == {"Packer": 8, "Pack Leader": 1, "Outcast": 1}


def test_an_ability_shown_in_armies_of_one_selection_waits_for_with(tmp_path, monkeypatch):
    # a review found the Murderer's Cowl of every Khorne daemon read as its own, where the catalogue shows it in Shadow
    # Legion armies alone (a profile hidden while the army list has no such selection)
    cowl = ('<profiles><profile name="Cowl of Ash" typeId="pt-abilities" typeName="Abilities" hidden="false" '
            'id="p-cowl"><characteristics><characteristic name="Description" typeId="ch-desc">Each time a model in '
            'this unit makes an attack, add 1 to the Hit roll.</characteristic></characteristics><modifiers>'
            '<modifier type="set" value="true" field="hidden"><conditions><condition type="lessThan" value="1" '
            'field="selections" scope="roster" childId="u-legion" shared="true" includeChildSelections="true"/>'
            "</conditions></modifier></modifiers></profile></profiles>")
    unit = ('<selectionEntry type="unit" import="true" name="Ash Hounds" hidden="false" id="u-hounds">'
            f'<costs><cost name="pts" typeId="ct-pts" value="70"/></costs>{cowl}<selectionEntries>'
            f'{_kind("Ash Hound", 5, 5, gun="ash gun")}</selectionEntries></selectionEntry>'
            '<selectionEntry type="upgrade" import="true" name="Ash Legion" hidden="false" id="u-legion"/>')
    _index_priced(tmp_path, monkeypatch, unit)
    [ability] = [a for a in by_name.datasheet("Ash Hounds").read_rules if a.name == "Cowl of Ash"]
    assert [(r.rule.summary, r.needs) for r in ability.readings] == [("+1 to hit", "in an army with Ash Legion")]


def test_an_invulnerable_save_written_on_one_kind_of_model_is_that_kinds(tmp_path, monkeypatch):
    # a trial found Makari with Ghazghkull's 4+ (written 'This model has a 4+ invulnerable save' on Ghazghkull's
    # entry), not his own 2+: an 'Invulnerable Save' ability was taken for the whole unit's
    def kind(name: str, save: int) -> str:
        ability = (f'<profile name="Invulnerable Save ({save}+)" typeId="pt-abilities" typeName="Abilities" '
                   f'hidden="false" id="p-inv-{save}"><characteristics><characteristic name="Description" '
                   f'typeId="ch-desc">This model has a {save}+ invulnerable save.</characteristic></characteristics>'
                   "</profile>")
        return _kind(name, 1, 1).replace("</profile></profiles>", f"</profile>{ability}</profiles>", 1)
    unit = ('<selectionEntry type="unit" import="true" name="Big Boss" hidden="false" id="u-boss">'
            '<costs><cost name="pts" typeId="ct-pts" value="235"/></costs><selectionEntries>'
            f'{kind("Big Boss", 4)}{kind("Banner Grot", 2)}</selectionEntries></selectionEntry>')
    _index_priced(tmp_path, monkeypatch, unit)
    boss = by_name.datasheet("Big Boss")
    assert {m.name: m.profile.invulnerable for m in boss.models} == {"Big Boss": 4, "Banner Grot": 2}


def test_a_character_without_a_leader_ability_leads_no_unit(indexed):
    # a trial found a Knight Paladin's guns fired with Termagants, a Spiritseer leading Wraithguard and Angron
    # among Termagants: a CHARACTER whose datasheet has no Leader ability had been let lead any unit
    captain, wardens = by_name.datasheet("Warden Captain"), by_name.datasheet("Gravel Wardens")
    assert by_name.leading_problem(captain, wardens) is None
    lone = attrs.evolve(captain, leader_of=(), abilities=tuple(a for a in captain.abilities if a != "Leader"))
    assert by_name.leading_problem(lone, wardens) == (
        "Warden Captain has no Leader ability: it leads no unit, Gravel Wardens nor any other")
    unread = attrs.evolve(captain, leader_of=())  # a Leader ability whose units could not be read: not refused
    assert by_name.leading_problem(unread, wardens) is None
    # nor a standard target's Leader (a review found Angron leading MEQ)
    assert by_name.leading_problem(lone, None) == "Warden Captain has no Leader ability: it leads no unit"
    assert by_name.leading_problem(captain, None) is None


def test_without_an_index_names_are_unknown_as_before(data_dir):
    with pytest.raises(MathhammerError, match="unknown datasheet 'Gravel Wardens'"):
        by_name.datasheet("Gravel Wardens")


# --------------------------------------------------------------------- never clobber, always atomic
def test_a_file_the_program_did_not_write_is_never_replaced(data_dir):
    data_dir.mkdir()
    foreign = data_dir / index.FILENAME
    foreign.write_text("my notes")
    out = run("data", "add", str(CHECKOUT))
    assert out.exit_code == 2 and "was not written by mathhammer" in out.output
    assert foreign.read_text() == "my notes"
    assert run("data", "remove").exit_code == 2 and foreign.read_text() == "my notes"


def test_a_failed_rebuild_keeps_the_old_index(indexed):
    path = indexed / index.FILENAME
    before = path.read_bytes()

    def rows():
        yield index.row({"name": "Half", "faction": "x"})
        raise MathhammerError("interrupted")

    with pytest.raises(MathhammerError):
        index.write_index(rows(), {"edition": "10e"})
    assert path.read_bytes() == before
    assert sorted(os.listdir(indexed)) == [index.FILENAME]


def test_an_index_from_another_version_asks_for_a_rebuild(indexed):
    path = indexed / index.FILENAME
    with sqlite3.connect(path) as db:
        db.execute("update meta set value = 'mathhammer_exact BSData index 0' where key = 'format'")
    db.close()
    with pytest.raises(MathhammerError, match="another version"):
        by_name.datasheet("Gravel Wardens")


# --------------------------------------------------------------------- the commands
def test_data_commands(data_dir):
    assert "no index yet" in run("data", "list").output
    out = run("data", "add", str(CHECKOUT))
    assert out.exit_code == 0, out.output
    assert "indexed 4 units of the 10th edition from 4 files" in out.output
    assert "weapon profiles: 11 found, 10 parsed, 1 not readable yet" in out.output
    assert "profiles left out, by reason: 'S*': this Strength is given elsewhere on the datasheet (1)" in out.output
    assert "rules not modelled (reported when used), by profiles: Zapblast (1)" in out.output
    listed = run("data", "list").output
    assert listed.startswith(f"10th edition: 4 units from {CHECKOUT.resolve()}")
    assert run("data", "remove").exit_code == 0
    assert not (data_dir / index.FILENAME).exists()


def test_unit_show_and_search_commands(indexed):
    out = run("unit", "Scree Walker", "--target", "gravel wardens", "--target-models", "5")
    assert out.exit_code == 0, out.output
    lines = out.output.splitlines()
    assert lines[0] == "Scree Walker (Gravel Host)  ->  Gravel Wardens (Gravel Host)"
    assert lines[1].startswith("  1 x Gravel flail (fling): Range 12\"") and "Torrent" in lines[1]
    assert lines[2].startswith("  2 x Twin gravel cannon: Range 36\"") and "Twin-linked" in lines[2]
    assert run("unit", "Warden Captain", "--target", "MEQ", "--advanced").output.startswith(
        "error: Warden Captain: no ASSAULT weapons after Advancing to attack with (weapon Mirror lance left out")
    captain = run("unit", "Warden Captain", "--target", "MEQ").output.splitlines()
    assert captain[1].startswith("  1 x Shard pistol: ") and captain[1].endswith(" | ignored: Zapblast")
    assert captain[3:5] == [  # its own defences are said where it is the target, not when it attacks
        "  note: weapon Mirror lance left out: 'S*': this Strength is given elsewhere on the datasheet",
        "  rules: 10th edition, current printing"]
    assert ("  target note (Warden Captain): invulnerable save 4+ inferred from the text of 'Stone Skin'"
            in run("unit", "Warden Captain", "--target", "Warden Captain").output.splitlines())
    assert run("datasheets").output.splitlines()[-1] == ("Your indexed BSData units: 4 of the 10th edition (find "
                                                          "them with --search TEXT)")
    card = run("show", "Warden Captain").output
    assert "Leader of: Gravel Wardens" in card and "Note: invulnerable save 4+ inferred" in card
    # the unit of the name typed first (a plural for a singular), then those whose names start so, then the rest
    assert run("datasheets", "--search", "warden").output.splitlines() == [
        "Warden Captain (Gravel Host)", "Gravel Wardens (Gravel Host)"]
    assert run("datasheets", "--search", "gravel wardens").output.splitlines() == [  # 'gravel': the faction's
        "Gravel Wardens (Gravel Host)", "Warden Captain (Gravel Host)"]
    assert run("datasheets", "--search", "gravel host captain").output.splitlines() == ["Warden Captain (Gravel Host)"]
    assert library.search("wardens")[0] == ("Gravel Wardens", "Gravel Host", {5: 90, 10: 180})


@pytest.mark.parametrize(("content", "message"), [
    (b"not xml at all", "not a readable BattleScribe XML file"),
    (b'<?xml version="1.0"?><catalogue xmlns="http://www.battlescribe.net/schema/catalogueSchema" '
     b'battleScribeVersion="2.03"><sharedSelectionEntries>', "not a readable BattleScribe XML file"),  # truncated
    (b'<catalogue xmlns="http://www.battlescribe.net/schema/catalogueSchema" battleScribeVersion="3.1"/>',
     "unknown BattleScribe schema version '3.1'"),
    (b'<html xmlns="http://www.w3.org/1999/xhtml"/>', "not a BattleScribe catalogue file"),
])
def test_a_bad_catalogue_file_is_named(tmp_path, data_dir, content, message):
    checkout = tmp_path / "checkout"
    checkout.mkdir()
    (checkout / "game.gst").write_bytes((CHECKOUT / "Test System.gst").read_bytes())
    (checkout / "broken.cat").write_bytes(content)
    out = run("data", "add", str(checkout))
    assert out.exit_code == 2
    assert out.output.strip().splitlines()[-1].startswith(f"error: {checkout / 'broken.cat'}: {message}")


def test_a_folder_that_is_not_a_checkout(tmp_path, data_dir):
    out = run("data", "add", str(tmp_path))
    assert out.exit_code == 2
    assert out.output.strip().endswith(f"error: {tmp_path}: no game system file here (a .gst, or .json files as "
                                       "BSData/wh40k-11e writes them; is this a BSData checkout?)")


def test_a_file_given_for_the_checkout(data_dir):
    out = run("data", "add", str(CHECKOUT / "Test System.gst"))
    assert out.exit_code == 2
    assert out.output.strip().endswith(f"error: {CHECKOUT / 'Test System.gst'}: not a folder (give the path of a "
                                       "BSData checkout)")


@pytest.mark.parametrize("kind", ["device", "fifo"])
def test_a_catalogue_that_is_not_a_regular_file_refuses_the_whole_add(tmp_path, indexed, kind):
    # a link to /dev/zero would be read for ever, a pipe waited on for ever: both are named at once,
    # nothing is indexed from the checkout, and the index already there is kept
    checkout = tmp_path / "checkout"
    checkout.mkdir()
    for part in CHECKOUT.iterdir():
        (checkout / part.name).write_bytes(part.read_bytes())
    evil = checkout / "evil.cat"
    if kind == "device":
        evil.symlink_to("/dev/zero")
    else:
        os.mkfifo(evil)
    before = index.index_path().read_bytes()
    out = run("data", "add", str(checkout))
    assert out.exit_code == 2
    assert out.output.strip().splitlines()[-1] == (f"error: {evil}: not a regular file (a device, pipe or socket); "
                                                   "give a file")
    assert index.index_path().read_bytes() == before


@pytest.mark.parametrize("folder", ["my#data", "my?data", "what?#%20 data"])
def test_a_data_directory_with_uri_characters_in_its_name(tmp_path, monkeypatch, folder):
    # the index is opened through a file: URI; unquoted, '#' or '?' would end the path there and SQLite
    # would open (and create) a file named by its first part
    home = tmp_path / "home"
    data = home / folder
    monkeypatch.setenv(index.ENVIRONMENT, str(data))
    build.add_checkout(CHECKOUT)
    assert run("data", "list").output.splitlines()[1] == f"index: {data / index.FILENAME}"
    assert run("show", "Warden Captain").exit_code == 0
    build.add_checkout(CHECKOUT)  # replacing it checks first that the file there is ours
    assert sorted(p.relative_to(home).as_posix() for p in home.rglob("*")) == [folder, f"{folder}/{index.FILENAME}"]
    assert run("data", "remove").exit_code == 0
    assert list(home.rglob("*")) == [data]


def test_a_search_that_finds_nothing_says_so(indexed):
    # nothing found is an answer, not an error (exit 0), but it is said, with the nearest name if one is close
    out = run("datasheets", "--search", "zzz")
    assert (out.exit_code, out.output) == (0, "no unit's name has every word of 'zzz'\n")
    out = run("datasheets", "--search", "warden captian")  # an indexed unit, misspelt
    assert (out.exit_code, out.output) == (0, "no unit's name has every word of 'warden captian' (did you mean "
                                              "'Warden Captain'?)\n")
    assert run("datasheets", "--search", "incursr squad").output.endswith("(did you mean 'Incursor Squad'?)\n")


def test_a_target_read_at_run_time_says_what_was_inferred(indexed):
    # The fixture's Scree Walker has its Feel No Pain from the text of 'Packed Gravel': the note appears in
    # the header when it is the target, as when it attacks.
    expected = ["  target note (Scree Walker): Feel No Pain 5+ against mortal wounds inferred from the text of "
                "'Packed Gravel'"]
    for command in (["attack", "-w", "A1 BS3+ S4 AP0 D1"], ["unit", "Gravel Wardens"]):
        out = run(*command, "--target", "Scree Walker")
        assert out.exit_code == 0, out.output
        assert out.output.splitlines()[0].endswith("  ->  Scree Walker (Gravel Host)")
        assert [line for line in out.output.splitlines() if "target note" in line] == expected
    assert by_name.target_unit("MEQ").notes == () and by_name.target_unit("T4 Sv3+ W2 x5").notes == ()


_BUNDLES = """<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<catalogue xmlns="http://www.battlescribe.net/schema/catalogueSchema" id="cat-b" name="Test - Bundle Host" revision="1"
 battleScribeVersion="2.03" library="false" gameSystemId="sys-test" gameSystemRevision="1" type="catalogue">
  <sharedSelectionEntries>
    <selectionEntry type="unit" import="true" name="Cairn Troop" hidden="false" id="se-troop">
      <categoryLinks><categoryLink targetId="cat-inf" id="cl-1" primary="true" name="Infantry"/></categoryLinks>
      <selectionEntryGroups>
        <selectionEntryGroup name="Unit Composition" hidden="false" id="seg-comp" defaultSelectionEntryId="se-small">
          <selectionEntries>
            <selectionEntry type="upgrade" import="true" name="1 Cairn Leader and 4 Cairners" id="se-small">
              <selectionEntries>%s</selectionEntries>
            </selectionEntry>
            <selectionEntry type="upgrade" import="true" name="2 Cairn Leaders and 8 Cairners" id="se-big">
              <selectionEntries>%s</selectionEntries>
            </selectionEntry>
          </selectionEntries>
        </selectionEntryGroup>
      </selectionEntryGroups>
    </selectionEntry>
  </sharedSelectionEntries>
</catalogue>"""


def _bundle_models(tag: str, leaders: int, others: int) -> str:
    stats = "".join(f'<characteristic name="{k}" typeId="ch-{k}">{v}</characteristic>'
                    for k, v in (("M", '6"'), ("T", "4"), ("SV", "4+"), ("W", "1"), ("LD", "7+"), ("OC", "2")))
    return "".join(
        f'<selectionEntry type="model" import="true" name="{name}" hidden="false" id="se-{tag}-{i}"><constraints>'
        f'<constraint type="min" value="{n}" field="selections" scope="parent" shared="true" id="c-{tag}-{i}-min"/>'
        f'<constraint type="max" value="{n}" field="selections" scope="parent" shared="true" id="c-{tag}-{i}-max"/>'
        f'</constraints><profiles><profile name="{name}" typeId="pt-unit" typeName="Unit" hidden="false" '
        f'id="p-{tag}-{i}"><characteristics>{stats}</characteristics></profile></profiles></selectionEntry>'
        for i, (name, n) in enumerate((("Cairn Leader", leaders), ("Cairner", others))))


def _bundle_troop(tmp_path, monkeypatch, big: str):
    checkout = tmp_path / "checkout"
    checkout.mkdir()
    gst = Path(__file__).parent / "fixtures" / "bsdata_abilities" / "Test System.gst"
    (checkout / gst.name).write_bytes(gst.read_bytes())
    text = _BUNDLES.replace("2 Cairn Leaders and 8 Cairners", big)
    (checkout / "Test - Bundle Host.cat").write_text(
        text % (_bundle_models("s", 1, 4), _bundle_models("b", 2, 8)), encoding="utf-8")
    monkeypatch.setenv(index.ENVIRONMENT, str(tmp_path / "data"))
    build.add_checkout(checkout)
    return by_name.datasheet("Cairn Troop")


def test_each_composition_bundle_is_a_size_of_the_unit(tmp_path, monkeypatch):
    # two bundles whose names count their models: 1 + 4 and 2 + 8, so units of 5 and of 10
    sheet = _bundle_troop(tmp_path, monkeypatch, "2 Cairn Leaders and 8 Cairners")
    assert sheet.allowed_sizes() == (5, 10)
    assert sheet.counts(10) == {"Cairn Leader": 2, "Cairner": 8}
    assert not any("not read" in note or "also offered" in note for note in sheet.notes)


def test_a_composition_bundle_not_read_is_not_offered(tmp_path, monkeypatch):
    # a bundle whose name counts 11 models where it holds 10: its size is said not to be read, and not offered
    sheet = _bundle_troop(tmp_path, monkeypatch, "2 Cairn Leaders and 9 Cairners")
    assert sheet.allowed_sizes() == (5,)
    assert ("unit composition '1 Cairn Leader and 4 Cairners' read; not read, so its sizes cannot be asked for: "
            "'2 Cairn Leaders and 9 Cairners'") in sheet.notes
    assert not any("also offered" in note for note in sheet.notes)


_PRICED = """<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<catalogue xmlns="http://www.battlescribe.net/schema/catalogueSchema" id="cat-p" name="Test - Priced Host" revision="1"
 battleScribeVersion="2.03" library="false" gameSystemId="sys-test" gameSystemRevision="1" type="catalogue">
  <sharedSelectionEntries>%s</sharedSelectionEntries>
</catalogue>"""


def _index_priced(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, units: str) -> None:
    """Index a checkout of the test game system and one catalogue (`_PRICED`) holding `units`, into tmp_path."""
    checkout = tmp_path / "checkout"
    checkout.mkdir()
    gst = Path(__file__).parent / "fixtures" / "bsdata_abilities" / "Test System.gst"
    (checkout / gst.name).write_bytes(gst.read_bytes())
    (checkout / "Test - Priced Host.cat").write_text(_PRICED % units, encoding="utf-8")
    monkeypatch.setenv(index.ENVIRONMENT, str(tmp_path / "data"))
    build.add_checkout(checkout)


def _priced_unit(name: str, most: int, unit_cost: int, model_cost: int, modifiers: str, extra: str = "",
                 least: int = 1, groups: str = "", abilities: str = "") -> str:
    """A unit of `least` to `most` models of one kind, the unit and each model costing so much, with `modifiers`
    of its points (field ct-pts), modifier `groups`, `extra` entries (an upgrade a condition may count) and the
    unit's `abilities` (texts)."""
    stats = "".join(f'<characteristic name="{k}" typeId="ch-{k}">{v}</characteristic>'
                    for k, v in (("M", '6"'), ("T", "6"), ("SV", "3+"), ("W", "5"), ("LD", "7+"), ("OC", "1")))
    tag = name.split()[0].lower()
    return (f'<selectionEntry type="unit" import="true" name="{name}" hidden="false" id="se-{tag}">'
            f'<costs><cost name="pts" typeId="ct-pts" value="{unit_cost}"/></costs>'
            f"<modifiers>{modifiers}</modifiers>{groups}<profiles>"
            + "".join(f'<profile name="Gift {n}" typeId="pt-abilities" typeName="Abilities" hidden="false" '
                      f'id="p-{tag}-a{n}"><characteristics><characteristic name="Description" typeId="ch-desc">{text}'
                      "</characteristic></characteristics></profile>" for n, text in enumerate(abilities.split("|"))
                      if text)
            + "</profiles><selectionEntries>"
            f'<selectionEntry type="model" import="true" name="{name[:-1]}" hidden="false" id="se-{tag}-model">'
            f'<constraints><constraint type="min" value="{least}" field="selections" scope="parent" shared="true" '
            f'id="c-{tag}-min"/><constraint type="max" value="{most}" field="selections" scope="parent" '
            f'shared="true" id="c-{tag}-max"/></constraints><profiles><profile name="{name[:-1]}" typeId="pt-unit" '
            f'typeName="Unit" hidden="false" id="p-{tag}"><characteristics>{stats}</characteristics></profile>'
            f'</profiles><costs><cost name="pts" typeId="ct-pts" value="{model_cost}"/></costs></selectionEntry>'
            f"{extra}</selectionEntries></selectionEntry>")


def _set(value: int, conditions: str) -> str:
    return f'<modifier type="set" value="{value}" field="ct-pts">{conditions}</modifier>'


def _models(kind: str, value: int, child: str = "model") -> str:
    return f'<condition type="{kind}" value="{value}" field="selections" scope="self" childId="{child}" shared="true"/>'


def test_points_at_each_size_the_catalogue_prices(tmp_path, monkeypatch):
    # a trial found units of 1-3 models priced and sized wrong: 'exactly 2 models' was not read (Broadsides: a
    # unit of 1 refused, 2 priced as 1), nor a price per model where the unit has none (Mek Gunz: 0 points), nor a
    # price whose condition also counts an upgrade (Windriders: 160 at every size)
    exactly = _set(70, f"<conditions>{_models('equalTo', 2)}</conditions>") \
        + _set(105, f"<conditions>{_models('atLeast', 3)}</conditions>")
    upgrade = ('<selectionEntry type="upgrade" import="true" name="Council" hidden="false" id="se-council">'
               '<constraints><constraint type="max" value="1" field="selections" scope="parent" shared="true" '
               'id="c-council"/></constraints></selectionEntry>')
    either = _set(160, '<conditionGroups><conditionGroup type="or"><conditionGroups>'
                       f'<conditionGroup type="and"><conditions>{_models("greaterThan", 3)}'
                       f'{_models("lessThan", 1, "se-council")}</conditions></conditionGroup>'
                       f'<conditionGroup type="and"><conditions>{_models("greaterThan", 4)}'
                       f'{_models("atLeast", 1, "se-council")}</conditions></conditionGroup>'
                       "</conditionGroups></conditionGroup></conditionGroups>")
    # 'increment 70' above 4 and above 8 models (Tactical Drones), and one in a form not read (the 11th edition's
    # second copy of a unit, 'localConditionGroups'): not applied to the one unit asked about
    more = ''.join(f'<modifier type="increment" value="70" field="ct-pts"><conditions>{_models("greaterThan", n)}'
                   "</conditions></modifier>" for n in (4, 8))
    more += ('<modifier type="increment" value="15" field="ct-pts"><conditionGroups><conditionGroup type="and">'
             '<localConditionGroups><localConditionGroup type="atLeast" value="2"/></localConditionGroups>'
             "</conditionGroup></conditionGroups></modifier>")
    # prices in modifier groups, one with a condition of its own (a trial found Witchseekers of 10 priced as 4)
    five, above = (_set(value, f"<conditions>{_models(kind, 5)}</conditions>")
                   for value, kind in ((55, "atLeast"), (90, "greaterThan")))
    grouped = (f"<modifierGroups><modifierGroup><modifiers>{five}{above}</modifiers></modifierGroup>"
               f"<modifierGroup><conditions>{_models('atLeast', 10)}</conditions><modifiers>{_set(100, '')}"
               "</modifiers></modifierGroup></modifierGroups>")
    units = [_priced_unit("Cinder Beasts", 3, 40, 0, exactly), _priced_unit("Scree Guns", 3, 0, 50, ""),
             _priced_unit("Dust Riders", 6, 80, 0, either, upgrade, least=3),
             _priced_unit("Gravel Drones", 12, 70, 0, more, least=4),
             _priced_unit("Ash Seekers", 10, 45, 0, "", least=4, groups=grouped,
                          abilities="Invented: this model has the Feel No Pain 4+ ability against mortal wounds."),
             _priced_unit("Ember Guards", 10, 45, 0, "", least=5,
                          abilities="Invented: the bearer has a 4+ invulnerable save.")]
    _index_priced(tmp_path, monkeypatch, "".join(units))
    beasts, guns, riders = (by_name.datasheet(n) for n in ("Cinder Beasts", "Scree Guns", "Dust Riders"))
    assert (beasts.allowed_sizes(), beasts.points) == ((1, 2, 3), {1: 40, 2: 70, 3: 105})
    assert (guns.allowed_sizes(), guns.points) == ((1, 2, 3), {1: 50, 2: 100, 3: 150})
    assert (riders.allowed_sizes(), riders.points) == ((3, 6), {3: 80, 6: 160})  # the Council not taken
    drones = by_name.datasheet("Gravel Drones")
    assert (drones.allowed_sizes(), drones.points) == ((4, 8, 12), {4: 70, 8: 140, 12: 210})
    seekers = by_name.datasheet("Ash Seekers")
    assert (seekers.allowed_sizes(), seekers.points) == ((4, 5, 9, 10), {4: 45, 5: 55, 9: 90, 10: 100})
    # the datasheet's "this model" is each of its models (a trial found Witchseekers without Daughter of the Abyss);
    # "the bearer" on the unit is one model's that the datasheet does not name: noted, not applied
    assert [(p.feel_no_pain_mortal, n) for p, n in seekers.as_target(10).groups] == [(4, 10)]
    guards = by_name.datasheet("Ember Guards")
    assert [p.invulnerable for p, _ in guards.as_target().groups] == [None]
    assert guards.defence_notes == ("invulnerable 4+ in 'Gift 0' is for one model (its bearer), which the datasheet "
                                    "does not name: not applied",)


def _fighter(**changes):
    """A one-model unit record with a melee weapon A2 WS3+ S4 AP0 D1 (the index's schema)."""
    choppa = {"profile": "default", "melee": True,
              "chars": {"Range": "Melee", "A": "2", "WS": "3+", "S": "4", "AP": "0", "D": "1"}}
    record = _record(weapons={"Choppa": [choppa]}, **changes)
    record["models"] = [{**record["models"][0], "equipment": ["Choppa"]}]
    return to_datasheet(record)


def test_a_condition_on_the_units_own_models_is_settled_by_them():
    # a trial found a Scarab Occult Sorcerer's PSYKER keyword (written on the model, not the unit) lost, and Rites of
    # Coalescence ('while this unit contains one or more PSYKER models': -1 to wound) waiting for --with
    text = ("Invented. While this unit contains one or more PSYKER models, each time an attack targets this unit, "
            "subtract 1 from the Wound roll.")
    stats = {"M": '6"', "T": "4", "SV": "3+", "W": "2", "LD": "6+", "OC": "1"}

    def unit(seers: int) -> Datasheet:
        return to_datasheet(_record(
            abilities=["Seer Ward"], ability_texts=[["Seer Ward", text, ""]],
            models=[{"name": "Pebble", "min": 4, "max": 4, "options": [], "equipment": [], "stats": stats},
                    {"name": "Pebble Seer", "min": seers, "max": 1, "options": [], "equipment": [], "stats": stats,
                     "keywords": ["PSYKER"]}], sizes=[5]))
    always, optional = unit(1), unit(0)
    assert [m.profile.keywords for m in always.models] == [("INFANTRY",), ("INFANTRY", "PSYKER")]
    assert [r.needs for a in always.read_rules for r in a.readings] == [""]  # every such unit holds its Seer
    assert [r.needs for a in optional.read_rules for r in a.readings] == [
        "while this unit contains one or more PSYKER models"]  # one it may leave out: for --with


def test_an_ability_of_wargear_a_loadout_takes_is_in_force_only_with_it():
    # a trial found an omnispex ('the bearer's unit's ranged weapons have the IGNORES COVER ability', written without
    # brackets) accepted by --loadout and changing nothing: its text was not read, and an ability of a kind of model
    # was in force whether or not the loadout made one
    from mathhammer_exact.decide.unit_attack import unit_attack
    rifle = {"profile": "default", "melee": False,
             "chars": {"Range": "24", "A": "1", "BS": "3+", "S": "4", "AP": "-1", "D": "1"}}
    scope = "Ranged weapons equipped by models in the bearer's unit have the IGNORES COVER ability."
    stats = {"M": '6"', "T": "4", "SV": "3+", "W": "1", "LD": "6+", "OC": "1"}
    kinds = [{"name": "Pebble", "min": 4, "max": 5, "options": [], "equipment": ["Rifle"], "stats": stats,
              "default": True},
             {"name": "Pebble w/ scope", "min": 0, "max": 1, "options": [], "equipment": ["Rifle", "Scope"],
              "stats": stats}]
    swap = [{"name": "Pebble", "min": 5, "max": 5, "equipment": ["Rifle"], "stats": stats,
             "options": [{"replaces": ["Rifle"], "with": ["Sighted rifle"], "gives": {}}]}]
    sighted = {**rifle, "chars": {**rifle["chars"]}}
    for record, taken in ((_record(models=kinds, weapons={"Rifle": [rifle]}, sizes=[5], abilities=["Scope"],
                                   ability_texts=[["Scope", scope, "Pebble w/ scope"]]), "scope"),
                          (_record(models=swap, weapons={"Rifle": [rifle], "Sighted rifle": [sighted]}, sizes=[5],
                                   wargear_abilities={"Sighted rifle": [["Sighter", scope, "Pebble"]]}),
                           "sighted rifle")):
        sheet = to_datasheet(record)
        # 5 shots hit on 3+ (2/3), wound T4 on 4+ (1/2); Sv3+ at AP-1 in cover 3+ (1/3 fails), without cover 4+ (1/2)
        plain = unit_attack(sheet, Target.parse("T4 Sv3+ W1 x10"), context=Context(cover=True), exact=True)
        assert plain.result.damage.mean == 5 * Fraction(2, 3) * Fraction(1, 2) * Fraction(1, 3)
        given = unit_attack(sheet, Target.parse("T4 Sv3+ W1 x10"), [taken], context=Context(cover=True), exact=True)
        assert given.result.damage.mean == 5 * Fraction(2, 3) * Fraction(1, 2) * Fraction(1, 2), taken
        assert any("(read from its text): weapons gain IGNORES COVER" in line for line in given.situation)
    assert "not applied: Scope is a Pebble w/ scope model's, and the unit has none here" in \
        unit_attack(to_datasheet(_record(models=kinds, weapons={"Rifle": [rifle]}, sizes=[5], abilities=["Scope"],
                                         ability_texts=[["Scope", scope, "Pebble w/ scope"]])),
                    Target.parse("T4 Sv3+ W1 x10")).situation


def test_a_weapon_the_unit_has_only_when_stationary_fires_only_then():
    # a trial found a Strike Team's support turret fired whatever the unit did ('if this unit Remains Stationary,
    # ... its Shas'ui model is equipped with the support turret weapon'): 1.309 where it moved, for 1.111
    from mathhammer_exact.decide.unit_attack import unit_attack
    gun = {"profile": "default", "melee": False,
           "chars": {"Range": "24", "A": "1", "BS": "3+", "S": "4", "AP": "0", "D": "1"}}
    text = ("In your Movement phase, if this unit Remains Stationary, until the start of your next turn, its Pebble "
            "model is equipped with the rock turret weapon.")
    record = _record(weapons={"Rifle": [gun], "Rock turret": [gun]}, abilities=["Rock Turret"],
                     ability_texts=[["Rock Turret", text, ""]], keywords=["VEHICLE"])
    record["models"] = [{**record["models"][0], "equipment": ["Rifle", "Rock turret"]}]
    sheet = to_datasheet(record)
    assert sheet.stationary_only == ("rock turret",)
    moved = unit_attack(sheet, Target.parse("T4 Sv7+ W1 x5"), exact=True)
    assert [f.weapon.name for f in moved.firings] == ["Rifle"]  # one shot: 2/3 x 1/2 = 1/3
    assert moved.result.damage.mean == Fraction(1, 3)
    assert "not fired: rock turret (the unit's only if it Remained Stationary: --stationary)" in moved.situation
    still = unit_attack(sheet, Target.parse("T4 Sv7+ W1 x5"), context=Context(stationary=True), exact=True)
    assert still.result.damage.mean == 2 * Fraction(1, 3)


def test_at_a_target_it_cannot_see_only_indirect_fire_weapons_shoot():
    # a trial found a Basilisk's heavy bolter fired at a target not visible (--indirect), beside its Earthshaker
    from mathhammer_exact.decide.unit_attack import unit_attack
    mortar = {"profile": "default", "melee": False, "chars": {"Range": "48", "A": "1", "BS": "4+", "S": "6", "AP": "0",
                                                              "D": "1", "Keywords": "Indirect Fire"}}
    stubber = {"profile": "default", "melee": False,
               "chars": {"Range": "36", "A": "3", "BS": "4+", "S": "4", "AP": "0", "D": "1"}}
    record = _record(weapons={"Pebble mortar": [mortar], "Stubber": [stubber]}, keywords=["VEHICLE"])
    record["models"] = [{**record["models"][0], "equipment": ["Pebble mortar", "Stubber"]}]
    sheet = to_datasheet(record)
    answer = unit_attack(sheet, Target.parse("T4 Sv7+ W1 x5"), context=Context(indirect=True), exact=True)
    # the mortar alone: hit rolls of 1-3 fail (4+ hits 1/2), S6 v T4 wounds on 3+ (2/3), and the target has the
    # Benefit of Cover, so its Sv7+ saves on a 6 (5/6 unsaved): 1/2 x 2/3 x 5/6 = 5/18
    assert [f.weapon.name for f in answer.firings] == ["Pebble mortar"]
    assert answer.result.damage.mean == Fraction(5, 18)
    assert "not fired: Stubber (no INDIRECT FIRE: at a target it cannot see)" in answer.situation
    # a Leader with nothing it may fire here leaves its unit to shoot (a review found the whole question refused)
    chief = _record(name="Chief", weapons={"Stubber": [stubber]}, keywords=["INFANTRY", "CHARACTER"],
                    leader_of=["Pebble"])
    chief["models"] = [{**chief["models"][0], "name": "Chief", "equipment": ["Stubber"]}]
    led = unit_attack(sheet, Target.parse("T4 Sv7+ W1 x5"), context=Context(indirect=True), exact=True,
                      led_by=to_datasheet(chief))
    assert led.result.damage.mean == Fraction(5, 18)
    assert "led by Chief (Test): it attacks with nothing here (Chief: no INDIRECT FIRE weapons, at a target it " \
           "cannot see, to attack with)" in led.situation
    # the stubber asked for on its own: refused with the reason, as a non-ASSAULT weapon after Advancing is
    with pytest.raises(MathhammerError, match="only INDIRECT FIRE weapons can shoot a target that is not visible"):
        attack(sheet.weapons["stubber"]["default"], Target.parse("T4 Sv7+ W1"), context=Context(indirect=True))


def test_an_army_rule_listed_by_name_is_named_and_applied_with_with():
    from mathhammer_exact.data.datasheet import TargetUnit
    from mathhammer_exact.decide.unit_attack import unit_attack
    boy = _fighter(abilities=["Waaagh!"])
    soft = Target.parse("T4 Sv6+ W10")
    # without it: 2 attacks x 2/3 hit x 1/2 wound (S4 v T4) x 5/6 unsaved = 5/9, and the header names the option
    plain = unit_attack(boy, soft, melee=True, exact=True)
    assert plain.result.damage.mean == Fraction(5, 9)
    assert "not applied: Waaagh!: +1 Attacks, +1 Strength (melee weapons), applies only when the Waaagh! is active; " \
           "--with 'Waaagh!' assumes it" in plain.situation  # which of its parts (the other is its models' save)
    # with it: 3 attacks x 2/3 x 2/3 (S5 v T4: 3+) x 5/6 = 10/9
    assert unit_attack(boy, soft, melee=True, modifiers=["Waaagh!"], exact=True).result.damage.mean == Fraction(10, 9)
    # the target's side (Sv3+, at AP-3 a 6+): 1 x 2/3 x 1/2 x 5/6 = 5/18; with a 5+ invulnerable save x 4/6 = 2/9
    piercer = _fighter()
    piercer = attrs.evolve(piercer, weapons={"choppa": {"default": Weapon.parse("A1 WS3+ S4 AP-3 D1",
                                                                                  name="Choppa")}})
    led = TargetUnit(boy.as_target(), "Pebble", boy)
    assert unit_attack(piercer, led, melee=True, exact=True).result.damage.mean == Fraction(5, 18)
    assert unit_attack(piercer, led, melee=True, modifiers=["Waaagh!"],
                       exact=True).result.damage.mean == Fraction(2, 9)
    with pytest.raises(MathhammerError, match="this part of it is for attacks against one: the target does not list"):
        unit_attack(piercer, soft, melee=True, modifiers=["waaagh-invulnerable"])
    # its key, where the target lists it, is its name (a trial found it refused as listed by neither unit)
    assert unit_attack(piercer, led, melee=True, modifiers=["waaagh-invulnerable"],
                       exact=True).result.damage.mean == Fraction(2, 9)
    with pytest.raises(MathhammerError, match="this part of it is for attacks against one: the target does not list"):
        unit_attack(boy, soft, melee=True, modifiers=["waaagh-invulnerable"])  # the attacker's, not the target's
    # both units list it: its key names one side's part (a review: each player calls a Waaagh! of their own). The
    # attacker's alone: 3 attacks, each through with 2/3 x 2/3 (S5 v T4) x 1/3 (Sv3+ at AP0) = 4/27, at one W2 model:
    # E[min(X, 2)] = P(X >= 1) + P(X >= 2) for X ~ Binomial(3, 4/27)
    p = Fraction(4, 27)
    at_least_two = 3 * p**2 * (1 - p) + p**3
    melee = unit_attack(boy, led, melee=True, modifiers=["waaagh-melee"], exact=True)
    assert melee.result.damage.mean == 1 - (1 - p) ** 3 + at_least_two == Fraction(8684, 19683)
    assert not any(line.startswith("target has Waaagh!") for line in melee.situation)
    # the target's alone: 2 attacks of S4 (2/3 x 1/2 x 1/3 each), its 5+ invulnerable save no better than its 3+
    guarded = unit_attack(boy, led, melee=True, modifiers=["waaagh-invulnerable"], exact=True)
    assert guarded.result.damage.mean == 2 * Fraction(2, 3) * Fraction(1, 2) * Fraction(1, 3)
    assert any(line.startswith("target has Waaagh!") for line in guarded.situation)
    assert not any(line.startswith("attacker has Waaagh!") for line in guarded.situation)


def test_an_army_rule_of_an_attached_unit_is_applied_once():
    """A Leader and its bodyguards both list the army rule: --with applies it to the Attached unit, once (the trial
    found it refused as "the leader's own" whenever a Leader was attached, on either side)."""
    from mathhammer_exact.data.datasheet import TargetUnit
    from mathhammer_exact.decide.unit_attack import unit_attack
    boy = _fighter(abilities=["Waaagh!"])
    boss = _fighter(name="Boss", abilities=["Waaagh!", "Leader"], keywords=["INFANTRY", "CHARACTER"])
    soft = Target.parse("T4 Sv6+ W10")
    # each model: 3 attacks x 2/3 hit x 2/3 wound (S5 v T4) x 5/6 unsaved = 10/9; twice (A4, S6) would be 40/27
    led = unit_attack(boy, soft, melee=True, modifiers=["Waaagh!"], led_by=boss, exact=True)
    assert led.result.damage.mean == Fraction(20, 9)
    assert not any("leader's own" in line for line in led.situation)
    assert sum("has Waaagh!" in line for line in led.situation) == 1
    # the target's side: a 5+ invulnerable save for the Attached unit against AP-3 (1 x 2/3 x 1/2 x 4/6 = 2/9)
    piercer = attrs.evolve(_fighter(), weapons={"choppa": {"default": Weapon.parse("A1 WS3+ S4 AP-3 D1",
                                                                                     name="Choppa")}})
    target = Target(boy.as_target().groups + boss.as_target().groups)
    both = TargetUnit(target, "Pebble", boy, leaders=(boss,))
    assert unit_attack(piercer, both, melee=True, modifiers=["Waaagh!"], exact=True).result.damage.mean == \
        Fraction(2, 9)


def test_a_conditional_defence_is_switched_on_for_its_models():
    from mathhammer_exact.data.datasheet import TargetUnit
    from mathhammer_exact.decide.unit_attack import unit_attack
    text = "Invented text. While this unit is in cover, models in this unit have a 4+ invulnerable save."
    hunker = invulnerable("Hunker", text)
    sheet = _fighter(invulnerable=hunker, abilities=["Hunker"], ability_texts=[["Hunker", "Invented.", ""]])
    piercer = attrs.evolve(_fighter(), weapons={"choppa": {"default": Weapon.parse("A1 WS3+ S4 AP-4 D1",
                                                                                     name="Choppa")}})
    target = TargetUnit(sheet.as_target(), "Pebble", sheet)
    off = unit_attack(piercer, target, melee=True, exact=True)
    assert off.result.damage.mean == Fraction(1, 3)  # 2/3 hit x 1/2 wound, Sv3+ at AP-4: no save
    assert ("not applied: the target's Hunker applies only under the condition its text states; --with 'Hunker' "
            "assumes it" in off.situation)
    # with it: the 4+ invulnerable save fails 1/2: 1/3 x 1/2 = 1/6
    assert unit_attack(piercer, target, melee=True, modifiers=["Hunker"], exact=True).result.damage.mean == \
        Fraction(1, 6)
    # the defence of the attacking unit is not said when it attacks
    assert not any("Hunker" in line for line in unit_attack(sheet, Target.parse("T4 Sv6+ W10"), melee=True).situation)


def test_a_bearers_conditional_defence_is_given_to_its_kind_alone():
    from mathhammer_exact.data.datasheet import TargetUnit
    from mathhammer_exact.decide.unit_attack import unit_attack
    shield = invulnerable("Shield Wall", "While this model is in cover, this model has a 4+ invulnerable save.")
    base = _record()["models"][0]
    models = [{**base, "name": "Pebble", "min": 4, "max": 4},
              {**base, "name": "Shield Bearer", "invulnerable": shield}]
    sheet = to_datasheet(_record(models=models, sizes=[5], abilities=["Shield Wall"]))
    [reading] = sheet.read_rules[0].readings
    assert reading.rule.models == ("Shield Bearer",)
    piercer = attrs.evolve(_fighter(), weapons={"choppa": {"default": Weapon.parse("A1 WS3+ S4 AP-4 D1",
                                                                                     name="Choppa")}})
    report = unit_attack(piercer, TargetUnit(sheet.as_target(), "Pebbles", sheet), melee=True,
                         modifiers=["Shield Wall"])
    saves = {profile.name: profile.invulnerable for profile, _ in report.result.target.groups}
    assert saves == {"Pebble": None, "Shield Bearer": 4}
    assert "target has Shield Wall (read from its text): 4+ invulnerable save, for its Shield Bearer models only; " \
           "assumed (--with): under the condition its text states" in report.situation


def test_a_defence_of_the_character_leading_the_unit_is_the_leaders_when_one_leads():
    from mathhammer_exact.data.datasheet import TargetUnit
    from mathhammer_exact.decide.unit_attack import unit_attack
    text = "While a ^^**Character**^^ model is leading this unit, that ^^**Character**^^ model has the Feel No Pain " \
           "4+ ability."
    guard = to_datasheet(_record(feel_no_pain=feel_no_pain("Silent Watch", "", text), abilities=["Silent Watch"],
                                 ability_texts=[["Silent Watch", text, ""]]))
    chief = _record(name="Chief", keywords=["CHARACTER", "INFANTRY"])
    chief = to_datasheet({**chief, "models": [{**chief["models"][0], "name": "Chief"}]})
    piercer = attrs.evolve(_fighter(), weapons={"choppa": {"default": Weapon.parse("A1 WS3+ S4 AP-4 D1",
                                                                                     name="Choppa")}})
    alone = unit_attack(piercer, TargetUnit(guard.as_target(), "Pebble", guard), melee=True)
    assert ("not applied: Silent Watch is for the CHARACTER models of the unit, which the target does not have; "
            "attach one with --leader" in alone.situation)
    led = Target((*guard.as_target().groups, *chief.as_target().groups), attached=True)
    report = unit_attack(piercer, TargetUnit(led, "Pebble led by Chief", guard, (), (chief,)), melee=True)
    # the query settles "while leading": applied without --with, to the Leader's model alone
    assert {p.name: p.feel_no_pain for p, _ in report.result.target.groups} == {"Pebble": None, "Chief": 4}
    assert "target has Silent Watch (read from its text): Feel No Pain 4+, for its CHARACTER models only" in \
        report.situation


def test_a_leaders_own_conditional_defence_stays_its_own_when_it_leads():
    # a review found a Nob with Waaagh! Banner's 'While this model is gaining the benefits of the Waaagh! ability, it
    # has a 4+ invulnerable save' given (with --with) to every Boy he leads: 1.111 wounds against the Boyz' 1.481
    from mathhammer_exact.data.datasheet import TargetUnit
    from mathhammer_exact.decide.unit_attack import unit_attack
    text = ("While this model is gaining the benefits of the Rumble, it has a 4+ invulnerable save and an Objective "
            "Control characteristic of 5.")
    guard = to_datasheet(_record())
    chief = _record(name="Chief", keywords=["CHARACTER", "INFANTRY"], abilities=["Leader", "Boss Watch"],
                    invulnerable=invulnerable("Boss Watch", text), ability_texts=[["Boss Watch", text, ""]])
    chief = to_datasheet({**chief, "models": [{**chief["models"][0], "name": "Chief"}]})
    piercer = attrs.evolve(_fighter(), weapons={"choppa": {"default": Weapon.parse("A1 WS3+ S4 AP-4 D1",
                                                                                     name="Choppa")}})
    led = Target((*guard.as_target().groups, *chief.as_target().groups), attached=True)
    report = unit_attack(piercer, TargetUnit(led, "Pebble led by Chief", guard, (), (chief,)), melee=True,
                         modifiers=["Boss Watch"])
    assert {p.name: p.invulnerable for p, _ in report.result.target.groups} == {"Pebble": None, "Chief": 4}


def _gun(name: str, least: int = 1, most: int = 1, skill: str = "3+", tag: str = "") -> str:
    """A piece of wargear with a ranged weapon profile of its name (at BS `skill`), taken `least` to `most` times."""
    tag = tag or name.lower().replace(" ", "-")
    shots = "".join(f'<characteristic name="{k}" typeId="ch-{k}">{v}</characteristic>'
                    for k, v in (("Range", '24"'), ("A", "1"), ("BS", skill), ("S", "4"), ("AP", "0"), ("D", "1"),
                                 ("Keywords", "-")))
    return (f'<selectionEntry type="upgrade" import="true" name="{name}" hidden="false" id="w-{tag}"><constraints>'
            f'<constraint type="min" value="{least}" field="selections" scope="parent" shared="true" id="c-w-{tag}-a"/>'
            f'<constraint type="max" value="{most}" field="selections" scope="parent" shared="true" id="c-w-{tag}-b"/>'
            f'</constraints><profiles><profile name="{name}" typeName="Ranged Weapons" hidden="false" id="p-w-{tag}">'
            f"<characteristics>{shots}</characteristics></profile></profiles></selectionEntry>")


def _kind(name: str, least: int = 0, most: int = 10, save: str = "3+", gun: str = "", groups: str = "") -> str:
    """A model entry with its least and most in its group, a profile of its own and no wargear (or one `gun`, and
    wargear `groups`)."""
    tag = name.lower().replace(" ", "-")
    stats = "".join(f'<characteristic name="{k}" typeId="ch-{k}">{v}</characteristic>'
                    for k, v in (("M", '6"'), ("T", "4"), ("SV", save), ("W", "2"), ("LD", "6+"), ("OC", "1")))
    carried = f"<selectionEntries>{_gun(gun)}</selectionEntries>" if gun else ""
    return (f'<selectionEntry type="model" import="true" name="{name}" hidden="false" id="m-{tag}"><constraints>'
            f'<constraint type="min" value="{least}" field="selections" scope="parent" shared="true" id="c-{tag}-a"/>'
            f'<constraint type="max" value="{most}" field="selections" scope="parent" shared="true" id="c-{tag}-b"/>'
            f'</constraints><profiles><profile name="{name}" typeId="pt-unit" typeName="Unit" hidden="false" '
            f'id="p-{tag}"><characteristics>{stats}</characteristics></profile></profiles>{carried}'
            f"<selectionEntryGroups>{groups}</selectionEntryGroups></selectionEntry>")


def test_a_group_of_up_to_two_picks_gives_one_model_two(tmp_path, monkeypatch):
    # a trial found a Strike Team's Shas'ui refused a missile drone and a gun drone ('Drones (0-2)'): one pick had
    # been read of a group that allows two, each choice within its own most (two missile drones, one guardian drone)
    drones = ('<selectionEntryGroup name="Drones" hidden="false" id="g-drones"><constraints><constraint type="max" '
              'value="2" field="selections" scope="parent" shared="true" id="c-drones-b"/></constraints>'
              f'<selectionEntries>{_gun("missile drone", 0, 2)}{_gun("guard drone", 0, 1)}</selectionEntries>'
              "</selectionEntryGroup>")
    unit = ('<selectionEntry type="unit" import="true" name="Cinder Team" hidden="false" id="u-team">'
            '<costs><cost name="pts" typeId="ct-pts" value="70"/></costs><selectionEntries>'
            f'{_kind("Team Leader", 1, 1, gun="rifle", groups=drones)}{_kind("Teamer", 4, 4, gun="rifle")}'
            "</selectionEntries></selectionEntry>")
    _index_priced(tmp_path, monkeypatch, unit)
    team = by_name.datasheet("Cinder Team")

    def leader(loadout: list[str]) -> list[str]:
        return sorted(next(gear for m, gear in team.equip(loadout) if m.name == "Team Leader"))
    assert leader(["missile drone", "guard drone"]) == ["guard drone", "missile drone", "rifle"]
    assert leader(["2 missile drone"]) == ["missile drone", "missile drone", "rifle"]
    with pytest.raises(MathhammerError, match="at most 1 model of a unit of 5 can take 'guard drone'"):
        team.equip(["guard drone", "guard drone"])
    with pytest.raises(MathhammerError, match="can take 'missile drone'"):
        team.equip(["3 missile drone"])


def test_a_weapon_of_the_name_of_another_with_other_profiles_keeps_its_own(tmp_path, monkeypatch):
    # a trial found a Crisis suit's Missile Drone firing its missile pod at the suit's BS 4+, not its own 5+: the
    # drone's weapon had been taken for the suit's of the same name
    drone = ('<selectionEntry type="upgrade" import="true" name="Pod Drone" hidden="false" id="w-pod-drone">'
             '<constraints><constraint type="max" value="1" field="selections" scope="parent" shared="true" '
             f'id="c-pod-drone"/></constraints><selectionEntries>{_gun("missile pod", skill="5+", tag="drone-pod")}'
             "</selectionEntries></selectionEntry>")
    # and a second drone whose pod is the first drone's: one name for both (a review found Neophytes' three apart)
    other = drone.replace("Pod Drone", "Spare Drone").replace("pod-drone", "spare-drone").replace("drone-pod", "spare")
    drones = ('<selectionEntryGroup name="Drones" hidden="false" id="g-drones"><constraints><constraint type="max" '
              f'value="1" field="selections" scope="parent" shared="true" id="c-drones-b"/></constraints>'
              f"<selectionEntries>{drone}{other}</selectionEntries></selectionEntryGroup>")
    unit = ('<selectionEntry type="unit" import="true" name="Cinder Suits" hidden="false" id="u-suits">'
            '<costs><cost name="pts" typeId="ct-pts" value="70"/></costs><selectionEntries>'
            f'{_kind("Suit", 2, 2, gun="missile pod", groups=drones)}</selectionEntries></selectionEntry>')
    _index_priced(tmp_path, monkeypatch, unit)
    suits = by_name.datasheet("Cinder Suits")
    assert {name: {p: w.skill for p, w in profiles.items()} for name, profiles in suits.weapons.items()} == {
        "missile pod": {"default": 3}, "missile pod (pod drone)": {"default": 5}}
    assert sorted(gear for _, gear in suits.equip(["pod drone"])) == [
        ["missile pod"], ["missile pod", "missile pod (pod drone)"]]


def test_a_unit_whose_default_wargear_is_in_no_file_read_is_refused(tmp_path, monkeypatch):
    # a trial found 11th-edition Grey Hunters fighting with their Pack Leader's power fist alone: their chainswords
    # link to a catalogue the checkout lacked, and the group whose default they were read another choice instead
    lost = ('<entryLinks><entryLink import="true" name="Lost blade" hidden="false" type="selectionEntry" '
            'id="l-blade" targetId="elsewhere-blade"><constraints><constraint type="min" value="1" '
            'field="selections" scope="parent" shared="true" id="c-l-blade"/></constraints></entryLink></entryLinks>')
    optional = lost.replace("Lost blade", "Lost banner").replace('type="min"', 'type="max"').replace("blade", "banner")
    optional += lost.replace("Lost blade", "Warlord").replace("blade", "warlord")  # an army's role, not wargear
    choice = ('<selectionEntryGroup name="Gun" hidden="false" id="g-gun" defaultSelectionEntryId="l-gone">'
              '<constraints><constraint type="min" value="1" field="selections" scope="parent" shared="true" '
              f'id="c-gun-a"/></constraints><selectionEntries>{_gun("pebble gun", 0, 1)}</selectionEntries>'
              '<entryLinks><entryLink import="true" name="Lost gun" hidden="false" type="selectionEntry" id="l-gun" '
              'targetId="elsewhere-gun"/></entryLinks></selectionEntryGroup>')

    def unit(name: str, model: str) -> str:
        return (f'<selectionEntry type="unit" import="true" name="{name}" hidden="false" id="u-{name[-4:]}">'
                f'<costs><cost name="pts" typeId="ct-pts" value="70"/></costs><selectionEntries>{model}'
                "</selectionEntries></selectionEntry>")
    _index_priced(tmp_path, monkeypatch, unit("Cinder Lost", _kind("Loser", 5, 5, gun="rifle").replace(
        "<selectionEntryGroups>", lost + "<selectionEntryGroups>")) + unit("Cinder Kept", _kind(
            "Keeper", 5, 5, gun="rifle").replace("<selectionEntryGroups>", optional + "<selectionEntryGroups>"))
        + unit("Cinder Gone", _kind("Goner", 5, 5, gun="rifle", groups=choice)))
    refused = {"Cinder Lost": "Lost blade", "Cinder Gone": "the default choice of 'Gun'"}
    for name, what in refused.items():
        sheet = by_name.datasheet(name)
        message = f"{name} (Priced Host): the default wargear of its models links to entries in none of the " \
                  f"files read: {what}; an answer would leave them out"
        for field in (sheet.as_target, lambda s=sheet: s.equip(["rifle"]),
                      lambda s=sheet: unit_attack(s, Target.parse("T4 Sv3+ W1 x5"))):
            with pytest.raises(MathhammerError, match=re.escape(message)):
                field()
        assert f"Not fielded: the default wargear of its models links to entries in none of the files read: {what}" \
            in card(name)
    kept = by_name.datasheet("Cinder Kept")  # what it may take, in no file read, is only said
    assert kept.as_target().model_count == 5 and not kept.incomplete
    assert "so not in this datasheet: Lost banner, Warlord" in kept.notes[0]


@pytest.mark.parametrize(("text", "found"), [
    ("You can re-roll Advance and Charge rolls made for this unit.", [(True, 0, False, "", False)]),
    ("This unit has +1 to **charge rolls**.", [(False, 1, False, "", False)]),  # as the 11th edition writes it
    ("Add 1 to Charge rolls made for the bearer's unit.", [(False, 1, False, "", False)]),
    ("While this model is leading a unit, you can re-roll Charge rolls made for that unit.",
     [(True, 0, True, "", False)]),
    ("Add 1 to Charge rolls made for this unit. While this unit is near a ^^Shrine^^, add 2 to Charge rolls made for "
     "this unit instead.", [(False, 1, False, "", False), (False, 2, False, "While this unit is near a Shrine", True)]),
    ("You can re-roll Charge rolls made for this unit in a turn in which it arrived from Reserves.",
     [(True, 0, False, "in a turn in which it arrived from Reserves", False)]),
    ("Pick one: Banner of Dust: add 1 to Charge rolls made for this unit.",
     [(False, 1, False, "Pick one: Banner of Dust", False)]),  # one of a choice: waits on it
    ("While a unit is pinned, subtract 2 from Charge rolls made for it.", []),  # another unit's
    ("Each time this unit declares a charge, you can re-roll the Charge roll.", [(True, 0, False, "", False)]),
    ("You can re-roll Charge rolls made for one GRAVEL unit from your army.", []),
])
def test_what_an_ability_does_to_its_units_charge_rolls(text, found):
    assert [(r["reroll"], r["add"], r["leading"], r["condition"], r["instead"]) for r in charge_rolls(text)] == found


def _blade(name: str, carried: int, stats: str, rule: tuple[str, str] | None = None) -> str:
    """A melee weapon of WS 3+ and `stats` ('A2 S4 AP0 D1'), carried `carried` times, with a `rule` (name, text) of its
    own named in its keywords."""
    tag = name.lower().replace(" ", "-")
    chars = {"Range": "Melee", "WS": "3+", **{key: value for key, value in re.findall(r"(AP|[ASD])(-?\d+)", stats)},
             "Keywords": rule[0] if rule else "-"}
    rules = (f'<rules><rule name="{rule[0]}" id="r-{tag}" hidden="false"><description>{rule[1]}</description></rule>'
             "</rules>") if rule else ""
    return (f'<selectionEntry type="upgrade" import="true" name="{name}" hidden="false" id="w-{tag}"><constraints>'
            f'<constraint type="min" value="{carried}" field="selections" scope="parent" shared="true" id="c-{tag}-a"/>'
            f'<constraint type="max" value="{carried}" field="selections" scope="parent" shared="true" id="c-{tag}-b"/>'
            f'</constraints>{rules}<profiles><profile name="{name}" typeName="Melee Weapons" hidden="false" '
            f'id="p-{tag}"><characteristics>'
            + "".join(f'<characteristic name="{k}" typeId="ch-{k}">{v}</characteristic>' for k, v in chars.items())
            + "</characteristics></profile></profiles></selectionEntry>")


def test_a_turn_applies_the_charging_units_charge_roll_abilities_and_names_the_others(tmp_path, monkeypatch):
    # a trial found Death Company's 'You can re-roll Charge rolls' and Ruststalkers' +1 left out of a turn, and
    # said nowhere: 9" on 2D6 is 5/18, re-rolled 5/18 + 13/18 x 5/18 = 155/324, on 2D6+1 15/36 = 5/12
    blade = _blade("Dust blade", 1, "A2 S4 AP0 D1")

    def unit(name: str, abilities: str) -> str:
        carried = _priced_unit(name, 5, 50, 0, "", least=5, abilities=abilities)
        return carried.replace("</profiles><costs>", f"</profiles><selectionEntries>{blade}</selectionEntries><costs>",
                               1)  # the model's: it carries the blade

    striding = ("Add 1 to Advance and Charge rolls made for this unit. While this unit is near a Shrine, add 2 to "
                "Advance and Charge rolls made for this unit instead.")
    _index_priced(tmp_path, monkeypatch, unit("Dust Furies", "You can re-roll Charge rolls made for this unit.")
                  + unit("Dust Striders", striding) + unit("Dust Walkers", ""))
    for name, chance, lines in (
            ("Dust Furies", Fraction(155, 324), ['charge: 9" on 2D6, re-rolled if it fails (Gift 0 (read from its '
                                                 'text))']),
            ("Dust Striders", Fraction(5, 12), ['charge: 9" on 2D6+1 (Gift 0 (read from its text): +1)',
                                                "not applied: Gift 0 (read from its text): +2 to Charge rolls in "
                                                "place of the above, only where its condition holds ('While this unit "
                                                "is near a Shrine'); --charge-mod 1 assumes it"]),
            ("Dust Walkers", Fraction(5, 18), ['charge: 9" on 2D6'])):
        out = run("turn", "-t", "MEQ", "-f", name, "-d", "9", "--exact", "--format", "json")
        assert out.exit_code == 0, out.output
        answer = json.loads(out.output)
        assert answer["p_charge"] == str(chance)
        assert [line.strip() for line in answer["header"] if "harge" in line and "Melee" not in line] == lines


def test_a_weapon_whose_copies_add_attacks_fights_with_them(tmp_path, monkeypatch):
    # a trial found a Deff Dread's dread klaw at A4 with two of them carried: its rule (Dead Choppy) adds one attack
    # for each beyond the first, and had been left out as a rule not modelled
    claw = _blade("Stone claw", 2, "A4 S12 AP-2 D3", ("Stone Fury", "The Attacks characteristic of this weapon is "
                  "increased by 1 for each additional stone claw this model is equipped with."))
    unit = ('<selectionEntry type="unit" import="true" name="Stone Walker" hidden="false" id="u-walker">'
            '<costs><cost name="pts" typeId="ct-pts" value="70"/></costs><selectionEntries>'
            + _kind("Walker", 1, 1).replace("<selectionEntryGroups>", f"<selectionEntries>{claw}</selectionEntries>"
                                            "<selectionEntryGroups>") + "</selectionEntries></selectionEntry>")
    _index_priced(tmp_path, monkeypatch, unit)
    walker = by_name.datasheet("Stone Walker")
    assert walker.per_copy == {"stone claw": (1, "Stone Fury")}
    assert walker.weapons["stone claw"]["default"].ignored == ()  # applied, not a rule left out
    report = unit_attack(walker, Target.parse("T4 Sv3+ W2 x5"), melee=True)
    assert [(f.weapon.name, str(f.weapon.attacks), f.models) for f in report.firings] == [("Stone claw", "5", 1)]
    assert "Walker fights with its Stone claw at Attacks 5: it carries 2, and Stone Fury (read from its text) adds 1 " \
           "for each beyond the first" in report.situation


def test_each_group_of_kinds_makes_up_its_least_with_its_default_kind(tmp_path, monkeypatch):
    # a trial found a Crusader Squad fielded as 9 Initiates beside its Sword Brother, though its '4-8 Neophytes'
    # group asks for 4 at least (and Sicarians without their Princeps); a review found each group's default kind
    # made its least blocking the swaps of Indomitor Kill Teams and Sicarians: the group's least is its own
    def group(name: str, least: int, most: int, default: str, kinds: str) -> str:
        return (f'<selectionEntryGroup name="{name}" hidden="false" id="g-{name.lower()}" defaultSelectionEntryId='
                f'"m-{default}"><constraints><constraint type="min" value="{least}" field="selections" scope="parent" '
                f'shared="true" id="c-{name.lower()}-a"/><constraint type="max" value="{most}" field="selections" '
                f'scope="parent" shared="true" id="c-{name.lower()}-b"/></constraints><selectionEntries>{kinds}'
                "</selectionEntries></selectionEntryGroup>")
    elders = group("Elders", 5, 11, "elder", _kind("Elder") + _kind("Elder with Hammer", most=4, gun="ember hammer"))
    # a group named as the Black Templars' are ('Crusaders'), not a Crusade-only one: it had been left out
    younglings = group("Crusaders", 4, 8, "youngling", _kind("Youngling Scout", save="4+", gun="scout carbine")
                       + _kind("Youngling"))
    unit = ('<selectionEntry type="unit" import="true" name="Cinder Host" hidden="false" id="u-cinder">'
            '<costs><cost name="pts" typeId="ct-pts" value="150"/></costs><selectionEntries>'
            f'{_kind("Cinder Chief", 1, 1)}</selectionEntries><selectionEntryGroups>{elders}{younglings}'
            "</selectionEntryGroups></selectionEntry>")
    _index_priced(tmp_path, monkeypatch, unit)
    host = by_name.datasheet("Cinder Host")
    assert not any("least" in note for note in host.notes)
    # each group's least by its default kind (the Younglings', listed second); the rest fills in order up to each
    # group's most and each kind's (11 Elders, 10 of them of the first kind; then Younglings)
    assert {k: n for k, n in host.counts(10).items() if n} == {"Cinder Chief": 1, "Elder": 5, "Youngling": 4}
    assert {k: n for k, n in host.counts(20).items() if n} == {"Cinder Chief": 1, "Elder": 10, "Elder with Hammer": 1,
                                                               "Youngling": 8}
    # a Youngling Scout joins in place of a Youngling, not of an Elder (the Elders' 5 are their least)
    scouted = Counter(m.name for m, _ in host.equip(["4 scout carbine"], 10))
    assert {k: n for k, n in scouted.items() if n} == {"Cinder Chief": 1, "Elder": 5, "Youngling Scout": 4}
    with pytest.raises(MathhammerError, match=r"at most 4 models .* \(Elders: at least 5; asked"):
        host.equip(["5 scout carbine"], 10)
    # within a group, a kind takes the place of the group's default kind
    hammers = Counter(m.name for m, _ in host.equip(["2 ember hammer"], 10))
    assert (hammers["Elder"], hammers["Elder with Hammer"], hammers["Youngling"]) == (3, 2, 4)
    # where the leasts do not fit the unit's size, each kind is at its own least and its models may still change
    # (a review found the loadout refusing what the default had already left short)
    short = attrs.evolve(host, leasts=(*host.leasts, Least("Everyone", 12, ("Elder", "Youngling"), "Elder")))
    assert {k: n for k, n in short.counts(10).items() if n} == {"Cinder Chief": 1, "Elder": 9}
    assert Counter(m.name for m, _ in short.equip(["ember hammer"], 10))["Elder with Hammer"] == 1


def test_a_charge_ability_counts_where_its_model_is_in_the_unit_and_one_unit_charges():
    # a review found a Sacred Banner's re-roll (the banner bearer's ability) given to a unit without the bearer,
    # and two units' abilities pooled into the one charge roll of a turn
    from mathhammer_exact.data.datasheet import ChargeRoll
    from mathhammer_exact.decide.firings import Written
    from mathhammer_exact.present.questions import _charge_abilities

    incursors, scions = by_name.datasheet("Incursor Squad"), by_name.datasheet("Militarum Tempestus Command Squad")
    banner, own = ChargeRoll("Banner", reroll=True, model="Banner Bearer"), ChargeRoll("Fury", add=1, model="Incursor")
    sheet = attrs.evolve(incursors, charge_rolls=(banner, own))
    blade = Written(Firing(Weapon.parse("Melee A2 WS3+ S4 AP0 D1"), 5), "blade", unit=sheet)
    assert _charge_abilities([blade]) == ([own], [])
    other = Written(Firing(Weapon.parse("Melee A1 WS3+ S3 AP0 D1"), 5), "knife", unit=scions)
    assert _charge_abilities([blade, other]) == ([], [attrs.evolve(own, condition="the only unit charging")])
