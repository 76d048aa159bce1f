"""How events look in a terminal, in the spirit of Claude Code's transcript."""

from __future__ import annotations

import json
from typing import Any

from .events import Event, MessageDone, Notice, TextDelta, ToolCall, ToolResult, TurnEnd

NOTICE_MARKS = {"info": "·", "warning": "⚠", "error": "✗"}
RESULT_PREVIEW_LINES = 4
ERROR_OPEN, ERROR_CLOSE = "<tool_use_error>", "</tool_use_error>"


class Renderer:
    """Turns events into text; remembers whether a line of model text is open."""

    def __init__(self) -> None:
        self.mid_line = False

    def render(self, event: Event) -> str:
        """The text to print for one event (may be empty)."""
        if isinstance(event, TextDelta):
            prefix = "" if self.mid_line else "⏺ "
            self.mid_line = not event.text.endswith("\n")
            return prefix + event.text
        text = self._close_line()
        if isinstance(event, ToolCall):
            return text + f"⏺ {event.name}({format_args(event.input)})\n"
        if isinstance(event, ToolResult):
            return text + format_result(event)
        if isinstance(event, Notice):
            return text + f"{NOTICE_MARKS[event.level]} {event.text}\n"
        if isinstance(event, (MessageDone, TurnEnd)):
            return text
        return text

    def render_close(self) -> str:
        """A newline if model text is mid-line (before printing something else)."""
        return self._close_line()

    def _close_line(self) -> str:
        if self.mid_line:
            self.mid_line = False
            return "\n"
        return ""


def format_args(args: Any) -> str:
    """Tool arguments on one line: ``file_path=README.md, limit=5``."""
    if not isinstance(args, dict):
        return json.dumps(args)
    return ", ".join(f"{k}={_short(v)}" for k, v in args.items())


def format_result(event: ToolResult) -> str:
    """The first lines of a tool result, indented under its call."""
    text = event.content.removeprefix(ERROR_OPEN).removesuffix(ERROR_CLOSE) if event.is_error else event.content
    lines = text.splitlines() or [""]
    shown = lines[:RESULT_PREVIEW_LINES]
    if len(lines) > RESULT_PREVIEW_LINES:
        shown.append(f"… +{len(lines) - RESULT_PREVIEW_LINES} lines")
    label = "Error: " if event.is_error and not shown[0].startswith("Error") else ""
    out = f"  ⎿  {label}{shown[0]}\n"
    return out + "".join(f"     {line}\n" for line in shown[1:])


def _short(value: Any, limit: int = 60) -> str:
    text = value if isinstance(value, str) else json.dumps(value)
    text = text.replace("\n", "\\n")
    return text if len(text) <= limit else text[: limit - 1] + "…"
