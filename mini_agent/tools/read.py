"""Read: a text file's lines, numbered like ``cat -n``."""

from __future__ import annotations

from itertools import islice
from pathlib import Path
from typing import Any

from .paths import resolve

DEFAULT_LIMIT = 2000


class Read:
    """Return lines ``offset`` … ``offset + limit - 1`` of a file, numbered from 1."""

    name = "Read"
    description = (
        "Read a text file. Returns its lines numbered like `cat -n` (number, tab, line). "
        f"Reads up to {DEFAULT_LIMIT} lines from the start; for long files pass `offset` "
        "(the 1-based line number to start at) and `limit` (how many lines)."
    )
    input_schema: dict[str, Any] = {
        "type": "object",
        "properties": {
            "file_path": {
                "type": "string",
                "description": "Path of the file, absolute or relative to the working directory",
            },
            "offset": {"type": "integer", "description": "1-based line number to start at"},
            "limit": {"type": "integer", "description": "Number of lines to read"},
        },
        "required": ["file_path"],
        "additionalProperties": False,
    }

    def run(self, args: dict[str, Any], cwd: Path) -> str:
        """Read the lines asked for; a missing file or a directory raises."""
        path = resolve(args["file_path"], cwd)
        offset = int(args.get("offset", 1))
        limit = int(args.get("limit", DEFAULT_LIMIT))
        if offset < 1 or limit < 1:
            raise ValueError(f"offset and limit must be at least 1, got {offset} and {limit}")
        if not path.exists():
            raise FileNotFoundError(f"File does not exist: {path}")
        if path.is_dir():
            raise IsADirectoryError(f"{path} is a directory, not a file")
        with path.open(encoding="utf-8", errors="replace") as file:
            # one line more than asked for, to tell whether the file goes on
            lines = [line.removesuffix("\n") for line in islice(file, offset - 1, offset + limit)]
        if not lines:
            empty = "(the file is empty)"
            return empty if offset == 1 else f"(the file has fewer than {offset} lines)"
        numbered = [f"{number:6}\t{line}" for number, line in enumerate(lines[:limit], offset)]
        if len(lines) > limit:
            numbered.append(f"(more lines follow; continue with offset={offset + limit})")
        return "\n".join(numbered)
