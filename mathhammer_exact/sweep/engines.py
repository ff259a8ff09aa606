"""Where a sweep's parts are worked out: in this process, on a local process pool (the default), or
on a Dask distributed cluster (a scheduler's address, or a `LocalCluster` started here).

Every engine is a `concurrent.futures.Executor` (Dask's through `Client.get_executor`), handed the
grid once (a pool's initializer, Dask's `scatter`) and then one part number per task: thousands of
queries a task, as Dask's guidance for millions of tiny tasks asks, and never a copy of the grid
per task. Each task returns its part's Parquet bytes; the driver writes them.
"""

from __future__ import annotations

import concurrent.futures as cf
import multiprocessing
import os
import signal
from typing import Any

import pyarrow as pa

from ..errors import MathhammerError
from .parts import part_bytes
from .queries import Grid


def _done(value: bytes) -> cf.Future[bytes]:
    future: cf.Future[bytes] = cf.Future()
    future.set_result(value)
    return future


class InProcess:
    """Each part worked out in this process when it is asked for (tests, debugging, one core)."""

    workers = 1
    label = "in this process"

    def __init__(self, grid: Grid):
        self.grid = grid

    def submit(self, part: int) -> cf.Future[bytes]:
        return _done(part_bytes(self.grid, part))

    def close(self) -> None:
        pass


_WORKER_GRID: Grid | None = None  #: the grid a pool worker was given when it started


def _install(grid: Grid) -> None:
    """A pool worker's start: keep the grid, and leave Ctrl-C to the driver (which stops handing out
    parts; a part under way is finished and dropped)."""
    global _WORKER_GRID
    _WORKER_GRID = grid
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    pa.array([0])  # pyarrow's own imports (about a second) now, not in the first part


def _installed_part(part: int) -> bytes:
    assert _WORKER_GRID is not None
    return part_bytes(_WORKER_GRID, part)


class LocalPool:
    """A pool of `workers` processes on this machine (started fresh, not forked from the driver)."""

    def __init__(self, grid: Grid, workers: int):
        self.workers = workers
        self.label = f"{workers} local process{'es' * (workers != 1)}"
        self.pool = cf.ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"),
                                           initializer=_install, initargs=(grid,))

    def submit(self, part: int) -> cf.Future[bytes]:
        return self.pool.submit(_installed_part, part)

    def close(self) -> None:
        self.pool.shutdown(wait=False, cancel_futures=True)


def _distributed() -> Any:
    try:
        import distributed
    except ImportError:
        raise MathhammerError("Dask needs the [scale] extra: pip install 'mathhammer_exact[scale]'") from None
    return distributed


class Dask:
    """A Dask distributed cluster: `where` is a scheduler's address (tcp://host:8786), or "local" for a
    `LocalCluster` of `workers` processes of one thread each, on this machine's loopback address only
    and without a dashboard."""

    def __init__(self, grid: Grid, where: str, workers: int):
        distributed = _distributed()
        self.cluster = None
        try:
            if where == "local":
                self.cluster = distributed.LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                                        host="127.0.0.1", dashboard_address=None)
                self.client = distributed.Client(self.cluster)
            else:
                self.client = distributed.Client(where, timeout="10s")
        except (OSError, TimeoutError, ValueError) as exc:
            self.close()
            raise MathhammerError(f"cannot reach the Dask scheduler at {where}: {exc}") from None
        self.workers = max(1, sum(self.client.nthreads().values()))
        processes = f", in {self.workers} local processes" if where == "local" else ""
        self.label = f"Dask at {self.client.scheduler.address} ({self.workers} worker threads{processes})"
        self.grid = self.client.scatter(grid, broadcast=True, hash=False)
        self.executor = self.client.get_executor()

    def submit(self, part: int) -> cf.Future[bytes]:
        future: cf.Future[bytes] = self.executor.submit(part_bytes, self.grid, part)
        return future

    def close(self) -> None:
        if getattr(self, "executor", None) is not None:
            self.executor.shutdown(wait=False)
        if getattr(self, "client", None) is not None:
            self.client.close()
        if self.cluster is not None:
            self.cluster.close()


Engine = InProcess | LocalPool | Dask


def engine(grid: Grid, workers: int | None = None, dask: str | None = None) -> Engine:
    """The engine the options name: Dask where `dask` is given (an address or "local"), else `workers`
    processes (default: one per core), or this process for 0."""
    if workers is not None and workers < 0:
        raise MathhammerError(f"--workers is 0 (this process) or more, got {workers}")
    count = workers if workers is not None else (os.cpu_count() or 1)
    if dask is not None:
        return Dask(grid, dask, max(count, 1))
    return InProcess(grid) if count == 0 else LocalPool(grid, count)
