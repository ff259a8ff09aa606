"""Dice expressions as printed on datasheets: ``3``, ``D3``, ``D6``, ``2D6+1``, ``D3+3``.

D3 is a D6 halved rounding up, so each of 1, 2 and 3 has probability 1/3.
"""

from __future__ import annotations

import functools
import re
from fractions import Fraction
from typing import TYPE_CHECKING

import attrs

from .errors import MathhammerError

if TYPE_CHECKING:
    from .pmf import Pmf

# Only ASCII digits are numbers (``\d`` would also take '４' or '١'); six digits are more than any roll needs.
_DICE = re.compile(r"(?:(?P<n>[0-9]{0,6})D(?P<sides>[0-9]{1,6}))?(?P<mod>[+-][0-9]{1,6})?")
_CONSTANT = re.compile(r"[0-9]{1,6}")


@attrs.frozen
class Dice:
    """``count`` dice of ``sides`` sides plus ``modifier`` (count 0 is a constant)."""

    count: int = 0
    sides: int = 6
    modifier: int = 0

    @classmethod
    def parse(cls, text: str | int) -> Dice:
        """Read a dice expression; anything but constants, D3 and D6 sums is an error.

        >>> Dice.parse("2d6+1")
        Dice(count=2, sides=6, modifier=1)
        >>> Dice.parse("D7")
        Traceback (most recent call last):
        ...
        mathhammer_exact.errors.MathhammerError: bad dice expression 'D7': only D3 and D6 dice exist \
(allowed: a whole number, D3, D6, nD3, nD6, with +k or -k, e.g. 2D6+1)
        """
        raw = str(text).strip()
        source = raw.upper().replace(" ", "")
        allowed = "allowed: a whole number, D3, D6, nD3, nD6, with +k or -k, e.g. 2D6+1"
        if _CONSTANT.fullmatch(source):
            return cls(0, 6, int(source))
        match = _DICE.fullmatch(source)
        if not source or match is None or match.group("sides") is None:
            raise MathhammerError(f"bad dice expression {raw!r} ({allowed})")
        sides = int(match.group("sides"))
        if sides not in (3, 6):
            raise MathhammerError(f"bad dice expression {raw!r}: only D3 and D6 dice exist ({allowed})")
        count = int(match.group("n") or 1)
        if count < 1:
            raise MathhammerError(f"bad dice expression {raw!r}: roll at least one die ({allowed})")
        dice = cls(count, sides, int(match.group("mod") or 0))
        if dice.minimum < 0:
            raise MathhammerError(f"bad dice expression {raw!r}: it can roll below 0")
        return dice

    @property
    def minimum(self) -> int:
        return self.count + self.modifier

    @property
    def mean(self) -> Fraction:
        """The average roll: each die averages (sides + 1) / 2.

        >>> Dice.parse("2D3+1").mean
        Fraction(5, 1)
        """
        return self.count * Fraction(self.sides + 1, 2) + self.modifier

    def pmf(self, exact: bool = False) -> Pmf:
        """The exact distribution of the expression."""
        return _dice_pmf(self, exact)

    def __str__(self) -> str:
        if self.count == 0:
            return str(self.modifier)
        dice = f"{'' if self.count == 1 else self.count}D{self.sides}"
        return dice + (f"{self.modifier:+d}" if self.modifier else "")


@functools.lru_cache(maxsize=256)
def _dice_pmf(dice: Dice, exact: bool) -> Pmf:
    """Distributions are immutable, so each expression is worked out once per mode. numpy loads here, at the
    first distribution asked for: reading a profile or a catalogue needs none."""
    from .pmf import Pmf

    if dice.count == 0:  # a fixed number
        return Pmf.point(dice.modifier, exact)
    one = Pmf.uniform(1, dice.sides, exact)
    return (one if dice.count == 1 else one.repeat(dice.count)) + dice.modifier
