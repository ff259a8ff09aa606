"""Arrays of probabilities that stay exact: integer weights over one denominator.

`Scaled` is what the whole-unit chain computes with: state vectors and transition
matrices. In float mode the denominator is 1 and the array is float64, so the same
code runs in both modes; in exact mode sums align denominators with their lcm.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np


class Scaled:
    """``array / denominator``: exact (object array of ints) or float64 (denominator 1)."""

    __slots__ = ("array", "denominator")

    def __init__(self, array: np.ndarray, denominator: int = 1):
        self.array = array
        self.denominator = denominator

    @classmethod
    def zeros(cls, shape: tuple[int, ...], exact: bool) -> Scaled:
        return cls(np.zeros(shape, dtype=object if exact else np.float64))

    @classmethod
    def identity(cls, size: int, exact: bool) -> Scaled:
        eye = np.zeros((size, size), dtype=object if exact else np.float64)
        np.fill_diagonal(eye, 1)
        return cls(eye)

    @property
    def exact(self) -> bool:
        return self.array.dtype == object

    def _aligned(self, denominator: int) -> np.ndarray:
        return self.array if denominator == self.denominator else self.array * (denominator // self.denominator)

    def __add__(self, other: Scaled) -> Scaled:
        den = math.lcm(self.denominator, other.denominator)
        return Scaled(self._aligned(den) + other._aligned(den), den)

    def times(self, p: Fraction) -> Scaled:
        """Every entry multiplied by the probability p."""
        if self.exact:
            return Scaled(self.array * p.numerator, self.denominator * p.denominator)
        return Scaled(self.array * float(p), 1)

    def __matmul__(self, other: Scaled) -> Scaled:
        return Scaled(self.array @ other.array, self.denominator * other.denominator)
