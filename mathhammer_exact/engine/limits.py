"""How large a query may be: one too large is refused at once, naming the limit, instead of running
out of time or memory.

The engine's cost grows with the target's wounds (the allocation's states), the number of attacks
(the counts and the chain's steps) and, for mixed or Attached targets, the square of the states. The
limits leave every real unit far inside them: the largest units have a few hundred attacks and a
few hundred wounds.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..dice import Dice
from ..errors import MathhammerError
from ..model import Context, DevastatingWounds, Firing, MortalWounds, Target
from .layout import Layout

MAX_TARGET_MODELS = 1_000  #: models in the target unit
MAX_MODEL_WOUNDS = 1_000  #: W of one model
MAX_ATTACKING_MODELS = 10_000  #: models using one weapon profile
MAX_ROLL = 1_000  #: the largest Attacks or Damage one roll can give
MAX_WORK = {False: 4e9, True: 4e7}  #: steps of arithmetic, float and exact (a few seconds each here)
MAX_COUNT_WORK = {False: 4e9, True: 1e7}  #: the same for the counts shown (attacks, hits, wounds, unsaved)


def _too_large(work: float, exact: bool, limit: dict[bool, float], what: str) -> MathhammerError:
    mode = "exact" if exact else "float"
    return MathhammerError(f"this query is too large to answer quickly: about {work:.1g} steps for {what} (the limit "
                           f"in {mode} mode is {limit[exact]:.0g}); use fewer models"
                           + (", or leave out --exact" if exact else ""))


def check_counts(attacks: int, exact: bool) -> None:
    """Refuse to work out a count of up to `attacks` dice too large to sum quickly. In exact mode the
    numbers themselves grow with the count (their denominators are powers of 6), hence the cube."""
    work = attacks**3 / 100 if exact else attacks**2
    if work > MAX_COUNT_WORK[exact]:
        raise _too_large(work, exact, MAX_COUNT_WORK, f"a count of up to {attacks} dice")


def _highest(dice: Dice | int | None) -> int:
    """The most a dice expression (or a fixed bonus) can give."""
    if dice is None or isinstance(dice, int):
        return dice or 0
    return dice.count * dice.sides + dice.modifier


def check_size(firings: Sequence[Firing | MortalWounds], target: Target, context: Context, exact: bool,
               fast_path: bool) -> None:
    """Refuse a query whose size is beyond the limits above, with a message naming the limit."""
    if target.model_count > MAX_TARGET_MODELS:
        raise MathhammerError(f"a target of {target.model_count} models is too large (at most {MAX_TARGET_MODELS})")
    for profile, _ in target.groups:
        if profile.wounds > MAX_MODEL_WOUNDS:
            raise MathhammerError(f"W{profile.wounds} is too large (at most W{MAX_MODEL_WOUNDS})")
    attacks = 0
    waiting = 1  # the values of the axes that count waiting Devastating Wounds (the chain's state grows by them)
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
        rules = (firing.context or context).rules
        if weapon.devastating_wounds and rules.devastating_wounds is not DevastatingWounds.UNSAVEABLE:
            harm_always = not any(p.feel_no_pain or p.feel_no_pain_mortal for p, _ in target.groups)
            per_attack = _highest(weapon.damage) if rules.devastating_wounds is DevastatingWounds.LAUNCH else 1
            waiting *= 1 + (min(dice * per_attack, target.total_wounds) if harm_always else dice * per_attack)
    rows, cols = Layout.of(target).shape
    states = rows * cols * (2 if context.command_reroll else 1)
    # the allocation: the pipeline steps a state of `rows` values at most `rows` times; the chain
    # steps `states` values (times the waiting counts) once per attack, and works out its attacks and
    # hits as it goes
    work = rows**3 if fast_path else attacks * states**2 * waiting
    if work > MAX_WORK[exact]:
        raise _too_large(work, exact, MAX_WORK, f"up to {attacks} attack dice against {states} target states")
    if not fast_path:
        check_counts(attacks, exact)
