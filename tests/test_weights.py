"""`Banded`, the chain's transition matrices kept by their diagonals, against the same matrices
written out in full and multiplied as exact fractions."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from mathhammer_exact.weights import Banded, Scaled


@st.composite
def upper_matrices(draw: st.DrawFn, size: int) -> list[list[Fraction]]:
    """A matrix on `size` states that only moves states up (as an event only adds wounds lost),
    by at most 3, with small fractions as entries."""
    rows = []
    for s in range(size):
        row = [Fraction(0)] * size
        for t in range(s, min(size, s + 4)):
            row[t] = draw(st.sampled_from([Fraction(0), Fraction(1, 2), Fraction(1, 3), Fraction(2, 9), Fraction(1)]))
        rows.append(row)
    return rows


def banded(rows: list[list[Fraction]], exact: bool) -> Banded:
    """`rows` kept by diagonals (the offsets with an entry), over one common denominator (exact) or as floats."""
    size = len(rows)
    den = 18 if exact else 1
    diagonals = [[rows[s][s + k] if s + k < size else Fraction(0) for s in range(size)] for k in range(size)]
    offsets = [k for k, diagonal in enumerate(diagonals) if any(diagonal)] or [0]
    bands = np.array([[int(x * den) if exact else float(x) for x in diagonals[k]] for k in offsets],
                     dtype=object if exact else float)
    return Banded(np.array(offsets, dtype=np.int64), bands, den)


def written_out(matrix: Banded) -> list[list[Fraction]]:
    dense = matrix.dense()
    return [[Fraction(x) / matrix.denominator if matrix.exact else x for x in row] for row in dense]


def product(a: list[list[Fraction]], b: list[list[Fraction]]) -> list[list[Fraction]]:
    n = len(a)
    return [[sum((a[i][k] * b[k][j] for k in range(n)), Fraction(0)) for j in range(n)] for i in range(n)]


sizes = st.integers(1, 7)


@given(sizes.flatmap(lambda n: st.tuples(upper_matrices(n), upper_matrices(n))))
@settings(max_examples=60)
def test_banded_products_sums_and_states_are_the_dense_ones(pair):
    a, b = pair
    for exact in (True, False):
        x, y = banded(a, exact), banded(b, exact)
        assert np.all(x.offsets >= 0) and np.all(np.diff(x.offsets) > 0)
        expected = product(a, b)
        got = written_out(x @ y)
        summed = written_out(x + y)
        if exact:
            assert got == expected
            assert summed == [[p + q for p, q in zip(r, s)] for r, s in zip(a, b)]
        else:
            assert np.allclose(np.array(got, dtype=float), np.array(expected, dtype=float), atol=1e-12)
        state = [Fraction(k + 1, 7) for k in range(len(a))]
        moved = x.apply(Scaled(np.array(state, dtype=float) if not exact else
                               np.array([int(p * 7) for p in state], dtype=object), 1 if not exact else 7))
        want = [sum((state[s] * a[s][t] for s in range(len(a))), Fraction(0)) for t in range(len(a))]
        if exact:
            assert [Fraction(int(w), moved.denominator) for w in moved.array] == want
        else:
            assert np.allclose(moved.array, [float(w) for w in want], atol=1e-12)


def test_a_matrix_placed_in_a_larger_one():
    """A Command Re-roll's "at hand" half moving into its "spent" half: the block lands where it is put."""
    move = banded([[Fraction(1, 2), Fraction(1, 2)], [Fraction(0), Fraction(1)]], exact=True)
    placed = written_out(move.placed(4, 0, 2))
    half, zero, one = Fraction(1, 2), Fraction(0), Fraction(1)
    assert placed == [[zero, zero, half, half], [zero, zero, zero, one], [zero] * 4, [zero] * 4]
    stacked = np.zeros((4, 2, 2), dtype=object)  # axes after the states' are carried along
    stacked[0, 1, 0] = 18
    moved = move.placed(4, 0, 2).moved(stacked)
    assert moved[:, 1, 0].tolist() == [0, 0, 162, 162] and not moved[:, 0].any() and not moved[:, 1, 1].any()


def test_a_move_is_the_same_written_out_or_by_bands():
    # exact mode applies a small matrix written out and a large one band by band: both give the dense product
    for size, written in ((8, True), (40, False)):
        rows = [[Fraction(0)] * size for _ in range(size)]
        for s in range(size):
            for t, share in zip(range(s, min(size, s + 3)), (Fraction(1, 2), Fraction(1, 3), Fraction(1, 6))):
                rows[s][t] = share
        matrix = banded(rows, exact=True)
        assert (matrix.written_out() is not None) == written and len(matrix.offsets) == 3
        state = [Fraction(k + 1, 3 * size) for k in range(size)]
        moved = matrix.apply(Scaled(np.array([int(p * 3 * size) for p in state], dtype=object), 3 * size))
        want = [sum((state[s] * rows[s][t] for s in range(size)), Fraction(0)) for t in range(size)]
        assert [Fraction(int(w), moved.denominator) for w in moved.array] == want
        for exact in (True, False):  # with axes after the states (the chain's counts), each is moved alike
            matrix = banded(rows, exact)
            columns = np.arange(1, 7).reshape(2, 3)
            stacked = np.multiply.outer(np.arange(1, size + 1), columns).astype(object if exact else float)
            moved = matrix.moved(stacked)
            for i, j in np.ndindex(columns.shape):
                assert np.array_equal(moved[:, i, j], matrix.moved(stacked[:, i, j])) if exact else \
                    np.allclose(moved[:, i, j], matrix.moved(stacked[:, i, j]), rtol=1e-12, atol=0)


def test_many_float_weights_are_moved_in_compressed_rows_as_by_bands_or_written_out(monkeypatch):
    # from SPARSE_FROM float weights on, scipy's compressed rows move them: the same numbers as the dense product
    # of the matrix written out, and as its bands or BLAS product give below it (one chain state's counts each)
    from mathhammer_exact import weights

    rng = np.random.default_rng(7)
    for size, reach in ((40, 3), (150, 6)):
        bands = rng.random((reach, size))
        matrix = Banded(np.arange(reach, dtype=np.int64), bands)
        state = rng.random((size, 30, 7))  # two axes of counts after the states
        dense = np.einsum("st,s...->t...", matrix.dense(), state)
        monkeypatch.setattr(weights, "SPARSE_FROM", state.size + 1)  # by bands or written out
        assert np.allclose(matrix.moved(state), dense, rtol=1e-12, atol=0) and matrix._sparse is None
        monkeypatch.setattr(weights, "SPARSE_FROM", state.size)  # in compressed rows
        assert np.allclose(matrix.moved(state), dense, rtol=1e-12, atol=0) and matrix._sparse is not None
    monkeypatch.setattr(weights, "SPARSE_FROM", 1_000)
    column, bands = rng.random(1_001), rng.random((2, 1_001))  # one long state alone, too
    want = column * bands[0]
    want[2:] += column[:-2] * bands[1, :-2]  # moved by 0 or by 2
    assert np.allclose(Banded(np.array([0, 2], dtype=np.int64), bands).moved(column), want, rtol=1e-12, atol=0)


def test_a_band_that_moves_every_state_beyond_the_last_moves_none(monkeypatch):
    # a move of 6 on 4 states is beyond the last one from every state: zero, written out or by bands
    from mathhammer_exact import weights

    bands = np.array([[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]])
    matrix = Banded(np.array([1, 6], dtype=np.int64), bands)
    want = np.zeros((4, 4))
    want[[0, 1, 2], [1, 2, 3]] = [1.0, 2.0, 3.0]
    assert np.array_equal(matrix.dense(), want)
    monkeypatch.setattr(weights, "DENSE_UP_TO", 0)  # by bands
    state = np.array([1.0, 10.0, 100.0, 1000.0])
    assert np.array_equal(matrix.moved(state), state @ want)
