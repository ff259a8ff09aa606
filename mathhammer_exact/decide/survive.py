"""How a unit fares against a panel of standard attackers (rules/attackers.toml).

The panel is data: each attacker is a description and weapons written as for `mathhammer attack -w`.
This loader is small and separate from data/load.py on purpose; it checks every key and names the
file and the entry in each error.
"""

from __future__ import annotations

import functools
import tomllib
from collections.abc import Sequence
from pathlib import Path

import attrs

from ..data.load import shipped_dir
from ..engine.resolve import attack
from ..errors import MathhammerError
from ..model import Firing, Target
from .compare import Row, Scenario, compare
from .firings import loadout


@attrs.frozen
class Attacker:
    """One standard attacker: its weapons with their models and situation."""

    name: str
    description: str
    firings: tuple[Firing, ...]


def _attacker(where: str, name: str, table: object) -> Attacker:
    if not isinstance(table, dict):
        raise MathhammerError(f"{where}: expected a table with description and weapons")
    keys = {"description", "weapons"}
    if set(table) != keys:
        raise MathhammerError(f"{where}: needs exactly the keys description and weapons, got {', '.join(table)}")
    weapons = table["weapons"]
    if not isinstance(table["description"], str) or not isinstance(weapons, list) \
            or not all(isinstance(w, str) for w in weapons):
        raise MathhammerError(f"{where}: description is a string and weapons a list of strings")
    try:
        firings = tuple(w.firing for w in loadout(weapons))
    except MathhammerError as exc:
        raise MathhammerError(f"{where}: {exc}") from None
    return Attacker(name, table["description"], firings)


@functools.lru_cache(maxsize=4)
def panel(directory: Path | None = None) -> dict[str, Attacker]:
    """The standard attackers in rules/attackers.toml, by name, in the file's order."""
    path = (directory or shipped_dir()) / "attackers.toml"
    try:
        with path.open("rb") as handle:
            data = tomllib.load(handle)
    except tomllib.TOMLDecodeError as exc:
        raise MathhammerError(f"{path.name}: not valid TOML: {exc}") from None
    return {name: _attacker(f"{path.name} [{name}]", name, table) for name, table in data.items()}


def survive(target: Target, attackers: Sequence[Attacker] | None = None, at_least: int | None = None,
            exact: bool = False) -> tuple[Row, ...]:
    """Each standard attacker against `target`: one row each (mean damage and kills, P(destroyed),
    P(at least k destroyed))."""
    chosen = list(panel().values()) if attackers is None else list(attackers)
    scenarios = [Scenario(a.description, attack(list(a.firings), target, exact=exact)) for a in chosen]
    return compare(scenarios, at_least)
