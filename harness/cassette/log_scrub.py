"""The cassette scrubber for the fault server's log: ``harness serve --log`` keeps of
each request and answer exactly what a cassette keeps (``harness.cassette.scrub``): the
allowlisted headers, and bodies with secrets and ``request_id`` values redacted; a body
that cannot be redacted safely is not logged."""

from __future__ import annotations

from typing import Any, Mapping

from harness.cassette.redaction.redact import RedactionError
from harness.cassette.scrub import (
    KEPT_REQUEST_HEADERS,
    KEPT_RESPONSE_HEADERS,
    keep_headers,
    scrub_body,
)


def scrub_for_log(side: str, headers: Mapping[str, str], body: bytes) -> tuple[dict[str, Any], str | None]:
    """``(headers kept, body text)`` of one side (``request`` or ``response``) of an exchange."""
    kept = keep_headers(headers, KEPT_REQUEST_HEADERS if side == "request" else KEPT_RESPONSE_HEADERS)
    try:
        scrubbed = scrub_body(body) if body else None
    except RedactionError as error:  # fail closed: the log keeps no body it could not redact
        return kept, f"(not logged: {error})"
    return kept, None if scrubbed is None else scrubbed.decode("utf-8", "replace")
