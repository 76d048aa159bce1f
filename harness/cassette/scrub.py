"""What a cassette may keep: an allowlist of headers, bodies with secrets redacted and the
working directory replaced by ``<cwd>``.

vcrpy only removes what it is told to, and real cassettes in public repositories leak
``authorization``, ``anthropic-organization-id``, cookies and request ids. So the
recorder keeps a short list of headers instead, the ones a replay needs:

- requests: ``content-type``, ``anthropic-version``, ``anthropic-beta`` (the beta list
  tells the API-validity oracle which rules apply);
- responses: ``content-type``, ``retry-after``, ``retry-after-ms``, ``x-should-retry``
  (the agent's retry decisions and delays depend on them).

Everything else — ``authorization``, ``x-api-key``, cookies, ``request-id``,
``anthropic-organization-id``, rate-limit and Cloudflare headers — is never written.
Bodies are decompressed (so the secret scanner can read them); every string that
``harness.cassette.scan`` would flag, and the ``request_id`` of error bodies, become
``<redacted>``.

The same functions normalise a live request before it is matched against a recording,
so a redacted or path-normalised recording still matches the request that made it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from harness.cassette.scan import is_placeholder, patterns_for

KEPT_REQUEST_HEADERS = frozenset({"content-type", "anthropic-version", "anthropic-beta"})
KEPT_RESPONSE_HEADERS = frozenset({"content-type", "retry-after", "retry-after-ms", "x-should-retry"})
REDACTED = "<redacted>"
CWD = "<cwd>"
REQUEST_ID_IN_JSON = re.compile(r'("request_id"\s*:\s*")[^"\\]+(")')  # error bodies carry one too


def redact_text(text: str) -> str:
    """``text`` with every secret-looking string replaced by ``<redacted>``."""
    for pattern in patterns_for(text):
        spans = [
            match.span(pattern.group)
            for match in pattern.finditer(text)
            if not is_placeholder(match.group(pattern.group))
        ]
        for start, end in reversed(spans):
            text = text[:start] + REDACTED + text[end:]
    return text


def scrub_body(body: bytes | str | None, cwd: str | Path | None = None) -> bytes | None:
    """A body with the working directory as ``<cwd>``, secrets and ``request_id`` values
    redacted (text only: a body that is not UTF-8 is returned as it is)."""
    if body is None:
        return None
    if isinstance(body, str):
        body = body.encode("utf-8")
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        return body
    if cwd is not None:
        text = replace_cwd(text, cwd)
    if '"request_id"' in text:
        text = REQUEST_ID_IN_JSON.sub(rf"\g<1>{REDACTED}\g<2>", text)
    return redact_text(text).encode("utf-8")


def replace_cwd(text: str, cwd: str | Path) -> str:
    """``text`` with the working directory (as given, resolved, and JSON-escaped) as ``<cwd>``."""
    forms = {str(cwd), str(Path(cwd).resolve())}
    forms |= {json.dumps(form)[1:-1] for form in forms}
    for form in sorted(forms, key=len, reverse=True):
        if form and form != "/":
            text = re.sub(re.escape(form) + r"(?![\w.\-])", CWD, text)
    return text


def keep_headers(headers: Mapping[str, Any], kept: frozenset[str]) -> dict[str, Any]:
    """The headers whose lower-cased name is in ``kept``."""
    return {name: value for name, value in headers.items() if str(name).lower() in kept}


def request_scrubber(cwd: str | Path | None = None) -> Callable[[Any], Any]:
    """A vcrpy ``before_record_request`` hook: allowlisted headers, scrubbed body and URI.

    vcrpy runs it on a copy of every request it records *and* of every live request it
    matches, so both sides are compared in the same form."""

    def scrub(request: Any) -> Any:
        request.headers = keep_headers(request.headers, KEPT_REQUEST_HEADERS)
        request.body = scrub_body(request.body, cwd)
        request.uri = redact_text(request.uri)
        return request

    return scrub


def scrub_response(response: dict[str, Any]) -> dict[str, Any]:
    """A vcrpy ``before_record_response`` hook: body decompressed and redacted, headers
    allowlisted. A body in an encoding vcrpy cannot undo keeps its ``content-encoding``."""
    from vcr.filters import decode_response

    response = decode_response(response)
    kept = KEPT_RESPONSE_HEADERS | ({"content-encoding"} if _header(response["headers"], "content-encoding") else set())
    response["headers"] = keep_headers(response["headers"], frozenset(kept))
    body = response.get("body") or {}
    if "content-encoding" not in kept and isinstance(body.get("string"), (bytes, str)):
        body["string"] = scrub_body(body["string"])
    return response


def _header(headers: Mapping[str, Any], name: str) -> Any:
    return next((v for k, v in headers.items() if str(k).lower() == name), None)
