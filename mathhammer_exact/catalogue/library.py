"""What the rest of the program asks of the player's own data: a unit of an army list (FILE#UNIT), the
indexed units a name may mean, how the indexed factions draw on each other, and a search of the index's
names."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..data.datasheet import Datasheet
from ..data.names import loose, nearest_first, normalise
from ..editions import asked_edition, player_default
from . import ARMY_LISTS
from .battlescribe import EDITIONS
from .convert import to_datasheet
from .factions import Factions
from .index import Index, index_path


def is_reference(text: str) -> bool:
    """True for 'FILE.rosz#UNIT' (or .ros, .json; UNIT: a number from `mathhammer roster`, or a name), and
    for '#UNIT', a unit of the army list sent with a question (`roster.sent`)."""
    file, sep, _ = text.partition("#")
    return bool(sep) and (not file.strip() or file.strip().lower().endswith(ARMY_LISTS))


def editions() -> list[str]:
    """The editions whose data is indexed in the data directory ('10e', '11e'), in order."""
    return [edition for edition in EDITIONS if index_path(edition).exists()]


def default_edition() -> str:
    """The edition a name is looked up in when a lookup names none: the one the question asks for (--edition)
    where its data is indexed, else the player's ($MATHHAMMER_EDITION), else the 10th, unless only the 11th is
    indexed. (A unit of another edition than its rules' is said so in the answer's header.)"""
    indexed = editions()
    asked = asked_edition()
    if asked is not None and asked in indexed:
        return asked
    return player_default() or ("11e" if indexed == ["11e"] else "10e")


def current_index(edition: str | None = None) -> Index | None:
    """The index of `edition` (by default `default_edition`) in the data directory, opened once per version
    of the file; None if that edition is not indexed."""
    path = index_path(edition or default_edition())
    return _open(path, path.stat().st_mtime_ns) if path.exists() else None


@functools.lru_cache(maxsize=4)
def _open(path: Path, version: int) -> Index:
    return Index(path)


def army_unit(reference: str) -> Datasheet:
    """The unit of an army list a reference names ('FILE.rosz#3', 'FILE.ros#Intercessor Squad', '#3')."""
    from .roster import roster_unit  # the XML reader, loaded only for an army list

    return to_datasheet(roster_unit(reference))


def indexed(name: str, edition: str | None = None) -> list[dict[str, Any]]:
    """The records of the units of `edition` called `name` (`Index.named`); none without its index."""
    index = current_index(edition)
    return index.named(name) if index else []


def factions(edition: str | None = None) -> Factions:
    """How the indexed factions of `edition` draw on each other (nothing is related without its index)."""
    index = current_index(edition)
    return index.factions if index else Factions()


def close_names(name: str, edition: str | None = None) -> list[str]:
    """The indexed unit names `name` may have been meant for, best first (`Index.close_names`)."""
    index = current_index(edition)
    return index.close_names(name) if index else []


def holding(name: str, edition: str | None = None) -> list[dict[str, Any]]:
    """The records of the indexed units whose names hold every word of `name` (`Index.holding`)."""
    index = current_index(edition)
    return index.holding(name) if index else []


def indexed_units(edition: str | None = None) -> int:
    """How many units `edition`'s index holds (0 without one)."""
    index = current_index(edition)
    return int(index.meta().get("units", 0)) if index else 0


def unreadable(edition: str | None = None) -> dict[str, str]:
    """The units of `edition`'s checkout that could not be read when it was indexed, and why (`data add` counts
    them), so that a name of one is told apart from a name of no unit."""
    index = current_index(edition)
    return dict(index.meta().get("unreadable", {})) if index else {}


def missing(edition: str | None = None) -> list[str]:
    """The catalogues other catalogues of `edition`'s checkout link but the checkout lacks (their units are not
    indexed), as `data add` found them."""
    index = current_index(edition)
    return sorted(index.meta().get("missing", {})) if index else []


def search(text: str, also: Sequence[Datasheet] = (),
           edition: str | None = None) -> list[tuple[str, str, dict[int, int]]]:
    """(name, faction, points by unit size) of the units of `also` and of the index of `edition` that `text`
    names as players type names: each of its words in the name (or its loose form: a plural for a singular)
    or in the faction's name (`Index.search`); nearest first (`nearest_first`), a datasheet of `also` before
    an indexed unit of its name."""
    words = normalise(text).split()
    index = current_index(edition)
    found = [(s.name, s.faction, dict(s.points)) for s in also
             if all(w in normalise(s.name) or loose(w) in loose(s.name) or w in normalise(s.faction) for w in words)]
    return sorted(found + (index.search(text) if index else []), key=lambda row: nearest_first(row[0], text))


def describe() -> list[dict[str, Any]]:
    """Where each edition's index is and what it holds (none without an index)."""
    found = [(edition, current_index(edition)) for edition in editions()]
    return [{"path": str(index_path(edition)), **index.meta()} for edition, index in found if index]
