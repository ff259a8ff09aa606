"""The best firing order, and split of weapons between two targets, by trying every one exactly.

Order matters because the target's state carries from one weapon to the next (a wounded model
soaks the next weapon's damage; Devastating Wounds' mortal wounds wait for the end). Each weapon
profile goes whole to one target; to consider splitting a profile's models, write it twice.

Orders that start alike share their work: the target's state after the first k weapons is the same
for every order that starts with them, so each prefix is worked out once, as the state its first k - 1
weapons left moved by its last. A weapon moves a state as a matrix does (from each state the target
may be in, a distribution of the states it ends in), and each of its rows is one query
(`attack(..., start=...)`) worked out the first time a state is reached: a few dozen queries per
weapon instead of one per order. The prefixes of one length are the rows of one array, moved in one
product per last weapon, so that eight profiles (40,320 orders) take a few tenths of a second. That holds
while nothing carries from one weapon to the next but the state: not where mortal wounds wait for the
end of every profile, nor with a Command Re-roll (one per query); those orders are resolved whole
(`LIMIT` of them at most), as are the few orders of a small plan.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from fractions import Fraction

import attrs
import numpy as np

from ..engine.layout import Layout
from ..engine.limits import rounded
from ..engine.resolve import attack
from ..engine.results import AttackResult
from ..errors import MathhammerError
from ..model import Context, Firing, Target
from ..pmf import Number, Pmf
from ..stages.wound import leaves_wounds_waiting
from ..weights import dtype

GOALS = ("destroy", "kills")  #: P(every target destroyed), expected models destroyed over the targets
LIMIT = 720  #: the most alternatives tried with each order resolved whole (6 weapon profiles at one target)
SHARED_LIMIT = 40_320  #: ... and where orders share their first weapons' work (8 at one target, 7 split between two)
SHARED_STEPS = {False: 3e8, True: 1e7}  #: the most state entries moved where they do, in float and exact mode (a
#: float entry takes about a nanosecond in a product, an exact one 50-100 times that: at most about half a second)


@attrs.frozen
class Alternative:
    """Weapons (indices into the firings) fired at each target in order, and the goal's value."""

    orders: tuple[tuple[int, ...], ...]
    value: Number


@attrs.frozen(eq=False)
class Plan:
    """Every alternative considered, best first; `queries` the weapons resolved to rank them."""

    goal: str
    targets: tuple[Target, ...]
    firings: tuple[Firing, ...]
    at: tuple[tuple[Firing, ...], ...]  #: each target's firings as they meet it (index for index with `firings`)
    alternatives: tuple[Alternative, ...]
    queries: int
    context: Context | None = None
    exact: bool = False

    @property
    def best(self) -> Alternative:
        return self.alternatives[0]

    def results(self, alternative: Alternative) -> tuple[AttackResult | None, ...]:
        """Each target's whole query under `alternative` (None where nothing fires at it)."""
        return tuple(attack([fired[i] for i in order], target, context=self.context, exact=self.exact)
                     if order else None for target, fired, order in zip(self.targets, self.at, alternative.orders))


def count(firings: Sequence[Firing], targets: int) -> int:
    """How many alternatives there are: every split of the weapon profiles between the targets,
    times the distinct orders at each target (alike profiles are not told apart)."""
    total = 0
    for split in itertools.product(range(targets), repeat=len(firings)):
        total += math.prod(_orders_count([f for f, t in zip(firings, split) if t == g]) for g in range(targets))
    return total


def _orders_count(firings: Sequence[Firing]) -> int:
    alike = [len(list(group)) for _, group in itertools.groupby(sorted(map(repr, firings)))]
    return math.factorial(len(firings)) // math.prod(math.factorial(n) for n in alike)


def _orders(indices: Sequence[int], firings: Sequence[Firing]) -> list[tuple[int, ...]]:
    """Distinct firing orders of `indices` (two orders that differ only by alike profiles are one), each the
    first of its kind in `itertools.permutations`' order."""
    kind = {i: firings.index(firings[i]) for i in indices}  # alike profiles share the first one's index
    if len(set(kind.values())) == len(kind):  # no two alike: every order is distinct
        return list(itertools.permutations(indices))
    seen: dict[tuple[int, ...], tuple[int, ...]] = {}
    for order in itertools.permutations(indices):
        seen.setdefault(tuple(kind[i] for i in order), order)
    return list(seen.values())


def plan(firings: Sequence[Firing], targets: Sequence[Target], goal: str = "destroy",
         context: Context | None = None, exact: bool = False,
         at: Sequence[Sequence[Firing]] | None = None) -> Plan:
    """Try every firing order (and, with two targets, every split of the weapon profiles between
    them); the alternatives come back best first, ties in the order they were tried. `at` gives each
    target's firings as they meet it, index for index with `firings` (a target's own abilities change
    them: `unit_attack.defended`); by default, `firings` themselves."""
    if goal not in GOALS:
        raise MathhammerError(f"unknown goal {goal!r} (allowed: {', '.join(GOALS)})")
    if not 1 <= len(targets) <= 2:
        raise MathhammerError(f"plan takes one or two targets, got {len(targets)}")
    if not firings:
        raise MathhammerError("give at least one weapon")
    fired = tuple(tuple(f) for f in at) if at is not None else (tuple(firings),) * len(targets)
    if len(fired) != len(targets) or any(len(f) != len(firings) for f in fired):
        raise MathhammerError("`at` gives each target's firings, as many as `firings`")
    shared = all(_prefixes_shared(f, context or Context()) for f in fired)
    # (beyond 8 profiles there are more than either limit; counting their splits would take long)
    alternatives = count(firings, len(targets)) if len(firings) <= 8 else math.inf
    limit = SHARED_LIMIT if shared else LIMIT
    if alternatives > limit:
        why = "" if shared else " where mortal wounds wait or a Command Re-roll is kept (each order resolved whole)"
        raise MathhammerError(f"plan tries at most {limit} alternatives{why}; {len(firings)} weapon profiles at "
                              f"{len(targets)} target(s) give more: give fewer profiles")
    every = [orders for split in itertools.product(range(len(targets)), repeat=len(firings))
             for orders in itertools.product(*(_orders([i for i, t in enumerate(split) if t == g], firings)
                                               for g in range(len(targets))))]
    whole = [{order for orders in every if (order := orders[t])} for t in range(len(targets))]
    # weapons resolved: each order whole, or each weapon once from each state (at most) of each target
    by_rows = shared and (alternatives > LIMIT or len(firings) * sum(Layout.of(t).size for t in targets)
                          < sum(map(len, itertools.chain(*whole))))
    if by_rows:
        prefixes = [_Prefixes.of(orders, len(firings)) for orders in whole]
        steps = sum(numbered.count * _reachable(Layout.of(target), any(f.weapon.precision for f in own)) ** 2
                    for target, own, numbered in zip(targets, fired, prefixes))
        if alternatives > LIMIT and steps > SHARED_STEPS[exact]:  # (up to LIMIT, each order's query is the bound)
            raise MathhammerError(f"this plan would move about {rounded(steps)} state entries (at most "
                                  f"{rounded(SHARED_STEPS[exact])} in {'exact' if exact else 'float'} mode): give "
                                  "fewer profiles, or a target of fewer models")
        moves = [[_Move(f, target, context, exact) for f in own] for target, own in zip(targets, fired)]
        values = [_by_prefixes(goal, target, numbered, row, exact)
                  for target, numbered, row in zip(targets, prefixes, moves)]
        queries = sum(len(move.rows) for row in moves for move in row)
    else:
        values = [{order: _goal(goal, target, attack([own[i] for i in order], target, context=context,
                                                     exact=exact).state) for order in orders}
                  for target, own, orders in zip(targets, fired, whole)]
        queries = sum(map(len, whole))
    if len(targets) == 1:  # an order's value is the alternative's
        ranked = [Alternative(orders, values[0][orders[0]]) for orders in every]
    else:
        ranked = [Alternative(orders, _value(goal, [values[t][order] if order else None
                                                    for t, order in enumerate(orders)], exact)) for orders in every]
    ranked.sort(key=lambda a: -(a.value if exact else round(float(a.value), 12)))  # float noise breaks no tie
    return Plan(goal, tuple(targets), tuple(firings), fired, tuple(ranked), queries, context, exact)


@attrs.frozen(eq=False)
class _Prefixes:
    """The orders asked at one target and their prefixes (first weapons), each written as one number: its
    weapon indices as the digits, most significant first, in base `base` (one more than the weapons), so that
    numbers of one length sort as the orders do, and a prefix without its last weapon is the number divided by
    `base`, rounded down."""

    base: int
    orders: dict[int, tuple[list[tuple[int, ...]], np.ndarray]]  #: by length: the orders, and their numbers
    levels: list[np.ndarray]  #: the prefixes of 1 weapon, of 2, ... (whole orders among them), each sorted

    @classmethod
    def of(cls, orders: set[tuple[int, ...]], weapons: int) -> _Prefixes:
        """`orders` (of indices below `weapons`) numbered, with their prefixes a length at a time."""
        base = weapons + 1
        grouped: dict[int, list[tuple[int, ...]]] = {}
        for order in orders:
            grouped.setdefault(len(order), []).append(order)
        numbered = {length: (listed, np.array(listed, dtype=np.int64) @ base ** np.arange(length - 1, -1, -1))
                    for length, listed in grouped.items()}
        levels = [np.unique(np.concatenate([numbers // base ** (length - k) for length, (_, numbers)
                                            in numbered.items() if length >= k]))
                  for k in range(1, max(numbered) + 1)]
        return cls(base, numbered, levels)

    @property
    def count(self) -> int:
        """How many prefixes there are, of every length."""
        return sum(map(len, self.levels))


def _reachable(layout: Layout, precise: bool) -> int:
    """The states of `layout` the target can reach: without Precision an Attached unit's leaders take wounds only
    once its bodyguards are destroyed (`Layout.one_track`)."""
    return layout.size if precise or not layout.leaders else layout.one_track.size


def _by_prefixes(goal: str, target: Target, prefixes: _Prefixes, moves: Sequence[_Move],
                 exact: bool) -> dict[tuple[int, ...], Number]:
    """The goal's value at `target` after each order, worked out a length of first weapons at a time: the
    states after every prefix of one length are the rows of one array, each moved by its last weapon's matrix
    from the state its other weapons left, those with the same last weapon in one product. The array holds only
    the states some prefix reaches (an Attached unit's leader takes no wound while a bodyguard stands, unless
    by Precision): about `_reachable` columns, not the whole layout."""
    scored = _scored(goal, target)
    columns = np.zeros(1, dtype=np.int64)  # the states the array holds: unharmed, at first
    states = np.ones((1, 1), dtype=dtype(exact))
    denominators = np.ones(1, dtype=object)  # each row's
    earlier = np.zeros(1, dtype=np.int64)  # the prefixes of the level before (none: the empty one)
    values: dict[tuple[int, ...], Number] = {}
    for length, level in enumerate(prefixes.levels, 1):
        parent_of, last_of = np.divmod(level, prefixes.base)
        parent_of = np.searchsorted(earlier, parent_of)
        level_denominators = np.empty(len(level), dtype=object)
        moved = []  # (rows, the states they reach, their weights there), by last weapon
        for weapon in np.unique(last_of).tolist():
            rows = np.flatnonzero(last_of == weapon)
            parents = parent_of[rows]
            before = states[parents]
            held = np.flatnonzero(before.any(axis=0))  # the states these prefixes' first weapons may leave
            move = moves[weapon]
            move.work_out(columns[held].tolist())
            reached = np.flatnonzero(move.reached)
            moved.append((rows, reached, before[:, held] @ move.matrix[np.ix_(columns[held], reached)]))
            level_denominators[rows] = denominators[parents] * move.denominator
        columns = np.unique(np.concatenate([reached for _, reached, _ in moved]))
        states = np.zeros((len(level), len(columns)), dtype=dtype(exact))
        for rows, reached, weights in moved:
            states[np.ix_(rows, np.searchsorted(columns, reached))] = weights
        if length in prefixes.orders:  # the orders of this many weapons, and where their prefixes sit in the level
            orders, numbers = prefixes.orders[length]
            at = np.searchsorted(level, numbers)
            totals = (states @ scored[columns])[at].tolist()
            if exact:
                totals = [Fraction(int(total), den) for total, den in zip(totals, level_denominators[at])]
            values.update(zip(orders, totals))
        denominators, earlier = level_denominators, level
    return values


class _Move:
    """What one weapon does to one target's state, as a matrix whose rows (the states it ends in, from
    each state the target may be in) are worked out when first needed, over one common denominator."""

    def __init__(self, firing: Firing, target: Target, context: Context | None, exact: bool) -> None:
        self.firing, self.target, self.context, self.exact = firing, target, context, exact
        size = Layout.of(target).size
        self.matrix = np.zeros((size, size), dtype=dtype(exact))
        self.denominator = 1
        self.rows: set[int] = set()
        self.reached = np.zeros(size, dtype=bool)  # the states some row ends in

    def work_out(self, states: Sequence[int]) -> None:
        """The rows of `states`, those not worked out before."""
        for s in states:
            if s not in self.rows:
                self._add(s)

    def _add(self, s: int) -> None:
        row = attack([self.firing], self.target, context=self.context, exact=self.exact,
                     start=Pmf.point(s, self.exact)).state
        if self.exact and self.denominator % row.denominator:
            common = math.lcm(self.denominator, row.denominator)
            self.matrix *= common // self.denominator
            self.denominator = common
        weights = row._from_zero()
        self.matrix[s, :len(weights)] = weights * (self.denominator // row.denominator) if self.exact else weights
        self.reached[:len(weights)] |= weights != 0
        self.rows.add(s)


def _scored(goal: str, target: Target) -> np.ndarray:
    """What each state of the target's default layout counts for the goal: 1 where every model is destroyed (so
    that the weighted sum is the chance of it), or the models destroyed (their expected number)."""
    dead = Layout.of(target).losses[1]
    return (dead == target.model_count).astype(np.int64) if goal == "destroy" else dead


def _goal(goal: str, target: Target, state: Pmf) -> Number:
    """P(the target destroyed) or its expected models destroyed, in `state` (over its default layout)."""
    weights = state._from_zero()
    total = weights @ _scored(goal, target)[: len(weights)]
    return Fraction(int(total), state.denominator) if state.exact else float(total)


def _prefixes_shared(firings: Sequence[Firing], context: Context) -> bool:
    """Whether an order can be resolved one weapon at a time, each from the state the ones before
    left: nothing else carries between weapons (no mortal wounds waiting for the end of every
    profile, no Command Re-roll kept for one of them)."""
    own = [f.context or context for f in firings]
    return not any(c.command_reroll is not None for c in (context, *own)) and \
        not any(leaves_wounds_waiting(f.weapon, c) for f, c in zip(firings, own))


def _value(goal: str, values: Sequence[Number | None], exact: bool) -> Number:
    """P(every target destroyed) (the targets are separate units, so a product) or total expected kills,
    from each target's value (None: nothing fires at it)."""
    zero, one = (Fraction(0), Fraction(1)) if exact else (0.0, 1.0)
    if goal == "destroy":
        return math.prod((v if v is not None else zero for v in values), start=one)
    return sum((v if v is not None else zero for v in values), start=zero)
