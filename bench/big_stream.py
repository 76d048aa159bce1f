"""A big single-stream interaction replayed: the harness's ``CassetteTransport`` against
the SDK's floor on the same bytes.

The stream is one streamed message of ``megabytes`` MB of text in blocks of 20 kB (the
SDK joins a block's deltas by concatenation, which grows with the block, and an event
larger than a read by joining reads: small blocks keep the SDK's own cost linear, so the
floor is a straight line to measure against). The floor serves the body in 64 KiB reads, as a socket gives it to httpx2;
the harness's replay must do the same (``harness.wire.chunks``), and cost about what the
floor costs. It is timed at the full size and at a quarter of it: the growth per
megabyte says whether the replay is linear in the size.
"""

from __future__ import annotations

import json
from typing import Any

import anthropic
import httpx2

from harness.cassette.index import CassetteTransport
from harness.wire import sse
from harness.wire.chunks import WireBody

from .timing import interleaved, ratio

BLOCK_BYTES = 20_000
REQUEST = {"model": "claude-opus-5-5", "max_tokens": 64000, "messages": [{"role": "user", "content": "Write it all."}]}
SSE_HEADERS = {"content-type": "text/event-stream; charset=utf-8"}


def stream_body(megabytes: float) -> bytes:
    """The SSE body of one message with ``megabytes`` MB of text, in text blocks of
    ``BLOCK_BYTES`` each (one delta a block)."""
    count = max(1, int(megabytes * 1_000_000 / BLOCK_BYTES))
    blocks = [{"type": "text", "text": f"{n:08d}" + "x" * (BLOCK_BYTES - 8)} for n in range(count)]
    events = sse.message_events({"content": blocks}, message_id="msg_big", model=REQUEST["model"])
    return sse.encode_events(events)


def interaction(body: bytes) -> dict[str, Any]:
    """The body as one vcrpy interaction answering ``REQUEST`` (streamed)."""
    return {
        "request": {"method": "POST", "uri": "https://api.anthropic.com/v1/messages",
                    "body": json.dumps({**REQUEST, "stream": True}), "headers": {}},
        "response": {"status": {"code": 200, "message": "OK"}, "headers": {"content-type": [SSE_HEADERS["content-type"]]},
                     "body": {"string": body.decode("utf-8")}},
    }


def read_stream(transport: httpx2.BaseTransport) -> int:
    """One streamed request through the SDK, every event read; the text's length."""
    client = anthropic.Anthropic(api_key="bench", max_retries=0, http_client=httpx2.Client(transport=transport))
    with client.messages.stream(**REQUEST) as stream:
        for _ in stream:
            pass
        return sum(len(block.text) for block in stream.get_final_message().content)


def measure(megabytes: float, rounds: int) -> dict[str, Any]:
    """Floor and harness at ``megabytes`` and at a quarter of it, interleaved."""
    out: dict[str, Any] = {"megabytes": megabytes, "block_bytes": BLOCK_BYTES}
    contenders = {}
    for size in (megabytes, megabytes / 4):
        body = stream_body(size)
        cassette = [interaction(body)]

        def floor(body: bytes = body) -> None:
            def answer(request: httpx2.Request) -> httpx2.Response:
                return httpx2.Response(200, headers=SSE_HEADERS, stream=WireBody(body))

            assert read_stream(httpx2.MockTransport(answer)) >= len(body) // 2

        def harness(cassette: list[dict[str, Any]] = cassette, body: bytes = body) -> None:
            transport = CassetteTransport(cassette, match_on="order")
            assert read_stream(transport) >= len(body) // 2 and not transport.mismatches

        contenders[f"floor_{size:g}mb"], contenders[f"harness_{size:g}mb"] = floor, harness
        out[f"body_bytes_{size:g}mb"] = len(body)
    samples = interleaved(contenders, rounds=rounds, batch=1, warmup=False)
    full, quarter = f"{megabytes:g}mb", f"{megabytes / 4:g}mb"
    out["ms"] = {name: round(min(s.cpu) * 1000, 1) for name, s in samples.items()}
    out["harness_over_floor"] = ratio(samples[f"harness_{full}"], samples[f"floor_{full}"])
    per_mb = {name: min(s.cpu) / (megabytes if name.endswith(full) else megabytes / 4) for name, s in samples.items()}
    out["growth_per_mb_full_over_quarter"] = round(per_mb[f"harness_{full}"] / per_mb[f"harness_{quarter}"], 3)
    out["floor_growth_per_mb_full_over_quarter"] = round(per_mb[f"floor_{full}"] / per_mb[f"floor_{quarter}"], 3)
    return out
