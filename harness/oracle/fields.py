"""The request's own fields, typed and ranged as the API's validation reads them.

The API validates the body before it judges the conversation, in pydantic's words
(lax mode: ``"5"`` and ``5.0`` are integers, ``"0.5"`` is a number). Only fields that
are present are checked: a saved conversation without ``model`` is still a
conversation. Each rule and its source:

- ``model: Input should be a valid string`` / ``String should have at least 1
  character`` -- the SDK types ``model`` as a string.
- ``max_tokens: Input should be a valid integer`` (… ``got a number with a fractional
  part``, … ``unable to parse string as an integer``); ``max_tokens: must be greater
  than or equal to 0`` -- the live API's wording for the floor (seen with 1 before 0
  became legal; the SDK documents ``max_tokens: 0`` for warming the prompt cache).
- ``temperature`` and ``top_p``: ``Input should be a valid number`` (… ``unable to
  parse string as a number``), ``Input should be greater than or equal to 0`` /
  ``Input should be less than or equal to 1`` -- documented as ranging 0.0 to 1.0;
  the upper text as the live API returns it. -1 is not judged (``UNSET``).
- ``top_k: Input should be a valid integer`` -- an integer (no range is documented).
- ``thinking.enabled.budget_tokens: Input should be greater than or equal to 1024`` --
  "the minimum budget is 1,024 tokens" (extended thinking docs; the path as pydantic
  writes a field of the ``enabled`` form, as a provider's relay of it quotes).

-1 is the "unset" value of the sampling fields in the legacy Text Completions API
("Defaults to -1, which disables it"), and clients still send it: ``@langchain/anthropic``
sent ``top_p: -1`` (and ``top_k: -1``) by default into 2026. Whether the API takes it
depends on the model, not the body: older models took it as unset (recorded as accepted
in 2025), newer ones answer ``top_p cannot be set to -1 for this model.`` (Claude Opus 4.1,
August 2025; Haiku 4.5, Sonnet 4.5 and 4.6 in 2026) and ```temperature` cannot be set to
-1 for this model`` (Haiku 4.5, 2026). A body-only checker cannot tell: it accepts -1.

Unknown fields pass: the API grows fields faster than any list of them. A field's absence
is judged only where the body is a message request sent to the API (``required_fields``,
the fake API's ``POST /v1/messages``): ``max_tokens: Field required`` -- the live API's
answer to a request without it (2026); token counting takes none, and a saved
conversation is judged without it. ``model`` is required too, but no real text of its
absence was found: it is not judged.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

from harness.oracle import wording
from harness.oracle.wording import Violation

MAX_TOKENS_FLOOR = 0
THINKING_BUDGET_FLOOR = 1024  # the extended thinking docs: "the minimum budget is 1,024 tokens"
SAMPLING_RANGE = (0, 1)
UNSET = -1  # the sampling fields' legacy "unset" value: whether it is taken depends on the model


def field_violations(body: Mapping[str, Any]) -> list[Violation]:
    """``max_tokens: Input should be a valid integer``, ``temperature: Input should be less
    than or equal to 1`` …: the fields present, each by its rule in ``FIELD_RULES``, in the
    order the API reports them."""
    found: list[Violation] = []
    for name, rule in FIELD_RULES.items():
        if name in body:
            found += rule(name, body[name])
    return found


def model_is_a_name(name: str, value: Any) -> list[Violation]:
    """``model: Input should be a valid string`` / ``String should have at least 1 character``."""
    problem = string_problem(value)
    if problem:
        return [Violation(name, problem)]
    return [Violation(name, wording.NAME_TOO_SHORT)] if value == "" else []


def max_tokens_in_range(name: str, value: Any) -> list[Violation]:
    """``max_tokens: Input should be a valid integer`` (…); ``max_tokens: must be greater
    than or equal to 0``."""
    problem, number = integer_problem(value)
    if problem:
        return [Violation(name, problem)]
    if number < MAX_TOKENS_FLOOR:
        return [Violation(name, wording.MUST_BE_AT_LEAST.format(limit=MAX_TOKENS_FLOOR))]
    return []


def sampling_in_range(name: str, value: Any) -> list[Violation]:
    """``temperature`` and ``top_p``: ``Input should be a valid number`` (…), ``Input should
    be greater than or equal to 0`` / ``Input should be less than or equal to 1``; -1, the
    legacy "unset" value, is the model's to judge (``top_p cannot be set to -1 for this
    model.``)."""
    problem, number = number_problem(value)
    if problem:
        return [Violation(name, problem)]
    low, high = SAMPLING_RANGE
    if number == UNSET:
        return []
    if number < low:
        return [Violation(name, wording.GREATER_EQUAL.format(limit=low))]
    if number > high:
        return [Violation(name, wording.LESS_EQUAL.format(limit=high))]
    return []


def top_k_is_an_integer(name: str, value: Any) -> list[Violation]:
    """``top_k: Input should be a valid integer`` (no range is documented)."""
    problem, _ = integer_problem(value)
    return [Violation(name, problem)] if problem else []


def thinking_budget_at_least_the_minimum(name: str, value: Any) -> list[Violation]:
    """``thinking.enabled.budget_tokens: Input should be greater than or equal to 1024``
    ("the minimum budget is 1,024 tokens", the extended thinking docs); a budget that is no
    integer is left to the checks of its type."""
    if not isinstance(value, Mapping) or value.get("type") != "enabled":
        return []
    problem, budget = integer_problem(value.get("budget_tokens"))
    if problem or budget >= THINKING_BUDGET_FLOOR:
        return []
    return [Violation(f"{name}.enabled.budget_tokens", wording.GREATER_EQUAL.format(limit=THINKING_BUDGET_FLOOR))]


REQUIRED_TO_CREATE = ("max_tokens",)
"""The fields a message request (``POST /v1/messages``) must hold, each with a real text of its absence."""


def required_fields(body: Mapping[str, Any]) -> list[Violation]:
    """``max_tokens: Field required``: the fields of ``REQUIRED_TO_CREATE`` a message request lacks."""
    return [Violation(name, wording.FIELD_REQUIRED) for name in REQUIRED_TO_CREATE if name not in body]


FIELD_RULES: dict[str, Callable[[str, Any], list[Violation]]] = {
    "model": model_is_a_name,
    "max_tokens": max_tokens_in_range,
    "temperature": sampling_in_range,
    "top_p": sampling_in_range,
    "top_k": top_k_is_an_integer,
    "thinking": thinking_budget_at_least_the_minimum,
}
"""The rule for each field, in the order the API reports them."""


def string_problem(value: Any) -> str | None:
    """``Input should be a valid string`` for anything but text."""
    return None if isinstance(value, str) else wording.VALID_STRING


def integer_problem(value: Any) -> tuple[str | None, int]:
    """Why ``value`` is not an integer to pydantic's lax mode, else (None, the integer)."""
    if isinstance(value, bool) or isinstance(value, int):
        return None, int(value)
    if isinstance(value, float):
        if not math.isfinite(value) or not value.is_integer():
            return wording.INTEGER_FRACTION if math.isfinite(value) else wording.VALID_INTEGER, 0
        return None, int(value)
    if isinstance(value, str):
        try:
            return None, int(value.strip())
        except ValueError:
            return wording.INTEGER_PARSING, 0
    return wording.VALID_INTEGER, 0


def number_problem(value: Any) -> tuple[str | None, float]:
    """Why ``value`` is not a number to pydantic's lax mode, else (None, the number)."""
    if isinstance(value, (bool, int, float)):
        try:
            number = float(value)
        except OverflowError:  # an integer beyond any float: JSON reads it as infinity
            return wording.FINITE_NUMBER, 0.0
        return (None, number) if math.isfinite(number) else (wording.FINITE_NUMBER, 0.0)
    if isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            return wording.NUMBER_PARSING, 0.0
        return (None, number) if math.isfinite(number) else (wording.FINITE_NUMBER, 0.0)
    return wording.VALID_NUMBER, 0.0
