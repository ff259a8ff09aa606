"""A whole turn: shoot, charge, fight, with pins derived by hand and the state carried exactly."""

from __future__ import annotations

import json
from fractions import Fraction

import attrs
import pytest
from click.testing import CliRunner

from mathhammer_exact import Context, Firing, ModelProfile, Pmf, Target, Weapon, attack
from mathhammer_exact.cli import cli
from mathhammer_exact.decide.turn import Overwatch, losing, whole_turn
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


@pytest.mark.parametrize("target", ["T4 Sv3+ W2 x5", "T4 Sv3+ W2 x4 Ld7+; T4 Sv4+ W3 x2 Ld6+",
                                    "T4 Sv3+ W2 x5 Ld7+; T4 Sv2+ W4 inv4+ Ld6+ leader"])
def test_float_and_exact_agree_on_a_larger_turn(target):
    unit = Target.parse(target)
    shots = [Firing(Weapon.parse('24" A2 BS3+ S4 AP-1 D1'), 5)]
    blows = [Firing(Weapon.parse("Melee A3 WS3+ S5 AP-2 D2"), 5)]
    watch = Overwatch((Firing(Weapon.parse('24" A2 BS3+ S4 AP0 D1')),), by_survivors=True)
    args = (unit, shots, blows, 8, True, -1, watch, ModelProfile.parse("T4 Sv3+ W2"))
    exact, floats = whole_turn(*args, exact=True), whole_turn(*args)
    assert exact.models_destroyed.total() == 1 and exact.damage.total() == 1 and exact.fighters.total() == 1
    assert exact.p_charge == charge(8, reroll=True, modifier=-1).p_success
    for a, b in ((exact.models_destroyed, floats.models_destroyed), (exact.damage, floats.damage),
                 (exact.fighters, floats.fighters)):
        assert a.min == b.min and all(abs(float(x) - y) < 1e-12 for x, y in zip(a.probabilities(), b.probabilities()))
    for name in ("p_destroyed", "p_below_half", "p_battle_shocked"):
        x, y = getattr(exact, name), getattr(floats, name)
        assert (x is None) == (y is None) and (x is None or abs(float(x) - y) < 1e-12)


def test_pin_on_an_attached_unit_below_half_and_battle_shocked():
    # Two W1 bodyguards and a W3 leader (Ld7+). The shooting: two COIN attacks, each destroying a bodyguard
    # with 1/2, so S ~ Binomial(2, 1/2) bodyguards lost. The fight: two attacks of 2 damage, each getting
    # through with 1/2 (F ~ Binomial(2, 1/2)); one spent on a W1 bodyguard loses its excess, then the leader.
    # Given the charge (7/12):
    #   S = 2 (1/4): leader alone; F = 1 (1/2) leaves it 1 wound of 3: Below Half (a one-model unit now);
    #                F = 2 (1/4) destroys it.
    #   S = 1 (1/2): F = 2 (1/4): the last bodyguard, then the leader down to 1 wound: Below Half.
    #   S = 0 (1/4): at most the two bodyguards: the leader unhurt, 1 of 3 models is not below half of one.
    # P(destroyed) = 7/12 * 1/16; P(Below Half) = 7/12 * (1/8 + 1/8) = 7/48; only the leader is left then,
    # and fails its Battle-shock test (2D6 < 7) with 15/36: P(Battle-shocked) = 7/48 * 5/12 = 35/576.
    # Models destroyed: no charge (5/12) E = E[S] = 1; charge E = 1/4 * 9/4 + 1/2 * 7/4 + 1/4 * 1 = 27/16.
    unit = Target.parse("T4 Sv7+ W1 x2 Ld6+; T4 Sv7+ W3 Ld7+ leader")
    shoot = [Firing(Weapon.parse(COIN), 2)]
    fight = [Firing(Weapon.parse("Melee A1 WS2+ S4 AP0 D2 [LETHAL HITS]"), 2)]
    turn = whole_turn(unit, shoot, fight, 7, exact=True)
    assert turn.p_destroyed == Fraction(7, 192)
    assert turn.p_below_half == Fraction(7, 48)
    assert turn.p_battle_shocked == Fraction(35, 576)
    assert turn.models_destroyed.mean == Fraction(5, 12) + Fraction(7, 12) * Fraction(27, 16) == Fraction(269, 192)
    assert turn.models_destroyed.total() == 1 and turn.fights == 1
    floats = whole_turn(unit, shoot, fight, 7)
    for a, b in ((turn.p_destroyed, floats.p_destroyed), (turn.p_below_half, floats.p_below_half),
                 (turn.p_battle_shocked, floats.p_battle_shocked)):
        assert abs(float(a) - b) < 1e-12


def remaining(target: Target, order: list[int], damage: int) -> tuple[Target | None, int]:
    """Brute force's picture of a mixed unit (not Attached) that lost `damage` wounds, its models taking them
    one at a time in `order` (group indices): the survivors as a unit whose wounded model (if any) comes
    first as a group of its own, then the others in order; and the models destroyed."""
    models = [target.groups[g][0] for g in order for _ in range(target.groups[g][1])]
    dead = 0
    while dead < len(models) and damage >= models[dead].wounds:
        damage -= models[dead].wounds
        dead += 1
    left = models[dead:]
    if not left:
        return None, dead
    if damage:
        left[0] = attrs.evolve(left[0], wounds=left[0].wounds - damage)
    groups: list[tuple[ModelProfile, int]] = []
    for model in left:  # the wounded model differs from the others by its wounds
        if groups and groups[-1][0] == model:
            groups[-1] = (model, groups[-1][1] + 1)
        else:
            groups.append((model, 1))
    return Target(tuple(groups)), dead


@pytest.mark.parametrize(("target", "order", "watch", "watchers"), [
    ("T4 Sv4+ W1 x3; T4 Sv6+ W2 x2", [0, 1], None, None),
    ("T4 Sv4+ W1 x3; T4 Sv6+ W2 x2", [1, 0], '24" A2 BS3+ S4 AP0 D1', None),
    ("T4 Sv3+ W3 x2; T4 Sv5+ W1 x2; T4 Sv4+ W2", [2, 0, 1], '24" A3 BS3+ S5 AP0 D1', 2),
    ("T4 Sv3+ W2 x4", [0], '24" A1 BS3+ S4 AP0 D1', None),
])
def test_a_turn_equals_fighting_each_outcome_of_the_shooting(target, order, watch, watchers):
    """Brute force: for each damage the shooting can deal, rebuild the survivors as a unit of their own (the
    wounded model first) and fight it, with Fire Overwatch fired by those survivors or by `watchers` models of
    another unit; the turn is the mixture over the shooting's outcomes, the charge and the charging models left."""
    unit = Target.parse(target)
    shoot = [Firing(Weapon.parse('24" A2 BS3+ S4 AP-1 D2'), 3)]
    fight = Weapon.parse("Melee A2 WS3+ S4 AP-1 D1")
    charger = ModelProfile.parse("T4 Sv5+ W1")
    size = 3
    watching = Overwatch((Firing(Weapon.parse(watch), watchers or 1),), by_survivors=not watchers) if watch else None
    turn = whole_turn(unit, shoot, [Firing(fight, size)], 8, reroll=True, overwatch=watching,
                      charger=charger if watch else None, exact=True, order=order)
    p_charge = charge(8, reroll=True, exact=True).p_success
    shot = attack(shoot, unit, exact=True, order=order)
    killed, lost = [(1 - p_charge, shot.models_destroyed)], [(1 - p_charge, shot.damage)]
    for damage, p in shot.damage.fractions().items():
        left, dead = remaining(unit, order, damage)
        losses = Pmf.point(0, exact=True)
        if watch and left is not None:
            losses = attack([Firing(Weapon.parse(watch), watchers or left.model_count, Context(overwatch=True))],
                            Target.of(charger, size), exact=True).models_destroyed
        for gone, q in losses.fractions().items():
            weight = p * p_charge * q
            if left is None or gone == size:
                killed.append((weight, Pmf.point(dead, exact=True)))
                lost.append((weight, Pmf.point(damage, exact=True)))
                continue
            fought = attack([Firing(fight, size - gone, Context(charged=True))], left, exact=True,
                            order=range(len(left.groups)))
            killed.append((weight, fought.models_destroyed + dead))
            lost.append((weight, fought.damage + damage))
    assert turn.models_destroyed == Pmf.mixture(killed)
    assert turn.damage == Pmf.mixture(lost)


@pytest.mark.parametrize("target", ["T4 Sv3+ W2 x5 Ld7+", "T5 Sv3+ W3 x3 Ld6+; T5 Sv2+ W5 Ld6+ leader"])
def test_without_overwatch_the_turn_mixes_the_charge_over_one_volley(target):
    """Without Devastating Wounds, the shooting and fight as one list of firings carries the state inside the
    engine: the turn is that volley where the charge succeeds and the shooting alone where it fails, in every
    measure (models destroyed, damage, Below Half-strength, Battle-shocked)."""
    unit = Target.parse(target)
    shots = Firing(Weapon.parse('24" A2 BS3+ S4 AP-1 D1'), 6)
    blows = Firing(Weapon.parse("Melee A3 WS3+ S6 AP-2 DD3"), 3, Context(charged=True))
    turn = whole_turn(unit, [shots], [blows], 9, reroll=True, exact=True)
    p = charge(9, reroll=True, exact=True).p_success
    both, alone = attack([shots, blows], unit, exact=True), attack([shots], unit, exact=True)
    assert turn.models_destroyed == Pmf.mixture([(p, both.models_destroyed), (1 - p, alone.models_destroyed)])
    assert turn.damage == Pmf.mixture([(p, both.damage), (1 - p, alone.damage)])
    assert turn.p_below_half == p * both.p_below_half + (1 - p) * alone.p_below_half
    assert turn.p_battle_shocked == p * both.p_battle_shocked + (1 - p) * alone.p_battle_shocked


def test_losses_come_from_the_last_weapon_first():
    fist = Firing(Weapon.parse("Melee A3 WS3+ S8 AP-2 D2"), 1)
    sword = Firing(Weapon.parse("Melee A3 WS3+ S4 AP0 D1"), 4)
    assert losing([fist, sword], 2) == [fist, Firing(sword.weapon, 2)]
    assert losing([fist, sword], 5) == []


def test_turn_command_finds_the_target_by_name_in_a_users_rules(tmp_path):
    # the pin of the first test, with the target PAIR named in a user's targets.toml (and sized by --target-models)
    (tmp_path / "targets.toml").write_text('[pair]\ndescription = "two"\nprofile = "T4 Sv7+ W1 x5"\n')
    args = ["turn", "-t", "pair", "--target-models", "2", "--rules-dir", str(tmp_path), "-s", COIN, "-f",
            "Melee A2 WS2+ S4 AP0 D1 [LETHAL HITS]", "-d", "7", "--exact"]
    out = CliRunner().invoke(cli, args)
    assert out.exit_code == 0, out.output
    assert "target: 2 models" in out.output and "(exactly 7/24)" in out.output


def test_turn_command_and_errors():
    args = ["turn", "-t", "T4 Sv7+ W1 x2", "-s", COIN, "-f", "Melee A2 WS2+ S4 AP0 D1 [LETHAL HITS]", "-d", "7",
            "--exact"]
    out = CliRunner().invoke(cli, args)
    assert out.exit_code == 0, out.output
    assert "P(unit destroyed by the end of the Fight phase) = 29.1667%  (exactly 7/24)" in out.output
    assert "Battle-shock" not in out.output  # the target has no Leadership
    led = CliRunner().invoke(cli, ["turn", "-t", "T4 Sv7+ W1 x2 Ld6+", "--leader", "T4 Sv7+ W3 Ld7+",
                                   "-s", f"2x {COIN}", "-f", "2x Melee A1 WS2+ S4 AP0 D2 [LETHAL HITS]", "-d", "7",
                                   "--exact"])
    assert led.exit_code == 0, led.output  # the Attached unit pinned above
    assert "1 model (attached leader)" in led.output and "Lethal Hits (situation: attacker charged)" in led.output
    assert "P(target Below Half-strength by then, not destroyed) = 14.5833%  (exactly 7/48)" in led.output
    assert "P(target then fails its Battle-shock test) = 6.0764%  (exactly 35/576)" in led.output
    bad = CliRunner().invoke(cli, [*args, "--fire-overwatch", COIN])
    assert bad.exit_code == 2 and "charging models' profile" in bad.output
    mixed = CliRunner().invoke(cli, [*args, "--fire-overwatch", COIN, "--fire-overwatch", f"2x {COIN}",
                                     "--charger", "T4 Sv7+ W1"])
    assert mixed.exit_code == 2 and "each of the target's surviving models" in mixed.output
    many = [Firing(Weapon.parse("Melee A1 WS3+ S3 AP0 D1"), 120)]
    volley = Overwatch((Firing(Weapon.parse('24" A1 BS3+ S8 AP0 D1'), 300),))  # 0 to 120 chargers lost
    with pytest.raises(MathhammerError, match="at most 100 fights .* needs 121"):
        whole_turn(PAIR, [], many, 7, overwatch=volley, charger=ModelProfile.parse("T1 Sv7+ W1"))


def test_the_querys_modifiers_and_the_targets_rules_carry_into_the_fight():
    # One WS3+ S4 D1 attack after a charge of 7" (2D6 >= 7: 21/36 = 7/12) at one T4 Sv6+ W1 model that
    # re-rolls failed saves: hit 2/3, wound 1/2, the 6+ save fails 5/6 and again 5/6 (25/36).
    # P(destroyed) = 7/12 * 2/3 * 1/2 * 25/36 = 175/1296 (it was 35/216: the re-roll was dropped in the fight).
    out = CliRunner().invoke(cli, ["turn", "-t", "T4 Sv6+ W1 x1", "-f", "1x Melee A1 WS3+ S4 AP0 D=1", "-d", "7",
                                   "--exact", "--reroll-saves", "failed", "--json"])
    assert out.exit_code == 0, out.output
    assert Fraction(json.loads(out.output)["p_destroyed"]) == Fraction(175, 1296)


@pytest.mark.parametrize(("args", "reason"), [
    (["-f", '1x 24" A1 BS3+ S4 AP0 D=1'], "is not a melee weapon"),
    (["-s", "1x Melee A1 WS3+ S4 AP0 D=1", "-f", "1x Melee A1 WS3+ S4 AP0 D=1"], "is not a ranged weapon"),
    (["-f", "1x Melee A1 WS3+ S4 AP0 D=1", "--advanced"], "cannot charge"),
])
def test_a_turn_that_cannot_happen_is_refused(args, reason):
    out = CliRunner().invoke(cli, ["turn", "-t", "MEQ", "-d", "7", *args])
    assert out.exit_code == 2 and reason in out.output and out.output.count("\n") == 1, out.output


def test_a_turns_header_says_the_charge_as_asked():
    # a trial found the charge's re-roll and modifier, Fire Overwatch and the charger's profile said nowhere but in the
    # answer's numbers
    out = CliRunner().invoke(cli, ["turn", "-t", "MEQ", "-f", "5x Melee A3 WS3+ S4 AP-1 D1", "-d", "9",
                                   "--charge-reroll", "--charge-mod", "1", "--fire-overwatch", "A1 BS3+ S4 AP0 D1",
                                   "--charger", "T4 Sv3+ W2"])
    assert out.exit_code == 0, out.output
    lines = out.output.splitlines()
    assert '  charge: 9" on 2D6+1, re-rolled if it fails (a Command Re-roll)' in lines
    assert ("  Fire Overwatch at the charger by each model of the target left after the shooting: 1 x Attacks 1 | "
            "BS 3+ | Strength 4 | AP 0 | Damage 1; the charger's models: Toughness 4 | Save 3+ | Wounds 2") in lines


# ----------------------------------------------------------------------------- named rules (--with) in a turn
def _turn_json(*args: str) -> dict:
    out = CliRunner().invoke(cli, ["turn", "--exact", "--json", *args])
    assert out.exit_code == 0, out.output
    return json.loads(out.output)


TCS = "Tempestus Command Squad"


def test_a_rule_named_applies_in_each_phase_that_can_use_it():
    from mathhammer_exact.decide.unit_attack import unit_attack

    # Take Aim! (BS +1, ranged weapons) in the shooting only; a 13" charge never succeeds (2D6 is at most 12), so the
    # turn's damage is the shooting's, as `unit --with take-aim` answers it
    shot = unit_attack(TCS, Target.parse("T4 Sv3+ W2 x5 Ld6+"), modifiers=["take-aim"], exact=True).result.damage
    turn = _turn_json("-t", "T4 Sv3+ W2 x5 Ld6+", "-s", TCS, "-f", TCS, "-d", "13", "--with", "take-aim")
    assert [Fraction(p) for p in turn["damage"]["pmf"]] == shot.probabilities()
    assert "--with 'take-aim': applied in the shooting only" in turn["header"]
    # a Command Re-roll of a hit roll, once in each phase
    both = _turn_json("-t", "MEQ", "-s", TCS, "-f", TCS, "-d", "8", "--with", "command-reroll-hit")
    assert "--with 'command-reroll-hit': applied in the shooting and the fight" in both["header"]
    # with the shooting's weapons written out, the fight alone
    fight = _turn_json("-t", "MEQ", "-s", '5x 24" A2 BS3+ S4 AP-1 D1', "-f", TCS, "-d", "8", "--with",
                       "command-reroll-hit")
    assert "--with 'command-reroll-hit': applied in the fight only" in fight["header"]


@pytest.mark.parametrize(("args", "message"), [
    (["-f", TCS, "--with", "take-aim"], "--with 'take-aim' applies in no phase of this turn: shooting: nothing "
                                        "attacks in it; fight: Take Aim! changes nothing here"),
    (["-f", "5x Melee A2 WS3+ S4 AP-1 D1", "--with", "command-reroll-hit"],
     "shooting: nothing attacks in it; fight: --with applies named rules as `mathhammer unit` does, to units named "
     "by their datasheets; 'Melee A2 WS3+ S4 AP-1 D1' is a weapon written out: name its unit instead"),
    (["-s", TCS, "-f", TCS, "--with", "go-to-ground"],  # the target's stratagem of the shooting (a review: unsaid)
     "change its models in one phase only (--with 'go-to-ground' applies in the shooting only): a turn resolves one "
     "target for both phases"),
    (["-s", TCS, "-f", TCS, "--with", "harness-the-flaw-typo"],  # one reason where both phases give it
     "--with 'harness-the-flaw-typo' applies in no phase of this turn: unknown ability or stratagem"),
])
def test_a_rule_named_that_no_phase_of_the_turn_can_use_is_refused(args, message):
    out = CliRunner().invoke(cli, ["turn", "-t", "MEQ", "-d", "8", *args])
    assert out.exit_code == 2 and message in out.output, out.output
