"""The wound roll: Strength against Toughness, capped modifiers, Critical Wounds, Anti-X, Twin-linked."""

from __future__ import annotations

from ..model import Context, CriticalMortals, DevastatingWounds, ModelProfile, Reroll, Weapon
from .d6 import Outcome, RollOdds, capped, roll_odds
from .hit import Y, with_mortal_wounds


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


def critical_wound_threshold(weapon: Weapon, target: ModelProfile, context: Context) -> int:
    """`context.critical_wound` (6 unless changed), or lower when an Anti-KEYWORD X+ ability
    matches the target."""
    matches = [x for keyword, x in weapon.anti if keyword in target.keywords]
    return min([context.critical_wound, *matches])


def wound_odds(weapon: Weapon, target: ModelProfile, context: Context) -> RollOdds:
    """Odds that one hit fails to wound, wounds, or scores a Critical Wound."""
    needed = required_roll(weapon.strength, target.toughness)
    modifier = context.wound_modifier + context.wound_modifier_against + (1 if weapon.lance and context.charged else 0)
    modifier = capped(modifier, context.rules.definition.modifier_cap)
    critical = critical_wound_threshold(weapon, target, context)

    def classify(face: int) -> Outcome:
        if face == 1:
            return Outcome.FAIL
        if face >= critical:
            return Outcome.CRITICAL
        return Outcome.SUCCESS if face + modifier >= needed else Outcome.FAIL

    policy = max(context.reroll_wounds, Reroll.FAILED if weapon.twin_linked else Reroll.NONE)
    return roll_odds(classify, Reroll(policy))


def per_hit(wound: RollOdds, ordinary: Y, critical: Y) -> Y:
    """What one hit that rolls to wound does: nothing, an ordinary wound (`ordinary`: it goes on to
    the saving throw), or a Critical Wound (`critical`, see `critical_wound`)."""
    return type(ordinary).mixture([(wound.fail, ordinary.nothing()), (wound.success, ordinary),
                                   (wound.critical, critical)])


def critical_wound(weapon: Weapon, wording: DevastatingWounds, ordinary: Y, unsaveable: Y, waiting_attack: Y,
                   waiting_mortal: Y, mortals: tuple[CriticalMortals, Y] | None = None) -> Y:
    """What a Critical Wound does. Without Devastating Wounds it is an ordinary wound. With it, by
    printing: `unsaveable`, an attack with no saving throw, allocated as normal; current wording,
    `waiting_attack`, an attack whose damage lands as mortal wounds after all other attacks, excess
    lost; launch wording, `waiting_mortal`, mortal wounds equal to the damage, landing after all
    other attacks and spilling over. With `mortals` (Critical Wounds that inflict mortal wounds),
    see `with_mortal_wounds`."""
    if not weapon.devastating_wounds:
        return with_mortal_wounds(ordinary, mortals)
    return with_mortal_wounds({DevastatingWounds.UNSAVEABLE: unsaveable, DevastatingWounds.SEED: waiting_attack,
                               DevastatingWounds.LAUNCH: waiting_mortal}[wording], mortals)


def devastating_wounds_wait(weapon: Weapon, wording: DevastatingWounds) -> bool:
    """Whether `weapon`'s Devastating Wounds wait until every weapon profile has resolved: under the current
    and the 2023 (launch) wordings, not under the unsaveable-damage reading, where they are damage dealt at
    once (see `critical_wound`)."""
    return weapon.devastating_wounds and wording is not DevastatingWounds.UNSAVEABLE


def leaves_wounds_waiting(weapon: Weapon, context: Context) -> bool:
    """Whether `weapon`'s attacks can leave mortal wounds waiting until every weapon profile has
    resolved: its Devastating Wounds (`devastating_wounds_wait`), or Critical Hits or Wounds that
    inflict mortal wounds (see `hit.critical_mortals`)."""
    return devastating_wounds_wait(weapon, context.rules.devastating_wounds) or context.critical_mortals is not None
