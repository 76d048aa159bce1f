"""What went wrong with a request, and whether it is worth another attempt."""


import contextlib
import email.utils
import json
from dataclasses import dataclass
from typing import Any, Callable

import anthropic
import httpx2

from .settings import RETRYABLE_STREAM_ERRORS

# -- what went wrong with a request --------------------------------------------------

class Unfinished(Exception):
    """The stream ended cleanly but the message never arrived whole."""


class NotSent(Exception):
    """Building the request failed on our side: sending it again would not help."""

    def __str__(self) -> str:
        return f"the request could not be built ({self.args[0]!r})"


@dataclass
class Failure:
    what: str
    retry: bool
    wait: float | None = None   # seconds the server asked for


def server_wait(headers: Any, wall: Callable[[], float]) -> float | None:
    """How long the server wants us to hold off: ``retry-after-ms`` first, then ``retry-after``
    (a number of seconds, or a date compared with ``wall()``); None if neither is readable."""
    in_ms, plain = headers.get("retry-after-ms"), headers.get("retry-after")
    with contextlib.suppress(TypeError, ValueError):  # TypeError: the header is absent
        return max(0.0, float(in_ms) * 0.001)
    with contextlib.suppress(TypeError, ValueError):
        return max(0.0, float(plain))
    when = email.utils.parsedate_tz(plain) if plain else None
    return None if when is None else max(0.0, email.utils.mktime_tz(when) - wall())


# What broke below the HTTP status level: all of them are worth another attempt.
BROKEN_TRANSFERS: tuple[tuple[type[BaseException], str], ...] = (
    (anthropic.APITimeoutError, "no response in time"),
    (anthropic.APIConnectionError, "could not reach the API"),
    (httpx2.TimeoutException, "the answer stopped arriving"),          # raw, mid-body
    (httpx2.TransportError, "the connection dropped mid-answer"),     # raw, mid-body
    (json.JSONDecodeError, "the stream carried data that is not JSON"),
    (ValueError, "the model's tool arguments arrived as broken JSON"),  # the SDK's partial parser gave up
)


def diagnose(exc: BaseException, wall: Callable[[], float]) -> Failure:
    if isinstance(exc, anthropic.APIStatusError):
        code, response = exc.status_code, exc.response
        if code == 200:   # an `event: error` inside the stream
            kind = exc.type or "an error of unknown type"
            return Failure(f"the stream broke off with {kind}", kind in RETRYABLE_STREAM_ERRORS)
        verdict = response.headers.get("x-should-retry", "")
        retry = {"true": True, "false": False}.get(verdict, code in (408, 409, 429) or code >= 500)
        label = exc.type or response.reason_phrase or "no error body"
        return Failure(f"HTTP {code} ({label})", retry, server_wait(response.headers, wall))
    if isinstance(exc, (Unfinished, NotSent)):
        return Failure(str(exc), isinstance(exc, Unfinished))
    for kinds, what in BROKEN_TRANSFERS:
        if isinstance(exc, kinds):
            return Failure(f"{what} ({type(exc.__cause__ or exc).__name__})", True)
    return Failure(f"the SDK choked on the stream ({type(exc).__name__}: {exc})", True)


def settled(message: Any, seen: set[str]) -> Any:
    """The message if it arrived whole, else an ``Unfinished`` failure."""
    if message is None or "message_start" not in seen:
        return Unfinished("the stream ended before the message began")
    if "message_stop" not in seen or message.stop_reason is None:
        return Unfinished("the stream ended before the message was complete")
    return message
