"""One D6 test (hit roll, wound roll, saving throw) with re-rolls, as exact probabilities.

Each stage says how an unmodified face 1..6 turns out (fail, success or critical);
re-rolls act on the unmodified face before modifiers, and a die is re-rolled at most once.
"""

from __future__ import annotations

import enum
import functools
import math
from collections.abc import Callable, Mapping
from fractions import Fraction

import attrs
import numpy as np

from ..model import Reroll
from ..pmf import Pmf

FACES = range(1, 7)
THIRTY_SIXTHS = tuple(Fraction(k, 36) for k in range(37))  #: the chances `_odds` counts, made once


class Outcome(enum.IntEnum):
    FAIL = 0
    SUCCESS = 1
    CRITICAL = 2


OUTCOMES = tuple(Outcome)  #: in order (iterating the enum itself is slow)


@attrs.frozen
class RollOdds:
    """Probabilities that one test fails, succeeds normally, or is a Critical success."""

    fail: Fraction
    success: Fraction
    critical: Fraction = Fraction(0)
    fail_first_roll: Fraction = Fraction(0)  #: failed on a die nobody re-rolled (a Command Re-roll may)

    @property
    def passed(self) -> Fraction:
        """P(success of either kind)."""
        return self.success + self.critical

    def split_for_one_reroll(self) -> tuple[RollOdds, Fraction]:
        """Odds when one extra re-roll (Command Re-roll) is at hand: the outcomes that keep it,
        and the chance it is spent (a failed roll that was not already re-rolled)."""
        return RollOdds(self.fail - self.fail_first_roll, self.success, self.critical), self.fail_first_roll


def rerolled(outcome: Outcome, face: int, policy: Reroll) -> bool:
    """Whether a re-roll policy lets this unmodified face be rolled again."""
    if policy is Reroll.ONES:
        return face == 1
    if policy is Reroll.FAILED:
        return outcome is Outcome.FAIL
    if policy is Reroll.NONCRIT:
        return outcome is not Outcome.CRITICAL
    return False


def roll_odds(classify: Callable[[int], Outcome], policy: Reroll = Reroll.NONE) -> RollOdds:
    """Exact odds of one D6 test whose unmodified face is judged by `classify`."""
    return _odds(tuple(classify(face) for face in FACES), policy)


@functools.lru_cache(maxsize=1024)
def _odds(outcomes: tuple[Outcome, ...], policy: Reroll) -> RollOdds:
    """Odds from the outcome of each face 1..6 (there are few such tables, so they are cached), counted
    in 36ths: a face kept is 6 of them, a face re-rolled spreads its 6 over the fresh roll's outcomes."""
    fresh = [outcomes.count(o) for o in OUTCOMES]
    if policy is Reroll.NONE:  # every face kept (the most common case, so taken short)
        fail, success, critical = (THIRTY_SIXTHS[6 * n] for n in fresh)
        return RollOdds(fail, success, critical, fail_first_roll=fail)
    odds = [0, 0, 0]
    kept_fail = 0
    for face, outcome in zip(FACES, outcomes):
        if rerolled(outcome, face, policy):
            for o in OUTCOMES:
                odds[o] += fresh[o]
        else:
            odds[outcome] += 6
            kept_fail += 6 if outcome is Outcome.FAIL else 0
    fail, success, critical = (THIRTY_SIXTHS[x] for x in odds)
    return RollOdds(fail, success, critical, fail_first_roll=THIRTY_SIXTHS[kept_fail])


def capped(modifier: int, cap: int = 1) -> int:
    """Hit and wound roll modifiers never add up to more than +`cap` or less than -`cap` (the edition's: 1)."""
    return max(-cap, min(cap, modifier))


def lowest_rerolled(roll: Mapping[int, Fraction], count: int,
                    below: Fraction) -> tuple[dict[int, Fraction], dict[int, Fraction]]:
    """The sum of `count` independent rolls (each `roll`: {value: chance}) when the lowest of them is
    rolled again if it is below `below` (one re-roll, after seeing the rolls: a Command Re-roll of the
    attacks roll, a damage re-roll of one die). Returns {sum: chance} where no roll was re-rolled,
    and where one was; together the chances sum to 1.

    The rolls' sum when every roll is at least `low` is a power of the roll's chances from `low` on;
    less the sum when every roll is above `low`, it is the sum when the lowest is `low`. Worked out in
    integer weights over one denominator, one such power per value."""
    values = sorted(roll)
    if values[0] < 0:
        raise ValueError(f"a re-rolled roll's values are never negative, got {values[0]}")
    top = values[-1]
    scale = math.lcm(*(p.denominator for p in roll.values()))
    chances = np.array([int(roll.get(x, 0) * scale) for x in range(top + 1)], dtype=object)  # over `scale`
    totals = count * top + 1
    kept = np.zeros(totals, dtype=object)  # by sum, over scale**count
    spent = np.zeros(totals + top, dtype=object)  # over scale**(count + 1): the lowest taken away, a roll added
    above = np.zeros(totals, dtype=object)  # the sums when every roll is above `low`, over scale**count
    for low in reversed(values):
        part = chances.copy()
        part[:low] = 0
        at_least = Pmf(part, scale).repeat(count).weights  # the sums when every roll is at least `low`
        lowest = at_least - above  # ... and the lowest is `low`
        if low < below:
            spent[: totals + top - low] += np.convolve(lowest, chances)[low:]
        else:
            kept += lowest
        above = at_least
    return ({t: Fraction(w, scale**count) for t, w in enumerate(kept.tolist()) if w},
            {t: Fraction(w, scale ** (count + 1)) for t, w in enumerate(spent.tolist()) if w})
