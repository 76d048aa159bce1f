"""Check a saved conversation file against the API's rules (``harness check-history FILE``).

The file holds a JSON list of messages, a JSON request body (an object with
``"messages"``), a recorded request (``{"headers": {…}, "body": …}``, the body an object
or its JSON text), or JSON Lines of any of these; a line of ``harness serve --log`` is a
recorded request too (its ``request``; lines of other endpoints are skipped). Each
violation becomes one line of text, ``messages.1: ...``, prefixed with ``line N: `` for
JSON Lines. The requests of a session, one a line, are checked in linear time: a line
that goes on with a conversation an earlier line sent is read from where that one ended
(``conversations``), with the verdict of checking it whole.

The rules a beta lifts are judged when the request's betas are known: a recorded
request's ``anthropic-beta`` header (none when its headers hold none), else ``betas``
(``--betas``); a bare body or message list with neither is not judged by them.

Errors:
    HistoryFileError(ValueError) -- the file cannot be read, is not JSON, or holds
        something other than a conversation; the message reads ``FILE:LINE:COL: ...``
        and says what was expected.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from harness.oracle import Violation, check_history
from harness.oracle.betas import request_betas
from harness.oracle.conversations import ConversationChecker
from harness.wire.errors import HarnessError
from harness.wire.files import read_regular

MAX_BYTES = 512 * 1024 * 1024
EXPECTED = 'a JSON list of messages, a request object with "messages", a recorded request, or JSON Lines of these'
_JSON_KINDS = {str: "a string", int: "a number", float: "a number", bool: "a boolean", type(None): "null"}


class HistoryFileError(HarnessError, ValueError):
    """The file is unreadable, not JSON, or not a conversation."""


def check_history_file(path: Path, betas: Sequence[str] | None = None) -> list[str]:
    """The violations in the conversation(s) stored at ``path``, one readable line each;
    ``betas``: the ``anthropic-beta`` values of the requests that do not carry their own."""
    try:
        text = read_regular(path, max_bytes=MAX_BYTES).decode("utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise HistoryFileError(f"{path}:1:1: cannot read the file ({error}); expected {EXPECTED}") from None
    if not text.strip():
        raise HistoryFileError(f"{path}:1:1: the file is empty; expected {EXPECTED}")
    checker = ConversationChecker()
    try:
        return [str(v) for v in _check(checker, path, 1, text, _loads(path, 1, text), betas)]
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
        lines += [f"line {number}: {v}" for v in _check(checker, path, number, line, document, betas)]
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


def _check(
    checker: ConversationChecker, path: Path, line: int, text: str, document: Any, betas: Sequence[str] | None,
) -> list[Violation]:
    """Check one JSON value (``text``, parsed as ``document``): a message list, a request
    body or a recorded request."""
    if isinstance(document, list):
        return check_history(document)
    if isinstance(document, dict) and "messages" in document:
        return checker.check_request(document, content=text.encode("utf-8", "surrogatepass"), betas=betas)
    if isinstance(document, dict) and isinstance(document.get("request"), Mapping) and "path" in document:
        if not str(document["path"]).startswith("/v1/messages"):  # a line of serve's log, another endpoint
            return []
        document = document["request"]
    if isinstance(document, Mapping) and "body" in document:
        return _check_recorded(checker, path, line, document, betas)
    found = 'an object without "messages"' if isinstance(document, dict) else _JSON_KINDS[type(document)]
    raise HistoryFileError(f"{path}:{line}:1: found {found}; expected {EXPECTED}")


def _check_recorded(
    checker: ConversationChecker, path: Path, line: int, request: Mapping[str, Any], betas: Sequence[str] | None,
) -> list[Violation]:
    """A recorded request: its body checked with the betas its headers name."""
    headers, body = request.get("headers"), request.get("body")
    content = body.encode("utf-8", "surrogatepass") if isinstance(body, str) else None  # a lone surrogate: not UTF-8, compared as values
    if isinstance(body, str):
        try:
            body = json.loads(body)
        except (ValueError, RecursionError):
            raise HistoryFileError(f"{path}:{line}:1: the recorded request's body is not JSON; expected {EXPECTED}") from None
    if not isinstance(body, dict) or "messages" not in body:
        raise HistoryFileError(f"{path}:{line}:1: the recorded request's body has no \"messages\"; expected {EXPECTED}")
    if isinstance(headers, Mapping):
        betas = request_betas({str(k): ",".join(map(str, v)) if isinstance(v, list) else str(v) for k, v in headers.items()}) or []
    return checker.check_request(body, content=content, betas=betas)


def _is_json(text: str) -> bool:
    try:
        json.loads(text)
    except (ValueError, RecursionError):
        return False
    return True


def _invalid_json(path: Path, line: int, column: int, reason: str) -> HistoryFileError:
    return HistoryFileError(f"{path}:{line}:{column}: not valid JSON ({reason}); expected {EXPECTED}")


def cmd_check_history(args: Any) -> int:
    """``harness check-history FILE [--betas LIST]``: one line per violation, then a
    verdict; exit 1 on any."""
    betas = None if args.betas is None else [b.strip() for b in args.betas.split(",") if b.strip()]
    violations = check_history_file(Path(args.file), betas)
    for line in violations:
        print(line)
    print(f"{args.file}: {'valid' if not violations else f'{len(violations)} violation(s)'}")
    return 1 if violations else 0
