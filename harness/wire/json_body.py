"""Request and response bodies as JSON, fast: jiter (4× faster than ``json.loads`` on a
typical request), with ``json.loads`` deciding whatever else jiter refuses (a BOM, a lone
surrogate escape), so every answer is the one ``json.loads`` gives — but for nesting
deeper than ``MAX_DEPTH``, which is refused: nothing the API accepts nests that deep,
and every checker that walks a body would need that much stack."""

from __future__ import annotations

import json
from typing import Any

import jiter

from harness.wire.errors import HarnessError

MAX_DEPTH = 200
"""Arrays and objects nested deeper than this are refused (jiter's own limit)."""
INVALID_JSON = "The request body is not valid JSON: {reason}"
"""The API's 400 text for a body that does not parse (seen in its answers, e.g. "The
request body is not valid JSON: no low surrogate in string: line 1 column 134323 (char
134322)"); the reason here is Python's decoder's, in the same ``line/column/char`` form."""


class TooDeep(HarnessError, ValueError):
    """JSON nested deeper than ``MAX_DEPTH``."""


def loads(data: bytes) -> Any:
    """``data`` parsed as ``json.loads`` parses it; ValueError if it is not JSON (a
    UnicodeDecodeError, a ValueError too, for bytes that are not text), TooDeep if it
    nests deeper than ``MAX_DEPTH``."""
    try:
        return jiter.from_json(data)
    except ValueError as error:
        if "recursion limit exceeded" in str(error):
            where = str(error).replace("recursion limit exceeded ", "")
            raise TooDeep(f"nested deeper than {MAX_DEPTH} levels ({where})") from None
        try:
            return json.loads(data)
        except RecursionError:
            raise TooDeep(f"nested deeper than {MAX_DEPTH} levels") from None


def invalid_json_message(data: bytes) -> str:
    """The API's message for a body that is not JSON (or nests too deep)."""
    try:
        loads(data)
    except TooDeep as error:
        return INVALID_JSON.format(reason=error)
    except ValueError:
        try:
            json.loads(data)
        except (ValueError, RecursionError) as error:  # JSONDecodeError: "Expecting value: line 1 column 1 (char 0)"
            return INVALID_JSON.format(reason=error)
    return INVALID_JSON.format(reason="not JSON")
