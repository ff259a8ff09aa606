"""My army against yours: every unit of one army attacking every unit of the other, each with its
whole loadout, as one table (a pandas DataFrame: needs the [scale] extra).

An army is an exported army list (``.ros``, ``.rosz``, New Recruit's ``.json``), a text file
(``.txt``) with one unit a line, or unit names separated by commas. A unit is named as for
`mathhammer unit`: a datasheet, an indexed unit (``NAME @ FACTION`` picks one of several) or
``FILE#N``, optionally followed by its size, ``Boyz x20``; without one, its smallest size. In a
text file, ``#`` starts a comment. Each unit is labelled with its place in the army, ``#1 Boyz``,
so that two units of the same datasheet stay apart.

Each cell is the answer `mathhammer unit` gives for that pair: the same query, the same numbers.
A unit with nothing to attack with in a phase (no ranged weapons, say) gets NaN and the reason.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs

from ..catalogue import ARMY_LISTS
from ..catalogue.convert import to_datasheet
from ..catalogue.roster import Roster, read_roster
from ..data.datasheet import Datasheet
from ..data.load import standard_targets
from ..data.names import normalise
from ..errors import MathhammerError
from ..model import Context
from ..units.by_name import Near, Nears, datasheet, sized, whole
from .queries import Attacker, Defender, Grid, rows

if TYPE_CHECKING:
    import pandas


@attrs.frozen
class Army:
    """An army's name and its units, each as a datasheet fixed at the unit's size, with its label."""

    name: str
    units: tuple[tuple[str, Datasheet], ...]


def _sized(text: str, near: Nears = None) -> Datasheet:
    """A unit named as for `mathhammer unit`, at the size written after it ('Boyz x20') or its smallest; a name
    several factions use settled by `near`, the other units (the first that settles it)."""
    name, size = whole(text, "an army names each unit whole, at its size ('Boyz x20'): a matchup asks what the "
                               "units do at full strength")
    if any(normalise(name) == normalise(standard) for standard in standard_targets()):
        raise MathhammerError(f"{name!r} is a standard target (a profile), not a unit: an army's units are named as "
                              "for `mathhammer unit` ('Intercessor Squad x10'); `unit --target` and `attack` take "
                              "standard targets")
    sheet = datasheet(name, near=near)
    if size is None:
        return sheet
    sheet.counts(size)  # a size its datasheet does not allow is refused, saying which it allows
    return attrs.evolve(sheet, sizes=(size,))


PHASES_OF = {"shooting": ("shooting",), "fight": ("fight",), "both": ("shooting", "fight")}  #: by --phase


def army_of_names(names: Sequence[str], name: str, near: tuple[Near, ...] = ()) -> Army:
    """The army of these units, each named as for `mathhammer unit` with its size after 'x' ('Boyz x20'); a name
    several factions use settled by the army's other units first (a Land Raider beside Grey Knights is theirs),
    then by `near`, the other army's."""
    names = [n.strip() for n in names if n.strip()]
    if not names:
        raise MathhammerError(f"{name} names no units: give an army list (.ros, .rosz, .json), a .txt file of "
                              "unit names, or names separated by commas")
    own = [sized(n)[0] for n in names]
    return _labelled(name, [_sized(n, (*own[:i], *own[i + 1:], *near)) for i, n in enumerate(names)])


def facing(names: Sequence[str], name: str, other: Army | Sequence[str]) -> Army:
    """`army_of_names` against `other` (an army, or its units' names as written): a unit name several factions use
    is settled by its own army's other units, else by the other army's, as `mathhammer unit` settles it by the other
    unit of the question."""
    near = tuple(sheet for _, sheet in other.units) if isinstance(other, Army) else tuple(
        sized(n)[0] for n in other)
    return army_of_names(names, name, near)


def army_of_roster(roster: Roster, name: str | None = None) -> Army:
    """Every unit of an army list, at its size in the list; named as the list is, or `name`."""
    return _labelled(name or roster.name, [to_datasheet(record) for record in roster.units])


def _labelled(name: str, sheets: Sequence[Datasheet]) -> Army:
    """Each unit labelled with its place in the army, '#1 Boyz'."""
    return Army(name, tuple((f"#{i} {sheet.name}", sheet) for i, sheet in enumerate(sheets, 1)))


def read_armies(text_a: str, text_b: str) -> tuple[Army, Army]:
    """The two armies `text_a` and `text_b` name (each as `_names` reads it); a unit name several factions use is
    settled by its own army's other units, else by the other army's (`facing`), an army list's units being settled
    already."""
    (name_a, a), (name_b, b) = _names(text_a, "army A"), _names(text_b, "army B")
    army_a = a if isinstance(a, Army) else facing(a, name_a, b)
    return army_a, b if isinstance(b, Army) else facing(b, name_b, army_a)


def read_army(text: str, name: str = "army") -> Army:
    """The army `text` names (`_names`), alone: a unit name several factions use is refused."""
    name, found = _names(text, name)
    return found if isinstance(found, Army) else army_of_names(found, name)


def _names(text: str, name: str) -> tuple[str, Army | list[str]]:
    """The army `text` names: an army-list file's (named as in the list), else the names of its units: those of a
    text file of unit names (named after the file), or names separated by commas (called `name`)."""
    text = text.strip()
    suffix = Path(text).suffix.lower()
    if ("/" in text or "\\" in text) and Path(text).is_dir():  # a path (the command line's: the server reads none)
        raise MathhammerError(f"{text}: a folder, not an army: give an army list ({', '.join(sorted(ARMY_LISTS))}), "
                              "a .txt file of unit names, or unit names separated by commas")
    if suffix in ARMY_LISTS and "#" not in text:
        army = army_of_roster(read_roster(Path(text)))
        return army.name, army
    if suffix != ".txt":
        return name, text.split(",")
    path = Path(text)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise MathhammerError(f"{path}: cannot be read as a text file of unit names: {exc}") from None
    return path.stem, [line.split("#")[0] for line in lines]


def grid(attacking: Army, defending: Army, phases: Sequence[str] = ("shooting",),
         context: Context | None = None) -> Grid:
    """The queries of one direction: each unit of `attacking` against each unit of `defending`."""
    context = context or Context()
    printing = context.rules.name
    if printing is None:
        raise MathhammerError("a matchup is answered under one of the named rules printings (see --rules)")
    return Grid([Attacker.of_sheet(sheet, label) for label, sheet in attacking.units],
                [Defender.of_sheet(sheet, label) for label, sheet in defending.units], phases,
                rules=(printing,), context=context)


def records(attacking: Army, defending: Army, phases: Sequence[str] = ("shooting",),
            context: Context | None = None, both: bool = False) -> list[dict[str, Any]]:
    """One record per attacker, target and phase (the `army` attacking, the army it is `against`, then the
    sweep's row): mean damage, mean models destroyed, P(destroyed) and points destroyed per 100 points spent
    (NaN where a point value is missing), with the reason where the attacker cannot attack. `both`: the other
    direction too. Plain dicts, so the server answers a matchup without pandas."""
    found = []
    for one, other in [(attacking, defending)] + ([(defending, attacking)] if both else []):
        queries = grid(one, other, phases, context)
        for row in rows(queries, 0, queries.size):
            for key in ("query", "attacker_kind", "rules"):
                del row[key]
            found.append({"army": one.name, "against": other.name, **row})
    return found


def matchup(attacking: Army, defending: Army, phases: Sequence[str] = ("shooting",), context: Context | None = None,
            both: bool = False) -> pandas.DataFrame:
    """The `records` as one table, a row each (a pandas DataFrame)."""
    return frame_of(records(attacking, defending, phases, context, both))


def frame_of(found: Sequence[dict[str, Any]]) -> pandas.DataFrame:
    """Matchup records as a pandas DataFrame (the [scale] extra)."""
    try:
        import pandas
    except ImportError:
        raise MathhammerError("matchups need the [scale] extra: pip install 'mathhammer_exact[scale]'") from None
    return pandas.DataFrame(list(found))
