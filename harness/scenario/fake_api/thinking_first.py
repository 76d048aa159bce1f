"""The real API thinks first: with ``thinking: {type: enabled}``, an answer that opens an
assistant turn starts with a thinking block (the extended thinking docs; every such answer
in the conformance recordings), and one after tool results does not unless interleaved
thinking lets it. A scenario's message reply that does not think, served to a request that
opens a turn so, gets a thinking block before its own blocks: an agent that drops it inside
the tool loop then meets the API's 400 as it would live (``harness.oracle.thinking_kept``).

A reply's stream faults count the scenario's own events: with the thinking added, each
event they name moves with them (``Fault.moved``), so that a cut after the text's second
delta still comes there. Served as written, with no thinking added: a reply that thinks
already or is marked ``as_written``, one with a fault that names bytes (``cut.after_bytes``)
or recorded gaps between events, or events spread over the stream (pings) with a fault that
names an event, raw ``events``, an error, a ``pause_turn``; a
request whose ``tool_choice`` forces a tool (the API does not think then), or with
``adaptive`` thinking (the model may skip it).

    thinks_first(reply, request) -> Reply
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Mapping
from typing import Any

from harness.oracle.thinking_kept import hands_back_results
from harness.wire import sse
from harness.wire.replies import Reply

THOUGHT = "Let me work out what the user needs before I answer."
"""The thinking the fake API adds where the real one would think."""


def thinks_first(reply: Reply, request: Any) -> Reply:
    """``reply`` as the real API would answer ``request``: with a thinking block first where
    the request opens a turn with thinking enabled and the reply does not think."""
    message = reply.message
    if reply.kind != "message" or message is None or reply.thinks or reply.as_written:
        return reply
    if message.get("stop_reason") == "pause_turn" or not opens_a_thinking_turn(request):
        return reply
    faults = [fault.moved(_thinking_events()) for fault in reply.faults]
    if any(fault is None for fault in faults):
        return reply
    if any(fault.spread for fault in reply.faults) and faults != list(reply.faults):
        return reply  # events spread over a longer stream land elsewhere, and move the positions after them
    return dataclasses.replace(reply, message={"thinking": THOUGHT, **message}, faults=tuple(faults))


@functools.cache
def _thinking_events() -> int:
    """How many events the thinking block adds to a stream."""
    plain = sse.message_events({"text": "."}, message_id="msg")
    return len(sse.message_events({"thinking": THOUGHT, "text": "."}, message_id="msg")) - len(plain)


def opens_a_thinking_turn(request: Any) -> bool:
    """Whether ``request`` (a conversation) asks for the first answer of an assistant turn
    with thinking ``enabled`` and no forced tool."""
    if not isinstance(request, Mapping):
        return False
    thinking, choice, messages = request.get("thinking"), request.get("tool_choice"), request.get("messages")
    if not (isinstance(thinking, Mapping) and thinking.get("type") == "enabled"):
        return False
    if isinstance(choice, Mapping) and choice.get("type") in ("any", "tool"):
        return False
    if not isinstance(messages, list) or not messages or not isinstance(messages[-1], Mapping):
        return False
    return messages[-1].get("role") == "user" and not hands_back_results(messages[-1])
