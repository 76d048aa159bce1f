"""No network during a replay: ``block_network()`` makes every TCP or UDP connect raise.

Errors::

    RuntimeError
     └── NetworkBlocked   something tried to open a connection during a replay
"""

from __future__ import annotations

import socket
from contextlib import contextmanager
from typing import Any, Collection, Iterator

from harness.wire.errors import HarnessError


class NetworkBlocked(HarnessError, RuntimeError):
    """A connection attempted while the network is blocked."""


@contextmanager
def block_network(allowed: Collection[tuple[str, int]] = ()) -> Iterator[list[Any]]:
    """While active, any TCP/UDP connect raises NetworkBlocked, but to an address in
    ``allowed`` (host, port: a replay's own loopback server; read at each connect); yields
    the list of addresses that were attempted (Unix sockets stay allowed)."""
    attempts: list[Any] = []
    real_connect, real_connect_ex = socket.socket.connect, socket.socket.connect_ex

    def refuse(sock: socket.socket, address: Any) -> None:
        if sock.family in (socket.AF_INET, socket.AF_INET6) and tuple(address[:2]) not in allowed:
            attempts.append(address)
            raise NetworkBlocked(f"network access is blocked during replay (connect to {address})")

    def connect(sock: socket.socket, address: Any) -> None:
        refuse(sock, address)
        return real_connect(sock, address)

    def connect_ex(sock: socket.socket, address: Any) -> int:
        refuse(sock, address)
        return real_connect_ex(sock, address)

    socket.socket.connect, socket.socket.connect_ex = connect, connect_ex  # type: ignore[method-assign]
    try:
        yield attempts
    finally:
        socket.socket.connect, socket.socket.connect_ex = real_connect, real_connect_ex  # type: ignore[method-assign]
