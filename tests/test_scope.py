"""Named rules know when and to whom they apply: each wrong answer of issue 8 section 1, pinned by hand.

Unit shorthand used in the derivations:
- Militarum Tempestus Command Squad (TCS) shooting: the Tempestor Prime's bolt pistol (A1 BS3+ S4 AP0) and
  four Scions' hot-shot lasguns (A1 BS3+ S3 AP-1), all with Sustained Hits 1 from the Tempestor Prime, so one
  attack at BS3+ scores 3/6 * 1 + 1/6 * 2 = 5/6 hits on average.
- TCS fighting: four close combat weapons (A2 WS4+ S3) and the Prime's dagger (A4 WS3+ S3).
- Incursor Squad: five occulus bolt carbines (A2 BS3+ S4 AP0 [IGNORES COVER]); in melee five paired combat
  blades (A3 WS3+ S4 [SUSTAINED HITS 1]).
- GEQ: ten T3 Sv5+ W1 models. With D1 weapons against W1 models and at most 10 hits, damage dealt is just
  the sum of the expected unsaved wounds of each weapon.
"""

from __future__ import annotations

import json
from fractions import Fraction as F
from pathlib import Path

import pytest
from click.testing import CliRunner

from mathhammer_exact import Context, MathhammerError, Target
from mathhammer_exact.cli import cli
from mathhammer_exact.decide.unit_attack import unit_attack
from mathhammer_exact.units.by_name import find_target

TCS = "Militarum Tempestus Command Squad"
INC = "Incursor Squad"
GEQ = find_target("GEQ")


def unit(attacker, target=GEQ, **kwargs):
    return unit_attack(attacker, target, exact=True, **kwargs)


def refused(fragment, attacker, target=GEQ, **kwargs):
    with pytest.raises(MathhammerError) as err:
        unit(attacker, target, **kwargs)
    assert fragment in str(err.value)
    return str(err.value)


# ---------------------------------------------------------------- phases
@pytest.mark.parametrize(("attacker", "rule", "target"), [
    (INC, "harness-the-flaw", GEQ), (TCS, "against-the-odds", GEQ), (TCS, "controlled-ferocity", find_target(INC))])
def test_fight_phase_rules_are_refused_when_shooting(attacker, rule, target):
    name = {"harness-the-flaw": "Harness the Flaw", "against-the-odds": "Against the Odds",
            "controlled-ferocity": "Controlled Ferocity"}[rule]
    refused(f"{name} is used in the Fight phase; add --melee", attacker, target, modifiers=[rule])


def test_harness_the_flaw_in_the_fight_phase():
    # 15 blade attacks score 15 * (3/6 + 2/6) = 25/2 hits. Against GEQ (S4 v T3: 3+) wound rolls of 1 are
    # re-rolled: 4/6 + 1/6 * 4/6 = 7/9. Against a VEHICLE (S4 v T9: 6+) every failed roll is: 1/6 + 5/6 * 1/6.
    assert unit(INC, melee=True, modifiers=["harness-the-flaw"]).result.wounds.mean == F(25, 2) * F(7, 9)
    vehicle = find_target("light vehicle")
    assert unit(INC, vehicle, melee=True, modifiers=["harness-the-flaw"]).result.wounds.mean == F(25, 2) * F(11, 36)
    assert unit(INC, vehicle, melee=True).result.wounds.mean == F(25, 2) * F(1, 6)


def test_controlled_ferocity_only_for_an_adeptus_astartes_infantry_target():
    refused("Controlled Ferocity is used by an ADEPTUS ASTARTES INFANTRY unit; the target has INFANTRY",
            TCS, melee=True, modifiers=["controlled-ferocity"])
    # against the Incursors: -1 to hit, so 8 close combat attacks hit on 5+ and the dagger's 4 on 4+
    report = unit(TCS, find_target(INC), melee=True, modifiers=["controlled-ferocity"])
    assert report.result.hits.mean == 8 * F(1, 3) + 4 * F(1, 2)
    assert unit(TCS, find_target(INC), melee=True).result.hits.mean == 8 * F(1, 2) + 4 * F(2, 3)
    assert "target has Controlled Ferocity: -1 to hit" in report.situation


def test_against_the_odds_in_the_fight_phase():
    # +1 Attacks to melee weapons: 4 x (2+1) + (4+1) = 17 attacks; the Tempestor Prime ability is for shooting
    report = unit(TCS, melee=True, modifiers=["against-the-odds"])
    assert report.result.attacks.mean == 17
    assert "not in force: Tempestor Prime is used in the Shooting phase; leave out --melee" in report.situation


# ---------------------------------------------------------------- keywords of the target
def test_go_to_ground_only_for_infantry():
    refused("Go to Ground is used by an INFANTRY unit; the target has VEHICLE", TCS, find_target("light vehicle"),
            modifiers=["go-to-ground"])
    # GEQ in cover: the bolt pistol's save 5+ becomes 4+ (fails 1/2), the lasguns' AP-1 save 6+ becomes 5+
    # (fails 2/3); the 6+ invulnerable save is no better. 5/6 * 2/3 * 1/2 + 4 * 5/6 * 1/2 * 2/3 = 25/18.
    report = unit(TCS, modifiers=["go-to-ground"])
    assert report.result.damage.mean == F(25, 18)
    assert "target has Go to Ground: 6+ invulnerable save, the Benefit of Cover" in report.situation


def test_smokescreen_only_for_smoke_units():
    refused("Smokescreen is used by a SMOKE unit; the target has INFANTRY", TCS, modifiers=["smokescreen"])
    # the Incursors have SMOKE: Stealth makes the Scions hit on 4+: 2/6 + 1/6 * 2 = 2/3 hits per attack
    assert unit(TCS, find_target(INC), modifiers=["smokescreen"]).result.hits.mean == 5 * F(2, 3)


def test_born_soldiers_not_against_monsters_and_vehicles():
    refused("Born Soldiers applies only to attacks against a unit (not MONSTER or VEHICLE); the target has VEHICLE",
            TCS, find_target("light vehicle"), modifiers=["born-soldiers"])
    refused("Born Soldiers (SQUADRON) is used by an ASTRA MILITARUM SQUADRON unit", TCS,
            find_target("light vehicle"), modifiers=["born-soldiers-squadron"])


# ---------------------------------------------------------------- keywords and abilities of the attacker
def test_orders_only_for_regiment_and_squadron_units():
    refused("Take Aim! is used by an ASTRA MILITARUM REGIMENT or SQUADRON unit; the attacking unit (Incursor Squad)"
            " has ADEPTUS ASTARTES, BLOOD ANGELS, IMPERIUM, INCURSOR SQUAD, INFANTRY, PHOBOS, SMOKE",
            INC, modifiers=["take-aim"])


def test_oath_of_moment_only_for_units_with_that_ability():
    refused("Oath of Moment works only for units with that ability; Militarum Tempestus Command Squad does not have "
            "it", TCS, modifiers=["oath-of-moment"])
    # the Incursors re-roll failed hit rolls at BS3+: 2/3 + 1/3 * 2/3 = 8/9 for each of 10 attacks
    report = unit(INC, modifiers=["oath-of-moment"])
    assert report.result.hits.mean == 10 * F(8, 9)
    assert ("attacker has Oath of Moment (its army rule, as rules/ declares it): re-roll failed hit rolls; 'you can "
            "re-roll' taken as re-rolling failed hit rolls; assumed (--with): when the target is the Oath of Moment "
            "target" in report.situation)
    # named where it is not applied, with the option that applies it
    assert ("not applied: Oath of Moment applies only when the target is the Oath of Moment target; --with 'Oath of "
            "Moment' assumes it" in unit(INC).situation)


def test_suppression_fire_is_a_condition_on_the_attacking_unit(tmp_path):
    # the suppressed attacker subtracts 1: at 4+ with Sustained Hits 1, 2/6 + 1/6 * 2 = 2/3 hits per attack
    report = unit(TCS, modifiers=["suppression-fire"])
    assert report.result.hits.mean == 5 * F(2, 3)
    assert report.situation[1].startswith("attacker suppressed by Suppression Fire: -1 to hit")
    refused("Suppression Fire can only hamper a unit (not MONSTER or VEHICLE); the attacking unit (Beast) has "
            "MONSTER", "Beast", modifiers=["suppression-fire"], melee=True, rules_dir=user_rules(tmp_path))


def test_marks_help_later_attackers_with_the_right_keywords():
    refused("Multi-spectrum Array helps the attacks of an ADEPTUS ASTARTES unit; the attacking unit (Militarum "
            "Tempestus Command Squad) has", TCS, modifiers=["multi-spectrum-array"])
    refused("Fields of Fire helps the attacks of a REGIMENT or SQUADRON unit; the attacking unit (Incursor Squad)",
            INC, modifiers=["fields-of-fire"])
    # +1 to hit for the Incursors: 2+ on each of 10 attacks
    marked = unit(INC, modifiers=["multi-spectrum-array"])
    assert marked.result.hits.mean == 10 * F(5, 6)
    assert marked.situation[0].startswith("target marked by Multi-spectrum Array: +1 to hit; assumes")
    # AP improved by 1 for the Scions: the pistol's AP-1 leaves 6+ (fails 5/6), the lasguns' AP-2 no save:
    # 5/6 * 2/3 * 5/6 + 4 * 5/6 * 1/2 = 25/54 + 90/54
    fields = unit(TCS, modifiers=["fields-of-fire"])
    assert fields.result.damage.mean == F(115, 54)
    assert fields.situation[1].startswith("target marked by Fields of Fire: AP improved by 1; assumes")


# ---------------------------------------------------------------- twice, or without effect
@pytest.mark.parametrize(("rules", "fragment"), [
    (["take-aim", "take-aim", "take-aim"], "Take Aim! is given 3 times; it is used once in a query"),
    (["grenade", "grenade"], "Grenade is given 2 times; it is used once in a query"),
    (["fields-of-fire", "fields-of-fire"], "Fields of Fire is given 2 times"),
    (["take-aim", "first-rank-fire"], "a unit is affected by 1 Order at a time, got Take Aim!, First Rank, Fire! "
                                      "Second Rank, Fire! (a command rod in --loadout allows two different ones)"),
    (["tempestor-prime"], "Tempestor Prime is already in force: the attacking unit's datasheet or wargear gives it"),
])
def test_the_same_rule_twice_is_an_error(rules, fragment):
    refused(fragment, TCS, modifiers=rules)


def test_a_repeatable_rule_may_be_given_twice_and_adds_up(tmp_path):
    (tmp_path / "modifiers.toml").write_text(
        '[volley]\nname = "Volley"\nkind = "ability"\nsource = "test"\nsummary = "s"\nphase = "shooting"\n'
        'situation = "attacker"\nrepeatable = true\neffect = { weapons = "ranged", attacks_bonus = 1 }\n')
    # 5 Incursor carbines with A2 + 1 + 1
    assert unit(INC, modifiers=["volley", "volley"], rules_dir=tmp_path).result.attacks.mean == 20


def test_a_command_rod_allows_two_different_orders():
    # 4 lasguns with A1+1 and BS2+: 8 attacks x (4/6 + 1/6 * 2) hits = 8 (the Prime's rod replaced its pistol)
    assert unit(TCS, loadout=["command rod"], modifiers=["take-aim", "first-rank-fire"]).result.hits.mean == 8


@pytest.mark.parametrize(("kwargs", "fragment"), [
    ({"modifiers": ["elimination-force"]},
     "Elimination Force changes nothing here: no weapon's Strength is below the target's Toughness (3)"),
    ({"modifiers": ["take-aim"], "melee": True},
     "Take Aim! changes nothing here: it affects ranged weapons, and this unit attacks with melee weapons"),
    ({"modifiers": ["drill-commander"]}, "Drill Commander applies only when attacker Remained Stationary; "
                                         "add --stationary"),
    ({"modifiers": ["grenade"], "context": Context(advanced=True), "loadout": ["flamer"]},
     "Grenade cannot be used when attacker Advanced (--advanced)"),
])
def test_a_rule_that_cannot_change_the_query_is_refused(kwargs, fragment):
    refused(fragment, TCS, **kwargs)


# ---------------------------------------------------------------- the medi-pack
def test_the_medi_pack_is_wargear_of_the_bearers_unit():
    refused("Medi-pack is wargear: choose it in --loadout, not --with", TCS, modifiers=["medi-pack"])
    # A failed Hazardous test (1/6) puts 3 mortal wounds on the W1 Scion; with Feel No Pain 6+ it survives only
    # if all three are ignored: 1/6 * (1 - (1/6)^3) = 215/1296, as the project's Hazardous function gives.
    with_pack = unit(TCS, loadout=["plasma gun", "medi-pack"], profiles=["supercharge"])
    without = unit(TCS, loadout=["plasma gun"], profiles=["supercharge"])
    assert with_pack.result.hazardous_models_lost.mean == F(215, 1296)
    assert without.result.hazardous_models_lost.mean == F(1, 6)
    # the bearer's unit has it, never the enemy
    assert [f.bearer.feel_no_pain for f in with_pack.firings if f.bearer] == [6]
    assert all(p.feel_no_pain is None for p, _ in with_pack.result.target.groups)


def test_the_medi_pack_options():
    gear = [g for _, g in find_sheet().equip(["medi-pack and hot-shot lasgun", "master vox"])]
    assert gear[1] == ["hot-shot lasgun", "hot-shot laspistol", "medi-pack", "close combat weapon"]
    assert gear[2] == ["hot-shot laspistol", "master vox", "close combat weapon"]
    with pytest.raises(MathhammerError, match="at most 1 model .* 'medi-pack' .Tempestus Scion: hot-shot lasgun for "
                                              "medi-pack at most 1"):
        find_sheet().equip(["medi-pack", "medi-pack"])
    with pytest.raises(MathhammerError, match="no model of a unit of 5 can take 'medi-pack' .Tempestus Scion"):
        find_sheet().equip(["medi-pack and hot-shot lasgun", "medi-pack"])  # one option, either choice


def find_sheet():
    from mathhammer_exact.units.by_name import datasheet
    return datasheet(TCS)


# ---------------------------------------------------------------- situation per weapon, cover per group, Precision
def test_half_range_for_one_weapon():
    report = unit(TCS, loadout=["plasma gun", "meltagun"], half_range_for=["meltagun"])
    # only the meltagun is within half range: plasma gun 1 + meltagun 1 + pistol 1 + 2 lasguns = 5 attacks
    # (all within half range, the Rapid Fire weapons add 1 each: 8)
    assert report.result.attacks.mean == 5
    assert unit(TCS, loadout=["plasma gun", "meltagun"], context=Context(half_range=True)).result.attacks.mean == 8
    assert [(f.weapon.name, f.context.half_range) for f in report.firings] == [
        ("plasma gun (standard)", False), ("meltagun", True), ("bolt pistol", False), ("hot-shot lasgun", False)]
    assert "within half range: meltagun; other weapons are not" in report.situation
    refused("did you mean 'meltagun'", TCS, loadout=["meltagun"], half_range_for=["meltagn"])
    refused("--half-range puts every weapon within half range", TCS, loadout=["meltagun"], half_range_for=["meltagun"],
            context=Context(half_range=True))


def test_cover_for_a_model_group():
    # the GEQ's only group in cover: as --cover, 25/18 (see go-to-ground)
    report = unit(TCS, cover_for=["1"])  # groups are numbered from 1, as the answer lists them
    assert report.result.damage.mean == F(25, 18)
    assert report.result.damage == unit(TCS, context=Context(cover=True)).result.damage
    mixed = Target.parse("T3 Sv5+ W1 x5; T3 Sv5+ W1 x5")
    assert unit(TCS, mixed, cover_for=["2"]).result.damage.mean < unit(TCS, mixed).result.damage.mean
    covered = find_target(TCS)
    # the datasheet's groups: 1 Tempestor Prime, then 4 Tempestus Scions (group 2, counted from 1)
    assert [p.name for p, _ in covered.groups] == ["Tempestor Prime", "Tempestus Scion"]
    assert "Benefit of Cover: group 2 (Tempestus Scion)" in unit(TCS, covered, cover_for=["tempestus scion"]).situation
    assert unit(TCS, covered, cover_for=["2"]).situation == unit(TCS, covered, cover_for=["tempestus scion"]).situation
    refused("no target model group '7' (groups: 1)", TCS, cover_for=["7"])
    refused("no target model group '0' (groups: 1)", TCS, cover_for=["0"])
    refused("only helps against ranged attacks", TCS, cover_for=["1"], melee=True)


SHEETS = {
    "sniper.toml": '''name = "Sniper Team"
faction = "Test"
source = "test"
keywords = ["INFANTRY"]
[[models]]
name = "Sniper"
count = 1
stats = 'T3 Sv5+ W1'
equipment = ["long rifle"]
[weapons."long rifle"]
default = '36" A1 S6 AP0 D1 [TORRENT, PRECISION]'
''',
    "gunner.toml": '''name = "Gunner Team"
faction = "Test"
source = "test"
keywords = ["INFANTRY"]
[[models]]
name = "Gunner"
count = 2
stats = 'T4 Sv3+ W2'
equipment = ["plasma gun", "bolt pistol"]
[weapons."plasma gun"]
standard = '24" A1 BS3+ S7 AP-2 D1'
supercharge = '24" A1 BS3+ S8 AP-3 D2 [HAZARDOUS]'
[weapons."bolt pistol"]
default = '12" A1 BS3+ S4 AP0 D1 [PISTOL]'
''',
    "beast.toml": '''name = "Beast"
faction = "Test"
source = "test"
keywords = ["MONSTER"]
[[models]]
name = "Beast"
count = 1
stats = 'T9 Sv3+ W10'
equipment = ["claws"]
[weapons.claws]
default = 'Melee A4 WS3+ S8 AP-2 DD3'
'''}


def user_rules(tmp_path: Path) -> Path:
    (tmp_path / "datasheets").mkdir(exist_ok=True)
    for name, text in SHEETS.items():
        (tmp_path / "datasheets" / name).write_text(text)
    return tmp_path


def test_precision_declined_or_aimed_at_one_leader(tmp_path):
    rules = user_rules(tmp_path)
    # one automatic hit, S6 v T3 wounds on 2+ (5/6), no save: the wound kills the model it is allocated to
    led = Target.parse("T3 Sv7+ W1 x2; T3 Sv7+ W1 leader")
    taken = unit("Sniper Team", led, rules_dir=rules)
    assert taken.result.groups[1].p_destroyed == F(5, 6)
    assert "Precision taken: its wounds go to group 2 (leader) while one lives (--no-precision declines it)" \
        in taken.situation  # the attacker's choice, said (a trial found it taken without a word)
    declined = unit("Sniper Team", led, rules_dir=rules, precision=False)
    assert declined.result.groups[1].p_destroyed == 0 and declined.result.groups[0].models_destroyed.mean == F(5, 6)
    assert "Precision declined: wounds are allocated as for any other attack" in declined.situation
    two = Target.parse("T3 Sv7+ W1 x2; T3 Sv7+ W1 leader; T3 Sv7+ W1 leader")
    first = unit("Sniper Team", two, rules_dir=rules).result
    eleventh = unit("Sniper Team", two, rules_dir=rules, context=Context(edition="11e"))
    assert "Precision taken: its wounds go to group 2 (leader) until it is destroyed, the first CHARACTER group in " \
        "the allocation order (--precision-on GROUP aims it at another; --no-precision declines it)" \
        in eleventh.situation  # the 11th edition's Precision: one CHARACTER group, the first of the order, and the
    # choice said (a trial found the answer following the order the leaders were named in, unsaid)
    alone = unit("Sniper Team", led, rules_dir=rules, context=Context(edition="11e"))
    assert "Precision taken: its wounds go to group 2 (leader) until it is destroyed (--no-precision declines it)" \
        in alone.situation  # one leader: no other to choose
    chosen = unit("Sniper Team", two, rules_dir=rules, precision_on="3")  # the second leader: group 3 from 1
    assert "Precision wounds go to group 3 (leader) first" in chosen.situation
    chosen = chosen.result
    assert (first.groups[1].p_destroyed, first.groups[2].p_destroyed) == (F(5, 6), 0)
    assert (chosen.groups[1].p_destroyed, chosen.groups[2].p_destroyed) == (0, F(5, 6))
    refused("no weapon attacking in this query has PRECISION", TCS, precision=False)
    refused("--precision-on names a CHARACTER model group of an Attached target", "Sniper Team", two,
            rules_dir=rules, precision_on="1")


# ---------------------------------------------------------------- strict options
def test_profile_names_are_checked():
    refused("unknown weapon profile of Militarum Tempestus Command Squad 'supercharg' (did you mean 'supercharge'?)",
            TCS, loadout=["plasma gun"], profiles=["supercharg"])
    refused("unknown weapon profile of Militarum Tempestus Command Squad 'bogus'; known: frag, krak, standard, "
            "supercharge", TCS, loadout=["plasma gun"], profiles=["bogus"])
    refused("--profile krak: no weapon in this loadout has that profile (grenade launcher in --loadout would)",
            TCS, loadout=["plasma gun"], profiles=["krak"])
    assert unit(TCS, loadout=["plasma gun"], profiles=["SUPERCHARGE"]).firings[0].weapon.name == \
        "plasma gun (supercharge)"
    refused("--profile supercharge: no weapon of Militarum Tempestus Command Squad has more than one profile in "
            "melee (leave --profile out)", TCS, melee=True, profiles=["supercharge"])  # not "known: " and nothing


def test_pistols_cannot_go_with_melee():
    refused("--pistols chooses what a unit shoots; it cannot go with --melee", TCS, pistols=True, melee=True)


# ---------------------------------------------------------------- the command line
def run(*args, env=None):
    return CliRunner().invoke(cli, ["unit", *args], env=env)


@pytest.mark.parametrize(("args", "fragment"), [
    ([INC, "-t", "GEQ", "--with", "harness-the-flaw"], "Harness the Flaw is used in the Fight phase; add --melee"),
    ([TCS, "-t", "GEQ", "--with", "take-aim", "--with", "take-aim"], "Take Aim! is given 2 times"),
    ([TCS, "-t", "GEQ", "--loadout", "plasma gun", "--profile", "supercharg"], "did you mean 'supercharge'"),
    ([TCS, "-t", "GEQ", "--pistols", "--melee"], "cannot go with --melee"),
    ([TCS, "-t", "GEQ", "--with", "medi-pack"], "choose it in --loadout"),
    ([TCS, "-t", "GEQ", "--rules-dir", "/no/such/folder"], "does not exist"),
])
def test_cli_refusals_are_one_line(args, fragment):
    out = run(*args)
    assert out.exit_code == 2
    lines = out.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and fragment in lines[0], out.output


def test_cli_header_says_the_situation_and_json_lists_it():
    out = run(TCS, "-t", "GEQ", "--with", "fields-of-fire", "--loadout", "meltagun", "--half-range-for", "meltagun")
    assert out.exit_code == 0, out.output
    head = out.output.splitlines()[:9]
    assert "  target marked by Fields of Fire: AP improved by 1; assumes another REGIMENT or SQUADRON unit shot " \
           "the target earlier this phase, and the attacking unit is not Battle-shocked" in head
    assert "  within half range: meltagun; other weapons are not" in head
    # the weapon left out of half range says what that costs it
    assert "  not applied: Rapid Fire 1 (hot-shot lasgun): only when within half range; --half-range applies it" in head
    data = json.loads(run(TCS, "-t", "GEQ", "--with", "go-to-ground", "--json").output)
    assert data["situation"][1] == "target has Go to Ground: 6+ invulnerable save, the Benefit of Cover"


def test_cli_rules_dir_option_and_environment_variable(tmp_path):
    rules = str(user_rules(tmp_path))
    by_option = run("Sniper Team", "-t", "T3 Sv7+ W1 x2; T3 Sv7+ W1 leader", "--rules-dir", rules, "--json",
                    "--exact", "--no-precision")
    assert by_option.exit_code == 0, by_option.output
    assert json.loads(by_option.output)["groups"][1]["p_destroyed"] == "0"
    by_env = run("Sniper Team", "-t", "T3 Sv7+ W1 x2; T3 Sv7+ W1 leader", "--json", "--exact",
                 env={"MATHHAMMER_RULES": rules})
    assert json.loads(by_env.output)["groups"][1]["p_destroyed"] == "5/6"
    assert "unknown datasheet 'Sniper Team'" in run("Sniper Team", "-t", "GEQ").output
    listing = CliRunner().invoke(cli, ["datasheets", "--rules-dir", rules]).output
    assert "  Sniper Team (Test)" in listing and "  Incursor Squad (Blood Angels)" in listing
    card = CliRunner().invoke(cli, ["show", "beast"], env={"MATHHAMMER_RULES": rules}).output
    assert card.startswith("Beast (Test; source: test)")


def test_only_a_weapon_that_fires_is_said_to_fire_one_of_its_profiles(tmp_path):
    # a trial found 'missile launcher (blast) used (its other profiles: ...)' in the header of a unit shooting its
    # pistols, where the launcher did not fire
    rules = user_rules(tmp_path)
    used = "plasma gun (standard) used (its other profiles: supercharge; choose with --profile)"
    assert used in unit("Gunner Team", rules_dir=rules).situation
    pistols = unit("Gunner Team", rules_dir=rules, pistols=True)
    assert [f.weapon.name for f in pistols.firings] == ["bolt pistol"]
    assert used not in pistols.situation


def test_a_weapon_ability_its_situation_does_not_switch_on_is_said():
    # a trial found a Rapid Fire weapon's answer silent on its Rapid Fire not counted (not within half range)
    weapons = ["-w", '24" A2 BS3+ S4 AP-1 D1 [RAPID FIRE 1, HEAVY, MELTA 2]', "-w", '18" A1 BS3+ S4 AP0 D1 [HEAVY]',
               "-w", 'Melee A2 WS3+ S4 AP0 D1 [LANCE]', "-w", '24" A1 BS3+ S4 AP0 D1 [CONVERSION 12"]']
    def attack(*args: str) -> str:
        return CliRunner().invoke(cli, ["attack", *weapons, "-t", "MEQ", *args]).output

    lines = [line for line in attack().splitlines() if "not applied" in line]
    assert lines == ["  not applied: Rapid Fire 1: only when within half range; --half-range applies it",
                     "  not applied: Melta 2: only when within half range; --half-range applies it",
                     "  not applied: Heavy: only when attacker Remained Stationary; --stationary applies it",
                     "  not applied: Lance: only when attacker charged; --charged applies it",
                     "  not applied: Conversion 12: only when target beyond Conversion range; --far applies it"]
    assert "not applied" not in attack("--half-range", "--stationary", "--charged", "--far")


def test_what_a_datasheet_target_was_taken_as_is_said_where_the_question_did_not_say():
    # a trial found Custodian Guard taken as four spear models without a word, where the attacker's size is said
    from mathhammer_exact.units.by_name import target_unit

    assert target_unit("Incursor Squad").notes == (
        "target size: 5 models, the smallest unit its datasheet allows (it comes in 5 or 10) (--target-models sets "
        "another)",)
    assert target_unit("Incursor Squad", models=10).notes == target_unit("Incursor Squad x10").notes == ()
    assert target_unit("Militarum Tempestus Command Squad").notes == (
        "target wargear: as its datasheet equips its models (bolt pistol, close combat weapon, hot-shot lasgun, "
        "tempestus dagger); --target-loadout chooses other",)
    assert not any(note.startswith("target wargear: as its datasheet") for note in target_unit(
        "Militarum Tempestus Command Squad", loadout=["meltagun"]).notes)
    assert target_unit("MEQ").notes == ()  # a standard target is what it says


def test_a_rule_the_unit_cannot_use_is_refused_so_before_its_phase_is_said():
    # a trial was told to add --melee for the Waaagh!, then that the unit has no such ability
    out = run(INC, "-t", "MEQ", "--with", "waaagh-melee")
    assert out.exit_code == 2 and "Waaagh! works only for units with that ability; " in out.output
    assert "--melee" not in out.output
