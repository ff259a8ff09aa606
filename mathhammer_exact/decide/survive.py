"""How a unit fares against a panel of standard attackers (rules/attackers.toml).

The panel is data, loaded and validated with the other rules files (`data.load`, layered under a
user's rules folder); each attacker's weapons are written as for `mathhammer attack -w`, and read
here, where that syntax lives, naming the file, the entry and the weapon in any error.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import attrs

from ..data.datasheet import TargetUnit
from ..data.load import StandardAttacker, standard_attackers
from ..engine.resolve import attack
from ..errors import MathhammerError
from ..model import Context, Firing, Target
from .compare import Row, Scenario, compare
from .firings import loadout
from .unit_attack import defended


@attrs.frozen
class Attacker:
    """One standard attacker: its weapons with their models and situation."""

    name: str
    description: str
    firings: tuple[Firing, ...]


def _attacker(entry: StandardAttacker, context: Context | None) -> Attacker:
    firings = []
    for i, text in enumerate(entry.weapons):
        try:
            firings.append(loadout([text], context=context)[0].firing)
        except MathhammerError as exc:
            raise MathhammerError(f"{entry.where} weapons[{i}]: {exc}") from None
    return Attacker(entry.name, entry.description, tuple(firings))


def panel(user: str | Path | None = None, context: Context | None = None) -> dict[str, Attacker]:
    """The standard attackers by name, in the files' order: rules/attackers.toml with the user's
    rules folder (`user`, else $MATHHAMMER_RULES) layered over it, each weapon's own situation over `context`
    (the query's: its edition). Every weapon is read before any is used."""
    return {name: _attacker(entry, context) for name, entry in standard_attackers(user).items()}


@attrs.frozen
class Survival:
    """The rows of `survive`, and the header: a line for each ability of the target that may change the attacks."""

    rows: tuple[Row, ...]
    header: tuple[str, ...] = ()


def survive(target: Target | TargetUnit, attackers: Sequence[Attacker] | None = None, at_least: int | None = None,
            exact: bool = False, user: str | Path | None = None, context: Context | None = None) -> Survival:
    """Each standard attacker against `target` (default: the whole panel, with the user's rules folder):
    one row each (mean damage and kills, P(destroyed), P(at least k destroyed)), and a header line for each
    ability of a target named by its datasheet (`TargetUnit`) that may change the attacks, applied or not;
    `context` is the situation (its edition) the panel was read in."""
    unit = target if isinstance(target, TargetUnit) else TargetUnit(target, "")
    chosen = list(panel(user, context).values()) if attackers is None else list(attackers)
    scenarios, lines = [], []
    for a in chosen:
        firings, against, said = defended(unit, a.firings, context)
        lines += [line for line in said if line not in lines]
        scenarios.append(Scenario(a.description, attack(list(firings), against, context=context, exact=exact)))
    return Survival(compare(scenarios, at_least), tuple(lines))
