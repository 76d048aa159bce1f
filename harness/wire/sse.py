"""Anthropic Messages streaming, both ways: message spec → events → SSE bytes, and
SSE bytes → frames → events → the final message.

The framing is the live API's, as recorded in real cassettes: every frame is
``event: <type>\\ndata: <json>\\n\\n`` with the JSON compact (``,`` and ``:``
separators) and non-ASCII written as raw UTF-8; ``ping`` alone is written with
spaces, ``{"type": "ping"}``. The live API also pads each JSON object with 0-15
spaces before its closing brace; that is noise to every client and is left out.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import jiter

SPEC_KEYS = frozenset({"thinking", "text", "tool_use", "content", "stop_reason", "stop_sequence", "usage"})
TOOL_USE_KEYS = frozenset({"name", "input", "json", "id"})
_THINKING_KEYS = frozenset({"thinking", "signature"})

_TEXT_PIECE = 20  # characters per text/thinking delta, as a floor
_JSON_PIECE = 10  # characters per input_json_delta, as a floor (the live API sends ~10)
_MAX_PIECES = 50  # longer content gets longer pieces, to keep the SDK's per-delta cost bounded
_WORDS = re.compile(r"\s*\S+|\s+")
_NOT_ID = re.compile(r"[^a-zA-Z0-9_-]")
_LINE = re.compile(rb"([^\r\n]*)(?:\r\n|\r|\n)")
_TRACKS_INPUT = frozenset({"tool_use", "server_tool_use", "mcp_tool_use"})  # as the SDK
_START_ONLY_USAGE = frozenset({"cache_creation", "service_tier", "inference_geo"})
_PING = b'event: ping\ndata: {"type": "ping"}\n\n'
_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))
_dumps = _ENCODER.encode
_json_string = json.encoder.encode_basestring  # a str as compact JSON, non-ASCII kept (as _ENCODER)
_DELTA_EVENT_KEYS = ("type", "index", "delta")
_DELTA_FIELDS = {"text_delta": "text", "thinking_delta": "thinking", "input_json_delta": "partial_json",
                 "signature_delta": "signature"}
_DELTA_TEMPLATE = (
    'event: content_block_delta\ndata: {"type":"content_block_delta","index":%d,"delta":{"type":"%s","%s":%s}}\n\n'
)


def message_events(
    spec: Mapping[str, Any], *, message_id: str, model: str = "claude-sonnet-4-5", tool_id_prefix: str = "toolu_"
) -> list[dict]:
    """The full event list of one streamed message: message_start, content blocks
    (start/delta.../stop), message_delta, message_stop.

    Blocks come in the order thinking, ``content`` (raw blocks), text, tool_use.
    Deterministic: the same spec and ids give the same events.
    """
    unknown = spec.keys() - SPEC_KEYS
    if unknown:
        raise ValueError(f"unknown message key(s) {sorted(unknown)}; valid keys: {sorted(SPEC_KEYS)}")
    blocks = [_thinking_block(item, f"{message_id}/{n}") for n, item in enumerate(_as_list(spec.get("thinking")))]
    blocks += [(_raw_block(block), []) for block in _as_list(spec.get("content"))]
    if spec.get("text") is not None:
        if not isinstance(spec["text"], str):
            raise ValueError(f"text must be a string, not {spec['text']!r}")
        blocks.append(({"type": "text", "text": ""}, _deltas("text_delta", "text", _text_pieces(spec["text"]))))
    tools = _as_list(spec.get("tool_use"))
    stem = _NOT_ID.sub("", message_id.removeprefix("msg_"))
    blocks += [_tool_use_block(tool, f"{tool_id_prefix}{stem}_{n}") for n, tool in enumerate(tools, 1)]

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
        events += [{"type": "content_block_delta", "index": index, "delta": delta} for delta in deltas]
        events.append({"type": "content_block_stop", "index": index})
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
    elif kind == "ping" and len(event) == 1:
        return _PING
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


@dataclass(frozen=True)
class SSEFrame:
    """One dispatched SSE event. ``body[start:end]`` is the whole frame, from its first
    line to its terminating blank line inclusive; ``data`` joins multi-line data with ``\\n``."""

    event: str | None
    data: str
    start: int
    end: int


def parse_frames(body: bytes) -> list[SSEFrame]:
    """The frames of an SSE body, tolerant as the SDK is: ``\\n``, ``\\r\\n`` or ``\\r``
    line ends, ``:`` comments, multi-line data, a leading BOM, unknown fields ignored,
    bytes that are not UTF-8 replaced. A frame is a block of lines with an ``event`` or
    ``data`` field, ended by a blank line; an unterminated last frame is not one."""
    frames: list[SSEFrame] = []
    event: str | None = None
    data: list[str] = []
    start = -1
    for match in _LINE.finditer(body, 3 if body.startswith(b"\xef\xbb\xbf") else 0):
        line = match.group(1)
        if not line:
            if event is not None or data:
                frames.append(SSEFrame(event, "\n".join(data), start, match.end()))
            event, data, start = None, [], -1
            continue
        if start < 0:
            start = match.start()
        name, _, value = line.partition(b":")
        if value.startswith(b" "):
            value = value[1:]
        if name == b"event":
            event = value.decode(errors="replace")
        elif name == b"data":
            data.append(value.decode(errors="replace"))
    return frames


def decode_events(body: bytes) -> list[dict]:
    """The JSON data of every frame of an SSE body, pings included. Frames without data
    are skipped, as the SDK does; data that is not JSON raises ``ValueError``."""
    events = []
    for index, frame in enumerate(parse_frames(body)):
        if not frame.data:
            continue
        try:
            events.append(json.loads(frame.data))
        except ValueError as exc:
            raise ValueError(
                f"SSE frame {index} (event {frame.event!r}, bytes {frame.start}-{frame.end}): data is not JSON: {exc}"
            ) from None
    return events


def final_message(events: Iterable[Mapping[str, Any]]) -> dict:
    """The message that ``events`` add up to, as the API's non-streaming response.

    Accumulates as the SDK does: text, thinking and tool-input JSON are concatenated
    per block, the last signature wins, citations are appended, tool input is parsed
    with jiter's partial mode (a truncated object keeps its complete keys), and
    ``message_delta`` sets the stop fields and overwrites the usage counts it carries.
    Pings, error events and unknown events and deltas are ignored. The events are not
    modified.
    """
    message: dict[str, Any] | None = None
    parts: dict[tuple[int, str], list[str]] = {}
    for event in events:
        kind = event.get("type")
        if kind == "message_start":
            message = dict(event["message"])
            message["content"] = [dict(block) for block in message.get("content") or ()]
            message["usage"] = dict(message.get("usage") or {})
        elif kind in ("ping", "error"):
            continue
        elif message is None:
            raise ValueError(f"{kind!r} event before message_start")
        elif kind == "content_block_start":
            block = dict(event["content_block"])
            message["content"].append(block)
            if block.get("type") == "fallback":  # the model after the hop serves what follows
                message["model"] = block["to"]["model"]
        elif kind == "content_block_delta":
            _add_delta(message["content"], event["index"], event["delta"], parts)
        elif kind == "message_delta":
            delta = event.get("delta") or {}
            message.update(stop_reason=delta.get("stop_reason"), stop_sequence=delta.get("stop_sequence"))
            message.update((k, v) for k, v in delta.items() if v is not None)
            message.update((k, v) for k, v in event.items() if k not in ("type", "delta", "usage") and v is not None)
            message["usage"].update((k, v) for k, v in (event.get("usage") or {}).items() if v is not None)
    if message is None:
        raise ValueError("no message_start event")
    for (index, key), pieces in parts.items():
        block = message["content"][index]
        if key == "input":
            if any(pieces):
                block["input"] = _parse_tool_input("".join(pieces), index)
        else:
            block[key] = block.get(key, "") + "".join(pieces)
    return message


def _add_delta(content: list[dict], index: int, delta: Mapping[str, Any], parts: dict) -> None:
    if not 0 <= index < len(content):
        raise ValueError(f"content_block_delta for block {index}, which has not started")
    block_type, delta_type = content[index].get("type"), delta.get("type")
    if delta_type == "text_delta" and block_type == "text":
        parts.setdefault((index, "text"), []).append(delta["text"])
    elif delta_type == "thinking_delta" and block_type == "thinking":
        parts.setdefault((index, "thinking"), []).append(delta["thinking"])
    elif delta_type == "input_json_delta" and block_type in _TRACKS_INPUT:
        parts.setdefault((index, "input"), []).append(delta["partial_json"])
    elif delta_type == "signature_delta" and block_type == "thinking":
        content[index]["signature"] = delta["signature"]
    elif delta_type == "citations_delta" and block_type == "text":
        content[index]["citations"] = [*(content[index].get("citations") or ()), delta["citation"]]


def _parse_tool_input(raw: str, index: int) -> Any:
    try:
        return jiter.from_json(raw.encode(), partial_mode=True)
    except ValueError as exc:
        raise ValueError(f"content block {index}: tool input JSON does not parse: {exc}. JSON: {raw}") from None


def _as_list(value: Any) -> list:
    if value is None:
        return []
    return list(value) if isinstance(value, (list, tuple)) else [value]


def _deltas(delta_type: str, key: str, pieces: list[str]) -> list[dict]:
    return [{"type": delta_type, key: piece} for piece in pieces]


def _text_pieces(text: str) -> list[str]:
    """``text`` in pieces of whole words, each at least ~20 characters but the last."""
    size = max(_TEXT_PIECE, len(text) // _MAX_PIECES)
    pieces, current = [], ""
    for word in _WORDS.findall(text):
        current += word
        if len(current) >= size:
            pieces.append(current)
            current = ""
    return pieces + [current] if current else pieces


def _json_pieces(value: Any) -> list[str]:
    """``value`` as the live API streams tool input: an empty piece, then the JSON in
    chunks; an empty object is the empty piece alone."""
    raw = json.dumps(value, ensure_ascii=False)
    if raw == "{}":
        return [""]
    size = max(_JSON_PIECE, len(raw) // _MAX_PIECES)
    return [""] + [raw[i : i + size] for i in range(0, len(raw), size)]


def _thinking_block(item: Any, seed: str) -> tuple[dict, list[dict]]:
    if isinstance(item, str):
        text, signature = item, None
    elif isinstance(item, Mapping) and isinstance(item.get("thinking"), str) and item.keys() <= _THINKING_KEYS:
        text, signature = item["thinking"], item.get("signature")
    else:
        raise ValueError(f"thinking must be a string or {{thinking, signature}}, not {item!r}")
    if signature is None:
        signature = base64.b64encode(hashlib.shake_256(f"{seed}\0{text}".encode()).digest(96)).decode()
    deltas = _deltas("thinking_delta", "thinking", _text_pieces(text))
    deltas.append({"type": "signature_delta", "signature": signature})
    return {"type": "thinking", "thinking": "", "signature": ""}, deltas


def _raw_block(block: Any) -> dict:
    if not isinstance(block, Mapping) or "type" not in block:
        raise ValueError(f"content blocks must be mappings with a type, not {block!r}")
    return dict(block)


def _tool_use_block(tool: Any, default_id: str) -> tuple[dict, list[dict]]:
    if not isinstance(tool, Mapping) or "name" not in tool:
        raise ValueError(f"tool_use must be a mapping with a name, not {tool!r}")
    unknown = tool.keys() - TOOL_USE_KEYS
    if unknown:
        raise ValueError(f"unknown tool_use key(s) {sorted(unknown)}; valid keys: {sorted(TOOL_USE_KEYS)}")
    if "input" in tool and "json" in tool:
        raise ValueError(f"tool_use {tool['name']!r}: give input or json, not both")
    raw = tool.get("json")
    if raw is None:
        pieces = _json_pieces(tool.get("input", {}))
    else:
        pieces = ["", raw] if isinstance(raw, str) else list(raw)
    block = {
        "type": "tool_use",
        "id": tool.get("id", default_id),
        "name": tool["name"],
        "input": {},
        "caller": {"type": "direct"},
    }
    return block, _deltas("input_json_delta", "partial_json", pieces)


def _usage(given: Mapping[str, Any], *, output_tokens: int) -> tuple[dict, dict]:
    """The usage of message_start and of message_delta. As live, message_start carries
    at most one output token; message_delta the totals, without the start-only keys."""
    usage = {
        "input_tokens": 100,
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
