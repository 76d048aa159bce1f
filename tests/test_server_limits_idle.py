"""The fault server at its limit on connections: hundreds of idle connections, or
slow-loris ones that trickle their headers in, do not keep a real client out. The
connection that has waited longest for a request of its own is closed to make room;
only when every connection is being answered is a newcomer refused.

All on loopback, a few hundred sockets at most; every wait is for an event (an answer,
an end of file) with a generous bound, never a measured time.
"""

from __future__ import annotations

import contextlib
import json
import socket
from collections.abc import Iterator

import pytest

from harness.scenario.fake_api.responder import Responder
from harness.serve.server import FaultServer
from harness.wire.replies import Reply

LIMIT = 32
CROWD = 200  # under the listen backlog, so every one of them connects
HI = json.dumps({"model": "m", "max_tokens": 9, "messages": [{"role": "user", "content": "hi"}]}).encode()
REQUEST = (b"POST /v1/messages HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\nconnection: close\r\n"
           b"content-length: %d\r\n\r\n" % len(HI) + HI)


@pytest.fixture
def server() -> Iterator[FaultServer]:
    with FaultServer(Responder([Reply(message={"text": "Hello."})] * 8), time_scale=0, max_connections=LIMIT) as running:
        yield running


@contextlib.contextmanager
def crowd(port: int, first: bytes = b"") -> Iterator[list[socket.socket]]:
    """``CROWD`` connections that send ``first`` (maybe nothing) and then nothing more."""
    sockets = []
    try:
        for _ in range(CROWD):
            sock = socket.create_connection(("127.0.0.1", port), timeout=30)
            if first:
                sock.sendall(first)
            sockets.append(sock)
        yield sockets
    finally:
        for sock in sockets:
            sock.close()


def answer(port: int) -> bytes:
    """A normal client's request, and everything the server sends back."""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall(REQUEST)
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
        return b"".join(chunks)


def closed_by_server(sock: socket.socket) -> bool:
    """Whether the server has closed this connection (an end of file, or a reset)."""
    try:
        return sock.recv(1) == b""
    except ConnectionResetError:
        return True


@pytest.mark.parametrize("first", [b"", b"POST /v1/messages HTTP/1.1\r\nhost: x\r\n"], ids=["idle", "slow-loris"])
def test_a_real_client_is_served_while_hundreds_of_connections_wait(server: FaultServer, first: bytes) -> None:
    with crowd(server.port, first) as sockets:
        reply = answer(server.port)
        assert reply.startswith(b"HTTP/1.1 200"), reply[:200]
        assert b"Hello." in reply
        # the oldest waiting connections made room, one for each connection over the limit
        assert server.evicted >= CROWD + 1 - LIMIT
        assert closed_by_server(sockets[0])


def test_a_newcomer_is_refused_only_when_every_connection_is_being_answered() -> None:
    with FaultServer(Responder([Reply(message={"text": "Hello."})] * 8), time_scale=0, max_connections=0) as running:
        with socket.create_connection(("127.0.0.1", running.port), timeout=30) as sock:
            reply = sock.recv(65536)  # refused as it is accepted, before it sends anything
    assert reply.startswith(b"HTTP/1.1 503") and b"too many connections" in reply
