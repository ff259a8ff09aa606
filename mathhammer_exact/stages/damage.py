"""Damage of one attack (dice, re-rolls, Melta, +1 damage, damage reduction, halving) and Feel No Pain."""

from __future__ import annotations

import functools
from collections.abc import Callable
from fractions import Fraction

from ..dice import Dice
from ..errors import MathhammerError
from ..model import Context, DamageReroll, ModelProfile, Weapon
from ..pmf import Pmf
from .d6 import lowest_rerolled


def damage_modifier(weapon: Weapon, target: ModelProfile | None, context: Context) -> Callable[[int], int]:
    """The damage an attack deals for a rolled Damage, in the commentary's order: halve, add (Melta,
    +1 damage), subtract (-1 damage, never below 1), rounding up at the end. Adding whole numbers
    commutes with rounding up, so rounding the halved roll first gives the same result.

    With no `target`, only the attacker's modifiers apply (mortal wounds that spill over under
    the launch wording of Devastating Wounds are not an attack allocated to a model)."""
    bonus = (weapon.melta if context.half_range else 0) + context.damage_bonus

    def modified(roll: int) -> int:
        value = (roll + 1) // 2 if target and target.halve_damage else roll
        value += bonus
        if target and target.reduce_damage:
            value -= 1
        return max(1, value)

    return modified


def damage_pmf(weapon: Weapon, target: ModelProfile | None, context: Context) -> Pmf:
    """Damage of one attack after the attacker's re-roll and the modifiers (see `damage_modifier`; exact)."""
    return damage_roll(weapon.damage, context.reroll_damage).map(damage_modifier(weapon, target, context))


def devastating_damage(weapon: Weapon, target: ModelProfile, context: Context) -> Pmf:
    """The mortal wounds a waiting Devastating Wounds attack (the current printing) inflicts on a model like `target`:
    its Damage, changed by the target's abilities only where the edition still allocates the attack
    (`RulesEdition.devastating_allocated`; exact)."""
    return damage_pmf(weapon, target if context.rules.definition.devastating_allocated else None, context)


@functools.lru_cache(maxsize=256)
def damage_roll(dice: Dice, policy: DamageReroll) -> Pmf:
    """The Damage roll before modifiers, after the attacker's re-roll (exact). A re-roll is decided on
    the roll itself: a roll of 1 (`ONES`), a roll below the roll's average (`BELOW_AVERAGE`), or the
    lowest die when it is below a die's average (`ONE_DIE`: that die alone is rolled again)."""
    roll = dice.pmf(exact=True)
    if policy is DamageReroll.NONE or dice.count == 0:
        return roll
    if policy is DamageReroll.ONE_DIE:
        return _one_die_rerolled(dice)
    chances: dict[int, Fraction] = {}
    for x, p in roll.fractions().items():
        again = x == 1 if policy is DamageReroll.ONES else x < roll.mean
        for y, q in (roll.fractions().items() if again else [(x, Fraction(1))]):
            chances[y] = chances.get(y, Fraction(0)) + p * q
    return Pmf.from_mapping(chances, exact=True)


def _one_die_rerolled(dice: Dice) -> Pmf:
    """`dice` with its lowest die rolled again when that die is below a die's average."""
    die = Pmf.uniform(1, dice.sides, exact=True)
    chances: dict[int, Fraction] = {}
    for branch in lowest_rerolled(die.fractions(), dice.count, Fraction(die.mean)):
        for total, p in branch.items():
            chances[total + dice.modifier] = chances.get(total + dice.modifier, Fraction(0)) + p
    return Pmf.from_mapping(chances, exact=True)


def damage_with_one_reroll(weapon: Weapon, target: ModelProfile, context: Context,
                           remaining: int) -> tuple[Pmf, Pmf]:
    """Damage against a model with `remaining` wounds when a Command Re-roll is at hand: it is spent
    on a roll below the dice's average that would not already destroy the model. Returns the damage
    when it is kept and when it is spent, each weighted by its chance (exact; together they sum to 1)."""
    if context.reroll_damage is not DamageReroll.NONE:
        raise MathhammerError("a Command Re-roll kept for damage with a damage re-roll ability is not modelled "
                              "(a die is re-rolled at most once): give one of them")
    modified = damage_modifier(weapon, target, context)
    rolls = weapon.damage.pmf(exact=True)
    average = rolls.mean
    rerolled = [x for x in range(rolls.min, rolls.max + 1) if x < average and modified(x) < remaining]
    p_reroll = sum((Fraction(rolls.p(x)) for x in rerolled), Fraction(0))
    kept: dict[int, Fraction] = {}
    for x in range(rolls.min, rolls.max + 1):
        if x not in rerolled:
            kept[modified(x)] = kept.get(modified(x), Fraction(0)) + Fraction(rolls.p(x))
    fresh = damage_pmf(weapon, target, context)
    spent = {d: p_reroll * Fraction(fresh.p(d)) for d in range(fresh.min, fresh.max + 1)}
    return Pmf.from_mapping(kept, exact=True), Pmf.from_mapping(spent, exact=True)


def harm(lost: Pmf) -> tuple[Fraction, Pmf]:
    """For an event whose wounds lost are `lost` (exact): the chance it costs at least one wound,
    and the wounds lost when it does (from the least it can cost). Events that cost nothing can be left
    out of a count, and then every event counted costs at least that least, so a unit is surely destroyed
    by so many of them (`allocation.destroying`: this bounds the counts the allocation needs)."""
    weights = lost._from_zero()
    kept = int(lost.denominator - weights[0])
    least = next((k for k, w in enumerate(weights.tolist()) if k and w), 1)  # the wounds it costs at least
    return Fraction(kept, lost.denominator), Pmf(weights[least:], kept, least)


def feel_no_pain(threshold: int | None) -> Fraction:
    """Probability that a wound is lost despite Feel No Pain (1 without it)."""
    return Fraction(1) if threshold is None else Fraction(threshold - 1, 6)


def attack_threshold(target: ModelProfile, weapon: Weapon) -> int | None:
    """The best Feel No Pain a model has against an attack's normal damage (psychic attacks included)."""
    return _best(target.feel_no_pain, target.feel_no_pain_psychic if weapon.psychic else None)


def mortal_threshold(target: ModelProfile, weapon: Weapon | None = None) -> int | None:
    """The best Feel No Pain a model has against mortal wounds (from `weapon`'s attacks, if any;
    a model uses one per wound)."""
    return _best(attack_threshold(target, weapon) if weapon else target.feel_no_pain, target.feel_no_pain_mortal)


def _best(*thresholds: int | None) -> int | None:
    return min((t for t in thresholds if t is not None), default=None)


def wounds_lost(damage: Pmf, threshold: int | None) -> Pmf:
    """Wounds a model would lose from `damage` points, each ignored on a Feel No Pain roll."""
    if threshold is None:
        return damage
    return damage.compound(Pmf.bernoulli(feel_no_pain(threshold), damage.exact))
