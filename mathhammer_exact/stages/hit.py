"""The hit roll: BS/WS, capped modifiers, Critical Hits, Torrent, Fire Overwatch, Indirect Fire."""

from __future__ import annotations

from fractions import Fraction

from ..model import Context, IndirectFire, ModelProfile, Weapon
from .rolls import Outcome, RollOdds, capped, roll_odds


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
