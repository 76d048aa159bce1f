"""Which kind of fault hit where in a run (before the headers, in the status line, mid
text, mid tool input, after a tool block, on a non-streaming request …), read from what
was served; ``harness.report.coverage`` builds the matrix from these hits."""

from __future__ import annotations

from harness.agents.events import (
    MessageDone,
    TextDelta,
    ThinkingDelta,
    ToolCall,
    ToolResult,
    TurnEnd,
)
from harness.oracle.retry import status_is_retryable
from harness.scenario.checks.outcome import Outcome
from harness.scenario.fake_api.exchange import Exchange
from harness.scenario.format.model import DEFAULT_MODEL
from harness.scenario.format.positions import Frame, serve
from harness.wire.faults.base import NON_STREAMING, SENT, Hit
from harness.wire.replies import Reply

LIMIT_ROW = {"acceleration": "acceleration limit 429", "spend_cap": "spend cap 429"}  # any other: a bucket
_OPEN_BLOCK = {"thinking": "mid thinking", "redacted_thinking": "mid thinking", "text": "mid text"}
_AGENT_EVENT_PLACE = ((TextDelta, "mid text"), (ThinkingDelta, "mid thinking"), (ToolCall, "while a tool runs"),
                      (ToolResult, "while a tool runs"), (MessageDone, "after the message"), (TurnEnd, "after the message"))


def fault_hits(outcome: Outcome) -> list[tuple[str, str]]:
    """``(kind, place)`` of every fault that was served or pressed in the run."""
    hits = [hit for request in outcome.requests if request.reply is not None for hit in request_hits(request)]
    hits += [("usage budget", "between requests") for spec in outcome.scenario.turns if "usage" in spec.expect]
    hits += [("usage budget", "between requests")] * ("usage" in outcome.scenario.expect)
    for turn, spec in zip(outcome.turns, outcome.scenario.turns):
        interrupt = spec.interrupt
        if interrupt is None or not turn.interrupted:
            continue
        if interrupt.tool is not None:
            place = "while a tool runs"
        else:
            events = turn.events[interrupt.at_event - 1 : interrupt.at_event] if interrupt.at_event else []
            place = _event_place(events[0][2]) if events else "between requests"
        kind = "turn generator closed" if interrupt.close else (
            "Ctrl+C when a tool is called" if interrupt.tool is not None else "Ctrl+C at a turn event")
        hits.append((kind, place))
    return hits


def _event_place(event: object) -> str:
    """Where in a turn the agent stood when it reported ``event``."""
    return next((place for kind, place in _AGENT_EVENT_PLACE if isinstance(event, kind)), "between requests")


def request_hits(request: Exchange) -> list[tuple[str, str]]:
    """The faults of the reply one request got, and where each hit."""
    reply = request.reply
    assert reply is not None
    if request.limited is not None:
        return [(LIMIT_ROW.get(request.limited, "rate limit 429 (a bucket)"), "HTTP status")]
    if reply.kind == "connection":
        return [(f"connection {str(reply.connection).replace('_', ' ')}", "before headers")]
    if reply.kind == "error":
        status = request.plan.status if request.plan is not None else 500
        retryable = status_is_retryable(status, request.plan.headers if request.plan is not None else reply.headers)
        return [("HTTP error, retryable" if retryable else "HTTP error, final", "HTTP status")]
    faults = _stream_faults(reply, request.written or reply)
    if not faults:
        return []
    if not request.streaming:
        return [(kind, NON_STREAMING) for kind, _ in faults]
    model = request.body.get("model") if isinstance(request.body, dict) else None
    frames = serve(reply, model=str(model or DEFAULT_MODEL), number=request.number).frames
    sent = len(request.plan.body) if request.plan is not None else 0
    whole = sum(1 for frame in frames if frame.end <= sent)
    return [(kind, place_after(frames, whole if at == SENT else at)) for kind, at in faults]


def _stream_faults(reply: Reply, written: Reply) -> list[Hit]:
    """The served reply's stream faults, each a coverage row and where it hit (``Hit``), and
    raw tool-input JSON in the message as written (a call renamed for the agent streams as
    raw JSON)."""
    found = [hit for fault in reply.faults for hit in fault.hits()]
    tools = (written.message or {}).get("tool_use")
    if any(isinstance(t, dict) and "json" in t for t in (tools if isinstance(tools, list) else [tools])):
        found.append(("raw tool-input JSON", "mid tool input"))
    return found


def place_after(frames: tuple[Frame, ...], count: int | str) -> str:
    """Where in the message a stream stands after its first ``count`` events."""
    if isinstance(count, str):
        return count
    open_block: str | None = None
    last: str | None = None
    for frame in frames[:count]:
        event, kind = frame.event or {}, (frame.event or {}).get("type")
        if kind == "content_block_start":
            open_block = str((event.get("content_block") or {}).get("type"))
        elif kind == "content_block_stop":
            last, open_block = open_block, None
        elif kind in ("message_delta", "message_stop"):
            return "after the message"
    if open_block is not None:
        return _OPEN_BLOCK.get(open_block, "mid tool input" if "tool" in open_block else "mid text")
    if last is None:
        return "before any block"
    return "after a tool block" if "tool_use" in last else "after a text block"
