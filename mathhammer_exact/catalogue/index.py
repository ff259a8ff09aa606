"""The index of a BSData checkout: one SQLite file in the user's data directory.

One row per unit (its record as JSON, found by a normalised name), so a query by name reads a few
kilobytes instead of megabytes of XML. The index is written to a temporary file beside it and
renamed into place; a file at that path that this program did not write is never replaced.
"""

from __future__ import annotations

import contextlib
import difflib
import json
import os
import re
import sqlite3
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from ..errors import MathhammerError

ENVIRONMENT = "MATHHAMMER_DATA"  #: a data directory to use instead of the platform's
FILENAME = "bsdata.sqlite"
FORMAT = "mathhammer_exact BSData index 2"  #: what marks a file as ours; bump when the record layout changes
_SCHEMA = """
create table meta (key text primary key, value text not null);
create table units (rowid integer primary key, key text not null, name text not null, faction text not null,
                    record text not null);
create index units_key on units (key);
"""


def data_dir() -> Path:
    """Where the index lives: $MATHHAMMER_DATA, else the platform's user data directory."""
    if os.environ.get(ENVIRONMENT):
        return Path(os.environ[ENVIRONMENT])
    import platformdirs  # only when no folder is given

    return Path(platformdirs.user_data_dir("mathhammer_exact", appauthor=False))


def index_path() -> Path:
    return data_dir() / FILENAME


def normalise(name: str) -> str:
    """Names as players type them: case, apostrophes and punctuation do not matter ("T'au" = "tau")."""
    return " ".join(re.sub(r"[^0-9a-z]+", " ", re.sub(r"['’`]", "", name.lower())).split())


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


def write_index(records: Iterable[dict[str, Any]], meta: dict[str, Any], path: Path | None = None) -> Path:
    """Build a new index from unit records and put it in place atomically."""
    path = path or index_path()
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
            db.executemany("insert into units (key, name, faction, record) values (?, ?, ?, ?)",
                           ((normalise(r["name"]), r["name"], r["faction"], json.dumps(r)) for r in records))
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


def remove_index(path: Path | None = None) -> Path:
    path = path or index_path()
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

    def search(self, text: str) -> list[tuple[str, str]]:
        """Units whose name contains every word of `text`."""
        words = normalise(text).split()
        query = "select name, faction from units where " + " and ".join(["key like ?"] * len(words) or ["1"])
        return list(self.db.execute(query + " order by name, rowid", [f"%{w}%" for w in words]))

    def find(self, name: str) -> dict[str, Any] | None:
        """The record of the unit called `name` (forgivingly), or None. 'NAME @ FACTION' picks one of
        several units of the same name; without it the first is taken and a note names the others."""
        wanted, _, faction = name.partition("@")
        rows = self.db.execute("select faction, record from units where key = ? order by rowid",
                               (normalise(wanted),)).fetchall()
        if faction.strip():
            rows = [r for r in rows if normalise(faction) in normalise(r[0])]
        if not rows:
            return None
        record: dict[str, Any] = json.loads(rows[0][1])
        others = sorted({f for f, _ in rows[1:]} - {rows[0][0]})
        if others:
            record["notes"].insert(0, f"the {rows[0][0]} unit of this name; also in {', '.join(others)} "
                                      f"(ask for '{record['name']} @ FACTION')")
        return record

    def close_names(self, name: str) -> list[str]:
        keys = {key: unit for key, unit in self.db.execute("select key, name from units")}
        return [keys[k] for k in difflib.get_close_matches(normalise(name), list(keys), n=3, cutoff=0.6)]
