"""The real API's error statuses, types and messages, by the short names scenarios use."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ApiError:
    """One kind of API error: HTTP status, ``error.type`` and the API's usual message."""

    name: str
    status: int
    type: str
    message: str


API_ERRORS = {
    e.name: e
    for e in (
        ApiError("invalid_request", 400, "invalid_request_error", "Invalid request."),
        ApiError("authentication", 401, "authentication_error", "invalid x-api-key"),
        ApiError("billing", 402, "billing_error", "Your credit balance is too low to access the Anthropic API."),
        ApiError("permission", 403, "permission_error", "Your API key does not have permission to use the specified resource."),
        ApiError("not_found", 404, "not_found_error", "Not found."),
        ApiError("request_timeout", 408, "timeout_error", "Request timed out."),
        ApiError("conflict", 409, "api_error", "Conflict."),
        ApiError("request_too_large", 413, "request_too_large", "Request exceeds the maximum allowed number of bytes."),
        ApiError(
            "rate_limit",
            429,
            "rate_limit_error",
            "This request would exceed the rate limit for your organization of 50 requests per minute.",
        ),
        ApiError("api_error", 500, "api_error", "Internal server error"),
        ApiError("bad_gateway", 502, "api_error", "Bad gateway"),
        ApiError("unavailable", 503, "api_error", "Service unavailable"),
        ApiError("gateway_timeout", 504, "timeout_error", "Request timeout"),
        ApiError("overloaded", 529, "overloaded_error", "Overloaded"),
    )
}
BY_STATUS = {e.status: e for e in API_ERRORS.values()}
STREAM_ERROR_TYPES = ("overloaded_error", "api_error", "rate_limit_error", "timeout_error", "invalid_request_error")
STREAM_ERROR_STATUS = {"overloaded_error": 529, "api_error": 500, "rate_limit_error": 429, "timeout_error": 504, "invalid_request_error": 400}
"""The HTTP status the API gives each ``error.type`` (platform.claude.com/docs/en/api/errors):
what an ``event: error`` becomes for a request that does not stream."""


def api_error(name_or_status: str | int) -> ApiError:
    """The ApiError for a short name (``overloaded``) or a status (``529``); KeyError if unknown."""
    if isinstance(name_or_status, int):
        if name_or_status in BY_STATUS:
            return BY_STATUS[name_or_status]
        kind = "invalid_request_error" if name_or_status < 500 else "api_error"
        return ApiError(str(name_or_status), name_or_status, kind, f"HTTP {name_or_status}")
    return API_ERRORS[name_or_status]


def error_body(error_type: str, message: str, request_id: str | None = None) -> dict[str, object]:
    """The JSON body the API sends with an error status, or inside ``event: error``."""
    body: dict[str, object] = {"type": "error", "error": {"type": error_type, "message": message}}
    if request_id:
        body["request_id"] = request_id
    return body
