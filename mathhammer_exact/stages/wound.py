"""The wound roll: Strength against Toughness, capped modifiers, Critical Wounds, Anti-X, Twin-linked."""

from __future__ import annotations

from ..model import Context, ModelProfile, Reroll, Weapon
from .d6 import Outcome, RollOdds, capped, roll_odds


def required_roll(strength: int, toughness: int) -> int:
    """The unmodified D6 result a wound needs, from the wound table."""
    if strength >= 2 * toughness:
        return 2
    if strength > toughness:
        return 3
    if strength == toughness:
        return 4
    if 2 * strength <= toughness:
        return 6
    return 5


def critical_wound_threshold(weapon: Weapon, target: ModelProfile) -> int:
    """6, or lower when an Anti-KEYWORD X+ ability matches the target."""
    matches = [x for keyword, x in weapon.anti if keyword in target.keywords]
    return min([6, *matches])


def wound_odds(weapon: Weapon, target: ModelProfile, context: Context) -> RollOdds:
    """Odds that one hit fails to wound, wounds, or scores a Critical Wound."""
    needed = required_roll(weapon.strength, target.toughness)
    modifier = context.wound_modifier + (1 if weapon.lance and context.charged else 0)
    modifier = capped(modifier)
    critical = critical_wound_threshold(weapon, target)

    def classify(face: int) -> Outcome:
        if face == 1:
            return Outcome.FAIL
        if face >= critical:
            return Outcome.CRITICAL
        return Outcome.SUCCESS if face + modifier >= needed else Outcome.FAIL

    policy = max(context.reroll_wounds, Reroll.FAILED if weapon.twin_linked else Reroll.NONE)
    return roll_odds(classify, Reroll(policy))
