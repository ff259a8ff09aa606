"""Arrays of probabilities that stay exact: integer weights over one denominator.

`Scaled` is what the whole-unit chain's states are: arrays of weights. `Banded` is what moves
them: a transition matrix kept by its diagonals, since an event only ever adds wounds lost, and
few at a time. In float mode the denominator is 1 and the arrays are float64, so the same code
runs in both modes; in exact mode sums align denominators with their lcm.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import numpy as np

DTYPES = (np.dtype(np.float64), np.dtype(object))  #: by exactness: the float and the exact array type


def dtype(exact: bool) -> np.dtype:
    """The array type of a number mode: Python integers (exact weights) or float64."""
    return DTYPES[exact]


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


SPARSE_FROM = 200_000  #: float weights are moved by a matrix in compressed rows from this many on (measured: 1.5-3x
#: faster than by bands or written out). Loading scipy takes about 150 ms once; a query whose states are this large
#: takes hundreds of ms, and pays for it; an everyday query never loads it.
DENSE_UP_TO = 128  #: states up to which a float matrix is applied written out (measured: BLAS wins there)
DENSE_EXACT = 100  #: an exact matrix is applied written out while its states squared are at most this many times
#: its bands (measured: an entry's product costs about a hundredth of a band's slice)


class Banded:
    """A transition matrix on states 0..size-1 kept by its diagonals: ``bands[i, s] / denominator``
    is the chance of moving from state s to state ``s + offsets[i]``.

    States count wounds lost, which an event never gives back, so every offset is 0 or more; and
    one event moves the state by little, so there are few offsets. Composing two such matrices
    costs offsets x offsets x states and applying one offsets x states, where a dense matrix
    costs states^3 and states^2 (an Attached unit of twenty models has hundreds of states).
    Entries that would move beyond the last state are zero.
    """

    __slots__ = ("offsets", "bands", "denominator", "_dense", "_sparse")

    def __init__(self, offsets: np.ndarray, bands: np.ndarray, denominator: int = 1):
        self.offsets = offsets  #: distinct offsets (int64), increasing
        self.bands = bands  #: one row per offset, one column per state
        self.denominator = denominator
        self._dense: np.ndarray | None = None
        self._sparse: Any = None

    @classmethod
    def identity(cls, size: int, exact: bool) -> Banded:
        return cls(np.zeros(1, dtype=np.int64), np.ones((1, size), dtype=dtype(exact)))

    @property
    def size(self) -> int:
        return self.bands.shape[1]

    def equals(self, other: Banded) -> bool:
        """Whether the two give every move the same weight over the same denominator."""
        return (self.denominator == other.denominator and np.array_equal(self.offsets, other.offsets)
                and np.array_equal(self.bands, other.bands))

    @property
    def exact(self) -> bool:
        return self.bands.dtype == object

    def times(self, p: Fraction) -> Banded:
        """Every entry multiplied by the probability p."""
        if self.exact:
            return Banded(self.offsets, self.bands * p.numerator, self.denominator * p.denominator)
        return Banded(self.offsets, self.bands * float(p))

    def __add__(self, other: Banded) -> Banded:
        (a, b), den = common([(self.bands, self.denominator), (other.bands, other.denominator)], self.exact)
        if np.array_equal(self.offsets, other.offsets):
            return Banded(self.offsets, a + b, den)
        offsets = np.union1d(self.offsets, other.offsets)
        bands = np.zeros((len(offsets), self.size), dtype=a.dtype)
        bands[np.searchsorted(offsets, self.offsets)] += a
        bands[np.searchsorted(offsets, other.offsets)] += b
        return Banded(offsets, bands, den)

    def __matmul__(self, other: Banded) -> Banded:
        """This event, then `other`: a move by a then one by b is a move by a + b."""
        size = self.size
        sums = self.offsets[:, None] + other.offsets[None, :]
        keep = sums < size
        padded = np.zeros((len(other.offsets), 2 * size), dtype=other.bands.dtype)
        padded[:, :size] = other.bands
        # later[i, j, s]: other's weight of moving by offsets[j] from s + self.offsets[i]
        later = padded[:, self.offsets[:, None] + np.arange(size)].transpose(1, 0, 2)
        products = (self.bands[:, None, :] * later)[keep]
        offsets, where = np.unique(sums[keep], return_inverse=True)
        bands = np.zeros((len(offsets), size), dtype=products.dtype)
        np.add.at(bands, where, products)
        return Banded(offsets, bands, self.denominator * other.denominator)

    def placed(self, size: int, row: int, column: int) -> Banded:
        """This matrix as the block of a larger one (on `size` states) that moves states row.. to
        states column.. (column >= row): e.g. a Command Re-roll's "at hand" half into its "spent" half."""
        bands = np.zeros((len(self.offsets), size), dtype=self.bands.dtype)
        bands[:, row:row + self.size] = self.bands
        return Banded(self.offsets + (column - row), bands, self.denominator)

    def moved(self, weights: np.ndarray) -> np.ndarray:
        """Weights after this event, times its denominator: the states on the first axis, any axes after them
        (the chain's counts of waiting wounds) carried along, so that each band's slice is a few long runs.
        Many float weights are moved by the matrix in compressed rows (`SPARSE_FROM`: scipy's product runs along
        each state's long row of counts in one pass). A small matrix is applied written out: in float mode one
        BLAS product beats a few slices; in exact mode the product of all its entries beats a slice per band
        while there are few (`DENSE_EXACT`)."""
        if not self.exact and weights.size >= SPARSE_FROM:
            return (self.sparse() @ weights.reshape(len(weights), -1)).reshape(weights.shape)
        written = self.written_out()
        if written is not None:
            if weights.ndim == 1:
                return weights @ written
            return (written.T @ weights.reshape(len(weights), -1)).reshape(weights.shape)
        size = self.size
        out = np.zeros_like(weights)
        bands = self.bands.reshape(*self.bands.shape, *(1,) * (weights.ndim - 1))  # each entry over the axes after
        for offset, band in zip(self.offsets.tolist(), bands):
            inside = max(size - offset, 0)  # the states whose move by this band stays inside
            out[offset:] += weights[:inside] * band[:inside]
        return out

    def written_out(self) -> np.ndarray | None:
        """The matrix written out where applying it so is faster (see `moved`), else None; worked out once."""
        if self.size <= DENSE_UP_TO if not self.exact else self.size**2 <= DENSE_EXACT * len(self.offsets):
            if self._dense is None:
                self._dense = self.dense()
            return self._dense
        return None

    def sparse(self) -> Any:
        """The matrix as scipy's compressed rows, each row a state moved to (float mode); worked out once."""
        if self._sparse is None:
            from scipy import sparse  # loads only for the largest float states, where it is much the fastest

            moves_from, moves_to, chances = self._moves()
            self._sparse = sparse.csr_array((chances, (moves_to, moves_from)), shape=(self.size, self.size))
        return self._sparse

    def apply(self, state: Scaled) -> Scaled:
        """The state after this event."""
        return Scaled(self.moved(state.array), state.denominator * self.denominator)

    def dense(self) -> np.ndarray:
        """The matrix written out (for tests and benchmarks, and where `written_out` applies it so): each band is
        a diagonal, every (size + 1)-th entry of the flat matrix from its offset on."""
        size = self.size
        out = np.zeros((size, size), dtype=self.bands.dtype)
        flat = out.reshape(-1)
        for offset, band in zip(self.offsets.tolist(), self.bands):
            inside = max(size - offset, 0)
            flat[offset :: size + 1][:inside] = band[:inside]
        return out

    def _moves(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Every move the matrix holds: the state it is from, the state it is to, and its weight."""
        states = np.arange(self.size)
        to = states + self.offsets[:, None]  # to[i, s]: where offsets[i] moves state s
        inside = to < self.size
        return np.broadcast_to(states, to.shape)[inside], to[inside], self.bands[inside]
