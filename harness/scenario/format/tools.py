"""The standard tool set that scenarios call: its names and input schemas.

The fake model in a scenario calls these tools; an agent whose tools are named or
shaped differently maps them (``tool_map``). The set is Claude Code's trio, as small
as a coding agent can be:

- ``Read {file_path, offset?, limit?}``: the text of a file in the workspace; an error
  result when the file does not exist or is a folder.
- ``Write {file_path, content}``: create or replace a file, parent folders included.
- ``Bash {command, timeout?}``: ``bash -c command`` in the workspace, ``timeout`` in
  seconds; the result holds its output and exit code (or what it printed before the
  timeout), and every process it started is gone when it returns.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class ToolSpec:
    """A tool as a scenario knows it: a name and the JSON Schema of its input."""

    name: str
    input_schema: dict[str, Any] = field(default_factory=dict)


def _object(properties: dict[str, str], required: tuple[str, ...]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {name: {"type": kind} for name, kind in properties.items()},
        "required": list(required),
        "additionalProperties": False,
    }


STANDARD_TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec("Read", _object({"file_path": "string", "offset": "integer", "limit": "integer"}, ("file_path",))),
    ToolSpec("Write", _object({"file_path": "string", "content": "string"}, ("file_path", "content"))),
    ToolSpec("Bash", _object({"command": "string", "timeout": "number"}, ("command",))),
)
