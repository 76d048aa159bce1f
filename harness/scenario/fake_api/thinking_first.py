"""The real API thinks first: with ``thinking: {type: enabled}``, an answer that opens an
assistant turn starts with a thinking block (the extended thinking docs; every such answer
in the conformance recordings), and one after tool results does not unless interleaved
thinking lets it. A scenario's message reply that does not think, served to a request that
opens a turn so, gets a thinking block before its own blocks: an agent that drops it inside
the tool loop then meets the API's 400 as it would live (``harness.oracle.thinking_kept``).

Served as written, with no thinking added: a reply that thinks already or is marked
``as_written``, one with stream faults that name an event or a byte (their positions count
the scenario's own events; a scenario writes ``thinking:`` to have both: faults that name
none, a pace, a drip, pings, take the thinking too), raw ``events``, an error, a
``pause_turn``; a
request whose ``tool_choice`` forces a tool (the API does not think then), or with
``adaptive`` thinking (the model may skip it).

    thinks_first(reply, request) -> Reply
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from harness.oracle.thinking_kept import hands_back_results
from harness.wire.replies import Reply

THOUGHT = "Let me work out what the user needs before I answer."
"""The thinking the fake API adds where the real one would think."""


def thinks_first(reply: Reply, request: Any) -> Reply:
    """``reply`` as the real API would answer ``request``: with a thinking block first where
    the request opens a turn with thinking enabled and the reply does not think."""
    message = reply.message
    if reply.kind != "message" or message is None or reply.thinks or reply.as_written:
        return reply
    if not all(fault.fits_any_message() for fault in reply.faults):
        return reply
    if message.get("stop_reason") == "pause_turn" or not opens_a_thinking_turn(request):
        return reply
    return dataclasses.replace(reply, message={"thinking": THOUGHT, **message})


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
