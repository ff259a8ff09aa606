"""Lethal Hits: whether a Critical Hit wounds automatically, by the edition's rule and the player's policy.

In the 10th edition it always does. In the 11th the attacking player chooses, for each Critical Hit:
rolling to wound can be worth more (a Critical Wound with Devastating Wounds or Anti-X, a wound re-roll
on an easy wound roll). All Critical Hits of one weapon profile at one target are alike, so the choice
with the higher expected damage is the same for each of them: `best` is one comparison per profile.
"""

from __future__ import annotations

from fractions import Fraction

from ..editions import DevastatingWounds, LethalHits
from ..model import Context, ModelProfile, Weapon
from ..pmf import Pmf
from .damage import attack_threshold, damage_pmf, devastating_damage, feel_no_pain, mortal_threshold, wounds_lost
from .hit import critical_mortals
from .save import unsaved_chance
from .wound import wound_odds


def auto_wounds(weapon: Weapon, target: ModelProfile, context: Context) -> bool:
    """Whether a Critical Hit of `weapon` at a model like `target` wounds automatically (never without
    Lethal Hits). Under `best`, a tie wounds automatically (the two choices are worth the same)."""
    if not weapon.lethal_hits:
        return False
    policy = context.lethal_policy
    if policy is LethalHits.BEST:
        automatic, rolled = expected_damage(weapon, target, context)
        return automatic >= rolled
    return policy is LethalHits.ALWAYS


def expected_damage(weapon: Weapon, target: ModelProfile, context: Context) -> tuple[Fraction, Fraction]:
    """The wounds a Critical Hit of `weapon` is expected to cost a model like `target` (its normal damage
    on an unharmed model, at most its wounds; mortal wounds that spill over in full): when it wounds
    automatically, and when it rolls to wound. Sustained Hits' extra hits are the same either way, and
    left out; so is a Command Re-roll."""

    def felt(damage: Pmf, threshold: int | None) -> Fraction:
        return Fraction(wounds_lost(damage, threshold).map(lambda lost: min(lost, target.wounds)).mean)

    damage = damage_pmf(weapon, target, context)
    ordinary = unsaved_chance(weapon, target, context) * felt(damage, attack_threshold(target, weapon))
    critical = ordinary
    if weapon.devastating_wounds:
        critical = {
            DevastatingWounds.SEED: felt(devastating_damage(weapon, target, context),  # no save, excess lost
                                         mortal_threshold(target, weapon)),
            DevastatingWounds.UNSAVEABLE: felt(damage, attack_threshold(target, weapon)),  # no save
            DevastatingWounds.LAUNCH: Fraction(damage_pmf(weapon, None, context).mean)  # spills over
            * feel_no_pain(mortal_threshold(target, weapon)),
        }[context.rules.devastating_wounds]
    rule = critical_mortals(weapon, context, "wound")
    if rule is not None:  # mortal wounds spill over; `instead`, the attack ends there
        mortal = rule.mortal_wounds.mean * feel_no_pain(mortal_threshold(target, weapon))
        critical = mortal + (0 if rule.instead else critical)
    wound = wound_odds(weapon, target, context)
    return ordinary, wound.success * ordinary + wound.critical * critical
