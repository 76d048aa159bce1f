"""The API's retry semantics, as documented: which failures a client may try again, and
how long the server asks it to wait first.

Sources, each rule standing on one:
- platform.claude.com/docs/en/api/errors: 429 ``rate_limit_error`` ("wait as long as
  retry-after says"), 500 ``api_error``, 504 ``timeout_error`` and 529
  ``overloaded_error`` are transient; 400, 401, 402, 403, 404 and 413 describe the
  request or the account, and sending it again changes nothing.
- The official SDKs' documented retry rule (anthropic-sdk-python, ``_should_retry``):
  408, 409, 429 and every status ≥ 500 are retried, unless the response says
  ``x-should-retry: false``; ``x-should-retry: true`` makes any status retryable.
- RFC 9110 §10.2.3: ``retry-after`` is delay-seconds (digits: a whole number) or an
  HTTP-date (counted from when the response arrived); anything else (``0.5``, ``soon``)
  asks nothing a client must read. ``retry-after-ms`` (milliseconds) is the API's more
  precise twin; when both are sent, it wins.
- Errors inside a 200 stream (``event: error``) carry the same ``error.type`` values:
  ``overloaded_error``, ``api_error``, ``rate_limit_error`` and ``timeout_error`` are
  transient there too.

Written from those texts alone: it shares no code with any agent it checks.
"""

from __future__ import annotations

import email.utils
import math
import re
from collections.abc import Mapping

RETRYABLE_STATUSES = frozenset({408, 409, 429})
"""Below 500, the statuses worth another try."""
TRANSIENT_ERROR_TYPES = frozenset({"overloaded_error", "api_error", "rate_limit_error", "timeout_error"})
"""``error.type`` values that say "try again later", in a stream as in a body."""


def status_is_retryable(status: int, headers: Mapping[str, str]) -> bool:
    """Whether a response with ``status`` may be retried; ``x-should-retry`` overrides."""
    verdict = _header(headers, "x-should-retry")
    if verdict is not None and verdict.strip().lower() in ("true", "false"):
        return verdict.strip().lower() == "true"
    return status >= 500 or status in RETRYABLE_STATUSES


def retried_by_the_sdks_only(status: int, headers: Mapping[str, str]) -> bool:
    """Whether a response is retryable by the official SDKs' rule only, not by the errors
    docs' transient statuses (429, the 5xx): a 408, a 409, or a status the docs call
    final marked ``x-should-retry: true``."""
    return status_is_retryable(status, headers) and not (status >= 500 or status == 429)


def error_type_is_transient(error_type: str) -> bool:
    """Whether an ``event: error`` of this type may be retried."""
    return error_type in TRANSIENT_ERROR_TYPES


def requested_wait(headers: Mapping[str, str], *, received_at: float) -> float | None:
    """Seconds the server asked the client to wait, or None when it asked nothing
    readable. ``received_at`` is the Unix time the response came (for HTTP-dates)."""
    millis = _number(_header(headers, "retry-after-ms"))
    if millis is not None:
        return millis / 1000.0
    value = _header(headers, "retry-after")
    if value is None:
        return None
    if re.fullmatch(r"[0-9]+", value.strip()):  # delay-seconds = 1*DIGIT
        return float(value.strip())
    parsed = email.utils.parsedate_tz(value.strip())
    if parsed is None:
        return None
    return max(0.0, email.utils.mktime_tz(parsed) - received_at)


def _number(text: str | None) -> float | None:
    """A finite, non-negative number of units, or None."""
    if text is None:
        return None
    try:
        value = float(text.strip())
    except ValueError:
        return None
    return value if math.isfinite(value) and value >= 0 else None


def _header(headers: Mapping[str, str], name: str) -> str | None:
    value = headers.get(name)
    if value is None:
        value = next((v for k, v in headers.items() if k.lower() == name), None)
    return None if value is None else str(value)
