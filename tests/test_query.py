"""Datasheet units by name: firing rules, consequences (Hazardous, Battle-shock) and the CLI."""

from __future__ import annotations

import json
import math
from fractions import Fraction

import pytest
from click.testing import CliRunner

from mathhammer_exact import Context, MathhammerError, Rules, Target, Weapon, attack
from mathhammer_exact.cli import cli
from mathhammer_exact.data import load as data
from mathhammer_exact.data.query import unit_attack, volley
from mathhammer_exact.engine.consequences import hazardous_losses, pass_chance

from .conftest import as_dict

TCS = "Militarum Tempestus Command Squad"


def names(shots):
    return [(w.name, n) for w, n, _ in shots.weapons]


def test_a_model_shoots_pistols_or_its_other_ranged_weapons():
    incursors = data.datasheet("Incursor Squad")
    assert names(volley(incursors)) == [("occulus bolt carbine", 5)]
    assert names(volley(incursors, pistols=True)) == [("bolt pistol", 5)]
    assert names(volley(incursors, melee=True)) == [("paired combat blades", 5)]
    # The Tempestor Prime has only a pistol, so it fires it; loadout weapons come first.
    tcs = data.datasheet(TCS)
    assert names(volley(tcs, ["meltagun", "plasma gun"])) == [
        ("meltagun", 1), ("plasma gun (standard)", 1), ("bolt pistol", 1), ("hot-shot lasgun", 2)]
    assert names(volley(tcs, ["plasma gun"], profiles=["supercharge"]))[0] == ("plasma gun (supercharge)", 1)


def test_after_advancing_only_assault_weapons_shoot():
    assert names(volley(data.datasheet("Incursor Squad"), advanced=True)) == [("occulus bolt carbine", 5)]
    with pytest.raises(MathhammerError, match="no ASSAULT weapons after Advancing"):
        volley(data.datasheet(TCS), advanced=True)


def test_blast_cannot_target_a_unit_in_engagement_range():
    with pytest.raises(MathhammerError, match="BLAST"):
        unit_attack(TCS, Target.parse("T3 Sv5+ W1 x10"), ["grenade launcher"], context=Context(engaged=True))


def test_wargear_limits():
    tcs = data.datasheet(TCS)
    with pytest.raises(MathhammerError, match="no model left"):
        tcs.equip(["plasma gun", "plasma gun"])  # each special weapon once per unit
    with pytest.raises(MathhammerError, match="cannot take 'lascannon'"):
        tcs.equip(["lascannon"])
    gear = [g for _, g in tcs.equip(["flamer", "grenade launcher", "hot-shot volley gun", "meltagun"])]
    assert sorted(g[0] for g in gear[1:]) == ["flamer", "grenade launcher", "hot-shot volley gun", "meltagun"]


def test_hazardous_both_wordings():
    scion = Target.parse("T3 Sv4+ W1").single
    two = hazardous_losses([scion, scion], exact=True)  # each test fails on a 1
    assert as_dict(two) == {0: Fraction(25, 36), 1: Fraction(10, 36), 2: Fraction(1, 36)}
    big = Target.parse("T3 Sv4+ W4").single  # 3 mortal wounds do not kill a W4 model; being destroyed does
    assert as_dict(hazardous_losses([big], Rules(), exact=True)) == {0: 1}
    assert as_dict(hazardous_losses([big], Rules.named("launch"), exact=True)) == {0: Fraction(5, 6),
                                                                                   1: Fraction(1, 6)}
    hero = Target.parse("T3 Sv4+ W4 [CHARACTER]").single  # seed 000: a CHARACTER suffers 3 mortal wounds instead
    assert as_dict(hazardous_losses([hero], Rules.named("launch"), exact=True)) == {0: 1}
    tough = Target.parse("T3 Sv4+ W3 fnp5+").single  # Feel No Pain applies to those mortal wounds
    assert hazardous_losses([tough], exact=True).p(1) == Fraction(1, 6) * Fraction(2, 3) ** 3


def test_battle_shock():
    assert 1 - pass_chance(7, exact=True) == Fraction(15, 36)
    # 5 W1 models, each shot kills on a 2+ to wound with no save: 3+ of 5 destroyed, not all 5.
    target = Target.parse("T1 Sv7+ W1 x5 Ld7+")
    r = attack(Weapon.parse("A1 S8 AP0 D1 [TORRENT]"), target, 5, exact=True)
    p = Fraction(5, 6)
    expected_below = sum(math.comb(5, k) * p**k * (1 - p) ** (5 - k) for k in (3, 4))
    assert r.p_below_half == expected_below
    assert r.p_battle_shocked == expected_below * Fraction(15, 36)


def test_unit_query_matches_the_engine_directly():
    incursors = data.datasheet("Incursor Squad").as_target(10)
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
