"""The steps of arithmetic a query actually takes, counted as `engine.limits` counts them in its estimate:
one per entry of an array worked on by each kernel (applying or composing a banded transition, a
convolution of counts, the allocation's accumulation, sums of states), an exact entry of b bits counting
as `limits.grown` says (more where two large numbers are multiplied), a float transition applied written
out `BLAS_ENTRIES` entries a step, and each call of a kernel a fixed `CALL_STEPS`. Counted by wrapping
the kernels, so that the engine carries no counter of its own."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest

from mathhammer_exact import pmf, weights
from mathhammer_exact.engine import chain
from mathhammer_exact.engine.limits import BLAS_ENTRIES, CALL_STEPS, SPARSE_ENTRIES, grown
from mathhammer_exact.pmf import EXACT, FLOAT
from mathhammer_exact.stages import allocation


def _bits(array: np.ndarray) -> int:
    """The bits of the largest exact entries (an even sample of up to 64 of them)."""
    flat = array.reshape(-1)
    sample = flat[:: max(1, len(flat) // 64)]
    return max((abs(int(x)).bit_length() for x in sample), default=0)


class Counter:
    """Steps counted so far."""

    def __init__(self) -> None:
        self.steps = 0.0

    def add(self, entries: float, calls: int, result: np.ndarray, products: bool = False) -> None:
        mode = EXACT if result.dtype == object else FLOAT
        self.steps += grown(entries, _bits(result) if mode.exact else 0, mode, products) + calls * CALL_STEPS[mode]


@contextlib.contextmanager
def counted(monkeypatch: pytest.MonkeyPatch) -> Iterator[Counter]:
    """Within the block, every kernel's steps are added to the counter yielded."""
    counter = Counter()

    def wrap(owner: Any, name: str, measure: Callable[..., tuple[Any, ...]]) -> None:
        original = getattr(owner, name)

        def counting(*args: Any) -> Any:
            out = original(*args)
            counter.add(*measure(out, *args))
            return out

        monkeypatch.setattr(owner, name, counting)

    def move(matrix: weights.Banded, states: int) -> tuple[float, int]:
        """One event's move of `states` values: in float mode many values are moved in compressed rows and a small
        matrix is one BLAS call; in exact mode one written out is applied so only where that is no slower than a
        slice per band (counted as those)."""
        if not matrix.exact and states >= weights.SPARSE_FROM:
            return states * len(matrix.offsets) / SPARSE_ENTRIES, 1
        if not matrix.exact and matrix.written_out() is not None:
            return states * matrix.size / BLAS_ENTRIES, 1
        return states * len(matrix.offsets), len(matrix.offsets)

    def moved(out: np.ndarray, matrix: weights.Banded, state: np.ndarray) -> tuple[float, int, np.ndarray]:
        return (*move(matrix, state.size), out)

    def composed(out: weights.Banded, a: weights.Banded, b: weights.Banded) -> tuple[int, int, np.ndarray]:
        return len(a.offsets) * len(b.offsets) * a.size, 6, out.bands

    def convolved(out: np.ndarray, a: np.ndarray, b: np.ndarray) -> tuple[int, int, np.ndarray, bool]:
        if a.ndim == 1 and b.ndim == 1:
            return a.size * b.size, 1, out, True
        small, big = sorted((a, b), key=np.size)
        return int(np.count_nonzero(small)) * big.size, int(np.count_nonzero(small)), out, True

    def accumulated(out: tuple[np.ndarray, int], start: pmf.Pmf, step: allocation.Transition, counts: np.ndarray,
                    _den: int) -> tuple[int, int, np.ndarray, bool]:
        """The states after each number of events, weighted by the counts."""
        rounds = len(counts)
        work, calls = rounds * out[0].size, rounds + 2
        if step.matrix.written_out() is not None:  # its moves applied written out here, not through `moved`
            steps, moves = move(step.matrix, start.weights.size)
            work, calls = work + (rounds - 1) * steps, calls + (rounds - 1) * moves
        return work, calls, out[0], True

    def combined(out: weights.Scaled, _each: Any, state: weights.Scaled) -> tuple[float, int, np.ndarray]:
        """Events worked out from each target state, combined with the counts in one product."""
        entries = out.array.size * len(state.array)
        return entries / (1 if out.exact else BLAS_ENTRIES), 1, out.array  # a large number times a small one

    def summed(out: weights.Scaled, *_: Any) -> tuple[int, int, np.ndarray]:
        return out.array.size, 1, out.array

    wrap(weights.Banded, "moved", moved)
    wrap(weights.Banded, "__matmul__", composed)
    wrap(weights.Scaled, "__add__", summed)
    wrap(weights.Scaled, "times", summed)
    wrap(pmf, "_convolve", convolved)
    wrap(chain, "_combined", combined)
    wrap(allocation, "_accumulate", accumulated)
    yield counter
