"""When each part of a recorded answer arrived, kept in the cassette beside the response,
under a key vcrpy carries along and never reads (it reads ``status``, ``headers`` and
``body``), so the cassette stays a vcrpy cassette:

    response:
      status: {code: 200, message: OK}
      headers: …
      body: {string: …}
      timing: {headers: 0.412, first_event: 0.803, gaps: [0.021, 0.0, 0.054, …]}

``headers``: seconds from the request to the headers; ``first_event``: from the headers
to the end of the first SSE event (for a JSON body: to its last byte); ``gaps``: each
later event after the one before, to the millisecond. An answer that came all at once
(every time 0: a recording on virtual time) keeps none. A replay serves the body at that
pace (``harness.wire.recorded_pace``), byte for byte.

vcrpy reads a response whole before anyone sees it, so the times are taken beneath it:
``Stopwatch.watch`` puts itself between an httpx2 transport and its connection pool
(``HTTPTransport._pool``; ``check_pool_hook`` fails loudly should httpx2 rename it), and
vcrpy's ``before_record_response`` hook (``Stopwatch.stamp``) finds the times by the
body's bytes.
"""

from __future__ import annotations

import hashlib
import time
import zlib
from collections import OrderedDict
from typing import Any, AsyncIterator, Callable, Iterator

import httpx2

from harness.wire.recorded_pace import TIMING_KEY

_KEPT = 256  # answers timed but not yet stamped (a recording stamps each at once)


def check_pool_hook(transport: Any) -> None:
    """RuntimeError unless ``transport`` keeps its connection pool in ``_pool``."""
    method = "handle_async_request" if _is_async(transport) else "handle_request"
    if not hasattr(getattr(transport, "_pool", None), method):
        raise RuntimeError(
            f"this httpx2 ({httpx2.__version__}) transport has no _pool: the recorder cannot time the answers"
        )


def _is_async(transport: Any) -> bool:
    return isinstance(transport, httpx2.AsyncBaseTransport)


class Stopwatch:
    """Times the answers of the transports it watches; ``stamp`` writes them into vcrpy's
    response dicts."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self._timed: OrderedDict[bytes, dict[str, Any]] = OrderedDict()

    def watch(self, transport: httpx2.BaseTransport | httpx2.AsyncBaseTransport) -> None:
        """Time every answer ``transport`` gets from now on."""
        check_pool_hook(transport)
        pool = transport._pool  # type: ignore[attr-defined]
        transport._pool = (_AsyncTimedPool if _is_async(transport) else _TimedPool)(pool, self)  # type: ignore[attr-defined]

    def stamp(self, response: dict[str, Any]) -> dict[str, Any]:
        """vcrpy's ``before_record_response``, before scrubbing: the answer's times, found
        by its body's bytes as they came."""
        body = (response.get("body") or {}).get("string")
        if isinstance(body, str):
            body = body.encode("utf-8")
        timing = self._timed.pop(_digest(body or b""), None)
        if timing is not None:
            response[TIMING_KEY] = timing
        return response

    def finished(self, started: float, headers_at: float, encoding: str, arrivals: list[tuple[float, bytes]]) -> None:
        timing = event_timing(started, headers_at, encoding, arrivals)
        if not (timing["headers"] or timing["first_event"] or any(timing["gaps"])):
            return
        self._timed[_digest(b"".join(chunk for _, chunk in arrivals))] = timing
        while len(self._timed) > _KEPT:
            self._timed.popitem(last=False)


def event_timing(started: float, headers_at: float, encoding: str, arrivals: list[tuple[float, bytes]]) -> dict[str, Any]:
    """``{headers, first_event, gaps}`` from when each raw chunk came (decoded as it
    came, when the body is gzip- or deflate-compressed)."""
    decoder = zlib.decompressobj(16 + zlib.MAX_WBITS) if encoding == "gzip" else (
        zlib.decompressobj() if encoding == "deflate" else None)
    ends, pending = [], b""
    for at, chunk in arrivals:
        pending += decoder.decompress(chunk) if decoder is not None else chunk
        frames = pending.count(b"\n\n")
        ends += [at] * frames
        pending = pending.rsplit(b"\n\n", 1)[1] if frames else pending
    if not ends and arrivals:  # not a stream: the body is whole with its last byte
        ends = [arrivals[-1][0]]
    first = ends[0] - headers_at if ends else 0.0
    return {"headers": _ms(headers_at - started), "first_event": _ms(first),
            "gaps": [_ms(after - before) for before, after in zip(ends, ends[1:])]}


def _ms(seconds: float) -> float:
    return round(max(0.0, seconds), 3)


def _digest(body: bytes) -> bytes:
    return hashlib.blake2b(body, digest_size=16).digest()


def _encoding(headers: Any) -> str:
    for name, value in headers or ():
        if bytes(name).lower() == b"content-encoding":
            return bytes(value).decode("latin-1").strip().lower()
    return ""


class _TimedPool:
    """A connection pool whose answers are timed as their bytes come."""

    def __init__(self, pool: Any, stopwatch: Stopwatch) -> None:
        self._pool, self._stopwatch = pool, stopwatch

    def handle_request(self, request: Any) -> Any:
        clock = self._stopwatch.clock
        started = clock()
        response = self._pool.handle_request(request)
        response.stream = _TimedStream(response.stream, self._stopwatch, started, clock(), _encoding(response.headers))
        return response

    def __getattr__(self, name: str) -> Any:
        return getattr(self._pool, name)


class _AsyncTimedPool(_TimedPool):
    async def handle_async_request(self, request: Any) -> Any:
        clock = self._stopwatch.clock
        started = clock()
        response = await self._pool.handle_async_request(request)
        response.stream = _TimedStream(response.stream, self._stopwatch, started, clock(), _encoding(response.headers))
        return response


class _TimedStream:
    """A response body stream that notes when each chunk came and, at its end, hands the
    times to the stopwatch."""

    def __init__(self, stream: Any, stopwatch: Stopwatch, started: float, headers_at: float, encoding: str) -> None:
        self._stream, self._stopwatch = stream, stopwatch
        self._started, self._headers_at, self._encoding = started, headers_at, encoding
        self._arrivals: list[tuple[float, bytes]] = []

    def __iter__(self) -> Iterator[bytes]:
        for chunk in self._stream:
            self._arrivals.append((self._stopwatch.clock(), chunk))
            yield chunk
        self._done()

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for chunk in self._stream:
            self._arrivals.append((self._stopwatch.clock(), chunk))
            yield chunk
        self._done()

    def _done(self) -> None:
        self._stopwatch.finished(self._started, self._headers_at, self._encoding, self._arrivals)

    def close(self) -> None:
        if hasattr(self._stream, "close"):
            self._stream.close()

    async def aclose(self) -> None:
        if hasattr(self._stream, "aclose"):
            await self._stream.aclose()
