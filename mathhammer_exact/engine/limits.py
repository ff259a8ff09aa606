"""How large a query may be: one too large is refused at once, naming the limit, instead of running
out of time or memory.

The engine's cost grows with the target's wounds (the allocation's states), the number of attacks
(the counts and the chain's steps) and, for mixed or Attached targets, the square of the states. The
limits leave every real unit far inside them: the largest units have a few hundred attacks and a
few hundred wounds.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from contextvars import ContextVar

import attrs

from ..dice import Dice
from ..errors import MathhammerError
from ..model import Context, DevastatingWounds, Firing, MortalWounds, Target
from ..pmf import EXACT, FLOAT, Mode
from .layout import Layout

MAX_TARGET_MODELS = 1_000  #: models in the target unit
MAX_MODEL_WOUNDS = 1_000  #: W of one model
MAX_ATTACKING_MODELS = 10_000  #: models using one weapon profile
MAX_ROLL = 1_000  #: the largest Attacks or Damage one roll can give
MAX_WORK = {FLOAT: 1e9, EXACT: 1e8}  #: steps of arithmetic, float and exact (a few seconds each here)
MAX_COUNT_WORK = {FLOAT: 4e9, EXACT: 1e7}  #: the same for the counts shown (attacks, hits, wounds, unsaved)
_SHARE: ContextVar[float] = ContextVar("share", default=1.0)  #: the part of the limits a query may use here


class TooLarge(MathhammerError):
    """A query refused for its size, before any of its work is done."""


@contextlib.contextmanager
def share(part: float) -> Iterator[None]:
    """Within the block a query may do only `part` of the work the limits allow: one larger is refused
    with `TooLarge` at once (the server's light lane answers what fits and hands the rest on)."""
    token = _SHARE.set(part)
    try:
        yield
    finally:
        _SHARE.reset(token)


def _refuse_over(work: float, mode: Mode, limit: dict[Mode, float], what: str) -> None:
    if work > limit[mode] * _SHARE.get():
        raise TooLarge(f"this query is too large to answer quickly: about {work:.1g} steps for {what} (the limit "
                       f"in {mode} mode is {limit[mode]:.0g}); use fewer models"
                       + (", or leave out --exact" if mode.exact else ""))


def check_counts(attacks: int, mode: Mode) -> None:
    """Refuse to work out a count of up to `attacks` dice too large to sum quickly. In exact mode the
    numbers themselves grow with the count (their denominators are powers of 6), hence the cube."""
    work = attacks**3 / 100 if mode.exact else attacks**2
    _refuse_over(work, mode, MAX_COUNT_WORK, f"a count of up to {attacks} dice")


def _highest(dice: Dice | int | None) -> int:
    """The most a dice expression (or a fixed bonus) can give."""
    if dice is None or isinstance(dice, int):
        return dice or 0
    return dice.count * dice.sides + dice.modifier


@attrs.frozen
class Cost:
    """What a query will cost: `work`, steps of arithmetic (the unit of MAX_WORK), for `attacks` attack
    dice against `states` target states and `waiting` counts of waiting mortal wounds."""

    work: float
    attacks: int
    states: int
    waiting: int


def check_size(firings: Sequence[Firing | MortalWounds], target: Target, context: Context, mode: Mode,
               fast_path: bool) -> None:
    """Refuse a query whose size is beyond the limits above, with a message naming the limit."""
    found = cost(firings, target, context, mode, fast_path)
    _refuse_over(found.work, mode, MAX_WORK, f"up to {found.attacks} attack dice against {found.states} target "
                 "states" + (f" and {found.waiting} counts of waiting mortal wounds" if found.waiting > 1 else ""))
    if not fast_path:
        check_counts(found.attacks, mode)


def cost(firings: Sequence[Firing | MortalWounds], target: Target, context: Context, mode: Mode,
         fast_path: bool) -> Cost:
    """The work a query will take (refused at once where one of its parts is beyond the limits above)."""
    if target.model_count > MAX_TARGET_MODELS:
        raise MathhammerError(f"a target of {target.model_count} models is too large (at most {MAX_TARGET_MODELS})")
    for profile, _ in target.groups:
        if profile.wounds > MAX_MODEL_WOUNDS:
            raise MathhammerError(f"W{profile.wounds} is too large (at most W{MAX_MODEL_WOUNDS})")
    attacks = 0
    waiting = 1  # the values of the axes that count waiting mortal wounds (the chain's state grows by them)
    spread = 1  # the most waiting wounds one attack die can add (the width of what one attack yields)
    for firing in firings:
        if isinstance(firing, MortalWounds):
            attacks += firing.dice
            continue
        weapon = firing.weapon
        if firing.models > MAX_ATTACKING_MODELS:
            raise MathhammerError(
                f"{firing.models} attacking models is too many (at most {MAX_ATTACKING_MODELS} per weapon)")
        for label, roll in (("Attacks", weapon.attacks), ("Damage", weapon.damage)):
            if _highest(roll) > MAX_ROLL:
                raise MathhammerError(f"{label} {roll} can roll {_highest(roll)}, too large (at most {MAX_ROLL})")
        bonus = _highest(weapon.rapid_fire) + (target.model_count // 5 if weapon.blast else 0) \
            + (firing.context or context).extra_attacks
        dice = firing.models * (_highest(weapon.attacks) + bonus) * (1 + _highest(weapon.sustained_hits))
        attacks += dice
        own = firing.context or context
        wording = own.rules.devastating_wounds
        per_event = []  # the most wounds one waiting event of each kind can leave waiting, per attack die
        if weapon.devastating_wounds and wording is not DevastatingWounds.UNSAVEABLE:
            per_event.append(_highest(weapon.damage) if wording is DevastatingWounds.LAUNCH else 1)
        if own.critical_mortals is not None:
            per_event.append(_highest(own.critical_mortals.mortal_wounds))
        if per_event:  # the chain counts waiting events on an extra axis; the pipeline on a second count
            harm_always = not any(p.feel_no_pain or p.feel_no_pain_mortal for p, _ in target.groups)
            most = dice * sum(per_event)
            waiting *= 1 + (min(most, target.total_wounds) if harm_always else most)
            spread = max(spread, 1 + sum(per_event))
    rows, cols = Layout.of(target).shape
    states = rows * cols * (2 if context.command_reroll else 1)
    # Exact numbers grow with the dice (their denominators are powers of 6), so each step costs more.
    growth = max(1, attacks / 100) if mode.exact else 1
    # The pipeline sums the dice into counts folded at the unit's wounds (a pair of counts when events
    # wait), then steps a state of `rows` values at most `rows` times; the chain steps `states` values
    # (times the waiting counts) once per attack die, working out its attacks and hits as it goes.
    if fast_path:
        work = (attacks * rows * min(waiting, rows) * spread + rows**3) * growth
    else:
        work = attacks * states**2 * waiting * growth
    return Cost(work, attacks, states, waiting)
