"""Allocation: damage lands on one model at a time, and excess damage is lost.

The target's state is the number of wounds it has lost counted along the allocation
order, where a destroyed model counts its full W: a model that has lost wounds always
receives the next attack, so this one number says who is dead and who is wounded.
An *event* (one unsaved attack, one Devastating Wounds attack, one mortal wound) moves
the state by a transition matrix (kept by its few diagonals: an event moves the state up by
at most its damage); a random number of events is a mixture of matrix powers, accumulated in
one forward pass.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from itertools import accumulate

import attrs
import numpy as np

from ..pmf import FLOAT, Mode, Number, Pmf
from ..weights import Banded, common, dtype


@attrs.frozen
class Track:
    """The target's models in allocation order, by their wounds characteristic."""

    wounds: tuple[int, ...]

    @property
    def starts(self) -> tuple[int, ...]:
        """State at which each model starts taking wounds (plus the total at the end)."""
        return (0, *accumulate(self.wounds))

    @property
    def total(self) -> int:
        return sum(self.wounds)

    def unharmed(self, mode: Mode = FLOAT) -> Pmf:
        """The state before any damage: certainly 0 wounds lost."""
        weights = np.zeros(self.total + 1, dtype=mode.dtype)
        weights[0] = 1
        return Pmf(weights)

    def model_at(self) -> np.ndarray:
        """For each state, the index of the model being worked on (= models destroyed)."""
        return np.repeat(np.arange(len(self.wounds) + 1), (*self.wounds, 1))


@attrs.frozen
class Transition:
    """One event's effect on the state: ``matrix`` moves state s to state t with chance P(s -> t)."""

    matrix: Banded

    @classmethod
    def build(cls, track: Track, effects: Sequence[Pmf | Sequence[Pmf]]) -> Transition:
        """`effects[i]` (one per model) is the wounds model i would lose from one event, or a list of
        them by wounds it has already lost; what exceeds its remaining wounds is lost. Mortal
        wounds that spill over are events of one wound each."""
        models = []  # each model's effect (kept: blocks are told apart by its id) and its effects by wounds lost
        for effect, wounds in zip(effects, track.wounds):
            by_lost = [effect] * wounds if isinstance(effect, Pmf) else list(effect)
            if len(by_lost) != wounds:
                raise ValueError("a model's effects by wounds lost must cover each of its wounds")
            models.append((effect, by_lost))
        kinds = list({id(e): e for _, by_lost in models for e in by_lost}.values())  # each effect once
        exact = kinds[0].exact
        aligned, den = common([(e.weights, e.denominator) for e in kinds], exact)
        most = max(e.max for e in kinds)
        zero = 0 if exact else 0.0
        # for each effect: the chance to lose k = 0..most wounds, and k or more
        chances = {}
        for effect, weights in zip(kinds, aligned):
            lose = [zero] * effect.offset + weights.tolist() + [zero] * (most - effect.max)
            chances[id(effect)] = lose, list(accumulate(lose[::-1]))[::-1]
        # a model's columns, one per state it is worked on in: it loses k < its wounds left as rolled; what would
        # take it to 0 or beyond destroys it, excess lost (worked out once however many models share them); once
        # the unit is destroyed nothing changes. Small lists in Python, one array at the end: quicker than numpy.
        blocks: dict[tuple[int, int], list[list[Number]]] = {}
        columns: list[list[Number]] = []
        for effect, by_lost in models:
            block = blocks.get((id(effect), len(by_lost)))
            if block is None:
                block = blocks[id(effect), len(by_lost)] = []
                for left, one in zip(range(len(by_lost), 0, -1), by_lost):
                    lose, at_least = chances[id(one)]
                    block.append(lose if left > most else [*lose[:left], at_least[left], *[zero] * (most - left)])
            columns += block
        columns.append([den, *[zero] * most])
        bands = list(zip(*columns))  # one row per offset
        used = [k for k, row in enumerate(bands) if any(row)]
        return cls(Banded(np.array(used, dtype=np.int64), np.array([bands[k] for k in used], dtype=dtype(exact)), den))

    @staticmethod
    @functools.lru_cache(maxsize=256)
    def alike(track: Track, effect: Pmf) -> Transition:
        """`build` where every model has the same effect, worked out once per track and effect: weapons
        with the same damage against the same unit share it."""
        return Transition.build(track, [effect] * len(track.wounds))


def destroying(wounds: int, least: int) -> int:
    """How many events, each costing a model at least `least` wounds (what exceeds its wounds is lost), surely
    destroy a model of `wounds` wounds: `wounds` / `least`, rounded up. A count of them summed over a unit's
    models can fold there, since more change nothing."""
    return -(-wounds // least)


def _accumulate(start: Pmf, step: Transition, counts: np.ndarray, counts_den: int) -> tuple[np.ndarray, int]:
    """Rows k of the result: sum over u of counts[u, k] * (start after u events).

    Returns integer/float weights and their common denominator. The states after 0, 1, 2, ... events are
    worked out in turn, one product each, and weighted by the counts in one product at the end: in exact
    mode only the states' small numbers go through the matrix, not the counts' large ones. (The counts come
    folded where the events surely destroy the unit, `destroying`, or in full where a test asks.)
    """
    state = start.weights
    matrix = step.matrix
    last = len(counts) - 1
    written = matrix.written_out()  # chosen once: the loop below is the pipeline's hottest
    states = [state]
    for _ in range(last):
        states.append(states[-1] @ written if written is not None else matrix.moved(states[-1]))
    after = np.array(states)
    den = matrix.denominator
    if den != 1:  # the state after u events is over den**u: bring every one over den**last
        after *= np.array([den ** (last - u) for u in range(last + 1)], dtype=object)[:, None]
    return counts.T @ after, counts_den * start.denominator * den**last


def after_events(start: Pmf, step: Transition, events: Pmf) -> Pmf:
    """The state after a random number `events` of independent events."""
    counts = events._from_zero()
    acc, den = _accumulate(start, step, counts.reshape(-1, 1), events.denominator)
    return Pmf(acc[0], den)


def after_two_kinds(start: Pmf, first: Transition, second: Transition, events: Pmf) -> Pmf:
    """The state after a joint count (u, v) of events: all u of the first kind, then v of the second.

    Used for Devastating Wounds, whose mortal wounds land after every normal attack.
    Horner's scheme over v keeps it to one pass for each kind.
    """
    acc, den = _accumulate(start, first, events.weights, events.denominator)
    result, scale = acc[-1], 1
    for row in acc[-2::-1]:
        scale *= second.matrix.denominator
        result = second.matrix.moved(result) + row * scale
    return Pmf(result, den * second.matrix.denominator ** (len(acc) - 1))
