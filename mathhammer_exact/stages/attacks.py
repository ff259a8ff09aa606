"""Number of attacks: each model rolls its own A, plus Rapid Fire, Blast X and Cleave X bonuses."""

from __future__ import annotations

from fractions import Fraction

from ..editions import EDITION_ABILITIES
from ..errors import MathhammerError
from ..model import Context, Target, Weapon
from ..pmf import Pmf
from .d6 import lowest_rerolled


def attacks_per_model(weapon: Weapon, target: Target, context: Context) -> Pmf:
    """The attacks one model makes with `weapon`: its A roll plus fixed bonuses (exact)."""
    if context.advanced and not weapon.melee and not weapon.assault:
        raise MathhammerError(f"after Advancing only ASSAULT weapons can shoot, not {weapon.name or 'this weapon'}")
    if context.indirect and not weapon.melee and not weapon.indirect_fire:
        raise MathhammerError("only INDIRECT FIRE weapons can shoot a target that is not visible (--indirect), not "
                              f"{weapon.name or 'this weapon'}")
    bonus = 0
    if weapon.blast_per_five:
        if context.engaged:
            raise MathhammerError("a BLAST weapon cannot target a unit within Engagement Range of the firer's army")
        if weapon.blast_x:
            _has(context, "blast_x")
        bonus += blast_bonus(weapon, target)
    if weapon.cleave:  # the engine's attacks all go at the one target
        _has(context, "cleave")
        bonus += weapon.cleave * (target.model_count // 5)
    bonus += context.extra_attacks
    if weapon.rapid_fire and context.half_range:
        return weapon.attacks.pmf(exact=True) + weapon.rapid_fire.pmf(exact=True) + bonus
    return weapon.attacks.pmf(exact=True) + bonus


def blast_bonus(weapon: Weapon, target: Target) -> int:
    """The attacks Blast adds to each model's: its X (1 for plain BLAST) per five models in the target."""
    return weapon.blast_per_five * (target.model_count // 5)


def _has(context: Context, ability: str) -> None:
    """Refuse an ability (`editions.EDITION_ABILITIES`) the edition of the rules does not have."""
    definition = context.rules.definition
    if ability not in definition.abilities:
        raise MathhammerError(f"{EDITION_ABILITIES[ability]} is not an ability of the {definition.ordinal} edition "
                              f"(it is the 11th's): give --edition 11e")


def attack_count(weapon: Weapon, target: Target, models: int, context: Context) -> Pmf:
    """Total attacks of `models` models, each rolling its own attacks independently (exact)."""
    if models < 1:
        raise MathhammerError(f"the number of attacking models must be at least 1, got {models}")
    return attacks_per_model(weapon, target, context).repeat(models)


def attack_count_with_one_reroll(weapon: Weapon, target: Target, models: int, context: Context) -> tuple[Pmf, Pmf]:
    """Total attacks when a Command Re-roll is kept for the attacks roll: it re-rolls the lowest
    model's roll if that is below the dice's average. Returns the total when the re-roll is kept
    and when it is spent, each weighted by its chance (exact; together they sum to 1)."""
    if weapon.rapid_fire and weapon.rapid_fire.count and context.half_range:
        raise MathhammerError("a Command Re-roll of the attacks roll with a rolled Rapid Fire is not modelled")
    per_model = attacks_per_model(weapon, target, context)
    bonus = per_model.min - weapon.attacks.minimum
    rolls = weapon.attacks.pmf(exact=True)
    kept, spent = lowest_rerolled(rolls.fractions(), models, Fraction(rolls.mean))
    shift = bonus * models
    return _counts(kept, shift), _counts(spent, shift)


def _counts(chances: dict[int, Fraction], shift: int) -> Pmf:
    """A (possibly partial) distribution of counts from {value: chance}, moved by `shift`."""
    if not chances:
        return Pmf.from_probs([Fraction(0)], shift, exact=True)
    low, high = min(chances), max(chances)
    return Pmf.from_probs([chances.get(v, Fraction(0)) for v in range(low, high + 1)], low + shift, exact=True)
