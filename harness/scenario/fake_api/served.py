"""What the fake API served for one request, read back as a client would have seen it:
whether a complete message arrived, whether the failure may be retried, the message
itself, and what a broken stream had delivered before it broke (its text, and tool
inputs that reached the client cut or unparseable)."""

from __future__ import annotations

import json
from typing import Any

from harness.oracle.retry import (
    error_type_is_transient,
    retried_by_the_sdks_only,
    status_is_retryable,
)
from harness.scenario.fake_api.exchange import Exchange
from harness.wire.api_errors import api_error
from harness.wire.faults.bad_data import BadData
from harness.wire.faults.end_early import EndEarly
from harness.wire.faults.error_event import ErrorEvent
from harness.wire.faults.pace import Pace
from harness.wire.plan import CLIENT_READ_TIMEOUT
from harness.wire.planner import stream_events
from harness.wire.replies import Reply
from harness.wire.sse import encode_event
from harness.wire.sse_parse import (
    final_message,
    in_documented_order,
    out_of_order,
    stream_breaks,
    whole_but_message_stop,
)


def failed(request: Exchange) -> bool:
    """The request got no complete message (an error, a broken connection or stream)."""
    reply, plan = request.reply, request.plan
    if request.violations or reply is None or plan is None or request.timed_out:
        return True
    if plan.connection or plan.status != 200 or plan.ending != "complete":
        return True
    if any(fault.breaks_message for fault in reply.faults):
        return True
    if not request.streaming:  # a JSON body came whole, or not at all
        return False
    if request.stream_broken is None or request.stream_broken[0] is not plan:  # every check asks: read the stream once
        request.stream_broken = plan, stream_breaks(plan.events)
    return request.stream_broken[1]


def arrived_whole(request: Exchange) -> bool:
    """The request got its whole message on the wire: it did not fail, or it failed only
    for some clients: the SDK's parser gave up on a tool input (every event in order, up
    to ``message_stop``), a block's delta came before its start (the SDK raises; a client
    that starts a block when anything of it comes has it all: ``in_documented_order``), or
    the stream ended cleanly with everything but ``message_stop``
    (``sse_parse.whole_but_message_stop``). A client that reads each input once its block
    stops, as the streaming docs say, has the message, and answers a call whose input
    does not parse with an error result, as the docs advise; one that takes
    ``message_delta`` as the end has it too. So does Ctrl+C once that much had come."""
    if not failed(request):
        return True
    reply, plan = request.reply, request.plan
    if request.violations or request.timed_out or reply is None or plan is None or not request.streaming:
        return False
    if plan.ending == "interrupt":  # Ctrl+C once the message had come (message_stop or the stop reason)
        delivered = _delivered_events(request)
        ended = bool(delivered) and delivered[-1].get("type") == "message_stop"
        return whole_but_message_stop(delivered[:-1] if ended else delivered)
    breaking = [f for f in reply.faults if f.breaks_message]  # an end before message_stop, at most
    if plan.connection or plan.status != 200 or plan.ending != "complete" or any(type(f) is not EndEarly for f in breaking):
        return False
    return whole_but_message_stop(plan.events) if breaking else not out_of_order(in_documented_order(plan.events))


def fatal(request: Exchange) -> bool:
    """The failure must not be retried: a status the API's retry rule excludes (or
    ``x-should-retry: false``), a non-transient ``event: error``, a request the oracle
    rejected, a request the fake API refused by itself, a reply the harness could not
    give, or Ctrl+C."""
    reply, plan = request.reply, request.plan
    if request.violations or request.refused or reply is None or plan is None:
        return True
    if plan.ending == "interrupt":
        return True
    if reply.error is not None and plan.connection is None:
        return not status_is_retryable(plan.status, plan.headers)
    error_event = reply.fault(ErrorEvent)
    return error_event is not None and not error_type_is_transient(error_event.type)


def sdk_rule_only(request: Exchange) -> bool:
    """Whether the request's failure is retried by the official SDKs' rule only (a 408, a
    409, a final status marked ``x-should-retry: true``): ``retries_as_the_sdks_do``."""
    plan = request.plan
    return (request.reply is not None and request.reply.error is not None and plan is not None
            and plan.connection is None and retried_by_the_sdks_only(plan.status, plan.headers))


def transient(reply: Reply) -> bool:
    """Whether an answer is a failure a client may try again: a connection fault, a
    retryable status, a stream fault that fails the attempt (an ``event: error`` of a
    transient type), tool input JSON the SDK cannot parse."""
    if reply.connection is not None:
        return True
    if reply.error is not None:
        return status_is_retryable(api_error(reply.error).status, reply.headers)
    failures = [fault for fault in reply.faults if fault.role == "failure"]
    if failures:
        return all(error_type_is_transient(getattr(fault, "type", "overloaded_error")) for fault in failures)
    try:
        events = stream_events(reply, message_id="msg_policy", model="policy")
    except ValueError:  # a fault aimed beyond its stream: the run reports it
        return False
    pace = reply.fault(Pace)
    if pace is not None and max([*pace.waits(len(events))[1], pace.waits(0)[0]]) > CLIENT_READ_TIMEOUT:
        return True  # a silence longer than a client waits for: its read timeout ends the attempt
    return stream_breaks(events)


def rejected_as_invalid(request: Exchange) -> bool:
    """The API said the request itself is wrong (400 ``invalid_request_error``, in the
    body or in the stream), or refused it by itself (a body that is not JSON, a thread
    error): sending it again unchanged can only fail again."""
    reply, plan = request.reply, request.plan
    if request.violations or request.refused:
        return True
    if reply is None or plan is None or plan.connection is not None:
        return False
    error_event = reply.fault(ErrorEvent)
    if error_event is not None:
        return error_event.type == "invalid_request_error"
    return reply.error is not None and plan.status == 400


def whole_message(request: Exchange) -> dict[str, Any] | None:
    """The message a request's events make for a client that reads them leniently (a block
    started when anything of it comes, tool input kept as it parses): what a request that
    ``arrived_whole`` handed such a client; None when its events make none."""
    if request.plan is None or not request.plan.events:
        return None
    try:
        return final_message(in_documented_order(request.plan.events), strict_inputs=False)
    except ValueError:
        return None


def taken_message(request: Exchange) -> dict[str, Any] | None:
    """The complete message the request got, else the one a client that reads the events
    leniently got where it ``arrived_whole``; None when neither came."""
    message = served_message(request)
    return whole_message(request) if message is None and arrived_whole(request) else message


def served_message(request: Exchange) -> dict[str, Any] | None:
    """The complete message the request got, or None when it got none."""
    if failed(request) or request.plan is None:
        return None
    try:
        return final_message(request.plan.events)
    except (ValueError, KeyError, TypeError, IndexError):
        return None


def delivered_texts(request: Exchange) -> list[str]:
    """The text a failed stream had delivered before it broke, one string per text block
    (empty when nothing was, or when the message had come whole for some clients,
    ``arrived_whole``): what an agent must not keep in its history."""
    plan = request.plan
    if plan is None or plan.connection is not None or not request.streaming or not failed(request) or arrived_whole(request):
        return []
    texts: dict[int, str] = {}
    for event in _delivered_events(request):
        delta = event.get("delta") if isinstance(event, dict) else None
        if event.get("type") == "content_block_delta" and isinstance(delta, dict) and delta.get("type") == "text_delta":
            texts[event.get("index", 0)] = texts.get(event.get("index", 0), "") + str(delta.get("text", ""))
    return [text for text in texts.values() if text.strip()]


def broken_tool_inputs(request: Exchange) -> list[tuple[str, str]]:
    """``(tool_use id, how)`` for each tool_use block whose input reached the client
    broken: cut before the block's ``content_block_stop``, or JSON that does not parse.
    A tool run on such an input runs on garbage."""
    plan = request.plan
    if plan is None or plan.connection is not None or not request.streaming or plan.status != 200:
        return []
    events = _delivered_events(request) if failed(request) else plan.events
    blocks: dict[object, dict[str, Any]] = {}
    for event in events:
        kind, index = event.get("type"), event.get("index")
        if kind == "content_block_start" and (event.get("content_block") or {}).get("type") == "tool_use":
            blocks[index] = {"id": event["content_block"].get("id"), "json": "", "stopped": False}
        elif index in blocks and kind == "content_block_delta":
            blocks[index]["json"] += str((event.get("delta") or {}).get("partial_json", ""))
        elif index in blocks and kind == "content_block_stop":
            blocks[index]["stopped"] = True
    return [
        (str(b["id"]), "cut before its end" if not b["stopped"] else "as JSON that does not parse")
        for b in blocks.values()
        if not b["stopped"] or not _parses(b["json"])
    ]


def _parses(text: str) -> bool:
    if not text:
        return True  # no input deltas: the input of content_block_start stands
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


def _delivered_events(request: Exchange) -> list[dict]:
    """The planned events whose whole frame reached the client of a streamed answer."""
    plan = request.plan
    if plan is None:
        return []
    delivered = [e for e, end in zip(plan.events, _event_ends(plan)) if end <= len(plan.body)]
    bad_data = request.reply.fault(BadData) if request.reply is not None else None
    if bad_data is not None:  # the SDK raises at the bad frame
        delivered = delivered[: bad_data.after_event]
    return delivered


def _event_ends(plan: Any) -> list[int]:
    """Where each planned event's frame ends in the full, unbroken body."""
    ends, offset = [], 0
    for event in plan.events:
        offset += len(encode_event(event))
        ends.append(offset)
    return ends
