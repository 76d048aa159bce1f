"""What an agent may report of a turn, in the harness's own types.

``run_turn`` may return a stream (a generator, or an async generator) of these; an
adapter translates its agent's own events into them (``TranslatedEvents``), as
``harness.agents.mini_agent`` does for mini_agent's. Outside ``harness/agents/`` the
harness reads events only by ``isinstance`` on these classes:

| event | what the harness does with it |
|---|---|
| ``Notice(text, level)`` | ``expect: notices`` / ``no_notices``; a timeline line |
| ``TextDelta(text)`` | ``expect: text`` (the model text shown); where a Ctrl+C at this event hit ("mid text") |
| ``ThinkingDelta(text)`` | where a Ctrl+C at this event hit ("mid thinking") |
| ``ToolCall(name, input, id)`` | ``interrupt: {tool: NAME}`` presses Ctrl+C here; a timeline line |
| ``ToolResult(name, content, is_error, tool_use_id)`` | a timeline line |
| ``MessageDone(stop_reason, message, usage)`` | a timeline line |
| ``TurnEnd(reason)`` | ``expect: end`` as the agent says it; a recording stops on ``interrupted`` |

Anything else a turn yields is counted (``interrupt: {at_event: k}`` counts every item)
but never read: an agent's own objects are not mistaken for these.
"""

from __future__ import annotations

from collections.abc import Generator, Iterator
from dataclasses import dataclass, field
from typing import Any, Callable


@dataclass(frozen=True)
class Event:
    """The base of every event an agent may report to the harness."""


@dataclass(frozen=True)
class Notice(Event):
    """Something shown to the user that is not model output (a retry, an error);
    ``level`` is ``info``, ``warning`` or ``error``."""

    text: str
    level: str = "info"


@dataclass(frozen=True)
class TextDelta(Event):
    """A piece of the model's text as it streams in."""

    text: str


@dataclass(frozen=True)
class ThinkingDelta(Event):
    """A piece of the model's thinking as it streams in."""

    text: str


@dataclass(frozen=True)
class ToolCall(Event):
    """The model asked for a tool; it is about to run."""

    name: str
    input: Any = None
    id: str = ""


@dataclass(frozen=True)
class ToolResult(Event):
    """What a tool returned, or why it failed."""

    name: str
    content: str
    is_error: bool = False
    tool_use_id: str = ""


@dataclass(frozen=True)
class MessageDone(Event):
    """A whole assistant message arrived (and is now part of the history)."""

    stop_reason: str | None
    message: dict[str, Any] = field(default_factory=dict)
    usage: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class TurnEnd(Event):
    """The turn is over; ``reason`` is the stop reason or what ended it (``end_turn``,
    ``error``, ``interrupted``, ``refusal`` …)."""

    reason: str


class TranslatedEvents(Iterator[Any]):
    """A turn's events, each passed through ``translate`` (an agent's own event → a
    harness event). ``throw`` and ``close`` reach the agent's own generator, so a
    Ctrl+C the harness presses lands inside the agent's turn, as a plain
    ``for e in events: yield translate(e)`` would not let it."""

    def __init__(self, events: Generator[Any, Any, Any], translate: Callable[[Any], Any]) -> None:
        self._events = events
        self._translate = translate

    def __next__(self) -> Any:
        return self._translate(next(self._events))

    def throw(self, error: BaseException | type[BaseException]) -> Any:
        """Raise ``error`` inside the agent's turn; the event it yields next, translated."""
        return self._translate(self._events.throw(error))

    def close(self) -> None:
        """Close the agent's turn (its ``finally`` blocks run)."""
        self._events.close()
