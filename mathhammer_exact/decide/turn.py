"""A whole turn: shoot, charge, fight, with the target's state carried from the shooting into the fight.

The shooting leaves the target in a state (`AttackResult.state`: which models are gone and how hurt
the next ones are, on any target, mixed or Attached); the fight starts from that state
(`attack(..., start=state)`). The charge succeeds or fails with its exact chance, so the answer is
a mixture of exact distributions: the fight's outcome where the charge succeeds, the shooting's
where it fails. Fire Overwatch at the charger (before the charge roll) removes charging models, so
fewer of them fight: one fight per number of charging models left, each from the shooting's end
state given that number (Overwatch fired by the target's surviving models depends on the shooting).
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

import attrs
import numpy as np

from ..engine.layout import Layout
from ..engine.resolve import attack
from ..engine.results import AttackResult, result_of
from ..errors import MathhammerError
from ..model import Context, Firing, ModelProfile, Target
from ..pmf import Number, Pmf
from ..rolls import charge

LIMIT = 100  #: the most fights one turn resolves: one per number of charging models left after Fire Overwatch


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
    state: Pmf  #: the target's state by the end of the Fight phase (as `AttackResult.state`)
    models_destroyed: Pmf
    damage: Pmf
    p_below_half: Number  #: the target ends the Fight phase Below Half-strength, not destroyed
    p_battle_shocked: Number | None  #: ... and then fails its Battle-shock test (None: no Ld)
    shooting: AttackResult | None  #: None when nothing shoots first
    p_charge: Fraction
    fighters: Pmf  #: charging models left to fight after Fire Overwatch (all of them without it)
    fights: int  #: fights resolved: one per number of charging models left to fight

    @property
    def p_destroyed(self) -> Number:
        return self.models_destroyed.p(self.target.model_count)

    @property
    def p_destroyed_by_shooting(self) -> Number:
        return self.shooting.p_destroyed if self.shooting else 0 * self.damage.mean  # a zero of the answer's mode


def losing(fighting: Sequence[Firing], lost: int) -> list[Firing]:
    """The fighting models after `lost` of them are removed, the last weapon listed losing models first."""
    left = []
    for firing in reversed(fighting):
        gone = min(lost, firing.models)
        lost -= gone
        if firing.models - gone:
            left.append(attrs.evolve(firing, models=firing.models - gone))
    return left[::-1]


def in_the_fight(context: Context) -> Context:
    """The query's situation as it stands in the Fight phase, after a charge: its modifiers, re-rolls
    and the target's own rules carry on; the shooting's circumstances (range, cover, movement, Fire
    Overwatch, visibility) do not."""
    return attrs.evolve(context, charged=True, half_range=False, cover=False, stationary=False, advanced=False,
                        overwatch=False, indirect=False, engaged=False, beyond_conversion_range=False)


def charging(fighting: Sequence[Firing], context: Context) -> list[Firing]:
    """The fighting models as they fight: each weapon in its own situation (the query's as it stands in
    the fight, or the flags written on the weapon), having charged."""
    return [attrs.evolve(f, context=attrs.evolve(f.context, charged=True) if f.context else in_the_fight(context))
            for f in fighting]


def given(state: Pmf, where: np.ndarray) -> tuple[Fraction, Pmf]:
    """The chance of the states `where` marks (a mask over every state; some of them possible), and the
    distribution of the states given them."""
    inside = where[state.min : state.max + 1]
    if inside.all():
        return Fraction(1), state
    weights = np.where(inside, state.weights, 0)
    total = weights.sum()
    if state.exact:
        return Fraction(int(total), state.denominator), Pmf(weights, int(total), state.min)
    return Fraction(float(total)), Pmf(weights / total, 1, state.min)


def whole_turn(target: Target, shooting: Sequence[Firing], fighting: Sequence[Firing], distance: int,
               reroll: bool = False, modifier: int = 0, overwatch: Overwatch | None = None,
               charger: ModelProfile | None = None, context: Context | None = None, exact: bool = False,
               order: Sequence[int] | None = None) -> Turn:
    """`shooting` at `target`, then a charge over `distance` inches (2D6 + `modifier`, re-rolled when it
    fails if `reroll`), then `fighting` (the charging unit's models, in weapon order) if it succeeds.
    With `overwatch`, the target's side fires at the charger (whose models look like `charger`) first.
    `order` is the defender's allocation order of the target's model groups, in both phases."""
    context = context or Context()
    if not fighting:
        raise MathhammerError("a whole turn needs the charging unit's melee weapons")
    if overwatch is not None and charger is None:
        raise MathhammerError("Fire Overwatch needs the charging models' profile (T, Sv, W)")
    if context.advanced:
        raise MathhammerError("a unit that Advanced cannot charge this turn: leave out --advanced")
    for firing in fighting:
        if not firing.weapon.melee:
            raise MathhammerError(f"{firing.weapon.name or 'a ranged weapon'} is not a melee weapon: "
                                  "the fight uses melee weapons (write them 'Melee A.. WS..')")
    for firing in shooting:
        if firing.weapon.melee:
            raise MathhammerError(f"{firing.weapon.name or 'a weapon written Melee'} is not a ranged weapon: the "
                                  "shooting uses ranged weapons (write them with a Range and BS, e.g. "
                                  "'24\" A2 BS3+ S4 AP0 D1'; melee weapons go with the fight)")
    size = sum(f.models for f in fighting)
    fighting = charging(fighting, context)
    p_charge = Fraction(charge(distance, reroll, modifier, exact=True).p_success)
    layout = Layout.of(target, order)
    shot = attack(list(shooting), target, context=context, exact=exact, order=order) if shooting else None
    shot_state = shot.state if shot else Pmf.point(0, exact)  # state 0: unharmed

    # Fire Overwatch depends on the shooting only through the target's models left: all of them fire it, or
    # another unit does unless the target is gone. The shooting's end states are split by that, and the
    # charging models lost worked out once for each part.
    left = target.model_count - layout.losses[1]
    fire = np.zeros_like(left) if overwatch is None else left if overwatch.by_survivors else np.minimum(left, 1)
    parts: list[tuple[Fraction, Pmf, Pmf]] = []  #: (chance, shooting's end state given it, chargers lost)
    for firing in np.unique(fire[shot_state.min : shot_state.max + 1][shot_state.weights != 0]).tolist():
        p, state = given(shot_state, fire == firing)
        parts.append((p, state, _overwatch_losses(overwatch, firing, charger, size, context, exact)))
    by_fighters: dict[int, list[tuple[Fraction, Pmf]]] = {}
    for p, state, losses in parts:
        for gone, q in enumerate(losses.probabilities(), losses.min):
            if q:
                by_fighters.setdefault(size - gone, []).append((p * Fraction(q), state))
    if len(by_fighters) > LIMIT:
        raise MathhammerError(f"a whole turn resolves at most {LIMIT} fights (one per number of charging models "
                              f"left after Fire Overwatch); this one needs {len(by_fighters)}")

    fight_context = in_the_fight(context)
    ends = [(1 - p_charge, shot_state)]
    chances: dict[int, Fraction] = {}
    fights = 0
    for fighters, weighted in sorted(by_fighters.items()):
        chances[fighters] = p = sum((q for q, _ in weighted), Fraction(0))
        start = Pmf.mixture((q / p, state) for q, state in weighted)  # the shooting's end, given these fighters
        volley = losing(fighting, size - fighters)
        if volley and p_charge:
            fights += 1
            start = attack(volley, target, context=fight_context, exact=exact, order=order, start=start).state
        ends.append((p_charge * p, start))
    end = result_of(layout, Pmf.mixture(ends), lambda _stage: None)  # what the state means; no dice counts
    return Turn(target, end.state, end.models_destroyed, end.damage, end.p_below_half, end.p_battle_shocked, shot,
                p_charge, Pmf.from_mapping(chances, exact), fights)


def _overwatch_losses(overwatch: Overwatch | None, survivors: int, charger: ModelProfile | None, size: int,
                      context: Context, exact: bool) -> Pmf:
    """Charging models destroyed by Fire Overwatch when `survivors` models of the target are left
    (none fire once it is destroyed)."""
    volley = overwatch.volley(survivors) if overwatch and survivors else []
    if not volley or charger is None:
        return Pmf.point(0, exact)
    volley = [attrs.evolve(f, context=attrs.evolve(f.context, overwatch=True) if f.context else None) for f in volley]
    return attack(volley, Target.of(charger, size), context=Context(overwatch=True, rules=context.rules),
                  exact=exact).models_destroyed
