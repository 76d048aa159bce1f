"""Near misses: a valid argument object with one mutation that a validator must
reject, and anything at all."""

from __future__ import annotations

import functools
from typing import Any, Callable, Mapping, Sequence

from hypothesis import event
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument
from hypothesis.strategies import SearchStrategy

from harness.strategies.built import BOOLEANS, Keyed, integers
from harness.strategies.schema_check import json_equal
from harness.strategies.schemas import FINITE, _type_names, json_values, tool_inputs

MUTATIONS = (
    "missing_required",
    "renamed_key",
    "wrong_type",
    "odd_string",
    "null",
    "non_object",
    "extra_property",
    "enum_miss",
    "wrong_item",
)

@st.composite
def invalid_tool_inputs(
    draw: st.DrawFn,
    schema: Mapping[str, Any],
    *,
    overrides: Mapping[str, SearchStrategy[Any]] | None = None,
    mutations: Sequence[str] = MUTATIONS,
) -> Any:
    """A valid argument object with one mutation that ``schema`` certainly rejects, at the
    top or nested: a missing required key, a renamed key, a wrong type, an odd or huge
    string where a string does not belong, null, a non-object, an extra property, an
    enum miss, a wrong item type. ``hypothesis.event`` names the mutation."""
    unknown = set(mutations) - set(MUTATIONS)
    if unknown:
        raise InvalidArgument(f"unknown mutation(s) {sorted(unknown)}; valid: {', '.join(MUTATIONS)}")
    value = draw(tool_inputs(schema, overrides=overrides))
    choices = [
        (kind, path, sub)
        for path, sub, part in _sites(schema, value, ())
        for kind in mutations
        if _MUTATORS[kind][0](sub, part)
    ]
    if not choices:
        raise InvalidArgument(f"no mutation in {list(mutations)} can break {dict(schema)!r}")
    kind, path, sub = choices[draw(integers(0, len(choices) - 1))]
    event(f"near miss: {kind}")
    return _replaced(value, path, _MUTATORS[kind][1](draw, sub, _at(value, path)))


def _sites(schema: Mapping[str, Any], value: Any, path: tuple[Any, ...]) -> list[tuple[tuple[Any, ...], Mapping[str, Any], Any]]:
    """Every place in ``value`` the validator checks against a schema, as the validator walks."""
    found = [(path, schema, value)]
    if isinstance(value, dict):
        properties, extra = schema.get("properties", {}), schema.get("additionalProperties", True)
        for key, item in value.items():
            sub = properties[key] if key in properties else extra if isinstance(extra, dict) else None
            if sub is not None:
                found += _sites(sub, item, (*path, key))
    if isinstance(value, list) and "items" in schema:
        for index, item in enumerate(value):
            found += _sites(schema["items"], item, (*path, index))
    return found


def _at(value: Any, path: tuple[Any, ...]) -> Any:
    for step in path:
        value = value[step]
    return value


def _replaced(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(value, dict):
        return {**value, head: _replaced(value[head], rest, new)}
    return [_replaced(item, rest, new) if i == head else item for i, item in enumerate(value)]


def _bool_twin(value: Any) -> Any:
    """``value`` with every 0 and 1 inside it as false and true, and back: equal in
    Python, different in JSON."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if isinstance(value, list):
        return [_bool_twin(item) for item in value]
    if isinstance(value, dict):
        return {k: _bool_twin(v) for k, v in value.items()}
    return value


_ODD_TEXT = st.sampled_from(
    [
        "",
        "12",
        "１２",  # fullwidth digits
        "1e3",
        "true",
        "null",
        "{}",
        "[]",
        "\x00",
        "\u202eevil\u202c",  # right-to-left override
        "a\u200bb",  # zero-width space
        "e\u0301",  # combining accent
        "\U0001f600",
        "\ufeff",
        "line\u2028break",
        "\x85",
    ]
)


@functools.cache
def odd_strings() -> SearchStrategy[str]:
    """Strings that look like other types, odd unicode, and huge strings."""
    huge = st.builds(lambda ch, n: ch * n, st.sampled_from(["x", "é", "\U0001f600", " "]), st.integers(1_000, 100_000))
    return _ODD_TEXT | st.text(min_size=1, max_size=30) | huge


def _values_not_of(names: Sequence[str], *, strings: bool) -> SearchStrategy[Any] | None:
    """Values whose JSON type is none of ``names`` (strings only if ``strings``), or None."""
    return _values_not_of_cached(frozenset(names), strings)


@functools.cache
def _values_not_of_cached(allowed: frozenset[str], strings: bool) -> SearchStrategy[Any] | None:
    options: list[SearchStrategy[Any]] = []
    if "null" not in allowed:
        options.append(st.none())
    if "boolean" not in allowed:
        options.append(st.booleans())
    if not allowed & {"integer", "number"}:
        options += [st.integers(), FINITE]
    elif "number" not in allowed:
        options.append(FINITE.filter(lambda f: not f.is_integer()))
    if "array" not in allowed:
        options.append(st.lists(json_values(max_leaves=3), max_size=3))
    if "object" not in allowed:
        options.append(st.dictionaries(st.text(max_size=5), json_values(max_leaves=3), max_size=3))
    if strings:
        options = [odd_strings()] if "string" not in allowed else []
    return st.one_of(options) if options else None


def _wrong_values(names: Sequence[str]) -> SearchStrategy[Any]:
    """Values of a type not in ``names``; odd strings only when no other type is left."""
    others = _values_not_of(names, strings=False)
    return others if others is not None else odd_strings()


def _new_key(draw: st.DrawFn, taken: Callable[[str], bool], near: Sequence[str] = ()) -> str:
    """A key not ``taken``: a near twin of one in ``near`` (camelCase, a plural, a
    homoglyph …) or, as often, any text (with ``_`` added until it is free)."""
    variants = []
    for key in near:
        camel = key.split("_")[0] + "".join(part.title() for part in key.split("_")[1:])
        variants += [camel, key.replace("_", "-"), key.upper(), f"{key}s", key[:-1], f" {key}", f"{key}\u200b",
                     key.replace("a", "\u0430"), "path" if "path" in key else f"{key}_"]
    free = [k for k in variants if k and not taken(k)]
    if free and not draw(BOOLEANS):
        return free[draw(integers(0, len(free) - 1))]
    key = draw(_KEY_TEXT)
    while taken(key):
        key += "_"
    return key


_KEY_TEXT = st.text(min_size=1, max_size=10)


def _typed(sub: Mapping[str, Any]) -> list[str] | None:
    return _type_names(sub) if "type" in sub else None


def _renamable(sub: Mapping[str, Any], part: Any) -> list[str]:
    if not isinstance(part, dict):
        return []
    required = set(sub.get("required", []))
    return [k for k in part if isinstance(k, str) and (sub.get("additionalProperties", True) is False or k in required)]


def _renamed(draw: st.DrawFn, sub: Mapping[str, Any], part: dict[str, Any]) -> dict[str, Any]:
    properties = sub.get("properties", {})
    renamable = _renamable(sub, part)
    old = renamable[draw(integers(0, len(renamable) - 1))]
    new = _new_key(draw, lambda k: k in properties or k in part, [old])
    return {(new if k == old else k): v for k, v in part.items()}


def _extra(draw: st.DrawFn, sub: Mapping[str, Any], part: dict[str, Any]) -> dict[str, Any]:
    properties, extra = sub.get("properties", {}), sub.get("additionalProperties", True)
    key = _new_key(draw, lambda k: k in properties or k in part, list(properties))
    values = json_values(max_leaves=3) if extra is False else _wrong_values(_type_names(extra))
    return {**part, key: draw(values)}


def _extra_applies(sub: Mapping[str, Any], part: Any) -> bool:
    extra = sub.get("additionalProperties", True)
    if not isinstance(part, dict):
        return False
    if extra is False:
        return True
    return isinstance(extra, dict) and "enum" not in extra and _typed(extra) is not None and (
        _values_not_of(_type_names(extra), strings=False) is not None or "string" not in _type_names(extra)
    )


def _enum_miss(draw: st.DrawFn, sub: Mapping[str, Any], part: Any) -> Any:
    return draw(_enum_misses(Keyed(sub["enum"])))


@functools.lru_cache(maxsize=256)
def _enum_misses(keyed: Keyed) -> SearchStrategy[Any]:
    options = keyed.value
    near = [f"{o} " for o in options if isinstance(o, str)] + [o.upper() for o in options if isinstance(o, str)]
    near += [not o for o in options if isinstance(o, bool)] + [o + 1 for o in options if isinstance(o, int) and not isinstance(o, bool)]
    near += [twin for o in options if not json_equal(twin := _bool_twin(o), o)]
    candidates = (st.sampled_from(near) if near else st.nothing()) | json_values(max_leaves=3)
    return candidates.filter(lambda v: not any(json_equal(v, o) for o in options))


def _wrong_item(draw: st.DrawFn, sub: Mapping[str, Any], part: list[Any]) -> list[Any]:
    items = sub["items"]
    at = draw(integers(0, len(part)))
    bad = _enum_miss(draw, items, None) if "enum" in items else draw(_wrong_values(_type_names(items)))
    return [*part[:at], bad, *part[at:]]


def _item_breakable(items: Mapping[str, Any]) -> bool:
    if "enum" in items:
        return True
    kinds = _typed(items)
    return kinds is not None and (_values_not_of(kinds, strings=False) is not None or "string" not in kinds)


def _drop_required(draw: st.DrawFn, sub: Mapping[str, Any], part: dict[str, Any]) -> dict[str, Any]:
    present = [k for k in sub["required"] if k in part]
    gone = present[draw(integers(0, len(present) - 1))]
    return {k: v for k, v in part.items() if k != gone}


def _type_is(sub: Mapping[str, Any], test: Callable[[list[str]], bool]) -> bool:
    kinds = _typed(sub)
    return kinds is not None and test(kinds)


Applies = Callable[[Mapping[str, Any], Any], bool]
Mutate = Callable[[st.DrawFn, Mapping[str, Any], Any], Any]
_MUTATORS: dict[str, tuple[Applies, Mutate]] = {  # when a mutation is certain to break a value, and how (drawing what it needs)
    "missing_required": (lambda sub, part: isinstance(part, dict) and any(k in part for k in sub.get("required", [])), _drop_required),
    "renamed_key": (lambda sub, part: bool(_renamable(sub, part)), _renamed),
    "wrong_type": (
        lambda sub, part: _type_is(sub, lambda kinds: _values_not_of(kinds, strings=False) is not None),
        lambda draw, sub, part: draw(_wrong_values(_type_names(sub))),
    ),
    "odd_string": (lambda sub, part: _type_is(sub, lambda kinds: "string" not in kinds), lambda draw, sub, part: draw(odd_strings())),
    "null": (lambda sub, part: _type_is(sub, lambda kinds: "null" not in kinds), lambda draw, sub, part: None),
    "non_object": (lambda sub, part: _typed(sub) == ["object"], lambda draw, sub, part: draw(_non_objects())),
    "extra_property": (_extra_applies, _extra),
    "enum_miss": (lambda sub, part: "enum" in sub, _enum_miss),
    "wrong_item": (lambda sub, part: isinstance(part, list) and "items" in sub and _item_breakable(sub["items"]), _wrong_item),
}


@functools.cache
def _non_objects() -> SearchStrategy[Any]:
    return st.lists(json_values(max_leaves=3), max_size=3) | st.integers() | st.booleans() | odd_strings()


@st.composite
def any_tool_inputs(
    draw: st.DrawFn, schema: Mapping[str, Any], *, overrides: Mapping[str, SearchStrategy[Any]] | None = None
) -> Any:
    """Anything: valid, a near miss, any JSON value, or an object using the schema's keys.
    A string under an ``overrides`` key is redrawn from it, so that nothing valid is dangerous."""
    overrides = dict(overrides or {})
    keys = st.sampled_from(sorted(schema.get("properties", {}))) | st.text(max_size=8) if schema.get("properties") else st.text(max_size=8)
    value = draw(
        tool_inputs(schema, overrides=overrides)
        | invalid_tool_inputs(schema, overrides=overrides)
        | json_values()
        | st.dictionaries(keys, json_values(max_leaves=3), max_size=4)
    )
    if isinstance(value, dict):
        value = {k: draw(overrides[k]) if k in overrides and isinstance(v, str) else v for k, v in value.items()}
    return value


