"""A format value that is a substring or ``/a regex/``: the regex must compile, so a
broken one is a lint error at its line, not a crash when the run compares."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from harness.scenario.format.problem import Problem
from harness.scenario.format.spec import Spec, show, with_description
from harness.scenario.format.yaml_positions import Position


@dataclass
class Pattern(Spec):
    """A substring, or ``/a regex/`` that must compile."""

    description: str = "a substring, or /a regex/"

    def check(self, value: Any, pos: Position, name: str) -> list[Problem]:
        if not isinstance(value, str):
            return [Problem.at(pos, f"`{name}` must be {self.label()}, got {show(value)}")]
        if len(value) >= 2 and value.startswith("/") and value.endswith("/"):
            try:
                re.compile(value[1:-1])
            except (re.error, RecursionError, OverflowError) as error:
                return [Problem.at(pos, f"`{name}`: {value!r} is not a valid regular expression ({error}); "
                                      "write it without the slashes to match the text itself")]
        return []

    def json_schema(self) -> dict[str, Any]:
        return with_description({"type": "string"}, self.description)

    def label(self) -> str:
        return "a string (a substring, or /a regex/)"
