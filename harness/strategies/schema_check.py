"""Whether a value fits a JSON Schema, for the subset the strategies generate from:
``type`` (a name or a list), ``required``, ``enum``, ``properties``,
``additionalProperties`` (``false`` or a schema) and ``items``. Other keywords are
ignored. Written from the JSON Schema specification (an ``integer`` is any number with
no fractional part, so ``1.0`` is one; a boolean is never a number)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def fits(schema: Mapping[str, Any], value: Any) -> bool:
    """True when ``value`` satisfies every keyword of ``schema`` in the subset."""
    kinds = schema.get("type")
    if kinds is not None and not any(_is(kind, value) for kind in ([kinds] if isinstance(kinds, str) else kinds)):
        return False
    if "enum" in schema and not any(json_equal(value, option) for option in schema["enum"]):
        return False
    if isinstance(value, dict):
        return _object_fits(schema, value)
    if isinstance(value, list) and isinstance(schema.get("items"), Mapping):
        return all(fits(schema["items"], item) for item in value)
    return True


def _object_fits(schema: Mapping[str, Any], value: dict[str, Any]) -> bool:
    if any(key not in value for key in schema.get("required", ())):
        return False
    properties = schema.get("properties") or {}
    extra = schema.get("additionalProperties", True)
    for key, item in value.items():
        if key in properties:
            if not fits(properties[key], item):
                return False
        elif extra is False or (isinstance(extra, Mapping) and not fits(extra, item)):
            return False
    return True


def _is(kind: str, value: Any) -> bool:
    if kind == "integer":
        return _number(value) and float(value).is_integer()
    if kind == "number":
        return _number(value)
    return {
        "string": str, "boolean": bool, "object": dict, "array": list, "null": type(None),
    }.get(kind, object) is type(value) or (kind == "object" and isinstance(value, dict))


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value == value and value not in (
        float("inf"), float("-inf"))


def json_equal(a: Any, b: Any) -> bool:
    """JSON equality: ``1 == 1.0`` but ``True != 1``."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(json_equal(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b
