"""What a request that does not match its recording is told: the two bodies diffed, and
the 400 a client gets for it.

Errors::

    AssertionError
     └── ReplayMismatch   a request that is not the recorded one; the message diffs the bodies
"""

from __future__ import annotations

import difflib
import json

import httpx2

from harness.wire.errors import HarnessError

MAX_DIFF_LINES = 60
MAX_LINE = 240


class ReplayMismatch(HarnessError, AssertionError):
    """A request the cassette does not hold (or not at this point); ``str()`` says which
    recorded interaction was expected and diffs the two bodies."""



def body_diff(recorded: bytes | str | None, sent: bytes | str | None) -> str:
    """A unified diff of two request bodies, JSON pretty-printed with sorted keys; long
    lines are cut around their first difference."""
    old, new = _pretty(recorded).splitlines(), _pretty(sent).splitlines()
    if old == new:
        return "(the bodies are the same)"
    diff = list(difflib.unified_diff(old, new, "recorded", "this request", n=2, lineterm=""))
    diff = _clip(diff)
    if len(diff) > MAX_DIFF_LINES:
        diff = diff[:MAX_DIFF_LINES] + [f"… ({len(diff) - MAX_DIFF_LINES} more diff lines)"]
    return "\n".join(diff)


def _pretty(body: bytes | str | None) -> str:
    if body is None:
        return ""
    text = body.decode("utf-8", "replace") if isinstance(body, (bytes, bytearray)) else str(body)
    try:
        return json.dumps(json.loads(text), indent=2, sort_keys=True, ensure_ascii=False)
    except ValueError:
        return text


def _clip(diff: list[str]) -> list[str]:
    """Long removed/added line pairs shown around where they differ; other long lines cut."""
    out = list(diff)
    i = 0
    while i < len(out):
        if out[i].startswith("-") and not out[i].startswith("---"):
            minus = i
            while i < len(out) and out[i].startswith("-"):
                i += 1
            plus = i
            while i < len(out) and out[i].startswith("+") and not out[i].startswith("+++"):
                i += 1
            for a, b in zip(range(minus, plus), range(plus, i)):
                out[a], out[b] = _around_difference(out[a], out[b])
            continue
        i += 1
    return [line if len(line) <= MAX_LINE else line[: MAX_LINE - 1] + "…" for line in out]


def _around_difference(a: str, b: str) -> tuple[str, str]:
    if len(a) <= MAX_LINE and len(b) <= MAX_LINE:
        return a, b
    first = next((k for k, (x, y) in enumerate(zip(a, b)) if k and x != y), min(len(a), len(b)))  # after the -/+
    start = max(1, first - 80)

    def cut(line: str) -> str:
        piece = line[start : start + MAX_LINE - 40]
        return line[0] + ("…" if start > 1 else "") + piece + ("…" if start + MAX_LINE - 40 < len(line) else "")

    return cut(a), cut(b)


def mismatch_response(mismatch: ReplayMismatch) -> httpx2.Response:
    """What the client gets for a request the cassette cannot answer: a 400 that says why."""
    return refusal(f"harness replay: {mismatch}")


def refusal(message: str) -> httpx2.Response:
    """A 400 ``invalid_request_error`` with ``message`` and ``x-should-retry: false``,
    so the client stops instead of retrying."""
    body = {"type": "error", "error": {"type": "invalid_request_error", "message": message}}
    return httpx2.Response(400, headers={"x-should-retry": "false"}, json=body)
