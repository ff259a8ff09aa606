"""Running a sweep: hand out the parts still to do, a few per worker at a time (so memory stays
bounded whatever the sweep's size), write each part as it comes back, and report progress.

Ctrl-C stops handing out parts and leaves the parts already written, each whole; `--resume` then
carries on from them. The rows do not depend on the engine, the number of workers or the order in
which parts come back: part n holds queries n * chunk onwards, worked out the same way everywhere.
"""

from __future__ import annotations

import concurrent.futures as cf
import time
from collections.abc import Callable
from pathlib import Path

import attrs

from ..errors import MathhammerError
from .engines import Engine
from .parts import Output

IN_FLIGHT = 2  #: parts handed to each worker at a time: one being worked out, one waiting


@attrs.frozen
class Progress:
    """How far a sweep has come, for a progress bar."""

    done: int  #: queries in the parts written (those of earlier runs included)
    total: int
    computed: int  #: queries worked out in this run
    seconds: float

    @property
    def rate(self) -> float:
        """Queries per second in this run."""
        return self.computed / self.seconds if self.seconds > 0 else 0.0

    @property
    def left(self) -> float | None:
        """Seconds left at this run's rate (None before the first part is back)."""
        return (self.total - self.done) / self.rate if self.rate else None


@attrs.frozen
class Finished:
    folder: Path
    queries: int
    parts: int
    skipped: int  #: parts already written by an earlier run
    seconds: float
    engine: str


def run(output: Output, engine: Engine, report: Callable[[Progress], None] | None = None) -> Finished:
    """Work out every part of the output's grid not yet in its folder on `engine` (closed afterwards)."""
    start = time.perf_counter()
    grid, folder = output.grid, output.folder
    try:
        output.begin()
        skipped = output.done()
        todo = [part for part in range(grid.parts) if part not in skipped]
        done = sum(len(grid.span(p)) for p in skipped)
        computed = 0
        pending: dict[cf.Future[bytes], int] = {}
        try:
            while todo or pending:
                while todo and len(pending) < IN_FLIGHT * engine.workers:
                    part = todo.pop(0)
                    pending[engine.submit(part)] = part
                finished, _ = cf.wait(pending, return_when=cf.FIRST_COMPLETED)
                for future in sorted(finished, key=pending.__getitem__):
                    part = pending.pop(future)
                    output.write(part, future.result())
                    done += len(grid.span(part))
                    computed += len(grid.span(part))
                    if report is not None:
                        report(Progress(done, grid.size, computed, time.perf_counter() - start))
        except cf.BrokenExecutor:
            raise MathhammerError(f"a worker process stopped (out of memory?); the {len(output.done())} parts written "
                                  f"to {folder} are kept: --resume carries on") from None
        except KeyboardInterrupt:
            for future in pending:
                future.cancel()
            written = len(output.done())
            raise MathhammerError(f"interrupted: {written} of {grid.parts} parts are written to {folder}, each whole; "
                                  "run the same command with --resume to carry on") from None
    finally:
        engine.close()
    return Finished(folder, grid.size, grid.parts, len(skipped), time.perf_counter() - start, engine.label)
