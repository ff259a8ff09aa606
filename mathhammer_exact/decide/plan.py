"""The best firing order, and split of weapons between two targets, by trying every one exactly.

Order matters because the target's state carries from one weapon to the next (a wounded model
soaks the next weapon's damage; Devastating Wounds' mortal wounds wait for the end). Each weapon
profile goes whole to one target; to consider splitting a profile's models, write it twice.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from fractions import Fraction

import attrs

from ..engine.resolve import attack
from ..engine.results import AttackResult
from ..errors import MathhammerError
from ..model import Context, Firing, Target
from ..pmf import Number

GOALS = ("destroy", "kills")  #: P(every target destroyed), expected models destroyed over the targets
LIMIT = 720  #: the most alternatives tried (6 weapon profiles at one target, 5 split between two)


@attrs.frozen(eq=False)
class Alternative:
    """Weapons (indices into the firings) fired at each target in order, and the goal's value.
    `results[t]` is None when nothing fires at target t."""

    orders: tuple[tuple[int, ...], ...]
    value: Number
    results: tuple[AttackResult | None, ...]


@attrs.frozen(eq=False)
class Plan:
    """Every alternative considered, best first."""

    goal: str
    targets: tuple[Target, ...]
    firings: tuple[Firing, ...]
    alternatives: tuple[Alternative, ...]
    queries: int

    @property
    def best(self) -> Alternative:
        return self.alternatives[0]


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
    """Distinct firing orders of `indices` (two orders that differ only by alike profiles are one)."""
    seen: dict[tuple[Firing, ...], tuple[int, ...]] = {}
    for order in itertools.permutations(indices):
        seen.setdefault(tuple(firings[i] for i in order), order)
    return list(seen.values())


def plan(firings: Sequence[Firing], targets: Sequence[Target], goal: str = "destroy",
         context: Context | None = None, exact: bool = False) -> Plan:
    """Try every firing order (and, with two targets, every split of the weapon profiles between
    them); the alternatives come back best first, ties in the order they were tried."""
    if goal not in GOALS:
        raise MathhammerError(f"unknown goal {goal!r} (allowed: {', '.join(GOALS)})")
    if not 1 <= len(targets) <= 2:
        raise MathhammerError(f"plan takes one or two targets, got {len(targets)}")
    if not firings:
        raise MathhammerError("give at least one weapon")
    if len(firings) > 8 or count(firings, len(targets)) > LIMIT:
        raise MathhammerError(f"plan tries at most {LIMIT} alternatives; {len(firings)} weapon profiles at "
                              f"{len(targets)} target(s) give more: give fewer profiles")
    results: dict[tuple[int, tuple[int, ...]], AttackResult] = {}

    def outcome(target: int, order: tuple[int, ...]) -> AttackResult | None:
        if not order:
            return None
        key = (target, order)
        if key not in results:
            results[key] = attack([firings[i] for i in order], targets[target], context=context, exact=exact)
        return results[key]

    alternatives = []
    for split in itertools.product(range(len(targets)), repeat=len(firings)):
        shares = [_orders([i for i, t in enumerate(split) if t == g], firings) for g in range(len(targets))]
        for orders in itertools.product(*shares):
            found = tuple(outcome(t, order) for t, order in enumerate(orders))
            alternatives.append(Alternative(orders, _value(goal, found, exact), found))
    alternatives.sort(key=lambda a: -(a.value if exact else round(float(a.value), 12)))  # float noise breaks no tie
    return Plan(goal, tuple(targets), tuple(firings), tuple(alternatives), len(results))


def _value(goal: str, results: Sequence[AttackResult | None], exact: bool) -> Number:
    """P(every target destroyed) (the targets are separate units, so a product) or total expected kills."""
    zero, one = (Fraction(0), Fraction(1)) if exact else (0.0, 1.0)
    if goal == "destroy":
        return math.prod((r.p_destroyed if r else zero for r in results), start=one)
    return sum((r.models_destroyed.mean if r else zero for r in results), start=zero)
