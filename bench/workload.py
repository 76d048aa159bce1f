"""The benchmark's workload: one typical request, one typical streamed tool_use reply,
the SDK's floor (a bare ``httpx2.MockTransport``), and cassettes recorded from it.

Every contender serves the same bytes: the SSE body the harness itself writes for
``REPLY_SPEC``, so the SDK parses identical streams on every path.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anthropic
import httpx2
import vcr

from harness.cassette.vcr_setup import make_vcr
from harness.oracle import check_request
from harness.scenario.fake_api.transport import plan_response
from harness.wire import json_body, sse
from harness.wire.chunks import wire_response
from harness.wire.clock import VirtualClock
from harness.wire.plan import WirePlan
from harness.wire.planner import stream_frames
from harness.wire.replies import Reply
from mini_agent.model import FALLBACK_BETA
from mini_agent.settings import DEFAULT_MODEL, DEFAULT_SYSTEM
from mini_agent.tools import ToolRegistry, default_tools

API_KEY = "bench-key"

# The reply: a sentence, then a Write call whose input is ~200 characters of JSON.
REPLY_SPEC: dict[str, Any] = {
    "text": "I'll write the configuration file with the settings you asked for.",
    "tool_use": {
        "name": "Write",
        "input": {
            "file_path": "config/settings.toml",
            "content": (
                '[server]\nhost = "127.0.0.1"\nport = 8080\nworkers = 4\n\n'
                '[logging]\nlevel = "info"\nformat = "json"\nfile = "logs/server.log"\n'
            ),
        },
    },
}

# The request: what mini_agent sends on the second request of a turn (system, three
# tools, a user line, one tool round), with the fallback beta.
MESSAGES: list[dict[str, Any]] = [
    {"role": "user", "content": "Set up a config file for the server in config/settings.toml."},
    {
        "role": "assistant",
        "content": [
            {"type": "text", "text": "Let me look at the project first."},
            {"type": "tool_use", "id": "toolu_bench_01", "name": "Bash", "input": {"command": "ls -la"}},
        ],
    },
    {
        "role": "user",
        "content": [
            {
                "type": "tool_result",
                "tool_use_id": "toolu_bench_01",
                "content": "total 8\n-rw-r--r-- 1 u u 120 README.md\ndrwxr-xr-x 2 u u 4096 src\n",
            }
        ],
    },
]
TOOLS = ToolRegistry(default_tools(), cwd=Path("."), max_output=30_000).definitions()
REQUEST: dict[str, Any] = {
    "model": DEFAULT_MODEL,
    "max_tokens": 8192,
    "messages": MESSAGES,
    "tools": TOOLS,
    "system": DEFAULT_SYSTEM,
    "betas": [FALLBACK_BETA],
    "fallbacks": "default",
}
SSE_HEADERS = {"content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache"}


def message_id(n: int) -> str:
    """The id of reply ``n``, as the harness numbers its replies."""
    return f"msg_harness_{n:06d}"


def reply_body(n: int = 1) -> bytes:
    """The SSE body of reply ``n``: the harness's own framing of ``REPLY_SPEC``."""
    return sse.encode_events(sse.message_events(REPLY_SPEC, message_id=message_id(n), model=DEFAULT_MODEL))


def call(client: anthropic.Anthropic, request: dict[str, Any] = REQUEST) -> Any:
    """One request as mini_agent makes it: stream, read every event, the final message."""
    with client.beta.messages.stream(**request) as stream:
        for _ in stream:
            pass
        return stream.get_final_message()


def floor_client(bodies: Iterator[bytes]) -> anthropic.Anthropic:
    """The SDK's floor: a bare MockTransport answering each request with the next body."""

    def handler(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, headers=SSE_HEADERS, content=next(bodies))

    return _client(httpx2.MockTransport(handler))


def offline_client() -> anthropic.Anthropic:
    """A client for vcrpy replay: vcrpy patches MockTransport, and the handler makes sure
    that nothing is ever answered by anything but the cassette."""

    def handler(request: httpx2.Request) -> httpx2.Response:
        raise AssertionError(f"vcrpy let a request through: {request.method} {request.url}")

    return _client(httpx2.MockTransport(handler))


def transport_client(transport: httpx2.BaseTransport) -> anthropic.Anthropic:
    """An SDK client over any transport (the harness's CassetteTransport)."""
    return _client(transport)


def required_work_client() -> anthropic.Anthropic:
    """The work no fake API of this design can skip, and nothing else: the request's JSON
    parsed, checked by the oracle, the reply rendered as SSE frames and handed over. No
    record, no queue, no plan, no clock: ``b`` can come near this, never under it."""
    reply = Reply(message=REPLY_SPEC)
    headers = {**SSE_HEADERS, "request-id": "req_bench"}

    class RequiredWork(httpx2.BaseTransport):
        def handle_request(self, request: httpx2.Request) -> httpx2.Response:
            body = json_body.loads(request.read())
            if check_request(body):
                raise AssertionError("the bench's request must be valid")
            _, frames = stream_frames(reply, message_id=message_id(1), model=body["model"])
            return wire_response(200, headers, b"".join(frames))

    return _client(RequiredWork())


def session_request(n: int) -> dict[str, Any]:
    """Request ``n`` of a session: the typical request, its user line numbered (so that
    every recorded request body is different, as in a real session)."""
    first = dict(MESSAGES[0], content=f"Task {n}: {MESSAGES[0]['content']}")
    return dict(REQUEST, messages=[first, *MESSAGES[1:]])


def record_cassette(path: Path, count: int) -> None:
    """A cassette of ``count`` identical requests, recorded by plain vcrpy (the
    ``authorization`` header filtered) from the floor transport."""
    client = floor_client(iter([reply_body(n) for n in range(1, count + 1)]))
    with vcr.use_cassette(str(path), record_mode="all", filter_headers=["authorization", "x-api-key"]):
        for _ in range(count):
            call(client)


def record_session(path: Path, requests: list[dict[str, Any]]) -> None:
    """A session cassette recorded the harness's way (``make_vcr``: allowlisted headers,
    scrubbed bodies, atomic write): request ``n`` answered by ``reply_body(n)``."""
    client = floor_client(iter([reply_body(n) for n in range(1, len(requests) + 1)]))
    with make_vcr(record_mode="all").use_cassette(str(path)):
        for request in requests:
            call(client, request)


def replay_exchanges(runs: list[list[tuple[dict[str, Any], list[str], WirePlan]]]) -> None:
    """The SDK alone on the exchanges of recorded runs: for each run a new client, as
    the harness makes one per scenario; each request (its body and betas) sent as
    mini_agent sends it and answered by a bare transport with the response the harness
    planned for it, in the same chunks and with the same ending, read to the end;
    errors are caught, as the agent catches them."""
    clock = VirtualClock()
    for exchanges in runs:
        plans = iter([plan for _, _, plan in exchanges])

        def handler(request: httpx2.Request, plans: Iterator[WirePlan] = plans) -> httpx2.Response:
            return plan_response(next(plans), request, clock)

        client = _client(httpx2.MockTransport(handler))
        for body, betas, _ in exchanges:
            request = {k: v for k, v in body.items() if k != "stream"} | ({"betas": betas} if betas else {})
            try:
                call(client, request)
            except (Exception, KeyboardInterrupt):  # noqa: BLE001 - the agent survives them all too
                pass


def history(size: int) -> list[dict[str, Any]]:
    """A valid conversation of ``size`` messages: a user line, then rounds of an assistant
    text + tool_use and the user's tool_result."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": MESSAGES[0]["content"]}]
    round_ = 0
    while len(messages) < size:
        round_ += 1
        tool_id = f"toolu_bench_{round_:05d}"
        messages.append(
            {
                "role": "assistant",
                "content": [
                    {"type": "text", "text": REPLY_SPEC["text"]},
                    {"type": "tool_use", "id": tool_id, "name": "Write", "input": REPLY_SPEC["tool_use"]["input"]},
                ],
            }
        )
        messages.append(
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": tool_id, "content": "Wrote 142 bytes"}]}
        )
    return messages[:size]


def _client(transport: httpx2.BaseTransport) -> anthropic.Anthropic:
    return anthropic.Anthropic(api_key=API_KEY, max_retries=0, http_client=httpx2.Client(transport=transport))
