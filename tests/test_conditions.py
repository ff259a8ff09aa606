"""Every conditional rule, with its condition off and on.

Off: the answer equals, distribution for distribution in exact mode, the answer for the same
weapon without that ability (or the same situation without the flag). On: the answer equals a
value derived here by hand. Every case is asked of five identical models (the engine's compound
path) and of the same five models given as two groups (its whole-unit chain), so both paths are
held to it.

The "on" cases use targets whose models have 1 wound (or exactly the damage dealt), so that every
attack destroys a model with the same chance p, independently: the models destroyed by n attacks
are then min(Binomial(n, p), 5), computed here from math.comb. Each p is the product of the chance
to hit, to wound and to get through the save, each read off the rules in the comment beside it.
"""

from __future__ import annotations

import math
from fractions import Fraction as F

import pytest

from mathhammer_exact import Context, MathhammerError, Rules, Target, Weapon, attack
from tests.conftest import as_dict

MODELS = 5  # models in the target unit
PATHS = {"identical models": (MODELS,), "two groups": (3, 2)}
FOUR = {"identical models": (4,), "two groups": (2, 2)}  # for Blast, which counts the target's models


def unit(profile: str, counts: tuple[int, ...]) -> Target:
    """The target: groups of `profile` models (keywords in brackets go after the count)."""
    stats, _, keywords = profile.partition("[")
    return Target.parse("; ".join(f"{stats.strip()} x{n}" + (f" [{keywords}" if keywords else "") for n in counts))


def answer(weapon: str, profile: str, models: int, path: str, paths: dict[str, tuple[int, ...]] = PATHS,
           **situation: object) -> dict[str, object]:
    """Every distribution the engine reports, exactly, and P(unit destroyed)."""
    result = attack(Weapon.parse(weapon), unit(profile, paths[path]), models, Context(**situation), exact=True)
    return {**{name: as_dict(pmf) for name, pmf in result.stages().items()}, "p_destroyed": result.p_destroyed}


def kills(attacks: int, p: F) -> dict[int, F]:
    """Models destroyed when each of `attacks` attacks destroys a model with chance p: min(Binomial, MODELS)."""
    out: dict[int, F] = {}
    for k in range(attacks + 1):
        chance = math.comb(attacks, k) * p ** k * (1 - p) ** (attacks - k)
        out[min(k, MODELS)] = out.get(min(k, MODELS), F(0)) + chance
    return {k: v for k, v in out.items() if v}


# --------------------------------------------------------------------- condition off
# (with the ability, the situation that does not trigger it) == (without the ability, same situation)
OFF = [
    ("Lance, not charged", "A2 WS3+ S4 AP-1 D1 [LANCE]", "A2 WS3+ S4 AP-1 D1", "T4 Sv4+ W1", {}),
    ("Lance on a ranged weapon, not charged", "A1 BS3+ S5 AP0 D2 [LANCE]", "A1 BS3+ S5 AP0 D2", "T4 Sv3+ W2", {}),
    ("Heavy, moved", "A2 BS4+ S4 AP0 D1 [HEAVY]", "A2 BS4+ S4 AP0 D1", "T4 Sv5+ W1", {}),
    ("Indirect Fire, target visible", "A1 BS3+ S5 AP0 D1 [INDIRECT FIRE]", "A1 BS3+ S5 AP0 D1", "T4 Sv4+ W1", {}),
    ("Indirect Fire, target visible, 2023 printing", "A1 BS2+ S5 AP0 D1 [INDIRECT FIRE]", "A1 BS2+ S5 AP0 D1",
     "T4 Sv4+ W1", {"rules": Rules.named("2023")}),
    ("Rapid Fire, beyond half range", "A1 BS3+ S4 AP0 D1 [RAPID FIRE 1]", "A1 BS3+ S4 AP0 D1", "T4 Sv5+ W1", {}),
    ("Melta, beyond half range", "A1 BS3+ S8 AP-4 D1 [MELTA 2]", "A1 BS3+ S8 AP-4 D1", "T5 Sv3+ W3", {}),
    ("Blast, fewer than five models", "A2 BS3+ S4 AP0 D1 [BLAST]", "A2 BS3+ S4 AP0 D1", "T4 Sv5+ W1", {"paths": FOUR}),
    ("Assault, not advanced", "A2 BS3+ S4 AP0 D1 [ASSAULT]", "A2 BS3+ S4 AP0 D1", "T4 Sv5+ W1", {}),
    ("Anti-INFANTRY, target without the keyword", "A2 BS3+ S4 AP0 D1 [ANTI-INFANTRY 4+]", "A2 BS3+ S4 AP0 D1",
     "T8 Sv5+ W1 [VEHICLE]", {}),
    ("Ignores Cover, no cover", "A2 BS3+ S4 AP0 D1 [IGNORES COVER]", "A2 BS3+ S4 AP0 D1", "T4 Sv4+ W1", {}),
]
FLAG_OFF = [  # a situation flag that changes nothing here == the same query without the flag
    ("cover, Sv3+ against AP0", "A2 BS3+ S4 AP0 D1", "T4 Sv3+ W1", {"cover": True}),
    ("cover, Sv2+ against AP0", "A2 BS3+ S4 AP0 D1", "T4 Sv2+ W1", {"cover": True}),
    ("cover, melee attack", "A2 WS3+ S4 AP-1 D1", "T4 Sv4+ W1", {"cover": True}),
    ("cover never improves an invulnerable save", "A1 BS3+ S4 AP-3 D1", "T4 Sv6+ inv4+ W1", {"cover": True}),
    ("charged, no Lance", "A2 WS3+ S4 AP0 D1", "T4 Sv4+ W1", {"charged": True}),
    ("stationary, no Heavy", "A2 BS4+ S4 AP0 D1", "T4 Sv4+ W1", {"stationary": True}),
    ("half range, no Rapid Fire or Melta", "A2 BS3+ S8 AP-1 D2", "T4 Sv4+ W3", {"half_range": True}),
    ("engaged, no Blast", "A2 BS3+ S4 AP0 D1", "T4 Sv4+ W1", {"engaged": True}),
    ("advanced, melee attack", "A2 WS3+ S4 AP0 D1", "T4 Sv4+ W1", {"advanced": True}),
    ("advanced, Assault weapon", "A2 BS3+ S4 AP0 D1 [ASSAULT]", "T4 Sv4+ W1", {"advanced": True}),
]


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize(("case", "with_ability", "without", "profile", "situation"), OFF, ids=[c[0] for c in OFF])
def test_an_ability_whose_condition_is_off_changes_nothing(case, with_ability, without, profile, situation, path):
    assert answer(with_ability, profile, 3, path, **situation) == answer(without, profile, 3, path, **situation)


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize(("case", "weapon", "profile", "situation"), FLAG_OFF, ids=[c[0] for c in FLAG_OFF])
def test_a_flag_that_does_not_apply_changes_nothing(case, weapon, profile, situation, path):
    assert answer(weapon, profile, 3, path, **situation) == answer(weapon, profile, 3, path)


@pytest.mark.parametrize("path", PATHS)
def test_stealth_does_not_apply_to_melee_attacks(path):
    assert answer("A2 WS3+ S4 AP0 D1", "T4 Sv5+ W1 [STEALTH]", 3, path) == answer("A2 WS3+ S4 AP0 D1", "T4 Sv5+ W1", 3,
                                                                                  path)


@pytest.mark.parametrize("path", PATHS)
def test_ignores_cover_in_cover_is_the_same_weapon_out_of_cover(path):
    assert answer("A2 BS3+ S4 AP0 D1 [IGNORES COVER]", "T4 Sv4+ W1", 3, path, cover=True) == \
        answer("A2 BS3+ S4 AP0 D1", "T4 Sv4+ W1", 3, path)


def test_stealth_needs_every_model_to_have_it():
    mixed = Target.parse("T4 Sv7+ W1 x3 [STEALTH]; T4 Sv7+ W1 x2")
    plain = Target.parse("T4 Sv7+ W1 x3; T4 Sv7+ W1 x2")
    weapon = Weapon.parse("A2 BS3+ S4 AP0 D1")
    assert attack(weapon, mixed, 3, exact=True).stages() == attack(weapon, plain, 3, exact=True).stages()


# --------------------------------------------------------------------- condition on
ON = [  # case, weapon, profile, attacking models, situation, attacks in all, p that one attack destroys a model
    ("Lance, charged", "A1 WS3+ S4 AP0 D1 [LANCE]", "T4 Sv7+ W1", 3, {"charged": True},
     3, F(4, 6) * F(4, 6)),  # hit 3+; wound 4+ with +1: 3+
    ("Lance, charged, +1 more is capped", "A1 WS3+ S4 AP0 D1 [LANCE]", "T4 Sv7+ W1", 3,
     {"charged": True, "wound_modifier": 1}, 3, F(4, 6) * F(4, 6)),  # net +2 capped to +1: still 3+
    ("Lance, charged, with -1 to wound", "A1 WS3+ S4 AP0 D1 [LANCE]", "T4 Sv7+ W1", 3,
     {"charged": True, "wound_modifier": -1}, 3, F(4, 6) * F(3, 6)),  # net 0: 4+
    ("Heavy, Remained Stationary", "A1 BS4+ S4 AP0 D1 [HEAVY]", "T4 Sv7+ W1", 3, {"stationary": True},
     3, F(4, 6) * F(3, 6)),  # hit 4+ with +1: 3+; wound 4+
    ("Indirect Fire, not visible", "A1 BS2+ S4 AP0 D1 [INDIRECT FIRE]", "T4 Sv4+ W1", 3, {"indirect": True},
     3, F(3, 6) * F(3, 6) * F(2, 6)),  # unmodified 1-3 fail: 4+; wound 4+; cover: Sv4+ becomes 3+, fails on 1-2
    ("Indirect Fire, not visible, 2023 printing", "A1 BS2+ S4 AP0 D1 [INDIRECT FIRE]", "T4 Sv4+ W1", 3,
     {"indirect": True, "rules": Rules.named("2023")}, 3, F(4, 6) * F(3, 6) * F(2, 6)),  # -1 to hit: 3+; cover
    ("Rapid Fire 1, half range", "A1 BS3+ S4 AP0 D1 [RAPID FIRE 1]", "T4 Sv7+ W1", 3, {"half_range": True},
     6, F(4, 6) * F(3, 6)),  # 2 attacks per model
    ("Melta 2, half range", "A1 BS3+ S8 AP-4 D1 [MELTA 2]", "T4 Sv7+ W3", 3, {"half_range": True},
     3, F(4, 6) * F(5, 6)),  # S8 vs T4: 2+; damage 1+2 = 3 destroys a W3 model
    ("Blast, five models", "A1 BS3+ S4 AP0 D1 [BLAST]", "T4 Sv7+ W1", 2, {},
     4, F(4, 6) * F(3, 6)),  # one more attack per model for five target models
    ("Assault, advanced", "A1 BS3+ S4 AP0 D1 [ASSAULT]", "T4 Sv7+ W1", 3, {"advanced": True},
     3, F(4, 6) * F(3, 6)),  # shoots as usual
    ("Anti-INFANTRY 4+, INFANTRY target", "A1 BS3+ S4 AP0 D1 [ANTI-INFANTRY 4+]", "T8 Sv7+ W1 [INFANTRY]", 3, {},
     3, F(4, 6) * F(3, 6)),  # S4 vs T8 needs 6+, but 4+ is a Critical Wound
    ("Anti-INFANTRY 4+, keyword in lower case", "A1 BS3+ S4 AP0 D1 [anti-infantry 4+]", "T8 Sv7+ W1 [infantry]", 3,
     {}, 3, F(4, 6) * F(3, 6)),
    ("in cover", "A1 BS3+ S4 AP0 D1", "T4 Sv4+ W1", 3, {"cover": True},
     3, F(4, 6) * F(3, 6) * F(2, 6)),  # Sv4+ with +1: fails on 1-2
    ("in cover, Sv3+ against AP-1", "A1 BS3+ S4 AP-1 D1", "T4 Sv3+ W1", 3, {"cover": True},
     3, F(4, 6) * F(3, 6) * F(2, 6)),  # -1 and +1: Sv3+ fails on 1-2
    ("Ignores Cover, in cover", "A1 BS3+ S4 AP0 D1 [IGNORES COVER]", "T4 Sv4+ W1", 3, {"cover": True},
     3, F(4, 6) * F(3, 6) * F(3, 6)),  # no cover: Sv4+ fails on 1-3
    ("Fire Overwatch", "A1 BS3+ S4 AP0 D1", "T4 Sv7+ W1", 3, {"overwatch": True},
     3, F(1, 6) * F(3, 6)),  # only a 6 hits
    ("Fire Overwatch, +1 to hit and Critical Hits on 5+", "A1 BS3+ S4 AP0 D1", "T4 Sv7+ W1", 3,
     {"overwatch": True, "hit_modifier": 1, "critical_hit": 5}, 3, F(1, 6) * F(3, 6)),  # still only a 6
    ("Fire Overwatch, Torrent", "A1 S4 AP0 D1 [TORRENT]", "T4 Sv7+ W1", 3, {"overwatch": True},
     3, F(3, 6)),  # Torrent hits automatically
    ("Stealth", "A1 BS3+ S4 AP0 D1", "T4 Sv7+ W1 [STEALTH]", 3, {},
     3, F(3, 6) * F(3, 6)),  # -1 to hit: 4+
    ("Stealth against Heavy, Remained Stationary", "A1 BS3+ S4 AP0 D1 [HEAVY]", "T4 Sv7+ W1 [STEALTH]", 3,
     {"stationary": True}, 3, F(4, 6) * F(3, 6)),  # +1 and -1: 3+
]


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize(("case", "weapon", "profile", "models", "situation", "attacks", "p"), ON,
                         ids=[c[0] for c in ON])
def test_an_ability_whose_condition_is_on_gives_the_hand_derived_odds(case, weapon, profile, models, situation,
                                                                     attacks, p, path):
    got = answer(weapon, profile, models, path, **situation)
    assert got["attacks"] == {attacks: 1}
    assert got["models_destroyed"] == kills(attacks, p)
    assert got["p_destroyed"] == kills(attacks, p).get(MODELS, 0)


def test_overwatch_is_a_bs6_weapon():
    """Only an unmodified 6 hits in Overwatch, whatever the BS and modifiers: the whole answer is
    that of the same weapon with BS6+ and no modifiers."""
    target = Target.parse("T4 Sv4+ W2 x5")
    overwatch = attack(Weapon.parse("A3 BS2+ S5 AP-1 D1 [SUSTAINED HITS 1]"), target, 3,
                       Context(overwatch=True, hit_modifier=1, critical_hit=4), exact=True)
    bs6 = attack(Weapon.parse("A3 BS6+ S5 AP-1 D1 [SUSTAINED HITS 1]"), target, 3, exact=True)
    assert overwatch.stages() == bs6.stages()


@pytest.mark.parametrize(("weapon", "situation", "fragment"), [
    ("A1 BS3+ S4 AP0 D1 [BLAST]", {"engaged": True}, "BLAST"),
    ("A1 BS3+ S4 AP0 D1", {"advanced": True}, "ASSAULT"),
])
def test_a_weapon_that_may_not_be_used_is_refused(weapon, situation, fragment):
    with pytest.raises(MathhammerError, match=fragment):
        attack(Weapon.parse(weapon), Target.parse("T4 Sv4+ W1 x5"), 1, Context(**situation))
