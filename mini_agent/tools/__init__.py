"""Layer 2: tools that never raise; every failure is an error result for the model.

``ToolRegistry.execute`` validates the input against the tool's schema, runs the tool
and turns any failure into a ``<tool_use_error>`` ``ToolOutcome``.
"""

from __future__ import annotations

from .base import Tool
from .bash import Bash
from .read import Read
from .registry import ToolOutcome, ToolRegistry
from .validate import InputValidationError
from .write import Write

__all__ = ["Bash", "InputValidationError", "Read", "Tool", "ToolOutcome", "ToolRegistry",
           "Write", "default_tools"]


def default_tools() -> list[Tool]:
    """Read, Write and Bash with their default settings."""
    return [Read(), Write(), Bash()]
