"""Check tool input against a small JSON-Schema subset, in words the model can act on.

Keywords: ``type`` (a name or a list of names), ``required``, ``enum``,
``properties``, ``additionalProperties`` (``false`` or a schema) and ``items``.
Anything else in a schema (``description``, ``default`` …) is ignored.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

_TYPE_CHECKS: dict[str, Callable[[Any], bool]] = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "integer": lambda v: (isinstance(v, int) and not isinstance(v, bool))
    or (isinstance(v, float) and v.is_integer()),
}

_JSON_NAMES: list[tuple[type, str]] = [
    (bool, "boolean"),  # before int: bool is a subclass of int
    (int, "integer"),
    (float, "number"),
    (str, "string"),
    (list, "array"),
    (dict, "object"),
]


class InputValidationError(ValueError):
    """Tool input that does not match the tool's schema; ``problems`` has one line each."""

    def __init__(self, tool_name: str, problems: list[str]) -> None:
        self.tool_name = tool_name
        self.problems = problems
        issues = "issue" if len(problems) == 1 else "issues"
        super().__init__(
            f"{tool_name} failed due to the following {issues}:\n" + "\n".join(problems)
        )


def check_input(tool_name: str, schema: dict[str, Any], value: Any) -> None:
    """Raise ``InputValidationError`` unless ``value`` matches ``schema``."""
    problems = validate(schema, value)
    if problems:
        raise InputValidationError(tool_name, problems)


def validate(schema: dict[str, Any], value: Any, path: str = "") -> list[str]:
    """Return one line per way ``value`` breaks ``schema`` (empty when it matches).

    ``path`` is the dotted location of ``value`` (``edits.0.text``); "" is the input.
    """
    expected = schema.get("type")
    if expected is not None:
        names = [expected] if isinstance(expected, str) else list(expected)
        if not any(_type_check(name)(value) for name in names):
            shown = " or ".join(f"`{name}`" for name in names)
            provided = _json_type(value)
            return [f"{_subject(path)} type is expected as {shown} but provided as `{provided}`"]
    problems: list[str] = []
    if "enum" in schema and not any(_same(value, option) for option in schema["enum"]):
        options = ", ".join(f"`{_show(option)}`" for option in schema["enum"])
        problems.append(f"{_subject(path)} must be one of: {options}")
    if isinstance(value, dict):
        problems += _object_problems(schema, value, path)
    if isinstance(value, list) and "items" in schema:
        for index, item in enumerate(value):
            problems += validate(schema["items"], item, _join(path, str(index)))
    return problems


def _object_problems(schema: dict[str, Any], value: dict[str, Any], path: str) -> list[str]:
    properties: dict[str, Any] = schema.get("properties", {})
    extra = schema.get("additionalProperties", True)
    problems = [
        f"The required parameter `{_join(path, key)}` is missing"
        for key in schema.get("required", [])
        if key not in value
    ]
    for key, item in value.items():
        if key in properties:
            problems += validate(properties[key], item, _join(path, key))
        elif extra is False:
            problems.append(f"An unexpected parameter `{_join(path, key)}` was provided")
        elif isinstance(extra, dict):
            problems += validate(extra, item, _join(path, key))
    return problems


def _type_check(name: str) -> Callable[[Any], bool]:
    try:
        return _TYPE_CHECKS[name]
    except KeyError:
        raise ValueError(f"unknown type {name!r} in schema") from None


def _same(value: Any, option: Any) -> bool:
    """JSON equality all the way down: ``true`` is not ``1`` (nor ``[true]`` ``[1]``), ``1`` is ``1.0``."""
    if isinstance(value, bool) or isinstance(option, bool):
        return type(value) is type(option) and value == option
    if isinstance(value, dict) and isinstance(option, dict):
        return value.keys() == option.keys() and all(_same(value[k], option[k]) for k in value)
    if isinstance(value, list) and isinstance(option, list):
        return len(value) == len(option) and all(map(_same, value, option))
    return value == option


def _json_type(value: Any) -> str:
    """The JSON type name of a Python value (``True`` is a ``boolean``, not an ``integer``)."""
    if value is None:
        return "null"
    for python_type, name in _JSON_NAMES:
        if isinstance(value, python_type):
            return name
    return type(value).__name__


def _show(option: Any) -> str:
    return option if isinstance(option, str) else json.dumps(option)


def _subject(path: str) -> str:
    return f"The parameter `{path}`" if path else "The input"


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key
