"""Strategies for JSON values, input schemas and the valid arguments a schema allows."""

from __future__ import annotations

import functools
from typing import Any, Mapping

from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument
from hypothesis.strategies import SearchStrategy

from harness.strategies.built import BOOLEANS, Keyed, integers
from harness.strategies.schema_check import fits

JSON_TYPES = ("null", "boolean", "integer", "number", "string", "array", "object")
FINITE = st.floats(allow_nan=False, allow_infinity=False)


@functools.cache
def json_values(*, max_leaves: int = 8) -> SearchStrategy[Any]:
    """Any JSON value: null, booleans, numbers, strings, and lists and objects of them."""
    scalars = st.none() | st.booleans() | st.integers() | FINITE | st.text(max_size=20)
    return st.recursive(
        scalars,
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
        max_leaves=max_leaves,
    )


@st.composite
def input_schemas(draw: st.DrawFn, *, depth: int = 2) -> dict[str, Any]:
    """Schemas in the subset a tool-input validator reads (see ``schema_check``), always with a ``type``."""
    kinds = draw(st.sampled_from(JSON_TYPES) | st.lists(st.sampled_from(JSON_TYPES), min_size=1, max_size=3, unique=True))
    schema: dict[str, Any] = {"type": kinds}
    names = [kinds] if isinstance(kinds, str) else kinds
    if "object" in names and depth > 0 and draw(st.booleans()):
        properties = draw(st.dictionaries(st.text(min_size=1, max_size=8), input_schemas(depth=depth - 1), max_size=3))
        schema["properties"] = properties
        if properties:
            schema["required"] = draw(st.lists(st.sampled_from(sorted(properties)), unique=True))
        extra = draw(st.sampled_from(["absent", False, True, "schema"]))
        if extra == "schema":
            schema["additionalProperties"] = draw(input_schemas(depth=0))
        elif extra != "absent":
            schema["additionalProperties"] = extra
    if "array" in names and depth > 0 and draw(st.booleans()):
        schema["items"] = draw(input_schemas(depth=depth - 1))
    if draw(st.integers(0, 4)) == 0:
        schema["enum"] = draw(st.lists(tool_inputs(schema), min_size=1, max_size=3))
    return schema


# -- valid tool arguments ----------------------------------------------------------------


def tool_inputs(schema: Mapping[str, Any], *, overrides: Mapping[str, SearchStrategy[Any]] | None = None) -> SearchStrategy[Any]:
    """Arguments that ``schema`` accepts. ``overrides`` draws the value of a property by
    name, at any depth (``{"command": echo_commands()}``); the caller keeps it valid.
    Built once for each schema and overrides."""
    return _built(Keyed(schema), tuple(sorted((overrides or {}).items(), key=lambda item: item[0])))


@functools.lru_cache(maxsize=512)
def _built(schema: Keyed, overrides: tuple[tuple[str, SearchStrategy[Any]], ...]) -> SearchStrategy[Any]:
    return _valid(schema.value, dict(overrides))


def _valid(schema: Mapping[str, Any], overrides: dict[str, SearchStrategy[Any]]) -> SearchStrategy[Any]:
    if "enum" in schema:
        typed = {k: v for k, v in schema.items() if k != "enum"}
        options = [o for o in schema["enum"] if fits(typed, o)]
        if not options:
            raise InvalidArgument(f"no value of {dict(schema)!r} is valid: its enum does not fit its type")
        return st.sampled_from(options)
    return st.one_of([_of_type(name, schema, overrides) for name in _type_names(schema)])


def _type_names(schema: Mapping[str, Any]) -> list[str]:
    kinds = schema.get("type")
    if kinds is None:
        return list(JSON_TYPES)
    return [kinds] if isinstance(kinds, str) else list(kinds)


def _of_type(name: str, schema: Mapping[str, Any], overrides: dict[str, SearchStrategy[Any]]) -> SearchStrategy[Any]:
    if name == "null":
        return st.none()
    if name == "boolean":
        return st.booleans()
    if name == "integer":  # 3.0 is an integer too
        return st.integers() | st.integers(-(2**53), 2**53).map(float)
    if name == "number":
        return st.integers() | FINITE
    if name == "string":
        return st.text()
    if name == "array":
        items = _valid(schema["items"], overrides) if "items" in schema else json_values(max_leaves=4)
        return st.lists(items, max_size=4)
    if name == "object":
        return _objects(schema, overrides)
    raise InvalidArgument(f"unknown type {name!r}; the subset knows {', '.join(JSON_TYPES)}")


Field = tuple[str, bool, SearchStrategy[Any]]  # a property: its name, whether it is required, its values


def _objects(schema: Mapping[str, Any], overrides: dict[str, SearchStrategy[Any]]) -> SearchStrategy[dict[str, Any]]:
    properties: Mapping[str, Any] = schema.get("properties", {})
    required = set(schema.get("required", []))
    extra = schema.get("additionalProperties", True)
    fields = tuple((key, key in required, overrides[key] if key in overrides else _valid(sub, overrides))
                   for key, sub in properties.items())
    missing = tuple(sorted(required - properties.keys()))
    if missing and extra is False:
        raise InvalidArgument(f"{missing[0]!r} is required but not a property, and additionalProperties is false")
    if extra is False:
        return _object_values(fields, missing, st.nothing(), None)
    values = _valid(extra, overrides) if isinstance(extra, dict) else json_values(max_leaves=4)
    more = st.dictionaries(st.text(max_size=10).filter(lambda k: k not in properties), values, max_size=2)
    return _object_values(fields, missing, values, more)


@st.composite
def _object_values(draw: st.DrawFn, fields: tuple[Field, ...], missing: tuple[str, ...], extra: SearchStrategy[Any],
                   more: SearchStrategy[dict[str, Any]] | None) -> dict[str, Any]:
    """The properties (each optional one now and then), the required keys that are not
    properties (from ``extra``), now and then a few keys more (``more``)."""
    value: dict[str, Any] = {}
    for key, required, values in fields:
        if required or draw(BOOLEANS):
            value[key] = draw(values)
    for key in missing:
        value[key] = draw(extra)
    if more is not None and draw(integers(0, 3)) == 0:
        value.update(draw(more))
    return value


