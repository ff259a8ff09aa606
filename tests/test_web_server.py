"""A real `mathhammer serve` against clients that hold a connection open: it is closed in bounded time."""

from __future__ import annotations

import socket
import time

from mathhammer_exact.web.app import BODY_TIME, KEEP_ALIVE

from .webserver import running_server


def until_closed(sock: socket.socket) -> bytes:
    """Everything the server sends until it closes the connection (the socket's timeout fails the test)."""
    data = b""
    while chunk := sock.recv(65536):
        data += chunk
    return data


def test_a_body_that_never_arrives_and_an_idle_connection_are_closed():
    with running_server() as url:
        port = int(url.rsplit(":", 1)[1])
        with socket.create_connection(("127.0.0.1", port), timeout=BODY_TIME + 10) as sock:
            start = time.monotonic()
            sock.sendall(b"POST /api/attack HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                         b"Content-Length: 100\r\n\r\n{")  # 1 of the 100 bytes announced, then nothing
            reply = until_closed(sock)
            assert BODY_TIME - 0.5 < time.monotonic() - start < BODY_TIME + 5
        assert reply.startswith(b"HTTP/1.1 408 ")
        assert reply.endswith(b'{"error":"the request body did not arrive within 5 s"}')
        with socket.create_connection(("127.0.0.1", port), timeout=KEEP_ALIVE + 10) as sock:
            sock.sendall(b"GET /api/catalogue HTTP/1.1\r\nHost: localhost\r\n\r\n")  # answered, then kept idle
            start = time.monotonic()
            assert until_closed(sock).startswith(b"HTTP/1.1 200 ")
            assert time.monotonic() - start < KEEP_ALIVE + 5
