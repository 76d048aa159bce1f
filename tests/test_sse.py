"""harness.wire.sse: message specs become the live API's SSE bytes, and the real SDK reads
them as the message that ``final_message`` predicts."""

from __future__ import annotations

import json
import re
from typing import Any

import anthropic
import httpx2
import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness.strategies.replies import replies
from harness.wire.blocks import json_pieces
from harness.wire.faults import (
    BadData,
    Duplicate,
    EndEarly,
    ErrorEvent,
    Insert,
    Pings,
    Swap,
)
from harness.wire.faults.bad_data import BAD_DATA, BAD_DATA_FRAME
from harness.wire.faults.base import ByteFault, PositionError
from harness.wire.faults.insert import InsertedEvent
from harness.wire.planner import plan_reply, stream_events
from harness.wire.replies import Reply
from harness.wire.sse import (
    encode_event,
    encode_events,
    encode_rendered,
    message_events,
    non_streaming_body,
    ping_event,
)
from harness.wire.sse_parse import SSEFrame, decode_events, final_message, parse_frames

ID_PATTERN = re.compile(r"^[a-zA-Z0-9_-]+$")
MESSAGES = [{"role": "user", "content": "hi"}]


class ServeBody(httpx2.BaseTransport):
    """Answers every request with one fixed 200 body."""

    def __init__(self, body: bytes, content_type: str = "text/event-stream") -> None:
        self.body, self.content_type = body, content_type

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, headers={"content-type": self.content_type}, content=self.body)


def client_for(body: bytes, content_type: str = "text/event-stream") -> anthropic.Anthropic:
    transport = ServeBody(body, content_type)
    return anthropic.Anthropic(api_key="test", max_retries=0, http_client=httpx2.Client(transport=transport))


def sdk_stream_final(body: bytes) -> dict:
    """What the SDK's stream helper makes of an SSE body."""
    with client_for(body).beta.messages.stream(model="claude-sonnet-4-5", max_tokens=1024, messages=MESSAGES) as s:
        return s.get_final_message().model_dump(by_alias=True)  # API names: "from", not "from_"


def without_none(value: Any) -> Any:
    """``value`` with None-valued keys dropped at every depth (the SDK's models carry
    every optional field as None)."""
    if isinstance(value, dict):
        return {k: without_none(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [without_none(v) for v in value]
    return value


def assert_sdk_agrees(events: list[dict]) -> dict:
    """The SDK reads ``encode_events(events)`` as ``final_message(events)``; returns the latter."""
    ours, sdk = final_message(events), sdk_stream_final(encode_events(events))
    for key in ("id", "model", "content", "stop_reason", "stop_sequence", "usage"):
        assert without_none(sdk[key]) == without_none(ours[key]), key
    return ours


def deltas(events: list[dict], index: int) -> list[dict]:
    return [e["delta"] for e in events if e["type"] == "content_block_delta" and e["index"] == index]


def event_types(events: list[dict]) -> list[str]:
    return [e["type"] for e in events]


# --- message_events --------------------------------------------------------------------


def test_text_reply_is_one_block_of_word_pieces_that_join_to_the_text():
    text = "The README describes a small demo project with two files and one test."
    events = message_events({"text": text}, message_id="msg_1")
    assert event_types(events) == [
        "message_start",
        "content_block_start",
        *["content_block_delta"] * len(deltas(events, 0)),
        "content_block_stop",
        "message_delta",
        "message_stop",
    ]
    pieces = [d["text"] for d in deltas(events, 0)]
    assert "".join(pieces) == text
    assert len(pieces) > 2
    assert all(len(p) >= 20 for p in pieces[:-1])
    assert all(p[0].isspace() for p in pieces[1:]), "pieces break between words"
    assert events[-2]["delta"]["stop_reason"] == "end_turn"


def test_text_reply_reads_back_through_the_sdk_as_final_message_says():
    message = assert_sdk_agrees(message_events({"text": "Hello, café ☕ — done.\nBye."}, message_id="msg_1"))
    assert message["content"] == [{"type": "text", "text": "Hello, café ☕ — done.\nBye."}]


def test_tool_use_input_streams_as_json_after_an_empty_first_piece():
    tool = {"name": "Write", "input": {"file_path": "notes.md", "content": "line one\nline two é"}}
    events = message_events({"text": "Writing it.", "tool_use": tool}, message_id="msg_abc")
    pieces = [d["partial_json"] for d in deltas(events, 1)]
    assert pieces[0] == ""
    assert len(pieces) > 2
    assert "".join(pieces) == json.dumps(tool["input"], ensure_ascii=False)
    message = assert_sdk_agrees(events)
    assert message["stop_reason"] == "tool_use"
    assert message["content"][1]["input"] == tool["input"]


def test_tool_use_with_empty_input_sends_only_the_empty_piece_as_live():
    events = message_events({"tool_use": {"name": "Now"}}, message_id="msg_1")
    assert deltas(events, 0) == [{"type": "input_json_delta", "partial_json": ""}]
    assert assert_sdk_agrees(events)["content"][0]["input"] == {}


def test_several_tool_uses_get_distinct_valid_ids_in_block_order():
    tools = [{"name": "Read", "input": {"file_path": f"f{n}.py"}} for n in range(3)]
    events = message_events({"tool_use": tools}, message_id="msg_01X.y/z")
    blocks = assert_sdk_agrees(events)["content"]
    ids = [b["id"] for b in blocks]
    assert ids == ["toolu_01Xyz_1", "toolu_01Xyz_2", "toolu_01Xyz_3"]
    assert all(ID_PATTERN.match(i) for i in ids)
    assert [b["input"]["file_path"] for b in blocks] == ["f0.py", "f1.py", "f2.py"]
    starts = [e["index"] for e in events if e["type"] == "content_block_start"]
    assert starts == [0, 1, 2]


def test_tool_use_id_and_prefix_can_be_chosen():
    spec = {"tool_use": [{"name": "Bash", "input": {}, "id": "toolu_given"}, {"name": "web_search"}]}
    blocks = final_message(message_events(spec, message_id="msg_7", tool_id_prefix="srvtoolu_"))["content"]
    assert [b["id"] for b in blocks] == ["toolu_given", "srvtoolu_7_2"]


def test_thinking_comes_first_and_ends_with_a_deterministic_signature():
    spec = {"thinking": "The user wants a summary. I should read the file first.", "text": "Reading."}
    events = message_events(spec, message_id="msg_1")
    assert events[1]["content_block"] == {"type": "thinking", "thinking": "", "signature": ""}
    thinking = deltas(events, 0)
    assert [d["type"] for d in thinking[:-1]] == ["thinking_delta"] * (len(thinking) - 1)
    assert thinking[-1]["type"] == "signature_delta"
    signature = thinking[-1]["signature"]
    assert re.fullmatch(r"[A-Za-z0-9+/]{40,}={0,2}", signature)
    assert message_events(spec, message_id="msg_1") == events
    assert deltas(message_events(spec, message_id="msg_2"), 0)[-1]["signature"] != signature
    blocks = assert_sdk_agrees(events)["content"]
    assert [b["type"] for b in blocks] == ["thinking", "text"]
    assert blocks[0]["thinking"] == spec["thinking"]


def test_several_thinking_blocks_keep_given_signatures():
    spec = {"thinking": [{"thinking": "First.", "signature": "c2lnMQ=="}, "Second."], "text": "Done."}
    blocks = assert_sdk_agrees(message_events(spec, message_id="msg_1"))["content"]
    assert (blocks[0]["type"], blocks[0]["signature"]) == ("thinking", "c2lnMQ==")
    assert blocks[1]["thinking"] == "Second." and blocks[1]["signature"] != "c2lnMQ=="


def test_raw_json_fragments_are_sent_verbatim():
    fragments = ['{"file_path": ', '"a.txt"', "}"]
    events = message_events({"tool_use": {"name": "Read", "json": fragments}}, message_id="msg_1")
    assert [d["partial_json"] for d in deltas(events, 0)] == fragments
    assert assert_sdk_agrees(events)["content"][0]["input"] == {"file_path": "a.txt"}


def test_truncated_tool_json_reaches_the_tool_with_keys_missing():
    spec = {"tool_use": {"name": "Write", "json": '{"file_path": "a.txt", "content": "hal'}}
    message = assert_sdk_agrees(message_events(spec, message_id="msg_1"))
    assert message["content"][0]["input"] == {"file_path": "a.txt"}


@pytest.mark.parametrize("fragments", [['{"file_path": ', "oops}"], [" "]], ids=["garbage", "whitespace"])
def test_unparseable_tool_json_makes_the_sdk_and_final_message_raise(fragments):
    events = message_events({"tool_use": {"name": "Read", "json": fragments}}, message_id="msg_1")
    with pytest.raises(ValueError, match="Unable to parse tool parameter JSON"):
        sdk_stream_final(encode_events(events))
    with pytest.raises(ValueError, match="content block 0: tool input JSON does not parse"):
        final_message(events)


@pytest.mark.parametrize(
    "spec",
    [
        {"text": "Cut off mid", "stop_reason": "max_tokens"},
        {"text": "I can't help with that.", "stop_reason": "refusal"},
        {"content": [{"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {}}],
         "stop_reason": "pause_turn"},
        {"text": "Too long", "stop_reason": "model_context_window_exceeded"},
        {"text": "```python\nprint(1)\n", "stop_reason": "stop_sequence", "stop_sequence": "```"},
        {"text": "Writing", "tool_use": {"name": "Write", "input": {"file_path": "x"}}, "stop_reason": "max_tokens"},
        {"text": "No stop reason", "stop_reason": None},
    ],
    ids=lambda spec: str(spec["stop_reason"]),
)
def test_stop_reason_and_sequence_are_sent_as_given(spec):
    message = assert_sdk_agrees(message_events(spec, message_id="msg_1"))
    assert message["stop_reason"] == spec["stop_reason"]
    assert message["stop_sequence"] == spec.get("stop_sequence")


def test_usage_defaults_are_small_and_given_usage_wins():
    default = final_message(message_events({"text": "x" * 400}, message_id="msg_1"))["usage"]
    assert default["input_tokens"] == 100 and default["output_tokens"] == 100
    events = message_events(
        {"text": "Hi", "usage": {"input_tokens": 5000, "output_tokens": 7, "cache_read_input_tokens": 4000}},
        message_id="msg_1",
    )
    assert events[0]["message"]["usage"]["output_tokens"] == 1, "message_start carries one token, as live"
    usage = assert_sdk_agrees(events)["usage"]
    assert (usage["input_tokens"], usage["output_tokens"], usage["cache_read_input_tokens"]) == (5000, 7, 4000)


def test_raw_content_blocks_stream_as_the_live_api_streams_them():
    """A server tool's call starts with `input: {}` and streams its input as the client
    tools' calls do, raw text and thinking come in deltas; a tool's result and a redacted
    thinking block come whole in their start."""
    search = {"type": "server_tool_use", "id": "srvtoolu_01", "name": "web_search", "input": {"query": "weather"}}
    result = {
        "type": "web_search_tool_result",
        "tool_use_id": "srvtoolu_01",
        "content": [{"type": "web_search_result", "title": "T", "url": "https://example.com",
                     "encrypted_content": "abc", "page_age": None}],
    }
    redacted = {"type": "redacted_thinking", "data": "ZW5jcnlwdGVk"}
    said = {"type": "text", "text": "Searching for the weather now."}
    spec = {"content": [redacted, search, result, said], "text": "It is sunny."}
    events = message_events(spec, message_id="msg_1")
    starts = [e["content_block"] for e in events if e["type"] == "content_block_start"]
    assert starts[:4] == [redacted, {**search, "input": {}}, result, {"type": "text", "text": ""}]
    assert deltas(events, 0) == deltas(events, 2) == []
    assert "".join(d["partial_json"] for d in deltas(events, 1)) == '{"query": "weather"}' and deltas(events, 1)[0]["partial_json"] == ""
    assert "".join(d["text"] for d in deltas(events, 3)) == said["text"]
    blocks = assert_sdk_agrees(events)["content"]
    assert blocks[:4] == [redacted, search, result, said]


def test_fallback_block_relabels_the_message_with_the_model_that_took_over():
    fallback = {
        "type": "fallback",
        "from": {"model": "claude-opus-4-6"},
        "to": {"model": "claude-sonnet-4-6"},
        "trigger": {"type": "refusal", "category": None},
    }
    events = message_events({"content": [fallback], "text": "Here it is."}, message_id="m", model="claude-opus-4-6")
    assert assert_sdk_agrees(events)["model"] == "claude-sonnet-4-6"


def test_empty_spec_is_an_empty_end_turn_message():
    message = assert_sdk_agrees(message_events({}, message_id="msg_1"))
    assert (message["content"], message["stop_reason"]) == ([], "end_turn")


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ({"txt": "typo"}, r"unknown message key\(s\) \['txt'\]; valid keys: \['content', "),
        ({"tool_use": {"input": {}}}, "tool_use must be a mapping with a name"),
        ({"tool_use": {"name": "R", "args": {}}}, r"unknown tool_use key\(s\) \['args'\]"),
        ({"tool_use": {"name": "R", "input": {}, "json": "{}"}}, "give input or json, not both"),
        ({"thinking": {"text": "x"}}, "thinking must be a string or"),
        ({"content": ["text"]}, "content blocks must be mappings with a type"),
        ({"text": 42}, "text must be a string, not 42"),
    ],
)
def test_malformed_spec_is_rejected_saying_what_is_valid(spec, message):
    with pytest.raises(ValueError, match=message):
        message_events(spec, message_id="msg_1")


def test_same_spec_gives_identical_bytes():
    spec = {"thinking": "Hmm.", "text": "Answer " * 30, "tool_use": {"name": "Bash", "input": {"command": "ls"}}}
    assert encode_events(message_events(spec, message_id="msg_9")) == encode_events(
        message_events(dict(spec), message_id="msg_9")
    )


def test_long_content_is_sent_in_a_bounded_number_of_pieces():
    spec = {"text": "word " * 20_000, "tool_use": {"name": "Write", "input": {"content": "x" * 100_000}}}
    events = message_events(spec, message_id="msg_1")
    assert len(deltas(events, 0)) <= 51 and len(deltas(events, 1)) <= 52
    assert final_message(events)["content"][1]["input"] == spec["tool_use"]["input"]


def test_non_streaming_body_is_what_the_sdk_reads_without_stream():
    spec = {"thinking": "Plan.", "text": "Reading.", "tool_use": {"name": "Read", "input": {"file_path": "a"}}}
    body = non_streaming_body(spec, message_id="msg_1", model="claude-opus-4-6")
    client = client_for(json.dumps(body).encode(), "application/json")
    sdk = client.beta.messages.create(model="claude-opus-4-6", max_tokens=1024, messages=MESSAGES).model_dump()
    assert without_none(sdk) == without_none(body)
    assert sdk["content"] == sdk_stream_final(encode_events(message_events(spec, message_id="msg_1")))["content"]


# --- final_message ---------------------------------------------------------------------


def test_stream_ended_before_message_delta_has_no_stop_reason_for_sdk_or_final_message():
    events = message_events({"text": "An answer that never finishes properly."}, message_id="msg_1")[:-3]
    message = assert_sdk_agrees(events)
    assert message["stop_reason"] is None
    assert message["content"][0]["text"].startswith("An answer")


def test_final_message_ignores_pings_and_leaves_the_events_unchanged():
    events = message_events({"text": "Hi there", "tool_use": {"name": "Read", "input": {"a": 1}}}, message_id="m")
    events.insert(2, ping_event())
    snapshot = json.dumps(events)
    message = final_message(events)
    assert json.dumps(events) == snapshot
    assert message["content"][1]["input"] == {"a": 1}


def test_final_message_of_a_delta_before_its_block_is_an_error():
    events = message_events({"text": "Hello"}, message_id="m")
    events[1], events[2] = events[2], events[1]
    with pytest.raises(ValueError, match="content_block_delta for block 0, which has not started"):
        final_message(events)


def test_final_message_without_message_start_is_an_error():
    with pytest.raises(ValueError, match="'content_block_start' event before message_start"):
        final_message(message_events({"text": "x"}, message_id="m")[1:])


# --- encoding ---------------------------------------------------------------------------


def test_frames_are_compact_json_with_raw_utf8_like_the_live_api():
    event = {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": 'Pelé "x"\n'}}
    assert encode_event(event) == (
        b'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,'
        b'"delta":{"type":"text_delta","text":"Pel\xc3\xa9 \\"x\\"\\n"}}\n\n'
    )


def test_ping_is_framed_with_spaces_like_the_live_api():
    assert encode_event(ping_event()) == b'event: ping\ndata: {"type": "ping"}\n\n'


def test_message_stop_written_once_is_the_json_encoders_frame():
    event = {"type": "message_stop"}
    generic = f"event: message_stop\ndata: {json.dumps(event, separators=(',', ':'))}\n\n"
    assert encode_event(event) == generic.encode()
    assert encode_event({"type": "message_stop", "x": 1}) == b'event: message_stop\ndata: {"type":"message_stop","x":1}\n\n'


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
sse_events = st.builds(
    lambda kind, rest: {**rest, "type": kind},
    st.text(alphabet=st.characters(codec="utf-8", exclude_characters="\r\n"), min_size=1, max_size=20),
    st.dictionaries(st.text(max_size=8), json_values, max_size=4),
)


@given(st.lists(sse_events, max_size=6))
def test_encoded_events_decode_to_themselves(events):
    assert decode_events(encode_events(events)) == events


delta_like_events = st.fixed_dictionaries(
    {
        "type": st.just("content_block_delta"),
        "index": st.integers() | st.booleans() | st.floats(allow_nan=False) | st.text(max_size=3),
        "delta": st.one_of(
            st.builds(
                lambda kind, field, value: {"type": kind, field: value},
                st.sampled_from(["text_delta", "thinking_delta", "input_json_delta", "signature_delta", "other"]),
                st.sampled_from(["text", "thinking", "partial_json", "signature", "citation"]),
                st.text() | json_values,
            ),
            st.dictionaries(st.sampled_from(["type", "text", "extra"]), json_values, max_size=3),
            json_values,
        ),
    }
)


@given(delta_like_events | st.builds(lambda e: dict(reversed(list(e.items()))), delta_like_events))
def test_delta_frames_from_the_template_are_the_json_encoders_bytes(event):
    generic = f"event: content_block_delta\ndata: {json.dumps(event, ensure_ascii=False, separators=(',', ':'))}\n\n"
    assert encode_event(event) == generic.encode()


@given(st.dictionaries(st.text(max_size=8), json_values, max_size=4))
def test_tool_input_pieces_join_to_what_json_dumps_writes(value):
    joined = "".join(json_pieces(value))
    assert joined == ("" if value == {} else json.dumps(value, ensure_ascii=False))


# --- parsing ----------------------------------------------------------------------------


def test_frame_offsets_slice_the_body_into_whole_frames():
    events = message_events({"text": "Hello world, twice over.", "tool_use": {"name": "R"}}, message_id="m")
    body = encode_events(events)
    frames = parse_frames(body)
    assert [body[f.start : f.end] for f in frames] == [encode_event(e) for e in events]
    assert [f.event for f in frames] == event_types(events)


@pytest.mark.parametrize("newline", [b"\n", b"\r\n", b"\r"], ids=["lf", "crlf", "cr"])
def test_any_line_ending_gives_the_same_events_and_offsets_into_that_body(newline):
    events = message_events({"text": "Line endings differ between servers."}, message_id="m")
    body = encode_events(events).replace(b"\n", newline)
    frames = parse_frames(body)
    assert decode_events(body) == events
    assert all(body[f.start : f.end].endswith(newline * 2) for f in frames)
    assert frames[0].start == 0 and frames[-1].end == len(body)


def test_comments_multiline_data_bom_and_an_unterminated_tail():
    first = b"event: a\n: note\ndata: one\ndata:two\nid: 5\n\n"
    second = b'data: {"x": 1}\n\n'
    body = b"\xef\xbb\xbf: keep-alive\n\n\n" + first + second + b"event: b\ndata: {"
    start = body.index(first)
    assert parse_frames(body) == [
        SSEFrame("a", "one\ntwo", start, start + len(first)),
        SSEFrame(None, '{"x": 1}', start + len(first), start + len(first) + len(second)),
    ]


def test_non_json_data_names_the_frame():
    good = encode_event({"type": "message_stop"})
    body = good + b"event: content_block_delta\ndata: {not json\n\n"
    expected = rf"SSE frame 1 \(event 'content_block_delta', bytes {len(good)}-{len(body)}\): data is not JSON"
    with pytest.raises(ValueError, match=expected):
        decode_events(body)


def test_frames_without_data_are_skipped_when_decoding():
    assert decode_events(b"event: ping\n\n" + encode_event({"type": "message_stop"})) == [{"type": "message_stop"}]


@given(replies(), st.integers(0, 3), st.data())
def test_frames_rendered_with_their_events_are_the_encoders_bytes(reply, pings, data):
    """``message_events`` renders delta and stop frames as it builds them; with pings,
    inserts, a duplicate, an error event, an early end or a non-JSON frame moved in
    among them, each frame is still the one ``encode_event`` writes."""
    message = reply.message or {}
    count = len(message_events(message, message_id="msg_1"))
    fault = data.draw(st.sampled_from(["duplicate", "swap", "end_early", "error_event", "bad_data", "insert", None]))
    position = data.draw(st.integers(1, max(1, count - 1)))
    chosen = {
        None: (), "duplicate": (Duplicate(position),), "swap": (Swap(position),), "end_early": (EndEarly(position),),
        "error_event": (ErrorEvent(position, "overloaded_error"),), "bad_data": (BadData(position),),
        "insert": (Insert((InsertedEvent(position, {"type": "content_block_stop", "index": 0}),)),),
    }[fault]
    reply = Reply(message=message, faults=((Pings(pings),) if pings else ()) + chosen)
    rendered: dict = {}
    try:
        events = stream_events(reply, message_id="msg_1", model="m", rendered=rendered)
    except PositionError:
        return
    assert encode_rendered(events, rendered) == [BAD_DATA_FRAME if e is BAD_DATA else encode_event(e) for e in events]


@given(replies())
def test_a_stream_nothing_times_or_breaks_goes_out_as_one_write_of_the_encoders_bytes(reply):
    """A plan whose body ends whole with no time inside it is one chunk; the bytes are
    its events' frames, one after another."""
    try:
        plan = plan_reply(reply, streaming=True, request_id="req_1", message_id="msg_1", model="m")
    except ValueError:  # a PositionError among them
        return
    if plan.connection is not None or reply.error is not None:
        return
    if not any(isinstance(fault, ByteFault) for fault in reply.faults):
        assert len(plan.chunks) == 1
        events = stream_events(reply, message_id="msg_1", model="m")
        assert plan.body == b"".join(BAD_DATA_FRAME if e is BAD_DATA else encode_event(e) for e in events)
