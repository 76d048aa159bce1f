"""From a Reply to what goes on the wire: status, headers, body chunks and how the body ends.

Pure: no I/O, no clock. The transports (in-process and socket) carry a WirePlan out.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal

from harness.wire import sse
from harness.wire.api_errors import api_error, error_body
from harness.wire.replies import Cut, Reply
from harness.wire.sse_parse import final_message

Ending = Literal["complete", "fin", "rst", "stall", "interrupt"]
BAD_DATA_FRAME = b"event: content_block_delta\ndata: {not json\n\n"


@dataclass
class WirePlan:
    """What the server does for one request.

    ``connection`` set: no HTTP response at all (refused, timeout, empty, garbage).
    Otherwise ``status``/``headers`` and then ``chunks``, each after ``delays[i]``
    seconds, and the body ends as ``ending`` says (after ``stall_seconds`` for a stall).
    """

    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    chunks: list[bytes] = field(default_factory=list)
    delays: list[float] = field(default_factory=list)
    ending: Ending = "complete"
    stall_seconds: float = 0.0
    connection: str | None = None
    events: list[dict[str, Any]] = field(default_factory=list)

    @property
    def body(self) -> bytes:
        """Every byte that reaches the client."""
        return b"".join(self.chunks)


def json_plan(status: int, body: Any, request_id: str) -> WirePlan:
    """A plain JSON answer (an error the harness itself gives)."""
    data = json.dumps(body).encode()
    return WirePlan(status, {"content-type": "application/json", "request-id": request_id}, [data], [0.0])


def plan_reply(reply: Reply, *, streaming: bool, request_id: str, message_id: str, model: str) -> WirePlan:
    """The WirePlan for ``reply`` to a request that did (or did not) ask to stream."""
    headers = {"request-id": request_id}
    if reply.connection is not None:
        return WirePlan(connection=reply.connection)
    if reply.kind == "error":
        return _error_plan(reply, headers)
    events = stream_events(reply, message_id=message_id, model=model)
    if not streaming:
        body = json.dumps(final_message(events)).encode()
        headers |= {"content-type": "application/json"} | reply.headers
        plan = WirePlan(200, headers, [body], [0.0], events=events)
        return _apply_cut(plan, reply.cut, [(0, len(body))]) if reply.cut else plan
    dumps = sse.batch_dumps()
    frames = [BAD_DATA_FRAME if e is BAD_DATA else sse.encode_event(e, dumps=dumps) for e in events]
    headers |= {"content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache"} | reply.headers
    check_frame_positions(reply, frames)
    plan = WirePlan(200, headers, frames, [0.0] * len(frames), events=[e for e in events if e is not BAD_DATA])
    if reply.stall is not None:
        plan.chunks, plan.delays = frames[: reply.stall.after_event], plan.delays[: reply.stall.after_event]
        plan.ending, plan.stall_seconds = "stall", reply.stall.seconds
    if reply.interrupt is not None:
        plan.chunks, plan.delays = frames[: reply.interrupt], plan.delays[: reply.interrupt]
        plan.ending = "interrupt"
    if reply.cut is not None:
        plan = _apply_cut(plan, reply.cut, _frame_spans(frames))
    if reply.drip is not None:
        plan.chunks, plan.delays = _drip(plan.body, reply.drip.chunk, reply.drip.delay)
    return plan


class _BadData(dict):
    """Marker for the frame whose data line is not JSON."""


BAD_DATA: dict[str, Any] = _BadData(type="bad_data")


class PositionError(ValueError):
    """A fault that names an event or a byte the stream does not have; ``field`` as the
    scenario file spells it (``cut.after_event``)."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


def within(field: str, number: int | None, count: int, *, low: int = 0, high: int | None = None, unit: str = "event") -> None:
    """PositionError unless ``number`` (None: not given) lies in ``low``..``high``
    (default: ``count``, the events or bytes the stream has)."""
    high = count if high is None else high
    if number is None or low <= number <= high:
        return
    served = f"{count} bytes" if unit == "byte" else f"events 1 to {count}" if count else "no events"
    valid = f"valid: {low} to {high}" if low <= high else "no position is valid"
    raise PositionError(field, f"`{field}: {number}` is beyond the reply ({served} as served; {valid})")


def stream_events(reply: Reply, *, message_id: str, model: str) -> list[dict[str, Any]]:
    """The events of a message reply after the event-level faults, applied in this order:
    pings, inserts, a duplicate, a swap, an error event, a clean early end, a non-JSON
    frame. Each fault counts events in the stream as the faults before it left it, and
    one that names an event beyond that stream is a PositionError."""
    if reply.events is not None:
        events = list(reply.events)
    else:
        events = sse.message_events(reply.message or {}, message_id=message_id, model=model)
    if reply.pings:
        events = _with_pings(events, reply.pings)
    for n, insert in enumerate(reply.insert):
        within(f"insert[{n}].after_event", insert.after_event, len(events))
    for insert in sorted(reply.insert, key=lambda i: -i.after_event):
        events.insert(insert.after_event, insert.event)
    if reply.duplicate is not None:
        within("duplicate", reply.duplicate, len(events), low=1)
        events.insert(reply.duplicate, events[reply.duplicate - 1])
    if reply.swap is not None:
        within("swap", reply.swap, len(events), low=1, high=len(events) - 1)
        i = reply.swap - 1
        events[i], events[i + 1] = events[i + 1], events[i]
    if reply.error_event is not None:
        k = reply.error_event.after_event
        within("error_event.after_event", k, len(events))
        events = events[:k] + [error_body(reply.error_event.type, reply.error_event.message)]
    if reply.end_early is not None:
        within("end_early", reply.end_early, len(events), high=len(events) - 1)
        events = events[: reply.end_early]
    if reply.bad_data is not None:
        within("bad_data", reply.bad_data, len(events))
        events = events[: reply.bad_data] + [BAD_DATA] + events[reply.bad_data :]
    return events


def check_frame_positions(reply: Reply, frames: list[bytes]) -> None:
    """The faults that count the frames as served (a stall, Ctrl+C, a cut) name frames
    the stream has; PositionError if not. ``cut.after_bytes`` is not checked here: the
    byte count depends on the agent (its model name, its tool names), so a count beyond
    the body cuts at its end (lint checks it against the standard rendering)."""
    count = len(frames)
    within("stall.after_event", reply.stall and reply.stall.after_event, count)
    within("interrupt", reply.interrupt, count)
    cut = reply.cut
    if cut is not None:
        within("cut.after_event", cut.after_event, count)
        within("cut.in_event", cut.in_event, count, low=1)
        within("cut.in_char", cut.in_char, count, low=1)


def _error_plan(reply: Reply, headers: dict[str, str]) -> WirePlan:
    error = api_error(reply.error)  # type: ignore[arg-type]
    if reply.body is not None:
        content_type = "text/html" if reply.body.lstrip().startswith("<") else "text/plain"
        body = reply.body.encode()
    else:
        content_type = "application/json"
        message = reply.message_text or error.message
        body = json.dumps(error_body(error.type, message, headers["request-id"])).encode()
    headers = headers | {"content-type": content_type} | reply.headers
    plan = WirePlan(error.status, headers, [body], [0.0])
    return _apply_cut(plan, reply.cut, [(0, len(body))]) if reply.cut else plan


def _with_pings(events: list[dict[str, Any]], count: int) -> list[dict[str, Any]]:
    """``count`` pings spread after message_start and between later events."""
    out = list(events)
    step = max(1, (len(out) - 1) // count)
    for n in range(count, 0, -1):
        out.insert(min(len(out) - 1, 1 + (n - 1) * step), sse.ping_event())
    return out


def _frame_spans(frames: list[bytes]) -> list[tuple[int, int]]:
    spans, offset = [], 0
    for frame in frames:
        spans.append((offset, offset + len(frame)))
        offset += len(frame)
    return spans


def _apply_cut(plan: WirePlan, cut: Cut, spans: list[tuple[int, int]]) -> WirePlan:
    body = plan.body
    offset = cut_offset(cut, body, spans)
    plan.chunks, plan.delays = _rechunk(plan.chunks, plan.delays, offset)
    plan.ending = cut.how
    return plan


def cut_offset(cut: Cut, body: bytes, spans: list[tuple[int, int]]) -> int:
    """The byte offset at which ``cut`` drops the connection."""
    if cut.after_event is not None:
        return spans[min(cut.after_event, len(spans)) - 1][1] if cut.after_event > 0 else 0
    if cut.in_event is not None:
        start, end = spans[min(cut.in_event, len(spans)) - 1]
        return start + (end - start) // 2
    if cut.after_bytes is not None:
        return min(cut.after_bytes, len(body))
    start = spans[min(cut.in_char or 1, len(spans)) - 1][0]
    for i in range(start, len(body)):
        if body[i] >= 0xC0:  # the lead byte of a multi-byte character
            return i + 1
    raise PositionError("cut.in_char", f"`cut.in_char: {cut.in_char}`: no multi-byte UTF-8 character in the stream from that event on")


def _rechunk(chunks: list[bytes], delays: list[float], offset: int) -> tuple[list[bytes], list[float]]:
    """The chunks truncated to the first ``offset`` bytes."""
    out_chunks, out_delays, taken = [], [], 0
    for chunk, delay in zip(chunks, delays):
        if taken >= offset:
            break
        piece = chunk[: offset - taken]
        out_chunks.append(piece)
        out_delays.append(delay)
        taken += len(piece)
    return out_chunks, out_delays


def _drip(body: bytes, size: int, delay: float) -> tuple[list[bytes], list[float]]:
    chunks = [body[i : i + size] for i in range(0, len(body), size)]
    return chunks, [delay] * len(chunks)
