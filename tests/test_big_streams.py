"""A replayed or served body reaches the client in socket-sized reads, never as one
block, whatever its size; a big single-stream interaction replays whole."""

from __future__ import annotations

import httpx2

from bench.big_stream import interaction, read_stream, stream_body
from harness.cassette.index import CassetteIndex, CassetteTransport
from harness.scenario.fake_api.transport import ScenarioTransport
from harness.wire.chunks import WIRE_READ
from harness.wire.replies import Reply


def reads_of(response: httpx2.Response) -> list[bytes]:
    """The pieces the client reads (a small body comes already read: one piece)."""
    return list(response.iter_bytes())


def test_a_recorded_body_is_replayed_in_reads_of_at_most_64_kib() -> None:
    body = stream_body(1)
    response = CassetteIndex([interaction(body)], match_on="order").response(0)
    reads = reads_of(response)
    assert b"".join(reads) == body
    assert len(reads) == -(-len(body) // WIRE_READ) and max(map(len, reads)) == WIRE_READ


def test_a_scenario_reply_is_served_in_reads_of_at_most_64_kib() -> None:
    client = httpx2.Client(transport=ScenarioTransport([Reply(message={"text": "x" * 500_000})], clock=None))
    with client.stream("POST", "http://x/v1/messages", json={"model": "m", "max_tokens": 5, "stream": True,
                                                           "messages": [{"role": "user", "content": "hi"}]}) as response:
        reads = reads_of(response)
    assert len(reads) > 1 and max(map(len, reads)) <= WIRE_READ
    assert b"".join(reads).count(b"event: content_block_delta") >= 1


def test_a_small_reply_is_still_one_read() -> None:
    body = stream_body(0.01)
    assert len(reads_of(CassetteIndex([interaction(body)], match_on="order").response(0))) == 1


def test_an_8_mb_single_stream_interaction_replays_whole_through_the_sdk() -> None:
    body = stream_body(8)
    transport = CassetteTransport([interaction(body)], match_on="order")
    assert read_stream(transport) >= 7_900_000 and transport.mismatches == [] and transport.unused == []
