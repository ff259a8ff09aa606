"""Points efficiency: what an attack is worth per 100 points spent.

Each model of the target counts as an equal share of the target's points, so the points destroyed
are the target's points times the expected fraction of its models destroyed (of those it started the
battle with, where it has lost some: the points are the whole unit's).

>>> from mathhammer_exact import Target, Weapon, attack
>>> shot = Weapon.parse("A1 BS2+ S4 AP-6 D1 [LETHAL HITS]")  # destroys a W1 model with 1/6 + 4/6 * 1/2
>>> result = attack(shot, Target.parse("T4 Sv7+ W1 x10"), 10, exact=True)  # 5 kills on average
>>> found = Efficiency.of(result, points=50, target_points=120)  # 12 points a model
>>> found.kills_per_100, found.points_destroyed_per_100
(Fraction(10, 1), Fraction(120, 1))
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

import attrs

from ..data.datasheet import Datasheet
from ..engine.results import AttackResult
from ..errors import MathhammerError
from ..parsing import is_profile
from ..pmf import Number


@attrs.frozen
class Efficiency:
    """Expected kills and points destroyed per 100 points of the attacker (None where the
    target's points are not known)."""

    points: int
    target_points: int | None
    kills_per_100: Number
    points_destroyed_per_100: Number | None

    @classmethod
    def of(cls, result: AttackResult, points: int, target_points: int | None = None) -> Efficiency:
        if points < 1:
            raise MathhammerError(f"the attacker's points must be at least 1, got {points}")
        if target_points is not None and target_points < 0:
            raise MathhammerError(f"the target's points must be at least 0, got {target_points}")
        kills = result.models_destroyed.mean
        scale = Fraction(100, points) if result.exact else 100 / points
        destroyed = None
        if target_points is not None:
            per_model = Fraction(target_points, result.target.model_count + result.target.lost_before)
            destroyed = kills * (per_model if result.exact else float(per_model)) * scale
        return cls(points, target_points, kills * scale, destroyed)


def named_points(unit: str | Datasheet | None, size: int | None = None, loadout: Sequence[str] = ()) -> int | None:
    """The points of a datasheet (or of the one called `unit`) at `size` models (default: its smallest
    size) with the wargear `loadout` gives it (`Datasheet.points_at`); None for no datasheet (a standard
    target, a profile) or when the data leaves its points out."""
    if unit is None or isinstance(unit, str) and is_profile(unit):  # a profile written out has no points
        return None
    from ..units.by_name import datasheet  # the rules data and the index load only for a name

    try:  # a built-in or indexed datasheet, or a unit of an army list (FILE#N)
        sheet = datasheet(unit) if isinstance(unit, str) else unit
    except MathhammerError:
        return None
    return sheet.points_at(size, loadout)


def attached_points(unit: Datasheet | None, size: int | None, leaders: Sequence[Datasheet] = (),
                    loadout: Sequence[str] = ()) -> int | None:
    """The points of `unit` at `size` models with its `loadout` and the Leaders attached to it: all their
    datasheets' points (None where one leaves them out: a part of a unit's cost is not its cost)."""
    parts = [named_points(unit, size, loadout), *map(named_points, leaders)]
    return None if None in parts else sum(part for part in parts if part is not None)
