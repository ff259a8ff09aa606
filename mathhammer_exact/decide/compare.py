"""Scenarios side by side: loadouts, named rules, targets or rules wordings, each one exact query.

The first scenario is the baseline: every other row also gives its differences to it. Where
every scenario's points are known, the rows are also ranked by efficiency (points destroyed
per 100 points spent, or kills per 100 points when a target's points are not known).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import attrs

from ..engine.results import AttackResult
from ..errors import MathhammerError
from ..model import Context, Target
from ..pmf import Number
from .points import Efficiency


@attrs.frozen(eq=False)
class Scenario:
    """One query's answer with its label and, where known, the points of attacker and target."""

    label: str
    result: AttackResult
    points: int | None = None
    target_points: int | None = None
    asked: tuple[str, ...] = ()  #: header lines saying what was asked, as understood
    context: Context | None = None  #: the situation it was answered in (its edition settled), where known


def below_half(target: Target) -> int:
    """Models destroyed that leave fewer than half of `target`'s Starting Strength (its leaders counted with it; at
    least one, for a unit below it already): the k that usually matters. (For an Attached unit whose leaders are
    left alone, Below Half-strength counts them on their own: `Layout.below_half`.)"""
    starting = target.model_count + target.lost_before
    return max(1, target.model_count - (starting - 1) // 2)


@attrs.frozen(eq=False)
class Row:
    """One scenario's numbers: mean damage and kills, P(destroyed), P(at least `k` destroyed),
    the differences of each to the first scenario, and the efficiency when points are known."""

    scenario: Scenario
    k: int
    damage: Number
    kills: Number
    p_destroyed: Number
    p_at_least: Number
    differences: dict[str, Number]
    efficiency: Efficiency | None
    rank: int | None = None  #: 1 = most efficient (alike ones share a rank), when every scenario's points are known

    @property
    def hazardous(self) -> Number | None:
        """The attacker's mean models lost to Hazardous tests (None: no Hazardous weapon)."""
        lost = self.scenario.result.hazardous_models_lost
        return None if lost is None else lost.mean

    def measures(self) -> dict[str, Number]:
        """The numbers whose differences to the first scenario each row gives, by name."""
        return {"damage": self.damage, "kills": self.kills, "p_destroyed": self.p_destroyed,
                "p_at_least": self.p_at_least}


def row(scenario: Scenario, k: int | None = None) -> Row:
    """The numbers of one scenario (differences still empty)."""
    result = scenario.result
    models = result.target.model_count
    k = below_half(result.target) if k is None else k
    if not 1 <= k <= models:
        raise MathhammerError(f"--at-least must be 1 to {models} for {scenario.label!r} (its target's models), got {k}")
    efficiency = None if scenario.points is None else Efficiency.of(result, scenario.points, scenario.target_points)
    return Row(scenario, k, result.damage.mean, result.models_destroyed.mean, result.p_destroyed,
               result.models_destroyed.at_least(k), {}, efficiency)


def compare(scenarios: Sequence[Scenario], at_least: int | None = None) -> tuple[Row, ...]:
    """Every scenario's row, with its differences to the first and, when every scenario has
    points, its rank by efficiency. `at_least` is the k of P(at least k models destroyed)
    (default: each target's Below Half-strength number)."""
    if not scenarios:
        raise MathhammerError("give at least one scenario")
    named = Counter(s.label for s in scenarios)  # two asked alike but for a rule (a trial saw two rows of one name)
    scenarios = [attrs.evolve(s, label=f"{s.label} (scenario {i})") if named[s.label] > 1 else s
                 for i, s in enumerate(scenarios, 1)]
    rows = [row(s, at_least) for s in scenarios]
    base = rows[0]
    rows = [attrs.evolve(r, differences={m: v - base.measures()[m] for m, v in r.measures().items()}) for r in rows]
    found = [r.efficiency for r in rows]
    if all(e is not None for e in found):
        by_points = all(e.points_destroyed_per_100 is not None for e in found if e is not None)

        def worth(i: int) -> Number:
            e = found[i]
            assert e is not None
            value = e.points_destroyed_per_100 if by_points else e.kills_per_100
            assert value is not None
            return value

        rows = [attrs.evolve(r, rank=1 + sum(worth(j) > worth(i) for j in range(len(rows))))
                for i, r in enumerate(rows)]
    return tuple(rows)
