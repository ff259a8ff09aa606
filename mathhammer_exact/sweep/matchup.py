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

import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import attrs

from ..catalogue import ARMY_LISTS
from ..catalogue.convert import to_datasheet
from ..catalogue.roster import read_roster
from ..data.datasheet import Datasheet, either
from ..errors import MathhammerError
from ..model import Context
from ..units.by_name import datasheet
from .queries import Attacker, Defender, Grid, rows

if TYPE_CHECKING:
    import pandas

SIZED = re.compile(r"^(?P<name>.*?)\s+x\s*(?P<size>\d+)$", re.IGNORECASE)


@attrs.frozen
class Army:
    """An army's name and its units, each as a datasheet fixed at the unit's size, with its label."""

    name: str
    units: tuple[tuple[str, Datasheet], ...]


def _sized(text: str) -> Datasheet:
    """A unit named as for `mathhammer unit`, at the size written after it ('Boyz x20') or its smallest."""
    found = SIZED.match(text.strip())
    name, size = (found["name"], int(found["size"])) if found else (text.strip(), None)
    sheet = datasheet(name)
    if size is None:
        return sheet
    allowed = sheet.allowed_sizes()
    if size not in allowed:
        raise MathhammerError(f"{sheet.name} comes in units of {either(allowed)} models, not {size}")
    return attrs.evolve(sheet, sizes=(size,))


def read_army(text: str, name: str = "army") -> Army:
    """The army `text` names: an army-list file (named as in the list), a text file of unit names
    (named after the file), or names separated by commas (called `name`)."""
    text = text.strip()
    suffix = Path(text).suffix.lower()
    if suffix in ARMY_LISTS and "#" not in text:
        roster = read_roster(Path(text))
        sheets = [to_datasheet(record) for record in roster.units]
        name = roster.name
    else:
        if suffix == ".txt":
            path = Path(text)
            try:
                lines = path.read_text(encoding="utf-8").splitlines()
            except (OSError, UnicodeDecodeError) as exc:
                raise MathhammerError(f"{path}: cannot be read as a text file of unit names: {exc}") from None
            names = [line.split("#")[0].strip() for line in lines]
            name = path.stem
        else:
            names = text.split(",")
        names = [n for n in names if n]
        if not names:
            raise MathhammerError(f"{text!r} names no units: give an army list (.ros, .rosz, .json), a .txt file of "
                                  "unit names, or names separated by commas")
        sheets = [_sized(n) for n in names]
    return Army(name, tuple((f"#{i} {sheet.name}", sheet) for i, sheet in enumerate(sheets, 1)))


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


def matchup(attacking: Army, defending: Army, phases: Sequence[str] = ("shooting",), context: Context | None = None,
            both: bool = False) -> pandas.DataFrame:
    """One row per attacker, target and phase: mean damage, mean models destroyed, P(destroyed) and
    points destroyed per 100 points spent (NaN where a point value is missing), with the reason where
    the attacker cannot attack. `both`: the other direction too (the `army` column says which)."""
    try:
        import pandas
    except ImportError:
        raise MathhammerError("matchups need the [scale] extra: pip install 'mathhammer_exact[scale]'") from None
    frames = []
    for one, other in [(attacking, defending)] + ([(defending, attacking)] if both else []):
        queries = grid(one, other, phases, context)
        frame = pandas.DataFrame(rows(queries, 0, queries.size), columns=[name for name, _ in queries.columns()])
        frame.insert(0, "against", other.name)
        frame.insert(0, "army", one.name)
        frames.append(frame.drop(columns=["query", "attacker_kind", "rules"]))
    return pandas.concat(frames, ignore_index=True)
