"""The saving throw: AP (worsened by the target's abilities), Benefit of Cover with its exceptions,
save modifiers with the +1 cap, invulnerable saves, and save re-rolls."""

from __future__ import annotations

from fractions import Fraction

from ..editions import Cover
from ..model import Context, ModelProfile, Weapon
from .d6 import Outcome, RollOdds, roll_odds
from .hit import benefit_of_cover


def armour_piercing(weapon: Weapon, context: Context) -> int:
    """The attack's AP after the target's abilities that worsen it (never better than AP 0)."""
    return min(0, weapon.ap + context.worsen_ap)


def has_cover(weapon: Weapon, target: ModelProfile, context: Context) -> bool:
    """Whether the Benefit of Cover adds 1 to this armour save (the 10th edition's cover; in the 11th it
    worsens the attacker's BS instead: `hit.skill_worsened`)."""
    if context.rules.definition.cover is not Cover.SAVE or not benefit_of_cover(weapon, target, context):
        return False
    return not (target.save <= 3 and armour_piercing(weapon, context) == 0)


def invulnerable_save(weapon: Weapon, target: ModelProfile) -> int | None:
    """The model's best invulnerable save against this attack (one that holds against ranged
    attacks only does not count against a melee attack)."""
    options = [target.invulnerable, None if weapon.melee else target.invulnerable_ranged]
    return min((x for x in options if x is not None), default=None)


def _odds(needed: int, modifier: int, context: Context) -> RollOdds:
    """A save of `needed`+ with a modifier already capped; fail means the wound goes through."""
    return roll_odds(lambda face: Outcome.SUCCESS if face > 1 and face + modifier >= needed else Outcome.FAIL,
                     context.reroll_saves)


def save_odds(weapon: Weapon, target: ModelProfile, context: Context) -> RollOdds:
    """Odds of one saving throw (`fail`: the wound is not saved). The defender takes the armour or
    the invulnerable save, whichever fails less. Every modifier to the roll (AP, cover, save
    modifiers) adds up, and the total never improves the roll by more than +1; AP and cover never
    touch an invulnerable save."""
    cover = 1 if has_cover(weapon, target, context) else 0
    odds = _odds(target.save, min(1, armour_piercing(weapon, context) + cover + context.save_modifier), context)
    invulnerable = invulnerable_save(weapon, target)
    if invulnerable is not None:
        other = _odds(invulnerable, min(1, context.save_modifier), context)
        odds = min(odds, other, key=lambda o: o.fail)
    return odds


def unsaved_chance(weapon: Weapon, target: ModelProfile, context: Context) -> Fraction:
    """Probability that one wound is not saved."""
    return save_odds(weapon, target, context).fail
