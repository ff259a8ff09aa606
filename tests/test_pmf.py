"""The distribution core against brute-force sums over outcomes, in both number modes."""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mathhammer_exact import Pmf

from .conftest import as_dict

small_pmfs = st.lists(st.integers(0, 5), min_size=1, max_size=4).filter(any).flatmap(
    lambda ws: st.integers(0, 3).map(
        lambda off: {off + i: Fraction(w, sum(ws)) for i, w in enumerate(ws) if w}))


def make(dist: dict[int, Fraction], exact: bool) -> Pmf:
    low, high = min(dist), max(dist)
    return Pmf.from_probs([dist.get(k, Fraction(0)) for k in range(low, high + 1)], low, exact)


def brute_sum(*dists: dict[int, Fraction]) -> dict[int, Fraction]:
    out: dict[int, Fraction] = {}
    for combo in itertools.product(*(d.items() for d in dists)):
        k = sum(v for v, _ in combo)
        p = Fraction(1)
        for _, q in combo:
            p *= q
        out[k] = out.get(k, Fraction(0)) + p
    return {k: p for k, p in out.items() if p}


@given(small_pmfs, small_pmfs)
def test_sum_is_convolution(a, b):
    assert as_dict(make(a, True) + make(b, True)) == brute_sum(a, b)


@given(small_pmfs, small_pmfs)
@settings(max_examples=60)
def test_compound_is_random_sum(n, item):
    expected: dict[int, Fraction] = {}
    for count, p in n.items():
        for k, q in (brute_sum(*([item] * count)) if count else {0: Fraction(1)}).items():
            expected[k] = expected.get(k, Fraction(0)) + p * q
    item0 = {k: p for k, p in item.items()}
    if min(item0) > 0:  # compound items are counts starting at 0: pad explicitly
        item0[0] = Fraction(0)
    result = make(n, True).compound(make(item0, True))
    assert as_dict(result) == {k: p for k, p in expected.items() if p}
    assert result.to_float().probabilities() == pytest.approx([float(p) for p in result.probabilities()], abs=1e-12)


@pytest.mark.parametrize("item", [Pmf.point(2), Pmf.uniform(1, 3)])
def test_a_negative_number_of_items_is_refused(item):
    # fixed items, a fixed number of them, or a random number: none is a count below zero
    for count in (Pmf.point(-1), Pmf.uniform(-1, 2)):
        with pytest.raises(ValueError, match="no negative values"):
            count.compound(item)


@given(small_pmfs, small_pmfs, st.fractions(0, 1))
def test_mixture(a, b, w):
    expected = {k: w * a.get(k, 0) + (1 - w) * b.get(k, 0) for k in set(a) | set(b)}
    assert as_dict(Pmf.mixture([(w, make(a, True)), (1 - w, make(b, True))])) == \
        {k: p for k, p in expected.items() if p}


small_grids = st.dictionaries(st.tuples(st.integers(0, 2), st.integers(0, 2)), st.integers(1, 5), min_size=1,
                               max_size=4).map(lambda ws: {k: Fraction(w, sum(ws.values())) for k, w in ws.items()})


@given(small_pmfs, small_grids, st.sampled_from([0, 1, 3]), st.fractions(0, 1).filter(lambda w: w < 1))
def test_mixture_of_counts_and_grids(a, grid, point, w):
    # a 1-D count joins a grid as its first count (k -> (k, 0)), a one-value count (nothing, say) too
    parts = [(w / 2, make(a, True)), (w / 2, Pmf.point(point, True)), (1 - w, Pmf.grid(grid, True))]
    expected: dict[tuple[int, int], Fraction] = {}
    for (p, _), dist in zip(parts, ({(k, 0): q for k, q in a.items()}, {(point, 0): Fraction(1)}, grid)):
        for key, q in dist.items():
            expected[key] = expected.get(key, Fraction(0)) + p * q
    for exact in (True, False):
        mixed = Pmf.mixture([(p, pmf.in_mode(exact)) for p, pmf in parts])
        found = {(i, j): Fraction(int(x), mixed.denominator) if exact else float(x)
                 for (i, j), x in np.ndenumerate(mixed.weights) if x}
        assert found == ({k: p for k, p in expected.items() if p} if exact else
                         pytest.approx({k: float(p) for k, p in expected.items() if p}, abs=1e-12))


@given(small_pmfs)
def test_summaries_match_definitions(a):
    pmf = make(a, True)
    mean = sum(k * p for k, p in a.items())
    assert pmf.mean == mean
    assert pmf.variance == sum((k - mean) ** 2 * p for k, p in a.items())
    assert pmf.total() == 1
    for k in range(min(a) - 1, max(a) + 2):
        assert pmf.at_least(k) == sum(p for v, p in a.items() if v >= k)
        assert pmf.at_most(k) == sum(p for v, p in a.items() if v <= k)
    assert pmf.median == min(k for k in a if sum(p for v, p in a.items() if v <= k) >= Fraction(1, 2))
    floats = make(a, False)
    assert float(floats.mean) == pytest.approx(float(mean), abs=1e-12)
    assert floats.median == pmf.median


def test_joint_grid_sums_and_marginals():
    # one attack: (normal, devastating) in {(0,0): 1/2, (1,0): 1/3, (0,1): 1/6}; two attacks.
    g = Pmf.grid({(0, 0): Fraction(1, 2), (1, 0): Fraction(1, 3), (0, 1): Fraction(1, 6)}, exact=True)
    two = g + g
    assert two.marginal(0).probabilities() == [Fraction(4, 9), Fraction(4, 9), Fraction(1, 9)]
    assert two.marginal(1).probabilities() == [Fraction(25, 36), Fraction(10, 36), Fraction(1, 36)]
    assert Pmf.point(2, True).compound(g).weights.tolist() == two.weights.tolist()


def test_map_and_repr():
    d6 = Pmf.uniform(1, 6, exact=True)
    assert as_dict(d6.map(lambda x: (x + 1) // 2)) == {1: Fraction(1, 3), 2: Fraction(1, 3), 3: Fraction(1, 3)}
    assert repr(Pmf.bernoulli(Fraction(1, 4), True)) == "Pmf({0: 3/4, 1: 1/4}, exact)"


def test_a_pmf_cannot_be_changed():
    import attrs

    die = Pmf.uniform(1, 6, exact=True)
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        die.offset = 10  # type: ignore[misc]
    with pytest.raises(ValueError, match="read-only"):
        die.weights[0] = 5
    weights = np.ones(3, dtype=object)
    made = Pmf(weights, 3)
    with pytest.raises(ValueError, match="read-only"):
        weights[0] = 2  # the array a Pmf was built from is frozen with it
    assert made.p(0) == Fraction(1, 3)


def test_equality_compares_probabilities_also_for_joint_grids():
    half = Fraction(1, 2)
    grid = Pmf.grid({(0, 0): half, (1, 1): half}, exact=True)
    assert grid == Pmf.grid({(1, 1): half, (0, 0): half}, exact=True)
    assert grid != Pmf.grid({(0, 0): half, (1, 0): half}, exact=True)
    assert len({grid, Pmf.grid({(0, 0): half, (1, 1): half}, exact=True)}) == 1
    # the same probabilities over another denominator, or with zero-probability values at the edges
    assert Pmf.from_probs([half, half], 3, exact=True) == Pmf.from_probs([0, Fraction(2, 4), Fraction(2, 4), 0], 2,
                                                                         exact=True)
    assert Pmf.from_probs([half, half], 0, exact=True) != Pmf.from_probs([half, half], 1, exact=True)
    scaled_up = Pmf(np.array([2, 4, 0], dtype=object), 6)  # weights and denominator with a common factor
    assert scaled_up == Pmf(np.array([1, 2], dtype=object), 3) and hash(scaled_up) == hash(Pmf.from_probs(
        [Fraction(1, 3), Fraction(2, 3)], exact=True))
    assert scaled_up != Pmf(np.array([2, 1], dtype=object), 3) and scaled_up != Pmf(np.array([2, 4], dtype=object), 7)
    assert Pmf.point(1, exact=True) != Pmf.point(1)  # exact and float answers are different objects


def test_a_mode_makes_its_distributions_in_it():
    from mathhammer_exact.pmf import EXACT, FLOAT, Mode

    assert Mode(True) == EXACT and str(EXACT) == "exact" and str(FLOAT) == "float"
    half = EXACT.bernoulli(Fraction(1, 3))
    assert half.exact and half.fractions() == {0: Fraction(2, 3), 1: Fraction(1, 3)} and half.mode == EXACT
    assert not FLOAT.bernoulli(Fraction(1, 3)).exact and FLOAT.of(half).p(1) == pytest.approx(1 / 3, abs=1e-15)
    assert EXACT.of(half) is half and EXACT.point(4).fractions() == {4: 1} and FLOAT.point(4).mode == FLOAT
    grid = EXACT.grid({(0, 0): Fraction(1, 2), (1, 1): Fraction(1, 2)})
    assert grid.weights.shape == (2, 2) and grid.exact
    with pytest.raises(ValueError, match="cannot be made exact"):
        EXACT.of(FLOAT.point(1))
