"""Several weapons in `attack`, points efficiency, and how many is enough (--need)."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from mathhammer_exact import Context, Firing, Target, Weapon, attack
from mathhammer_exact.cli import cli
from mathhammer_exact.decide.firings import loadout, written
from mathhammer_exact.decide.need import LIMIT, need
from mathhammer_exact.decide.points import Efficiency, named_points
from mathhammer_exact.errors import MathhammerError

BOLTER = '24" A2 BS3+ S4 AP-1 D1'
HEAVY = '24" A2 BS3+ S4 AP-1 D2 [RAPID FIRE 1]'
#: each attack destroys a W1, Sv7+ model with 1/6 (a 6: Lethal Hits wound) + 4/6 * 1/2 (2-5 hit, then 4+ wounds) = 1/2
COIN = "A1 BS2+ S4 AP0 D1 [LETHAL HITS]"


def run(args: list[str]):
    return CliRunner().invoke(cli, args)


# --------------------------------------------------------------------- several weapons
def test_written_weapons_carry_models_and_their_own_situation():
    w = written(f"9x {BOLTER} @half-range,cover", models=3, context=Context(stationary=True))
    assert w.firing.models == 9 and w.counted and not w.sought
    assert w.firing.context == Context(stationary=True, half_range=True, cover=True)
    plain = written(BOLTER, models=3)
    assert plain.firing.models == 3 and plain.firing.context is None and not plain.counted
    assert written(f"?x {BOLTER}").sought


@pytest.mark.parametrize("text", [f"9x {BOLTER} @half", "9x @cover", f"{BOLTER} [NOT A RULE]"])
def test_bad_weapons_are_refused(text):
    with pytest.raises(MathhammerError):
        written(text)


def test_sought_weapon_only_where_allowed():
    with pytest.raises(MathhammerError, match=r"\?x"):
        loadout([f"?x {BOLTER}"])


def test_several_weapons_equal_the_api_with_a_list_of_firings():
    target = "T4 Sv3+ W2 x5"
    out = run(["attack", "-w", f"9x {BOLTER}", "-w", f"1x {HEAVY} @half-range", "-t", target, "--exact", "--json"])
    assert out.exit_code == 0, out.output
    firings = [Firing(Weapon.parse(BOLTER), 9), Firing(Weapon.parse(HEAVY), 1, Context(half_range=True))]
    api = attack(firings, Target.parse(target), exact=True)
    data = json.loads(out.output)
    for key in ("damage", "models_destroyed"):
        pmf = getattr(api, key)
        assert [Fraction(p) for p in data[key]["pmf"]] == [0] * pmf.min + pmf.probabilities()
    assert Fraction(data["p_destroyed"]) == api.p_destroyed
    # the half-range flag applied to that weapon only: Rapid Fire 1 adds one attack to its one model
    assert api.attacks.mean == 9 * 2 + 3


def test_models_applies_to_weapons_without_a_count_and_order_is_kept():
    target = Target.parse("T4 Sv3+ W2 x5")
    out = run(["attack", "-w", BOLTER, "-w", f"2x {HEAVY}", "-m", "4", "-t", "T4 Sv3+ W2 x5", "--exact", "--json"])
    data = json.loads(out.output)
    api = attack([Firing(Weapon.parse(BOLTER), 4), Firing(Weapon.parse(HEAVY), 2)], target, exact=True)
    assert Fraction(data["models_destroyed"]["mean"]) == api.models_destroyed.mean
    swapped = attack([Firing(Weapon.parse(HEAVY), 2), Firing(Weapon.parse(BOLTER), 4)], target, exact=True)
    assert swapped.damage.mean > api.damage.mean  # order matters: a D2 hit on a wounded W2 model loses a wound


def test_targets_by_name():
    by_name = run(["attack", "-w", BOLTER, "-m", "10", "-t", "MEQ", "--exact", "--json"])
    written_out = run(["attack", "-w", BOLTER, "-m", "10", "-t", "T4 Sv3+ W2 x5 Ld6+ [INFANTRY]", "--exact", "--json"])
    assert by_name.exit_code == 0
    named, written = json.loads(by_name.output), json.loads(written_out.output)
    assert named.pop("title").endswith("->  MEQ") and written.pop("title").endswith("->  T4 Sv3+ W2 x5 Ld6+ [INFANTRY]")
    assert named == written
    wrong = run(["attack", "-w", BOLTER, "-t", "MEQQ"])
    assert wrong.exit_code == 2 and "did you mean 'MEQ'" in wrong.output


def test_one_weapon_keeps_its_title_and_stages():
    out = run(["attack", "-w", "A1 BS3+ S4 AP-1 D1", "-m", "10", "-t", "T4 Sv3+ W2 x5"])
    assert out.output.startswith("10 x [A1 BS3+ S4 AP-1 D1]  ->  T4 Sv3+ W2 x5\n")
    assert "unsaved wounds" in out.output


# --------------------------------------------------------------------- points
def test_efficiency_by_hand():
    # 10 COIN attacks at ten W1 models: 5 destroyed on average; at 50 points that is 10 kills per 100 points,
    # and each model of a 120-point unit is worth 12 points: 120 points destroyed per 100 points spent
    result = attack(Weapon.parse(COIN), Target.parse("T4 Sv7+ W1 x10"), 10, exact=True)
    found = Efficiency.of(result, 50, 120)
    assert (found.kills_per_100, found.points_destroyed_per_100) == (10, 120)
    assert Efficiency.of(result, 50).points_destroyed_per_100 is None
    with pytest.raises(MathhammerError):
        Efficiency.of(result, 0)


def test_points_from_datasheets():
    assert named_points("Tempestus Command Squad") == 70  # seed 002: 1 Prime + 4 Scions, 70 points
    assert named_points("Incursor Squad") is None  # the seeds leave its points out
    assert named_points("MEQ") is None  # a standard target, not a datasheet


def test_attack_reports_efficiency():
    out = run(["attack", "-w", COIN, "-m", "10", "-t", "T4 Sv7+ W1 x10", "--points", "50", "--target-points", "120",
               "--exact", "--json"])
    data = json.loads(out.output)
    assert data["kills_per_100_points"] == "10" and data["points_destroyed_per_100_points"] == "120"
    assert run(["attack", "-w", COIN, "-t", "T4 Sv7+ W1 x10", "--target-points", "120"]).exit_code == 2


# --------------------------------------------------------------------- how many is enough
def test_need_pins_derived_by_hand():
    shot = [Firing(Weapon.parse(COIN))]
    # P(at least 1 of 5 destroyed) = 1 - (1/2)^n: 7/8 at n = 3, 15/16 at n = 4, so 4 shots for 90%
    found = need(shot, 0, Target.parse("T4 Sv7+ W1 x5"), Fraction(9, 10), at_least=1, exact=True)
    assert (found.models, found.p, found.p_below) == (4, Fraction(15, 16), Fraction(7, 8))
    # both of two destroyed: P(Binomial(n, 1/2) >= 2) = 1 - (n + 1) / 2^n: 1/4 at 2, 1/2 at 3, 11/16 at 4
    found = need(shot, 0, Target.parse("T4 Sv7+ W1 x2"), Fraction(2, 3), exact=True)
    assert (found.models, found.p, found.p_below) == (4, Fraction(11, 16), Fraction(1, 2))


@pytest.mark.parametrize(("weapon", "target", "wanted", "at_least"), [
    ("A2 BS3+ S4 AP-1 D1", "T4 Sv3+ W2 x5", Fraction(1, 2), None),
    ("A1 BS3+ S9 AP-4 DD6", "T10 Sv3+ W12", Fraction(3, 4), None),
    ("A3 BS4+ S5 AP-1 D2 [SUSTAINED HITS 1]", "T4 Sv3+ W2 x10", Fraction(9, 10), 5),
])
def test_need_answer_reaches_the_chance_and_one_fewer_does_not(weapon, target, wanted, at_least):
    unit = Target.parse(target)
    found = need([Firing(Weapon.parse(weapon))], 0, unit, wanted, at_least, exact=True)
    k = at_least or unit.model_count
    at = attack(Weapon.parse(weapon), unit, found.models, exact=True).models_destroyed.at_least(k)
    below = attack(Weapon.parse(weapon), unit, found.models - 1, exact=True).models_destroyed.at_least(k)
    assert at == found.p >= wanted > below == found.p_below


@settings(max_examples=15, deadline=None)
@given(attacks=st.sampled_from(["1", "2", "D3"]), skill=st.integers(2, 5), strength=st.integers(3, 9),
       damage=st.sampled_from(["1", "2", "D3"]), save=st.integers(2, 6), wounds=st.integers(1, 3),
       models=st.integers(1, 5), wanted=st.sampled_from([Fraction(1, 10), Fraction(1, 2), Fraction(9, 10)]))
def test_need_is_the_first_number_that_reaches_the_chance(attacks, skill, strength, damage, save, wounds, models,
                                                          wanted):
    """Against every number of models up to the answer, each asked separately: none below it reaches the chance."""
    weapon = Weapon(attacks, skill, strength, -1, damage)
    unit = Target.parse(f"T4 Sv{save}+ W{wounds} x{models}")
    try:
        found = need([Firing(weapon)], 0, unit, wanted, exact=True)
    except MathhammerError:  # refused only when even the most models the search tries fall short
        assert attack(weapon, unit, LIMIT, exact=True).p_destroyed < wanted
        return
    chances = [attack(weapon, unit, n, exact=True).p_destroyed for n in range(1, found.models + 1)]
    assert chances == sorted(chances)  # more models never make it less likely
    assert chances[-1] == found.p >= wanted
    assert all(p < wanted for p in chances[:-1])


def test_need_with_other_weapons_fixed():
    unit = Target.parse("T4 Sv3+ W2 x5")
    fixed, sought = Firing(Weapon.parse("A1 BS3+ S9 AP-4 DD6"), 2), Firing(Weapon.parse(BOLTER))
    found = need([fixed, sought], 1, unit, Fraction(1, 2), exact=True)
    at = attack([fixed, Firing(sought.weapon, found.models)], unit, exact=True).p_destroyed
    assert at == found.p >= Fraction(1, 2)
    assert attack([fixed, Firing(sought.weapon, found.models - 1)], unit, exact=True).p_destroyed == found.p_below
    assert found.p_below < Fraction(1, 2)
    enough = need([Firing(fixed.weapon, 20), sought], 1, unit, Fraction(1, 100), exact=True)
    assert enough.models == 0 and enough.p_below is None  # the fixed weapons alone are enough


def test_need_is_bounded():
    with pytest.raises(MathhammerError, match=f"even {LIMIT} models"):
        need([Firing(Weapon.parse("A1 BS4+ S3 AP0 D1"))], 0, Target.parse("T12 Sv2+ W22"), Fraction(1, 2))
    # a chance of 1 is never reached where a roll can fail: 200 shots each fail with 1 - 2/3 x 1/2 x 1/3 = 8/9 at
    # one W1 model, (8/9)^200 = 5.9e-11 short of 1; a trial read 'only P = 100.0000%', and a review a float search
    # 'reaching' 1 at 107 models (a rounded chance): a chance of 1 is sought exactly
    shot, one = [Firing(Weapon.parse("A1 BS3+ S4 AP0 D1"))], Target.parse("T4 Sv3+ W1")
    with pytest.raises(MathhammerError) as short:
        need(shot, 0, one, Fraction(1), exact=True)
    assert str(short.value) == (f"even {LIMIT} models give only P = 1 - {float(Fraction(8, 9) ** 200):.2g}; the search "
                                f"stops at {LIMIT}; a chance of 1 is reached only where no roll can fail")
    assert str(short.value) == str(pytest.raises(MathhammerError, need, shot, 0, one, Fraction(1)).value)  # floats
    # at Sv6+ a shot fails with 1 - 2/3 x 1/2 x 5/6 = 13/18: (13/18)^107 < 1e-15, which floating point rounds away
    with pytest.raises(MathhammerError, match=r"^a chance of 1: floating point rounds a chance this near 1 up to it; "
                                              r"ask in exact mode \(--exact\)"):
        need(shot, 0, Target.parse("T4 Sv6+ W1"), Fraction(1))


def test_need_on_the_command_line():
    out = run(["attack", "-w", COIN, "-t", "T4 Sv7+ W1 x5", "--need", "90%", "--at-least", "1", "--exact", "--json"])
    assert out.exit_code == 0, out.output
    assert json.loads(out.output)["need"] == {"models": 4, "at_least": 1, "wanted": "9/10", "p": "15/16",
                                              "p_below": "7/8"}
    text = run(["attack", "-w", COIN, "-t", "T4 Sv7+ W1 x5", "--need", "0.9", "--at-least", "1"]).output
    assert text.startswith("4 x [" + COIN + "]  ->  T4 Sv7+ W1 x5\nfewest models: 4")


@pytest.mark.parametrize(("args", "message"), [
    (["--need", "2"], "at most 1"),
    (["--need", "lots"], "such as 0.9"),
    (["--need", "0.5", "-w", BOLTER], "'?x"),
    (["--at-least", "1"], "goes with --need"),
])
def test_need_errors_are_one_line(args, message):
    out = run(["attack", "-w", COIN, "-t", "T4 Sv7+ W1 x5", *args])
    assert out.exit_code == 2 and message in out.output and len(out.output.strip().splitlines()) == 1


def test_points_of_a_unit_from_an_army_list():
    # tests/fixtures/army.ros prices the Gravel Wardens (10 models) at 180 points and the Warden Captain at 65.
    roster = "tests/fixtures/army.ros"
    assert named_points(f"{roster}#1") == 180 and named_points(f"{roster}#2") == 65
    assert named_points("T4 Sv3+ W2 x5") is None and named_points("MEQ") is None
