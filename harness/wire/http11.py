"""HTTP/1.1 on a raw socket, the little the fault server needs: read a request
(keep-alive, chunked uploads, ``Expect: 100-continue``), and close with FIN or RST."""

from __future__ import annotations

import socket
import struct
from dataclasses import dataclass
from typing import Mapping
from urllib.parse import urlsplit

MAX_LINE = 65_536
MAX_HEADERS = 200
MAX_BODY = 64 * 1024 * 1024


class BadRequest(Exception):
    """The bytes received are not an HTTP/1.1 request we can read."""


@dataclass
class Request:
    method: str
    target: str
    version: str
    headers: dict[str, str]
    body: bytes
    peer: str

    @property
    def path(self) -> str:
        return urlsplit(self.target).path

    @property
    def keep_alive(self) -> bool:
        tokens = {t.strip().lower() for t in self.headers.get("connection", "").split(",")}
        return "keep-alive" in tokens if self.version == "HTTP/1.0" else "close" not in tokens


class Connection:
    """A socket with a read buffer (no ``makefile``: it would delay a reset's close)."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.buffer = bytearray()
        host, port = sock.getpeername()[:2]
        self.peer = f"{host}:{port}"

    def _fill(self) -> bool:
        data = self.sock.recv(65_536)
        self.buffer += data
        return bool(data)

    def readline(self) -> bytes:
        while (end := self.buffer.find(b"\n")) < 0:
            if len(self.buffer) > MAX_LINE:
                raise BadRequest("request line or header too long")
            if not self._fill():
                line, self.buffer = bytes(self.buffer), bytearray()
                return line
        line, self.buffer = bytes(self.buffer[: end + 1]), self.buffer[end + 1 :]
        return line

    def read(self, size: int) -> bytes:
        while len(self.buffer) < size:
            if not self._fill():
                raise BadRequest(f"body ended after {len(self.buffer)} of {size} bytes")
        data, self.buffer = bytes(self.buffer[:size]), self.buffer[size:]
        return data


def read_request(conn: Connection) -> Request | None:
    """The next request on ``conn``, or None when the client closed the connection."""
    line = conn.readline()
    while line in (b"\r\n", b"\n"):  # stray blank lines between requests are allowed
        line = conn.readline()
    if not line:
        return None
    parts = line.decode("latin-1").split()
    if len(parts) != 3 or not parts[2].startswith("HTTP/1."):
        raise BadRequest(f"not an HTTP/1.x request line: {line[:80]!r}")
    headers: dict[str, str] = {}
    for _ in range(MAX_HEADERS + 1):
        raw = conn.readline()
        if raw in (b"\r\n", b"\n"):
            break
        name, colon, value = raw.decode("latin-1").partition(":")
        if not colon or not raw.endswith(b"\n"):
            raise BadRequest(f"malformed header line: {raw[:80]!r}")
        key = name.strip().lower()
        headers[key] = f"{headers[key]}, {value.strip()}" if key in headers else value.strip()
    else:
        raise BadRequest(f"more than {MAX_HEADERS} headers")
    if headers.get("expect", "").lower() == "100-continue":
        conn.sock.sendall(b"HTTP/1.1 100 Continue\r\n\r\n")
    return Request(parts[0].upper(), parts[1], parts[2], headers, read_body(conn, headers), conn.peer)


def read_body(conn: Connection, headers: Mapping[str, str]) -> bytes:
    if "chunked" in headers.get("transfer-encoding", "").lower():
        body = bytearray()
        while size := chunk_size(conn.readline()):
            body += conn.read(size)
            conn.read(2)
            if len(body) > MAX_BODY:
                raise BadRequest(f"body over {MAX_BODY} bytes")
        while conn.readline() not in (b"\r\n", b"\n", b""):  # trailers
            pass
        return bytes(body)
    try:
        length = int(headers.get("content-length", "0"))
    except ValueError:
        raise BadRequest("content-length is not a number") from None
    if not 0 <= length <= MAX_BODY:
        raise BadRequest(f"content-length {length} out of range")
    return conn.read(length)


def chunk_size(line: bytes) -> int:
    try:
        return int(line.split(b";")[0].strip(), 16)
    except ValueError:
        raise BadRequest(f"bad chunk size line: {line[:40]!r}") from None


def reset(sock: socket.socket) -> None:
    """Close with RST: SO_LINGER on, timeout 0."""
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    sock.close()


def finish(sock: socket.socket) -> None:
    """Close cleanly with FIN."""
    try:
        sock.shutdown(socket.SHUT_WR)
    except OSError:
        pass
    sock.close()
