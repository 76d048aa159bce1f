"""A loopback HTTP/1.1 server that survives its clients: one thread per connection,
keep-alive, and limits on each connection (``harness.wire.http11.Limits``: a header
timeout, a body timeout and size enforced while reading, an idle timeout) and on their
number. A request it cannot read is answered 400 (408 when too slow, 413 when too big)
and the connection closed; an exception while answering is answered 500 and logged:
neither ever stops the server. ``FaultServer`` and the recording proxy build on it.

At the limit on connections, a new client is served and the connection that has waited
longest for a request of its own is closed: an idle keep-alive connection, or one that
trickles its headers in (a slow-loris) — a client that sends a request reads its answer
at once. Only when every connection is being answered is a newcomer refused (503).

Errors::

    Exception
     └── ServerError   the server cannot listen (port in use, address not available)
"""

from __future__ import annotations

import errno
import socket
import threading
import time
import traceback
from typing import Any, Callable

from harness.wire.api_errors import error_body
from harness.wire.errors import HarnessError
from harness.wire.http11 import BadRequest, Connection, Limits, Request, read_request
from harness.wire.plan import WirePlan, harness_error_plan, json_plan

MAX_CONNECTIONS = 1024
ERROR_TYPES = {400: "invalid_request_error", 408: "timeout_error", 413: "request_too_large"}
TOO_LARGE = "Request exceeds the maximum allowed number of bytes."  # the API's 413 text


class ServerError(HarnessError):
    """The server cannot listen; the message is one line, fit for a CLI."""


class Listener:
    """Accepts connections and reads requests; a subclass answers them (``answer``) and
    may say what it did with a request it could not read (``unreadable``)."""

    def __init__(
        self,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        limits: Limits = Limits(),
        max_connections: int = MAX_CONNECTIONS,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self.host = host
        self.monotonic = monotonic  # what arrival and answer times are read from (a test's own clock)
        self.port = port
        self.limits = limits
        self.max_connections = max_connections
        self._lock = threading.RLock()
        self._stopping = threading.Event()
        self._listener: socket.socket | None = None
        self._threads: set[threading.Thread] = set()
        self._connections: set[socket.socket] = set()
        self._waiting: dict[socket.socket, float] = {}  # connection → since when it waits for a request
        self.evicted = 0  # connections closed to make room for a new client
        self._started = monotonic()
        self.wall_origin = time.time()  # the Unix time elapsed() counts from
        self.internal_errors: list[str] = []

    @property
    def url(self) -> str:
        """The base URL for a client: ``http://127.0.0.1:PORT``."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    def elapsed(self) -> float:
        """Real seconds since the server started: on a socket, time is real."""
        return self.monotonic() - self._started

    def start(self) -> Any:
        """Listen and start serving in background threads; ServerError if it cannot listen."""
        if self._listener is not None:
            return self
        family = socket.AF_INET6 if ":" in self.host else socket.AF_INET
        try:
            self._listener = socket.create_server((self.host, self.port), family=family, backlog=256)
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                raise ServerError(f"port {self.port} on {self.host} is in use") from None
            raise ServerError(f"cannot listen on {self.host} port {self.port}: {exc.strerror or exc}") from None
        except (ValueError, OverflowError) as exc:  # a port out of range
            raise ServerError(f"cannot listen on {self.host} port {self.port}: {exc}") from None
        self.port = self._listener.getsockname()[1]
        self._started, self.wall_origin = self.monotonic(), time.time()
        self.opened()
        self._spawn(self._accept_loop)
        return self

    def close(self) -> None:
        """Stop accepting, cut open connections, wait for the threads; idempotent."""
        if self._listener is None or self._stopping.is_set():
            return
        self._stopping.set()
        try:  # wake the accept loop, portably
            socket.create_connection((_local(self.host), self.port), timeout=1).close()
        except OSError:
            pass
        with self._lock:
            connections = list(self._connections)
        for conn in connections:
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        deadline = time.monotonic() + 2.0
        with self._lock:
            threads = list(self._threads)
        for thread in threads:
            thread.join(max(0.0, deadline - time.monotonic()))
        self._listener.close()
        self.closed()

    def __enter__(self) -> Any:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- what a subclass says ---------------------------------------------------------

    def opened(self) -> None:
        """Called once the server listens."""

    def closed(self) -> None:
        """Called once the server has stopped."""

    def answer(self, conn: Connection, request: Request) -> bool:
        """Answer one request; whether the connection stays open for the next."""
        raise NotImplementedError

    def unreadable(self, peer: str, status: int, reason: str) -> None:
        """A request that could not be read was answered ``status``."""

    def send_plan(self, conn: Connection, plan: WirePlan) -> None:
        """Send a plain answer and close (for requests that could not be answered)."""
        raise NotImplementedError

    # -- connections ------------------------------------------------------------------

    def _spawn(self, target: Callable[..., None], *args: Any) -> None:
        thread = threading.Thread(target=self._run, args=(target, *args), daemon=True)
        with self._lock:  # started under the lock: close() never sees a thread it cannot join yet
            self._threads.add(thread)
            thread.start()

    def _run(self, target: Callable[..., None], *args: Any) -> None:
        try:
            target(*args)
        finally:
            with self._lock:
                self._threads.discard(threading.current_thread())

    def _accept_loop(self) -> None:
        assert self._listener is not None
        while not self._stopping.is_set():
            try:
                sock, _ = self._listener.accept()
            except OSError:
                return
            if self._stopping.is_set():
                sock.close()
                return
            if not self._make_room():
                _refuse(sock)
                continue
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            with self._lock:
                self._connections.add(sock)
            self._spawn(self._serve_connection, sock)

    def _make_room(self) -> bool:
        """Whether a new connection may be served: below the limit, or after closing the
        connection that has waited longest for a request (none is waiting: refuse)."""
        with self._lock:
            if len(self._connections) < self.max_connections:
                return True
            if not self._waiting:
                return False
            victim = min(self._waiting, key=self._waiting.__getitem__)
            del self._waiting[victim]
            self._connections.discard(victim)
            self.evicted += 1
        try:
            victim.shutdown(socket.SHUT_RDWR)  # its thread's read ends, and the thread with it
        except OSError:
            pass
        return True

    def _serve_connection(self, sock: socket.socket) -> None:
        try:
            conn = Connection(sock, self.limits)
            while not self._stopping.is_set():
                with self._lock:
                    if sock not in self._connections:
                        return  # evicted while it was between requests
                    self._waiting[sock] = self.monotonic()
                try:
                    request = read_request(conn)
                except BadRequest as exc:
                    with self._lock:
                        evicted = sock not in self._connections
                    if not evicted:
                        self._cannot_read(conn, exc)
                    return
                finally:
                    with self._lock:
                        self._waiting.pop(sock, None)
                if request is None or not self._answer_safely(conn, request):
                    return
        except OSError:
            return  # the client went away, or was closed to make room
        finally:
            with self._lock:
                self._connections.discard(sock)
                self._waiting.pop(sock, None)
            sock.close()

    def _answer_safely(self, conn: Connection, request: Request) -> bool:
        try:
            return self.answer(conn, request)
        except OSError:
            raise
        except Exception as exc:  # a harness bug: say so, answer 500, keep serving others
            message = f"harness: internal error answering {request.method} {request.target[:80]}: {type(exc).__name__}: {exc}"
            self.internal_errors.append(message + "\n" + traceback.format_exc(limit=5))
            self.send_plan(conn, harness_error_plan(message, "req_harness_error"))
            return False

    def _cannot_read(self, conn: Connection, exc: BadRequest) -> None:
        message = TOO_LARGE if exc.status == 413 else str(exc)
        plan = json_plan(exc.status, error_body(ERROR_TYPES[exc.status], message, "req_harness_bad"), "req_harness_bad")
        self.unreadable(conn.peer, exc.status, str(exc))
        self.send_plan(conn, plan)


def _refuse(sock: socket.socket) -> None:
    """Too many connections: a 503, then close."""
    body = b'{"type":"error","error":{"type":"api_error","message":"harness: too many connections"}}'
    head = f"HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\ncontent-length: {len(body)}\r\n"
    try:
        sock.settimeout(1.0)
        sock.sendall(head.encode() + b"connection: close\r\n\r\n" + body)
    except OSError:
        pass
    sock.close()


def _local(host: str) -> str:
    """An address that reaches a server listening on ``host``."""
    return {"0.0.0.0": "127.0.0.1", "::": "::1", "": "127.0.0.1"}.get(host, host)
