"""Arrays of probabilities that stay exact: integer weights over one denominator.

`Scaled` is what the whole-unit chain computes with: state vectors and transition
matrices. In float mode the denominator is 1 and the array is float64, so the same
code runs in both modes; in exact mode sums align denominators with their lcm.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction

import numpy as np


def dtype(exact: bool) -> np.dtype:
    """The array type of a number mode: Python integers (exact weights) or float64."""
    return np.dtype(object) if exact else np.dtype(np.float64)


def common(parts: Sequence[tuple[np.ndarray, int]], exact: bool) -> tuple[list[np.ndarray], int]:
    """Arrays ``a_i / d_i`` over one denominator: their lcm in exact mode (each array scaled up to
    it), 1 in float mode (where every denominator is 1 already). The one place modes align."""
    if not exact:
        return [a for a, _ in parts], 1
    den = math.lcm(*(d for _, d in parts))
    return [a if d == den else a * (den // d) for a, d in parts], den


class Scaled:
    """``array / denominator``: exact (object array of ints) or float64 (denominator 1)."""

    __slots__ = ("array", "denominator")

    def __init__(self, array: np.ndarray, denominator: int = 1):
        self.array = array
        self.denominator = denominator

    @classmethod
    def zeros(cls, shape: tuple[int, ...], exact: bool) -> Scaled:
        return cls(np.zeros(shape, dtype=dtype(exact)))

    @classmethod
    def identity(cls, size: int, exact: bool) -> Scaled:
        eye = np.zeros((size, size), dtype=dtype(exact))
        np.fill_diagonal(eye, 1)
        return cls(eye)

    @property
    def exact(self) -> bool:
        return self.array.dtype == object

    def __add__(self, other: Scaled) -> Scaled:
        (a, b), den = common([(self.array, self.denominator), (other.array, other.denominator)], self.exact)
        return Scaled(a + b, den)

    def times(self, p: Fraction) -> Scaled:
        """Every entry multiplied by the probability p."""
        if self.exact:
            return Scaled(self.array * p.numerator, self.denominator * p.denominator)
        return Scaled(self.array * float(p), 1)

    def __matmul__(self, other: Scaled) -> Scaled:
        return Scaled(self.array @ other.array, self.denominator * other.denominator)
