"""The fault server against hostile clients: every connection has limits (a header
timeout, a body size enforced while reading, a JSON depth), a request it cannot read or
a handler that fails gets a 400/408/413/500 and never stops the server, and with 200
concurrent clients and slowloris connections at once it keeps answering.

Everything is on loopback, bounded and stops by itself; the waits are short real time.
"""

from __future__ import annotations

import json
import socket
import threading
import time

import pytest

from harness.scenario.fake_api.responder import Responder
from harness.serve.listener import Listener
from harness.serve.server import FaultServer
from harness.wire.http11 import Limits
from harness.wire.replies import Reply

HI = json.dumps({"model": "m", "max_tokens": 9, "messages": [{"role": "user", "content": "hi"}]}).encode()
FAST = Limits(header_timeout=0.5, body_timeout=0.5, idle_timeout=2.0, send_timeout=2.0)


def raw(port: int, data: bytes, *, timeout: float = 5.0) -> bytes:
    """Send ``data``, read until the server closes (or ``timeout``)."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        sock.sendall(data)
        return read_all(sock)


def read_all(sock: socket.socket) -> bytes:
    chunks = []
    try:
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    except (socket.timeout, ConnectionResetError):
        pass
    return b"".join(chunks)


def request(body: bytes, *, extra: bytes = b"") -> bytes:
    return (
        b"POST /v1/messages HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\nconnection: close\r\n"
        + extra + b"content-length: %d\r\n\r\n" % len(body) + body
    )


def status(answer: bytes) -> int:
    return int(answer.split(b" ", 2)[1])


@pytest.fixture
def server():
    with FaultServer(Responder([Reply(message={"text": "Hello."})] * 400), time_scale=0, limits=FAST) as running:
        yield running


def test_a_slowloris_client_is_cut_off_after_the_header_timeout(server) -> None:
    # real-time: about half a second
    with socket.create_connection(("127.0.0.1", server.port), timeout=5) as sock:
        started = time.monotonic()
        sock.sendall(b"POST /v1/messages HTTP/1.1\r\n")
        try:
            for _ in range(30):
                sock.sendall(b"x-slow: 1\r\n")
                time.sleep(0.1)  # real-time
        except OSError:
            pass
        answer = read_all(sock)
        assert time.monotonic() - started < 3
    assert status(answer) == 408 and b"timeout_error" in answer
    assert "did not arrive in time" in server.entries[-1].answer
    assert status(raw(server.port, request(HI))) == 200


def test_a_declared_body_over_the_limit_is_refused_before_it_is_read(server) -> None:
    answer = raw(server.port, b"POST /v1/messages HTTP/1.1\r\nhost: x\r\ncontent-length: 200000000\r\n\r\n")
    assert status(answer) == 413
    assert json.loads(answer.split(b"\r\n\r\n", 1)[1])["error"] == {
        "type": "request_too_large", "message": "Request exceeds the maximum allowed number of bytes."
    }


def test_a_chunked_body_is_refused_as_soon_as_a_chunk_would_pass_the_limit(server) -> None:
    head = b"POST /v1/messages HTTP/1.1\r\nhost: x\r\ntransfer-encoding: chunked\r\n\r\n"
    big = b"%x\r\n" % (200 * 1024 * 1024)  # announces 200 MB, sends none of it
    assert status(raw(server.port, head + b"4\r\n{}  \r\n" + big)) == 413


def test_a_body_that_stops_coming_is_a_timeout(server) -> None:
    # real-time: about half a second
    answer = raw(server.port, b"POST /v1/messages HTTP/1.1\r\nhost: x\r\ncontent-length: 100\r\n\r\n{")
    assert status(answer) == 408


def test_json_nested_too_deep_is_a_400_and_the_server_goes_on(server) -> None:
    deep = b"[" * 100_000 + b"]" * 100_000
    answer = raw(server.port, request(deep))
    assert status(answer) == 400
    assert b"The request body is not valid JSON: nested deeper than 200 levels" in answer
    assert status(raw(server.port, request(HI))) == 200


@pytest.mark.parametrize(
    "garbage",
    [b"GET http://[::1/v1/models HTTP/1.1\r\nhost: x\r\n\r\n", b"\x16\x03\x01\x02\x00\x01\x00\r\n\r\n",
     b"POST /v1/messages HTTP/1.1\r\ncontent-length: -5\r\n\r\n", b"POST /v1/messages HTTP/1.1\r\nbad header line\r\n\r\n"],
    ids=["bad-ipv6-target", "tls-hello", "negative-length", "bad-header"],
)
def test_a_request_that_cannot_be_read_is_a_400_and_the_server_goes_on(server, garbage) -> None:
    assert status(raw(server.port, garbage)) == 400
    assert status(raw(server.port, request(HI))) == 200


class Failing(Listener):
    """A listener whose handler fails on every request whose path says so."""

    def answer(self, conn, request):
        if request.path == "/fail":
            raise RuntimeError("broken handler")
        conn.sock.sendall(b"HTTP/1.1 204 No Content\r\nconnection: close\r\n\r\n")
        return False

    def send_plan(self, conn, plan):
        head = f"HTTP/1.1 {plan.status} Error\r\ncontent-length: {len(plan.body)}\r\nconnection: close\r\n\r\n"
        conn.sock.sendall(head.encode() + plan.body)


def test_a_handler_that_raises_is_a_500_and_never_stops_the_server() -> None:
    with Failing(limits=FAST) as listener:
        answer = raw(listener.port, b"GET /fail HTTP/1.1\r\nhost: x\r\n\r\n")
        assert status(answer) == 500 and b"broken handler" in answer
        assert status(raw(listener.port, b"GET /ok HTTP/1.1\r\nhost: x\r\n\r\n")) == 204
        assert "RuntimeError: broken handler" in listener.internal_errors[0]


def test_two_hundred_clients_and_a_slowloris_at_once_are_all_answered(server) -> None:
    # real-time: bounded by the header timeout (0.5 s) and a 30 s safety deadline
    loris = [socket.create_connection(("127.0.0.1", server.port), timeout=5) for _ in range(20)]
    for sock in loris:
        sock.sendall(b"POST /v1/messages HTTP/1.1\r\nhost: x\r\n")
    statuses: list[int] = []
    lock = threading.Lock()

    def client() -> None:
        try:
            answer = raw(server.port, request(HI), timeout=20)
            code = status(answer)
        except (OSError, ValueError, IndexError):
            code = 0
        with lock:
            statuses.append(code)

    threads = [threading.Thread(target=client, daemon=True) for _ in range(200)]
    started = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(max(0.1, started + 30 - time.monotonic()))
    cut = []
    for sock in loris:
        sock.settimeout(3)
        cut.append(status(read_all(sock)))
        sock.close()
    assert statuses.count(200) == 200, sorted(set(statuses))
    assert cut == [408] * 20
    assert len(server.responder.requests) == 200
