"""A sweep's output: a folder (RESULTS.parquet) of Parquet parts, one per chunk of queries, and a
manifest saying which grid they answer.

Each part is worked out in full (in a worker) and written by the driver under a hidden name, then
given its own, so a part is there whole or not at all; a part is never replaced. The manifest
(`_sweep.json`) names the grid by a digest of everything in it, so `--resume` carries on only the
sweep it started. Readers of Parquet datasets (pandas, pyarrow, Dask, DuckDB) skip the manifest and
the hidden files, so `pandas.read_parquet("RESULTS.parquet")` reads the rows in query order.
"""

from __future__ import annotations

import hashlib
import io
import json
from importlib.metadata import version
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
from threadpoolctl import threadpool_limits

from ..errors import MathhammerError
from ..files import recorded, write_files, write_new
from .queries import Grid, rows

FORMAT = "mathhammer_exact sweep 1"
MANIFEST = "_sweep.json"
TYPES = {"int": pa.int64(), "float": pa.float64(), "str": pa.string(), "bool": pa.bool_(),
         "floats": pa.list_(pa.float64()), "strs": pa.list_(pa.string())}


def schema(grid: Grid) -> pa.Schema:
    return pa.schema([(name, TYPES[kind]) for name, kind in grid.columns()])


def parquet(grid: Grid, found: list[dict[str, Any]]) -> bytes:
    """Rows of the grid as a Parquet file's bytes (the table built column by column: ten times faster
    than from the rows' dicts)."""
    columns = schema(grid)
    table = pa.Table.from_pydict({f.name: pa.array([row[f.name] for row in found], type=f.type) for f in columns},
                                 schema=columns)
    sink = io.BytesIO()
    pq.write_table(table, sink, compression="zstd")
    return sink.getvalue()


def part_bytes(grid: Grid, part: int) -> bytes:
    """One part as a Parquet file's bytes (what a worker sends back). The engine runs on one BLAS
    thread: the workers are the parallelism, and the sums come out the same in every process."""
    span = grid.span(part)
    with threadpool_limits(limits=1, user_api="blas"):
        found = rows(grid, span.start, span.stop)
    return parquet(grid, found)


def part_name(part: int) -> str:
    return f"part-{part:05d}.parquet"


def digest(grid: Grid) -> str:
    """Names the grid: everything in it (attackers, targets, values, chunk size) and the program's version."""
    return hashlib.sha256(f"{version('mathhammer_exact')}\n{grid!r}".encode()).hexdigest()


def manifest(grid: Grid) -> dict[str, Any]:
    return {"format": FORMAT, "grid": digest(grid), "queries": grid.size, "chunk": grid.chunk, "parts": grid.parts,
            "columns": [name for name, _ in grid.columns()]}


class Output:
    """The folder of a sweep, checked at once: a new one (made with its manifest by `begin`, when the
    engine is ready), or one to carry on (`resume`)."""

    def __init__(self, folder: Path, grid: Grid, resume: bool):
        self.folder, self.grid = folder, grid
        self.wanted = manifest(grid)
        self.new = not (folder.exists() or folder.is_symlink())
        if not self.new:
            if not resume:
                raise MathhammerError(f"{folder} exists; add --resume to carry on the sweep written there, or give "
                                      "another --out")
            self._check(self.wanted)
        elif folder.suffix.lower() != ".parquet":
            raise MathhammerError(f"--out names the folder of Parquet parts, ending .parquet, got {folder}")
        elif not folder.parent.is_dir():
            raise MathhammerError(f"cannot make the folder {folder}: there is no folder {folder.parent}")

    def begin(self) -> None:
        """Make a new folder, with its manifest."""
        if self.new:
            write_files(self.folder, {MANIFEST: (json.dumps(self.wanted, indent=1) + "\n").encode()}, make=True)
            self.new = False

    def _check(self, wanted: dict[str, Any]) -> None:
        where = self.folder / MANIFEST
        record = recorded(self.folder) if self.folder.is_dir() else None
        try:
            found = json.loads(where.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            found = None
        if record is None or not isinstance(found, dict) or found.get("format") != FORMAT:
            raise MathhammerError(f"{self.folder} is not the folder of a mathhammer sweep; give another --out")
        if found != wanted:
            raise MathhammerError(f"{self.folder} holds another sweep (another spec, data, chunk size or version of "
                                  "mathhammer): --resume carries on only the same sweep; give another --out")

    def done(self) -> set[int]:
        """The parts already written, each checked to hold its queries."""
        found = set()
        for part in range(self.grid.parts):
            path = self.folder / part_name(part)
            if not path.exists():
                continue
            expected = len(self.grid.span(part))
            try:
                rows = pq.read_metadata(path).num_rows
            except (OSError, pa.ArrowException):
                rows = None
            if rows != expected:
                raise MathhammerError(f"{path} is not a whole part of this sweep ({expected} rows expected); remove "
                                      "it and run again with --resume")
            found.add(part)
        return found

    def write(self, part: int, data: bytes) -> None:
        write_new(self.folder, part_name(part), data)
