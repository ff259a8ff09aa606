"""A real `mathhammer serve` on a free loopback port, for the browser and documentation tests."""

from __future__ import annotations

import contextlib
import json
import os
import re
import select
import signal
import socket
import subprocess
import sys
import tempfile
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

import pytest

pytest.importorskip("fastapi", reason="the server needs the [web] extra")
pytest.importorskip("uvicorn", reason="the server needs the [web] extra")


def children(pid: int) -> set[int]:
    """Processes whose parent is `pid` (Linux /proc)."""
    found = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, IndexError, ValueError):
            if int(stat.read_text().rsplit(")", 1)[1].split()[1]) == pid:
                found.add(int(stat.parent.name))
    return found


def alive(pid: int) -> bool:
    return Path(f"/proc/{pid}").exists()


def cpu_seconds(pid: int) -> float:
    """CPU time a process has used (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def state(pid: int) -> str:
    """A process's state letter (R running, S sleeping, T stopped, ...), or "" once it is gone."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return ""


class Served(NamedTuple):
    """A running server: its base URL and port, and the process id."""

    url: str
    port: int
    pid: int

    def workers(self, lane: str) -> set[int]:
        """The server's worker processes of one lane (light or heavy)."""
        return {pid for pid in children(self.pid)
                if Path(f"/proc/{pid}/cmdline").read_bytes().rstrip(b"\0").endswith(lane.encode())}


def listening(port: int) -> bool:
    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) == 0


@contextlib.contextmanager
def running_server(*options: str) -> Iterator[str]:
    """`served` for a test that needs only the server's base URL."""
    with served(*options) as server:
        yield server.url


@contextlib.contextmanager
def served(*options: str) -> Iterator[Served]:
    """`mathhammer serve --port 0` (any free loopback port), run in an empty folder, until the block
    ends. On leaving, the server must stop cleanly on SIGTERM, its worker
    processes with it, leave nothing listening on the port and no file in its folder."""
    folder = tempfile.TemporaryDirectory()  # the server's working folder, which must stay empty
    root = Path(__file__).resolve().parent.parent
    server = subprocess.Popen([sys.executable, "-m", "mathhammer_exact", "serve", "--port", "0", *options],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, cwd=folder.name,
                              env={**os.environ, "PYTHONPATH": os.pathsep.join(
                                  filter(None, [str(root), os.environ.get("PYTHONPATH")]))})
    assert server.stderr is not None
    workers: set[int] = set()
    port = 0
    try:
        ready, _, _ = select.select([server.stderr], [], [], 60)
        first = server.stderr.readline() if ready else ""
        found = re.match(r"mathhammer: serving (http://127\.0\.0\.1:(\d+))/", first)
        if not found:
            raise RuntimeError(f"the server did not start: {first}")
        url, port = found.group(1), int(found.group(2))
        with urllib.request.urlopen(f"{url}/openapi.json", timeout=30) as response:
            json.load(response)
        workers = children(server.pid)
        yield Served(url, port, server.pid)
    finally:
        workers |= children(server.pid)  # with any that replaced a worker lost on the way
        server.send_signal(signal.SIGTERM)
        try:
            output = server.communicate(timeout=20)[1]
        except subprocess.TimeoutExpired:
            server.kill()
            output = server.communicate()[1]
            raise AssertionError(f"the server did not stop within 20 s: {output}") from None
    # uvicorn shuts down (lifespan included), then re-raises the signal so the exit status says how it ended
    assert server.returncode in (0, -signal.SIGTERM) and "Traceback" not in output, output
    assert not listening(port), f"port {port} still listening after the server stopped"
    assert workers and not any(alive(pid) for pid in workers), "worker processes outlived the server"
    with folder:
        assert not any(Path(folder.name).iterdir()), "the server wrote a file"
