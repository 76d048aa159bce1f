"""The clients' own names for the standard tools, in a file of their own (``harness serve
--tool-map FILE``): the mapping an in-process agent gives as its ``tool_map`` attribute
(``harness.scenario.fake_api.tool_map``), in YAML or JSON::

    Read: {name: read_file, input: {file_path: path, limit: null}}
    Bash: {name: shell}
    Write: {name: str_replace_based_edit_tool, input: {content: file_text}, with: {command: create}}

Errors::

    HarnessError
     └── ToolMapFileError   a tool map file with mistakes, each at ``file:line:col``
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from harness.scenario.format.spec import Choice, Either, MapOf, Obj, Scalar
from harness.scenario.format.tools import STANDARD_TOOLS
from harness.scenario.format.yaml_positions import load_checked
from harness.wire.errors import HarnessError


class ToolMapFileError(HarnessError, ValueError):
    """A ``--tool-map`` file with mistakes."""


CLIENTS_NAME = Either((Scalar("string"), Choice((None,))), "the clients' name for the argument (null: their tool has none)")


def _one_tool(arguments: list[str]) -> Obj:
    return Obj({
        "name": Scalar("string", "the clients' name for the tool"),
        "input": Obj({argument: CLIENTS_NAME for argument in arguments}, what="standard arguments"),
        "with": MapOf(Scalar("any"), "arguments every call of it carries (one tool for several: {command: view})"),
    }, what="tool")


TOOL_MAP_SPEC = Obj({spec.name: _one_tool(list(spec.input_schema.get("properties", {}))) for spec in STANDARD_TOOLS},
                    what="tool map")


def load_tool_map(path: str | Path) -> dict[str, Any]:
    """The mapping in ``path``, checked; ToolMapFileError naming ``path:line:col``."""
    document = load_checked(path, TOOL_MAP_SPEC, "tool_map", ToolMapFileError)
    return {standard: dict(spec) for standard, spec in document.items()}
