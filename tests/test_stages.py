"""Each D6 stage of the engine against a brute-force count of the die's six faces.

The `bf_*` functions are written from the rules (docs/rules.md), in the style of a dice library:
they look at every face of the die and, where a re-roll is allowed, at every face of the second
die, and judge each face as the rules say. They share no code with the engine (not its outcome
type, its face judges, its modifier cap or its wound table), so an engine bug cannot hide in them.
Grids cover every skill, modifier, threshold and re-roll policy the rules allow, plus the abilities
and situations that act on each roll.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from fractions import Fraction as F

import pytest

from mathhammer_exact import Context, MathhammerError, ModelProfile, Reroll, Rules, Weapon
from mathhammer_exact.stages.d6 import Outcome, roll_odds
from mathhammer_exact.stages.hit import hit_odds
from mathhammer_exact.stages.save import unsaved_chance
from mathhammer_exact.stages.wound import wound_odds

FACES = range(1, 7)
SIXTH = F(1, 6)
FAIL, SUCCESS, CRITICAL = "fail", "success", "critical"
POLICIES = ("none", "ones", "failed", "noncrit")
Judge = Callable[[int], str]


# --------------------------------------------------------------------- brute force, from the rules
def may_reroll(policy: str, face: int, verdict: str) -> bool:
    """Re-roll 1s; re-roll failures; re-roll anything that is not a critical ("fishing")."""
    return {"none": False, "ones": face == 1, "failed": verdict == FAIL, "noncrit": verdict != CRITICAL}[policy]


def bf_roll(judge: Judge, policies: tuple[str, ...] = ("none",)) -> dict[str, F]:
    """P(each verdict), and P(failed on a die nobody re-rolled) as "kept fail": the first die is
    rolled again if any of `policies` allows it (re-rolls act on the unmodified face), and the
    second die stands."""
    odds = {FAIL: F(0), SUCCESS: F(0), CRITICAL: F(0), "kept fail": F(0)}
    for first in FACES:
        verdict = judge(first)
        if any(may_reroll(policy, first, verdict) for policy in policies):
            for second in FACES:
                odds[judge(second)] += SIXTH * SIXTH
        else:
            odds[verdict] += SIXTH
            odds["kept fail"] += SIXTH if verdict == FAIL else 0
    return odds


def net(*modifiers: int) -> int:
    """Hit and wound roll modifiers add up, but never to more than +1 or less than -1."""
    total = sum(modifiers)
    return 1 if total > 1 else -1 if total < -1 else total


def bf_hit(skill: int | None, modifier: int, critical: int, policy: str, overwatch: bool = False,
           torrent: bool = False, one_to_three_fail: bool = False) -> dict[str, F]:
    """Torrent hits without a roll (no critical). An unmodified 1 fails (1-3 under the current
    Indirect Fire at an unseen target); Overwatch hits only on an unmodified 6; an unmodified roll
    at or above the critical threshold is a Critical Hit; otherwise the modified roll must reach BS."""
    if torrent:
        return {FAIL: F(0), SUCCESS: F(1), CRITICAL: F(0), "kept fail": F(0)}
    assert skill is not None

    def judge(face: int) -> str:
        if face == 1 or (one_to_three_fail and face <= 3):
            return FAIL
        if overwatch:
            return CRITICAL if face == 6 else FAIL
        if face >= critical:
            return CRITICAL
        return SUCCESS if face + modifier >= skill else FAIL

    return bf_roll(judge, (policy,))


def bf_needed(strength: int, toughness: int) -> int:
    """The wound table, as printed: twice T or more 2+, more than T 3+, T 4+, half T or less 6+, else 5+."""
    table = [(strength >= 2 * toughness, 2), (strength > toughness, 3), (strength == toughness, 4),
             (2 * strength <= toughness, 6)]
    return next((roll for applies, roll in table if applies), 5)


def bf_wound(strength: int, toughness: int, modifier: int, policies: tuple[str, ...], critical: int) -> dict[str, F]:
    """An unmodified 1 fails; an unmodified roll at or above `critical` (6, or Anti-X's X) is a
    Critical Wound; otherwise the modified roll must reach the wound table's number."""
    needed = bf_needed(strength, toughness)

    def judge(face: int) -> str:
        if face == 1:
            return FAIL
        if face >= critical:
            return CRITICAL
        return SUCCESS if face + modifier >= needed else FAIL

    return bf_roll(judge, policies)


def bf_unsaved(save: int, ap: int, invulnerable: int | None, cover: bool) -> F:
    """Armour: D6 + AP (+1 in cover), never improved by more than 1 in all, must reach Sv; an
    unmodified 1 fails. Invulnerable: D6, unmodified, must reach it. The defender takes the better."""
    armour_modifier = min(1, ap + (1 if cover else 0))
    armour_fails = sum(SIXTH for face in FACES if face == 1 or face + armour_modifier < save)
    if invulnerable is None:
        return armour_fails
    return min(armour_fails, sum(SIXTH for face in FACES if face == 1 or face < invulnerable))


def engine(odds: object) -> dict[str, F]:
    return {FAIL: odds.fail, SUCCESS: odds.success, CRITICAL: odds.critical,  # type: ignore[attr-defined]
            "kept fail": odds.fail_first_roll}  # type: ignore[attr-defined]


# --------------------------------------------------------------------- the generic D6 test
VERDICTS = {FAIL: Outcome.FAIL, SUCCESS: Outcome.SUCCESS, CRITICAL: Outcome.CRITICAL}


@pytest.mark.parametrize("policy", POLICIES)
def test_roll_odds_for_every_way_of_judging_the_six_faces(policy):
    """All 3^6 ways a test can judge the faces 1..6, with each re-roll policy."""
    for verdicts in itertools.product((FAIL, SUCCESS, CRITICAL), repeat=6):
        odds = roll_odds(lambda face, v=verdicts: VERDICTS[v[face - 1]], Reroll[policy.upper()])
        expected = bf_roll(lambda face, v=verdicts: v[face - 1], (policy,))
        assert engine(odds) == expected, (verdicts, policy)
        assert sum(expected[k] for k in (FAIL, SUCCESS, CRITICAL)) == 1


def test_brute_force_pins():
    """The brute force itself, against numbers derived by hand."""
    hit_3 = bf_hit(3, 0, 6, "failed")  # 2/3, then 1/3 of the time again 2/3
    assert hit_3[SUCCESS] + hit_3[CRITICAL] == F(2, 3) + F(1, 3) * F(2, 3)
    assert bf_hit(3, 0, 6, "ones")[FAIL] == F(1, 6) * F(2, 6) + F(1, 6)  # a 1 re-rolled and failing, or a 2
    assert bf_hit(3, 0, 6, "noncrit")[CRITICAL] == F(1, 6) + F(5, 6) * F(1, 6)
    assert bf_wound(4, 4, 0, ("none",), 6)[SUCCESS] == F(2, 6)  # 4 or 5; a 6 is critical
    assert bf_unsaved(3, -1, None, False) == F(1, 2) and bf_unsaved(3, -1, None, True) == F(1, 3)
    assert bf_unsaved(2, 0, 4, True) == F(1, 6)  # cover cannot help beyond +1 and never helps a 1


# --------------------------------------------------------------------- hit roll
HIT_SITUATIONS = {  # name -> (weapon fields, target keywords, context fields, extra modifier, 1-3 fail, torrent)
    "plain": ({}, (), {}, 0, False, False),
    "Heavy, Remained Stationary": ({"heavy": True}, (), {"stationary": True}, +1, False, False),
    "Heavy, moved": ({"heavy": True}, (), {}, 0, False, False),
    "Stealth target": ({}, ("STEALTH",), {}, -1, False, False),
    "Heavy, stationary, Stealth target": ({"heavy": True}, ("STEALTH",), {"stationary": True}, 0, False, False),
    "melee at a Stealth target": ({"melee": True}, ("STEALTH",), {}, 0, False, False),
    "Indirect Fire, unseen, current": ({"indirect_fire": True}, (), {"indirect": True}, 0, True, False),
    "Indirect Fire, unseen, 2023": ({"indirect_fire": True}, (), {"indirect": True, "rules": Rules.named("2023")},
                                    -1, False, False),
    "Indirect Fire, visible": ({"indirect_fire": True}, (), {}, 0, False, False),
    "Torrent": ({"torrent": True}, (), {}, 0, False, True),
}


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("situation", HIT_SITUATIONS)
def test_hit_odds(situation, policy):
    fields, keywords, context_fields, extra, one_to_three_fail, torrent = HIT_SITUATIONS[situation]
    target = ModelProfile(toughness=4, save=4, wounds=1, keywords=keywords)
    for skill, modifier, critical, overwatch in itertools.product(range(2, 7), range(-2, 3), range(2, 7),
                                                                  (False, True)):
        weapon = Weapon(attacks=1, skill=None if torrent else skill, strength=4, ap=0, damage=1, **fields)
        if overwatch and weapon.melee:  # Fire Overwatch is a shooting attack: refused for a melee weapon
            with pytest.raises(MathhammerError, match="Fire Overwatch is a shooting attack"):
                hit_odds(weapon, target, Context(overwatch=True))
            continue
        context = Context(hit_modifier=modifier, critical_hit=critical, overwatch=overwatch,
                          reroll_hits=Reroll[policy.upper()], **context_fields)
        expected = bf_hit(None if torrent else skill, net(modifier, extra), critical, policy, overwatch, torrent,
                          one_to_three_fail)
        assert engine(hit_odds(weapon, target, context)) == expected, (skill, modifier, critical, overwatch)


# --------------------------------------------------------------------- wound roll
@pytest.mark.parametrize("policy", POLICIES)
def test_wound_odds_over_the_wound_table(policy):
    for strength, toughness, modifier in itertools.product(range(1, 13), range(1, 13), range(-2, 3)):
        weapon = Weapon(attacks=1, skill=3, strength=strength, ap=0, damage=1)
        target = ModelProfile(toughness=toughness, save=4, wounds=1)
        context = Context(wound_modifier=modifier, reroll_wounds=Reroll[policy.upper()])
        expected = bf_wound(strength, toughness, net(modifier), (policy,), 6)
        assert engine(wound_odds(weapon, target, context)) == expected, (strength, toughness, modifier)


ANTI = {  # name -> (weapon's Anti abilities, target keywords, critical threshold by the rules)
    "no Anti": ((), ("INFANTRY",), 6),
    "Anti-INFANTRY 4+, INFANTRY": ((("INFANTRY", 4),), ("INFANTRY",), 4),
    "Anti-INFANTRY 4+, VEHICLE": ((("INFANTRY", 4),), ("VEHICLE",), 6),
    "Anti-VEHICLE 2+ and Anti-INFANTRY 5+, both": ((("VEHICLE", 2), ("INFANTRY", 5)), ("INFANTRY", "VEHICLE"), 2),
}


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("anti", ANTI)
def test_wound_odds_with_lance_anti_and_twin_linked(anti, policy):
    abilities, keywords, critical = ANTI[anti]
    for (strength, toughness), modifier, lance, charged, twin in itertools.product(
            [(4, 4), (3, 6), (8, 4), (4, 8), (5, 4), (2, 5), (1, 12)], range(-2, 3), (False, True), (False, True),
            (False, True)):
        weapon = Weapon(attacks=1, skill=3, strength=strength, ap=0, damage=1, lance=lance, anti=abilities,
                        twin_linked=twin)
        target = ModelProfile(toughness=toughness, save=4, wounds=1, keywords=keywords)
        context = Context(wound_modifier=modifier, charged=charged, reroll_wounds=Reroll[policy.upper()])
        policies = (policy, "failed") if twin else (policy,)  # Twin-linked: re-roll failed wound rolls
        expected = bf_wound(strength, toughness, net(modifier, 1 if lance and charged else 0), policies, critical)
        assert engine(wound_odds(weapon, target, context)) == expected, (strength, toughness, modifier, lance,
                                                                          charged, twin)


# --------------------------------------------------------------------- saving throw
SAVE_SITUATIONS = {  # name -> (weapon fields, context fields, does the Benefit of Cover apply before exceptions)
    "ranged, no cover": ({}, {}, False),
    "ranged, in cover": ({}, {"cover": True}, True),
    "Ignores Cover, in cover": ({"ignores_cover": True}, {"cover": True}, False),
    "melee, in cover": ({"melee": True}, {"cover": True}, False),
    "Indirect Fire, unseen": ({"indirect_fire": True}, {"indirect": True}, True),
    "Indirect Fire, unseen, Ignores Cover": ({"indirect_fire": True, "ignores_cover": True}, {"indirect": True},
                                             False),
    "Indirect Fire, visible": ({"indirect_fire": True}, {}, False),
}


@pytest.mark.parametrize("situation", SAVE_SITUATIONS)
def test_unsaved_chance(situation):
    fields, context_fields, covered = SAVE_SITUATIONS[situation]
    context = Context(**context_fields)
    for save, ap, invulnerable in itertools.product(range(2, 8), range(0, -7, -1), (None, 2, 3, 4, 5, 6)):
        weapon = Weapon(attacks=1, skill=3, strength=4, ap=ap, damage=1, **fields)
        target = ModelProfile(toughness=4, save=save, wounds=1, invulnerable=invulnerable)
        cover = covered and not (save <= 3 and ap == 0)  # no cover for Sv3+ or better against AP0
        assert unsaved_chance(weapon, target, context) == bf_unsaved(save, ap, invulnerable, cover), \
            (save, ap, invulnerable)
