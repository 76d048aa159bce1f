"""HTTP/1.1 on a raw socket, the little the fault server needs: read a request
(keep-alive, chunked uploads, ``Expect: 100-continue``) within limits, and close with
FIN or RST.

Every limit holds while reading, so no client can hold a thread or the memory for long:
the headers must be complete ``header_timeout`` seconds after a request's first byte (a
slowloris client is cut off), a body may pause at most ``body_timeout`` seconds, and it
may not grow past ``max_body`` bytes (a declared length or a chunk that would pass it is
refused before anything is read). A keep-alive connection with no request for
``idle_timeout`` seconds is closed, and one that reads no answer for ``send_timeout``
seconds too.

Errors::

    Exception
     └── BadRequest        the bytes are not a request we can read: answer 400
          ├── RequestTimeout   the headers or the body came too slowly: answer 408
          └── BodyTooLarge     the body is over ``max_body``: answer 413
"""

from __future__ import annotations

import socket
import struct
import time
from dataclasses import dataclass
from typing import Mapping
from urllib.parse import urlsplit

from harness.wire.errors import HarnessError

MAX_LINE = 65_536
MAX_HEADERS = 200
MAX_BODY = 32 * 1024 * 1024
"""The Messages API's request size limit (32 MB, the API's docs on request size limits)."""


@dataclass(frozen=True)
class Limits:
    """How long and how much a connection may take (see the module docstring)."""

    header_timeout: float = 10.0
    body_timeout: float = 60.0
    idle_timeout: float = 300.0
    send_timeout: float = 60.0
    max_body: int = MAX_BODY


class BadRequest(HarnessError):
    """The bytes received are not an HTTP/1.1 request we can read."""

    status = 400


class RequestTimeout(BadRequest):
    """The request's headers or body did not arrive in time."""

    status = 408


class BodyTooLarge(BadRequest):
    """The request's body is over the limit."""

    status = 413


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
    """A socket with a read buffer (no ``makefile``: it would delay a reset's close) and
    a deadline for what is being read."""

    def __init__(self, sock: socket.socket, limits: Limits = Limits()) -> None:
        self.sock = sock
        self.limits = limits
        self.buffer = bytearray()
        self.deadline: float | None = None
        self.waiting_for = "the request"
        host, port = sock.getpeername()[:2]
        self.peer = f"{host}:{port}"

    def _fill(self) -> bool:
        timeout = None if self.deadline is None else self.deadline - time.monotonic()
        if timeout is not None and timeout <= 0:
            raise RequestTimeout(f"{self.waiting_for} did not arrive in time")
        self.sock.settimeout(timeout)
        try:
            data = self.sock.recv(65_536)
        except socket.timeout:
            raise RequestTimeout(f"{self.waiting_for} did not arrive in time") from None
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
            self.deadline = time.monotonic() + self.limits.body_timeout  # a pause, not the whole body
            if not self._fill():
                raise BadRequest(f"body ended after {len(self.buffer)} of {size} bytes")
        data, self.buffer = bytes(self.buffer[:size]), self.buffer[size:]
        return data

    def wait_for_request(self) -> bool:
        """Wait up to the idle timeout for a request's first byte; False if none came."""
        if self.buffer:
            return True
        self.deadline, self.waiting_for = time.monotonic() + self.limits.idle_timeout, "the next request"
        try:
            return self._fill()
        except RequestTimeout:
            return False


def read_request(conn: Connection) -> Request | None:
    """The next request on ``conn``, or None when the client closed the connection (or
    sent nothing for the idle timeout)."""
    if not conn.wait_for_request():
        return None
    conn.deadline, conn.waiting_for = time.monotonic() + conn.limits.header_timeout, "the request headers"
    line = conn.readline()
    while line in (b"\r\n", b"\n"):  # stray blank lines between requests are allowed
        line = conn.readline()
    if not line:
        return None
    parts = line.decode("latin-1").split()
    if len(parts) != 3 or not parts[2].startswith("HTTP/1."):
        raise BadRequest(f"not an HTTP/1.x request line: {line[:80]!r}")
    try:
        urlsplit(parts[1])
    except ValueError as error:  # "Invalid IPv6 URL"
        raise BadRequest(f"request target {parts[1][:80]!r}: {error}") from None
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
    conn.waiting_for = "the request body"
    body = read_body(conn, headers)
    conn.deadline = None
    conn.sock.settimeout(conn.limits.send_timeout)  # for the answer
    return Request(parts[0].upper(), parts[1], parts[2], headers, body, conn.peer)


def read_body(conn: Connection, headers: Mapping[str, str]) -> bytes:
    limit = conn.limits.max_body
    if "chunked" in headers.get("transfer-encoding", "").lower():
        body = bytearray()
        while size := chunk_size(conn.readline()):
            if len(body) + size > limit:
                raise BodyTooLarge(f"body over {limit} bytes")
            body += conn.read(size)
            conn.read(2)
        while conn.readline() not in (b"\r\n", b"\n", b""):  # trailers
            pass
        return bytes(body)
    try:
        length = int(headers.get("content-length", "0"))
    except ValueError:
        raise BadRequest("content-length is not a number") from None
    if length < 0:
        raise BadRequest(f"content-length {length} out of range")
    if length > limit:
        raise BodyTooLarge(f"content-length {length} is over {limit} bytes")
    return conn.read(length)


def chunk_size(line: bytes) -> int:
    try:
        size = int(line.split(b";")[0].strip(), 16)
    except ValueError:
        raise BadRequest(f"bad chunk size line: {line[:40]!r}") from None
    if size < 0:
        raise BadRequest(f"bad chunk size line: {line[:40]!r}")
    return size


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
