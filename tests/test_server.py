"""The fault server: the real Python SDK against a real loopback socket, fault by fault.

Every server runs with ``time_scale=0`` (no waiting) except where a timeout must
really fire; those waits are short and marked ``# real-time``.
"""

from __future__ import annotations

import asyncio
import io
import json
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from contextlib import ExitStack
from pathlib import Path

import anthropic
import httpx2
import pytest
from stream_reads import read_failure

from harness.scenario.fake_api.responder import Responder
from harness.serve.server import FaultServer, ServerError
from harness.wire.faults import Cut, Drip, ErrorEvent, Stall
from harness.wire.replies import Reply
from mini_agent.errors import to_model_error

ROOT = Path(__file__).resolve().parents[1]
PARAMS = {"model": "claude-opus-5-5", "max_tokens": 64, "messages": [{"role": "user", "content": "Say hello"}]}
ANSWER = Reply(message={"text": "Hello from a real socket, one word at a time."})
ORPHAN_RESULT = [{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "ok"}]}]


def sdk(url: str, **options) -> anthropic.Anthropic:
    """The SDK pointed at the server, retries off. ``verify=False`` only spares building a
    TLS context (~0.1 s a client) that a plain-http loopback URL never uses."""
    http_client = anthropic.DefaultHttpxClient(verify=False)
    return anthropic.Anthropic(base_url=url, api_key="test", max_retries=0, http_client=http_client, **options)


@pytest.fixture
def serve():
    """``serve(replies, timeout=…, **server_options)`` → (server, client); both closed after the test."""
    with ExitStack() as stack:

        def start(replies, *, timeout: float | None = None, **options):
            options.setdefault("time_scale", 0)
            server = stack.enter_context(FaultServer(Responder(replies), **options))
            extra = {} if timeout is None else {"timeout": timeout}
            client = stack.enter_context(sdk(server.url, **extra))
            return server, client

        yield start


def read_stream(client: anthropic.Anthropic, seen: list[str]) -> anthropic.types.Message:
    """Stream PARAMS, noting each event type in ``seen``; the final message."""
    with client.messages.stream(**PARAMS) as stream:
        for event in stream:
            seen.append(event.type)
        return stream.get_final_message()


# -- answers ---------------------------------------------------------------------------


def test_streamed_answer_arrives_whole_and_is_logged(serve):
    lines: list[str] = []
    server, client = serve([ANSWER], log=lines.append)
    seen: list[str] = []
    message = read_stream(client, seen)
    assert message.content[0].text == "Hello from a real socket, one word at a time."
    assert seen[0] == "message_start" and seen[-1] == "message_stop"
    assert len(lines) == 1
    assert lines[0].endswith("#1 POST /v1/messages (stream) → 200 text · oracle ok")


def test_non_streaming_request_is_answered_with_json(serve):
    server, client = serve([ANSWER])
    message = client.messages.create(**PARAMS)
    assert message.content[0].text == "Hello from a real socket, one word at a time."
    assert message.stop_reason == "end_turn"
    assert server.entries[0].streaming is False


def test_slow_drip_parses_to_the_same_final_message(serve):
    server, client = serve([ANSWER, Reply(message=ANSWER.message, faults=(Drip(chunk=7, delay=0.05),))])
    plain = read_stream(client, [])
    dripped = read_stream(client, [])
    assert dripped.model_dump(exclude={"id"}) == plain.model_dump(exclude={"id"})
    assert "drip 7B/0.05s" in server.entries[1].line()


def test_delays_are_real_time_scaled_by_time_scale(serve):
    # real-time: about 0.25 s of drip
    server, client = serve([Reply(message={"text": "Slowly."}, faults=(Drip(chunk=200, delay=1.0),))], time_scale=0.05)
    started = time.monotonic()
    assert read_stream(client, []).content[0].text == "Slowly."
    chunks = len(server.responder.requests[0].plan.chunks)
    assert chunks >= 3
    assert time.monotonic() - started >= 0.9 * chunks * 0.05


# -- transport faults ------------------------------------------------------------------


@pytest.mark.parametrize("flavour", ["sync", "async"])
@pytest.mark.parametrize(
    ("how", "raised", "message"),
    [
        ("fin", httpx2.RemoteProtocolError, "incomplete chunked read"),
        ("rst", httpx2.ReadError, None),  # sync: "[Errno 104] Connection reset by peer"; async: no text
    ],
)
def test_mid_stream_cut_raises_httpx2s_error_raw_or_as_the_sdks_cause(serve, flavour, how, raised, message):
    server, client = serve([Reply(message=ANSWER.message, faults=(Cut(after_event=3, how=how),))])
    seen: list[str] = []

    def read_sync() -> None:
        with client.messages.create(**PARAMS, stream=True) as stream:
            for event in stream:
                seen.append(event.type)

    async def read_async() -> None:
        options = {"api_key": "test", "max_retries": 0, "http_client": anthropic.DefaultAsyncHttpxClient(verify=False)}
        async with anthropic.AsyncAnthropic(base_url=server.url, **options) as aclient:
            async with await aclient.messages.create(**PARAMS, stream=True) as stream:
                async for event in stream:
                    seen.append(event.type)

    with pytest.raises((raised, anthropic.APIConnectionError)) as caught:
        read_sync() if flavour == "sync" else asyncio.run(read_async())
    cause = read_failure(caught.value)
    assert isinstance(cause, raised) and re.search(message or "", str(cause)), repr(cause)
    assert seen == ["message_start", "content_block_start", "content_block_delta"]
    assert server.entries[0].fault == how


def test_rst_from_the_server_is_econnreset_on_this_machine(serve):
    server, client = serve([Reply(message=ANSWER.message, faults=(Cut(in_event=2, how="rst"),))])
    with pytest.raises((httpx2.ReadError, anthropic.APIConnectionError)) as caught:
        read_stream(client, [])
    cause = read_failure(caught.value)
    assert isinstance(cause, httpx2.ReadError) and "Connection reset by peer" in str(cause), repr(cause)


def test_cut_in_a_non_streaming_body_is_a_wrapped_connection_error(serve):
    server, client = serve([Reply(message=ANSWER.message, faults=(Cut(after_bytes=40),))])
    with pytest.raises(anthropic.APIConnectionError) as caught:
        client.messages.create(**PARAMS)
    assert isinstance(caught.value.__cause__, httpx2.RemoteProtocolError)


@pytest.mark.parametrize(
    ("fault", "cause"),
    [
        ("refused", httpx2.ReadError),  # accepted, then RST: a listening server cannot refuse
        ("empty", httpx2.RemoteProtocolError),
        ("garbage", httpx2.RemoteProtocolError),
    ],
)
def test_connection_fault_before_headers_is_api_connection_error(serve, fault, cause):
    server, client = serve([Reply(connection=fault), ANSWER])
    with pytest.raises(anthropic.APIConnectionError) as caught:
        read_stream(client, [])
    assert not isinstance(caught.value, anthropic.APITimeoutError)
    assert isinstance(caught.value.__cause__, cause)
    assert server.entries[0].status is None and server.entries[0].fault == fault
    assert read_stream(client, []).content[0].text  # the server goes on serving


@pytest.mark.parametrize("fault", ["read_timeout", "connect_timeout"])
def test_silent_connection_times_out_as_api_timeout_error(serve, fault):
    # real-time: the server keeps silent 0.5 s, the client gives up after 0.2 s
    server, client = serve([Reply(connection=fault)], timeout=0.2, time_scale=0.5 / 600)
    with pytest.raises(anthropic.APITimeoutError):  # had the server closed first: APIConnectionError
        read_stream(client, [])


def test_stall_mid_stream_with_a_short_client_timeout_raises_a_read_timeout(serve):
    # real-time: the server stalls 0.5 s, the client's read timeout (0.2 s) fires first
    stall = Reply(message=ANSWER.message, faults=(Stall(after_event=2, seconds=0.5),))
    server, client = serve([stall], time_scale=1.0, timeout=0.2)
    seen: list[str] = []
    with pytest.raises((httpx2.ReadTimeout, anthropic.APITimeoutError)) as caught:
        read_stream(client, seen)  # had the server closed first: RemoteProtocolError
    assert isinstance(read_failure(caught.value), httpx2.ReadTimeout)
    assert seen == ["message_start", "content_block_start"]


# -- HTTP errors -----------------------------------------------------------------------


def test_error_event_in_a_200_stream_is_api_status_error_200(serve):
    server, client = serve([Reply(message=ANSWER.message, faults=(ErrorEvent(after_event=2),))])
    with pytest.raises(anthropic.APIStatusError) as caught:
        read_stream(client, [])
    assert caught.value.status_code == 200
    assert to_model_error(caught.value).kind == "overloaded"


def test_overloaded_529_is_overloaded_error_with_retry_after(serve):
    server, client = serve([Reply(error="overloaded", headers={"retry-after": "2"})])
    with pytest.raises(anthropic.OverloadedError) as caught:
        read_stream(client, [])
    assert caught.value.status_code == 529
    assert caught.value.request_id == "req_harness_000001"
    error = to_model_error(caught.value)
    assert error.retry_after == 2.0 and error.retryable


def test_invalid_history_gets_the_api_400_and_the_log_shows_the_violation(serve):
    lines: list[str] = []
    server, client = serve([ANSWER], log=lines.append)
    with pytest.raises(anthropic.BadRequestError) as caught:
        client.messages.create(**PARAMS | {"messages": ORPHAN_RESULT})
    wording = (
        "messages.0.content.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_1. "
        "Each `tool_result` block must have a corresponding `tool_use` block in the previous message."
    )
    assert caught.value.body["error"] == {"type": "invalid_request_error", "message": wording}
    assert server.entries[0].violations == [wording]
    assert "→ 400 rejected by the oracle" in lines[0] and lines[0].endswith(f"oracle {wording}")
    assert client.messages.create(**PARAMS).content[0].text  # the reply was not used up


def test_request_beyond_the_queue_is_a_500_that_says_so(serve):
    server, client = serve([])
    with pytest.raises(anthropic.InternalServerError, match="has 0 replies"):
        client.messages.create(**PARAMS)
    assert "the agent made request 1" in server.entries[0].answer


def test_reply_that_cannot_be_served_is_a_500_and_the_log_says_why(serve):
    server, client = serve([Reply(message={"text": "plain ASCII"}, faults=(Cut(in_char=1),))])
    with pytest.raises(anthropic.InternalServerError) as caught:
        read_stream(client, [])
    assert caught.value.response.headers["x-should-retry"] == "false"
    assert "PositionError: `cut.in_char: 1`: no multi-byte UTF-8 character" in server.entries[0].answer


# -- the other endpoints, keep-alive, HTTP details -------------------------------------


def test_count_tokens_answers_without_using_the_queue(serve):
    server, client = serve([ANSWER])
    counted = client.messages.count_tokens(model=PARAMS["model"], messages=PARAMS["messages"])
    assert counted.input_tokens > 0
    assert server.responder.unused == [ANSWER] and server.responder.requests == []
    assert server.entries[0].answer == f"count_tokens {counted.input_tokens}"
    with pytest.raises(anthropic.BadRequestError, match="unexpected `tool_use_id`"):
        client.messages.count_tokens(model=PARAMS["model"], messages=ORPHAN_RESULT)


def test_models_are_listed_and_retrieved(serve):
    server, client = serve([])
    ids = [model.id for model in client.models.list()]
    assert "claude-opus-5-5" in ids
    assert client.models.retrieve("claude-opus-5-5").display_name == "Claude Opus 5.5"
    with pytest.raises(anthropic.NotFoundError):
        client.models.retrieve("claude-nonesuch")


def test_unknown_path_is_404_with_the_api_error_body(serve):
    server, client = serve([])
    response = httpx2.post(f"{server.url}/v1/complete", json={}, verify=False)
    assert response.status_code == 404
    assert response.json()["type"] == "error"
    assert response.json()["error"] == {"type": "not_found_error", "message": "Not found: POST /v1/complete"}


def test_keep_alive_serves_an_error_and_an_answer_on_one_connection(serve):
    server, client = serve([Reply(error="overloaded"), ANSWER])
    with pytest.raises(anthropic.OverloadedError):
        client.messages.create(**PARAMS)
    assert client.messages.create(**PARAMS).content[0].text
    first, second = server.entries
    assert first.peer == second.peer


def test_chunked_upload_with_expect_continue_is_read(serve):
    server, _ = serve([])
    body = json.dumps({"model": "m", "messages": PARAMS["messages"]}).encode()
    head = (
        "POST /v1/messages/count_tokens HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n"
        "Expect: 100-continue\r\nConnection: close\r\n\r\n"
    )
    with socket.create_connection(("127.0.0.1", server.port), timeout=2) as sock:
        sock.sendall(head.encode())
        assert sock.recv(100).startswith(b"HTTP/1.1 100 Continue\r\n\r\n")
        sock.sendall(b"%x\r\n%s\r\n0\r\n\r\n" % (len(body), body))
        answer = b"".join(iter(lambda: sock.recv(65536), b""))
    assert answer.startswith(b"HTTP/1.1 200 OK\r\n")
    assert b'"input_tokens"' in answer


def test_bytes_that_are_not_http_get_a_400(serve):
    server, _ = serve([])
    with socket.create_connection(("127.0.0.1", server.port), timeout=2) as sock:
        sock.sendall(b"hello there\r\n\r\n")
        answer = b"".join(iter(lambda: sock.recv(65536), b""))
    assert answer.startswith(b"HTTP/1.1 400 Bad Request\r\n")
    assert b"invalid_request_error" in answer


# -- sessions, concurrency -------------------------------------------------------------


def test_sessions_by_url_prefix_and_by_header_each_get_their_own_queue():
    def greeting_for(session: str) -> Responder:
        return Responder([Reply(message={"text": f"Hello, {session or 'nobody'}."})])

    lines: list[str] = []
    with FaultServer(sessions=greeting_for, time_scale=0, log=lines.append) as server:
        texts = []
        for suffix, headers in (("/s/alice", {}), ("", {"x-harness-session": "bob"}), ("", {}), ("/s/carol", {"x-harness-session": "bob"})):
            with sdk(server.url + suffix, default_headers=headers) as c:
                texts.append(c.messages.create(**PARAMS).content[0].text)
                assert c.models.list().data  # every endpoint takes the prefix
    assert texts == ["Hello, alice.", "Hello, bob.", "Hello, nobody.", "Hello, carol."]
    assert set(server.sessions) == {"alice", "bob", "", "carol"}
    assert "[alice] POST /s/alice/v1/messages" in lines[0] and "[bob] POST /v1/messages" in lines[2]


def test_without_a_session_factory_every_session_shares_the_one_queue():
    with FaultServer(Responder([Reply(message={"text": "one"}), Reply(message={"text": "two"})]), time_scale=0) as server:
        with sdk(server.url + "/s/x") as first, sdk(server.url) as second:
            assert first.messages.create(**PARAMS).content[0].text == "one"
            assert second.messages.create(**PARAMS).content[0].text == "two"
    assert [r.session for r in server.responder.requests] == ["x", None]


def test_clients_are_served_concurrently():
    # real-time: session "slow" drips for 0.3 s while session "quick" is answered
    def responder_for(session: str) -> Responder:
        drip = Drip(chunk=100_000, delay=0.3) if session == "slow" else None
        return Responder([Reply(message={"text": f"{session} answer"}, faults=(drip,) if drip else ())])

    finished: dict[str, float] = {}

    def ask(session: str) -> None:
        with sdk(server.url, default_headers={"x-harness-session": session}) as c:
            read_stream(c, [])
        finished[session] = time.monotonic()

    with FaultServer(sessions=responder_for, time_scale=1.0) as server:
        slow = threading.Thread(target=ask, args=("slow",))
        slow.start()
        time.sleep(0.05)  # real-time: let the slow request arrive first
        ask("quick")
        slow.join(5)
    assert finished["quick"] < finished["slow"]


# -- logs, start and stop --------------------------------------------------------------


def test_log_stream_and_json_lines_file(serve, tmp_path):
    stream, path = io.StringIO(), tmp_path / "server.jsonl"
    server, client = serve([Reply(error="overloaded"), Reply(connection="garbage")], log=stream, log_path=path)
    with pytest.raises(anthropic.OverloadedError):
        client.messages.create(**PARAMS)
    with pytest.raises(anthropic.APIConnectionError):
        client.messages.create(**PARAMS)
    server.close()
    assert len(stream.getvalue().splitlines()) == 2
    records = [json.loads(line) for line in path.read_text().splitlines()]
    assert [(r["status"], r["answer"], r["fault"], r["verdict"]) for r in records] == [
        (529, "error overloaded", None, "ok"),
        (None, "connection garbage", "garbage", "ok"),
    ]
    assert {"time", "elapsed", "method", "path", "peer", "session", "streaming", "violations"} <= set(records[0])


def test_port_in_use_is_a_one_line_server_error():
    with FaultServer(Responder([]), time_scale=0) as first:
        with pytest.raises(ServerError, match=rf"^port {first.port} on 127\.0\.0\.1 is in use$"):
            FaultServer(Responder([]), port=first.port).start()


def test_needs_a_responder_or_a_session_factory():
    with pytest.raises(ValueError, match="needs responder=, sessions= or both"):
        FaultServer()


SERVE_SCRIPT = """
import sys
from harness.wire.replies import Reply
from harness.scenario.fake_api.responder import Responder
from harness.serve.commands import serve_forever
from harness.serve.server import FaultServer
server = FaultServer(Responder([Reply(message={"text": "hi"})]), time_scale=0, log=sys.stdout).start()
serve_forever(server, ready=lambda: print(server.url, flush=True))
print("closed cleanly", flush=True)
"""


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_serve_forever_shuts_down_cleanly_on_signal(signum):
    process = subprocess.Popen(
        [sys.executable, "-c", SERVE_SCRIPT], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        url = process.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:"), process.stderr.read()
        with sdk(url) as client:
            assert client.messages.create(**PARAMS).content[0].text == "hi"
            process.send_signal(signum)
            out, err = process.communicate(timeout=10)
    finally:
        process.kill()
    assert process.returncode == 0, err
    assert "POST /v1/messages → 200 text" in out and out.endswith("closed cleanly\n")
    assert "Traceback" not in err
