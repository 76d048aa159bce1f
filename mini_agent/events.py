"""What a turn yields: the agent's whole observable behaviour, in order."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, Union

NoticeLevel = Literal["info", "warning", "error"]


@dataclass(frozen=True)
class Notice:
    """Something the user should see that is not model output (a retry, an error)."""

    text: str
    level: NoticeLevel = "info"


@dataclass(frozen=True)
class TextDelta:
    """A piece of the model's text as it streams in."""

    text: str


@dataclass(frozen=True)
class ToolCall:
    """The model asked for a tool; it is about to run."""

    id: str
    name: str
    input: Any


@dataclass(frozen=True)
class ToolResult:
    """What a tool returned (or why it failed) for one tool_use id."""

    tool_use_id: str
    name: str
    content: str
    is_error: bool


@dataclass(frozen=True)
class MessageDone:
    """A complete assistant message, now part of the history."""

    message: dict[str, Any]
    stop_reason: str | None
    usage: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class TurnEnd:
    """The turn is over. ``reason`` is the stop reason or what ended it
    (``end_turn``, ``error``, ``interrupted``, ``refusal``, ``max_tokens``,
    ``context_window``, ``internal_error`` …)."""

    reason: str


Event = Union[Notice, TextDelta, ToolCall, ToolResult, MessageDone, TurnEnd]
