"""Layer 1, what went wrong: every failure of a model request folded into one type.

    BaseException
     └── Exception
          ├── ModelError            a failed model request: kind, retryable, status, retry_after
          ├── IncompleteStreamError the stream ended cleanly before message_stop
          └── MalformedStreamError  the SDK could not assemble the stream's events

``to_model_error`` translates what the anthropic SDK (and httpx2 below it) raises,
most specific first; anything it does not know is left for the loop's safety net.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass
from typing import Callable

import anthropic
import httpx2

from .retry import parse_retry_after

RETRYABLE_STATUSES = frozenset({408, 409, 429})
RETRYABLE_ERROR_TYPES = frozenset({"overloaded_error", "api_error", "rate_limit_error", "timeout_error"})
STATUS_KINDS = {
    400: "invalid_request",
    401: "authentication",
    403: "permission",
    404: "not_found",
    408: "timeout",
    409: "conflict",
    413: "request_too_large",
    429: "rate_limit",
    500: "api_error",
    502: "bad_gateway",
    503: "unavailable",
    504: "gateway_timeout",
    529: "overloaded",
}
ERROR_TYPE_KINDS = {
    "overloaded_error": "overloaded",
    "api_error": "api_error",
    "rate_limit_error": "rate_limit",
    "timeout_error": "timeout",
    "invalid_request_error": "invalid_request",
    "authentication_error": "authentication",
    "permission_error": "permission",
    "not_found_error": "not_found",
    "request_too_large": "request_too_large",
}


class IncompleteStreamError(Exception):
    """The stream closed cleanly but never sent ``message_stop`` (no stop_reason)."""


class MalformedStreamError(Exception):
    """The SDK raised while assembling the events (a delta for a block not yet started)."""


@dataclass
class ModelError(Exception):
    """A model request that failed; ``retryable`` says whether sending it again may help."""

    kind: str
    retryable: bool
    status: int | None = None
    retry_after: float | None = None
    message: str = ""

    def __str__(self) -> str:
        status = f"{self.status} " if self.status else ""
        return f"{status}{self.kind}: {self.message}" if self.message else f"{status}{self.kind}"


def to_model_error(exc: BaseException, *, now: Callable[[], float] = time.time) -> ModelError | None:
    """The ModelError for ``exc``, or None if ``exc`` is not a model-request failure."""
    if isinstance(exc, ModelError):
        return exc
    if isinstance(exc, anthropic.APIStatusError):
        return _from_status_error(exc, now)
    if isinstance(exc, anthropic.APITimeoutError):
        return ModelError("timeout", True, message="the request timed out")
    if isinstance(exc, anthropic.APIConnectionError):
        return ModelError("connection", True, message=_cause_text(exc))
    if isinstance(exc, httpx2.TimeoutException):
        return ModelError("timeout", True, message=f"stream stalled: {exc}")
    if isinstance(exc, httpx2.TransportError):
        return ModelError("stream_cut", True, message=f"connection lost mid-stream: {type(exc).__name__}: {exc}")
    if isinstance(exc, IncompleteStreamError):
        return ModelError("incomplete_stream", True, message=str(exc))
    if isinstance(exc, MalformedStreamError):
        return ModelError("malformed_stream", True, message=str(exc))
    if isinstance(exc, json.JSONDecodeError):
        return ModelError("bad_sse", True, message=f"stream data is not JSON: {exc}")
    if isinstance(exc, ValueError) and "tool parameter JSON" in str(exc):
        return ModelError("bad_tool_json", True, message="the model's tool input was not valid JSON")
    return None


def _from_status_error(exc: anthropic.APIStatusError, now: Callable[[], float]) -> ModelError:
    status = exc.status_code
    error_type = getattr(exc, "type", None) or _body_error_type(exc.body)
    message = _body_message(exc.body) or _page_title(_body_text(exc))
    headers = exc.response.headers
    if status == 200:  # an `event: error` inside a 200 stream
        kind = ERROR_TYPE_KINDS.get(error_type or "", error_type or "stream_error")
        return ModelError(kind, error_type in RETRYABLE_ERROR_TYPES, status, parse_retry_after(headers, now=now), message)
    retryable = status in RETRYABLE_STATUSES or status >= 500
    should_retry = headers.get("x-should-retry")
    if should_retry == "true":
        retryable = True
    elif should_retry == "false":
        retryable = False
    kind = STATUS_KINDS.get(status) or ERROR_TYPE_KINDS.get(error_type or "", f"http_{status}")
    return ModelError(kind, retryable, status, parse_retry_after(headers, now=now), message)


def _body_error_type(body: object) -> str | None:
    if isinstance(body, dict):
        error = body.get("error", body)
        if isinstance(error, dict) and isinstance(error.get("type"), str):
            return error["type"]
    return None


def _body_message(body: object) -> str | None:
    if isinstance(body, dict):
        error = body.get("error", body)
        if isinstance(error, dict) and isinstance(error.get("message"), str):
            return error["message"]
    return None


def _body_text(exc: anthropic.APIStatusError) -> str:
    """The body as the server sent it; the SDK's own message (which, from 2.17, adds the
    status, request id and path) only when the body was not read."""
    body = exc.body.strip() if isinstance(exc.body, str) else ""
    return body or exc.message


def _page_title(text: str) -> str:
    """A proxy's HTML error page as its title, not the whole page; other text as it is."""
    if not text.lstrip().startswith("<"):
        return text
    title = re.search(r"<title>\s*(.*?)\s*</title>", text, re.IGNORECASE | re.DOTALL)
    return title.group(1) if title else "an HTML error page"


def _cause_text(exc: BaseException) -> str:
    cause = exc.__cause__ or exc.__context__
    return f"{type(cause).__name__}: {cause}" if cause else str(exc)
