"""The in-process transport: how bytes reach the client, and when."""

from __future__ import annotations

import httpx2

from harness.scenario.fake_api.responder import Responder
from harness.scenario.fake_api.transport import ScenarioTransport
from harness.wire.faults import Cut, Drip
from harness.wire.replies import Reply

REQUEST = b'{"model": "m", "max_tokens": 10, "stream": true, "messages": [{"role": "user", "content": "hi"}]}'


def chunks_of(reply: Reply) -> tuple[list[bytes], ScenarioTransport]:
    transport = ScenarioTransport([reply])
    request = httpx2.Request("POST", "https://api.anthropic.com/v1/messages", content=REQUEST)
    response = transport.handle_request(request)
    received: list[bytes] = []
    try:
        received.extend(response.stream)
    except httpx2.TransportError:
        pass
    return received, transport


def test_a_whole_stream_with_no_delays_arrives_in_one_read():
    received, _ = chunks_of(Reply(message={"text": "one two three four five six seven"}))
    assert len(received) == 1 and received[0].endswith(b"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n")


def test_a_whole_clean_reply_comes_already_read_and_a_broken_one_streams():
    whole = ScenarioTransport([Reply(message={"text": "all there"}), Reply(message={"text": "cut"}, faults=(Cut(after_event=2),))])
    request = httpx2.Request("POST", "https://api.anthropic.com/v1/messages", content=REQUEST)
    read = whole.handle_request(request)
    assert read.is_stream_consumed and read.content == whole.requests[0].plan.body
    assert whole.requests[0].finished == 0 and "content-length" not in read.headers  # the SSE headers as planned
    cut = whole.handle_request(request)
    assert not cut.is_stream_consumed and whole.requests[1].finished is None  # over only once the client has read it


def test_a_drip_keeps_its_chunks_even_without_delay():
    received, transport = chunks_of(Reply(message={"text": "hello"}, faults=(Drip(chunk=16, delay=0),)))
    assert len(received) > 1 and all(len(c) == 16 for c in received[:-1])
    assert transport.clock.now() == 0


def test_a_drip_lets_virtual_time_pass_per_chunk():
    received, transport = chunks_of(Reply(message={"text": "hello"}, faults=(Drip(chunk=64, delay=0.5),)))
    assert transport.clock.now() == 0.5 * len(received)


def test_a_cut_inside_an_event_keeps_the_split_frame():
    received, _ = chunks_of(Reply(message={"text": "hello world"}, faults=(Cut(in_event=3),)))
    body = b"".join(received)
    assert not body.endswith(b"\n\n")


def test_request_bodies_are_read_as_json_loads_reads_them():
    bodies = [
        b'{"model": "m", "max_tokens": 5, "messages": [{"role": "user", "content": "caf\\u00e9 \\ud800"}]}',
        b'\xef\xbb\xbf{"stream": true}',
        b"[NaN, 1e400, 12345678901234567890123]",
        b"not json \xff",
        b"",
    ]
    responder = Responder([Reply(message={"text": "ok"})] * len(bodies), check_requests=False)
    for body in bodies:
        responder.respond("POST", "/v1/messages", {}, body)
    seen = [r.body for r in responder.requests]
    assert seen[0]["messages"][0]["content"] == "café \ud800"
    assert seen[1] == {"stream": True}
    assert repr(seen[2]) == "[nan, inf, 12345678901234567890123]"
    assert seen[3] == "not json \ufffd"
    assert seen[4] is None
