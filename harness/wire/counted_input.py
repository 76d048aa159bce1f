"""A message's ``input_tokens`` counted from the request it answers, without moving a
fault placed by bytes.

A reply whose ``usage`` gives no ``input_tokens`` reports the request's own count (the fake
API's estimate). That changes the width of the number in ``message_start`` and
``message_delta`` (or in a JSON body's ``usage``), and so every byte offset after it; a
fault placed by bytes (``cut: {after_bytes: n}``) names offsets as ``harness events``
shows them, for ``sse.DEFAULT_INPUT_TOKENS``, and lands at the same place among the
events: ``served_offset`` moves it past each number it lies beyond.

Pure: no I/O.
"""

from __future__ import annotations

import dataclasses
from typing import TypeVar

from harness.wire.replies import Reply
from harness.wire.sse import DEFAULT_INPUT_TOKENS

_STREAMED = b'"usage":{"input_tokens":'  # compact, as the frames are written
_JSON = b'"usage": {"input_tokens": '
_DELTA = b"event: message_delta\n"
Placed = TypeVar("Placed")


def counted(reply: Reply, input_tokens: int | None) -> Reply:
    """``reply`` with ``input_tokens`` in its message's usage, unless it gives its own (or
    is no message)."""
    message = reply.message
    if input_tokens is None or message is None or "input_tokens" in (message.get("usage") or {}):
        return reply
    return dataclasses.replace(reply, message={**message, "usage": {**(message.get("usage") or {}), "input_tokens": input_tokens}})


def served_fault(fault: Placed, body: bytes, input_tokens: int, *, streaming: bool) -> Placed:
    """``fault`` (a byte fault, or its JSON form) with its ``after_bytes`` (if any) moved from the rendering for
    ``DEFAULT_INPUT_TOKENS`` to ``body``, the one for ``input_tokens``."""
    after = getattr(fault, "after_bytes", None)
    if after is None:
        return fault
    return dataclasses.replace(fault, after_bytes=served_offset(after, body, input_tokens, streaming=streaming))  # type: ignore[type-var]


def served_offset(offset: int, body: bytes, input_tokens: int, *, streaming: bool) -> int:
    """Where byte ``offset`` of the answer rendered for ``DEFAULT_INPUT_TOKENS`` lies in
    ``body``, rendered for ``input_tokens`` (past a number: moved by the width it gained)."""
    wider = len(str(input_tokens)) - len(str(DEFAULT_INPUT_TOKENS))
    moved = offset
    for at in _numbers(body, streaming):
        if offset > at - (moved - offset):  # the number's place in the default rendering
            moved += wider
    return moved


def _numbers(body: bytes, streaming: bool) -> list[int]:
    """Where the usage's ``input_tokens`` number begins: in message_start and message_delta,
    or in the JSON body's usage (its last key)."""
    if not streaming:
        at = body.rfind(_JSON)
        return [at + len(_JSON)] if at >= 0 else []
    found = []
    start = body.find(_STREAMED)
    if start >= 0:
        found.append(start + len(_STREAMED))
    delta = body.find(_DELTA)
    end = body.find(_STREAMED, delta) if delta >= 0 else -1
    if end >= 0:
        found.append(end + len(_STREAMED))
    return found
