"""``harness serve`` under concurrent keep-alive clients, against a bare ``http.server``
answering the same bytes: requests per second, and their ratio (target ≥ 0.8).

Both servers run on loopback in this process; the same client threads (one keep-alive
``httpx2.Client`` each) send the bench's streamed request and read every byte of the
answer. The bare server reads the body and writes the pre-rendered SSE reply; the fault
server parses, records and checks each request with the oracle and renders the reply.
"""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable

import httpx2

from harness.scenario.fake_api.responder import Responder
from harness.serve.server import FaultServer
from harness.wire.replies import Reply

from . import workload

BODY = json.dumps({**workload.REQUEST, "stream": True}).encode()
HEADERS = {"content-type": "application/json", "anthropic-version": "2023-06-01", "x-api-key": workload.API_KEY}


class _BareServer(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 256  # the listen backlog: 50 clients connect at once (the default, 5, resets them)


class _Bare(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    reply = workload.reply_body(1)

    def do_POST(self) -> None:  # noqa: N802 (http.server's name)
        self.rfile.read(int(self.headers.get("content-length", 0)))
        self.send_response(200)
        for name, value in workload.SSE_HEADERS.items():
            self.send_header(name, value)
        self.send_header("content-length", str(len(self.reply)))
        self.end_headers()
        self.wfile.write(self.reply)

    def log_message(self, *args: Any) -> None:
        pass


def _load(url: str, clients: int, requests: int) -> float:
    """Requests per second of ``clients`` threads sending ``requests`` each."""
    failures: list[str] = []

    def client() -> None:
        with httpx2.Client(base_url=url, timeout=30) as http:
            for _ in range(requests):
                try:
                    answer = http.post("/v1/messages", content=BODY, headers=HEADERS)
                except httpx2.HTTPError as error:
                    failures.append(f"{type(error).__name__}: {error}")
                    continue
                if answer.status_code != 200 or b"message_stop" not in answer.content:
                    failures.append(f"{answer.status_code}: {answer.text[:200]}")

    threads = [threading.Thread(target=client) for _ in range(clients)]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - started
    if failures:
        raise RuntimeError(f"{len(failures)} request(s) failed; the first: {failures[0]}")
    return clients * requests / elapsed


def _bare(clients: int, requests: int) -> float:
    server = _BareServer(("127.0.0.1", 0), _Bare)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        return _load(f"http://127.0.0.1:{server.server_port}", clients, requests)
    finally:
        server.shutdown()
        server.server_close()


def _harness(clients: int, requests: int) -> float:
    responder = Responder([Reply(message=workload.REPLY_SPEC)] * (clients * requests), check_requests=True)
    with FaultServer(responder, time_scale=0, max_connections=clients + 8) as server:
        rate = _load(server.url, clients, requests)
    if responder.problems:
        raise RuntimeError(f"the fault server found problems: {responder.problems[:3]}")
    return rate


def measure(clients: int = 50, requests: int = 20, rounds: int = 3) -> dict[str, Any]:
    """Each server ``rounds`` times, alternating; the best rate of each and their ratio."""
    runs: dict[str, list[float]] = {"bare": [], "harness": []}
    order: list[tuple[str, Callable[[int, int], float]]] = [("bare", _bare), ("harness", _harness)]
    for n in range(rounds):
        for name, run in order if n % 2 == 0 else order[::-1]:
            runs[name].append(run(clients, requests))
    bare, harness = max(runs["bare"]), max(runs["harness"])
    return {"clients": clients, "requests_each": requests, "bare_rps": round(bare, 1), "harness_rps": round(harness, 1),
            "harness_over_bare": round(harness / bare, 3)}
