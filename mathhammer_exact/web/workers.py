"""Worker processes that compute answers, in two lanes, each worker under a time and a memory limit.

A query runs in a worker process, not in the server: one that runs past the time limit is killed
(a thread could not be) and replaced, so a hostile or simply huge query costs at most the limit
and never slows the next one. The memory limit turns a query that would exhaust the machine into
a one-line refusal. Each worker is a fresh Python process (`python -B -m mathhammer_exact.web.workers`)
talking over a socket pair: nothing is forked from the server, nothing depends on how it was started.

Light questions never queue behind heavy ones. Every question goes first to the light lane, whose
workers answer only what fits in `LIGHT_SHARE` of the engine's work limits, its queries together
(`engine.limits.share`), and within `LIGHT_TIME`: a dice test, a unit's shooting. A larger question (a plan's
thousands of small queries as much as one large one) is handed back as soon as the engine's cost estimate
finds it so, before that query's work is done, and goes to the heavy lane.
Heavy workers run at a lower CPU priority, so that the light lane and the server itself stay quick
while they compute.

A question's time limit counts the CPU time its worker spends on it, so that a question is not refused as too
slow for the time other questions took: one that computes past its limit is refused as too large, one that waits
for the CPU past `WAIT_FACTOR` times it is told the server is busy (503). A worker that dies or stalls mid-question
(it gains no CPU time for `STALL_TIME`, or is stopped) is replaced and the question asked once more; only if that
fails too is the answer 503, busy.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import pickle
import resource
import socket
import subprocess
import sys
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..engine import limits
from ..errors import MathhammerError

STARTUP = 60.0  #: seconds a new worker may take to load the engine
LIGHT_WORKERS = 1  #: workers of the light lane
LIGHT_SHARE = 0.01  #: the part of the engine's work limits a light question may need (tens of ms)
LIGHT_TIME = 1.0  #: seconds a light worker may compute; past them the question goes to the heavy lane
HEAVY_NICE = 10  #: how much lower the CPU priority of a heavy worker is (`os.nice`)
STALL_TIME = 1.0  #: seconds without CPU time that show a worker computing a question has stalled
WAIT_FACTOR = 3  #: a question's time limit counts its worker's CPU time; its wall time may be this many times that
TICK = 0.1  #: seconds between looks at a worker computing a question
BUSY = "the server is busy; try again"


class Refused(Exception):
    """A query the server will not finish: too slow, too big, or the server is busy. `status` is the HTTP status."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


class Lost(Exception):
    """The worker computing a question died or stalled: not the question's fault."""


class Crowded(Exception):
    """The worker computing a question got too little of the CPU to finish it in time (other questions had it):
    not the question's fault."""


# --------------------------------------------------------------------- messages over the socket pair
def _frame(message: object) -> bytes:
    data = pickle.dumps(message)
    return len(data).to_bytes(8, "big") + data


def _send(sock: socket.socket, message: object) -> None:
    sock.sendall(_frame(message))


def _receive(sock: socket.socket) -> Any:
    def exactly(size: int) -> bytes:
        data = b""
        while len(data) < size:
            chunk = sock.recv(size - len(data))
            if not chunk:
                raise EOFError
            data += chunk
        return data

    return pickle.loads(exactly(int.from_bytes(exactly(8), "big")))


# --------------------------------------------------------------------- the worker process
def _work(sock: socket.socket, memory: int, light: bool) -> None:
    """A worker's life: say it is ready, then receive (function, argument) and send back ("ok", text),
    ("error", message), ("memory", ""), for a fault in the program ("fault", what) with the traceback
    on stderr for whoever runs the server, or, in the light lane, ("heavy", "") for a question too
    large for it."""
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    _send(sock, ("ready", ""))
    while True:
        try:
            function, argument = _receive(sock)
        except EOFError:  # the server closed its end: stop
            return
        try:
            with limits.share(LIGHT_SHARE if light else 1.0):
                reply = ("ok", function(argument))
        except limits.TooLarge as exc:
            reply = ("heavy", "") if light else ("error", str(exc))
        except MathhammerError as exc:
            reply = ("error", str(exc))
        except MemoryError:
            reply = ("memory", "")
        except Exception as exc:  # a bug, not the user's fault: report it and keep serving
            traceback.print_exc()
            reply = ("fault", f"{type(exc).__name__}: {exc}")
        _send(sock, reply)


# --------------------------------------------------------------------- the server's side
def _progress(pid: int) -> tuple[str, float] | None:
    """A process's state letter and the CPU seconds it has used (Linux /proc), or None where unknown."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return fields[0], (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return None


class Worker:
    """One worker process and the socket to it. It loads the engine as soon as it starts; the first
    question it is asked waits for that, and the time is not counted against the question."""

    def __init__(self, memory: int, light: bool) -> None:
        ours, theirs = socket.socketpair()
        self.process = subprocess.Popen(  # -B: no .pyc written
            [sys.executable, "-B", "-m", __name__, str(theirs.fileno()), str(memory), "light" if light else "heavy"],
            pass_fds=[theirs.fileno()], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
        theirs.close()
        self.sock = ours
        self.writer: asyncio.StreamWriter | None = None
        self.started = asyncio.ensure_future(self._start())
        self.started.add_done_callback(lambda task: task.cancelled() or task.exception())  # seen, if not asked

    async def _start(self) -> None:
        self.reader, self.writer = await asyncio.open_connection(sock=self.sock)
        try:
            said = await asyncio.wait_for(self._reply(), STARTUP)
        except (TimeoutError, Lost):
            said = None
        if said != ("ready", ""):
            raise OSError("a worker process did not start")

    async def _reply(self) -> Any:
        try:
            size = int.from_bytes(await self.reader.readexactly(8), "big")
            return pickle.loads(await self.reader.readexactly(size))
        except (asyncio.IncompleteReadError, ConnectionError) as exc:
            raise Lost from exc

    async def ask(self, job: tuple[Callable[[Any], str], Any], seconds: float) -> tuple[str, str]:
        """Send a job and await its reply. `TimeoutError` when the worker has computed past `seconds`, counted in CPU
        time and in time passed both (the less of the two: wall time where CPU time cannot be read); `Crowded` when
        WAIT_FACTOR times `seconds` have passed before that;
        `Lost` when it did not start, dies, is stopped, or gains no CPU time for `STALL_TIME`."""
        try:
            await asyncio.shield(self.started)
        except OSError as exc:
            raise Lost from exc
        assert self.writer is not None
        before = _progress(self.process.pid)
        try:
            self.writer.write(_frame(job))
            await self.writer.drain()
        except ConnectionError as exc:
            raise Lost from exc
        loop = asyncio.get_running_loop()
        reply = asyncio.ensure_future(self._reply())
        start = loop.time()
        used, since = -1.0, start
        try:
            while not (await asyncio.wait({reply}, timeout=TICK))[0]:
                now, seen = loop.time(), _progress(self.process.pid)
                computed = now - start
                if seen is not None:
                    state, cpu = seen
                    if state in "TtZX":  # stopped, or dead
                        raise Lost
                    if cpu > used:
                        used, since = cpu, now
                    elif now - since > STALL_TIME:
                        raise Lost
                    # the CPU time it got, where it waited for the CPU; the time passed, where it computed on
                    # several cores at once (BLAS): at most its limit of either
                    computed = min(cpu - before[1], computed) if before is not None else computed
                if computed > seconds:
                    raise TimeoutError
                if now - start > WAIT_FACTOR * seconds:
                    raise Crowded
            status, text = reply.result()
            return status, text
        finally:
            reply.cancel()

    def stop(self) -> None:
        self.started.cancel()
        if self.writer is not None:
            self.writer.close()
        self.sock.close()
        self.process.kill()
        self.process.wait()


class Lane:
    """Worker processes of one kind and the queue of those free; a worker that is stopped is replaced
    at once (its replacement joins the queue while it starts)."""

    def __init__(self, count: int, memory: int, light: bool) -> None:
        self.count, self.memory, self.light = count, memory, light
        self._idle: asyncio.Queue[Worker] = asyncio.Queue()
        self._all: set[Worker] = set()

    async def start(self) -> None:
        """Start the workers and wait until each is ready (at server start-up, before any question)."""
        await asyncio.gather(*(self._add().started for _ in range(self.count)))

    def _add(self) -> Worker:
        worker = Worker(self.memory, self.light)
        self._all.add(worker)
        self._idle.put_nowait(worker)
        return worker

    async def take(self, wait: float) -> Worker:
        """A free worker, waiting at most `wait` seconds for one (else 503, busy)."""
        try:
            return await asyncio.wait_for(self._idle.get(), wait)
        except TimeoutError:
            raise Refused(f"the server is busy: no worker was free within {wait:g} s; try again", 503) from None

    def give_back(self, worker: Worker) -> None:
        self._idle.put_nowait(worker)

    def replace(self, worker: Worker) -> None:
        """Stop `worker` (it may be computing a question) and start another in its place."""
        self._all.discard(worker)
        worker.stop()
        self._add()

    def close(self) -> None:
        for worker in self._all:
            worker.stop()
        self._all.clear()


class Workers:
    """The light lane (`light` workers) and the heavy lane (`count` workers); `run` answers a job
    within `seconds` of computing."""

    def __init__(self, count: int, seconds: float, memory: int, light: int = LIGHT_WORKERS) -> None:
        self.seconds, self.memory = seconds, memory
        self.light, self.heavy = Lane(light, memory, light=True), Lane(count, memory, light=False)

    async def start(self) -> None:
        """Start every worker and wait until each is ready."""
        try:
            await asyncio.gather(self.light.start(), self.heavy.start())
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        self.light.close()
        self.heavy.close()

    async def run(self, function: Callable[[Any], str], argument: Any) -> str:
        """`function(argument)` in a worker: its text, or `MathhammerError`, or `Refused`."""
        job = (function, argument)
        status, value = await self._ask(self.light, job, min(LIGHT_TIME, self.seconds))
        if status == "heavy":
            status, value = await self._ask(self.heavy, job, self.seconds)
        if status == "error":
            raise MathhammerError(value)
        if status == "fault":
            raise Refused(f"the program failed on this question ({value}); please report it", 500)
        if status == "memory":
            raise Refused(f"the query needs more than this server's {self.memory // 2**20} MiB of memory "
                          "per request; ask a smaller one", 422)
        return value

    async def _ask(self, lane: Lane, job: tuple[Callable[[Any], str], Any], seconds: float,
                   again: bool = True) -> tuple[str, str]:
        """The reply of a worker of `lane`; a worker lost on the way is replaced and the job asked `again` once."""
        worker = await lane.take(self.seconds)
        try:
            reply = await worker.ask(job, seconds)
        except Lost:
            lane.replace(worker)
            if again:
                return await self._ask(lane, job, seconds, again=False)
            raise Refused(BUSY, 503) from None
        except Crowded:
            lane.replace(worker)
            if lane is self.light:  # the heavy lane answers it
                return "heavy", ""
            raise Refused(BUSY, 503) from None
        except TimeoutError:
            lane.replace(worker)
            if lane is self.light:  # it takes longer than its estimate said: the heavy lane answers it
                return "heavy", ""
            raise Refused(f"the query took longer than this server's limit of {seconds:g} s per request; "
                          "ask a smaller one", 422) from None
        except asyncio.CancelledError:  # the client went away mid-query: the worker is still busy with it
            lane.replace(worker)
            raise
        lane.give_back(worker)
        return reply


if __name__ == "__main__":  # a worker: python -m mathhammer_exact.web.workers FD MEMORY light|heavy
    import signal

    from ..data import load
    from . import answers  # noqa: F401  (loads the engine before the first job, not during it)

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C stops the server, which then stops its workers
    if sys.argv[3] == "heavy":
        os.nice(HEAVY_NICE)
    with contextlib.suppress(MathhammerError):  # the rules data too; a problem in it is each question's answer
        load.library()
    _work(socket.socket(fileno=int(sys.argv[1])), int(sys.argv[2]), sys.argv[3] == "light")
