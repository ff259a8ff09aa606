"""Exact and floating-point probability distributions over integer counts.

A `Pmf` holds non-negative weights over consecutive integers starting at `offset`
(or over a small 2-D grid of joint counts, offset 0) and one denominator:

* float mode: ``float64`` weights that are the probabilities, denominator 1;
* exact mode: Python ``int`` weights in an object array, the probability of a
  value being ``weight / denominator``.

Keeping exact weights as integers over a common denominator (rather than
``Fraction`` objects) is what makes exact mode fast: no gcd on every addition.
Every operator below is written once and serves both modes.
"""

from __future__ import annotations

import functools
import html
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from fractions import Fraction
from functools import cached_property
from typing import Any

import attrs
import numpy as np

from .weights import DTYPES, dtype

Number = float | Fraction

__all__ = ["EXACT", "FLOAT", "Mode", "Number", "Pmf", "pmf_html", "rows"]


def _convolve(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Weights of the sum of two independent counts (1-D or 2-D grids)."""
    if a.ndim == 1 and b.ndim == 1:
        return np.convolve(a, b)
    a2, b2 = np.atleast_2d(a), np.atleast_2d(b)
    small, big = (a2, b2) if a2.size <= b2.size else (b2, a2)
    shape = (a2.shape[0] + b2.shape[0] - 1, a2.shape[1] + b2.shape[1] - 1)
    out = np.zeros(shape, dtype=big.dtype)
    for i, j in zip(*np.nonzero(small)):
        out[i : i + big.shape[0], j : j + big.shape[1]] += small[i, j] * big
    return out


def _placed(a: np.ndarray, shape: tuple[int, ...], at: tuple[int, ...] | None = None) -> np.ndarray:
    """`a` inside a zero array of `shape`, its first entry at `at` (np.pad would put numpy
    integers into exact object arrays, where they overflow)."""
    out = np.zeros(shape, dtype=a.dtype)
    at = at or (0,) * a.ndim
    out[tuple(slice(i, i + n) for i, n in zip(at, a.shape))] = a
    return out


def _fold(a: np.ndarray, cap: tuple[int, ...] | None) -> np.ndarray:
    """`a` with every value above `cap` (per axis) added into the cap itself: the weights of
    min(X, cap). Exact wherever only min(X, cap) matters downstream, because
    min(min(x, c) + y, c) = min(x + y, c) for counts y >= 0."""
    if cap is None:
        return a
    for axis, c in enumerate(cap):
        if a.shape[axis] > c + 1:
            keep: tuple[Any, ...] = (slice(None),) * axis
            head = a[(*keep, slice(0, c + 1))].copy()
            head[(*keep, c)] += a[(*keep, slice(c + 1, None))].sum(axis=axis)
            a = head
    return a


def _power(a: np.ndarray, n: int, cap: tuple[int, ...] | None = None) -> np.ndarray:
    """Weights of the sum of n independent copies of a count (folded at `cap`).

    1-D: square-and-multiply. 2-D: n multiplications by the small item, which stays cheaper than
    squaring a large grid (a 2-D convolution loops over the nonzero entries of its smaller side)."""
    if a.ndim == 2:
        result = np.array([[1]], dtype=a.dtype)
        for _ in range(n):
            result = _fold(_convolve(result, a), cap)
        return result
    out = None
    while n:
        if n & 1:
            out = a if out is None else _fold(_convolve(out, a), cap)
        n >>= 1
        if n:
            a = _fold(_convolve(a, a), cap)
    return np.array([1], dtype=a.dtype) if out is None else _fold(out, cap)


def _read_only(weights: np.ndarray) -> np.ndarray:
    """The weights as an array nobody can change: float64, or Python ints in an object array."""
    kind = weights.dtype
    if kind is not DTYPES[0] and kind is not DTYPES[1] and kind not in DTYPES:  # the first two tests are quick
        weights = weights.astype(np.float64)
    weights.setflags(write=False)
    return weights


@attrs.frozen(eq=False)
class Pmf:
    """An immutable distribution of an integer count (or a pair of counts).

    Build one with `Pmf.point`, `Pmf.uniform`, `Pmf.bernoulli` or `Pmf.from_probs`; combine with
    ``+`` (sum of independent counts), `compound` (random sums), `mixture` and `map`; read it with
    properties (`mean`, `variance`, `sd`, `median`, `min`, `max`, `exact`) and methods that take an
    argument (`p(k)`, `at_least(k)`, `at_most(k)`, `quantile(q)`). Two distributions are equal when
    they give every value the same probability. `then`, `repeated` and `nothing` are the verbs the
    attack rules are written with (`stages.hit.per_attack`), shared with the whole-unit chain.
    """

    weights: np.ndarray = attrs.field(converter=_read_only)
    denominator: int = 1
    offset: int = 0

    # ----------------------------------------------------------- constructors
    @staticmethod
    @functools.lru_cache(maxsize=64)
    def point(value: int, exact: bool = False) -> Pmf:
        """The certain value `value` (immutable, so each is built once)."""
        return Pmf(np.array([1], dtype=dtype(exact)), 1, value)

    @classmethod
    def uniform(cls, low: int, high: int, exact: bool = False) -> Pmf:
        """Each of low..high equally likely (a die)."""
        n = high - low + 1
        if exact:
            return cls(np.array([1] * n, dtype=object), n, low)
        return cls(np.array([1.0 / n] * n), 1, low)

    @classmethod
    def from_probs(cls, probs: Sequence[Number], offset: int = 0, exact: bool = False) -> Pmf:
        """From probabilities of offset, offset+1, ... (Fractions for exact mode)."""
        if not exact:
            return cls(np.array([float(p) for p in probs]), 1, offset)
        fracs = [Fraction(p) for p in probs]
        den = math.lcm(*(f.denominator for f in fracs))
        return cls(np.array([f.numerator * (den // f.denominator) for f in fracs], dtype=object), den, offset)

    @classmethod
    def from_mapping(cls, chances: Mapping[int, Fraction], exact: bool = False) -> Pmf:
        """From {value: probability}; the chances may sum to less than 1 (one branch of a choice)."""
        low, high = min(chances, default=0), max(chances, default=0)
        return cls.from_probs([chances.get(v, Fraction(0)) for v in range(low, high + 1)], low, exact)

    @classmethod
    def bernoulli(cls, p: Fraction, exact: bool = False) -> Pmf:
        """1 with probability p, else 0."""
        p = p if isinstance(p, Fraction) else Fraction(p)
        if exact:
            return cls(np.array([p.denominator - p.numerator, p.numerator], dtype=object), p.denominator)
        return cls(np.array([(p.denominator - p.numerator) / p.denominator, p.numerator / p.denominator]))

    @classmethod
    def grid(cls, probs: dict[tuple[int, int], Fraction], exact: bool = False) -> Pmf:
        """A joint distribution of two counts from {(i, j): probability}."""
        shape = (max(i for i, _ in probs) + 1, max(j for _, j in probs) + 1)
        flat = cls.from_probs(list(probs.values()), 0, exact)
        w = np.zeros(shape, dtype=flat.weights.dtype)
        for (i, j), x in zip(probs, flat.weights):
            w[i, j] += x
        return cls(w, flat.denominator)

    # ----------------------------------------------------------------- basics
    @property
    def exact(self) -> bool:
        """True when weights are exact integers over `denominator`."""
        return self.weights.dtype == object

    @property
    def mode(self) -> Mode:
        """The number mode this distribution is kept in."""
        return EXACT if self.exact else FLOAT

    @property
    def min(self) -> int:
        return self.offset

    @property
    def max(self) -> int:
        return self.offset + len(self.weights) - 1

    def _scalar(self, weight: object) -> Number:
        if self.exact:
            return Fraction(int(weight), self.denominator)  # type: ignore[call-overload]
        return float(weight)  # type: ignore[arg-type]

    def _from_zero(self) -> np.ndarray:
        """Weights of values 0..max (for counts, which are never negative)."""
        if self.offset < 0:
            raise ValueError("expected a count (no negative values)")
        if not self.offset:
            return self.weights
        return _placed(self.weights, (self.offset + len(self.weights),), (self.offset,))

    def probabilities(self) -> list[Number]:
        """P(X = min), P(X = min+1), ..., P(X = max) (1-D only)."""
        return [self._scalar(w) for w in self.weights]

    def total(self) -> Number:
        """Sum of all probabilities: 1 for every distribution the engine returns."""
        return self._scalar(self.weights.sum())

    def p(self, k: int) -> Number:
        """P(X = k)."""
        i = k - self.offset
        return self._scalar(self.weights[i] if 0 <= i < len(self.weights) else 0)

    def at_least(self, k: int) -> Number:
        """P(X >= k)."""
        i = min(max(k - self.offset, 0), len(self.weights))
        return self._scalar(self.weights[i:].sum())

    def at_most(self, k: int) -> Number:
        """P(X <= k)."""
        return 1 - self.at_least(k + 1)

    def chance(self, predicate: Callable[[int], bool]) -> Number:
        """P(predicate(X)): e.g. ``pmf.chance(lambda k: 2 * k > n)``."""
        values = range(self.offset, self.max + 1)
        return self._scalar(sum((w for v, w in zip(values, self.weights) if predicate(v)), 0 * self.weights[0]))

    def chance_where(self, mask: np.ndarray) -> Number:
        """P(mask[X]) for a count X and a boolean array over its values (e.g. the states in which
        a unit is Below Half-strength)."""
        return self._scalar(self.weights[np.asarray(mask)[self.offset : self.max + 1]].sum())

    def survival(self) -> list[Number]:
        """P(X >= k) for k = min..max."""
        tail = np.cumsum(self.weights[::-1])[::-1]
        return [self._scalar(w) for w in tail]

    @cached_property
    def mean(self) -> Number:
        """Expected value."""
        values = np.arange(self.offset, self.max + 1)
        if self.exact:
            values = values.astype(object)
        return self._scalar((values * self.weights).sum())

    @cached_property
    def variance(self) -> Number:
        values = np.arange(self.offset, self.max + 1)
        if self.exact:
            values = values.astype(object)
        second = self._scalar((values * values * self.weights).sum())
        return second - self.mean * self.mean  # type: ignore[operator]

    @property
    def sd(self) -> float:
        """Standard deviation (a float even in exact mode: it is a square root)."""
        return math.sqrt(max(float(self.variance), 0.0))

    def quantile(self, q: float) -> int:
        """Smallest k with P(X <= k) >= q."""
        cum = np.cumsum(self.weights)
        if self.exact:
            target = Fraction(q) * self.denominator
            idx = next(i for i, c in enumerate(cum) if c >= target)
        else:
            idx = int(np.searchsorted(cum, q - 1e-12))
        return self.offset + min(idx, len(cum) - 1)

    @property
    def median(self) -> int:
        return self.quantile(0.5)

    def in_mode(self, exact: bool) -> Pmf:
        """The same distribution in exact or float mode (an exact one can become float, not back)."""
        if exact and not self.exact:
            raise ValueError("a float distribution cannot be made exact")
        return self if exact else self.to_float()

    def to_float(self) -> Pmf:
        """The same distribution in float mode."""
        if not self.exact:
            return self
        den = self.denominator  # int / int is correctly rounded, as float(Fraction) is
        w = np.array([int(x) / den for x in self.weights.ravel().tolist()], dtype=float)
        return Pmf(w.reshape(self.weights.shape), 1, self.offset)

    def marginal(self, axis: int) -> Pmf:
        """The distribution of one count of a joint grid (axis 0 or 1)."""
        return Pmf(self.weights.sum(axis=1 - axis), self.denominator)

    @cached_property
    def _key(self) -> tuple[bool, int, tuple[int, ...], tuple[Number, ...]]:
        """What equality compares: the mode, and the probability of each value with zero edges trimmed
        (worked out once: distributions are keys of the engine's caches). Exact weights are compared in
        lowest terms: divided, with the denominator, by their greatest common divisor."""
        w = self.weights
        if w.ndim == 1:  # most keys: trimmed in Python, quicker than numpy for so few values
            values = w.tolist()
            first = next((i for i, x in enumerate(values) if x), None)
            if first is None:
                return self.exact, 0, (), ()
            end = len(values) - next(i for i, x in enumerate(reversed(values)) if x)
            values, low, shape = values[first:end], [first], (end - first,)
        else:
            nonzero = np.nonzero(w)
            if not len(nonzero[0]):
                return self.exact, 0, (), ()
            low = [int(nonzero[0][0]), *(int(axis.min()) for axis in nonzero[1:])]  # the first axis comes sorted
            high = [int(nonzero[0][-1]) + 1, *(int(axis.max()) + 1 for axis in nonzero[1:])]
            trimmed = w[tuple(slice(a, b) for a, b in zip(low, high))]
            values, shape = trimmed.ravel().tolist(), trimmed.shape
        if self.exact:
            common_factor = math.gcd(self.denominator, *values)
            values = [self.denominator // common_factor, *(x // common_factor for x in values)]
        return self.exact, self.offset + low[0], (*low[1:], *shape), tuple(values)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Pmf):
            return NotImplemented
        return self._key == other._key

    def __hash__(self) -> int:
        return hash(self._key)

    def fractions(self) -> dict[int, Fraction]:
        """{value: exact probability} of the nonzero values of an exact 1-D distribution."""
        if not self.exact:
            raise ValueError("fractions() needs an exact distribution")
        return {v: Fraction(int(w), self.denominator) for v, w in enumerate(self.weights, self.offset) if w}

    def to_scipy(self) -> Any:
        """The distribution as a frozen ``scipy.stats.rv_discrete``, for scipy's whole API (cdf, ppf,
        rvs, entropy, ...), in floating point."""
        from scipy import stats  # scipy.stats loads only for the tool authors who ask for it

        values = np.arange(self.offset, self.max + 1)
        probs = np.array([float(p) for p in self.probabilities()])
        keep = probs > 0
        return stats.rv_discrete(values=(values[keep], probs[keep] / probs[keep].sum()))

    def _repr_html_(self) -> str:
        """A table in Jupyter notebooks."""
        return pmf_html(self)

    def __repr__(self) -> str:
        mode = "exact" if self.exact else "float"
        if self.weights.ndim == 2:
            return f"Pmf(<{self.weights.shape} joint grid>, {mode})"
        return f"Pmf({{{', '.join(f'{self.offset + i}: {p}' for i, p in enumerate(self.probabilities()))}}}, {mode})"

    # -------------------------------------------------------------- operators
    def __add__(self, other: Pmf | int) -> Pmf:
        """Sum of two independent counts; adding an int shifts the values."""
        if isinstance(other, int):
            return Pmf(self.weights, self.denominator, self.offset + other)
        return Pmf(
            _convolve(self.weights, other.weights),
            self.denominator * other.denominator,
            self.offset + other.offset,
        )

    __radd__ = __add__

    def repeat(self, n: int) -> Pmf:
        """Sum of n independent copies (n models each rolling the same dice)."""
        return Pmf.point(n, self.exact).compound(self)

    def compound(self, item: Pmf, cap: int | tuple[int, ...] | None = None) -> Pmf:
        """Random sum: draw N from self, add N independent copies of `item`.

        Horner's scheme on the generating function G_N(G_item(z)): one convolution with the small
        item per possible value of N. With `cap` (one per axis of the item), the result is the
        distribution of min(sum, cap), folded as it grows so that its size stays bounded. N is a
        count: a negative one is refused, on each of the paths below.
        """
        if self.offset < 0:
            raise ValueError("expected a count (no negative values)")
        caps = (cap,) if isinstance(cap, int) else cap
        if item.weights.shape == (1,) and item.weights[0] == item.denominator and caps is None:  # fixed: scale N
            return self.map(lambda n: n * item.offset)
        if len(self.weights) == 1:  # a fixed number of items
            den = self.denominator * item.denominator**self.offset
            if caps is None and item.weights.ndim == 1:  # keep the item's offset: n items start at n * offset
                return Pmf(_power(item.weights, self.offset) * self.weights[0], den, self.offset * item.offset)
            item_w = item._from_zero() if item.weights.ndim == 1 else item.weights
            return Pmf(_power(item_w, self.offset, caps) * self.weights[0], den)
        n_w = self._from_zero()
        item_w = item._from_zero() if item.weights.ndim == 1 else item.weights
        zero_index = (0,) * item_w.ndim
        scale = 1
        acc = np.zeros((1,) * item_w.ndim, dtype=item_w.dtype)
        acc[zero_index] = n_w[-1]
        for weight in n_w[-2::-1]:
            scale *= item.denominator
            acc = _fold(_convolve(acc, item_w), caps)
            if weight:
                acc[zero_index] += weight * scale
        return Pmf(acc, self.denominator * item.denominator ** (len(n_w) - 1))

    # ----------------------------------------------- verbs shared with the whole-unit chain
    def then(self, other: Pmf) -> Pmf:
        """What this yields and then what `other` yields: the sum of independent counts."""
        return self + other

    def repeated(self, times: Pmf) -> Pmf:
        """What a random number `times` of independent copies of this yield together."""
        return times.compound(self)

    def nothing(self) -> Pmf:
        """Yielding nothing: the count 0."""
        return Pmf.point(0, self.exact)

    @staticmethod
    def mixture(parts: Iterable[tuple[Fraction, Pmf]]) -> Pmf:
        """Weighted mixture: with probability p_i the outcome follows pmf_i.

        The weights p_i are exact fractions that sum to 1; all parts share a mode
        and are counts (values >= 0); 1-D parts join a 2-D mixture as its first count.
        """
        parts = [(p if isinstance(p, Fraction) else Fraction(p), pmf) for p, pmf in parts if p]
        exact = parts[0][1].exact
        if any(pmf.offset < 0 for _, pmf in parts):
            raise ValueError("mixture parts must be counts (no negative values)")
        grids = [pmf.weights.shape[1] for _, pmf in parts if pmf.weights.ndim == 2]
        rows = max(pmf.offset + pmf.weights.shape[0] for _, pmf in parts)
        den = math.lcm(*(p.denominator * pmf.denominator for p, pmf in parts)) if exact else 1
        out = np.zeros((rows, max(grids)) if grids else rows, dtype=dtype(exact))
        for p, pmf in parts:
            w, at = pmf.weights, pmf.offset
            factor = p.numerator * (den // (p.denominator * pmf.denominator)) if exact else p.numerator / p.denominator
            if w.shape == (1,):  # one value (nothing, say): one entry
                out[(at, 0) if grids else at] += w[0] * factor
            elif grids:  # a 1-D count joins a 2-D mixture as its first count
                w = w if w.ndim == 2 else w[:, None]
                out[at : at + w.shape[0], : w.shape[1]] += w * factor
            else:
                out[at : at + len(w)] += w * factor
        return Pmf(out, den)

    def map_values(self, values: np.ndarray) -> Pmf:
        """Distribution of ``values[X]`` for a count X (e.g. models destroyed in each state)."""
        values = np.asarray(values, dtype=np.int64)[self.offset : self.max + 1]
        low = int(values.min())
        if self.exact:
            out = np.zeros(int(values.max()) - low + 1, dtype=object)
            np.add.at(out, values - low, self.weights)
        else:
            out = np.bincount(values - low, weights=self.weights)
        return Pmf(out, self.denominator, low)

    def map(self, f: Callable[[int], int]) -> Pmf:
        """Distribution of f(X): e.g. a damage modifier applied to each roll."""
        values = [f(v) for v in range(self.offset, self.max + 1)]
        if values == list(range(self.offset, self.max + 1)):  # f changes no value (an unmodified damage roll)
            return self
        low, high = min(values), max(values)
        out = np.zeros(high - low + 1, dtype=self.weights.dtype)
        for v, w in zip(values, self.weights):
            out[v - low] += w
        return Pmf(out, self.denominator, low)


@attrs.frozen
class Mode:
    """How a query's numbers are kept: exact integers over a denominator, or floats. A query's mode is chosen
    once, at its entry point (`attack(exact=...)`); the engine below takes this object and makes every
    distribution it builds in it, while the rule stages compute exactly whatever the mode."""

    exact: bool = False

    def __str__(self) -> str:
        return "exact" if self.exact else "float"

    @property
    def dtype(self) -> np.dtype:
        return dtype(self.exact)

    def point(self, value: int) -> Pmf:
        """The certain value `value`."""
        return Pmf.point(value, self.exact)

    def bernoulli(self, p: Fraction) -> Pmf:
        """1 with probability p, else 0."""
        return Pmf.bernoulli(p, self.exact)

    def grid(self, probs: dict[tuple[int, int], Fraction]) -> Pmf:
        """A joint distribution of two counts from {(i, j): probability}."""
        return Pmf.grid(probs, self.exact)

    def of(self, pmf: Pmf) -> Pmf:
        """`pmf` (worked out exactly by a rule stage) in this mode."""
        return pmf.in_mode(self.exact)


FLOAT, EXACT = Mode(False), Mode(True)


def rows(pmf: Pmf) -> list[tuple[int, Number, Number]]:
    """(k, P(X = k), P(X >= k)) for each value of a 1-D distribution."""
    return list(zip(range(pmf.min, pmf.max + 1), pmf.probabilities(), pmf.survival()))


def pmf_html(pmf: Pmf, title: str = "") -> str:
    """An HTML table of a distribution (notebooks)."""
    head = f"<caption>{html.escape(title)}</caption>" if title else ""
    body = "".join(f"<tr><td>{k}</td><td>{float(p):.4%}</td><td>{float(t):.4%}</td></tr>" for k, p, t in rows(pmf))
    return (f"<table>{head}<thead><tr><th>k</th><th>P(=k)</th><th>P(&ge;k)</th></tr></thead>"
            f"<tbody>{body}</tbody></table><p>mean {float(pmf.mean):.4f}, sd {pmf.sd:.4f}</p>")
