"""Allocation: damage lands on one model at a time, and excess damage is lost.

The target's state is the number of wounds it has lost counted along the allocation
order, where a destroyed model counts its full W: a model that has lost wounds always
receives the next attack, so this one number says who is dead and who is wounded.
An *event* (one unsaved attack, one Devastating Wounds attack, one mortal wound) moves
the state by a transition matrix; a random number of events is a mixture of matrix
powers, accumulated in one forward pass.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import accumulate

import attrs
import numpy as np

from ..pmf import Pmf
from ..weights import common, dtype


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

    def unharmed(self, exact: bool = False) -> Pmf:
        """The state before any damage: certainly 0 wounds lost."""
        weights = np.zeros(self.total + 1, dtype=dtype(exact))
        weights[0] = 1
        return Pmf(weights)

    def model_at(self) -> np.ndarray:
        """For each state, the index of the model being worked on (= models destroyed)."""
        return np.searchsorted(np.array(self.starts), np.arange(self.total + 1), side="right") - 1


@attrs.frozen
class Transition:
    """One event's effect on the state: ``weights[s, t] / denominator`` = P(s -> t)."""

    weights: np.ndarray
    denominator: int
    always_harms: bool  #: every event costs at least one wound, so `track.total` events destroy the unit

    @classmethod
    def build(cls, track: Track, effects: Sequence[Pmf | Sequence[Pmf]]) -> Transition:
        """`effects[i]` (one per model) is the wounds model i would lose from one event, or a list of
        them by wounds it has already lost; what exceeds its remaining wounds is lost. Mortal
        wounds that spill over are events of one wound each."""
        per_state = any(not isinstance(e, Pmf) for e in effects)
        rows: list[Pmf] = []
        for effect, wounds in zip(effects, track.wounds):
            if isinstance(effect, Pmf):
                rows += [effect] * (wounds if per_state else 1)
            elif len(effect) == wounds:
                rows += effect
            else:
                raise ValueError("a model's effects by wounds lost must cover each of its wounds")
        exact = rows[0].exact
        aligned, den = common([(e.weights, e.denominator) for e in rows], exact)
        size = track.total + 1
        low = min(e.offset for e in rows)
        width = max(e.max for e in rows) - low + 1
        # chance[s, j]: the model worked on at state s loses low + j wounds
        table = np.zeros((len(rows), width), dtype=dtype(exact))
        for r, (effect, weights) in enumerate(zip(rows, aligned)):
            table[r, effect.offset - low : effect.max - low + 1] = weights
        chance = table if per_state else np.repeat(table, track.wounds, axis=0)
        states = np.arange(size - 1)
        ends = np.repeat(np.array(track.starts[1:]), track.wounds)
        weights = np.zeros((size, size), dtype=table.dtype)
        for j in range(width):
            weights[states, np.minimum(states + low + j, ends)] += chance[:, j]
        weights[size - 1, size - 1] = den
        return cls(weights, den, low >= 1)


def _accumulate(start: Pmf, step: Transition, counts: np.ndarray, counts_den: int) -> tuple[np.ndarray, int]:
    """Rows k of the result: sum over u of counts[u, k] * (start after u events).

    Returns integer/float weights and their common denominator. When every event costs
    a wound, the unit is surely destroyed after as many events as it has wounds, so the
    remaining mass goes straight to the last state.
    """
    state = start.weights
    acc = np.zeros((counts.shape[1], len(state)), dtype=state.dtype)
    last = len(counts) - 1
    if step.always_harms:
        last = min(last, len(state) - 1)
        tail = counts[last + 1 :].sum(axis=0)
    for u in range(last + 1):
        acc += counts[u][:, None] * state
        if u == last:
            break
        state = state @ step.weights
        if step.denominator != 1:
            acc *= step.denominator
    if step.always_harms and last < len(counts) - 1:
        acc[:, -1] += tail * state[-1]
    return acc, counts_den * start.denominator * step.denominator**last


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
        scale *= second.denominator
        result = result @ second.weights + row * scale
    return Pmf(result, den * second.denominator ** (len(acc) - 1))
