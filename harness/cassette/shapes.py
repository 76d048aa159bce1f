"""The shape of an answer, as an agent depends on it, and the semantic difference of two.

A shape is what changes when the API changes, not what changes when the model words
things otherwise: the status and error type; the content block types in their order;
the stop reason; each tool call's name and argument keys; the magnitude of the usage
(tenfold counts as a change, a few tokens more does not); whether the headers an agent
reads are there (``retry-after``, ``retry-after-ms``, ``x-should-retry``,
``request-id``, the ``anthropic-ratelimit-*`` family: one the recording had and the live
answer lacks; a new one breaks nothing); and whether it came as a stream.

    shape_of(status, headers, body)        one answer (JSON or SSE bytes)
    differences(recorded, live, known)     the fields that differ, each a Difference

``known`` says which header names the recorded side can speak for: a cassette keeps
only an allowlist of headers, so a header it could not have kept is compared only when
the cassette noted the names it saw.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from harness.wire.sse_parse import decode_events, final_message

DEPENDED_HEADERS = ("retry-after", "retry-after-ms", "x-should-retry", "request-id")
RATE_LIMIT_PREFIX = "anthropic-ratelimit-"
RATE_LIMITS = "anthropic-ratelimit-*"
USAGE_KEYS = ("input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
SEEN_HEADERS = "seen_headers"
"""The key under which a recorded response lists which of the headers an agent reads it
came with (most of their values are not kept)."""
FIELDS = ("status", "error", "stream", "blocks", "stop_reason", "tools", "usage", "headers")
"""Every field a difference can name (``--ignore`` takes these)."""


@dataclass(frozen=True)
class Shape:
    """One answer's shape (see the module docstring)."""

    status: int
    error: str | None = None
    stream: bool = False
    blocks: tuple[str, ...] = ()
    stop_reason: str | None = None
    tools: tuple[tuple[str, tuple[str, ...]], ...] = ()
    usage: Mapping[str, int] = field(default_factory=dict)
    headers: frozenset[str] = frozenset()

    def as_json(self) -> dict[str, Any]:
        return {
            "status": self.status, "error": self.error, "stream": self.stream, "blocks": list(self.blocks),
            "stop_reason": self.stop_reason, "tools": [{"name": n, "keys": list(k)} for n, k in self.tools],
            "usage": dict(self.usage), "headers": sorted(self.headers),
        }


@dataclass(frozen=True)
class Difference:
    """One field in which the live answer departs from the recorded one."""

    field: str
    recorded: Any
    live: Any

    def __str__(self) -> str:
        return f"{self.field}: recorded {_said(self.recorded)}, live {_said(self.live)}"


def depended_headers(names: Iterable[str]) -> frozenset[str]:
    """Which of the headers an agent reads are among ``names`` (the rate-limit family as one)."""
    lowered = (name.lower() for name in names)
    return frozenset(
        RATE_LIMITS if name.startswith(RATE_LIMIT_PREFIX) else name
        for name in lowered
        if name in DEPENDED_HEADERS or name.startswith(RATE_LIMIT_PREFIX)
    )


def shape_of(status: int, headers: Mapping[str, Any], body: bytes) -> Shape:
    """The shape of one answer: ``headers`` by name (any case; values may be lists)."""
    present = depended_headers(headers)
    content_type = next((_text(v) for k, v in headers.items() if k.lower() == "content-type"), "")
    stream = "text/event-stream" in content_type
    try:
        message = final_message(decode_events(body)) if stream else json.loads(body or b"null")
    except (ValueError, KeyError, TypeError, IndexError):
        message = None
    if not isinstance(message, dict):
        return Shape(status, "unreadable body" if status == 200 else None, stream, headers=present)
    if message.get("type") == "error" or status != 200:
        error = message.get("error") if isinstance(message.get("error"), dict) else {}
        return Shape(status, str(error.get("type")) if error else None, stream, headers=present)
    blocks = [b for b in message.get("content") or [] if isinstance(b, dict)]
    tools = tuple(
        (str(b.get("name")), tuple(sorted(b["input"])) if isinstance(b.get("input"), dict) else ())
        for b in blocks
        if "tool_use" in str(b.get("type"))
    )
    usage = message.get("usage") if isinstance(message.get("usage"), dict) else {}
    return Shape(
        status, None, stream, tuple(str(b.get("type")) for b in blocks), message.get("stop_reason"), tools,
        {k: int(usage[k]) for k in USAGE_KEYS if isinstance(usage.get(k), int)}, present,
    )


def differences(recorded: Shape, live: Shape, known: Iterable[str], *, ignore: Iterable[str] = ()) -> list[Difference]:
    """What differs, field by field; headers only among those ``known`` to the recording."""
    skip = set(ignore)
    found = [
        Difference(name, getattr(recorded, name), getattr(live, name))
        for name in ("status", "error", "stream", "blocks", "stop_reason", "tools")
        if name not in skip and getattr(recorded, name) != getattr(live, name)
    ]
    if "usage" not in skip:
        found += [Difference(f"usage.{key}", recorded.usage.get(key), live.usage.get(key))
                  for key in USAGE_KEYS if _magnitude_differs(recorded.usage.get(key), live.usage.get(key))]
    if "headers" not in skip:  # one the recording had and the live answer lacks; a new one breaks nothing
        for name in sorted(set(known) & (set(DEPENDED_HEADERS) | {RATE_LIMITS})):
            if name in recorded.headers and name not in live.headers:
                found.append(Difference(f"headers.{name}", True, False))
    return found


def _magnitude_differs(recorded: int | None, live: int | None) -> bool:
    """Present on one side only, or more than tenfold apart (zero counts as one)."""
    if (recorded is None) != (live is None):
        return True
    if recorded is None or live is None:
        return False
    low, high = sorted((max(recorded, 1), max(live, 1)))
    return math.log10(high) - math.log10(low) > 1


def _text(value: Any) -> str:
    return ", ".join(map(str, value)) if isinstance(value, list) else str(value)


def _said(value: Any) -> str:
    if isinstance(value, bool):
        return "present" if value else "absent"
    if isinstance(value, tuple):
        return "[" + ", ".join(_said(v) for v in value) + "]"
    return json.dumps(value) if not isinstance(value, str) else value
