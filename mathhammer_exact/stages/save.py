"""The saving throw: AP, Benefit of Cover with its exceptions, the +1 cap, invulnerable saves."""

from __future__ import annotations

from fractions import Fraction

from ..model import Context, ModelProfile, Weapon
from .d6 import Outcome, roll_odds
from .hit import indirect


def has_cover(weapon: Weapon, target: ModelProfile, context: Context) -> bool:
    """Whether the Benefit of Cover adds 1 to this armour save."""
    if weapon.melee or weapon.ignores_cover:
        return False
    if not (context.cover or target.cover or indirect(weapon, context)):
        return False
    return not (target.save <= 3 and weapon.ap == 0)


def _fail_chance(needed: int, modifier: int) -> Fraction:
    return roll_odds(lambda face: Outcome.SUCCESS if face > 1 and face + modifier >= needed else Outcome.FAIL).fail


def unsaved_chance(weapon: Weapon, target: ModelProfile, context: Context) -> Fraction:
    """Probability that one wound is not saved: the defender uses the better of armour and invulnerable."""
    modifier = min(1, weapon.ap + (1 if has_cover(weapon, target, context) else 0))
    chance = _fail_chance(target.save, modifier)
    if target.invulnerable is not None:
        chance = min(chance, _fail_chance(target.invulnerable, 0))
    return chance
