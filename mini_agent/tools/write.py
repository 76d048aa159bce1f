"""Write: create or overwrite a file with the given text."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .paths import resolve


class Write:
    """Write ``content`` to ``file_path`` as UTF-8, creating parent directories."""

    name = "Write"
    description = (
        "Write a file with the given content, replacing it if it exists and creating "
        "missing parent directories."
    )
    input_schema: dict[str, Any] = {
        "type": "object",
        "properties": {
            "file_path": {
                "type": "string",
                "description": "Path of the file, absolute or relative to the working directory",
            },
            "content": {"type": "string", "description": "The complete new content of the file"},
        },
        "required": ["file_path", "content"],
        "additionalProperties": False,
    }

    def run(self, args: dict[str, Any], cwd: Path) -> str:
        """Write the file and say how many bytes went where."""
        path = resolve(args["file_path"], cwd)
        data = args["content"].encode("utf-8")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        return f"Wrote {len(data)} bytes to {path}"
