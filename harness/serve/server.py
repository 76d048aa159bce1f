"""The fault server: the harness's replies over a real loopback socket, for any client.

    FaultServer(responder | sessions=factory, host, port, time_scale, log, log_path, scrub, limits)
     ├── Listener ── one thread per connection, HTTP/1.1 keep-alive, limits per connection
     ├── POST [/s/NAME]/v1/messages              → the session's Responder → WirePlan → socket
     ├── POST [/s/NAME]/v1/messages/count_tokens → {"input_tokens": N}, a rough estimate
     ├── GET  [/s/NAME]/v1/models, /v1/models/ID → a small static list
     ├── [/s/NAME]/__harness/…                   → the control endpoints (``harness.serve.control``)
     └── anything else                           → 404 ``not_found_error``

Every request is answered by a Responder (which checks it with the API-validity oracle
and answers 400 on a violation) and logged as it happens: a line for people when it
arrives, a JSON line when its answer is over (with headers and bodies when the server
has a ``scrub``: the cassette scrubber, so the log keeps what a cassette keeps). Delays
are real time multiplied by ``time_scale`` (0 = never wait). Sessions (``sessions``)
are named by a URL prefix or a header; see ``harness.serve.sessions``.

How a WirePlan goes on the socket, and what clients raise (seen here: anthropic 2.16 on
httpx2; @anthropic-ai/sdk 1.16 on Node 20, through ``messages.stream()``). From anthropic
2.17 the three raw httpx2 errors come as the ``__cause__`` of an APIConnectionError
(APITimeoutError for the stall):

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
"""

from __future__ import annotations

import time
from os import PathLike
from typing import IO, Any, Callable

from harness.scenario.fake_api.exchange import Exchange
from harness.scenario.fake_api.responder import Responder
from harness.scenario.fake_api.side_endpoints import is_side, side_answer
from harness.scenario.fake_api.usage import served_usage
from harness.scenario.format.problem import Kind, Problem
from harness.serve.control import PREFIX as CONTROL_PREFIX
from harness.serve.control import Control
from harness.serve.listener import Listener, ServerError
from harness.serve.log import LogEntry, RequestLog, Scrub
from harness.serve.sessions import DEFAULT_SESSION, session_of
from harness.serve.socket_out import PlanSender
from harness.wire.api_errors import error_body
from harness.wire.http11 import Connection, Limits, Request
from harness.wire.plan import (
    CLIENT_READ_TIMEOUT,
    WirePlan,
    harness_error_plan,
    json_plan,
)

__all__ = ["FaultServer", "ServerError"]
UNDELIVERABLE_CTRL_C = (
    "the scenario presses Ctrl+C while a reply streams, which reaches a client that reads the stream in the "
    "harness's process; a client on a socket sees only a stream that ends early"
)
UNDELIVERABLE_SILENCE = (
    f"the scenario keeps a client waiting as long as it reads ({CLIENT_READ_TIMEOUT:g} s) or longer, and this server serves "
    "its waits {how}: the silence never reaches the client's own timeouts, which run in real time"
)
RETRY_COUNT_HEADER = "x-stainless-retry-count"  # the SDKs' count of their own retries of a request


class FaultServer(Listener):
    """An Anthropic-compatible HTTP/1.1 server that answers from Responders, faults and all.

    ``responder`` serves the requests that name no session; ``sessions`` builds one
    Responder for each session a request names (without it, every session shares
    ``responder``). ``log`` takes each log line (a callable or a text stream);
    ``log_path`` gets JSON Lines, with headers and bodies when ``scrub`` is given.

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
        scrub: Scrub | None = None,
        limits: Limits = Limits(),
        max_connections: int | None = None,
        monotonic: Callable[[], float] = time.monotonic,
        control: Control | None = None,
    ) -> None:
        if responder is None and sessions is None:
            raise ValueError("FaultServer needs responder=, sessions= or both")
        options = {} if max_connections is None else {"max_connections": max_connections}
        super().__init__(host=host, port=port, limits=limits, monotonic=monotonic, **options)
        self.responder = responder
        self.sessions: dict[str, Responder] = {}
        self.log = RequestLog(log, log_path, scrub)
        self.time_scale = max(0.0, float(time_scale))
        self._factory = sessions
        self._sender = PlanSender(self.time_scale, self._stopping)
        self.control = control

    def opened(self) -> None:
        self.log.open()

    def closed(self) -> None:
        self.log.close()

    @property
    def entries(self) -> list[LogEntry]:
        """Every request logged so far, in order."""
        return self.log.entries

    def responders(self) -> dict[str, Responder]:
        """Every Responder that served a request, by session (``""``: no session named)."""
        with self._lock:
            return ({} if self.responder is None else {DEFAULT_SESSION: self.responder}) | self.sessions

    def responder_of(self, session: str) -> Responder | None:
        """The Responder serving ``session`` so far (None: it has made no request)."""
        return self.responders().get(session)

    def replace_session(self, session: str, responder: Responder) -> None:
        """``session`` is served by ``responder`` from now on, its requests so far forgotten."""
        with self._lock:
            if session == DEFAULT_SESSION and self.responder is not None:
                self.responder = responder
            else:
                self.sessions[session] = responder
            self.log.forget(session)

    def reset_sessions(self, session: str | None, fresh: Callable[[str], Responder]) -> None:
        """Every session (or ``session``) afresh: a new Responder, its requests forgotten."""
        with self._lock:
            for name in [session] if session is not None else [DEFAULT_SESSION, *self.sessions]:
                self.replace_session(name, fresh(name))

    # -- answering ------------------------------------------------------------------

    def answer(self, conn: Connection, request: Request) -> bool:
        session, path = session_of(request)
        record = None
        if path.startswith(CONTROL_PREFIX) and self.control is not None:
            entry = self._entry(request, session, status=None, answer="")
            plan = self.control.answer(self, request, session, path, entry)
        elif request.method == "POST" and path == "/v1/messages":
            plan, entry, record = self._messages(request, session, path)
        elif is_side(request.method, path):  # token counting, the model list
            entry = self._entry(request, session, status=200, answer="")
            side = side_answer(request.method, path, request.body, _request_id(entry))
            assert side is not None
            plan = side.plan
            entry.status, entry.answer, entry.checked, entry.violations = plan.status, side.said, side.checked, side.violations
        else:
            entry = self._entry(request, session, status=404, answer="not found", checked=False)
            message = f"Not found: {request.method} {path}"
            plan = json_plan(404, error_body("not_found_error", message, _request_id(entry)), _request_id(entry))
        self.log.started(entry)
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
            self.log.finished(entry, request, plan)

    def send_plan(self, conn: Connection, plan: WirePlan) -> None:
        self._sender.send(conn.sock, plan, keep_alive=False, chunked=False)

    def unreadable(self, peer: str, status: int, reason: str) -> None:
        entry = self.log.entry("?", "?", peer, status=status, answer=f"unreadable request: {reason}", checked=False)
        self.log.started(entry)
        self.log.finished(entry)

    def _messages(self, request: Request, session: str, path: str) -> tuple[WirePlan, LogEntry, Exchange]:
        entry = self._entry(request, session, status=None, answer="")
        with self._lock:  # a Responder takes one request at a time; the rendering needs no lock
            responder = self._responder(session)
            known, count = len(responder.problems), len(responder.requests)
            try:
                pending = responder.claim(request.method, path, request.headers, request.body)
            except Exception as exc:  # a harness bug: say so, do not hang up
                if len(responder.requests) == count:
                    raise  # before the request was recorded: the listener answers its 500
                pending = None
                self._failed(responder, responder.requests[-1], exc, entry)
            record = responder.requests[-1]
            record.time, record.session = self.elapsed(), session or None  # arrival, in real time
            problems = responder.problems[known:]  # no reply left
        if pending is not None:
            try:
                problem = responder.render(pending)
            except Exception as exc:  # a harness bug while rendering
                with self._lock:
                    problem, pending.served = self._failed(responder, record, exc, entry), False
            problems += [problem] if problem else []
            with self._lock:
                responder.settle(pending)
        if record.plan is not None and record.plan.ending == "interrupt":
            responder.undeliverable = responder.undeliverable or UNDELIVERABLE_CTRL_C
        silence = record.plan.longest_silence() if record.plan is not None else 0.0
        if silence >= CLIENT_READ_TIMEOUT and silence * self.time_scale < CLIENT_READ_TIMEOUT:
            how = (f"{self.time_scale:g} times as long ({silence * self.time_scale:.1f} s for {silence:g} s)" if self.time_scale
                   else "at once (time scale 0, as the run's loopback socket does)")
            responder.undeliverable = responder.undeliverable or UNDELIVERABLE_SILENCE.format(how=how)
        plan = record.plan
        assert plan is not None
        entry.streaming = record.streaming
        entry.violations = [str(v) for v in record.violations]
        entry.status = None if plan.connection else plan.status
        if record.violations:
            entry.answer = "rejected by the oracle"
        elif record.refused:
            entry.answer = f"refused: {record.refused}"
        elif problems:
            entry.answer = "; ".join(map(str, problems))
        else:
            entry.answer = record.reply.describe() if record.reply else "no reply"
        entry.answer += f" · served as {plan.form}" if plan.form else ""
        entry.fault = plan.connection or (plan.ending if plan.ending != "complete" else None)
        entry.limited, entry.usage = record.limited, served_usage(plan) if record.reply is not None else None
        entry.side = record.side
        record.scale = self.time_scale
        return plan, entry, record

    @staticmethod
    def _failed(responder: Responder, record: Exchange, exc: Exception, entry: LogEntry) -> Problem:
        """A harness bug while answering ``record``: it gets a 500 that says so."""
        problem = Problem(f"harness: {type(exc).__name__}: {exc}", Kind.HARNESS, request=record.number)
        record.plan = harness_error_plan(problem.text, _request_id(entry))
        responder.problems.append(problem)
        return problem

    def _entry(self, request: Request, session: str, *, status: int | None, answer: str, checked: bool = True) -> LogEntry:
        entry = self.log.entry(request.method, request.target, request.peer, status=status, answer=answer, checked=checked)
        entry.session = session or None
        count = request.headers.get(RETRY_COUNT_HEADER, "")
        entry.retry_count = int(count) if count.isdigit() else None
        return entry

    def _responder(self, session: str) -> Responder:
        if self._factory is None or (session == DEFAULT_SESSION and self.responder is not None):
            assert self.responder is not None
            return self.responder
        if session not in self.sessions:
            self.sessions[session] = self._factory(session)
        return self.sessions[session]


def _request_id(entry: LogEntry) -> str:
    return f"req_harness_srv_{entry.number:06d}"
