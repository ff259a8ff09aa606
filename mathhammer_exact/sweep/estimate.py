"""How long a sweep will take, from the engine's own cost estimate (`engine.limits.cost`) of a sample
of its queries, before any of them is worked out (`mathhammer sweep --dry-run`).

A query costs a fixed set-up (parsing the situation, reading the datasheet's loadout and rules,
building the result) plus its arithmetic; both were measured on one core of the 2-core machine the
project is developed on, fitted over 5,348 queries of 200 indexed units (whole units, and their weapons
one by one) against the standard targets, shooting and fighting.
The estimate is for one core: divide by the workers for the time on several.
"""

from __future__ import annotations

import attrs

from ..decide.unit_attack import volley
from ..engine.limits import cost
from ..errors import MathhammerError
from ..model import Firing
from ..pmf import FLOAT
from .queries import Grid, Query, as_printed

SAMPLE = 500  #: queries whose cost is estimated (evenly spaced over the grid)
SETUP_SECONDS = {"weapon": 0.9e-3, "unit": 2.4e-3}  #: per query, on average, besides the steps below
#: per step of the engine's cost estimate, on the identical-models pipeline (fast) and the whole-unit chain;
#: the pipeline's steps are few beside its set-up, so its time hardly grows with them
SECONDS_PER_STEP = {True: 1e-9, False: 3.4e-8}


def seconds(query: Query, grid: Grid) -> float:
    """The estimated time of one query on one core."""
    melee = query.phase == "fight"
    try:
        context = grid.situation_of(query)
        attacker = as_printed(query.attacker, context.rules.edition)
        target = as_printed(query.defender, context.rules.edition).target
        if attacker.weapons:
            weapon = attacker.weapon_in(context.rules.edition)
            if weapon.melee != melee:
                return 0.0
            firings = [Firing(weapon, query.models or 1)]
        else:
            assert attacker.sheet is not None
            shots = volley(attacker.sheet, (), query.models, melee, False, context.advanced, unseen=context.indirect,
                           stationary=context.stationary)
            firings = [Firing(weapon, n, None, bearer) for weapon, n, bearer in shots.weapons]
        fast = len(firings) == 1 and len(target.groups) == 1 and context.command_reroll is None
        work = cost(list(firings), target, context, FLOAT, fast).work
    except MathhammerError:  # refused before any arithmetic (nothing to attack with, too large)
        return SETUP_SECONDS[query.attacker.kind] / 2
    return SETUP_SECONDS[attacker.kind] + work * SECONDS_PER_STEP[fast]


@attrs.frozen
class Estimate:
    queries: int
    sampled: int
    seconds: float  #: on one core


def estimate(grid: Grid, sample: int = SAMPLE) -> Estimate:
    """The time of the whole grid on one core, scaled up from an evenly spaced sample of its queries."""
    count = min(sample, grid.size)
    numbers = sorted({i * grid.size // count for i in range(count)})
    total = sum(seconds(grid.query(n), grid) for n in numbers)
    return Estimate(grid.size, len(numbers), total * grid.size / len(numbers))
