"""A recording proxy: any client (Node, Claude Code, curl) points its base URL at it,
and every request is forwarded to an upstream (the real API, or any compatible server)
and recorded into a vcrpy cassette, through the same recorder as ``harness record``
(``harness.cassette.vcr_setup``: allowlisted headers, secrets redacted, the file scanned,
then written atomically when the proxy stops).

    harness proxy --upstream https://api.anthropic.com --record cassettes/node.yaml --port 8124
    ANTHROPIC_BASE_URL=http://127.0.0.1:8124 node my-agent.js

The proxy forwards with an ``httpx2`` client, which vcrpy records as it records the
SDK in ``harness record``; so vcrpy's record modes hold (``once`` refuses an existing
cassette, ``new_episodes`` replays what it has and forwards the rest, ``none`` only
replays). Requests are forwarded one at a time, so the cassette keeps the order of the
session; a streamed answer reaches the client whole once the upstream has finished it
(vcrpy reads a response whole before anyone sees it): a client's stream timeout must
allow for the whole answer. The cassette keeps when each part of the upstream's answer
came (``harness.cassette.timing``). An upstream that cannot be reached is answered 502.

``harness record`` and ``harness replay`` start one on loopback for an agent that builds
its own HTTP client (``AgentContext.base_url``, ``loopback_forwarder``): it forwards through
the recording's or the replay's own transport, so such an agent's requests are recorded,
replayed and matched as the SDK's are.
"""

from __future__ import annotations

import threading
from contextlib import ExitStack
from typing import Any, Callable

import httpx2

from harness.cassette.timing import Stopwatch
from harness.serve.listener import Listener
from harness.wire.api_errors import error_body
from harness.wire.http11 import Connection, Limits, Request
from harness.wire.plan import WirePlan, json_plan

HOP_HEADERS = frozenset(
    {"connection", "keep-alive", "transfer-encoding", "content-length", "host", "accept-encoding", "content-encoding",
     "proxy-connection", "te", "trailer", "upgrade"}
)
UPSTREAM_TIMEOUT = httpx2.Timeout(600.0, connect=10.0)


class RecordingProxy(Listener):
    """Forwards every request to ``upstream`` with one httpx2 client (which vcrpy records
    while a cassette is in use) and answers with what came back. ``transport`` is the
    client's (default: a plain ``httpx2.HTTPTransport`` whose times ``stopwatch`` keeps; a
    transport given is the caller's to watch)."""

    def __init__(
        self, upstream: str, *, host: str = "127.0.0.1", port: int = 0, log: Callable[[str], Any] | None = None,
        limits: Limits = Limits(), transport: httpx2.BaseTransport | None = None,
    ) -> None:
        super().__init__(host=host, port=port, limits=limits)
        self.upstream = upstream.rstrip("/")
        self.forwarded = 0
        self._log = log or (lambda line: None)
        self.stopwatch = Stopwatch()  # when each answer's parts came, for the cassette (``make_vcr(stopwatch=…)``)
        if transport is None:
            transport = httpx2.HTTPTransport()
            self.stopwatch.watch(transport)
        self._client = httpx2.Client(timeout=UPSTREAM_TIMEOUT, transport=transport)
        self._one_at_a_time = threading.Lock()

    def closed(self) -> None:
        self._client.close()

    def answer(self, conn: Connection, request: Request) -> bool:
        headers = {k: v for k, v in request.headers.items() if k not in HOP_HEADERS} | {"accept-encoding": "identity"}
        with self._one_at_a_time:
            number = self.forwarded + 1
            try:
                response = self._client.request(request.method, self.upstream + request.target, headers=headers, content=request.body)
            except httpx2.HTTPError as error:
                message = f"harness proxy: the upstream {self.upstream} failed: {type(error).__name__}: {error}"
                self._log(f"#{number} {request.method} {request.target} → 502 ({message})")
                self.send_plan(conn, json_plan(502, error_body("api_error", message, "req_harness_proxy"), "req_harness_proxy"))
                return False
            self.forwarded = number
        body = response.content
        kept = [(k, v) for k, v in response.headers.multi_items() if k.lower() not in HOP_HEADERS]
        keep_alive = request.keep_alive
        head = f"HTTP/1.1 {response.status_code} {response.reason_phrase or 'Unknown'}\r\n"
        head += "".join(f"{k}: {v}\r\n" for k, v in kept)
        head += f"content-length: {len(body)}\r\nconnection: {'keep-alive' if keep_alive else 'close'}\r\n\r\n"
        conn.sock.sendall(head.encode("latin-1") + body)
        self._log(f"#{number} {request.method} {request.target} → {response.status_code} ({len(body)} bytes, recorded)")
        return keep_alive

    def send_plan(self, conn: Connection, plan: WirePlan) -> None:
        head = f"HTTP/1.1 {plan.status} Error\r\ncontent-type: application/json\r\ncontent-length: {len(plan.body)}\r\n"
        conn.sock.sendall(head.encode() + b"connection: close\r\n\r\n" + plan.body)


def loopback_forwarder(
    transport: httpx2.BaseTransport, upstream: str, servers: ExitStack, addresses: set[tuple[str, int]],
) -> Callable[[], str]:
    """``AgentContext.start_loopback`` for a recording or a replay: on first use, a proxy on
    127.0.0.1 forwarding to ``upstream`` through ``transport`` (``servers`` stops it); its
    address goes into ``addresses`` (what ``block_network`` lets through and vcrpy leaves
    unrecorded: the hop to it is not the session's)."""
    started: list[str] = []

    def start() -> str:
        if not started:
            proxy = servers.enter_context(RecordingProxy(upstream, transport=transport))
            addresses.add((proxy.host, proxy.port))
            started.append(proxy.url)
        return started[0]

    return start
