"""How many is enough: the fewest attacking models for a wanted chance, found exactly.

More models of a weapon never make an outcome less likely (more attacks can only push the
target's state further), so the chance is non-decreasing in the number of models: an
exponential search finds a number that is enough, a binary search then the fewest. Both the
answer and the number one below it are computed, so the claim can be read off the report.

>>> from mathhammer_exact import Firing, Target, Weapon
>>> shot = Firing(Weapon.parse("A1 BS2+ S4 AP-6 D1 [LETHAL HITS]"))  # destroys a W1 model with 1/6 + 4/6 * 1/2
>>> found = need([shot], 0, Target.parse("T4 Sv7+ W1 x2"), Fraction(1, 2), exact=True)
>>> found.models, found.p, found.p_below  # P(Binomial(n, 1/2) >= 2): 1/4 at n = 2, 1/2 at n = 3
(3, Fraction(1, 2), Fraction(1, 4))
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction

import attrs

from ..engine.resolve import attack
from ..engine.results import AttackResult
from ..errors import MathhammerError
from ..model import Context, Firing, MortalWounds, Target
from ..pmf import Number

LIMIT = 200  #: the most models the search will try


@attrs.frozen(eq=False)
class Need:
    """The fewest models `models` with P >= wanted, that chance `p`, the chance `p_below` with one
    model fewer, and the attack's result at the answer; or, where no size of a unit reaches it (`models` None),
    its largest size `tried`, with its chance `p` and its result."""

    models: int | None
    p: Number
    p_below: Number | None  #: None when no model is needed (the other weapons are enough)
    wanted: Number
    at_least: int
    result: AttackResult
    queries: int
    below: int | None = None  #: the models `p_below` is for (one fewer, or a unit's next smaller size)
    tried: int | None = None  #: where no size reaches it: the largest a unit comes in (that `p` and `result` are of)
    only: bool = False  #: that size is the only one it comes in here (an army list's unit)


def need(firings: Sequence[Firing | MortalWounds], sought: int, target: Target, wanted: Number,
         at_least: int | None = None, context: Context | None = None, exact: bool = False) -> Need:
    """The fewest models for ``firings[sought]`` (the others as given) such that P(at least
    `at_least` models destroyed) >= `wanted` (default: the whole target destroyed)."""
    k = _goal(target, wanted, at_least)
    chosen = firings[sought]
    if not isinstance(chosen, Firing):
        raise MathhammerError("only a weapon's number of models can be sought")
    others = [f for i, f in enumerate(firings) if i != sought]
    results: dict[int, AttackResult | None] = {}

    def chance(n: int) -> Number:
        if n not in results:
            if n:
                volley = [*firings[:sought], attrs.evolve(chosen, models=n), *firings[sought + 1:]]
                results[n] = attack(volley, target, context=context, exact=exact)
            else:
                results[n] = attack(others, target, context=context, exact=exact) if others else None
        result = results[n]
        return (Fraction(0) if exact else 0.0) if result is None else result.models_destroyed.at_least(k)

    n = _fewest(chance, wanted, 0 if others else 1)
    result = results[n]
    assert result is not None
    return Need(n, chance(n), chance(n - 1) if n else None, wanted, k, result, len(results), n - 1 if n else None)


def need_size(answer: Callable[[int], AttackResult], sizes: Sequence[int], wanted: Number,
              at_least: int | None = None) -> Need:
    """The smallest of a datasheet unit's `sizes` whose attack (`answer(size)`) gives P(at least
    `at_least` models destroyed) >= `wanted`: a unit comes in the sizes its datasheet allows, so each
    is tried in turn, smallest first. Where none reaches it, that is the answer (a trial found it refused as bad
    input): `models` None, with the largest size's chance."""
    below: tuple[int, Number] | None = None
    for queries, size in enumerate(sorted(sizes), 1):
        result = answer(size)
        k = _goal(result.target, wanted, at_least)
        p = result.models_destroyed.at_least(k)
        if _reaches(p, wanted):
            return Need(size, p, below and below[1], wanted, k, result, queries, below and below[0])
        below = (size, p)
    assert below is not None
    return Need(None, below[1], None, wanted, k, result, len(sizes), tried=below[0], only=len(sizes) == 1)


def _goal(target: Target, wanted: Number, at_least: int | None) -> int:
    """The models destroyed that count (default: the whole target), checked with the wanted chance."""
    k = target.model_count if at_least is None else at_least
    if not 1 <= k <= target.model_count:
        raise MathhammerError(f"--at-least must be 1 to {target.model_count} (the target's models), got {k}")
    if not 0 < wanted <= 1:
        raise MathhammerError(f"the wanted chance must be above 0 and at most 1, got {wanted}")
    return k


def _reaches(p: Number, wanted: Number) -> bool:
    """Whether the chance `p` reaches the one `wanted`; a floating-point chance that rounds to 1 cannot tell it has
    reached 1, and is refused (a review found 107 models 'reaching' 1 where every roll can fail)."""
    if wanted == 1 and not isinstance(p, Fraction) and p >= 1:
        raise MathhammerError("a chance of 1: floating point rounds a chance this near 1 up to it; ask in exact mode "
                              "(--exact), which tells")
    return p >= wanted


def _fewest(chance: Callable[[int], Number], wanted: Number, low: int) -> int:
    """The least n >= low with chance(n) >= wanted, for a non-decreasing chance."""
    if _reaches(chance(low), wanted):
        return low
    passed = max(low, 1)
    while not _reaches(chance(passed), wanted):
        if passed >= LIMIT:
            certain = "; a chance of 1 is reached only where no roll can fail" if wanted == 1 else ""
            raise MathhammerError(f"even {LIMIT} models give only P = {_short_of(chance(LIMIT))}; the search stops at "
                                  f"{LIMIT}{certain}")
        low, passed = passed, min(2 * passed, LIMIT)
    while passed - low > 1:  # chance(low) < wanted <= chance(passed)
        middle = (low + passed) // 2
        low, passed = (low, middle) if _reaches(chance(middle), wanted) else (middle, passed)
    return passed


def _short_of(p: Number) -> str:
    """A chance in words: a percentage, or near 1 what it lacks (not '100.0000%', which a trial read as reaching 1),
    exactly where it is exact, else no finer than floating point tells.

    >>> _short_of(Fraction(1, 3)), _short_of(1 - Fraction(1, 10**120)), _short_of(1 - 2e-14)
    ('33.3333%', '1 - 1e-120', '1 - (less than 1e-12)')
    """
    if float(p) < 5e-7:
        return "below 0.0001%"
    if float(p) < 0.9999995:
        return f"{float(p):.4%}"
    short = 1 - p
    if isinstance(short, Fraction):  # exact: its size, however small (a float of it may underflow to 0)
        digits = len(str(short.denominator)) - len(str(short.numerator))
        return f"1 - {float(short):.2g}" if float(short) else f"1 - about 1e-{digits}"
    return f"1 - {short:.2g}" if short >= 1e-12 else "1 - (less than 1e-12)"


def wanted_chance(text: str) -> Fraction:
    """A wanted chance as written, exactly: 0.9, 9/10 or 90%."""
    try:
        value = Fraction(text.strip().removesuffix("%")) / (100 if text.strip().endswith("%") else 1)
    except (ValueError, ZeroDivisionError):
        raise MathhammerError(f"--need takes a chance such as 0.9, 9/10 or 90%, got {text!r}") from None
    if not 0 < value <= 1:
        raise MathhammerError(f"--need takes a chance above 0 and at most 1, got {text!r}")
    return value
