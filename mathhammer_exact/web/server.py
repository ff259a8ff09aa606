"""Serving the application with uvicorn: the listening socket and the time a request's headers may take.

Two things uvicorn leaves to whoever gives it a socket, done here:
- TCP_NODELAY on every connection. asyncio sets it on accepted connections only when the listening
  socket says it is TCP (`proto` IPPROTO_TCP, as `getaddrinfo` gives it; `socket.create_server`
  leaves it 0). Without it an answer written as headers then body waits for the client's delayed
  ACK (Nagle's algorithm): about 40 ms per request on a kept-alive connection, as every browser keeps.
- A deadline for a request's headers. uvicorn's keep-alive timer stops at a request's first byte,
  so a client that sends part of its headers and then nothing would hold the connection for ever.
"""

from __future__ import annotations

import asyncio
import socket

import h11
import uvicorn
from fastapi import FastAPI
from uvicorn.protocols.http.h11_impl import H11Protocol

from ..errors import MathhammerError
from .app import KEEP_ALIVE

HEAD_TIME = 5.0  #: seconds a request's headers may take to arrive, from the connection opening or the last answer


def listen(host: str, port: int) -> socket.socket:
    """A listening TCP socket on host:port (port 0: any free port), or a one-line error."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM,
                                                             flags=socket.AI_PASSIVE)[0]
        sock = socket.socket(family, kind, proto)
    except OSError as exc:
        raise MathhammerError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(128)
    except OSError as exc:
        sock.close()
        raise MathhammerError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    return sock


class Protocol(H11Protocol):
    """uvicorn's HTTP/1.1 protocol, closing a connection whose next request's headers have not all
    arrived within `HEAD_TIME` of the connection opening or of the last answer."""

    _head_deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._await_head()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._await_head()

    def connection_lost(self, exc: Exception | None) -> None:
        if self._head_deadline is not None:
            self._head_deadline.cancel()
        super().connection_lost(exc)

    def _await_head(self) -> None:
        if self._head_deadline is not None:
            self._head_deadline.cancel()
        self._head_deadline = self.loop.call_later(HEAD_TIME, self._head_late)

    def _head_late(self) -> None:
        if self.conn.their_state is h11.IDLE:  # no request whose headers are complete since the deadline was set
            self.timeout_keep_alive_handler()  # uvicorn's own way of closing an idle connection


def run(app: FastAPI, sock: socket.socket) -> None:
    """Answer on `sock` until Ctrl-C or SIGTERM."""
    config = uvicorn.Config(app, http=Protocol, log_level="warning", timeout_keep_alive=KEEP_ALIVE)
    uvicorn.Server(config).run(sockets=[sock])
