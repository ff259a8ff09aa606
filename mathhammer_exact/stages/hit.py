"""The hit roll: BS/WS, capped modifiers, Critical Hits, Torrent, Fire Overwatch, Indirect Fire."""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction
from typing import Any, Protocol, TypeVar

from ..model import Context, IndirectFire, ModelProfile, Weapon
from ..pmf import Pmf
from .d6 import Outcome, RollOdds, capped, roll_odds


def hit_modifier(weapon: Weapon, target: ModelProfile, context: Context) -> int:
    """Net hit roll modifier after the -1..+1 cap."""
    modifier = context.hit_modifier
    if not weapon.melee:
        if weapon.heavy and context.stationary:
            modifier += 1
        if "STEALTH" in target.keywords:
            modifier -= 1
        if indirect(weapon, context) and context.rules.indirect_fire is IndirectFire.LAUNCH:
            modifier -= 1
    return capped(modifier)


def indirect(weapon: Weapon, context: Context) -> bool:
    """True when an Indirect Fire weapon shoots a target it cannot see."""
    return weapon.indirect_fire and context.indirect and not weapon.melee


def hit_odds(weapon: Weapon, target: ModelProfile, context: Context) -> RollOdds:
    """Odds that one attack misses, hits, or scores a Critical Hit."""
    if weapon.torrent:
        return RollOdds(Fraction(0), Fraction(1))
    skill = weapon.skill
    assert skill is not None
    modifier = hit_modifier(weapon, target, context)
    always_fails = 3 if indirect(weapon, context) and context.rules.indirect_fire is IndirectFire.LATER else 1
    critical = 6 if context.overwatch else context.critical_hit

    def classify(face: int) -> Outcome:
        if face <= always_fails:
            return Outcome.FAIL
        if face >= critical:
            return Outcome.CRITICAL
        if context.overwatch:
            return Outcome.FAIL
        return Outcome.SUCCESS if face + modifier >= skill else Outcome.FAIL

    return roll_odds(classify, context.reroll_hits)


class Yields(Protocol):
    """What one attack, hit or wound does, in an algebra with these verbs: a `Pmf` of counts
    (the compound pipeline) or an operator on the target's state (the whole-unit chain)."""

    def then(self: Y, other: Y) -> Y: ...

    def repeated(self: Y, times: Pmf) -> Y: ...

    def nothing(self: Y) -> Y: ...

    @staticmethod
    def mixture(parts: Iterable[tuple[Fraction, Any]]) -> Any: ...


Y = TypeVar("Y", bound=Yields)


def per_attack(hit: RollOdds, per_hit: Y, per_auto: Y, sustained: Pmf, lethal: bool) -> Y:
    """What one attack does: nothing (a miss), one hit's worth (`per_hit`: it rolls to wound), or a
    Critical Hit's worth: with Lethal Hits an automatic wound (`per_auto`, not a Critical Wound),
    and Sustained Hits' extra hits, each an ordinary hit that rolls to wound."""
    critical = (per_auto if lethal else per_hit).then(per_hit.repeated(sustained))
    return type(per_hit).mixture([(hit.fail, per_hit.nothing()), (hit.success, per_hit), (hit.critical, critical)])


def hit_count(weapon: Weapon, target: ModelProfile, context: Context, attacks: Pmf) -> Pmf:
    """Hits scored by a random number of attacks, Sustained Hits' extra hits included."""
    one = Pmf.point(1, attacks.exact)
    item = per_attack(hit_odds(weapon, target, context), one, one, sustained_hits(weapon, attacks.exact),
                      weapon.lethal_hits)
    return attacks.compound(item)


def sustained_hits(weapon: Weapon, exact: bool) -> Pmf:
    """Extra hits a Critical Hit scores (0 without Sustained Hits)."""
    return weapon.sustained_hits.pmf(exact) if weapon.sustained_hits else Pmf.point(0, exact)
