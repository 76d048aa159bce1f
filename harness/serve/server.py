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

import email.utils
import errno
import json
import select
import signal
import socket
import threading
import time
from dataclasses import asdict, dataclass, field
from http import HTTPStatus
from os import PathLike
from typing import IO, Any, Callable, Mapping
from urllib.parse import unquote

from harness.wire.api_errors import error_body
from harness.wire.http11 import BadRequest, Connection, Request, finish, read_request, reset
from harness.oracle.rules import check_request
from harness.scenario.responder import Responder, error_body_with_id, request_betas
from harness.wire.plan import WirePlan, json_plan

SESSION_HEADER = "x-harness-session"
SILENCE_SECONDS = 600.0  # connect_timeout / read_timeout hold the connection this long, times time_scale
GARBAGE = b"\x16\x03\x01\x02\x00garbage, not HTTP\r\n\r\n"
MODELS = (
    ("claude-opus-5-5", "Claude Opus 5.5", "2026-09-01T00:00:00Z"),
    ("claude-sonnet-5-5", "Claude Sonnet 5.5", "2026-09-01T00:00:00Z"),
    ("claude-haiku-5-5", "Claude Haiku 5.5", "2026-09-01T00:00:00Z"),
)
_HOP_HEADERS = frozenset({"content-length", "transfer-encoding", "connection", "keep-alive", "date"})
_PHRASES = {529: "Overloaded"}


class ServerError(Exception):
    """The fault server cannot listen; the message is one line, fit for a CLI."""


@dataclass
class LogEntry:
    """One request as the log tells it: what came in, what went out, what the oracle said."""

    number: int
    time: float  # Unix time
    elapsed: float  # seconds since the server started
    method: str
    path: str
    peer: str  # the client's address and port: the same for requests on one connection
    session: str | None
    streaming: bool
    status: int | None  # None: no HTTP response at all (a connection fault)
    answer: str  # Reply.describe(), or what the server answered by itself
    fault: str | None  # the plan's connection fault or non-complete ending
    violations: list[str] = field(default_factory=list)
    checked: bool = True  # whether the oracle looked at this request

    @property
    def verdict(self) -> str:
        """``ok``, ``not checked``, or the violations."""
        if not self.checked:
            return "not checked"
        return "; ".join(self.violations) if self.violations else "ok"

    def line(self) -> str:
        """One line, e.g.
        ``12:00:01.234 #3 POST /v1/messages (stream) → 200 text · cut after event 5 (FIN) · fault fin · oracle ok``
        """
        clock = time.strftime("%H:%M:%S", time.localtime(self.time)) + f".{int(self.time % 1 * 1000):03d}"
        session = f" [{_shorten(self.session)}]" if self.session else ""
        stream = " (stream)" if self.streaming else ""
        status = self.status if self.status is not None else "no response"
        fault = f" · fault {self.fault}" if self.fault else ""
        return (
            f"{clock} #{self.number}{session} {self.method} {self.path}{stream} → {status} "
            f"{self.answer}{fault} · oracle {self.verdict}"
        )


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
        self.entries: list[LogEntry] = []
        self.host = host
        self.port = port
        self.time_scale = max(0.0, float(time_scale))
        self._factory = sessions
        self._log = log
        self._log_path = log_path
        self._log_file: IO[str] | None = None
        self._lock = threading.RLock()  # guards responders, sessions, entries, the log
        self._stopping = threading.Event()
        self._listener: socket.socket | None = None
        self._threads: set[threading.Thread] = set()
        self._connections: set[socket.socket] = set()
        self._started = 0.0
        self._numbered = 0

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
        self._started = time.monotonic()
        if self._log_path is not None:
            self._log_file = open(self._log_path, "a", encoding="utf-8")  # noqa: SIM115 -- closed in close()
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
        if self._log_file is not None:
            self._log_file.close()

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
                    self._carry_out(conn, plan, keep_alive=False, chunked=False)
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
        if request.method == "POST" and request.path == "/v1/messages":
            plan, entry = self._messages(request)
        elif request.method == "POST" and request.path == "/v1/messages/count_tokens":
            plan, entry = self._count_tokens(request)
        elif request.method == "GET" and (request.path == "/v1/models" or request.path.startswith("/v1/models/")):
            plan, entry = self._models(request)
        else:
            entry = self._entry(request, status=404, answer="not found", checked=False)
            message = f"Not found: {request.method} {request.path}"
            plan = json_plan(404, error_body("not_found_error", message, _request_id(entry)), _request_id(entry))
        self._write_log(entry)
        if plan.connection is not None:
            self._connection_fault(conn, plan.connection)
            return False
        streamed = plan.headers.get("content-type", "").startswith("text/event-stream")
        chunked = request.version == "HTTP/1.1" and (streamed or plan.ending != "complete")
        return self._carry_out(conn, plan, keep_alive=request.keep_alive, chunked=chunked)

    # -- endpoints ----------------------------------------------------------------

    def _messages(self, request: Request) -> tuple[WirePlan, LogEntry]:
        entry = self._entry(request, status=None, answer="")
        with self._lock:  # a Responder serves one request at a time
            entry.session = self._session_key(request) if self._factory else None
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
        return plan, entry

    def _count_tokens(self, request: Request) -> tuple[WirePlan, LogEntry]:
        body = _json(request.body)
        entry = self._entry(request, status=200, answer="")
        request_id = _request_id(entry)
        if not isinstance(body, dict):
            entry.status, entry.answer, entry.checked = 400, "not a JSON object", False
            problem = error_body("invalid_request_error", "Body must be a JSON object.", request_id)
            return json_plan(400, problem, request_id), entry
        violations = check_request(body, betas=request_betas(request.headers))
        entry.violations = [str(v) for v in violations]
        if violations:
            entry.status, entry.answer = 400, "rejected by the oracle"
            return json_plan(400, error_body_with_id(violations, request_id), request_id), entry
        tokens = estimate_tokens(body)
        entry.answer = f"count_tokens {tokens}"
        return json_plan(200, {"input_tokens": tokens}, request_id), entry

    def _models(self, request: Request) -> tuple[WirePlan, LogEntry]:
        entry = self._entry(request, status=200, answer="", checked=False)
        request_id = _request_id(entry)
        models = [_model_info(*m) for m in MODELS]
        wanted = unquote(request.path.removeprefix("/v1/models").lstrip("/"))
        if not wanted:
            entry.answer = f"{len(models)} models"
            page = {"data": models, "has_more": False, "first_id": models[0]["id"], "last_id": models[-1]["id"]}
            return json_plan(200, page, request_id), entry
        found = next((m for m in models if m["id"] == wanted), None)
        if found is None:
            entry.status, entry.answer = 404, f"no model {wanted}"
            return json_plan(404, error_body("not_found_error", f"model: {wanted}", request_id), request_id), entry
        entry.answer = f"model {wanted}"
        return json_plan(200, found, request_id), entry

    def _session_key(self, request: Request) -> str:
        if SESSION_HEADER in request.headers:
            return request.headers[SESSION_HEADER]
        return first_user_text(_json(request.body))

    def _responder(self, session: str | None) -> Responder:
        if self._factory is None or session is None:
            assert self.responder is not None
            return self.responder
        if session not in self.sessions:
            self.sessions[session] = self._factory(session)
        return self.sessions[session]

    # -- the wire -----------------------------------------------------------------

    def _carry_out(self, conn: Connection, plan: WirePlan, *, keep_alive: bool, chunked: bool) -> bool:
        """Send ``plan``: status, headers, chunks at their delays, then its ending; whether
        the connection stays open. ``keep_alive`` is what the client asked for, never the
        plan's ending: the headers must not announce a cut (see the module docstring)."""
        headers = {k: v for k, v in plan.headers.items() if k.lower() not in _HOP_HEADERS}
        headers["date"] = email.utils.formatdate(usegmt=True)
        if chunked:
            headers["transfer-encoding"] = "chunked"
        elif plan.ending == "complete":
            headers["content-length"] = str(len(plan.body))
        headers["connection"] = "keep-alive" if keep_alive else "close"
        phrase = _PHRASES.get(plan.status) or _phrase(plan.status)
        head = f"HTTP/1.1 {plan.status} {phrase}\r\n" + "".join(f"{k}: {v}\r\n" for k, v in headers.items())
        conn.sock.sendall(head.encode("latin-1") + b"\r\n")
        for chunk, delay in zip(plan.chunks, plan.delays):
            if not self._wait(conn.sock, delay):
                return False
            if chunk:
                conn.sock.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk) if chunked else chunk)
        if plan.ending == "rst":
            reset(conn.sock)
            return False
        if plan.ending == "stall":
            self._wait(conn.sock, plan.stall_seconds)
        if plan.ending != "complete":  # fin, interrupt, the end of a stall
            finish(conn.sock)
            return False
        if chunked:
            conn.sock.sendall(b"0\r\n\r\n")
        if not keep_alive:
            finish(conn.sock)
        return keep_alive

    def _connection_fault(self, conn: Connection, fault: str) -> None:
        if fault == "refused":
            reset(conn.sock)
            return
        if fault in ("connect_timeout", "read_timeout"):
            self._wait(conn.sock, SILENCE_SECONDS)
        elif fault == "garbage":
            conn.sock.sendall(GARBAGE)
        finish(conn.sock)  # empty, garbage, the end of a silence

    def _wait(self, sock: socket.socket, seconds: float) -> bool:
        """Wait ``seconds`` × time_scale; False as soon as the client goes away or the server stops."""
        deadline = time.monotonic() + seconds * self.time_scale
        watching = True
        while (left := deadline - time.monotonic()) > 0 and not self._stopping.is_set():
            if not watching:
                self._stopping.wait(min(left, 0.05))
                continue
            readable, _, _ = select.select([sock], [], [], min(left, 0.05))
            if readable:
                try:
                    if not sock.recv(1, socket.MSG_PEEK):
                        return False
                except OSError:
                    return False
                watching = False  # the client sent more (a pipelined request): just wait
        return not self._stopping.is_set()

    # -- the log ------------------------------------------------------------------

    def _entry(self, request: Request, *, status: int | None, answer: str, checked: bool = True) -> LogEntry:
        """A numbered entry for ``request``, to be filled in and then written."""
        with self._lock:
            self._numbered += 1
            number = self._numbered
        elapsed = time.monotonic() - self._started
        return LogEntry(
            number, time.time(), elapsed, request.method, request.path, request.peer, None, False, status, answer,
            None, checked=checked,
        )

    def _write_log(self, entry: LogEntry) -> None:
        with self._lock:
            self.entries.append(entry)
            if callable(self._log):
                self._log(entry.line())
            elif self._log is not None:
                self._log.write(entry.line() + "\n")
                self._log.flush()
            if self._log_file is not None:
                self._log_file.write(json.dumps(asdict(entry) | {"verdict": entry.verdict}) + "\n")
                self._log_file.flush()


def serve_forever(server: FaultServer) -> None:
    """Serve until SIGINT or SIGTERM, then close cleanly. Call it from the main thread."""
    stop = threading.Event()
    previous = {sig: signal.signal(sig, lambda *_: stop.set()) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        server.start()
        while not stop.wait(0.5):
            pass
        server.close()  # a second Ctrl+C during the close changes nothing: the handlers are still ours
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        server.close()


def first_user_text(body: Any) -> str:
    """The text of the request's first user message (its first text block), or ``""``."""
    messages = body.get("messages") if isinstance(body, dict) else None
    for message in messages if isinstance(messages, list) else ():
        if isinstance(message, dict) and message.get("role") == "user":
            content = message.get("content")
            if isinstance(content, str):
                return content
            for block in content if isinstance(content, list) else ():
                if isinstance(block, dict) and block.get("type") == "text":
                    return str(block.get("text", ""))
            return ""
    return ""


def estimate_tokens(body: Mapping[str, Any]) -> int:
    """A rough input-token count: about four characters of JSON per token."""
    text = json.dumps([body.get(k) for k in ("system", "messages", "tools")], ensure_ascii=False)
    return max(1, len(text) // 4)



def _json(content: bytes) -> Any:
    try:
        return json.loads(content) if content else None
    except (ValueError, UnicodeDecodeError):
        return None


def _request_id(entry: LogEntry) -> str:
    return f"req_harness_srv_{entry.number:06d}"


def _model_info(model_id: str, name: str, created: str) -> dict[str, Any]:
    return {"type": "model", "id": model_id, "display_name": name, "created_at": created, "lifecycle": "active"}


def _phrase(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "Unknown"


def _shorten(text: str, width: int = 40) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def _local(host: str) -> str:
    """An address that reaches a server listening on ``host``."""
    return {"0.0.0.0": "127.0.0.1", "::": "::1", "": "127.0.0.1"}.get(host, host)
