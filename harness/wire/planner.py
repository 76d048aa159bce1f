"""From a Reply to what goes on the wire (a WirePlan), through the reply's faults, each
in its kind's place in the pipeline (``harness.wire.faults``):

    the reply's events ──▶ event faults ──▶ SSE frames ──▶ byte faults ──▶ WirePlan

A request without ``stream`` gets the JSON body of the message, and each stream fault
its non-streaming form (``harness.wire.faults.json_forms``), combined here the strongest
first: an error status replaces everything; else the latest body cut, else a silence,
else the message whole; a pace makes the headers and the body late; a drip drops
whatever body is left. The plan's ``form`` says
which was served. The message is the one the events make as the event faults that leave
a message changed them (a swap, a duplicate, an inserted delta). A fault with no such
form, tool input JSON that does not parse, or events that make no message once changed,
is NoJsonForm: a scenario chooses with ``unstreamed:``.

Pure: no I/O, no clock. The transports (in-process and socket) carry a WirePlan out.
"""

from __future__ import annotations

import json
from typing import Any

from harness.wire import sse
from harness.wire.api_errors import api_error, error_body
from harness.wire.counted_input import counted, served_fault
from harness.wire.faults.base import ByteFault, EventFault, Fault, RawFrame
from harness.wire.faults.json_forms import (
    AsStatus,
    CutBody,
    Drops,
    JsonForm,
    Late,
    Silence,
    Whole,
)
from harness.wire.plan import NoJsonForm, WirePlan, cut_after, in_drops
from harness.wire.replies import Reply
from harness.wire.sse_parse import final_message, tool_json_breaks

STREAM_HEADERS = {"content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache"}


def plan_reply(
    reply: Reply, *, streaming: bool, request_id: str, message_id: str, model: str, input_tokens: int | None = None,
) -> WirePlan:
    """The WirePlan for ``reply`` to a request that did (or did not) ask to stream.
    ``input_tokens``: the request's, reported in the message's usage unless the reply gives
    its own (``counted_input``: a fault placed by bytes lands where ``harness events`` shows it)."""
    headers = {"request-id": request_id}
    served = counted(reply, input_tokens)
    tokens = input_tokens if served is not reply else None  # the offsets of faults placed by bytes move with the count
    reply = served
    if reply.connection is not None:
        return WirePlan(connection=reply.connection)
    if reply.kind == "error":
        return _error_plan(reply, headers)
    if not streaming:
        return _json_form(reply, headers, message_id=message_id, model=model, tokens=tokens)
    events, frames = stream_frames(reply, message_id=message_id, model=model)
    headers |= STREAM_HEADERS | reply.headers
    byte_faults = [fault for fault in reply.faults if isinstance(fault, ByteFault)]
    if reply.faults:
        events = [event for event in events if not isinstance(event, RawFrame)]
    if not byte_faults:  # nothing times or breaks the frames: the body is one write
        return WirePlan(200, headers, [b"".join(frames)], [0.0], events=events)
    plan = WirePlan(200, headers, list(frames), [0.0] * len(frames), events=events)
    body = b"".join(frames) if tokens is not None else b""
    for fault in byte_faults:
        (served_fault(fault, body, tokens, streaming=True) if tokens is not None else fault).apply(plan, frames)
    return plan


def stream_frames(reply: Reply, *, message_id: str, model: str) -> tuple[list[dict[str, Any]], list[bytes]]:
    """A message (or raw events) reply's events after the event faults, and the frame of
    each, as a stream carries them before a cut, a stall or Ctrl+C ends it."""
    rendered: sse.Rendered = {}
    events = stream_events(reply, message_id=message_id, model=model, rendered=rendered)
    return events, sse.encode_rendered(events, rendered)


def stream_events(reply: Reply, *, message_id: str, model: str, rendered: sse.Rendered | None = None) -> list[dict[str, Any]]:
    """The events of a message (or raw events) reply after its event faults: each counts
    the events as the faults before it left them, and one that names an event beyond them
    is a PositionError. ``rendered``: as for ``sse.message_events``; it also gets the
    frames of events a fault sends raw."""
    return _with_faults(reply.faults, _events(reply, message_id, model, rendered), rendered)


def _events(reply: Reply, message_id: str, model: str, rendered: sse.Rendered | None) -> list[dict[str, Any]]:
    if reply.events is not None:
        return list(reply.events)
    return sse.message_events(reply.message or {}, message_id=message_id, model=model, rendered=rendered)


def _with_faults(faults: tuple[Fault, ...], events: list[dict[str, Any]], rendered: sse.Rendered | None) -> list[dict[str, Any]]:
    for fault in faults:
        if isinstance(fault, EventFault):
            events = fault.apply(events)
    if faults and rendered is not None:
        rendered.update((id(event), (event, event.frame)) for event in events if isinstance(event, RawFrame))
    return events


def _json_form(reply: Reply, headers: dict[str, str], *, message_id: str, model: str, tokens: int | None) -> WirePlan:
    """The plan for a request without ``stream``: the message as JSON, the faults in their
    non-streaming forms (see the module docstring)."""
    rendered: sse.Rendered = {}
    events = _events(reply, message_id, model, rendered)
    refused = next((fault.no_json_form for fault in reply.faults if fault.no_json_form), None)
    if refused is not None:
        raise NoJsonForm(refused)
    # The message as the event faults that leave one changed it (a swap, a duplicate, an
    # inserted delta); those that break it (an error event, an early end) take their own form.
    changing = tuple(fault for fault in reply.faults if not fault.breaks_message)
    readable = [event for event in _with_faults(changing, list(events), None) if not isinstance(event, RawFrame)]
    if tool_json_breaks(readable):  # the SDK's stream would give up on it: a fault of the stream only
        raise NoJsonForm("tool input JSON the SDK's stream gives up on (a prefix of it does not parse)")
    forms: list[JsonForm] = []
    frames = sse.encode_rendered(_with_faults(reply.faults, list(events), rendered), rendered) if reply.faults else []
    for fault in reply.faults:
        form = fault.json_form(frames)
        if isinstance(form, AsStatus):  # an error status: nothing else applies
            plan = _error_plan(Reply(error=form.status, message_text=form.message, headers=reply.headers), headers)
            plan.form = f"HTTP {plan.status} {form.error_type}, for the {form.cause}"
            return plan
        forms.append(form)
    try:  # the message the events make once the event faults changed them (a swap, a duplicate)
        body = json.dumps(final_message(readable)).encode()
    except ValueError:  # events that make no message: only a stream can carry them
        raise NoJsonForm("events that make no message") from None
    plan = WirePlan(200, headers | {"content-type": "application/json"} | reply.headers, [body], [0.0], events=events)
    cut = next((form for form in reversed(forms) if isinstance(form, CutBody)), None)
    silence = next((form for form in forms if isinstance(form, Silence)), None)
    if cut is not None:
        if cut.after_bytes is not None and tokens is not None:
            cut = served_fault(cut, body, tokens, streaming=False)
        offset = _body_offset(cut, len(body), events, rendered)
        cut_after(plan, offset)
        plan.ending = cut.how
        ending = "Ctrl+C" if cut.how == "interrupt" else cut.how.upper()
        plan.form = f"the JSON body cut after {offset} of {len(body)} bytes ({ending})"
    elif silence is not None:
        plan.chunks, plan.delays, plan.ending, plan.stall_seconds = [], [], "stall", silence.seconds
        plan.form = "the headers, then silence"
    elif _changed(changing, events, readable):
        plan.form = "the message the events make once changed by " + ", ".join(
            f.label() or f.key for f in changing if isinstance(f, EventFault))
    elif any(isinstance(form, Whole) for form in forms):
        plan.form = "the message whole: event-level faults have no JSON form"
    for late in (form for form in forms if isinstance(form, Late)):
        plan.head_delay = late.headers
        plan.delays = [late.body, *plan.delays[1:]] if plan.delays else plan.delays
    for drops in (form for form in forms if isinstance(form, Drops)):
        in_drops(plan, drops.chunk, drops.delay)
    return plan


def _changed(changing: tuple[Fault, ...], events: list[dict[str, Any]], readable: list[dict[str, Any]]) -> bool:
    """Whether the event faults that leave a message changed it (a swap, a duplicate, an
    inserted delta; not a ping)."""
    if not any(isinstance(fault, EventFault) for fault in changing):
        return False
    plain = [event for event in events if not isinstance(event, RawFrame)]
    try:
        return final_message(plain) != final_message(readable)
    except ValueError:
        return True


def _body_offset(cut: CutBody, size: int, events: list[dict[str, Any]], rendered: sse.Rendered) -> int:
    """Where ``cut`` ends a JSON body of ``size`` bytes: after its ``after_bytes``, or at
    the share of the whole stream that had been delivered (never at either end)."""
    if cut.after_bytes is not None:
        return min(cut.after_bytes, size)
    whole = sum(map(len, sse.encode_rendered(events, rendered)))
    return max(1, min(size - 1, round(size * (cut.delivered or 0) / whole)))


def _error_plan(reply: Reply, headers: dict[str, str]) -> WirePlan:
    error = api_error(reply.error)  # type: ignore[arg-type]
    if reply.body is not None:
        content_type = "text/html" if reply.body.lstrip().startswith("<") else "text/plain"
        body = reply.body.encode()
    else:
        content_type = "application/json"
        message = reply.message_text or error.message
        body = json.dumps(error_body(error.type, message, headers["request-id"])).encode()
    plan = WirePlan(error.status, headers | {"content-type": content_type} | reply.headers, [body], [0.0])
    for fault in reply.faults:
        if isinstance(fault, ByteFault):
            fault.on_error_body(plan)
    return plan
