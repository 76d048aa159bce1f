"""Check a saved conversation file against the API's rules (``harness check-history FILE``).

The file holds a JSON list of messages, a JSON request body (an object with
``"messages"``), or JSON Lines of either. Each violation becomes one line of text,
``messages.1: ...``, prefixed with ``line N: `` for JSON Lines.

Errors:
    HistoryFileError(ValueError) -- the file cannot be read, is not JSON, or holds
        something other than a conversation; the message reads ``FILE:LINE:COL: ...``
        and says what was expected.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from harness.oracle import Violation, check_history, check_request
from harness.wire.errors import HarnessError
from harness.wire.files import read_regular

MAX_BYTES = 512 * 1024 * 1024
EXPECTED = 'a JSON list of messages, a request object with "messages", or JSON Lines of either'
_JSON_KINDS = {str: "a string", int: "a number", float: "a number", bool: "a boolean", type(None): "null"}


class HistoryFileError(HarnessError, ValueError):
    """The file is unreadable, not JSON, or not a conversation."""


def check_history_file(path: Path) -> list[str]:
    """The violations in the conversation(s) stored at ``path``, one readable line each."""
    try:
        text = read_regular(path, max_bytes=MAX_BYTES).decode("utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise HistoryFileError(f"{path}:1:1: cannot read the file ({error}); expected {EXPECTED}") from None
    if not text.strip():
        raise HistoryFileError(f"{path}:1:1: the file is empty; expected {EXPECTED}")
    try:
        return [str(v) for v in _check(path, 1, _loads(path, 1, text))]
    except json.JSONDecodeError as error:
        if not (error.msg == "Extra data" and _is_json(text.splitlines()[0])):
            raise _invalid_json(path, error.lineno, error.colno, error.msg) from None
    lines: list[str] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            document = _loads(path, number, line)
        except json.JSONDecodeError as error:
            raise _invalid_json(path, number, error.colno, error.msg) from None
        lines += [f"line {number}: {v}" for v in _check(path, number, document)]
    return lines


def _loads(path: Path, line: int, text: str) -> Any:
    """``json.loads``, with its limits (nesting, digits in a number) as HistoryFileErrors."""
    try:
        return json.loads(text)
    except RecursionError:
        raise HistoryFileError(f"{path}:{line}:1: nested too deeply for JSON (about 1,000 levels at most); expected {EXPECTED}") from None
    except json.JSONDecodeError:
        raise
    except ValueError as error:  # an integer of more than 4,300 digits
        reason = "a number has more than 4,300 digits" if "digits" in str(error) else str(error)
        raise HistoryFileError(f"{path}:{line}:1: not usable JSON ({reason}); expected {EXPECTED}") from None


def _check(path: Path, line: int, document: Any) -> list[Violation]:
    """Check one JSON value: a message list or a request body."""
    if isinstance(document, list):
        return check_history(document)
    if isinstance(document, dict) and "messages" in document:
        return check_request(document)
    found = 'an object without "messages"' if isinstance(document, dict) else _JSON_KINDS[type(document)]
    raise HistoryFileError(f"{path}:{line}:1: found {found}; expected {EXPECTED}")


def _is_json(text: str) -> bool:
    try:
        json.loads(text)
    except (ValueError, RecursionError):
        return False
    return True


def _invalid_json(path: Path, line: int, column: int, reason: str) -> HistoryFileError:
    return HistoryFileError(f"{path}:{line}:{column}: not valid JSON ({reason}); expected {EXPECTED}")


def cmd_check_history(args: Any) -> int:
    """``harness check-history FILE``: one line per violation, then a verdict; exit 1 on any."""
    violations = check_history_file(Path(args.file))
    for line in violations:
        print(line)
    print(f"{args.file}: {'valid' if not violations else f'{len(violations)} violation(s)'}")
    return 1 if violations else 0
