"""Datasheet units by name: firing rules, consequences (Hazardous, Battle-shock) and the CLI."""

from __future__ import annotations

import json
import math
from fractions import Fraction

import attrs
import pytest
from click.testing import CliRunner

from mathhammer_exact import Context, MathhammerError, Rules, Target, Weapon, attack
from mathhammer_exact.cli import cli
from mathhammer_exact.data import load as data
from mathhammer_exact.decide.unit_attack import unit_attack, volley
from mathhammer_exact.engine.consequences import hazardous_losses, pass_chance
from mathhammer_exact.pmf import EXACT
from mathhammer_exact.present.report import unit_report
from mathhammer_exact.units import by_name

from .conftest import as_dict

TCS = "Militarum Tempestus Command Squad"


def names(shots):
    return [(w.name, n) for w, n, _ in shots.weapons]


def test_a_model_shoots_pistols_or_its_other_ranged_weapons():
    incursors = by_name.datasheet("Incursor Squad")
    assert names(volley(incursors)) == [("occulus bolt carbine", 5)]
    assert names(volley(incursors, pistols=True)) == [("bolt pistol", 5)]
    assert names(volley(incursors, melee=True)) == [("paired combat blades", 5)]
    # The Tempestor Prime has only a pistol, so it fires it; loadout weapons come first.
    tcs = by_name.datasheet(TCS)
    assert names(volley(tcs, ["meltagun", "plasma gun"])) == [
        ("meltagun", 1), ("plasma gun (standard)", 1), ("bolt pistol", 1), ("hot-shot lasgun", 2)]
    assert names(volley(tcs, ["plasma gun"], profiles=["supercharge"]))[0] == ("plasma gun (supercharge)", 1)


def test_a_pistol_named_in_the_loadout_that_its_bearer_does_not_shoot_is_said():
    # a trial named a Theyn's plasma pistol in --loadout and saw the answer unchanged, with nothing said
    shots = volley(by_name.datasheet("Incursor Squad"), ["bolt pistol"])
    assert names(shots) == [("occulus bolt carbine", 5)]
    assert "not fired: bolt pistol (named in --loadout, a Pistol: Incursor shoots its other ranged weapons; " \
           "--pistols shoots the unit's Pistols instead)" in shots.chosen
    assert not any("not fired" in line for line in volley(by_name.datasheet("Incursor Squad")).chosen)
    assert not any("not fired" in line for line in volley(by_name.datasheet("Incursor Squad"), ["bolt pistol"],
                                                          pistols=True).chosen)


def test_after_advancing_only_assault_weapons_shoot():
    assert names(volley(by_name.datasheet("Incursor Squad"), advanced=True)) == [("occulus bolt carbine", 5)]
    with pytest.raises(MathhammerError, match="no ASSAULT weapons after Advancing"):
        volley(by_name.datasheet(TCS), advanced=True)


def test_the_header_says_what_stealth_gives_the_target():
    # a trial found the 11th edition's Stealth (the Benefit of Cover) applied and never said
    def header(*args, **kwargs) -> tuple[str, ...]:
        return unit_report(unit_attack(*args, **kwargs)).preface

    stealthy = Target.parse("T3 Sv6+ W1 x10 [INFANTRY, STEALTH]")
    assert "  target has Stealth: -1 to the hit roll against ranged attacks" in header(TCS, stealthy)
    eleventh = header(TCS, stealthy, context=Context(rules=Rules.named("current", "11e")))
    assert "  target has Stealth: the Benefit of Cover (not against Ignores Cover) against ranged attacks" in eleventh
    assert not any("Stealth" in line for line in header(TCS, stealthy, melee=True))
    assert not any("Stealth" in line for line in header(TCS, Target.parse("T3 Sv6+ W1 x10")))


def test_blast_cannot_target_a_unit_in_engagement_range():
    with pytest.raises(MathhammerError, match="BLAST"):
        unit_attack(TCS, Target.parse("T3 Sv5+ W1 x10"), ["grenade launcher"], context=Context(engaged=True))


def test_wargear_limits():
    tcs = by_name.datasheet(TCS)
    with pytest.raises(MathhammerError, match="at most 1 model of a unit of 5 can take 'plasma gun' .each once"):
        tcs.equip(["plasma gun", "plasma gun"])  # each special weapon once per unit
    with pytest.raises(MathhammerError, match="at most 1 model .* 'plasma gun' .each once per unit; asked: '2x plasma"):
        tcs.equip(["2x plasma gun"])
    with pytest.raises(MathhammerError, match="cannot take 'lascannon'"):
        tcs.equip(["lascannon"])
    gear = [g for _, g in tcs.equip(["flamer", "grenade launcher", "hot-shot volley gun", "meltagun"])]
    assert sorted(g[0] for g in gear[1:]) == ["flamer", "grenade launcher", "hot-shot volley gun", "meltagun"]


def test_hazardous_both_wordings():
    scion = Target.parse("T3 Sv4+ W1").single
    two = hazardous_losses([scion, scion], mode=EXACT)  # each test fails on a 1
    assert as_dict(two) == {0: Fraction(25, 36), 1: Fraction(10, 36), 2: Fraction(1, 36)}
    big = Target.parse("T3 Sv4+ W4").single  # 3 mortal wounds do not kill a W4 model; being destroyed does
    assert as_dict(hazardous_losses([big], Rules(), mode=EXACT)) == {0: 1}
    assert as_dict(hazardous_losses([big], Rules.named("launch"), mode=EXACT)) == {0: Fraction(5, 6),
                                                                                   1: Fraction(1, 6)}
    hero = Target.parse("T3 Sv4+ W4 [CHARACTER]").single  # seed 000: a CHARACTER suffers 3 mortal wounds instead
    assert as_dict(hazardous_losses([hero], Rules.named("launch"), mode=EXACT)) == {0: 1}
    tough = Target.parse("T3 Sv4+ W3 fnp5+").single  # Feel No Pain applies to those mortal wounds
    assert hazardous_losses([tough], mode=EXACT).p(1) == Fraction(1, 6) * Fraction(2, 3) ** 3


def test_battle_shock():
    assert 1 - pass_chance(7, EXACT) == Fraction(15, 36)
    # 5 W1 models, each shot kills on a 2+ to wound with no save: 3+ of 5 destroyed, not all 5.
    target = Target.parse("T1 Sv7+ W1 x5 Ld7+")
    r = attack(Weapon.parse("A1 S8 AP0 D1 [TORRENT]"), target, 5, exact=True)
    p = Fraction(5, 6)
    expected_below = sum(math.comb(5, k) * p**k * (1 - p) ** (5 - k) for k in (3, 4))
    assert r.p_below_half == expected_below
    assert r.p_battle_shocked == expected_below * Fraction(15, 36)


def test_unit_query_matches_the_engine_directly():
    incursors = by_name.datasheet("Incursor Squad").as_target(10)
    report = unit_attack(TCS, incursors, ["plasma gun", "meltagun"], modifiers=["take-aim"],
                         context=Context(half_range=True), exact=True)
    # Take Aim! and the Tempestor Prime's Sustained Hits 1 are on every ranged firing.
    assert all(f.weapon.skill == 2 and f.weapon.sustained_hits is not None for f in report.firings)
    direct = attack(list(report.firings), incursors, context=Context(half_range=True), exact=True)
    assert report.result.models_destroyed == direct.models_destroyed
    assert report.result.hazardous_tests_failed is None


RUN = ["unit", TCS, "--loadout", "plasma gun, meltagun", "--target", "Incursor Squad", "--target-models", "10",
       "--with", "take-aim", "--with", "go-to-ground", "--cover", "--half-range"]


def test_cli_unit_query_from_the_issue():
    out = CliRunner().invoke(cli, RUN)
    assert out.exit_code == 0, out.output
    assert "models destroyed" in out.output and "Take Aim!" in out.output and "Go to Ground" in out.output


def test_cli_unit_json_has_groups_and_consequences():
    out = CliRunner().invoke(cli, [*RUN, "--leader", "T4 Sv3+ inv4+ W4 Ld6+", "--profile", "supercharge",
                                   "--json", "--exact"])
    assert out.exit_code == 0, out.output
    data_ = json.loads(out.output)
    assert [g["models"] for g in data_["groups"]] == [10, 1]
    assert sum(Fraction(p) for p in data_["groups"][1]["models_destroyed"]["pmf"]) == 1
    assert data_["hazardous_models_lost"]["pmf"][0] == "5/6"  # one supercharged plasma gun
    assert Fraction(data_["p_battle_shocked"]) == Fraction(data_["p_below_half"]) * Fraction(10, 36)  # 2D6 < 6
    assert data_["firings"][0] == {"weapon": "plasma gun (supercharge)", "models": 1}


@pytest.mark.parametrize(("args", "fragment"), [
    (["unit", "Tempestus Squad", "--target", "MEQ"], "did you mean"),
    (["unit", TCS, "--target", "MEQQ"], "did you mean 'MEQ'"),
    (["unit", TCS, "--target", "MEQ", "--with", "take aimm"], "did you mean 'take-aim'"),
    (["unit", TCS, "--target", "MEQ", "--loadout", "lascannon"], "lascannon"),
    (["unit", TCS, "--target", "MEQ", "--order", "one"], "--order"),
    # an Attached unit's leader takes wounds once its bodyguards are gone: an order claiming otherwise is refused
    (["unit", TCS, "--target", "MEQ", "--leader", "T4 Sv3+ W4", "--order", "2,1"],
     "--order puts group 2 (leader) before a bodyguard: an Attached unit's CHARACTER models take wounds only once its "
     "bodyguards are destroyed"),
    (["unit", TCS, "--target", "MEQ", "--advanced"], "ASSAULT"),
    (["show", "nothing like it"], "unknown datasheet, target or rule"),
])
def test_cli_unit_errors_are_one_line(args, fragment):
    out = CliRunner().invoke(cli, args)
    assert out.exit_code == 2
    lines = out.output.strip().splitlines()
    assert len(lines) == 1 and fragment in lines[0], out.output


def test_cli_lists_and_shows():
    runner = CliRunner()
    listing = runner.invoke(cli, ["datasheets"]).output
    assert "Incursor Squad" in listing and "take-aim" in listing and "TEQ" in listing
    card = runner.invoke(cli, ["show", "tempestus command squad"]).output
    assert "meltagun" in card and "Points: 5 models: 70" in card
    assert "Take Aim!" in runner.invoke(cli, ["show", "take-aim"]).output


# --------------------------------------------------------------------- group numbers, sizes, names
GUNNER = '''name = "Gunner"
faction = "Test"
source = "test"
keywords = ["INFANTRY"]
sizes = [1]
points = { 1 = 10 }
[[models]]
name = "Gunner"
count = 1
stats = 'T3 Sv5+ W1'
equipment = ["gun"]
[weapons.gun]
default = '24" A1 S8 AP0 D1 [TORRENT]'
'''
TWO = "T1 Sv6+ W1; T1 Sv6+ W2"  # group 1: a W1 model, allocated first by default (fewest wounds); group 2: a W2 model


def gunner(tmp_path, *options):
    """One automatic hit, S8 v T1 wounds on 2+ (5/6), at TWO; the answer as JSON, exactly."""
    (tmp_path / "datasheets").mkdir(exist_ok=True)
    (tmp_path / "datasheets" / "gunner.toml").write_text(GUNNER)
    out = CliRunner().invoke(cli, ["unit", "Gunner", "-t", TWO, "--rules-dir", str(tmp_path), "--exact", *options])
    assert out.exit_code == 0, out.output
    return out.output


def test_group_numbers_count_from_1_as_the_answer_lists_them(tmp_path):
    # default: the W1 model takes the wound, saved on 6 (Sv6+, AP0): destroyed 5/6 * 5/6 = 25/36
    assert json.loads(gunner(tmp_path, "--json"))["models_destroyed"]["mean"] == "25/36"
    # group 1 (the W1 model) in cover: saved on 5+, destroyed 5/6 * 4/6 = 5/9; the header names group 1,
    # and the losses list that same group as group 1
    covered = gunner(tmp_path, "--cover-for", "1")
    assert "  Benefit of Cover: group 1\n" in covered and "group 1 (1): 0.556 destroyed on average" in covered
    assert json.loads(gunner(tmp_path, "--cover-for", "1", "--json"))["models_destroyed"]["mean"] == "5/9"
    # named groups: the header and the losses give the same number with the model's name
    named = CliRunner().invoke(cli, ["unit", TCS, "-t", TCS, "--cover-for", "tempestus scion"]).output
    assert "  Benefit of Cover: group 2 (Tempestus Scion)\n" in named and "\ngroup 2, Tempestus Scion (4): " in named
    # group 2 in cover changes nothing for the model wounded first
    assert json.loads(gunner(tmp_path, "--cover-for", "2", "--json"))["models_destroyed"]["mean"] == "25/36"
    # --order 2,1: the W2 model takes the one damage and survives: nothing destroyed
    ordered = gunner(tmp_path, "--order", "2,1")
    assert "  allocation order: group 2, then group 1\n" in ordered
    assert json.loads(gunner(tmp_path, "--order", "2,1", "--json"))["models_destroyed"]["mean"] == "0"
    assert json.loads(gunner(tmp_path, "--order", "1,2", "--json"))["models_destroyed"]["mean"] == "25/36"


def test_turn_takes_the_same_order():
    # 2D6 >= 2 always charges; WS2+ hits 5/6, S8 v T1 wounds 5/6, no save: 25/36 for the W1 model, none for W2
    args = ["turn", "-t", "T1 Sv7+ W1; T1 Sv7+ W2", "-f", "Melee A1 WS2+ S8 AP0 D1", "-d", "2", "--exact"]
    assert json.loads(CliRunner().invoke(cli, [*args, "--json"]).output)["models_destroyed"]["mean"] == "25/36"
    out = CliRunner().invoke(cli, [*args, "--json", "--order", "2,1"])
    assert json.loads(out.output)["models_destroyed"]["mean"] == "0"
    assert "  allocation order: group 2, then group 1\n" in CliRunner().invoke(cli, [*args, "--order", "2,1"]).output


@pytest.mark.parametrize(("args", "message"), [
    (["--order", "0,1"], "--order lists each of the target's model groups once, numbered 1 to 2, got 0,1"),
    (["--order", "2"], "--order lists each of the target's model groups once, numbered 1 to 2, got 2"),
    (["--order", "1,1"], "--order lists each of the target's model groups once, numbered 1 to 2, got 1,1"),
    (["--order", "one"], "Invalid value for '--order': group numbers separated by commas, e.g. '2,1', got 'one'"),
    (["--cover-for", "0"], "--cover-for: no target model group '0' (groups: 1, 2)"),
    (["--cover-for", "3"], "--cover-for: no target model group '3' (groups: 1, 2)"),
    (["--size", "0"], "Militarum Tempestus Command Squad comes in units of 5 models, not 0"),
    (["--size", "7"], "Militarum Tempestus Command Squad comes in units of 5 models, not 7"),
    (["-m", "10"], "No such option '-m'."),
    (["--models", "10"], "No such option '--models'. (Did you mean one of: '--melee', '--order', '--target-models'?)"),
    (["--target-models", "0"], "--target-models must be at least 1, got 0"),
    (["--plot", ""], "Invalid value for '--plot': the path is empty; give a file such as odds.png or odds.svg"),
])
def test_unit_refuses_group_numbers_sizes_and_options_it_does_not_know(args, message):
    out = CliRunner().invoke(cli, ["unit", TCS, "-t", "T4 Sv4+ W1 x5; T4 Sv4+ W2 x3", *args])
    assert out.exit_code == 2 and out.output == f"error: {message}\n"


def test_a_datasheet_target_is_sized_as_its_datasheet_allows():
    # Incursor Squad: 5 or 10 models
    out = CliRunner().invoke(cli, ["unit", TCS, "-t", "Incursor Squad", "--target-models", "7"])
    assert out.exit_code == 2 and out.output == "error: Incursor Squad comes in units of 5 or 10 models, not 7; for " \
        "a unit that has lost models, write the models it started with: 'Incursor Squad x7/10'\n"
    assert by_name.datasheet("Incursor Squad").as_target(10).model_count == 10
    assert by_name.datasheet("Incursor Squad").as_target().model_count == 5  # the default: the smallest size
    # the size after the name, as a matchup's armies and a profile write it ('... W2 x10')
    assert by_name.target_unit("Incursor Squad x10").target.model_count == 10
    assert by_name.target_unit("meq x3").target.model_count == 3
    out = CliRunner().invoke(cli, ["unit", TCS, "-t", "Incursor Squad x7"])
    assert out.exit_code == 2 and out.output == "error: Incursor Squad comes in units of 5 or 10 models, not 7; for " \
        "a unit that has lost models, write the models it started with: 'Incursor Squad x7/10'\n"
    out = CliRunner().invoke(cli, ["unit", TCS, "-t", "Incursor Squad x10", "--target-models", "5"])
    assert out.output == ("error: 'Incursor Squad x10' gives the target 10 models and --target-models 5: give one of "
                          "them\n")


@pytest.mark.parametrize("command", [["survive", "MEQ"], ["turn", "-t", "MEQ", "-f", "Melee A1 WS3+ S4 AP0 D1",
                                                          "-d", "6"]])
def test_target_models_is_one_name_everywhere(command):
    # MEQ resized to 1 model: every models-destroyed distribution is over 0 or 1 model
    out = CliRunner().invoke(cli, [*command, "--target-models", "1", "--json"])
    assert out.exit_code == 0, out.output
    answers = [value for key, value in json.loads(out.output).items() if key.startswith("models_destroyed")]
    assert answers and all(len(answer["pmf"]) == 2 for answer in answers)
    assert CliRunner().invoke(cli, [*command, "-m", "1"]).output == "error: No such option '-m'.\n"


@pytest.mark.parametrize("name", ["take aim", "Take Aim!", "TAKE-AIM", "take_aim", " take   aim "])
def test_names_are_matched_as_players_type_them(name):
    assert CliRunner().invoke(cli, ["show", name]).output.startswith("Take Aim! (order, ")
    assert data.modifier(name).key == "take-aim"


def test_a_name_two_entries_share_is_refused():
    with pytest.raises(MathhammerError, match="thing 'a b' could be any of a-b, a_b: write its name exactly"):
        data.find("a b", {"a-b": 1, "a_b": 2}, "thing")


def test_the_card_shows_every_target_field(tmp_path):
    profile = "T5 Sv3+ inv-ranged4+ W3 fnp-mortal5+ fnp-psychic6+ dr1 halve x2"
    (tmp_path / "targets.toml").write_text(f'[odd]\ndescription = "every field"\nprofile = "{profile}"\n')
    card = CliRunner().invoke(cli, ["show", "odd", "--rules-dir", str(tmp_path)]).output
    assert card == ("odd: every field\n  2 models: Toughness 5 | Save 3+ | Invulnerable save 4+ against ranged attacks"
                    " | Wounds 3 | Feel No Pain 5+ against mortal wounds | Feel No Pain 6+ against psychic attacks"
                    " | damage reduced by 1 | damage halved\n")


def test_a_unit_of_several_sizes_says_which_size_it_took():
    # Incursor Squads come in 5 or 10: without a size the answer is for 5, and its header says so
    target = by_name.find_target("MEQ")
    taken = unit_attack("Incursor Squad", target)
    assert taken.firings[0].models == 5
    assert taken.situation[-1] == "attacker: 5 models, the smallest unit its datasheet allows (it comes in 5 or 10)"
    assert not any(line.startswith("attacker: ") for line in unit_attack("Incursor Squad", target, size=10).situation)
    assert not any(line.startswith("attacker: ") for line in unit_attack(TCS, target).situation)  # one size only
    one = attrs.evolve(by_name.datasheet("Incursor Squad"), sizes=(1, 2), points={1: 20, 2: 40})
    assert unit_attack(one, target).situation[-1] == ("attacker: 1 model, the smallest unit its datasheet allows (it "
                                                      "comes in 1 or 2)")


def test_the_hazardous_line_gives_the_tests_failed_beside_the_models_lost():
    # a trial read "0.000 attacking models lost" for a Knight as "no risk": a failed test costs it 3 mortal wounds
    # alone, so the tests failed come first; one supercharged plasma gun: 1/6 of a test failed, and its bearer (a
    # W1 Tempestus Scion: 3 mortal wounds destroy it) is lost on each failure
    out = CliRunner().invoke(cli, [*RUN, "--profile", "supercharge"])
    assert out.exit_code == 0, out.output
    assert ("Hazardous: 0.167 tests failed on average, P(at least one) = 16.6667%; 0.167 attacking models lost on "
            "average, P(at least one) = 16.6667%") in out.output
