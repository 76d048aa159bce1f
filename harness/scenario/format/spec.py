"""A tiny schema language for the scenario format: one description serves both the
checker (errors at ``line:col`` naming the valid choices) and the exported JSON Schema."""

from __future__ import annotations

import difflib
import math
from dataclasses import dataclass, field
from typing import Any, Callable

from harness.scenario.format.problem import Problem
from harness.scenario.format.yaml_positions import (
    LocatedDict,
    LocatedList,
    Position,
)


class Spec:
    """What a value may be."""

    description: str = ""

    def check(self, value: Any, pos: Position, name: str) -> list[Problem]:
        raise NotImplementedError

    def json_schema(self) -> dict[str, Any]:
        raise NotImplementedError

    def label(self) -> str:
        """How the expected value is named in messages: ``an integer``."""
        raise NotImplementedError


def with_description(schema: dict[str, Any], description: str) -> dict[str, Any]:
    return {**schema, "description": description} if description else schema


_KINDS: dict[str, Callable[[Any], bool]] = {
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v),
    "boolean": lambda v: isinstance(v, bool),
    "any": lambda v: _json_value(v),
}


@dataclass
class Scalar(Spec):
    """A string, integer, number, boolean or any JSON value; numbers may have a
    ``minimum`` and a ``maximum`` (both inclusive)."""

    kind: str  # string | integer | number | boolean | any
    description: str = ""
    minimum: float | None = None
    maximum: float | None = None

    def check(self, value: Any, pos: Position, name: str) -> list[Problem]:
        if not _KINDS[self.kind](value):
            hint = " (YAML reads an unquoted yes, no, on, off, true or false as a boolean: quote it)" if (
                self.kind == "string" and isinstance(value, bool)
            ) else ""
            return [Problem.at(pos, f"`{name}` must be {self.label()}, got {show(value)}{hint}")]
        if self.minimum is not None and value < self.minimum or self.maximum is not None and value > self.maximum:
            return [Problem.at(pos, f"`{name}` must be {self._range()}, got {show(value)}")]
        return []

    def json_schema(self) -> dict[str, Any]:
        schema: dict[str, Any] = {} if self.kind == "any" else {"type": self.kind}
        if self.minimum is not None:
            schema["minimum"] = self.minimum
        if self.maximum is not None:
            schema["maximum"] = self.maximum
        return with_description(schema, self.description)

    def label(self) -> str:
        kind = {"integer": "an integer", "any": "any JSON value"}.get(self.kind, f"a {self.kind}")
        return f"{kind} {self._range()}" if self.minimum is not None or self.maximum is not None else kind

    def _range(self) -> str:
        low, high = (_number(b) for b in (self.minimum, self.maximum))
        if self.minimum is not None and self.maximum is not None:
            return f"from {low} to {high}"
        return f"at least {low}" if self.minimum is not None else f"at most {high}"


def _number(bound: float | None) -> str:
    return "" if bound is None else f"{bound:,}" if isinstance(bound, int) else f"{bound:g}"


def _json_value(value: Any) -> bool:
    """Whether ``value`` is JSON: text, a finite number, a boolean, null, or lists and
    mappings of those (YAML also reads dates, sets and ``!!binary``)."""
    if value is None or isinstance(value, (str, bool, int)):
        return True
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, list):
        return all(_json_value(v) for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, (str, int, float, bool)) and _json_value(v) for k, v in value.items())
    return False


@dataclass
class Choice(Spec):
    """One of a fixed set of values."""

    choices: tuple[Any, ...]
    description: str = ""

    def check(self, value: Any, pos: Position, name: str) -> list[Problem]:
        if value in self.choices and not isinstance(value, bool):
            return []
        hint = _did_you_mean(value, self.choices)
        return [Problem.at(pos, f"`{name}` cannot be {show(value)}{hint}; valid choices: {_listing(self.choices)}")]

    def json_schema(self) -> dict[str, Any]:
        return with_description({"enum": list(self.choices)}, self.description)

    def label(self) -> str:
        return f"one of {_listing(self.choices)}"


@dataclass
class ListOf(Spec):
    """A list whose items all match ``item``."""

    item: Spec
    min_items: int = 0
    description: str = ""
    max_items: int | None = None

    def check(self, value: Any, pos: Position, name: str) -> list[Problem]:
        if not isinstance(value, list):
            return [Problem.at(pos, f"`{name}` must be a list of {self.item.label()}, got {show(value)}")]
        if len(value) < self.min_items:
            return [Problem.at(pos, f"`{name}` needs at least {self.min_items} item(s)")]
        if self.max_items is not None and len(value) > self.max_items:
            return [Problem.at(pos, f"`{name}` has {len(value):,} items; at most {self.max_items:,} are allowed")]
        positions = value.item_pos if isinstance(value, LocatedList) else [pos] * len(value)
        return [p for i, (v, at) in enumerate(zip(value, positions)) for p in self.item.check(v, at, f"{name}[{i}]")]

    def json_schema(self) -> dict[str, Any]:
        schema: dict[str, Any] = {"type": "array", "items": self.item.json_schema()}
        if self.min_items:
            schema["minItems"] = self.min_items
        if self.max_items is not None:
            schema["maxItems"] = self.max_items
        return with_description(schema, self.description)

    def label(self) -> str:
        return f"a list of {self.item.label()}"


@dataclass
class MapOf(Spec):
    """A mapping from strings to values that match ``value``; the keys of ``needs`` must
    be there, each matching its own spec (a raw event's ``type``), and ``rules`` check
    the whole."""

    value: Spec
    description: str = ""
    needs: dict[str, Spec] = field(default_factory=dict)
    rules: tuple[Callable[[dict[str, Any]], str | None], ...] = ()

    def check(self, value: Any, pos: Position, name: str) -> list[Problem]:
        if not isinstance(value, dict):
            return [Problem.at(pos, f"`{name}` must be a mapping, got {show(value)}")]
        problems = []
        for key, item in value.items():
            at = value.value_pos[key] if isinstance(value, LocatedDict) else pos
            problems += self.needs.get(key, self.value).check(item, at, f"{name}.{key}")
        at = value.pos if isinstance(value, LocatedDict) else pos
        problems += [Problem.at(at, f"mapping `{name}` is missing the required key `{key}`") for key in self.needs if key not in value]
        if not problems:
            problems += [Problem.at(at, f"`{name}`: {message}") for rule in self.rules if (message := rule(value))]
        return problems

    def json_schema(self) -> dict[str, Any]:
        schema: dict[str, Any] = {"type": "object", "additionalProperties": self.value.json_schema()}
        if self.needs:
            schema |= {"properties": {k: v.json_schema() for k, v in self.needs.items()}, "required": list(self.needs)}
        return with_description(schema, self.description)

    def label(self) -> str:
        return f"a mapping with {_listing(self.needs)}" if self.needs else "a mapping"


@dataclass
class Either(Spec):
    """The first option whose basic type fits decides (``cut: 5`` or ``cut: {after_event: 5}``)."""

    options: tuple[Spec, ...]
    description: str = ""

    def check(self, value: Any, pos: Position, name: str) -> list[Problem]:
        for option in self.options:
            if _fits_shape(option, value):
                return option.check(value, pos, name)
        labels = " or ".join(o.label() for o in self.options)
        return [Problem.at(pos, f"`{name}` must be {labels}, got {show(value)}")]

    def json_schema(self) -> dict[str, Any]:
        return with_description({"anyOf": [o.json_schema() for o in self.options]}, self.description)

    def label(self) -> str:
        return " or ".join(o.label() for o in self.options)


@dataclass
class Obj(Spec):
    """A mapping with known keys; ``rules`` check the whole (e.g. exactly one kind)."""

    fields: dict[str, Spec]
    required: tuple[str, ...] = ()
    rules: tuple[Callable[[dict[str, Any]], str | None], ...] = ()
    description: str = ""
    what: str = "mapping"

    def check(self, value: Any, pos: Position, name: str) -> list[Problem]:
        if not isinstance(value, dict):
            needs = f" (a mapping with {_listing(self.required)})" if self.required else ""
            subject = f"`{name}`" if name else "the file"
            return [Problem.at(pos, f"{subject} must be a {self.what}{needs}, got {show(value)}")]
        where = f"{self.what} `{name}`" if name else f"the {self.what}"
        key_pos = value.key_pos if isinstance(value, LocatedDict) else {}
        value_pos = value.value_pos if isinstance(value, LocatedDict) else {}
        at = value.pos if isinstance(value, LocatedDict) else pos
        problems = []
        for key, item in value.items():
            if key not in self.fields:
                hint = _did_you_mean(key, self.fields)
                problems.append(
                    Problem.at(key_pos.get(key, at), f"unknown key {key!r} in {where}{hint}; valid keys: {_listing(self.fields)}")
                )
            else:
                problems += self.fields[key].check(item, value_pos.get(key, at), f"{name}.{key}" if name else key)
        for key in self.required:
            if key not in value:
                problems.append(Problem.at(at, f"{where} is missing the required key `{key}`"))
        if not problems:
            problems += [Problem.at(at, message) for rule in self.rules if (message := rule(value))]
        return problems

    def json_schema(self) -> dict[str, Any]:
        schema: dict[str, Any] = {
            "type": "object",
            "properties": {k: v.json_schema() for k, v in self.fields.items()},
            "additionalProperties": False,
        }
        if self.required:
            schema["required"] = list(self.required)
        return with_description(schema, self.description)

    def label(self) -> str:
        return f"a {self.what} (a mapping with {_listing(self.fields)})"


def _fits_shape(spec: Spec, value: Any) -> bool:
    if isinstance(spec, (Obj, MapOf)):
        return isinstance(value, dict)
    if isinstance(spec, ListOf):
        return isinstance(value, list)
    if isinstance(spec, Choice):  # a status 502 is not a misspelt name: let the next option check it
        return any(isinstance(value, type(choice)) for choice in spec.choices)
    if isinstance(spec, Scalar):  # the right type out of range: its own message says the range
        return _KINDS[spec.kind](value)
    return not spec.check(value, (0, 0), "")


def _did_you_mean(value: Any, choices: Any) -> str:
    if not isinstance(value, str):
        return ""
    close = difflib.get_close_matches(value, [str(c) for c in choices], n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


def _listing(choices: Any) -> str:
    return ", ".join(str(c) for c in choices)


def show(value: Any) -> str:
    """A value as a message names it: `a mapping`, `a list`, or its short repr."""
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    if value is None:
        return "nothing (null)"
    text = repr(value)
    return text if len(text) <= 40 else text[:39] + "…"

