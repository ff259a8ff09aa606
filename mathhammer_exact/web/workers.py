"""Worker processes that compute answers, each under a time limit and a memory limit.

A query runs in a worker process, not in the server: one that runs past the time limit is
killed (a thread could not be) and replaced, so a hostile or simply huge query costs at most
the limit and never slows the next one. The memory limit turns a query that would exhaust the
machine into a one-line refusal. Each worker is a fresh Python process (`python -m
-B mathhammer_exact.web.workers`) talking over a socket pair: nothing is forked from the
threaded server, and nothing depends on how the server itself was started.
"""

from __future__ import annotations

import asyncio
import resource
import socket
import subprocess
import sys
import traceback
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any

from ..errors import MathhammerError

STARTUP = 60.0  #: seconds a new worker may take to load the engine


class Refused(Exception):
    """A query the server will not finish: too slow, too big, or the server is busy. `status` is the HTTP status."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


def _work(conn: Connection, memory: int) -> None:
    """A worker's life: say it is ready, then receive (function, argument) and send back ("ok", text),
    ("error", message), ("memory", "") or, for a fault in the program, ("fault", what) with the
    traceback on stderr for whoever runs the server."""
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    conn.send(("ready", ""))
    while True:
        try:
            function, argument = conn.recv()
        except EOFError:  # the server closed the pipe: stop
            return
        try:
            reply = ("ok", function(argument))
        except MathhammerError as exc:
            reply = ("error", str(exc))
        except MemoryError:
            reply = ("memory", "")
        except Exception as exc:  # a bug, not the user's fault: report it and keep serving
            traceback.print_exc()
            reply = ("fault", f"{type(exc).__name__}: {exc}")
        conn.send(reply)


class Worker:
    """One worker process and the pipe to it. A new worker loads the engine before it says it is
    ready; that time is not counted against the first question it gets."""

    def __init__(self, memory: int) -> None:
        self.memory = memory
        self.start()

    def start(self) -> None:
        ours, theirs = socket.socketpair()
        self.process = subprocess.Popen(
            [sys.executable, "-B", "-m", __name__, str(theirs.fileno()), str(self.memory)],  # -B: no .pyc written
            pass_fds=[theirs.fileno()], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
        theirs.close()
        self.conn = Connection(ours.detach())
        self.ready = False

    def wait_ready(self, conn: Connection) -> None:
        if not self.ready:
            if not conn.poll(STARTUP) or conn.recv() != ("ready", ""):
                raise OSError("the worker did not start")
            self.ready = True

    def stop(self) -> None:
        self.conn.close()
        self.process.kill()
        self.process.wait()

    def restart(self) -> None:
        self.stop()
        self.start()

    def call(self, job: tuple[Callable[[Any], str], Any], seconds: float) -> tuple[str, str]:
        """Send a job and wait at most `seconds` for its reply (blocking: run it in a thread)."""
        conn = self.conn  # a restart from another thread replaces self.conn; this call keeps its own pipe
        self.wait_ready(conn)
        conn.send(job)
        if not conn.poll(seconds):
            raise TimeoutError
        reply: tuple[str, str] = conn.recv()
        return reply


class Workers:
    """A fixed number of workers; `run` answers a job on the first one free, within `seconds`."""

    def __init__(self, count: int, seconds: float, memory: int) -> None:
        self.count, self.seconds, self.memory = count, seconds, memory
        self._idle: asyncio.Queue[Worker] = asyncio.Queue()
        self._all: list[Worker] = []

    def start(self) -> None:
        """Start the workers and wait until each is ready (at server start-up, before any question)."""
        self._all = [Worker(self.memory) for _ in range(self.count)]
        for worker in self._all:
            worker.wait_ready(worker.conn)
            self._idle.put_nowait(worker)

    def close(self) -> None:
        for worker in self._all:
            worker.stop()
        self._all.clear()

    async def run(self, function: Callable[[Any], str], argument: Any) -> str:
        """`function(argument)` in a worker: its text, or `MathhammerError`, or `Refused`."""
        try:
            worker = await asyncio.wait_for(self._idle.get(), self.seconds)
        except TimeoutError:
            raise Refused(f"the server is busy: no worker was free within {self.seconds:g} s; try again", 503) \
                from None
        try:
            status, value = await asyncio.to_thread(worker.call, (function, argument), self.seconds)
        except TimeoutError:
            worker.restart()
            raise Refused(f"the query took longer than this server's limit of {self.seconds:g} s per request; "
                          "ask a smaller one", 422) from None
        except (EOFError, OSError):
            worker.restart()
            raise Refused("the worker computing this query failed; try again", 500) from None
        except asyncio.CancelledError:  # the client went away mid-query: the worker is still busy with it
            worker.restart()
            raise
        finally:
            self._idle.put_nowait(worker)
        if status == "error":
            raise MathhammerError(value)
        if status == "fault":
            raise Refused(f"the program failed on this question ({value}); please report it", 500)
        if status == "memory":
            raise Refused(f"the query needs more than this server's {self.memory // 2**20} MiB of memory "
                          "per request; ask a smaller one", 422)
        return value


if __name__ == "__main__":  # a worker: python -m mathhammer_exact.web.workers FD MEMORY
    import signal

    from . import answers  # noqa: F401  (loads the engine before the first job, not during it)

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C stops the server, which then stops its workers

    _work(Connection(int(sys.argv[1])), int(sys.argv[2]))
