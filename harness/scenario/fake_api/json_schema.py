"""What a JSON schema the API constrains its output to allows, read for what it states
plainly (``type``, ``enum``, ``const``, ``required``, ``properties``,
``additionalProperties: false``, ``items``, ``anyOf``; local ``$ref``s when a value is
built): a strict tool's input (``strict_tools``) and a JSON output (``json_outputs``).

    breach(schema, value, where) -> str | None     how value breaks schema (None: it may not)
    example(schema, text) -> Example               a value that meets schema, as JSON, text in a string of it
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from harness.wire.errors import HarnessError

TYPES: dict[str, Any] = {
    "object": lambda v: isinstance(v, dict), "array": lambda v: isinstance(v, list), "string": lambda v: isinstance(v, str),
    "boolean": lambda v: isinstance(v, bool), "null": lambda v: v is None,
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
}
FORMATS = {
    "date-time": "2026-01-01T00:00:00Z", "date": "2026-01-01", "time": "00:00:00Z", "duration": "P1D",
    "email": "user@example.com", "hostname": "example.com", "uri": "https://example.com/", "ipv4": "192.0.2.1",
    "ipv6": "2001:db8::1", "uuid": "00000000-0000-4000-8000-000000000000",
}
"""A value of each string format the structured outputs docs list as supported."""
DEEPEST = 32


def breach(schema: Any, value: Any, where: str) -> str | None:
    """How ``value`` breaks ``schema`` at ``where``, or None (also for what is not read)."""
    if not isinstance(schema, Mapping):
        return None
    kinds = schema.get("type")
    kinds = [kinds] if isinstance(kinds, str) else kinds if isinstance(kinds, list) else []
    known = [TYPES[k] for k in kinds if k in TYPES]
    if known and not any(test(value) for test in known):
        return f"{where} is {_shown(value)}, not {' or '.join(map(str, kinds))}"
    if isinstance(schema.get("enum"), list) and value not in schema["enum"]:
        return f"{where} is {_shown(value)}, none of {schema['enum']}"
    if "const" in schema and value != schema["const"]:
        return f"{where} is {_shown(value)}, not {schema['const']!r}"
    options = schema.get("anyOf")
    if isinstance(options, list) and options and all(breach(o, value, where) for o in options):
        return f"{where} is {_shown(value)}, which matches none of its anyOf"
    if isinstance(value, dict):
        return _object_breach(schema, value, where)
    if isinstance(value, list):
        return next(filter(None, (breach(schema.get("items"), item, f"{where}[{n}]") for n, item in enumerate(value))), None)
    return None


def _object_breach(schema: Mapping[str, Any], value: dict[str, Any], where: str) -> str | None:
    properties = schema.get("properties") if isinstance(schema.get("properties"), Mapping) else {}
    missing = [key for key in schema.get("required") or [] if key not in value]
    if missing:
        return f"{where} lacks the required {missing[0]!r}"
    if schema.get("additionalProperties") is False:
        extra = [key for key in value if key not in properties]
        if extra:
            return f"{where} has {extra[0]!r}, which the schema does not allow"
    return next(filter(None, (breach(properties.get(k), v, f"{where}.{k}") for k, v in value.items())), None)


def _shown(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 40 else text[:37] + "..."


class Unbuildable(HarnessError, ValueError):
    """The schema asks for what this module does not build (a pattern no plain value
    matches, a ``$ref`` outside the schema, a recursion): its words say what."""


@dataclass(frozen=True)
class Example:
    """A value meeting a schema, as JSON text. ``around``: when the text given is one of
    its strings, the JSON before that string's characters and after them (each with its
    quote), so the text can be written between them piece by piece."""

    value: Any
    json: str
    around: tuple[str, str] | None


_MARK = "\ue000text\ue001"  # stands where the text goes while the JSON is written: in no schema's value


def example(schema: Any, text: str) -> Example:
    """A value that meets ``schema``: required properties only (and the first optional
    plain string while no string holds ``text``), the first of each ``enum`` and
    ``anyOf``, zeros and empty strings, ``text`` in the first plain string. Unbuildable
    when none is found."""
    builder = _Builder(schema if isinstance(schema, Mapping) else {}, text)
    marked = json.dumps(builder.build(builder.root, 0), ensure_ascii=False)
    if not builder.placed:
        return Example(json.loads(marked), marked, None)
    at, mark = marked.index(json.dumps(_MARK, ensure_ascii=False)), len(_MARK) + 2
    around = (marked[: at + 1], marked[at + mark - 1 :])
    whole = around[0] + json.dumps(text, ensure_ascii=False)[1:-1] + around[1]
    return Example(json.loads(whole), whole, around)


class _Builder:
    def __init__(self, root: Mapping[str, Any], text: str) -> None:
        self.root, self.text, self.placed = root, text, False

    def build(self, schema: Any, depth: int) -> Any:
        if depth > DEEPEST:
            raise Unbuildable("the schema nests deeper than the fake API builds (a recursive schema?)")
        schema = self._resolved(schema)
        if "const" in schema:
            return schema["const"]
        if isinstance(schema.get("enum"), list) and schema["enum"]:
            return schema["enum"][0]
        options = schema.get("anyOf") or schema.get("oneOf")
        if isinstance(options, list) and options:
            return self.build(options[0], depth + 1)
        if isinstance(schema.get("allOf"), list):
            return self.build(_merged(self._resolved(part) for part in schema["allOf"]), depth + 1)
        kind = _kind(schema)
        if kind == "object":
            return self._object(schema, depth)
        if kind == "array":
            return [self.build(schema.get("items"), depth + 1)] if (schema.get("minItems") or 0) > 0 else []
        if kind == "string":
            return self._string(schema)
        return {"integer": 0, "number": 0, "boolean": False}.get(kind)

    def _object(self, schema: Mapping[str, Any], depth: int) -> dict[str, Any]:
        properties = schema.get("properties") if isinstance(schema.get("properties"), Mapping) else {}
        required = [key for key in schema.get("required") or [] if isinstance(key, str)]
        keys = [key for key in properties if key in required] + [key for key in required if key not in properties]
        value = {key: self.build(properties.get(key), depth + 1) for key in keys}
        if not self.placed:
            free = next((key for key in properties if key not in value and self._plain_string(properties[key])), None)
            if free is not None:
                value[free] = self.build(properties[free], depth + 1)
        return value

    def _string(self, schema: Mapping[str, Any]) -> str:
        if schema.get("format") in FORMATS:
            return FORMATS[schema["format"]]
        pattern = schema.get("pattern")
        if not self.placed and not (isinstance(pattern, str) and not re.fullmatch(pattern, self.text)):
            self.placed = True
            return _MARK
        for plain in ("", "a", "A", "0"):
            if not isinstance(pattern, str) or re.fullmatch(pattern, plain):
                return plain
        raise Unbuildable(f"no plain string matches the schema's pattern {pattern!r}")

    def _plain_string(self, schema: Any) -> bool:
        schema = self._resolved(schema)
        return _kind(schema) == "string" and not {"enum", "const", "format", "pattern", "anyOf", "allOf"} & schema.keys()

    def _resolved(self, schema: Any) -> Mapping[str, Any]:
        if not isinstance(schema, Mapping):
            return {}
        for _ in range(DEEPEST):
            ref = schema.get("$ref")
            if not isinstance(ref, str):
                return schema
            target: Any = self.root if ref in ("#", "#/") else None
            if ref.startswith("#/") and len(ref) > 2:
                target = self.root
                for part in ref[2:].split("/"):
                    target = target.get(part.replace("~1", "/").replace("~0", "~")) if isinstance(target, Mapping) else None
            if not isinstance(target, Mapping):
                raise Unbuildable(f"the schema's $ref {ref!r} names nothing in it")
            schema = {**target, **{k: v for k, v in schema.items() if k != "$ref"}}
        raise Unbuildable("the schema's $refs name each other in a ring")


def _kind(schema: Mapping[str, Any]) -> str:
    """The JSON type a value of ``schema`` is built as: its ``type`` (the first that is not
    null), else what its keys imply; a schema that says nothing allows a string."""
    kinds = schema.get("type")
    if isinstance(kinds, list):
        kinds = next((k for k in kinds if k != "null"), kinds[0] if kinds else None)
    if isinstance(kinds, str):
        return kinds
    return "object" if "properties" in schema else "array" if "items" in schema else "string"


def _merged(parts: Any) -> dict[str, Any]:
    """``allOf``'s parts as one schema: their properties and required lists together."""
    merged: dict[str, Any] = {}
    for part in parts:
        for key, value in part.items():
            if key == "properties" and isinstance(value, Mapping):
                merged["properties"] = {**merged.get("properties", {}), **value}
            elif key == "required" and isinstance(value, list):
                merged["required"] = [*merged.get("required", []), *value]
            else:
                merged.setdefault(key, value)
    return merged
