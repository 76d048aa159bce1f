"""From a Reply to what goes on the wire: status, headers, body chunks and how the body ends.

A request without ``stream`` gets the JSON body of the message, and each stream fault
its non-streaming form (the plan's ``form`` says which was served):

    stream fault                  JSON form
    event: error after event k    the same error as an HTTP status, with the API's error body
    cut (FIN or RST), end_early   the JSON body cut at the same share of its bytes, then FIN
                                  (RST for a cut by RST); ``after_bytes`` counts the JSON body's bytes
    stall after event k           the headers, then silence
    drip                          the JSON body in drops
    pings, insert, duplicate,     nothing: a JSON body has no events, the message is served whole
    swap, interrupt
    bad_data, tool JSON that      none (``NoJsonForm``): a scenario chooses with ``unstreamed:``
    does not parse

Pure: no I/O, no clock. The transports (in-process and socket) carry a WirePlan out.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal

from harness.wire import sse
from harness.wire.api_errors import STREAM_ERROR_STATUS, api_error, error_body
from harness.wire.errors import HarnessError
from harness.wire.replies import Cut, Reply
from harness.wire.sse_parse import final_message
from harness.wire.stream_faults import BAD_DATA, PositionError, stream_events, within

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
    form: str | None = None  # which form of a stream fault a request without ``stream`` got


    @property
    def body(self) -> bytes:
        """Every byte that reaches the client."""
        return b"".join(self.chunks)


class NoJsonForm(HarnessError, ValueError):
    """A stream fault that a JSON body cannot carry (a request without ``stream``)."""


def json_plan(status: int, body: Any, request_id: str) -> WirePlan:
    """A plain JSON answer (an error the harness itself gives)."""
    data = json.dumps(body).encode()
    return WirePlan(status, {"content-type": "application/json", "request-id": request_id}, [data], [0.0])


def harness_error_plan(message: str, request_id: str) -> WirePlan:
    """The 500 the harness itself answers when it cannot serve a request (no reply left,
    a reply it cannot serve, its own bug), marked ``x-should-retry: false``: sending the
    same request again cannot change it."""
    plan = json_plan(500, error_body("api_error", message, request_id), request_id)
    plan.headers["x-should-retry"] = "false"
    return plan


def plan_reply(reply: Reply, *, streaming: bool, request_id: str, message_id: str, model: str) -> WirePlan:
    """The WirePlan for ``reply`` to a request that did (or did not) ask to stream."""
    headers = {"request-id": request_id}
    if reply.connection is not None:
        return WirePlan(connection=reply.connection)
    if reply.kind == "error":
        return _error_plan(reply, headers)
    if not streaming:
        return _json_form(reply, headers, message_id=message_id, model=model)
    events, frames = stream_frames(reply, message_id=message_id, model=model)
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
    elif plan.ending == "complete":  # nothing times or breaks the frames: the body is one write
        plan.chunks, plan.delays = [b"".join(plan.chunks)], [0.0]
    return plan


def stream_frames(reply: Reply, *, message_id: str, model: str) -> tuple[list[dict[str, Any]], list[bytes]]:
    """A message (or raw events) reply's events after the event-level faults, and the
    frame of each, as a stream carries them before a cut, a stall or Ctrl+C ends it."""
    rendered: sse.Rendered = {id(BAD_DATA): (BAD_DATA, BAD_DATA_FRAME)}
    events = stream_events(reply, message_id=message_id, model=model, rendered=rendered)
    return events, sse.encode_rendered(events, rendered)


def _json_form(reply: Reply, headers: dict[str, str], *, message_id: str, model: str) -> WirePlan:
    """The plan for a request without ``stream``: the message as JSON, each stream fault
    in its non-streaming form (see the module docstring)."""
    events = stream_events(Reply(message=reply.message, events=reply.events), message_id=message_id, model=model)
    if reply.bad_data is not None:
        raise NoJsonForm("`bad_data` (a stream frame that is not JSON)")
    if not all(_complete_json(text) for text in _tool_inputs(events)):
        raise NoJsonForm("tool input JSON that does not parse")
    frames = [sse.encode_event(e) for e in stream_events(reply, message_id=message_id, model=model)]
    if reply.error_event is not None:
        plan = _error_plan(_as_status_error(reply), headers)
        plan.form = f"HTTP {plan.status} {reply.error_event.type}, for the event: error after event {reply.error_event.after_event}"
        return plan
    body = json.dumps(final_message(events)).encode()
    plan = WirePlan(200, headers | {"content-type": "application/json"} | reply.headers, [body], [0.0], events=events)
    if reply.cut is not None and reply.cut.after_bytes is not None:
        offset: int | None = min(reply.cut.after_bytes, len(body))
    elif reply.cut is not None or reply.end_early is not None:
        delivered = cut_offset(reply.cut, b"".join(frames), _frame_spans(frames)) if reply.cut else sum(map(len, frames))
        whole = sum(len(sse.encode_event(e)) for e in events)
        offset = max(1, min(len(body) - 1, round(len(body) * delivered / whole)))
    else:
        offset = None
    if offset is not None:
        plan.chunks, plan.delays = _rechunk(plan.chunks, plan.delays, offset)
        plan.ending = reply.cut.how if reply.cut is not None else "fin"
        plan.form = f"the JSON body cut after {offset} of {len(body)} bytes ({plan.ending.upper()})"
    elif reply.stall is not None:
        plan.chunks, plan.delays, plan.ending, plan.stall_seconds = [], [], "stall", reply.stall.seconds
        plan.form = "the headers, then silence"
    elif reply.pings or reply.insert or reply.duplicate is not None or reply.swap is not None or reply.interrupt is not None:
        plan.form = "the message whole: event-level faults have no JSON form"
    if reply.drip is not None:
        plan.chunks, plan.delays = _drip(plan.body, reply.drip.chunk, reply.drip.delay)
    return plan


def _as_status_error(reply: Reply) -> Reply:
    """A stream's ``event: error`` as an error reply with the matching HTTP status."""
    assert reply.error_event is not None
    return Reply(error=STREAM_ERROR_STATUS[reply.error_event.type], message_text=reply.error_event.message, headers=reply.headers)


def _tool_inputs(events: list[dict[str, Any]]) -> list[str]:
    """The input JSON each tool_use block streams, joined."""
    inputs: dict[object, str] = {}
    for event in events:
        delta = event.get("delta") if isinstance(event, dict) else None
        if event.get("type") == "content_block_delta" and isinstance(delta, dict) and delta.get("type") == "input_json_delta":
            inputs[event.get("index")] = inputs.get(event.get("index"), "") + str(delta.get("partial_json", ""))
    return list(inputs.values())


def _complete_json(text: str) -> bool:
    try:
        json.loads(text or "{}")
    except ValueError:
        return False
    return True


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
