"""The fault server: the harness's replies over a real loopback socket, for any client.

    FaultServer(responder | sessions=factory, host, port, time_scale, log, log_path)
     ├── accept loop ── one thread per connection, HTTP/1.1 keep-alive
     ├── POST /v1/messages              → the session's Responder → WirePlan → socket
     ├── POST /v1/messages/count_tokens → {"input_tokens": N}, a rough estimate
     ├── GET  /v1/models, /v1/models/ID → a small static list
     └── anything else                  → 404 ``not_found_error``

Every request is answered by a Responder (which checks it with the API-validity
oracle and answers 400 on a violation) and logged as one line as it happens.
Delays are real time multiplied by ``time_scale`` (0 = never wait).

How a WirePlan goes on the socket, and what clients raise (seen here: anthropic 2.16 on
httpx2; @anthropic-ai/sdk 1.16 on Node 20, through ``messages.stream()``):

    plan              on the socket                          Python SDK                      Node SDK
    complete          status, headers, body; keep-alive      the message / APIStatusError    the same
    ending fin        chunks, no last chunk, FIN             raw httpx2.RemoteProtocolError  AnthropicError: terminated
    ending rst        chunks, SO_LINGER (1, 0), close: RST   raw httpx2.ReadError (104)      AnthropicError: terminated
    ending stall      stall_seconds of silence, then FIN     raw httpx2.ReadTimeout          terminated, at the FIN (*)
    ending interrupt  as fin (Ctrl+C is agent-side)          as fin                          as fin
    refused           request read, then RST, no response    APIConnectionError              APIConnectionError
    *_timeout         request read, 600 s of silence, FIN    APITimeoutError                 APIConnectionTimeoutError
    empty             request read, then FIN, no response    APIConnectionError              APIConnectionError
    garbage           request read, non-HTTP bytes, FIN      APIConnectionError              APIConnectionError

Streams go out chunked, one HTTP chunk per plan chunk; plain bodies with Content-Length,
unless the plan cuts them (then chunked too, so that a cut shows). A cut in a JSON body (a
request without ``stream``) is read inside the SDK call: Python wraps it in
APIConnectionError; Node's ``messages.create`` rejects with a raw ``TypeError: terminated``.
The headers never announce a cut (no ``connection: close`` unless the client asked for it):
undici, Node's fetch, takes EOF as the normal end of a ``connection: close`` body, and every
cut would pass for a clean end. A listening socket cannot refuse a connection nor make a
client's *connect* time out: the connection is accepted first, so ``refused`` and
``connect_timeout`` reach a client as a reset and as a read timeout before the headers.
With ``time_scale=0`` a stall or a silence ends at once, with FIN.
(*) The Node SDK's ``timeout`` covers only the wait for the headers: in a stalled body it
waits until the server closes.

Errors::

    Exception
     └── ServerError   the server cannot listen (port in use, address not available)
"""

from __future__ import annotations

import errno
import socket
import threading
import time
from os import PathLike
from typing import IO, Any, Callable

from harness.scenario.recorded import RecordedRequest
from harness.scenario.responder import Responder
from harness.serve.endpoints import count_tokens, models
from harness.serve.log import LogEntry, RequestLog
from harness.serve.sessions import session_key
from harness.serve.socket_out import PlanSender
from harness.wire.api_errors import error_body
from harness.wire.http11 import (
    BadRequest,
    Connection,
    Request,
    read_request,
)
from harness.wire.plan import WirePlan, json_plan


class ServerError(Exception):
    """The fault server cannot listen; the message is one line, fit for a CLI."""


class FaultServer:
    """An Anthropic-compatible HTTP/1.1 server that answers from a Responder, faults and all.

    ``responder`` serves every request from one queue. ``sessions`` instead builds one
    Responder per session, keyed by the ``x-harness-session`` header or else by the
    first user message's text (``""`` when there is neither). ``log`` takes each log
    line (a callable or a text stream); ``log_path`` gets the same as JSON Lines.

        with FaultServer(Responder(replies), time_scale=0) as server:
            client = anthropic.Anthropic(base_url=server.url, api_key="test")
    """

    def __init__(
        self,
        responder: Responder | None = None,
        *,
        sessions: Callable[[str], Responder] | None = None,
        host: str = "127.0.0.1",
        port: int = 0,
        time_scale: float = 1.0,
        log: Callable[[str], Any] | IO[str] | None = None,
        log_path: str | PathLike[str] | None = None,
    ) -> None:
        if (responder is None) == (sessions is None):
            raise ValueError("FaultServer needs exactly one of responder= and sessions=")
        self.responder = responder
        self.sessions: dict[str, Responder] = {}
        self.log = RequestLog(log, log_path)
        self.host = host
        self.port = port
        self.time_scale = max(0.0, float(time_scale))
        self._factory = sessions
        self._lock = threading.RLock()  # guards responders, sessions, entries, the log
        self._stopping = threading.Event()
        self._listener: socket.socket | None = None
        self._threads: set[threading.Thread] = set()
        self._connections: set[socket.socket] = set()
        self._sender = PlanSender(self.time_scale, self._stopping)
        self._started = time.monotonic()

    @property
    def url(self) -> str:
        """The base URL for a client: ``http://127.0.0.1:PORT``."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    def start(self) -> FaultServer:
        """Listen and start serving in background threads; ServerError if it cannot listen."""
        if self._listener is not None:
            return self
        family = socket.AF_INET6 if ":" in self.host else socket.AF_INET
        try:
            self._listener = socket.create_server((self.host, self.port), family=family, backlog=64)
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                raise ServerError(f"port {self.port} on {self.host} is in use") from None
            raise ServerError(f"cannot listen on {self.host} port {self.port}: {exc.strerror or exc}") from None
        self.port = self._listener.getsockname()[1]
        self.log.open()
        self._started = time.monotonic()
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
        for thread in list(self._threads):
            thread.join(max(0.0, deadline - time.monotonic()))
        self._listener.close()
        self.log.close()

    def __enter__(self) -> FaultServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- connections ------------------------------------------------------------

    def _spawn(self, target: Callable[..., None], *args: Any) -> None:
        thread = threading.Thread(target=self._run, args=(target, *args), daemon=True)
        with self._lock:
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
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            self._spawn(self._serve_connection, sock)

    def _serve_connection(self, sock: socket.socket) -> None:
        with self._lock:
            self._connections.add(sock)
        conn = Connection(sock)
        try:
            while not self._stopping.is_set():
                try:
                    request = read_request(conn)
                except BadRequest as exc:
                    plan = json_plan(400, error_body("invalid_request_error", str(exc)), "req_harness_bad")
                    self._sender.send(conn.sock, plan, keep_alive=False, chunked=False)
                    return
                if request is None or not self._answer(conn, request):
                    return
        except OSError:
            return  # the client went away
        finally:
            with self._lock:
                self._connections.discard(sock)
            sock.close()

    def _answer(self, conn: Connection, request: Request) -> bool:
        """Answer one request; whether the connection stays open for the next."""
        record = None
        if request.method == "POST" and request.path == "/v1/messages":
            plan, entry, record = self._messages(request)
        elif request.method == "POST" and request.path == "/v1/messages/count_tokens":
            entry = self._entry(request, status=200, answer="")
            plan = count_tokens(request, entry, _request_id(entry))
        elif request.method == "GET" and (request.path == "/v1/models" or request.path.startswith("/v1/models/")):
            entry = self._entry(request, status=200, answer="", checked=False)
            plan = models(request, entry, _request_id(entry))
        else:
            entry = self._entry(request, status=404, answer="not found", checked=False)
            message = f"Not found: {request.method} {request.path}"
            plan = json_plan(404, error_body("not_found_error", message, _request_id(entry)), _request_id(entry))
        self.log.write(entry)
        try:
            if plan.connection is not None:
                self._sender.connection_fault(conn.sock, plan.connection)
                return False
            streamed = plan.headers.get("content-type", "").startswith("text/event-stream")
            chunked = request.version == "HTTP/1.1" and (streamed or plan.ending != "complete")
            return self._sender.send(conn.sock, plan, keep_alive=request.keep_alive, chunked=chunked)
        finally:
            if record is not None:
                record.ended(self.elapsed())

    # -- endpoints ----------------------------------------------------------------

    def elapsed(self) -> float:
        """Real seconds since the server started: on a socket, time is real."""
        return time.monotonic() - self._started

    def _messages(self, request: Request) -> tuple[WirePlan, LogEntry, RecordedRequest]:
        entry = self._entry(request, status=None, answer="")
        with self._lock:  # a Responder serves one request at a time
            entry.session = session_key(request) if self._factory else None
            responder = self._responder(entry.session)
            known = len(responder.problems)
            try:
                plan = responder.respond(request.method, request.path, request.headers, request.body)
            except Exception as exc:  # a harness bug or a reply it cannot serve: say so, do not hang up
                message = f"harness: {type(exc).__name__}: {exc}"
                plan = json_plan(500, error_body("api_error", message, _request_id(entry)), _request_id(entry))
                plan.headers["x-should-retry"] = "false"
                responder.problems.append(message)
            record = responder.requests[-1]
            record.time = self.elapsed()  # arrival, in real time
            problems = responder.problems[known:]  # no reply left, a reply that cannot be served
        entry.streaming = record.streaming
        entry.violations = [str(v) for v in record.violations]
        entry.status = None if plan.connection else plan.status
        if record.violations:
            entry.answer = "rejected by the oracle"
        elif problems:
            entry.answer = "; ".join(problems)
        else:
            entry.answer = record.reply.describe() if record.reply else "no reply"
        entry.fault = plan.connection or (plan.ending if plan.ending != "complete" else None)
        return plan, entry, record

    def _entry(self, request: Request, *, status: int | None, answer: str, checked: bool = True) -> LogEntry:
        return self.log.entry(request.method, request.path, request.peer, status=status, answer=answer, checked=checked)

    @property
    def entries(self) -> list[LogEntry]:
        """Every request logged so far, in order."""
        return self.log.entries

    def _responder(self, session: str | None) -> Responder:
        if self._factory is None or session is None:
            assert self.responder is not None
            return self.responder
        if session not in self.sessions:
            self.sessions[session] = self._factory(session)
        return self.sessions[session]

def _request_id(entry: LogEntry) -> str:
    return f"req_harness_srv_{entry.number:06d}"


def _local(host: str) -> str:
    """An address that reaches a server listening on ``host``."""
    return {"0.0.0.0": "127.0.0.1", "::": "::1", "": "127.0.0.1"}.get(host, host)
