"""Harmless tool calls a generated model may make: paths that stay in the workspace,
commands that only echo, and calls to the standard tools (or to no tool at all)."""

from __future__ import annotations

import functools
import json
import shlex
from typing import Any, Protocol, Sequence

from hypothesis import strategies as st
from hypothesis.strategies import SearchStrategy

from harness.scenario.format.sandbox import workspace_key_problem
from harness.scenario.format.tools import STANDARD_TOOLS
from harness.strategies.built import BOOLEANS, integers
from harness.strategies.mutations import invalid_tool_inputs
from harness.strategies.schemas import json_values, tool_inputs


class ToolLike(Protocol):
    """Anything with a tool's name and input schema (a ``ToolSpec``, an agent's tool)."""

    name: str
    input_schema: dict[str, Any]


_SEGMENT = st.text(st.characters(blacklist_characters="/\x00", blacklist_categories=("Cs",)), min_size=1, max_size=12).filter(
    lambda s: s not in (".", "..")
)
COMMON_FILES = ("notes.txt", "src/app.py", "README.md")


@functools.cache
def workspace_paths() -> SearchStrategy[str]:
    """Relative paths that stay inside the working directory and name a file: what the
    scenario format takes as a workspace key (no ``..``, ``~`` or ``/`` start, not blank,
    no ``\\`` that ends it)."""
    made = st.lists(_SEGMENT, min_size=1, max_size=2).map("/".join).filter(lambda p: workspace_key_problem(p) is None)
    return st.sampled_from(COMMON_FILES) | made


@functools.cache
def echo_commands() -> SearchStrategy[str]:
    """``echo 'any text'``: the only command generated scenarios give to Bash."""
    text = st.text(st.characters(blacklist_characters="\x00", blacklist_categories=("Cs",)), max_size=20)
    return text.map(lambda s: f"echo {shlex.quote(s)}")


def safe_overrides() -> dict[str, SearchStrategy[Any]]:
    """Where the standard tools take a path or a command: values that cannot do harm."""
    return {"file_path": workspace_paths(), "command": echo_commands()}


def tool_calls(*, tools: Sequence[ToolLike] | None = None) -> SearchStrategy[dict[str, Any]]:
    """``tool_use`` specs (``{"name", "input"}``): harmless valid input, a near miss, or
    input that is not an object; now and then a tool that does not exist."""
    if tools is None:
        return _default_tool_calls()
    return _tool_calls(list(tools))


@functools.cache
def _default_tool_calls() -> SearchStrategy[dict[str, Any]]:
    return _tool_calls(list(STANDARD_TOOLS))


def _call(name: str, value: Any) -> dict[str, Any]:
    """A tool_use spec. Input that is not an object goes as one raw JSON piece: streamed in
    the usual 10-character pieces, a string's first piece would not parse and the SDK
    would raise (the API itself only ever streams objects)."""
    if isinstance(value, dict):
        return {"name": name, "input": value}
    return {"name": name, "json": json.dumps(value, ensure_ascii=False)}


Known = tuple[str, SearchStrategy[Any], SearchStrategy[Any]]  # a tool's name, its valid input, its near misses


def _tool_calls(tools: list[ToolLike]) -> SearchStrategy[dict[str, Any]]:
    overrides = safe_overrides()
    known = tuple(
        (tool.name, tool_inputs(tool.input_schema, overrides=overrides), invalid_tool_inputs(tool.input_schema, overrides=overrides))
        for tool in tools
    )
    names = {tool.name for tool in tools}
    unknown_names = st.from_regex(r"[A-Za-z][A-Za-z0-9_-]{0,15}", fullmatch=True).filter(lambda n: n not in names)
    unknown_inputs = st.dictionaries(st.text(max_size=6), json_values(max_leaves=2), max_size=2)
    return _calls_among(known, unknown_names, unknown_inputs)


@st.composite
def _calls_among(draw: st.DrawFn, known: tuple[Known, ...], unknown_names: SearchStrategy[str],
                 unknown_inputs: SearchStrategy[dict[str, Any]]) -> dict[str, Any]:
    """A call to one of the ``known`` tools (valid input or a near miss, as often), or as
    often as to each of them, to a tool that does not exist."""
    pick = draw(integers(0, len(known)))
    if pick == len(known):
        return {"name": draw(unknown_names), "input": draw(unknown_inputs)}
    name, valid, near_misses = known[pick]
    return _call(name, draw(near_misses if draw(BOOLEANS) else valid))
