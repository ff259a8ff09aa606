"""Whole units: several weapon profiles, resolved in order, against mixed or Attached targets.

Each attack is one event of a Markov chain over the target's state (see `layout`): the
hit roll, the wound roll of every hit it scores, allocation to the model whose turn it
is, that model's save, damage and Feel No Pain. Because the save and damage depend on
the model receiving the wound, wounds cannot be counted first and allocated later as
for identical models. An attack's transition is built from one wound's transition with
sums and products of matrices.

Devastating Wounds that wait until every profile has resolved (seed and launch wordings)
are counted on an extra axis of the state: an operator is then a polynomial in a shift
of that axis, with a matrix for each power.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction

import attrs
import numpy as np

from ..model import CommandReroll, Context, DevastatingWounds, Firing, ModelProfile, MortalWounds, Reroll, Weapon
from ..pmf import Pmf
from ..stages.attacks import attack_count, attack_count_with_one_reroll
from ..stages.d6 import RollOdds
from ..stages.damage import damage_pmf, damage_with_one_reroll, mortal_threshold, wounds_lost
from ..stages.hit import hit_count, hit_odds
from ..stages.save import unsaved_chance
from ..stages.wound import wound_odds
from ..weights import Scaled
from .layout import Layout

Poly = dict[int, Scaled]  # power of the deferred-count shift -> transition matrix


# ------------------------------------------------------------------ operators
def _plus(a: Poly, b: Poly) -> Poly:
    out = dict(a)
    for k, m in b.items():
        out[k] = out[k] + m if k in out else m
    return out


def _times(a: Poly, p: Fraction) -> Poly:
    return {k: m.times(p) for k, m in a.items()} if p else {}


def _then(a: Poly, b: Poly) -> Poly:
    """The operator `a` followed by `b`."""
    out: Poly = {}
    for i, x in a.items():
        for j, y in b.items():
            out = _plus(out, {i + j: x @ y})
    return out


def _apply(op: Poly, state: Scaled) -> Scaled:
    """The state after one event; with `deferred`, axis 0 counts waiting Devastating Wounds."""
    result: Scaled | None = None
    for k, matrix in op.items():
        moved = state @ matrix
        if k:
            shifted = np.zeros_like(moved.array)
            shifted[k:] = moved.array[:-k]
            moved = Scaled(shifted, moved.denominator)
        result = moved if result is None else result + moved
    assert result is not None
    return result


# ------------------------------------------------------------------ one profile
@attrs.frozen
class _Profile:
    """What one weapon profile does to the target, as operators."""

    attack: Poly
    deferred: Scaled | None  # transition of one waiting Devastating Wounds event, if any wait
    attacks: Pmf  # number of attacks, exact
    hits: Pmf  # number of hits, in the query's mode


def _tokened(keep: Poly, spend: Poly, none: Poly) -> Poly:
    """An operator on the doubled state (Command Re-roll at hand | spent): from "at hand" it is
    kept (`keep`) or spent (`spend`); once spent, `none` applies."""
    out: Poly = {}
    for k in set(keep) | set(spend) | set(none):
        parts = [keep.get(k), spend.get(k), none.get(k)]
        present = [m for m in parts if m is not None]
        size = present[0].array.shape[0]
        den = math.lcm(*(m.denominator for m in present)) if present[0].exact else 1
        grid = np.zeros((2 * size, 2 * size), dtype=present[0].array.dtype)
        for m, (rows, cols) in zip(parts, ((0, 0), (0, size), (size, size))):
            if m is not None:
                grid[rows:rows + size, cols:cols + size] = m.array * (den // m.denominator)
        out[k] = Scaled(grid, den)
    return out


def _lift(op: Poly) -> Poly:
    """An operator that neither uses nor needs the Command Re-roll."""
    return _tokened(op, {}, op)


def _rolled(odds: RollOdds, ordinary: Poly, critical: Poly, identity: Scaled) -> Poly:
    """One hit's wound roll: fail, wound (then save and damage), or Critical Wound."""
    return _plus(_plus(_times({0: identity}, odds.fail), _times(ordinary, odds.success)),
                 _times(critical, odds.critical))


def _attack(weapon: Weapon, odds: RollOdds, rolled: Poly, ordinary: Poly, identity: Scaled) -> Poly:
    """One attack: its hit roll, then the wound roll of each hit it scores."""
    first = ordinary if weapon.lethal_hits else rolled
    extra = weapon.sustained_hits.pmf(exact=True) if weapon.sustained_hits else Pmf.point(0, exact=True)
    power: Poly = {0: identity}  # `rolled` applied x times
    sustained: Poly = {}
    for x in range(extra.max + 1):
        sustained = _plus(sustained, _times(power, Fraction(extra.p(x))))
        if x < extra.max:
            power = _then(power, rolled)
    return _plus(_plus(_times({0: identity}, odds.fail), _times(rolled, odds.success)),
                 _times(_then(first, sustained), odds.critical))


def _effects(parts_of_group: list[list[tuple[Fraction, Pmf]]], exact: bool) -> list[Pmf]:
    """Per group, a (possibly partial) mixture of wounds-lost distributions."""
    zero = Pmf(np.zeros(1, dtype=object if exact else np.float64))
    return [Pmf.mixture(parts) if any(p for p, _ in parts) else zero for parts in parts_of_group]


def _damage_rerolled(weapon: Weapon, groups: list[ModelProfile], unsaved: list[Fraction], context: Context,
                     exact: bool) -> tuple[list[list[Pmf]], list[list[Pmf]]]:
    """Per group and wounds already lost: a wound's effect when a Command Re-roll kept for damage
    stays at hand, and when it is spent (a poor roll that would not destroy the model)."""
    zero = Pmf.point(0, exact)
    kept: list[list[Pmf]] = []
    spent: list[list[Pmf]] = []
    for profile, q in zip(groups, unsaved):
        sides = [damage_with_one_reroll(weapon, profile, context, profile.wounds - w, exact)
                 for w in range(profile.wounds)]
        kept.append(_effects([[(1 - q, zero), (q, wounds_lost(keep, profile.feel_no_pain))] for keep, _ in sides],
                             exact))
        spent.append(_effects([[(q, wounds_lost(spend, profile.feel_no_pain))] for _, spend in sides], exact))
    return kept, spent


def _profile(firing: Firing, layout: Layout, context: Context, exact: bool) -> _Profile:
    weapon, target = firing.weapon, layout.target
    groups = [p for p, _ in target.groups]
    unit_profile = attrs.evolve(groups[0], toughness=target.toughness, keywords=target.keywords)
    hit = hit_odds(weapon, unit_profile, context)
    wound = wound_odds(weapon, unit_profile, context)
    identity = Scaled.identity(layout.size, exact)
    zero = Pmf.point(0, exact)

    def transition(effect_of: list[Pmf]) -> Poly:
        return {0: layout.transition(effect_of, weapon.precision)}

    damage = [damage_pmf(weapon, p, context, exact) for p in groups]
    lost = [wounds_lost(d, p.feel_no_pain) for p, d in zip(groups, damage)]
    unsaved = [unsaved_chance(weapon, p, context) for p in groups]
    ordinary = transition(_effects([[(1 - q, zero), (q, hurt)] for q, hurt in zip(unsaved, lost)], exact))
    wording = context.rules.devastating_wounds
    deferred = None
    if not weapon.devastating_wounds:
        critical = ordinary
    elif wording is DevastatingWounds.UNSAVEABLE:
        critical = transition(lost)
    elif wording is DevastatingWounds.SEED:
        critical = {1: identity}
        deferred = layout.transition([wounds_lost(d, mortal_threshold(p)) for p, d in zip(groups, damage)],
                                     weapon.precision)
    else:  # launch wording: the deferred count is of mortal wounds, which spill over one at a time
        mortal = damage_pmf(weapon, None, context, exact=True)
        critical = {d: identity.times(Fraction(p)) for d, p in enumerate(mortal.probabilities(), mortal.min)}
        deferred = layout.transition([wounds_lost(Pmf.point(1, exact), mortal_threshold(p)) for p in groups],
                                     weapon.precision)
    rolled = _rolled(wound, ordinary, critical, identity)
    attack = _attack(weapon, hit, rolled, ordinary, identity)
    kind = context.command_reroll
    if kind is not None:  # the state doubles: Command Re-roll at hand, or spent
        both = _lift({0: identity})[0]
        if kind is CommandReroll.HIT:
            keep, spend = hit.split_for_one_reroll()
            fresh = hit_odds(weapon, unit_profile, attrs.evolve(context, reroll_hits=Reroll.NONE))
            attack = _tokened(_attack(weapon, keep, rolled, ordinary, identity),
                              _times(_attack(weapon, fresh, rolled, ordinary, identity), spend), attack)
        elif kind is CommandReroll.WOUND:
            keep, spend = wound.split_for_one_reroll()
            fresh = wound_odds(attrs.evolve(weapon, twin_linked=False), unit_profile,
                               attrs.evolve(context, reroll_wounds=Reroll.NONE))
            rolled = _tokened(_rolled(keep, ordinary, critical, identity),
                              _times(_rolled(fresh, ordinary, critical, identity), spend), rolled)
            attack = _attack(weapon, hit, rolled, _lift(ordinary), both)
        elif kind in (CommandReroll.SAVE, CommandReroll.DAMAGE):  # spent within one wound
            if kind is CommandReroll.SAVE:
                kept = transition(_effects([[(1 - q, zero)] for q in unsaved], exact))
                spent = transition(_effects([[(q * (1 - q), zero), (q * q, hurt)] for q, hurt in zip(unsaved, lost)],
                                            exact))
            else:
                kept, spent = ({0: layout.transition(side, weapon.precision)}
                               for side in _damage_rerolled(weapon, groups, unsaved, context, exact))
            saving = _tokened(kept, spent, ordinary)
            critical = saving if not weapon.devastating_wounds else _lift(critical)
            attack = _attack(weapon, hit, _rolled(wound, saving, critical, both), saving, both)
        deferred = _lift({0: deferred})[0] if deferred is not None else None
    attacks = attack_count(weapon, target, firing.models, context, exact=True)
    hits = hit_count(weapon, unit_profile, context, attack_count(weapon, target, firing.models, context, exact))
    return _Profile(attack, deferred, attacks, hits)


def _deferred_capacity(profile: _Profile) -> int:
    """The most Devastating Wounds events this profile can leave waiting."""
    return profile.attacks.max * max(profile.attack)


def _after(state: Scaled, op: Poly, count: Pmf) -> Scaled:
    """The state after a random number `count` (exact) of independent events `op`."""
    total = Scaled(np.zeros_like(state.array), 1)
    for u in range(count.max + 1):  # mix the states after u events by P(u events)
        p = Fraction(count.p(u))
        if p:
            total = total + state.times(p)
        if u < count.max:
            state = _apply(op, state)
    return total


def whole_unit(
    firings: Sequence[Firing | MortalWounds], layout: Layout, context: Context, exact: bool
) -> tuple[Pmf, Pmf, Pmf]:
    """Resolve each firing (or mortal wound test) in turn against the target laid out in `layout`,
    carrying its state from one to the next; Devastating Wounds waiting under the seed or launch
    wording land after all of them. Returns the final state, the attacks and the hits."""
    target = layout.target
    state = layout.unharmed(exact)
    token = context.command_reroll is not None
    if token:  # the Command Re-roll is at hand: first half of a doubled state
        state = Scaled(np.concatenate([state.array, np.zeros_like(state.array)]), state.denominator)
    waiting: list[Scaled] = []  # deferred transitions, first profile first; their axes are in reverse order
    attacks = hits = Pmf.point(0, exact)
    for firing in firings:
        if isinstance(firing, MortalWounds):
            point = [wounds_lost(Pmf.point(1, exact), mortal_threshold(p)) for p, _ in target.groups]
            op = {0: layout.transition(point)}
            state = _after(state, _lift(op) if token else op, firing.count())
            continue
        profile = _profile(firing, layout, firing.context or context, exact)
        if profile.deferred is not None:
            grown = np.zeros((_deferred_capacity(profile) + 1, *state.array.shape), dtype=state.array.dtype)
            grown[0] = state.array
            state = Scaled(grown, state.denominator)
            waiting.append(profile.deferred)
        if context.command_reroll is CommandReroll.ATTACKS:  # if still at hand, it may go to this attacks roll
            kept, spent = attack_count_with_one_reroll(firing.weapon, target, firing.models, firing.context or context)
            size = layout.size
            at_hand = Scaled(state.array[..., :size], state.denominator)
            gone = Scaled(state.array[..., size:], state.denominator)
            still = _after(at_hand, profile.attack, kept)
            used = _after(gone, profile.attack, profile.attacks) + _after(at_hand, profile.attack, spent)
            den = math.lcm(still.denominator, used.denominator) if exact else 1
            state = Scaled(np.concatenate([still.array * (den // still.denominator),
                                           used.array * (den // used.denominator)], axis=-1), den)
        else:
            state = _after(state, profile.attack, profile.attacks)
        attacks = attacks + (profile.attacks if exact else profile.attacks.to_float())
        hits = hits + profile.hits
    for transition in waiting:  # the first profile's waiting wounds are on the last axis before the state
        axis = state.array.ndim - 2
        rows = [Scaled(np.take(state.array, k, axis=axis), state.denominator) for k in range(state.array.shape[axis])]
        result = rows[-1]
        for row in rows[-2::-1]:
            result = result @ transition + row
        state = result
    if token:  # whether or not the re-roll was used
        halves = state.array.reshape(2, -1)
        state = Scaled(halves[0] + halves[1], state.denominator)
    return Pmf(state.array, state.denominator), attacks, hits
