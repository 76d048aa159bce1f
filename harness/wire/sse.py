"""Anthropic Messages streaming, out: message spec → events → SSE bytes.

The framing is the live API's, as recorded in real cassettes: every frame is
``event: <type>\\ndata: <json>\\n\\n`` with the JSON compact (``,`` and ``:``
separators) and non-ASCII written as raw UTF-8; ``ping`` alone is written with
spaces, ``{"type": "ping"}``. The live API also pads each JSON object with 0-15
spaces before its closing brace; that is noise to every client and is left out.
The way back (bytes → events → the final message) is ``sse_parse``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from harness.wire.blocks import (
    as_list,
    delta_events,
    given_pieces,
    raw_block,
    thinking_block,
    tool_use_block,
)
from harness.wire.sse_parse import final_message

SPEC_KEYS = frozenset({"thinking", "text", "tool_use", "content", "stop_reason", "stop_sequence", "usage"})
DEFAULT_INPUT_TOKENS = 100  # a message's usage without a request to count (``harness events``)

_NOT_ID = re.compile(r"[^a-zA-Z0-9_-]")
_START_ONLY_USAGE = frozenset({"cache_creation", "service_tier", "inference_geo"})
_PING = b'event: ping\ndata: {"type": "ping"}\n\n'
_MESSAGE_STOP = b'event: message_stop\ndata: {"type":"message_stop"}\n\n'
_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))
_dumps = _ENCODER.encode
_json_string = json.encoder.encode_basestring  # a str as compact JSON, non-ASCII kept (as _ENCODER)
_DELTA_EVENT_KEYS = ("type", "index", "delta")
_DELTA_FIELDS = {"text_delta": "text", "thinking_delta": "thinking", "input_json_delta": "partial_json",
                 "signature_delta": "signature"}
_STOP_TEMPLATE = b'event: content_block_stop\ndata: {"type":"content_block_stop","index":%d}\n\n'
_DELTA_TEMPLATE = (
    'event: content_block_delta\ndata: {"type":"content_block_delta","index":%d,"delta":{"type":"%s","%s":%s}}\n\n'
)


Rendered = dict[int, tuple[dict, bytes]]  # id(event) → (the event, its frame), kept while its events are used


def message_events(
    spec: Mapping[str, Any],
    *,
    message_id: str,
    model: str = "claude-sonnet-4-5",
    tool_id_prefix: str = "toolu_",
    rendered: Rendered | None = None,
) -> list[dict]:
    """The full event list of one streamed message: message_start, content blocks
    (start/delta.../stop), message_delta, message_stop.

    Blocks come in the order thinking, ``content`` (raw blocks), text, tool_use.
    Deterministic: the same spec and ids give the same events. ``rendered``, when given,
    receives the frames of the delta and stop events as they are built (the bytes
    ``encode_event`` writes for them), for ``encode_rendered``.
    """
    unknown = spec.keys() - SPEC_KEYS
    if unknown:
        raise ValueError(f"unknown message key(s) {sorted(unknown)}; valid keys: {sorted(SPEC_KEYS)}")
    blocks = [thinking_block(item, f"{message_id}/{n}") for n, item in enumerate(as_list(spec.get("thinking")))]
    blocks += [raw_block(block, f"{message_id}/raw{n}") for n, block in enumerate(as_list(spec.get("content")))]
    if spec.get("text") is not None:
        blocks.append(({"type": "text", "text": ""}, delta_events("text_delta", "text", given_pieces(spec["text"]))))
    tools = as_list(spec.get("tool_use"))
    stem = _NOT_ID.sub("", message_id.removeprefix("msg_"))
    blocks += [tool_use_block(tool, f"{tool_id_prefix}{stem}_{n}") for n, tool in enumerate(tools, 1)]

    chars = sum(len(d.get("text") or d.get("thinking") or d.get("partial_json") or "") for _, ds in blocks for d in ds)
    start_usage, delta_usage = _usage(spec.get("usage") or {}, output_tokens=max(1, chars // 4))
    events: list[dict] = [
        {
            "type": "message_start",
            "message": {
                "model": model,
                "id": message_id,
                "type": "message",
                "role": "assistant",
                "content": [],
                "stop_reason": None,
                "stop_sequence": None,
                "stop_details": None,
                "usage": start_usage,
            },
        }
    ]
    for index, (block, deltas) in enumerate(blocks):
        events.append({"type": "content_block_start", "index": index, "content_block": block})
        if rendered is None:
            events += [{"type": "content_block_delta", "index": index, "delta": delta} for delta in deltas]
            events.append({"type": "content_block_stop", "index": index})
        else:
            events += _rendered_deltas(index, deltas, rendered)
    stop_reason = spec["stop_reason"] if "stop_reason" in spec else ("tool_use" if tools else "end_turn")
    delta = {"stop_reason": stop_reason, "stop_sequence": spec.get("stop_sequence"), "stop_details": None}
    events.append({"type": "message_delta", "delta": delta, "usage": delta_usage})
    events.append({"type": "message_stop"})
    return events


def non_streaming_body(
    spec: Mapping[str, Any], *, message_id: str, model: str = "claude-sonnet-4-5", tool_id_prefix: str = "toolu_"
) -> dict:
    """The JSON body the API returns for ``spec`` to a request without ``stream``."""
    return final_message(message_events(spec, message_id=message_id, model=model, tool_id_prefix=tool_id_prefix))


def ping_event() -> dict:
    """A keep-alive ``ping`` event (the SDK skips it)."""
    return {"type": "ping"}


def encode_event(event: Mapping[str, Any], *, dumps: Callable[[Any], str] = _dumps) -> bytes:
    """One SSE frame: ``event: <type>``, ``data: <compact JSON>``, blank line.
    ``dumps``: ``batch_dumps()`` when encoding many events (the same bytes, faster)."""
    kind = event["type"]
    if kind == "content_block_delta":
        frame = _delta_frame(event)
        if frame is not None:
            return frame
    elif len(event) == 1 and kind in ("ping", "message_stop"):
        return _PING if kind == "ping" else _MESSAGE_STOP
    data = dumps(event if isinstance(event, dict) else dict(event))
    return f"event: {kind}\ndata: {data}\n\n".encode()


def _delta_frame(event: Mapping[str, Any]) -> bytes | None:
    """The frame of a plain text, thinking, tool-JSON or signature delta, written from a
    template: the bytes the JSON encoder writes, in half the time. None for any other
    shape (other keys, another key order, a value that is not what the template holds)."""
    if tuple(event) != _DELTA_EVENT_KEYS:
        return None
    index, delta = event["index"], event["delta"]
    if type(index) is not int or type(delta) is not dict:
        return None
    kind = delta.get("type")
    field = _DELTA_FIELDS.get(kind) if type(kind) is str else None
    if field is None or tuple(delta) != ("type", field) or type(delta[field]) is not str:
        return None
    return (_DELTA_TEMPLATE % (index, delta["type"], field, _json_string(delta[field]))).encode()


def _rendered_deltas(index: int, deltas: list[dict], rendered: Rendered) -> list[dict]:
    """A block's delta events and its stop event, their frames put in ``rendered``.
    Every delta built here has two keys, its type and that type's field."""
    events = []
    for delta in deltas:
        event = {"type": "content_block_delta", "index": index, "delta": delta}
        events.append(event)
        kind = delta["type"]
        field = _DELTA_FIELDS[kind]
        if type(delta[field]) is str:  # a tool's raw `json` pieces may be anything
            rendered[id(event)] = event, (_DELTA_TEMPLATE % (index, kind, field, _json_string(delta[field]))).encode()
    stop = {"type": "content_block_stop", "index": index}
    rendered[id(stop)] = stop, _STOP_TEMPLATE % index
    return events + [stop]


def encode_rendered(events: Iterable[Mapping[str, Any]], rendered: Rendered) -> list[bytes]:
    """The frame of each event: the one ``message_events`` rendered for it when there is
    one, else ``encode_event``'s."""
    dumps = batch_dumps()
    frames = []
    for event in events:
        known = rendered.get(id(event))
        frames.append(known[1] if known is not None and known[0] is event else encode_event(event, dumps=dumps))
    return frames


def encode_events(events: Iterable[Mapping[str, Any]]) -> bytes:
    """The SSE body for ``events``, frame after frame."""
    dumps = batch_dumps()
    return b"".join([encode_event(event, dumps=dumps) for event in events])


def batch_dumps() -> Callable[[Any], str]:
    """The compact JSON encoder for one batch of events: the C encoder that
    ``JSONEncoder.encode`` builds on every call, with the same arguments, built once
    (the same output, a third less time per event). Not to be reused after it raised."""
    if json.encoder.c_make_encoder is None:  # a Python without the _json accelerator
        return _dumps
    e = _ENCODER
    encode = json.encoder.c_make_encoder(
        {}, e.default, json.encoder.encode_basestring, e.indent, e.key_separator, e.item_separator,
        e.sort_keys, e.skipkeys, e.allow_nan,
    )
    return lambda value: "".join(encode(value, 0))


def _usage(given: Mapping[str, Any], *, output_tokens: int) -> tuple[dict, dict]:
    """The usage of message_start and of message_delta. As live, message_start carries
    at most one output token; message_delta the totals, without the start-only keys."""
    usage = {
        "input_tokens": DEFAULT_INPUT_TOKENS,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
        "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 0},
        "output_tokens": output_tokens,
        "service_tier": "standard",
        "inference_geo": "not_available",
        **given,
    }
    final = {k: v for k, v in usage.items() if k not in _START_ONLY_USAGE}
    usage["output_tokens"] = min(1, usage["output_tokens"])
    return usage, final
