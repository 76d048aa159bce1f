"""A body as a socket hands it to a client: in reads of at most ``WIRE_READ`` bytes
(httpcore reads 64 KiB at a time), never as one block however large it is. A replayed
or served body goes through here, so the SDK meets a 40 MB stream the way it meets the
real one."""

from __future__ import annotations

from typing import Any, AsyncIterator, Iterator

import httpx2

WIRE_READ = 64 * 1024


def wire_reads(data: bytes, size: int = WIRE_READ) -> Iterator[bytes]:
    """``data`` in pieces of at most ``size`` bytes (one piece if it is smaller)."""
    if len(data) <= size:
        if data:
            yield data
        return
    view = memoryview(data)
    for start in range(0, len(data), size):
        yield bytes(view[start : start + size])


def whole_frames_at_once(chunks: list[bytes], delays: list[float]) -> bool:
    """Whether a plan's chunks arrive with no time between them and every boundary
    between two chunks ends an SSE frame: they may then go out as one write (a drip, or
    any split inside a frame, keeps its chunks)."""
    return (
        len(chunks) == len(delays) > 1
        and not any(delay > 0 for delay in delays[1:])
        and all(chunk.endswith(b"\n\n") for chunk in chunks[:-1])
    )


def wire_response(status: int, headers: Any, body: bytes, *, extensions: dict | None = None) -> httpx2.Response:
    """A whole body as a client gets it. One that fits a single socket read is handed over
    read, as a ``MockTransport`` answer is: the same bytes in the one read they would take
    anyway, and the client skips its per-read stream machinery (about a tenth of what the
    SDK spends on a typical streamed reply). A larger one comes in socket-sized reads."""
    if len(body) > WIRE_READ:
        return httpx2.Response(status, headers=headers, stream=WireBody(body), extensions=extensions)
    response = httpx2.Response(status, headers=headers, stream=httpx2.ByteStream(body), extensions=extensions)
    response.read()
    return response


class WireBody(httpx2.SyncByteStream, httpx2.AsyncByteStream):
    """A whole body served in socket-sized reads, to a sync or an async client."""

    def __init__(self, data: bytes) -> None:
        self.data = data

    def __iter__(self) -> Iterator[bytes]:
        return wire_reads(self.data)

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for piece in wire_reads(self.data):
            yield piece
