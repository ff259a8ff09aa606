"""The seeds' dice tests outside the attack sequence: charge, Advance, Battle-shock,
Desperate Escape, Hazardous and Grenade, each exact.

>>> charge(9).p_success
Fraction(5, 18)
>>> charge(9, reroll=True).p_success
Fraction(155, 324)
>>> 1 - battle_shock_test(7).p_success
Fraction(5, 12)
"""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING

import attrs
import numpy as np

from .dice import Dice
from .engine.consequences import hazardous_losses, pass_chance
from .errors import MathhammerError
from .model import ModelProfile, MortalWounds, Rules, Target
from .pmf import Mode, Number, Pmf

if TYPE_CHECKING:
    from .engine.results import AttackResult


@attrs.frozen(eq=False)
class PassFail:
    """A test that passes or fails, with the roll that decides it (if there is one)."""

    p_success: Number
    roll: Pmf | None = None


MAX_DICE = 1_000  #: tests rolled at once (more models than any unit has)


def _between(name: str, value: int, low: int, high: int = MAX_DICE) -> None:
    if not low <= value <= high:
        raise MathhammerError(f"{name} must be {low} to {high}, got {value}")


def charge(distance: int, reroll: bool = False, modifier: int = 0, exact: bool = True) -> PassFail:
    """2D6 + modifier must reach `distance` inches; `reroll` re-rolls the whole roll when it fails
    (e.g. Command Re-roll). `roll` is the final charge roll (after any re-roll)."""
    _between("charge distance", distance, 1, 100)
    _between("charge roll modifier", modifier, -12, 12)
    first = Dice.parse("2D6").pmf(exact) + modifier
    if not reroll:
        return PassFail(first.at_least(distance), first)
    # keep a roll that reaches the distance; re-roll one that does not
    w = first.weights
    made = (np.arange(first.min, first.max + 1) >= distance).astype(int)
    missed = w[made == 0].sum()
    final = Pmf(w * made * first.denominator + missed * w, first.denominator**2, first.min)
    return PassFail(final.at_least(distance), final)


def advance(exact: bool = True) -> Pmf:
    """The Advance roll: D6 inches added to Move."""
    return Dice.parse("D6").pmf(exact)


def battle_shock_test(leadership: int, insane_bravery: bool = False, exact: bool = True) -> PassFail:
    """2D6 against Leadership: passes on at least Ld. Insane Bravery passes it outright."""
    if not 2 <= leadership <= 12:
        raise MathhammerError(f"Ld must be 2+ to 12+, got {leadership}+")
    passed = (Fraction(1) if exact else 1.0) if insane_bravery else pass_chance(leadership, Mode(exact))
    return PassFail(passed, Dice.parse("2D6").pmf(exact))


def desperate_escape(tests: int, exact: bool = True) -> Pmf:
    """Models lost to `tests` Desperate Escape tests: each D6 fails on 1-2."""
    _between("number of Desperate Escape tests", tests, 0)
    return Pmf.point(tests, exact).compound(Pmf.bernoulli(Fraction(1, 3), exact))


def hazardous(weapons: int, bearer: ModelProfile, rules: Rules | None = None, exact: bool = True) -> Pmf:
    """Models lost to Hazardous tests for `weapons` Hazardous weapons, each carried by a model like `bearer`."""
    _between("number of Hazardous weapons", weapons, 1)
    return hazardous_losses([bearer] * weapons, rules, Mode(exact))


def grenade(target: Target, exact: bool = True) -> AttackResult:
    """The Grenade stratagem against `target`: six D6, one mortal wound per 4+, spilling over; the wounds it loses
    (`damage`, after Feel No Pain) and the models destroyed, as an attack's result."""
    from .engine.resolve import attack  # the whole engine loads only for the one test that needs it

    return attack([MortalWounds(6, 4, name="Grenade")], target, exact=exact)


__all__ = ["PassFail", "advance", "battle_shock_test", "charge", "desperate_escape", "grenade", "hazardous",
           "pass_chance"]
