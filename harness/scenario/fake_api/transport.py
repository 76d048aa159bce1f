"""The one test seam: httpx2 transports that answer from a Responder, in process.

Built on ``httpx2.BaseTransport`` / ``AsyncBaseTransport`` (not MockTransport, which
vcrpy patches). Broken connections raise exactly what httpx2 raises for the real
thing; the SDK wraps them (before the response) or lets them through (mid-body).

Time is the clock's: the wait before the headers and before each chunk advances it, and
a wait longer than the request's read timeout (``timeout.read``, the SDK's ``timeout``:
its stream-idle timeout) ends in ``httpx2.ReadTimeout`` once that much has passed, as on
a socket, at once and the same every run.
"""

from __future__ import annotations

import asyncio
import signal
import threading
from typing import AsyncIterator, Callable, Iterable, Iterator

import httpx2

from harness.scenario.fake_api.exchange import Exchange
from harness.scenario.fake_api.responder import Responder
from harness.scenario.fake_api.side_endpoints import side_answer
from harness.wire.chunks import (
    WIRE_READ,
    whole_frames_at_once,
    wire_reads,
    wire_response,
)
from harness.wire.clock import VirtualClock
from harness.wire.plan import CLIENT_READ_TIMEOUT, WirePlan
from harness.wire.replies import Reply

CONNECT_TIMEOUT = 5.0


class _PlanStream(httpx2.SyncByteStream, httpx2.AsyncByteStream):
    """A plan's body as an httpx2 byte stream: its chunks, with virtual time passing
    between them, then the ending the plan says (a cut, a stall, Ctrl+C)."""

    def __init__(
        self, plan: WirePlan, clock: VirtualClock, on_end: Callable[[], None] | None = None, read_timeout: float | None = None,
        on_timeout: Callable[[], None] | None = None,
    ) -> None:
        self.plan = plan
        self.clock = clock
        self.on_end = on_end
        self.read_timeout = read_timeout
        self.on_timeout = on_timeout

    def _wait(self, seconds: float) -> None:
        try:
            wait(self.clock, seconds, self.read_timeout)
        except httpx2.ReadTimeout:
            if self.on_timeout is not None:
                self.on_timeout()
            raise

    def __iter__(self) -> Iterator[bytes]:
        chunks, delays = self.plan.chunks, self.plan.delays
        try:
            if whole_frames_at_once(chunks, delays):
                # What is already there arrives in socket-sized reads: the same bytes at the
                # same virtual time, fewer reads than frames for a typical reply (it spares the
                # client its per-read cost, ~15 µs a chunk in the SDK), and a 40 MB body in
                # 64 KiB reads, as the wire gives it, never as one block.
                self._wait(delays[0])
                yield from wire_reads(b"".join(chunks))
            else:
                for chunk, delay in zip(chunks, delays):
                    self._wait(delay)
                    yield from wire_reads(chunk)
            raise_ending(self.plan, self.clock)
        finally:
            if self.on_end is not None:
                self.on_end()

    async def __aiter__(self) -> AsyncIterator[bytes]:
        try:
            for chunk in self:  # the sync walk never blocks: time is virtual
                yield chunk
        except KeyboardInterrupt:
            # Ctrl+C as a terminal delivers it: the signal itself, so that an async turn run
            # as asyncio.run runs it is cancelled at this await (without such a handler the
            # signal raises KeyboardInterrupt right here, as before)
            if threading.current_thread() is threading.main_thread():
                signal.raise_signal(signal.SIGINT)
                await asyncio.sleep(0)
            raise


def wait(clock: VirtualClock, seconds: float, read_timeout: float | None, request: httpx2.Request | None = None) -> None:
    """Let ``seconds`` pass before the next bytes, or raise ReadTimeout once the client's
    read timeout has passed first."""
    if read_timeout is not None and seconds > read_timeout:
        clock.advance(read_timeout)
        raise httpx2.ReadTimeout("The read operation timed out", request=request)
    clock.advance(seconds)


def read_timeout(request: httpx2.Request) -> float | None:
    """The request's read timeout (None: it waits for ever)."""
    return request.extensions.get("timeout", {}).get("read", CLIENT_READ_TIMEOUT)


def raise_ending(plan: WirePlan, clock: VirtualClock) -> None:
    """Raise what a client sees when the body ends the way ``plan`` says."""
    if plan.ending == "fin":
        raise httpx2.RemoteProtocolError(
            "peer closed connection without sending complete message body (incomplete chunked read)"
        )
    if plan.ending == "rst":
        raise httpx2.ReadError("[Errno 104] Connection reset by peer")
    if plan.ending == "stall":
        clock.advance(plan.stall_seconds)
        raise httpx2.ReadTimeout("The read operation timed out")
    if plan.ending == "interrupt":
        raise KeyboardInterrupt


def raise_connection_fault(fault: str, request: httpx2.Request, clock: VirtualClock) -> None:
    """Raise what httpx2 raises when the connection fails before any response."""
    timeouts = request.extensions.get("timeout", {})
    if fault == "refused":
        raise httpx2.ConnectError("[Errno 111] Connection refused", request=request)
    if fault == "connect_timeout":
        clock.advance(timeouts.get("connect") or CONNECT_TIMEOUT)
        raise httpx2.ConnectTimeout("timed out", request=request)
    if fault == "read_timeout":
        clock.advance(timeouts.get("read") or CLIENT_READ_TIMEOUT)
        raise httpx2.ReadTimeout("The read operation timed out", request=request)
    if fault == "empty":
        raise httpx2.RemoteProtocolError("Server disconnected without sending a response.", request=request)
    if fault == "garbage":
        raise httpx2.RemoteProtocolError("illegal status line: bytearray(b'\\x16\\x03garbage')", request=request)
    raise ValueError(f"unknown connection fault {fault!r}")


def plan_response(
    plan: WirePlan, request: httpx2.Request, clock: VirtualClock, on_end: Callable[[], None] | None = None,
    on_timeout: Callable[[], None] | None = None,
) -> httpx2.Response:
    """What httpx2 hands the client for ``plan``: the response, its body streamed as the
    plan says; or the connection fault raised, when there is no response at all.
    ``on_timeout``: called when the client's read timeout ends a wait of the plan's."""
    if plan.connection is not None:
        try:
            raise_connection_fault(plan.connection, request, clock)
        finally:
            if on_end is not None:
                on_end()
    if plan.head_delay:
        try:
            wait(clock, plan.head_delay, read_timeout(request), request)
        except httpx2.ReadTimeout:
            for call in (on_timeout, on_end):
                if call is not None:
                    call()
            raise
    if _all_there(plan):  # nothing to time and nothing to break: the body as it arrives in one read
        response = wire_response(plan.status, plan.headers, plan.body)
        if on_end is not None:
            on_end()
        return response
    return httpx2.Response(plan.status, headers=plan.headers, stream=_PlanStream(plan, clock, on_end, read_timeout(request), on_timeout))


def _all_there(plan: WirePlan) -> bool:
    """Whether a plan's body is all there at once (no time before or between its chunks,
    no split inside a frame), ends cleanly, and fits one socket read."""
    return (
        plan.ending == "complete"
        and not any(delay > 0 for delay in plan.delays)
        and (len(plan.chunks) <= 1 or whole_frames_at_once(plan.chunks, plan.delays))
        and sum(map(len, plan.chunks)) <= WIRE_READ
    )


class _Base:
    def __init__(self, replies: Iterable[Reply] | Responder = (), *, clock: VirtualClock | None = None) -> None:
        self.responder = replies if isinstance(replies, Responder) else Responder(replies, clock=clock)
        self.clock = self.responder.clock
        self.side_requests = 0  # answered by ``side_endpoints``

    @property
    def requests(self) -> list[Exchange]:
        """Every request received, in order."""
        return self.responder.requests

    def _respond(self, request: httpx2.Request, content: bytes) -> httpx2.Response:
        side = side_answer(request.method, request.url.path, content, f"req_harness_side_{self.side_requests + 1:06d}")
        if side is not None:  # token counting, the model list: no scripted reply, no request of the conversation
            self.side_requests += 1
            return plan_response(side.plan, request, self.clock)
        plan = self.responder.respond(request.method, request.url.path, request.headers, content)
        record = self.responder.requests[-1]
        return plan_response(plan, request, self.clock, lambda: record.ended(self.clock.now()),
                             lambda: setattr(record, "timed_out", True))


class ScenarioTransport(_Base, httpx2.BaseTransport):
    """Sync transport: ``anthropic.Anthropic(http_client=httpx2.Client(transport=...))``."""

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        return self._respond(request, request.read())


class AsyncScenarioTransport(_Base, httpx2.AsyncBaseTransport):
    """Async transport: ``anthropic.AsyncAnthropic(http_client=httpx2.AsyncClient(transport=...))``."""

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        return self._respond(request, await request.aread())
