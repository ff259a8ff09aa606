"""The index of a BSData checkout: one SQLite file per edition in the user's data directory (the 10th's and
the 11th's side by side: `index_path`).

One row per unit (its record as JSON, found by a normalised name or by its loose form), so a query by
name reads a few kilobytes instead of megabytes of XML; the meta table holds how the factions draw on
each other (`factions.Factions`). The index is written to a temporary file beside it and
renamed into place; a file at that path that this program did not write is never replaced.
"""

from __future__ import annotations

import contextlib
import difflib
import functools
import json
import os
import sqlite3
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from ..data.names import compact, holds_words, loose, nearest_first, normalise
from ..errors import MathhammerError
from .battlescribe import EDITIONS
from .factions import Factions

ENVIRONMENT = "MATHHAMMER_DATA"  #: a data directory to use instead of the platform's
FILENAME = "bsdata.sqlite"  #: the 10th edition's index; another edition's is bsdata-<edition>.sqlite
FORMAT = "mathhammer_exact BSData index 41"  #: what marks a file as ours; bump when the records a checkout gives change
_SCHEMA = """
create table meta (key text primary key, value text not null);
create table units (rowid integer primary key, key text not null, loose text not null, compact text not null,
                    name text not null, faction text not null, faction_key text not null, record text not null);
create index units_key on units (key);
create index units_loose on units (loose);
create index units_compact on units (compact);
"""


def data_dir() -> Path:
    """Where the index lives: $MATHHAMMER_DATA, else the platform's user data directory."""
    if os.environ.get(ENVIRONMENT):
        return Path(os.environ[ENVIRONMENT])
    import platformdirs  # only when no folder is given

    return Path(platformdirs.user_data_dir("mathhammer_exact", appauthor=False))


def check_edition_name(edition: str) -> str:
    """`edition` if it is one this program reads ('10e', '11e'), else refused naming those."""
    if edition not in EDITIONS:
        raise MathhammerError(f"unknown edition {edition!r} (editions: {', '.join(EDITIONS)})")
    return edition


def index_path(edition: str = "10e") -> Path:
    """Where the index of `edition`'s data lives (the 10th's keeps the name it had before the 11th)."""
    name = FILENAME if check_edition_name(edition) == "10e" else f"bsdata-{edition}.sqlite"
    return data_dir() / name


def _read_only(path: Path, **options: Any) -> sqlite3.Connection:
    """A read-only connection to `path`. The name goes in a file: URI, so it is quoted there: a '#' or
    '?' in a folder name would otherwise end the path and have SQLite open (and create) another file."""
    return sqlite3.connect(path.resolve().as_uri() + "?mode=ro", uri=True, **options)


def _ours(path: Path) -> bool:
    """True if `path` is an index this program wrote."""
    try:
        with contextlib.closing(_read_only(path)) as db:
            row = db.execute("select value from meta where key = 'format'").fetchone()
    except sqlite3.DatabaseError:
        return False
    return row is not None and row[0].startswith("mathhammer_exact BSData index")


def ready_folder(path: Path | None = None) -> Path:
    """The folder of the index at `path` (the data directory by default), made if it is missing; refused,
    naming it, where it is a file, lies below a file, or cannot be written."""
    folder = (path or index_path()).parent
    blocker = next((p for p in (folder, *folder.parents) if p.exists() and not p.is_dir()), None)
    if blocker is not None:
        problem = "is a file" if blocker == folder else f"lies below {blocker}, which is a file"
        raise MathhammerError(f"{folder}: cannot be the data folder: it {problem} (set ${ENVIRONMENT} to a folder)")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise MathhammerError(f"{folder}: cannot make the data folder ({exc.strerror or exc}); set ${ENVIRONMENT} "
                              "to a folder you can write") from None
    if not os.access(folder, os.W_OK | os.X_OK):
        raise MathhammerError(f"{folder}: the data folder is not writable; set ${ENVIRONMENT} to a folder you can "
                              "write")
    return folder


Row = tuple[str, str, str, str, str, str, str]  #: a unit's row of the index (`row`)


def row(record: dict[str, Any]) -> Row:
    """A unit record's row of the index: its name as each lookup compares it, its faction, the record as JSON
    (made where the record is read, so that processes sharing the reading share this work too)."""
    name, faction = record["name"], record["faction"]
    return normalise(name), loose(name), compact(name), name, faction, f" {normalise(faction)}", json.dumps(record)


def write_index(rows: Iterable[Row], meta: dict[str, Any], path: Path | None = None) -> Path:
    """Build a new index from the rows of unit records (`row`, of the edition `meta` names) and put it in place
    atomically."""
    path = path or index_path(meta["edition"])
    if path.exists() and not _ours(path):
        raise MathhammerError(f"{path}: exists and was not written by mathhammer; move it away first")
    folder = ready_folder(path)
    try:
        handle, temporary = tempfile.mkstemp(prefix=".bsdata-", suffix=".tmp", dir=folder)
    except OSError as exc:
        raise MathhammerError(f"{folder}: cannot write in the data folder ({exc.strerror or exc}); set "
                              f"${ENVIRONMENT} to a folder you can write") from None
    os.close(handle)
    try:
        with contextlib.closing(sqlite3.connect(temporary)) as db:
            db.executescript(_SCHEMA)
            db.executemany("insert into units (key, loose, compact, name, faction, faction_key, record) values "
                           "(?, ?, ?, ?, ?, ?, ?)", rows)
            db.executemany("insert into meta values (?, ?)",
                           [("format", FORMAT), *((k, json.dumps(v)) for k, v in meta.items())])
            db.commit()
        os.replace(temporary, path)
    except (OSError, sqlite3.Error) as exc:  # a full disk, a folder made read-only meanwhile
        raise MathhammerError(f"{path}: cannot write the index ({exc}); the previous one is kept") from None
    finally:
        if os.path.exists(temporary):
            os.unlink(temporary)
    return path


def remove_index(path: Path) -> Path:
    if not path.exists():
        raise MathhammerError(f"no index at {path}")
    if not _ours(path):
        raise MathhammerError(f"{path}: was not written by mathhammer; not removing it")
    path.unlink()
    return path


class Index:
    """A read-only view of an index file."""

    def __init__(self, path: Path):
        if not _ours(path):
            raise MathhammerError(f"{path}: not a mathhammer index (run `mathhammer data add PATH` again)")
        self.path = path
        self.db = _read_only(path, check_same_thread=False)
        if self._meta_value("format") != FORMAT:
            raise MathhammerError(f"{path}: an index from another version of mathhammer; run `mathhammer data add` "
                                  "again")
        self.edition: str = json.loads(self._meta_value("edition") or "null")  #: of its units: '10e' or '11e'

    def _meta_value(self, key: str) -> str | None:
        row = self.db.execute("select value from meta where key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def meta(self) -> dict[str, Any]:
        return {k: (v if k == "format" else json.loads(v)) for k, v in self.db.execute("select key, value from meta")}

    def names(self) -> list[tuple[str, str]]:
        """(name, faction) of every unit, in catalogue order."""
        return list(self.db.execute("select name, faction from units order by rowid"))

    def records(self) -> Iterator[dict[str, Any]]:
        """Every unit's record, in catalogue order (units of the same name each once)."""
        for (record,) in self.db.execute("select record from units order by rowid"):
            yield json.loads(record)

    def search(self, text: str) -> list[tuple[str, str, dict[int, int]]]:
        """(name, faction, points by unit size) of the units each word of `text` names a part of, as players
        type names: in the unit's name, in its loose form (a plural typed for a singular: 'intercessors'), or
        at the start of a word of its faction's name ('ork boyz', 'tau crisis'); nearest first (`nearest_first`)."""
        words = normalise(text).split()
        each = "(key like ? or loose like ? or faction_key like ?)"
        query = ("select name, faction, json_extract(record, '$.points') from units where "
                 + " and ".join([each] * len(words) or ["1"]) + " order by rowid")
        found = [(name, faction, {int(n): cost for n, cost in json.loads(points or "{}").items()})
                 for name, faction, points in self.db.execute(
                     query, [part for w in words for part in (f"%{w}%", f"%{loose(w) or w}%", f"% {w}%")])]
        return sorted(found, key=lambda row: nearest_first(row[0], text))

    def named(self, name: str) -> list[dict[str, Any]]:
        """The records of the units called `name`, matched forgivingly: its normalised name, else its
        loose form, else that without spaces (`compact`); one per name and faction (the first in catalogue
        order). A name that several factions use as written is one a player must settle anyway: the units of
        other factions its loose form names join them ('Chaos Terminators' of World Eaters and Emperor's
        Children, and the Chaos Terminator Squad of Chaos Space Marines), but not a [Legends] unit."""
        first: dict[tuple[str, str], str] = {}
        for column, key in (("key", normalise(name)), ("loose", loose(name)), ("compact", compact(name))):
            rows = self.db.execute(f"select name, faction, record from units where {column} = ? order by rowid",
                                   (key,)).fetchall() if key else []
            factions = {faction for _, faction in first}
            for unit, faction, record in rows:  # joining the name as written: not a [Legends] unit
                if faction not in factions and not (factions and "[" in unit):
                    first.setdefault((unit, faction), record)
            if first and (len({faction for _, faction in first}) < 2 or column != "key"):
                break
        return [json.loads(record) for record in first.values()]

    @functools.cached_property
    def factions(self) -> Factions:
        """How the indexed factions draw on each other."""
        return Factions.from_json(json.loads(self._meta_value("factions") or "{}"))

    def holding(self, text: str) -> list[dict[str, Any]]:
        """The records of the units whose own names hold every word of `text` (as typed, or loosely: a plural
        for a singular), one per name and faction: 'fireknife battlesuits' for Crisis Fireknife Battlesuits."""
        words = [(w, loose(w) or w) for w in normalise(text).split()]
        if not words:
            return []
        query = "select name, faction, record from units where " + " and ".join(["(key like ? or loose like ?)"]
                                                                                * len(words))
        first: dict[tuple[str, str], str] = {}
        for unit, faction, record in self.db.execute(query + " order by rowid",
                                                     [f"%{part}%" for pair in words for part in pair]):
            if holds_words(unit, text):
                first.setdefault((unit, faction), record)
        return [json.loads(record) for record in first.values()]

    def close_names(self, name: str) -> list[str]:
        """The names of units `name` may have been meant for, best first: those it names a part of, as `search`
        finds them (not [Legends] before [Legends], then by name: 'leman russ' gives the Battle Tank before the
        Punisher, 'tau crisis' the Crisis Fireknife Battlesuits), then those spelt alike; a [Legends] unit after
        the others of each kind."""
        holding = sorted({unit for unit, _, _ in self.search(name)}, key=lambda unit: ("[" in unit, unit))
        keys: dict[str, list[str]] = {}
        for unit, in self.db.execute("select distinct name from units"):
            keys.setdefault(loose(unit), []).append(unit)
        alike = [unit for key in difflib.get_close_matches(loose(name), list(keys), n=5, cutoff=0.6)
                 for unit in sorted(keys[key], key=lambda u: ("[" in u, u))]
        alike.sort(key=lambda unit: "[" in unit)  # stable: spelling order within each kind
        return list(dict.fromkeys([*holding, *alike]))
