"""The shape of a tool: a name, a schema for its input, and a ``run`` that may fail."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Protocol


class Tool(Protocol):
    """A tool the model can call.

    ``run`` receives input that already matches ``input_schema`` and may raise
    anything: the registry turns every exception into an error result.
    """

    name: str
    description: str
    input_schema: dict[str, Any]

    def run(self, args: dict[str, Any], cwd: Path) -> str:
        """Do the work in ``cwd`` and return the text the model reads."""
        ...
