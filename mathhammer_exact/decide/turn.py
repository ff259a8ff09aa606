"""A whole turn: shoot, charge, fight, with the target's state carried from the shooting into the fight.

The shooting leaves the target in a state (for a unit of alike models, the wounds it lost tell
which models are gone and how hurt the next one is); the fight then starts from that state. The
charge succeeds or fails with its exact chance, so the answer is a mixture of exact distributions:
the fight's outcome where the charge succeeds, the shooting's where it fails. Fire Overwatch at the
charger (before the charge roll) removes charging models, so fewer of them fight.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

import attrs

from ..engine.resolve import attack
from ..engine.results import AttackResult
from ..errors import MathhammerError
from ..model import Context, Firing, ModelProfile, Target
from ..pmf import Number, Pmf
from ..rolls import charge

LIMIT = 2500  #: the most fights (target state x models left to fight) one turn resolves


@attrs.frozen
class Overwatch:
    """Fire Overwatch at the charging unit. `firings` fire as given; with `by_survivors`, the one
    firing's weapon is fired by each model of the target still alive after the shooting."""

    firings: tuple[Firing, ...]
    by_survivors: bool = False

    def __attrs_post_init__(self) -> None:
        if not self.firings:
            raise MathhammerError("Fire Overwatch needs at least one weapon")
        if self.by_survivors and len(self.firings) != 1:
            raise MathhammerError("Fire Overwatch by the target's surviving models takes one weapon profile")

    def volley(self, survivors: int) -> list[Firing]:
        if not self.by_survivors:
            return list(self.firings)
        return [attrs.evolve(self.firings[0], models=survivors)] if survivors else []


@attrs.frozen(eq=False)
class Turn:
    """The target's losses by the end of the Fight phase, and what led to them."""

    target: Target
    models_destroyed: Pmf
    damage: Pmf
    shooting: AttackResult | None  #: None when nothing shoots first
    p_charge: Fraction
    fighters: Pmf  #: charging models left to fight after Fire Overwatch (all of them without it)
    fights: int  #: fights resolved (target states x numbers of models left to fight)

    @property
    def p_destroyed(self) -> Number:
        return self.models_destroyed.p(self.target.model_count)

    @property
    def p_destroyed_by_shooting(self) -> Number:
        return self.shooting.p_destroyed if self.shooting else 0 * self.p_charge


def remaining(target: Target, damage: int) -> tuple[Target | None, int]:
    """What is left of a unit of alike models that has lost `damage` wounds: the models destroyed,
    and the survivors as a unit whose wounded model (if any) is a group of its own, taking wounds first."""
    profile, count = target.single, target.model_count
    dead, lost = divmod(damage, profile.wounds)
    alive = count - dead
    if alive <= 0:
        return None, count
    groups = [(attrs.evolve(profile, wounds=profile.wounds - lost), 1)] if lost else []
    if alive - len(groups):
        groups.append((profile, alive - len(groups)))
    return Target(tuple(groups)), dead


def losing(fighting: Sequence[Firing], lost: int) -> list[Firing]:
    """The fighting models after `lost` of them are removed, the last weapon listed losing models first."""
    left = []
    for firing in reversed(fighting):
        gone = min(lost, firing.models)
        lost -= gone
        if firing.models - gone:
            left.append(attrs.evolve(firing, models=firing.models - gone))
    return left[::-1]


def whole_turn(target: Target, shooting: Sequence[Firing], fighting: Sequence[Firing], distance: int,
               reroll: bool = False, modifier: int = 0, overwatch: Overwatch | None = None,
               charger: ModelProfile | None = None, context: Context | None = None, exact: bool = False) -> Turn:
    """`shooting` at `target`, then a charge over `distance` inches (2D6 + `modifier`, re-rolled when it
    fails if `reroll`), then `fighting` (the charging unit's models, in weapon order) if it succeeds.
    With `overwatch`, the target's side fires at the charger (whose models look like `charger`) first."""
    profile = target.single
    context = context or Context()
    if not fighting:
        raise MathhammerError("a whole turn needs the charging unit's melee weapons")
    if overwatch is not None and charger is None:
        raise MathhammerError("Fire Overwatch needs the charging models' profile (T, Sv, W)")
    size = sum(f.models for f in fighting)
    states = target.total_wounds + 1
    if states * (size + 1) > LIMIT:
        raise MathhammerError(f"a whole turn resolves at most {LIMIT} fights; {target.model_count} target models "
                              f"of W{profile.wounds} and {size} charging models give {states * (size + 1)}")
    fight_context = Context(charged=True, rules=context.rules)
    watch_context = Context(overwatch=True, rules=context.rules)
    fighting = [attrs.evolve(f, context=attrs.evolve(f.context, charged=True) if f.context else None)
                for f in fighting]
    if overwatch is not None:
        overwatch = Overwatch(tuple(attrs.evolve(f, context=attrs.evolve(f.context, overwatch=True) if f.context
                                                 else None) for f in overwatch.firings), overwatch.by_survivors)
    p_charge = Fraction(charge(distance, reroll, modifier, exact=True).p_success)
    shot = attack(list(shooting), target, context=context, exact=exact) if shooting else None
    wounds = shot.damage if shot else Pmf.point(0, exact)
    fights: dict[tuple[int, int], AttackResult] = {}
    watched: dict[int, Pmf] = {}  #: the charger's losses to Fire Overwatch, by the target's models left

    charging = Target.of(charger, size) if charger else None

    def overwatch_losses(survivors: int) -> Pmf:
        watch = overwatch.volley(survivors) if overwatch and survivors else []
        if not watch or charging is None:
            return Pmf.point(0, exact)
        key = survivors if overwatch and overwatch.by_survivors else 0
        if key not in watched:
            watched[key] = attack(watch, charging, context=watch_context, exact=exact).models_destroyed
        return watched[key]

    killed: list[tuple[Fraction, Pmf]] = []
    lost: list[tuple[Fraction, Pmf]] = []
    fighters: list[tuple[Fraction, Pmf]] = []
    for damage, p in enumerate(wounds.probabilities(), wounds.min):
        if not p:
            continue
        p = Fraction(p)
        left, dead = remaining(target, damage)
        losses = overwatch_losses(left.model_count if left else 0)
        killed.append((p * (1 - p_charge), Pmf.point(dead, exact)))
        lost.append((p * (1 - p_charge), Pmf.point(damage, exact)))
        for gone, q in enumerate(losses.probabilities(), losses.min):
            if not q:
                continue
            weight = p * p_charge * Fraction(q)
            fighters.append((Fraction(q) * p, Pmf.point(size - gone, exact)))
            volley = losing(fighting, gone)
            if left is None or not volley:
                killed.append((weight, Pmf.point(dead, exact)))
                lost.append((weight, Pmf.point(damage, exact)))
                continue
            key = (damage, size - gone)
            if key not in fights:
                fights[key] = attack(volley, left, context=fight_context, exact=exact, order=range(len(left.groups)))
            killed.append((weight, fights[key].models_destroyed + dead))
            lost.append((weight, fights[key].damage + damage))
    return Turn(target, Pmf.mixture(killed), Pmf.mixture(lost), shot, p_charge, Pmf.mixture(fighters), len(fights))
