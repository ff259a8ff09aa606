"""Damage of one attack (dice, Melta, damage reduction, halving) and Feel No Pain."""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction

from ..model import Context, ModelProfile, Weapon
from ..pmf import Pmf


def damage_modifier(weapon: Weapon, target: ModelProfile | None, context: Context) -> Callable[[int], int]:
    """The damage an attack deals for a rolled Damage, in the commentary's order: halve, add (Melta),
    subtract (-1 damage, never below 1), rounding up at the end. Adding whole numbers commutes
    with rounding up, so rounding the halved roll first gives the same result.

    With no `target`, only the attacker's modifiers apply (mortal wounds that spill over under
    the launch wording of Devastating Wounds are not an attack allocated to a model)."""
    melta = weapon.melta if context.half_range else 0

    def modified(roll: int) -> int:
        value = (roll + 1) // 2 if target and target.halve_damage else roll
        value += melta
        if target and target.reduce_damage:
            value -= 1
        return max(1, value)

    return modified


def damage_pmf(weapon: Weapon, target: ModelProfile | None, context: Context, exact: bool = False) -> Pmf:
    """Damage of one attack after modifiers (see `damage_modifier`)."""
    return weapon.damage.pmf(exact).map(damage_modifier(weapon, target, context))


def damage_with_one_reroll(weapon: Weapon, target: ModelProfile, context: Context, remaining: int,
                           exact: bool = False) -> tuple[Pmf, Pmf]:
    """Damage against a model with `remaining` wounds when a Command Re-roll is at hand: it is spent
    on a roll below the dice's average that would not already destroy the model. Returns the damage
    when it is kept and when it is spent, each weighted by its chance (together they sum to 1)."""
    modified = damage_modifier(weapon, target, context)
    rolls = weapon.damage.pmf(exact=True)
    average = rolls.mean
    rerolled = [x for x in range(rolls.min, rolls.max + 1) if x < average and modified(x) < remaining]
    p_reroll = sum((Fraction(rolls.p(x)) for x in rerolled), Fraction(0))
    kept: dict[int, Fraction] = {}
    for x in range(rolls.min, rolls.max + 1):
        if x not in rerolled:
            kept[modified(x)] = kept.get(modified(x), Fraction(0)) + Fraction(rolls.p(x))
    fresh = damage_pmf(weapon, target, context, exact=True)
    spent = {d: p_reroll * Fraction(fresh.p(d)) for d in range(fresh.min, fresh.max + 1)}
    return _partial(kept, exact), _partial(spent, exact)


def _partial(chances: dict[int, Fraction], exact: bool) -> Pmf:
    """A distribution whose chances may sum to less than 1 (one branch of a choice)."""
    low, high = min(chances, default=0), max(chances, default=0)
    return Pmf.from_probs([chances.get(v, Fraction(0)) for v in range(low, high + 1)], low, exact)


def harm(lost: Pmf) -> tuple[Fraction, Pmf]:
    """For an event whose wounds lost are `lost` (exact): the chance it costs at least one wound,
    and the wounds lost when it does. Events that cost nothing can be left out of a count, and
    then every event counted costs a wound, so a unit of W wounds is surely destroyed by W of them
    (this bounds the counts the allocation needs)."""
    weights = lost._from_zero()
    kept = int(lost.denominator - weights[0])
    return Fraction(kept, lost.denominator), Pmf(weights[1:], kept, 1)


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
