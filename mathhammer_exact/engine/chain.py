"""Whole units: several weapon profiles, resolved in order, against mixed or Attached targets.

Each attack is one event of a Markov chain over the target's state (see `layout`): the
hit roll, the wound roll of every hit it scores, allocation to the model whose turn it
is, that model's save, damage and Feel No Pain. Because the save and damage depend on
the model receiving the wound, wounds cannot be counted first and allocated later as
for identical models. An attack's transition is built from one wound's transition with
sums and products of matrices, kept by their diagonals (`weights.Banded`): one event adds at most
its damage to the wounds lost, so the cost grows with the attacks and the target's wounds, not
with the square of its states. Without Precision an Attached unit's leaders are simply the last
models of one track (`Layout.one_track`).

Devastating Wounds that wait until every profile has resolved (seed and launch wordings)
are counted on an extra axis of the state: an `Operator` is then a polynomial in a shift
of that axis, with a matrix for each power. What one attack does is written once, in
`stages` (`per_attack`, `per_hit`, `critical_wound`), for this chain and the pipeline alike.
"""

from __future__ import annotations

import functools
import math
import operator
from collections.abc import Iterable, Sequence
from fractions import Fraction

import attrs
import numpy as np

from ..model import (
    CommandReroll,
    Context,
    CriticalMortals,
    DevastatingWounds,
    Firing,
    ModelProfile,
    MortalWounds,
    Reroll,
    Target,
    Weapon,
)
from ..pmf import Mode, Pmf
from ..stages.allocation import destroying
from ..stages.attacks import attack_count, attack_count_with_one_reroll
from ..stages.d6 import RollOdds
from ..stages.damage import (
    attack_threshold,
    damage_pmf,
    damage_with_one_reroll,
    devastating_damage,
    mortal_threshold,
    wounds_lost,
)
from ..stages.hit import critical_mortals, hit_count, hit_odds, per_attack, sustained_hits, with_mortal_wounds
from ..stages.lethal import auto_wounds
from ..stages.save import save_odds, unsaved_chance
from ..stages.wound import critical_wound, per_hit, wound_odds
from ..weights import Banded, Scaled, common
from .layout import Layout
from .limits import through_each_state


@attrs.frozen(eq=False)
class Operator:
    """What an event does to the target's state, as a linear map (a transition matrix).

    `terms[k]` holds the outcomes that also leave k more Devastating Wounds waiting: those sit on
    an extra axis of the state and land after every profile has fired. It speaks the same verbs as
    `Pmf` (`then`, `repeated`, `nothing`, `mixture`), so the attack rules in `stages` serve both.
    """

    terms: dict[int, Banded]

    @classmethod
    def moving(cls, matrix: Banded) -> Operator:
        """An event that moves the state by `matrix` and leaves nothing waiting."""
        return cls({0: matrix})

    @classmethod
    def waiting(cls, count: Pmf, identity: Banded) -> Operator:
        """An event that leaves `count` (exact) more Devastating Wounds waiting and nothing else."""
        return cls({k: identity.times(p) for k, p in count.fractions().items()})

    def nothing(self) -> Operator:
        """The event that changes nothing."""
        first = next(iter(self.terms.values()))
        return Operator.moving(Banded.identity(first.size, first.exact))

    def scaled(self, p: Fraction) -> Operator:
        """This event's outcomes, each with its chance multiplied by p."""
        return Operator({k: m.times(p) for k, m in self.terms.items()})

    def __add__(self, other: Operator) -> Operator:
        out = dict(self.terms)
        for k, m in other.terms.items():
            out[k] = out[k] + m if k in out else m
        return Operator(out)

    @staticmethod
    def mixture(parts: Iterable[tuple[Fraction, Operator]]) -> Operator:
        """With chance p_i the event does what op_i does (the chances may sum to less than 1)."""
        parts = list(parts)
        present = [op.scaled(p) for p, op in parts if p]
        return functools.reduce(operator.add, present) if present else parts[0][1].scaled(Fraction(0))

    def then(self, other: Operator) -> Operator:
        """This event followed by `other`."""
        out = Operator({})
        for i, x in self.terms.items():
            for j, y in other.terms.items():
                out = out + Operator({i + j: x @ y})
        return out

    def repeated(self, times: Pmf) -> Operator:
        """A random number `times` (exact) of these events, one after another."""
        power, out = self.nothing(), None
        for x in range(times.max + 1):
            p = Fraction(times.p(x))
            if p:
                out = power.scaled(p) if out is None else out + power.scaled(p)
            if x < times.max:
                power = power.then(self)
        assert out is not None
        return out

    def apply(self, state: Scaled, last: int = 0) -> Scaled:
        """The state after one event. When the event can leave wounds waiting, the last axis of the state
        counts them (the target's states are the first): it grows by the most one event leaves, up to
        `last`, and a count beyond `last` is folded into it (see `_deferred_capacity`: the last value can
        stand for "that many or more" when more would change nothing). Growing as the events come, rather
        than holding every count from the first, spares the work on counts no event has reached yet."""
        if set(self.terms) == {0}:
            return self.terms[0].apply(state)
        moved = [(k, matrix.apply(state)) for k, matrix in self.terms.items()]
        arrays, den = common([(m.array, m.denominator) for _, m in moved], state.exact)
        had = state.array.shape[-1]
        length = min(had + max(self.terms), last + 1)
        out = np.empty((*state.array.shape[:-1], length), dtype=state.array.dtype)
        for index, (k, array) in enumerate(zip(self.terms, arrays)):
            fits = max(0, min(had, length - k))
            if index:
                out[..., k:k + fits] += array[..., :fits]
            else:  # the first term is written, not added to zeros: one pass fewer over the largest arrays
                out[..., :k] = 0
                out[..., k:k + fits] = array[..., :fits]
                out[..., k + fits:] = 0
            if fits < had:
                out[..., -1] += array[..., fits:].sum(axis=-1)
        return Scaled(out, den)

    @staticmethod
    def tokened(keep: Operator, spend: Operator, none: Operator) -> Operator:
        """An event on the doubled state (Command Re-roll at hand | spent): from "at hand" the
        re-roll is kept (`keep`) or spent (`spend`); once spent, `none` applies."""
        out: dict[int, Banded] = {}
        for k in set(keep.terms) | set(spend.terms) | set(none.terms):
            blocks = [(op.terms[k], row, column) for op, row, column in ((keep, 0, 0), (spend, 0, 1), (none, 1, 1))
                      if k in op.terms]
            size = blocks[0][0].size
            out[k] = functools.reduce(operator.add, (m.placed(2 * size, row * size, column * size)
                                                     for m, row, column in blocks))
        return Operator(out)

    def lifted(self) -> Operator:
        """This event on the doubled state, where it neither uses nor needs the Command Re-roll."""
        return Operator.tokened(self, Operator({}), self)


@attrs.frozen
class _Profile:
    """What one weapon profile does to the target, as operators."""

    attack: Operator
    deferred: Banded | None  # transition of one waiting Devastating Wounds event, if any wait
    waits_destroying: int | None  # waiting events that surely destroy the unit (None: one may cost nothing)
    attacks: Pmf  # number of attacks, exact
    hits: Pmf  # number of hits, in the query's mode


def _effects(parts_of_group: list[list[tuple[Fraction, Pmf]]], mode: Mode) -> list[Pmf]:
    """Per group, a (possibly partial) mixture of wounds-lost distributions."""
    zero = Pmf(np.zeros(1, dtype=mode.dtype))
    return [Pmf.mixture(parts) if any(p for p, _ in parts) else zero for parts in parts_of_group]


def _damage_rerolled(weapon: Weapon, groups: list[ModelProfile], unsaved: list[Fraction], context: Context,
                     mode: Mode) -> tuple[list[list[Pmf]], list[list[Pmf]]]:
    """Per group and wounds already lost: a wound's effect when a Command Re-roll kept for damage
    stays at hand, and when it is spent (a poor roll that would not destroy the model)."""
    zero = mode.point(0)
    kept: list[list[Pmf]] = []
    spent: list[list[Pmf]] = []
    for profile, q in zip(groups, unsaved):
        sides = [tuple(mode.of(side) for side in damage_with_one_reroll(weapon, profile, context,
                                                                             profile.wounds - w))
                 for w in range(profile.wounds)]
        fnp = attack_threshold(profile, weapon)
        kept.append(_effects([[(1 - q, zero), (q, wounds_lost(keep, fnp))] for keep, _ in sides], mode))
        spent.append(_effects([[(q, wounds_lost(spend, fnp))] for _, spend in sides], mode))
    return kept, spent


def _saves_rerolled(weapon: Weapon, groups: list[ModelProfile], lost: list[Pmf], context: Context,
                    mode: Mode) -> tuple[list[Pmf], list[Pmf]]:
    """Per group: a wound's effect when a Command Re-roll kept for saves stays at hand (the save is
    made, or failed on a die already re-rolled), and when it is spent (on a failed save that no
    ability re-rolled; the fresh roll is re-rolled by nothing)."""
    zero = mode.point(0)
    kept, spent = [], []
    for profile, hurt in zip(groups, lost):
        keep, spend = save_odds(weapon, profile, context).split_for_one_reroll()
        q = save_odds(weapon, profile, attrs.evolve(context, reroll_saves=Reroll.NONE)).fail
        kept.append([(keep.passed, zero), (keep.fail, hurt)])
        spent.append([(spend * (1 - q), zero), (spend * q, hurt)])
    return _effects(kept, mode), _effects(spent, mode)


KEPT_UP_TO = 2_500  #: the states of a layout whose operators are kept (about 2 MB each at most, 32 of them);
#: a larger layout's are worked out for each query, as its arrays are large and its query slow anyway


def _profile(firing: Firing, layout: Layout, context: Context, mode: Mode) -> _Profile:
    """The operators of one weapon profile (one attack's effect, and a waiting wound's) and its counts."""
    operators = _operators if layout.size <= KEPT_UP_TO else _operators.__wrapped__
    attack, deferred, waits_destroying = operators(firing.weapon, layout, context, mode)
    attacks = attack_count(firing.weapon, layout.target, firing.models, context)
    hits = hit_count(firing.weapon, rolled_against(layout.target), context, mode.of(attacks))
    return _Profile(attack, deferred, waits_destroying, attacks, hits)


def rolled_against(target: Target) -> ModelProfile:
    """The profile the unit's hit and wound rolls are made against: its first group's, with the unit's
    Toughness and keywords, in cover only if every model is (11th edition: cover worsens BS)."""
    groups = [p for p, _ in target.groups]
    return attrs.evolve(groups[0], toughness=target.toughness, keywords=target.keywords,
                        cover=all(p.cover for p in groups))


@functools.lru_cache(maxsize=32)  # (only for layouts of at most KEPT_UP_TO states)
def _operators(weapon: Weapon, layout: Layout, context: Context, mode: Mode
               ) -> tuple[Operator, Banded | None, int | None]:
    """One attack's operator, a waiting wound's transition (if any wait) and how many waiting wounds surely
    destroy the unit (None where one may cost nothing), worked out once per weapon, layout and situation: they
    do not depend on the number of models, and `plan` asks for them from each state the target may be in."""
    target = layout.target
    groups = [p for p, _ in target.groups]
    unit_profile = rolled_against(target)
    hit = hit_odds(weapon, unit_profile, context)
    wound = wound_odds(weapon, unit_profile, context)
    sustained = sustained_hits(weapon)
    lethal = auto_wounds(weapon, unit_profile, context)
    one_group = context.rules.definition.precision_one_group
    zero = mode.point(0)

    def moving(effects: Sequence[Pmf | Sequence[Pmf]], destroyed: bool = True) -> Operator:
        return Operator.moving(layout.transition(effects, weapon.precision, destroyed, one_group))

    damage = [mode.of(damage_pmf(weapon, p, context)) for p in groups]
    lost = [wounds_lost(d, attack_threshold(p, weapon)) for p, d in zip(groups, damage)]
    unsaved = [unsaved_chance(weapon, p, context) for p in groups]
    ordinary = moving(_effects([[(1 - q, zero), (q, hurt)] for q, hurt in zip(unsaved, lost)], mode))
    identity = ordinary.nothing().terms[0]
    mortal = damage_pmf(weapon, None, context)  # launch wording: mortal wounds equal to the damage
    rules = {roll: critical_mortals(weapon, context, roll) for roll in ("hit", "wound")}
    mortals = {roll: None if rule is None else (rule, Operator.waiting(rule.mortal_wounds.pmf(exact=True), identity))
               for roll, rule in rules.items()}
    critical = critical_wound(weapon, context.rules.devastating_wounds, ordinary, moving(lost),
                              Operator.waiting(Pmf.point(1, exact=True), identity), Operator.waiting(mortal, identity),
                              mortals["wound"])
    waiting: list[Pmf] = []  # what one waiting event costs each group
    wording = context.rules.devastating_wounds
    if weapon.devastating_wounds and wording is DevastatingWounds.SEED:
        waiting = [wounds_lost(mode.of(devastating_damage(weapon, p, context)), mortal_threshold(p, weapon))
                   for p in groups]
    elif (weapon.devastating_wounds and wording is DevastatingWounds.LAUNCH) or any(rules.values()):
        waiting = [wounds_lost(mode.point(1), mortal_threshold(p, weapon)) for p in groups]
    deferred = layout.transition(waiting, weapon.precision, one_group=one_group) if waiting else None

    def per_attack_of(hit: RollOdds, rolled: Operator, auto: Operator) -> Operator:
        return per_attack(hit, rolled, auto, sustained, lethal, mortals["hit"])

    rolled = per_hit(wound, ordinary, critical)
    attack = per_attack_of(hit, rolled, ordinary)
    kind = context.command_reroll
    if kind is CommandReroll.HIT:  # the state doubles: Command Re-roll at hand, or spent
        keep, spend = hit.split_for_one_reroll()
        fresh = hit_odds(weapon, unit_profile, attrs.evolve(context, reroll_hits=Reroll.NONE))
        attack = Operator.tokened(per_attack_of(keep, rolled, ordinary),
                                  per_attack_of(fresh, rolled, ordinary).scaled(spend), attack)
    elif kind is CommandReroll.WOUND:
        keep, spend = wound.split_for_one_reroll()
        fresh = wound_odds(attrs.evolve(weapon, twin_linked=False), unit_profile,
                           attrs.evolve(context, reroll_wounds=Reroll.NONE))
        rolled = Operator.tokened(per_hit(keep, ordinary, critical),
                                  per_hit(fresh, ordinary, critical).scaled(spend), rolled)
        attack = per_attack(hit, rolled, ordinary.lifted(), sustained, lethal, _lifted(mortals["hit"]))
    elif kind in (CommandReroll.SAVE, CommandReroll.DAMAGE):  # spent within one wound's allocation
        kept_effects: Sequence[Pmf | Sequence[Pmf]]
        spent_effects: Sequence[Pmf | Sequence[Pmf]]
        if kind is CommandReroll.SAVE:
            kept_effects, spent_effects = _saves_rerolled(weapon, groups, lost, context, mode)
        else:
            kept_effects, spent_effects = _damage_rerolled(weapon, groups, unsaved, context, mode)
        # at the destroyed state no wound is allocated, so the re-roll stays at hand
        saving = Operator.tokened(moving(kept_effects), moving(spent_effects, destroyed=False), ordinary)
        lifted_critical = (critical.lifted() if weapon.devastating_wounds
                           else with_mortal_wounds(saving, _lifted(mortals["wound"])))
        attack = per_attack(hit, per_hit(wound, saving, lifted_critical), saving, sustained, lethal,
                            _lifted(mortals["hit"]))
    if kind is not None and deferred is not None:  # (a re-roll of the attacks roll: see whole_unit)
        deferred = Operator.moving(deferred).lifted().terms[0]
    if not waiting or any(lost.min < 1 for lost in waiting):  # a waiting wound may cost nothing
        return attack, deferred, None
    return attack, deferred, sum(count * destroying(model.wounds, lost.min)
                                 for (model, count), lost in zip(target.groups, waiting))


def _lifted(mortals: tuple[CriticalMortals, Operator] | None) -> tuple[CriticalMortals, Operator] | None:
    """Critical mortal wounds on the doubled state of a Command Re-roll (they never use it)."""
    return None if mortals is None else (mortals[0], mortals[1].lifted())


def _deferred_capacity(profile: _Profile, earlier: int = 0) -> int:
    """The most Devastating Wounds events this profile's count can hold once it has fired: those it can
    leave waiting, after the `earlier` ones of the count it goes on with. When so many of them surely
    destroy the unit (`_Profile.waits_destroying`), the count stops there ("that many or more")."""
    most = earlier + profile.attacks.max * max(profile.attack.terms)
    return most if profile.waits_destroying is None else min(most, profile.waits_destroying)


def _after(state: Scaled, op: Operator, count: Pmf, last: int = 0) -> Scaled:
    """The state after a random number `count` (exact; possibly a part of a distribution) of independent
    events `op` (`last`: see `Operator.apply`). Where the state holds many counts of earlier firings' waiting
    wounds, the events do the same to each count: they are worked out from each target state once, and the
    counts follow in one product (`through_each_state`)."""
    shape, waits = state.array.shape, set(op.terms) != {0}
    if waits and shape[-1] > 1:  # this firing goes on with a count it holds already
        return _stepped(state, op, count, last)
    moves = count.max * sum(len(matrix.offsets) for matrix in op.terms.values())
    if not through_each_state(shape[0], math.prod(shape[1:]), moves, Mode(state.exact)):
        return _stepped(state, op, count, last)
    each = _stepped(Scaled(np.eye(shape[0], dtype=state.array.dtype)[..., None]), op, count, last)
    if waits:
        return _combined(each, state)
    out = _combined(each, Scaled(state.array[..., None], state.denominator))
    return Scaled(out.array[..., 0], out.denominator)


def _combined(each: Scaled, state: Scaled) -> Scaled:
    """What events do to `state` from what they do to each target state alone: `each[t, s, k]` weighs (over its
    denominator) their leading from target state s to t and leaving k wounds waiting; `state` holds the target
    states first, then the counts of earlier firings' waiting wounds, then this firing's (none yet: an axis of
    length 1)."""
    assert state.array.shape[-1] == 1, "a firing worked out from each state starts its own count"
    weights = state.array.reshape(len(state.array), -1)  # target states x earlier counts
    out = np.matmul(weights.T, each.array)  # [t, earlier counts, k]: in the state's order already, with no copy
    shape = (len(out), *state.array.shape[1:-1], each.array.shape[-1])
    return Scaled(out.reshape(shape), each.denominator * state.denominator)


def _stepped(state: Scaled, op: Operator, count: Pmf, last: int = 0) -> Scaled:
    """`_after`, one event after another."""
    chances = count.fractions()
    most = max(chances, default=0)
    total: Scaled | None = None
    for u in range(most + 1):  # mix the states after u events by P(u events)
        if u in chances:
            part = state.times(chances[u])
            total = part if total is None else _lengthened(total, part) + part
        if u < most:
            state = op.apply(state, last)
    if total is None:  # a share of a count (a Command Re-roll's spent share) may have no chance at all
        return Scaled(np.zeros_like(state.array), 1)
    return _lengthened(total, state)


def _lengthened(state: Scaled, like: Scaled) -> Scaled:
    """`state` with its count of waiting wounds (the last axis) as long as `like`'s: an event
    that leaves wounds waiting grows that axis (`Operator.apply`), and states before and after it are mixed."""
    had, length = state.array.shape, like.array.shape
    if had == length:
        return state
    out = np.zeros(length, dtype=state.array.dtype)
    out[..., :had[-1]] = state.array
    return Scaled(out, state.denominator)


def whole_unit(
    firings: Sequence[Firing | MortalWounds], layout: Layout, context: Context, mode: Mode, start: Pmf | None = None
) -> tuple[Pmf, Pmf, Pmf]:
    """Resolve each firing (or mortal wound test) in turn against the target laid out in `layout`,
    from the state `start` (default: unharmed), carrying its state from one to the next; Devastating
    Wounds waiting under the current or 2023 wording land after all of them. Returns the final
    state, the attacks and the hits."""
    precise = any(isinstance(f, Firing) and f.weapon.precision for f in firings)
    if not layout.leaders or precise:
        return _resolve(firings, layout, context, mode, start)
    along = layout.from_one_track
    if start is not None:
        elsewhere = np.ones(layout.size, dtype=bool)
        elsewhere[along] = False
        if start.weights[elsewhere].any():  # an earlier phase's Precision wounded a leader early
            return _resolve(firings, layout, context, mode, start)
        start = Pmf(start.weights[along], start.denominator)
    state, attacks, hits = _resolve(firings, layout.one_track, context, mode, start)
    weights = np.zeros(layout.size, dtype=state.weights.dtype)
    weights[along] = state.weights
    return Pmf(weights, state.denominator), attacks, hits


def _mortal_wounds(test: MortalWounds) -> Pmf:
    """How many mortal wounds a dice test inflicts, exact: one per die that rolls its number."""
    return Pmf.point(test.dice, True).compound(Pmf.bernoulli(Fraction(7 - test.success, 6), True))


def _resolve(firings: Sequence[Firing | MortalWounds], layout: Layout, context: Context, mode: Mode,
             start: Pmf | None) -> tuple[Pmf, Pmf, Pmf]:
    """`whole_unit` on the states of `layout`."""
    target = layout.target
    state = layout.unharmed(mode) if start is None else Scaled(np.array(start.weights), start.denominator)
    token = context.command_reroll is not None
    if token:  # the Command Re-roll is at hand: first half of a doubled state
        state = Scaled(np.concatenate([state.array, np.zeros_like(state.array)]), state.denominator)
    waiting: list[tuple[Banded, int]] = []  # deferred transitions, first profile first, each with its count's last
    # value; each count is an axis after the target's states
    attacks = hits = mode.point(0)
    for firing in firings:
        if isinstance(firing, MortalWounds):
            point = [wounds_lost(mode.point(1), mortal_threshold(p)) for p, _ in target.groups]
            op = Operator.moving(layout.transition(point))
            state = _after(state, op.lifted() if token else op, _mortal_wounds(firing))
            continue
        profile = _profile(firing, layout, firing.context or context, mode)
        last = 0
        if profile.deferred is not None:
            if waiting and waiting[-1][0].equals(profile.deferred):
                # the wounds the last such profile left waiting land just before these, by the same move:
                # T^a T^b = T^(a + b), so its count goes on with these (where the count folds, so does their sum)
                last = _deferred_capacity(profile, waiting[-1][1])
                waiting[-1] = (profile.deferred, last)
            else:  # this profile's waiting wounds get an axis of their own
                last = _deferred_capacity(profile)
                state = Scaled(state.array[..., None], state.denominator)
                waiting.append((profile.deferred, last))
        if context.command_reroll is CommandReroll.ATTACKS:  # if still at hand, it may go to this attacks roll
            kept, spent = attack_count_with_one_reroll(firing.weapon, target, firing.models, firing.context or context)
            size = layout.size
            at_hand = Scaled(state.array[:size], state.denominator)
            gone = Scaled(state.array[size:], state.denominator)
            still = _after(at_hand, profile.attack, kept, last)
            lost_it, used_it = _after(gone, profile.attack, profile.attacks, last), _after(at_hand, profile.attack,
                                                                                         spent, last)
            longest = max((still, lost_it, used_it), key=lambda s: s.array.size)
            used = _lengthened(lost_it, longest) + _lengthened(used_it, longest)
            still = _lengthened(still, longest)
            (kept_array, spent_array), den = common([(still.array, still.denominator),
                                                     (used.array, used.denominator)], mode.exact)
            state = Scaled(np.concatenate([kept_array, spent_array]), den)
        else:
            state = _after(state, profile.attack, profile.attacks, last)
        attacks = attacks + mode.of(profile.attacks)
        hits = hits + profile.hits
    for transition, _ in waiting:  # the first profile's waiting wounds are on the axis after the states
        rows = [Scaled(weights, state.denominator) for weights in np.moveaxis(state.array, 1, 0)]
        result = rows[-1]
        for row in rows[-2::-1]:
            result = transition.apply(result) + row
        state = result
    if token:  # whether or not the re-roll was used
        halves = state.array.reshape(2, -1)
        state = Scaled(halves[0] + halves[1], state.denominator)
    return Pmf(state.array, state.denominator), attacks, hits
