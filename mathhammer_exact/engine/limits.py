"""How large a query may be: one too large is refused at once, naming the limit, instead of running
out of time or memory.

`cost` estimates the steps of arithmetic a query takes from its sizes alone, kernel by kernel as the
engine works: the counts summed over the dice, the allocation stepped once per attack that costs a
wound (the identical-models pipeline), or each attack's banded transition applied to every state of
a mixed or Attached target (the whole-unit chain). A step is one entry of an array worked on; an
exact entry costs more steps as its numbers grow (their denominators are powers of the dice's
sides). `tests/test_limits.py` holds the estimate within 4x of the steps counted on a spread of
queries. The limits leave every real unit far inside them.
"""

from __future__ import annotations

import contextlib
import functools
import math
from collections.abc import Callable, Iterator, Sequence
from contextvars import ContextVar

import attrs

from ..dice import Dice
from ..errors import MathhammerError
from ..model import Context, DevastatingWounds, Firing, ModelProfile, MortalWounds, Reroll, Target, Weapon
from ..pmf import EXACT, FLOAT, Mode
from ..sizes import MAX_ATTACKING_MODELS, MAX_MODEL_WOUNDS, MAX_ROLL, MAX_TARGET_MODELS
from ..stages.allocation import destroying
from ..stages.attacks import blast_bonus
from ..stages.damage import attack_threshold, damage_modifier, mortal_threshold
from ..stages.wound import devastating_wounds_wait
from ..weights import DENSE_UP_TO, SPARSE_FROM
from .layout import Layout

MAX_WORK = {FLOAT: 1e9, EXACT: 1e8}  #: steps of arithmetic, float and exact (a few seconds each here)
BITS_PER_STEP = 500  #: an exact number added or scaled costs one more step for each of these many bits it has
PRODUCT_BITS = 230  #: ... and the product of two such numbers (1 + (bits / this)^1.6 steps, Karatsuba's)
CALL_STEPS = {FLOAT: 400, EXACT: 10}  #: the fixed cost of one kernel call, in steps of that mode
BLAS_ENTRIES = 8  #: entries of a float transition applied written out (one BLAS product) per step
SPARSE_ENTRIES = 3  #: entries of a float transition applied in compressed rows (`weights.SPARSE_FROM`) per step
MAX_COUNT_WORK = {FLOAT: 4e9, EXACT: 1e7}  #: the same for a count one weapon's pipeline shows when asked
_SHARE: ContextVar[float] = ContextVar("share", default=1.0)  #: the part of the limits a query may use here
#: within `share`: the part of the limits the question's queries have used together so far (one list per question)
_USED: ContextVar[list[float] | None] = ContextVar("used", default=None)


class TooLarge(MathhammerError):
    """A query refused for its size, before any of its work is done."""


@contextlib.contextmanager
def share(part: float) -> Iterator[None]:
    """Within the block a question may do only `part` of the work the limits allow, its queries together (a plan's
    many small ones as much as one large): the query that would take it past is refused with `TooLarge` before its
    work is done (the server's light lane answers what fits and hands the rest on)."""
    token, used = _SHARE.set(part), _USED.set([0.0] if part < 1.0 else None)  # (the whole limits: each query's own)
    try:
        yield
    finally:
        _USED.reset(used)
        _SHARE.reset(token)


def partial() -> bool:
    """Whether a query here may use only part of the limits (`share`): then `TooLarge` says it is too large
    for this place, not for the engine."""
    return _SHARE.get() < 1.0


def rounded(number: float) -> str:
    """A size as a refusal names it: two significant figures, with thousands separators (48,000,000)."""
    return f"{float(f'{number:.2g}'):,.0f}"


def _refuse_over(work: float, mode: Mode, limit: dict[Mode, float], what: str) -> None:
    if work > limit[mode] * _SHARE.get():
        raise TooLarge(f"this query is too large to answer quickly: about {rounded(work)} steps for {what} (the "
                       f"limit in {mode} mode is {rounded(limit[mode])}); use fewer models"
                       + (", or leave out --exact" if mode.exact else ""))
    used = _USED.get()
    if used is not None:  # (counted as if asked afresh: a query answered from a cache counts too, never too little)
        used[0] += work / limit[mode]
        if used[0] > _SHARE.get():
            raise TooLarge(f"this question's queries together are too large to answer here: {used[0]:.2g} of the "
                           f"limits, {_SHARE.get():g} allowed")


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


def _bits(dice: Dice | None) -> float:
    """The bits a roll of `dice` adds to an exact denominator."""
    return 0.0 if dice is None else dice.count * math.log2(dice.sides)


@attrs.frozen
class Cost:
    """What a query will cost: `work`, steps of arithmetic (the unit of MAX_WORK), for `attacks` attack
    dice against `states` target states and `waiting` counts of waiting mortal wounds."""

    work: float
    attacks: int
    states: int
    waiting: int


@attrs.frozen
class _Shape:
    """What sizes one firing gives the engine's arrays."""

    dice: int  #: attack dice (or mortal wound tests), at most
    per_model: int  #: attack dice of one model, at most
    hits: int  #: hits one attack die can score, at most
    lost: int  #: wounds one hit can cost, at most
    destroying: int  #: attacks that cost a wound which surely destroy the target (where the pipeline folds them)
    waiting: int  #: mortal wounds one hit can leave waiting until every firing has resolved, at most
    waits_destroying: int | None  #: ... how many of those surely destroy it (None: one may cost nothing, and the
    #: chain holds every count; the pipeline leaves those out and folds the rest at the unit's wounds)
    lands: tuple[object, ...] | None  #: what one of them does when it lands (`_lands`), if any wait
    attack_bits: float  #: bits one model's roll of its number of attacks adds (0: a fixed number)
    hit_bits: float  #: bits one attack die's hit roll adds to an exact denominator
    bits: float  #: bits one attack die adds to an exact denominator, its damage rolls included
    event_bits: float  #: of which one wound's damage and Feel No Pain rolls


def check_size(firings: Sequence[Firing | MortalWounds], target: Target, context: Context, mode: Mode,
               fast_path: bool) -> None:
    """Refuse a query whose size is beyond the limits above, with a message naming the limit."""
    found = cost(firings, target, context, mode, fast_path)
    _refuse_over(found.work, mode, MAX_WORK, f"up to {found.attacks} attack dice against {found.states} target "
                 "states" + (f" and {found.waiting} counts of waiting mortal wounds" if found.waiting > 1 else ""))


def cost(firings: Sequence[Firing | MortalWounds], target: Target, context: Context, mode: Mode,
         fast_path: bool) -> Cost:
    """The work a query will take (refused at once where one of its parts is beyond the limits above):
    the steps the engine's kernels take, as `tests/steps.py` counts them, worked out from the sizes alone."""
    return _cost(tuple(firings), target, context, mode, fast_path)


@functools.lru_cache(maxsize=512)
def _cost(firings: tuple[Firing | MortalWounds, ...], target: Target, context: Context, mode: Mode,
          fast_path: bool) -> Cost:
    """`cost`, worked out once per query (the same query asked again, or with the cost known from a check)."""
    if target.model_count > MAX_TARGET_MODELS:
        raise MathhammerError(f"a target of {target.model_count} models is too large (at most {MAX_TARGET_MODELS})")
    for profile, _ in target.groups:
        if profile.wounds > MAX_MODEL_WOUNDS:
            raise MathhammerError(f"W{profile.wounds} is too large (at most W{MAX_MODEL_WOUNDS})")
    shapes = [_shape(f, target, context) for f in firings]
    if fast_path:
        return _pipeline(shapes[0], target, mode)
    return _chain(shapes, firings, target, context, mode)


def _shape(firing: Firing | MortalWounds, target: Target, context: Context) -> _Shape:
    if isinstance(firing, MortalWounds):
        return _Shape(dice=firing.dice, per_model=firing.dice, hits=1, lost=1, destroying=target.total_wounds,
                      waiting=0, waits_destroying=None, lands=None, attack_bits=0.0, hit_bits=0.0,
                      bits=math.log2(6), event_bits=0.0)
    weapon, own = firing.weapon, firing.context or context
    if firing.models > MAX_ATTACKING_MODELS:
        raise MathhammerError(
            f"{firing.models} attacking models is too many (at most {MAX_ATTACKING_MODELS} per weapon)")
    mortals = own.critical_mortals.mortal_wounds if own.critical_mortals is not None else None
    melta = attrs.evolve(weapon.damage, modifier=weapon.damage.modifier + weapon.melta) \
        if weapon.melta and own.half_range else None  # (a review's MELTA 999999 took a minute)
    for label, roll in (("Attacks", weapon.attacks), ("Damage", weapon.damage), ("Rapid Fire", weapon.rapid_fire),
                        ("Sustained Hits", weapon.sustained_hits), ("Critical mortal wounds", mortals),
                        ("Damage with Melta", melta)):
        if _highest(roll) > MAX_ROLL:  # (a trial's 99999D6 ran on where the estimate would have refused it)
            raise MathhammerError(f"{label} {roll} can roll {_highest(roll)}, too large (at most {MAX_ROLL})")
    bonus = (_highest(weapon.rapid_fire) if own.half_range else 0) + own.extra_attacks \
        + blast_bonus(weapon, target) + weapon.cleave * (target.model_count // 5)
    per_model = _highest(weapon.attacks) + bonus
    hits = 1 + _highest(weapon.sustained_hits)
    wording = own.rules.devastating_wounds
    waiting = 0  # the most wounds one hit can leave waiting, of each kind that waits
    if devastating_wounds_wait(weapon, wording):
        waiting += _highest(weapon.damage) if wording is DevastatingWounds.LAUNCH else 1
    if own.critical_mortals is not None:
        waiting += _highest(own.critical_mortals.mortal_wounds)
    d6 = math.log2(6)
    rerolled = {"hit": own.reroll_hits, "wound": own.reroll_wounds, "save": own.reroll_saves}
    rolls = {kind: d6 * (2 if policy is not Reroll.NONE or (kind == "wound" and weapon.twin_linked) else 1)
             for kind, policy in rerolled.items()}
    fnp = d6 if any(p.feel_no_pain or p.feel_no_pain_mortal or p.feel_no_pain_psychic for p, _ in target.groups) \
        else 0.0
    event = _bits(weapon.damage) + fnp
    most_wounds = max(p.wounds for p, _ in target.groups)
    attack_bits = _bits(weapon.attacks) + (_bits(weapon.rapid_fire) if own.half_range else 0)
    waits_destroying: int | None = None  # where Feel No Pain may spare a waiting wound
    if not any(mortal_threshold(p, weapon) is not None for p, _ in target.groups):
        seed = weapon.devastating_wounds and wording is DevastatingWounds.SEED  # its waiting wounds cost the damage
        waits_destroying = _destroying(weapon, target, own, mortal_threshold) if seed else target.total_wounds
    return _Shape(firing.models * per_model, per_model, hits, min(_highest(weapon.damage), most_wounds),
                  _destroying(weapon, target, own, attack_threshold), waiting, waits_destroying,
                  _lands(weapon, own) if waiting else None, attack_bits, rolls["hit"],
                  rolls["hit"] + hits * (rolls["wound"] + rolls["save"] + event), event)


def _destroying(weapon: Weapon, target: Target, context: Context,
                threshold: Callable[[ModelProfile, Weapon], int | None]) -> int:
    """How many events surely destroy `target` (`allocation.destroying`), each costing a model at least the
    damage `weapon` deals it at least (its lowest roll as modified), or one wound where the Feel No Pain of
    `threshold` applies: where the engine folds its counts of them. (Mortal wounds of one wound each are
    destroyed by the unit's wounds of them.)"""
    def least(profile: ModelProfile) -> int:
        if threshold(profile, weapon) is not None:
            return 1
        return damage_modifier(weapon, profile, context)(weapon.damage.minimum)  # (a re-roll can roll it again)

    return sum(count * destroying(profile.wounds, least(profile)) for profile, count in target.groups)


def _lands(weapon: Weapon, context: Context) -> tuple[object, ...]:
    """A key to what one of a firing's waiting wounds does when it lands (see `chain._operators`): consecutive
    firings with the same key land alike and share their count of them (`chain._resolve`). Some others land
    alike too (Precision at a unit with no leader, say); for those the estimate counts more work, never less."""
    aimed = (weapon.psychic, weapon.precision, context.rules.definition.precision_one_group)
    if weapon.devastating_wounds and context.rules.devastating_wounds is DevastatingWounds.SEED:
        return ("damage", weapon.damage, context.reroll_damage, weapon.melta if context.half_range else 0,
                context.damage_bonus, *aimed)
    return ("one mortal wound", *aimed)


def grown(entries: float, bits: float, mode: Mode, products: bool = False) -> float:
    """Steps for `entries` exact results of about `bits` bits (or float numbers); `products` when each is
    the product of two large numbers (counts times counts or states), not a large number times a small one.
    Measured here: a sum or a scaling takes 60 ns and 0.1 ns per bit, a product 60 ns and 8 us at 4,096 bits."""
    if not mode.exact:
        return entries
    return entries * (1 + (bits / PRODUCT_BITS) ** 1.6 if products else 1 + bits / BITS_PER_STEP)


def _pipeline(shape: _Shape, target: Target, mode: Mode) -> Cost:
    """The identical-models pipeline (`sequence`): counts summed over the dice folded where they surely destroy
    the unit, then the allocation stepped once per attack that costs a wound."""
    call = CALL_STEPS[mode]
    wounds = target.total_wounds
    rows = wounds + 1
    models = max(1, shape.dice // max(1, shape.per_model))
    harms = min(shape.dice * shape.hits, shape.destroying)  # attacks that cost a wound, folded where they destroy it
    model_harms = min(shape.per_model * shape.hits, shape.destroying) + 1
    count_bits = shape.dice * (shape.bits - shape.hits * shape.event_bits)  # the damage is rolled in the allocation
    reach = shape.lost + 1  # the allocation's offsets: each event costs up to its damage
    dense = not mode.exact and rows <= DENSE_UP_TO
    state_bits = count_bits + harms * shape.event_bits  # counts times states
    if not shape.waiting:
        per_model = shape.per_model * (shape.hits + 1) * model_harms
        squarings = 2 * max(1, math.ceil(math.log2(models + 1)))
        # square-and-multiply: the numbers double in size at each squaring, so the last ones cost the most
        counts = grown(per_model, shape.bits * shape.per_model, mode, True) + squarings * (harms + 1) ** 2 \
            + grown(2 * (harms + 1) ** 2, count_bits, mode, True)
        steps = harms + 1
        per_step = rows / BLAS_ENTRIES if dense else reach  # entries of one allocation step, per state
        allocation = grown(steps * rows, state_bits, mode, True) + grown(steps * rows * per_step, state_bits, mode)
        calls = shape.per_model + squarings + steps * (2 + (1 if dense else reach))
        waiting = 1
    else:  # a pair of counts: attacks that cost a wound, and waiting mortal wounds; one model at a time
        folds = wounds if shape.waits_destroying is None else shape.waits_destroying
        waiting = min(shape.dice * shape.hits * shape.waiting, folds) + 1
        model_waits = min(shape.per_model * shape.hits * shape.waiting, folds) + 1
        item = (shape.hits + 1) * (shape.hits * shape.waiting + 1)
        grid = model_harms * model_waits  # the entries of one model's counts
        counts = grown(shape.per_model * item * grid, shape.bits * shape.per_model, mode, True) + grown(
            sum(grid * min(k * (model_harms - 1) + 1, rows) * min(k * (model_waits - 1) + 1, waiting)
                for k in range(1, models)), count_bits / 2, mode, True)
        steps = harms + 1
        allocation = grown(steps * waiting * rows, state_bits, mode, True) \
            + grown((steps + waiting) * rows * (rows / BLAS_ENTRIES if dense else reach), state_bits, mode)
        calls = shape.per_model * item + models * grid + (steps + waiting) * (2 + (1 if dense else reach))
    work = counts + allocation + calls * call
    return Cost(work, shape.dice * shape.hits, rows, waiting)


def _shown(shape: _Shape, mode: Mode) -> float:
    """The chain's counts of attacks and hits, summed over every die (not folded: they are shown)."""
    if not shape.per_model:
        return 0.0
    models = shape.dice // shape.per_model
    hits = shape.dice * shape.hits + 1
    squarings = 2 * max(1, math.ceil(math.log2(shape.dice + 1)))
    # square-and-multiply: the counts and their numbers double in size with each squaring, so the last
    # ones cost the most (about a quarter of the last count's length squared, each a product)
    if not shape.attack_bits:  # a fixed number of attacks
        work = 3 * hits**2 + grown(hits**2 / 2, shape.dice * shape.hit_bits, mode, True)
        return work + squarings * CALL_STEPS[mode]
    attacks = shape.dice + 1  # each model's attacks rolled, then one step per number of attacks
    rolled = models * shape.attack_bits
    work = 3 * attacks**2 + grown(attacks**2 / 2, rolled, mode, True)
    work += grown(shape.dice * hits * (shape.hits + 1) / 2, rolled + shape.dice * shape.hit_bits / 2, mode)
    return work + squarings * CALL_STEPS[mode]


def through_each_state(states: int, others: int, moves: int, mode: Mode) -> bool:
    """Whether a firing's events, at a state that holds `others` counts of waiting wounds for each of its
    `states` target states, are faster worked out from each target state alone (with no counts) and then
    combined with the counts in one product (`chain._after`). `moves` is what the events cost for one count of
    one target state: the number of events times their transitions' offsets. Worked out from each state, the
    events cost `states` per target state instead of `others`, and the product states x states x others (in
    float mode by BLAS, `BLAS_ENTRIES` a step; the moves are priced as in compressed rows, `SPARSE_ENTRIES` a
    step, as the largest states take them, where the choice matters most: moves by bands of smaller states cost
    more, so there it leans to one event after another). The product's count of this firing's waiting wounds
    grows with the events as the moves' does, and is left out of both sides."""
    move, product = (1, 1) if mode.exact else (1 / SPARSE_ENTRIES, 1 / BLAS_ENTRIES)
    return (others - states) * moves * move > states * others * product


def _growing(dice: int, step: int, last: int, first: int = 0) -> int:
    """The counts of waiting wounds held before each of `dice` attacks, summed: the count starts at `first`
    (an earlier firing's, going on) and grows by at most `step` with each attack, up to `last`
    (`chain.Operator.apply`)."""
    reached = min(dice, max(0, (last - first) // step + 1))  # attacks before which it has not reached its last
    return reached * (first + 1) + step * reached * (reached - 1) // 2 + (dice - reached) * (last + 1)


def _chain(shapes: Sequence[_Shape], firings: Sequence[Firing | MortalWounds], target: Target, context: Context,
           mode: Mode) -> Cost:
    """The whole-unit chain (`chain`): each firing's attack built from one hit's transition, then applied
    once per attack die to every state (times the counts of waiting mortal wounds so far)."""
    call = CALL_STEPS[mode]
    layout = Layout.of(target)
    rows, cols = layout.shape
    precise = any(isinstance(f, Firing) and f.weapon.precision for f in firings)
    states = rows + cols - 1 if layout.leaders and not precise else rows * cols  # see `chain.whole_unit`
    states *= 2 if context.command_reroll is not None else 1
    dense = not mode.exact and states <= DENSE_UP_TO
    work = bits = 0.0
    waiting = 1  # the counts of waiting mortal wounds on the state's extra axes
    attacks = 0
    landing: list[int] = []  # per count of waiting wounds (an axis): its last value
    lands = None  # what the last count's wounds do when they land
    for shape in shapes:
        attacks += shape.dice
        reach = min(shape.hits * shape.lost, states - 1) + 1  # the offsets of one attack's transition
        terms = 1 + shape.hits * shape.waiting  # one transition per number of wounds it leaves waiting
        counts = shape.dice * waiting  # the counts of waiting wounds each attack is applied to, summed
        others, grows, first = waiting, shape.dice, 0  # ... and the counts it goes on with, per step of them
        if shape.waiting:
            most = shape.dice * shape.hits * shape.waiting
            first = landing.pop() if landing and shape.lands == lands else 0  # the same kind goes on counting
            folds = shape.waits_destroying  # (None: the count is held whole)
            landing.append(first + most if folds is None else min(first + most, folds))
            lands, others = shape.lands, math.prod(last + 1 for last in landing[:-1])
            grows = _growing(shape.dice, terms - 1, landing[-1], first)
            counts = others * grows
            waiting = others * (landing[-1] + 1)
        after = bits + shape.dice * shape.bits
        offsets = reach + (terms - 1) * (reach + 1) / 2  # the more it leaves waiting, the fewer wounds it costs
        if not first and through_each_state(states, others, int(shape.dice * offsets), mode):
            # worked out from each state alone (`chain._after`), then one product with the counts
            counts = states * grows
            work += grown(states * waiting * states / (1 if mode.exact else BLAS_ENTRIES), after, mode) + call
        sparse = not mode.exact and states * waiting >= SPARSE_FROM  # (the largest the state grows to here)
        per_entry = offsets / SPARSE_ENTRIES if sparse else states * terms / BLAS_ENTRIES if dense else offsets
        per_attack = states * (per_entry + (1 if sparse else 3) * terms)  # and summing the terms (the slices by
        # band leave more to sum than one product in compressed rows)
        calls = (terms if dense or sparse else offsets) + 3 * terms
        build = (shape.hits + 1) * (terms * reach) ** 2 * states
        work += grown(counts * per_attack, (bits + after) / 2, mode) + shape.dice * calls * call \
            + grown(build, shape.bits, mode) + (shape.hits + 1) * terms**2 * 6 * call
        bits = after
        work += _shown(shape, mode)
    rest = waiting
    for count in landing:  # each firing's waiting wounds land in turn, one step per count
        rest //= count + 1  # (of the counts after it: each step moves the states times these)
        per_entry = 2 / SPARSE_ENTRIES if not mode.exact and states * rest >= SPARSE_FROM else \
            states / BLAS_ENTRIES if dense else 2
        work += grown(count * waiting * per_entry, bits, mode) + count * 3 * call
    return Cost(work, attacks, states, waiting)
