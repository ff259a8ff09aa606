"""`mathhammer sweep`: every query of a grid (a TOML spec) into a folder of Parquet parts."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from ..errors import MathhammerError
from .command import Command


def _duration(seconds: float) -> str:
    """1.5 s, 12:05 (minutes and seconds) or 2:03:10."""
    if seconds < 60:
        return f"{seconds:.1f} s"
    hours, rest = divmod(round(seconds), 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}" if hours else f"{rest // 60}:{rest % 60:02d}"


@click.command(cls=Command)
@click.argument("spec", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--out", type=click.Path(path_type=Path), help="The folder of Parquet parts to write, RESULTS.parquet.")
@click.option("--resume", is_flag=True, help="Carry on a sweep written to --out before: finished parts are skipped.")
@click.option("--workers", type=int, help="Worker processes (default: one per core); 0 works in this process.")
@click.option("--dask", metavar="local|ADDRESS",
              help="Run on Dask: 'local' starts a LocalCluster of --workers processes here, or give a scheduler's "
                   "address (tcp://host:8786).")
@click.option("--scheduler", metavar="ADDRESS", help="The same as --dask ADDRESS.")
@click.option("--chunk", type=int, help="Queries per part (default: the spec's, else 2000).")
@click.option("--dry-run", is_flag=True, help="Print the number of queries and an estimated time; compute nothing.")
def sweep(spec: Path, out: Path | None, resume: bool, workers: int | None, dask: str | None, scheduler: str | None,
          chunk: int | None, dry_run: bool) -> None:
    """Work out every query of the grid SPEC describes (attackers x targets x phases x sizes x situations x
    rules printings), one row each, into --out: a folder of Parquet parts that pandas, pyarrow or Dask
    read as one table (see docs/sweeps.md). Needs the [scale] extra.

    The rows are the same, in the same order, whatever the engine and the number of workers. Ctrl-C
    leaves the parts written, each whole; --resume carries on."""
    from ..sweep.spec import read_spec

    if dask and scheduler:
        raise MathhammerError("--scheduler ADDRESS is the same as --dask ADDRESS: give one of them")
    grid = read_spec(spec, chunk).grid
    where = dask or scheduler
    if dry_run:
        from ..sweep.estimate import estimate

        found = estimate(grid)
        cores = workers if workers else (os.cpu_count() or 1)
        click.echo(f"{grid.size:,} queries in {grid.parts:,} part{'s' * (grid.parts != 1)} of up to {grid.chunk:,}")
        click.echo(f"estimated time: {_duration(found.seconds)} on one core, about {_duration(found.seconds / cores)} "
                   f"on {cores} (from the engine's cost estimate of {found.sampled:,} sampled queries)")
        return
    if out is None:
        raise MathhammerError("give --out RESULTS.parquet, the folder to write (or --dry-run)")
    try:
        from ..sweep.engines import engine
        from ..sweep.parts import Output
        from ..sweep.run import Progress, run
    except ImportError:
        raise MathhammerError("sweeps need the [scale] extra: pip install 'mathhammer_exact[scale]'") from None

    output = Output(out, grid, resume)

    def bar(progress: Progress) -> None:
        width = 30
        filled = int(width * progress.done / progress.total)
        left = f"{_duration(progress.left)} left" if progress.left is not None else ""
        click.echo(f"\r[{'#' * filled}{'.' * (width - filled)}] {progress.done:,}/{progress.total:,} queries  "
                   f"{progress.rate:,.0f}/s  {left}   ", nl=False, err=True)

    shown = sys.stderr.isatty()
    finished = run(output, engine(grid, workers, where), bar if shown else None)
    if shown:
        click.echo(err=True)
    again = f" ({finished.skipped} of them from before)" if finished.skipped else ""
    click.echo(f"{finished.queries:,} queries in {finished.parts:,} part{'s' * (finished.parts != 1)}{again}: "
               f"{finished.folder} ({_duration(finished.seconds)}, {finished.engine})")
