"""A whole turn: shoot, charge, fight, with pins derived by hand and the state carried exactly."""

from __future__ import annotations

from fractions import Fraction

import pytest
from click.testing import CliRunner

from mathhammer_exact import Context, Firing, ModelProfile, Pmf, Target, Weapon, attack
from mathhammer_exact.cli import cli
from mathhammer_exact.decide.turn import Overwatch, losing, remaining, whole_turn
from mathhammer_exact.errors import MathhammerError
from mathhammer_exact.rolls import charge

#: each attack destroys a W1, Sv7+ model with 1/6 (a 6: Lethal Hits wound) + 4/6 * 1/2 (2-5 hit, then 4+ wounds) = 1/2
COIN = "A1 BS2+ S4 AP0 D1 [LETHAL HITS]"
PAIR = Target.parse("T4 Sv7+ W1 x2")
SHOOT = [Firing(Weapon.parse(COIN))]


def test_pin_shoot_then_charge_then_fight():
    # shooting kills S ~ Bernoulli(1/2); the 7" charge succeeds with 21/36 = 7/12; the fight (2 attacks)
    # kills F ~ Binomial(2, 1/2). P(both destroyed | charge) = 1/2 * P(F >= 1) + 1/2 * P(F = 2) = 3/8 + 1/8 = 1/2.
    # E[kills | charge] = 1/2 * (1 + 3/4) + 1/2 * 1 = 11/8; E[kills | no charge] = 1/2.
    fight = [Firing(Weapon.parse("Melee A2 WS2+ S4 AP0 D1 [LETHAL HITS]"))]
    turn = whole_turn(PAIR, SHOOT, fight, 7, exact=True)
    assert turn.p_charge == Fraction(7, 12)
    assert turn.p_destroyed == Fraction(7, 12) * Fraction(1, 2) == Fraction(7, 24)
    assert turn.models_destroyed.mean == Fraction(5, 12) * Fraction(1, 2) + Fraction(7, 12) * Fraction(11, 8)
    assert turn.models_destroyed.total() == 1 and turn.p_destroyed_by_shooting == 0


def test_pin_with_fire_overwatch_by_the_survivors():
    # two charging W1 models, one COIN attack each; each target model left fires one COIN shot in Overwatch,
    # which hits only on a 6 (then Lethal Hits wounds): a charger lost with 1/6 a shot.
    # S = 1 (1/2): one shot; 1 fighter (1/6) destroys the last model with 1/2, 2 fighters (5/6) with 3/4: 17/24.
    # S = 0 (1/2): two shots; 2 fighters left with 25/36 must both kill (1/4): 25/144; fewer cannot.
    # P(destroyed) = 7/12 * (1/2 * 17/24 + 1/2 * 25/144) = 7/12 * 127/288 = 889/3456.
    fight = [Firing(Weapon.parse(f"Melee {COIN.replace('BS', 'WS')}"), 2)]
    watch = Overwatch((Firing(Weapon.parse(COIN)),), by_survivors=True)
    charger = ModelProfile.parse("T4 Sv7+ W1")
    turn = whole_turn(PAIR, SHOOT, fight, 7, overwatch=watch, charger=charger, exact=True)
    assert turn.p_destroyed == Fraction(889, 3456)
    # fighters: S = 1 -> 1 with 1/6; S = 0 -> 0 with 1/36 and 1 with 10/36
    assert turn.fighters.probabilities() == [Fraction(1, 72), Fraction(1, 12) + Fraction(5, 36), Fraction(55, 72)]
    floats = whole_turn(PAIR, SHOOT, fight, 7, overwatch=watch, charger=charger)
    assert abs(floats.p_destroyed - 889 / 3456) < 1e-12
    for a, b in zip(turn.models_destroyed.probabilities(), floats.models_destroyed.probabilities()):
        assert abs(float(a) - b) < 1e-12


def test_pin_with_fire_overwatch_by_another_unit():
    # one COIN shot in Overwatch whatever the shooting did: a charger lost with 1/6.
    # S = 1 (1/2): 2 fighters (5/6) kill the last model with 3/4, 1 fighter (1/6) with 1/2: 17/24.
    # S = 0 (1/2): 2 fighters (5/6) must both kill (1/4): 5/24. P = 7/12 * (17/48 + 5/48) = 77/288.
    fight = [Firing(Weapon.parse(f"Melee {COIN.replace('BS', 'WS')}"), 2)]
    watch = Overwatch((Firing(Weapon.parse(COIN)),))
    charger = ModelProfile.parse("T4 Sv7+ W1")
    assert whole_turn(PAIR, SHOOT, fight, 7, overwatch=watch, charger=charger, exact=True).p_destroyed \
        == Fraction(77, 288)
    assert whole_turn(PAIR, [], fight, 7, overwatch=watch, charger=charger, exact=True).p_destroyed \
        == Fraction(7, 12) * Fraction(5, 6) * Fraction(1, 4)


def test_float_and_exact_agree_on_a_larger_turn():
    unit = Target.parse("T4 Sv3+ W2 x5")
    shots = [Firing(Weapon.parse('24" A2 BS3+ S4 AP-1 D1'), 5)]
    blows = [Firing(Weapon.parse("Melee A3 WS3+ S5 AP-2 D2"), 5)]
    watch = Overwatch((Firing(Weapon.parse('24" A2 BS3+ S4 AP0 D1')),), by_survivors=True)
    args = (unit, shots, blows, 8, True, -1, watch, ModelProfile.parse("T4 Sv3+ W2"))
    exact, floats = whole_turn(*args, exact=True), whole_turn(*args)
    assert exact.models_destroyed.total() == 1 and exact.damage.total() == 1 and exact.fighters.total() == 1
    assert exact.p_charge == charge(8, reroll=True, modifier=-1).p_success
    for a, b in ((exact.models_destroyed, floats.models_destroyed), (exact.damage, floats.damage)):
        assert a.min == b.min and all(abs(float(x) - y) < 1e-12 for x, y in zip(a.probabilities(), b.probabilities()))


@pytest.mark.parametrize(("target", "shoot", "fight"), [
    ("T4 Sv3+ W2 x5", '10x 24" A2 BS3+ S4 AP-1 D1', "10x Melee A3 WS3+ S4 AP-1 D1"),
    ("T5 Sv3+ W3 x3", '4x 24" A2 BS3+ S5 AP-1 D2', "4x Melee A3 WS3+ S6 AP-2 DD3"),
])
def test_the_state_carried_equals_the_engine_carrying_it(target, shoot, fight):
    """Without Devastating Wounds, the shooting and fight as one list of firings carries the state inside the
    engine; the turn's mixture over the shooting's end states must give the same exact answer."""
    unit = Target.parse(target)
    shots = Firing(Weapon.parse(shoot.split("x ", 1)[1]), int(shoot.split("x")[0]))
    blows = Firing(Weapon.parse(fight.split("x ", 1)[1]), int(fight.split("x")[0]), Context(charged=True))
    turn = whole_turn(unit, [shots], [blows], 9, reroll=True, exact=True)
    p = charge(9, reroll=True).p_success
    both = attack([shots, blows], unit, exact=True).models_destroyed
    alone = attack([shots], unit, exact=True).models_destroyed
    assert turn.models_destroyed == Pmf.mixture([(p, both), (1 - p, alone)])


def test_remaining_puts_the_wounded_model_first():
    unit = Target.parse("T4 Sv3+ W3 x4")
    left, dead = remaining(unit, 7)  # two models destroyed, the third has lost one wound
    assert dead == 2 and [(p.wounds, n) for p, n in left.groups] == [(2, 1), (3, 1)]
    assert remaining(unit, 12) == (None, 4)
    assert remaining(unit, 6)[0].groups == ((unit.single, 2),)


def test_losses_come_from_the_last_weapon_first():
    fist = Firing(Weapon.parse("Melee A3 WS3+ S8 AP-2 D2"), 1)
    sword = Firing(Weapon.parse("Melee A3 WS3+ S4 AP0 D1"), 4)
    assert losing([fist, sword], 2) == [fist, Firing(sword.weapon, 2)]
    assert losing([fist, sword], 5) == []


def test_turn_command_and_errors():
    args = ["turn", "-t", "T4 Sv7+ W1 x2", "-s", COIN, "-f", "Melee A2 WS2+ S4 AP0 D1 [LETHAL HITS]", "-d", "7",
            "--exact"]
    out = CliRunner().invoke(cli, args)
    assert out.exit_code == 0, out.output
    assert "P(unit destroyed by the end of the Fight phase) = 29.1667%  (exactly 7/24)" in out.output
    bad = CliRunner().invoke(cli, [*args, "--fire-overwatch", COIN])
    assert bad.exit_code == 2 and "charging models' profile" in bad.output
    mixed = CliRunner().invoke(cli, [*args, "--fire-overwatch", COIN, "--fire-overwatch", f"2x {COIN}",
                                     "--charger", "T4 Sv7+ W1"])
    assert mixed.exit_code == 2 and "each of the target's surviving models" in mixed.output
    with pytest.raises(MathhammerError, match="at most"):
        whole_turn(Target.parse("T12 Sv3+ W22 x5"), [], [Firing(Weapon.parse("Melee A3 WS3+ S8 AP-2 D2"), 30)], 7)
    with pytest.raises(MathhammerError, match="alike"):
        whole_turn(Target.parse("T4 Sv3+ W2 x5; T4 Sv3+ W3"), [], [Firing(Weapon.parse("Melee A3 WS3+ S8 AP-2 D2"))], 7)
