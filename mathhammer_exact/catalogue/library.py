"""What the rest of the program asks of the player's own data: a unit of an army list (FILE#UNIT), the
indexed units a name may mean, how the indexed factions draw on each other, and a search of the index's
names."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..data.datasheet import Datasheet
from . import ARMY_LISTS
from .convert import to_datasheet
from .factions import Factions
from .index import Index, index_path
from .names import loose, normalise


def is_reference(text: str) -> bool:
    """True for 'FILE.rosz#UNIT' (or .ros, .json; UNIT: a number from `mathhammer roster`, or a name), and
    for '#UNIT', a unit of the army list sent with a question (`roster.sent`)."""
    file, sep, _ = text.partition("#")
    return bool(sep) and (not file.strip() or file.strip().lower().endswith(ARMY_LISTS))


def current_index() -> Index | None:
    """The index in the data directory (opened once per version of the file), or None."""
    path = index_path()
    return _open(path, path.stat().st_mtime_ns) if path.exists() else None


@functools.lru_cache(maxsize=2)
def _open(path: Path, version: int) -> Index:
    return Index(path)


def army_unit(reference: str) -> Datasheet:
    """The unit of an army list a reference names ('FILE.rosz#3', 'FILE.ros#Intercessor Squad', '#3')."""
    from .roster import roster_unit  # the XML reader, loaded only for an army list

    return to_datasheet(roster_unit(reference))


def indexed(name: str) -> list[dict[str, Any]]:
    """The records of the indexed units called `name` (`Index.named`); none without an index."""
    index = current_index()
    return index.named(name) if index else []


def factions() -> Factions:
    """How the indexed factions draw on each other (nothing is related without an index)."""
    index = current_index()
    return index.factions if index else Factions()


def close_names(name: str) -> list[str]:
    index = current_index()
    return index.close_names(name) if index else []


def search(text: str, also: Sequence[Datasheet] = ()) -> list[tuple[str, str, dict[int, int]]]:
    """(name, faction, points by unit size) of the units of `also` and of the index that `text` names as
    players type names: each of its words in the name (or its loose form: a plural for a singular) or in
    the faction's name (`Index.search`)."""
    words = normalise(text).split()
    index = current_index()
    found = [(s.name, s.faction, dict(s.points)) for s in also
             if all(w in normalise(s.name) or loose(w) in loose(s.name) or w in normalise(s.faction) for w in words)]
    return found + (index.search(text) if index else [])


def describe() -> dict[str, Any] | None:
    """Where the index is and what it holds, or None."""
    index = current_index()
    return {"path": str(index_path()), **index.meta()} if index else None
