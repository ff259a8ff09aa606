from fractions import Fraction

import pytest

from mathhammer_exact import Dice, MathhammerError


@pytest.mark.parametrize(("text", "low", "high", "mean"), [
    ("3", 3, 3, 3), ("D3", 1, 3, 2), ("d6", 1, 6, Fraction(7, 2)), ("2D6", 2, 12, 7),
    ("D3+3", 4, 6, 5), ("2d6+1", 3, 13, 8), ("D6-1", 0, 5, Fraction(5, 2)), ("3D3", 3, 9, 6),
])
def test_valid_expressions(text, low, high, mean):
    pmf = Dice.parse(text).pmf(exact=True)
    assert (pmf.min, pmf.max, pmf.mean) == (low, high, mean)
    assert pmf.total() == 1


def test_two_d6_is_triangular():
    assert Dice.parse("2D6").pmf(True).p(7) == Fraction(6, 36)
    assert Dice.parse("2D6").pmf(True).at_least(9) == Fraction(10, 36)


@pytest.mark.parametrize("text", ["D7", "2D", "D", "", "D6+", "1.5", "-1", "D3-2", "0D6", "x", "D6*2", "D 6 6"])
def test_malformed_expressions_are_clear_errors(text):
    with pytest.raises(MathhammerError) as err:
        Dice.parse(text)
    assert "\n" not in str(err.value) and "allowed" in str(err.value) or "below 0" in str(err.value)


@pytest.mark.parametrize("text", ["2D6+1", "D3", "7", "D6-1"])
def test_round_trip(text):
    assert str(Dice.parse(text)) == text


@pytest.mark.parametrize("text", ["４", "D６", "²", "١D6", "D3+١", "9" * 5000, "D" + "9" * 5000, "1" * 7])
def test_only_ascii_digits_of_bounded_length_are_numbers(text):
    """'４' was read as 4 and '²' crashed with a ValueError; a 5000-digit number overflowed int()."""
    with pytest.raises(MathhammerError, match="bad dice expression"):
        Dice.parse(text)
