"""Run tools by name so that every failure becomes a result the model can read.

``execute`` never raises, with three exceptions on purpose: ``KeyboardInterrupt``,
``SystemExit`` and ``GeneratorExit`` pass through, so that Ctrl+C during a tool
reaches the agent loop. Everything else ends up in a ``ToolOutcome``:

- unknown tool       -> ``No such tool available: X. Available tools: …``
- input off-schema   -> ``InputValidationError: X failed due to the following issue: …``
- tool raised        -> ``Error: ZeroDivisionError: division by zero``

Errors are wrapped in ``<tool_use_error>…</tool_use_error>``; all output is cut to
``max_output`` characters in the middle.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .base import Tool
from .truncate import truncate_middle
from .validate import InputValidationError, check_input


@dataclass(frozen=True)
class ToolOutcome:
    """The text of a tool_result and whether it reports a failure."""

    content: str
    is_error: bool


class ToolRegistry:
    """The tools an agent offers, run in one working directory."""

    def __init__(self, tools: Iterable[Tool], *, cwd: Path, max_output: int = 30_000) -> None:
        self._tools: dict[str, Tool] = {}
        for tool in tools:
            if tool.name in self._tools:
                raise ValueError(f"two tools are named {tool.name!r}")
            self._tools[tool.name] = tool
        if max_output < 1:
            raise ValueError(f"max_output must be positive, got {max_output}")
        self.cwd = Path(cwd)
        self.max_output = max_output

    def definitions(self) -> list[dict[str, Any]]:
        """The ``tools`` parameter of a Messages API request."""
        return [
            {"name": t.name, "description": t.description, "input_schema": t.input_schema}
            for t in self._tools.values()
        ]

    def names(self) -> list[str]:
        """Tool names in the order they were given."""
        return list(self._tools)

    def execute(self, name: str, args: Any) -> ToolOutcome:
        """Validate ``args`` and run tool ``name``; never raises (see the module doc)."""
        tool = self._tools.get(name)
        if tool is None:
            available = ", ".join(self._tools) or "none"
            return self._error(f"No such tool available: {name}. Available tools: {available}")
        try:
            check_input(name, tool.input_schema, args)
            content = tool.run(args, self.cwd)
            if not isinstance(content, str):
                raise TypeError(f"{name} returned {type(content).__name__}, not str")
        except (KeyboardInterrupt, SystemExit, GeneratorExit):
            raise
        except InputValidationError as exc:
            return self._error(f"InputValidationError: {exc}")
        except BaseException as exc:
            return self._error(_describe(exc))
        return ToolOutcome(truncate_middle(content, self.max_output), is_error=False)

    def _error(self, text: str) -> ToolOutcome:
        text = truncate_middle(text, self.max_output)
        return ToolOutcome(f"<tool_use_error>{text}</tool_use_error>", is_error=True)


def _describe(exc: BaseException) -> str:
    message = str(exc)
    kind = type(exc).__name__
    return f"Error: {kind}: {message}" if message else f"Error: {kind}"
