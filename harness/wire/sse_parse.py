"""Anthropic Messages streaming, in: SSE bytes → frames → events → the final message,
as tolerant as the SDK is."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import jiter

_LINE = re.compile(rb"([^\r\n]*)(?:\r\n|\r|\n)")
_TRACKS_INPUT = frozenset({"tool_use", "server_tool_use", "mcp_tool_use"})  # as the SDK


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


def final_message(events: Iterable[Mapping[str, Any]], *, strict_inputs: bool = True) -> dict:
    """The message that ``events`` add up to, as the API's non-streaming response.

    Accumulates as the SDK does: text, thinking and tool-input JSON are concatenated
    per block, the last signature wins, citations are appended, tool input is parsed
    with jiter's partial mode (a truncated object keeps its complete keys), and
    ``message_delta`` sets the stop fields and overwrites the usage counts it carries.
    Pings, error events and unknown events and deltas are ignored. The events are not
    modified. ValueError when they do not add up to a message (raw events may hold
    anything: ``message: 3``, a delta without its text), or, unless ``strict_inputs`` is
    False, when a tool input does not parse (the block then keeps the input it started with).
    """
    try:
        return _accumulate(events, strict_inputs)
    except (KeyError, TypeError, AttributeError) as error:
        raise ValueError(f"events that do not add up to a message ({type(error).__name__}: {error})") from None


def _accumulate(events: Iterable[Mapping[str, Any]], strict_inputs: bool = True) -> dict:
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
            try:
                if any(pieces):
                    block["input"] = _parse_tool_input("".join(pieces), index)
            except ValueError:
                if strict_inputs:
                    raise
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


def stream_breaks(events: list[dict]) -> bool:
    """A stream no client can build a message from: an event before ``message_start``, a
    block's delta or stop before its ``content_block_start`` (the SDK raises
    ``IndexError``), or tool-input JSON it cannot parse."""
    return out_of_order(events) or tool_json_breaks(events)


def whole_but_message_stop(events: list[dict]) -> bool:
    """Every event of a message but the closing ``message_stop``: in order, every block
    stopped, and last the ``message_delta`` with the stop reason. The API always sends
    message_stop after it, but it carries nothing: a client that takes message_delta as
    the end (the SDK's ``text_stream`` and ``get_final_message()`` do) has the whole
    message, and one that waits for message_stop asks again. Both are right."""
    if not events or not isinstance(events[-1], dict) or events[-1].get("type") != "message_delta" or out_of_order(events):
        return False
    if not (events[-1].get("delta") or {}).get("stop_reason"):
        return False
    started = {e.get("index") for e in events if e.get("type") == "content_block_start"}
    return started == {e.get("index") for e in events if e.get("type") == "content_block_stop"}


def out_of_order(events: list[dict]) -> bool:
    """Whether an event comes before the event it builds on (the stream's documented order:
    ``message_start``, then each block's start, deltas and stop)."""
    started: set[object] = set()
    kinds = [event.get("type") if isinstance(event, dict) else None for event in events]
    first = next((kind for kind in kinds if kind != "ping"), "message_start")
    if first not in ("message_start", "error"):
        return True
    for kind, event in zip(kinds, events):
        if kind == "content_block_start":
            started.add(event.get("index"))
        elif kind in ("content_block_delta", "content_block_stop") and event.get("index") not in started:
            return True
    return False


def in_documented_order(events: list[dict]) -> list[dict]:
    """``events`` with each ``content_block_start`` moved before the first delta or stop of
    its block that came ahead of it: the stream a client reads that starts a block when
    anything of it comes. The same list when nothing came early."""
    if not out_of_order(events):
        return events
    ordered = list(events)
    for start in [e for e in events if isinstance(e, dict) and e.get("type") == "content_block_start"]:
        at = next(n for n, e in enumerate(ordered) if e is start)
        early = next((n for n, e in enumerate(ordered[:at]) if isinstance(e, dict) and e.get("index") == start.get("index")
                      and e.get("type") in ("content_block_delta", "content_block_stop")), None)
        if early is not None:
            ordered.insert(early, ordered.pop(at))
    return ordered


def tool_json_breaks(events: list[dict]) -> bool:
    """Tool-input JSON the SDK gives up on (it raises from the stream): it re-parses a
    block's input after every delta in jiter's partial mode, so one prefix that does not
    parse (``" "``, ``nope``) is enough."""
    buffers: dict[object, str] = {}
    for event in events:
        delta = event.get("delta") if isinstance(event, dict) else None
        if event.get("type") != "content_block_delta" or not isinstance(delta, dict) or delta.get("type") != "input_json_delta":
            continue
        index = event.get("index")
        buffers[index] = buffers.get(index, "") + str(delta.get("partial_json", ""))
        try:
            if buffers[index]:
                jiter.from_json(buffers[index].encode(), partial_mode=True)
        except ValueError:
            return True
    return False
