"""Damage of one attack (dice, Melta, damage reduction, halving) and Feel No Pain."""

from __future__ import annotations

from fractions import Fraction

from ..model import Context, ModelProfile, Weapon
from ..pmf import Pmf


def damage_pmf(weapon: Weapon, target: ModelProfile | None, context: Context, exact: bool = False) -> Pmf:
    """Damage of one attack after modifiers, in the commentary's order: halve, add (Melta),
    subtract (-1 damage, never below 1), rounding up at the end. Adding whole numbers
    commutes with rounding up, so rounding the halved roll first gives the same result.

    With no `target`, only the attacker's modifiers apply (mortal wounds that spill over
    under the launch wording of Devastating Wounds are not an attack allocated to a model)."""
    melta = weapon.melta if context.half_range else 0

    def modified(roll: int) -> int:
        value = (roll + 1) // 2 if target and target.halve_damage else roll
        value += melta
        if target and target.reduce_damage:
            value -= 1
        return max(1, value)

    return weapon.damage.pmf(exact).map(modified)


def feel_no_pain(threshold: int | None) -> Fraction:
    """Probability that a wound is lost despite Feel No Pain (1 without it)."""
    return Fraction(1) if threshold is None else Fraction(threshold - 1, 6)


def mortal_threshold(target: ModelProfile) -> int | None:
    """The best Feel No Pain a model has against mortal wounds (a model uses one per wound)."""
    options = [t for t in (target.feel_no_pain, target.feel_no_pain_mortal) if t is not None]
    return min(options, default=None)


def wounds_lost(damage: Pmf, threshold: int | None) -> Pmf:
    """Wounds a model would lose from `damage` points, each ignored on a Feel No Pain roll."""
    if threshold is None:
        return damage
    return damage.compound(Pmf.bernoulli(feel_no_pain(threshold), damage.exact))
