"""Strategies for what the model answers: a complete reply, with text, thinking,
tool calls and a stop reason."""

from __future__ import annotations

import functools
import json
from dataclasses import replace
from typing import Any, Sequence

import jiter
from hypothesis import strategies as st
from hypothesis.strategies import SearchStrategy

from harness.strategies.built import BOOLEANS, integers, once, texts
from harness.strategies.tool_calls import ToolLike, tool_calls
from harness.wire.faults.base import Fault, fault_kinds, sampled
from harness.wire.planner import stream_events
from harness.wire.replies import Reply

FINAL_STOPS = ("end_turn", "end_turn", "end_turn", "stop_sequence", "refusal", "max_tokens", "model_context_window_exceeded")
CONTINUING_STOPS = ("tool_use", "tool_use", "tool_use", "pause_turn", "max_tokens")


WORDS = ("Done.", "Reading", "the", "file", "é", "ß", "日本", "\U0001f600", "\n", " ")
"""What ``model_texts()`` strings together (up to 8 of them), when it does not draw any text."""


@functools.cache
def model_texts() -> SearchStrategy[str]:
    """What a model writes: words, odd unicode, blank text, trailing whitespace."""
    return _model_texts()


@st.composite
def _model_texts(draw: st.DrawFn) -> str:
    if draw(BOOLEANS):
        return draw(texts(30))
    return "".join(WORDS[draw(integers(0, len(WORDS) - 1))] for _ in range(draw(integers(0, 8))))


@st.composite
def replies(
    draw: st.DrawFn, *, tools: Sequence[ToolLike] | None = None, final: bool | None = None, max_tool_calls: int = 2,
    thinking: bool = False,
) -> Reply:
    """A complete answer. ``final=True``: it ends the turn (end_turn, stop_sequence,
    refusal, max_tokens, context window); ``final=False``: the turn goes on (tool calls,
    pause_turn, max_tokens inside a tool call). With ``thinking`` (only for an agent whose
    requests turn thinking on: the real API answers no other with thinking), thinking
    sometimes comes first. Wire noise (pings, unknown events, a slow drip) is sprinkled on."""
    continuing = draw(BOOLEANS) if final is None else not final
    message: dict[str, Any] = {}
    stop = draw(sampled(tuple(CONTINUING_STOPS if continuing else FINAL_STOPS)))
    if thinking and stop != "pause_turn" and draw(integers(0, 4)) == 0:
        message["thinking"] = draw(texts(20))
    if continuing:
        if draw(BOOLEANS):
            message["text"] = draw(model_texts())
        if stop != "pause_turn":
            message["tool_use"] = _calls(draw, tools, draw(integers(1, max_tool_calls)))
        if stop != "tool_use":
            message["stop_reason"] = stop
    else:
        if stop in ("end_turn", "stop_sequence") or draw(BOOLEANS):
            message["text"] = draw(model_texts())
        if stop != "end_turn" or "text" not in message:
            message["stop_reason"] = stop
        if stop == "stop_sequence":
            message["stop_sequence"] = draw(sampled(("\n\nHuman:", "END", "###")))
        if stop == "refusal" and draw(integers(0, 4)) == 0:  # a refusal in the middle of a tool call: never run
            message["tool_use"] = _calls(draw, tools, 1)
            message["stop_reason"] = stop
    if "tool_use" in message and draw(integers(0, 5)) == 0:
        message["tool_use"][0] = _as_raw_json(message["tool_use"][0], draw(integers(0, 200)))
    reply = Reply(message=message)
    return _tolerated(draw, reply)


def _calls(draw: st.DrawFn, tools: Sequence[ToolLike] | None, count: int) -> list[dict[str, Any]]:
    calls = once(tool_calls, tools=tools)
    return [draw(calls) for _ in range(count)]


def _as_raw_json(call: dict[str, Any], cut: int) -> dict[str, Any]:
    """The call's input JSON cut short in a place jiter's partial mode still parses (the
    keys that arrived whole reach the tool): a different fault from ``bad_tool_json``."""
    raw = call["json"] if "json" in call else json.dumps(call["input"], ensure_ascii=False)
    for end in range(min(cut, len(raw)), 0, -1):
        if _partial_parses(raw[:end]):
            return {"name": call["name"], "json": raw[:end]}
    return call


def _partial_parses(raw: str) -> bool:
    try:
        jiter.from_json(raw.encode(), partial_mode=True)
    except ValueError:
        return False
    return True


def _tolerated(draw: st.DrawFn, reply: Reply) -> Reply:
    """Now and then (about three times in eight), one kind of wire noise every client
    must tolerate (the fault kinds whose role is ``noise``: pings, an unknown event, a
    slow drip)."""
    noise = _noise(fault_kinds())
    pick = draw(integers(0, len(noise) + 4))
    strategy = noise[pick - 1].strategy(plain_events(reply)) if 1 <= pick <= len(noise) else None
    return replace(reply, faults=(draw(strategy),)) if strategy is not None else reply


@functools.cache
def _noise(kinds: tuple[type[Fault], ...]) -> tuple[type[Fault], ...]:
    return tuple(kind for kind in kinds if kind.role == "noise")


def plain_events(reply: Reply) -> list[dict[str, Any]]:
    """The events of ``reply``'s message without its faults, as a generated scenario serves them."""
    return stream_events(replace(reply, faults=()), message_id="msg_harness_000000", model="claude")


def event_count(reply: Reply) -> int:
    """How many events ``reply``'s message has without its faults."""
    return len(plain_events(reply))
