"""What a cassette may keep: an allowlist of headers, bodies with secrets redacted and the
working directory replaced by ``<cwd>``. The recorder, the replay index and any other
place that writes or matches a request (a request log, a recording proxy) call these:

    scrub_body(body, cwd=None) -> bytes | None     a request or response body, redacted
    scrub_headers(headers, kept=None) -> dict      allowlisted (all names if kept is None),
                                                   secret values redacted
    request_scrubber(cwd=None)                     vcrpy's before_record_request hook
    scrub_response(response)                       vcrpy's before_record_response hook
    replace_cwd(text, cwd), keep_headers(headers, kept), redact_text(text)
    Scrubber(cwd, settings)                        the same, for one recording: its
                                                   failures, its memo of bodies seen

Headers: vcrpy only removes what it is told to, and real cassettes in public
repositories leak ``authorization``, ``anthropic-organization-id``, cookies and request
ids. So the recorder keeps the headers a replay needs — requests: ``content-type``,
``anthropic-version``, ``anthropic-beta`` (the beta list tells the oracle which rules
apply); responses: ``content-type``, ``retry-after``, ``retry-after-ms``,
``x-should-retry`` — and redacts what their values hold all the same.

Bodies: decompressed, then redacted on their decoded values by
``harness.cassette.redaction`` (JSON unescaped, streams reassembled per content block,
each fragment edited in place) with the user's rules and the credential-named
environment values (``redaction.config``); ``request_id`` values become ``<redacted>``.
A body that cannot be redacted safely raises ``RedactionError`` (kept in
``Scrubber.failures``, so a recording can stop instead of writing it).
"""

from __future__ import annotations

import hashlib
import json
import re
import zlib
from collections import OrderedDict
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from harness.cassette.redaction.config import Settings, configured
from harness.cassette.redaction.redact import RedactionError, apply
from harness.cassette.shapes import SEEN_HEADERS, depended_headers

KEPT_REQUEST_HEADERS = frozenset({"content-type", "anthropic-version", "anthropic-beta"})
KEPT_RESPONSE_HEADERS = frozenset({"content-type", "retry-after", "retry-after-ms", "x-should-retry"})
REDACTED = "<redacted>"
CWD = "<cwd>"
REQUEST_ID_IN_JSON = re.compile(r'("request_id"\s*:\s*")[^"\\]+(")')  # error bodies carry one too
_MEMO_SIZE = 64


class Scrubber:
    """One recording's (or one replay's) scrubbing, with ``settings`` (by default
    ``redaction.config.configured()``, read now) and the working directory ``cwd``.
    ``failures`` keeps every RedactionError its vcrpy hooks raised. The last bodies seen
    are memoised: vcrpy runs the request hook two or three times on each request."""

    def __init__(self, cwd: str | Path | None = None, settings: Settings | None = None) -> None:
        self.cwd = cwd
        self.settings = settings or configured()
        self.failures: list[RedactionError] = []
        self._memo: OrderedDict[bytes, bytes] = OrderedDict()

    def body(self, body: bytes | str | None, *, cwd: bool = True) -> bytes | None:
        """``scrub_body`` with these settings (the working directory only if ``cwd``)."""
        if body is None:
            return None
        if isinstance(body, str):
            body = body.encode("utf-8")
        digest = hashlib.blake2b(body, digest_size=16, person=b"cwd" if cwd else b"").digest()
        if digest in self._memo:
            self._memo.move_to_end(digest)
            return self._memo[digest]
        if cwd:
            body = self.with_cwd(body)
        scrubbed = self.settings.redactor.redact_body(body)
        if b'"request_id"' in scrubbed:
            scrubbed = _drop_request_ids(scrubbed)
        self._memo[digest] = scrubbed
        if len(self._memo) > _MEMO_SIZE:
            self._memo.popitem(last=False)
        return scrubbed

    def with_cwd(self, body: bytes) -> bytes:
        """``body`` with the working directory as ``<cwd>`` (as it is if it has none)."""
        if not self.cwd or not body:
            return body
        if not any(form.encode("utf-8") in body for form in _cwd_forms(self.cwd)):
            return body
        try:
            return replace_cwd(body.decode("utf-8"), self.cwd).encode("utf-8")
        except UnicodeDecodeError:
            return body

    def text(self, text: str) -> str:
        """Any text (a URI, a header value) with every secret redacted."""
        return self.settings.redactor.redact_text(text)

    def headers(self, headers: Mapping[str, Any], kept: frozenset[str] | None = None) -> dict[str, Any]:
        """``scrub_headers`` with these settings."""
        return {name: self._header(str(name), value) for name, value in keep_headers(headers, kept).items()}

    def _header(self, name: str, value: Any) -> Any:
        if isinstance(value, (list, tuple)):
            return [self._header(name, item) for item in value]
        if not isinstance(value, str):
            return value
        redactor = self.settings.redactor
        hits = redactor.judge.pair(name, value)
        if hits:
            value = apply(value, [(h.start, h.end, redactor.placeholder(h.label, value[h.start : h.end])) for h in hits])
        return redactor.redact_text(value, quiet=True)  # a header is read quiet, by the scanner too

    def request(self, request: Any) -> Any:
        """vcrpy's ``before_record_request``: allowlisted headers, scrubbed body and URI.
        vcrpy runs it on a copy of every request it records *and* of every live request
        it matches, so both sides are compared in the same form."""
        try:
            request.headers = self.headers(request.headers, KEPT_REQUEST_HEADERS)
            request.body = self.body(request.body)
            request.uri = self.text(request.uri)
        except RedactionError as error:
            self.failures.append(error)
            raise
        return request

    def response(self, response: dict[str, Any]) -> dict[str, Any]:
        """vcrpy's ``before_record_response``: body decompressed and redacted, headers
        allowlisted and redacted. A body in an encoding vcrpy cannot undo (``br``,
        ``zstd``) cannot be redacted, so it is a RedactionError, never written."""
        from vcr.filters import decode_response

        try:
            try:
                response = decode_response(response)
            except (OSError, EOFError, zlib.error):
                raise RedactionError("a compressed response body does not decompress, so it cannot be redacted") from None
            encoding = [e for e in _values(_header(response["headers"], "content-encoding")) if e.lower() != "identity"]
            if encoding:
                raise RedactionError(f"a response body in content-encoding {encoding[0]!r} cannot be read to redact it")
            response[SEEN_HEADERS] = sorted(depended_headers(response["headers"]))  # names only: for drift
            response["headers"] = self.headers(response["headers"], KEPT_RESPONSE_HEADERS)
            body = response.get("body") or {}
            if isinstance(body.get("string"), (bytes, str)):
                body["string"] = self.body(body["string"], cwd=False)
        except RedactionError as error:
            self.failures.append(error)
            raise
        return response


def scrub_body(body: bytes | str | None, cwd: str | Path | None = None) -> bytes | None:
    """A body with the working directory as ``<cwd>``, every secret as
    ``<redacted:LABEL:TAG>`` and ``request_id`` values as ``<redacted>``; gzip stays
    gzip. Raises RedactionError for a body it cannot redact safely."""
    return Scrubber(cwd, configured()).body(body)


def redact_text(text: str) -> str:
    """``text`` with every secret as ``<redacted:LABEL:TAG>``."""
    return configured().redactor.redact_text(text)


def scrub_headers(headers: Mapping[str, Any], kept: frozenset[str] | None = None) -> dict[str, Any]:
    """The headers whose lower-cased name is in ``kept`` (all if None), each value
    redacted: an ``authorization`` or ``x-api-key`` value whatever it looks like (after
    its scheme word: ``Bearer <redacted:…>``), credential cookies, anything a rule finds."""
    return Scrubber(None, configured()).headers(headers, kept)


def request_scrubber(cwd: str | Path | None = None) -> Callable[[Any], Any]:
    """A vcrpy ``before_record_request`` hook (``Scrubber(cwd).request``)."""
    return Scrubber(cwd).request


def scrub_response(response: dict[str, Any]) -> dict[str, Any]:
    """A vcrpy ``before_record_response`` hook (``Scrubber().response``)."""
    return Scrubber(None, configured()).response(response)


def replace_cwd(text: str, cwd: str | Path) -> str:
    """``text`` with the working directory (as given, resolved, and JSON-escaped) as ``<cwd>``."""
    for form in _cwd_forms(cwd):
        text = re.sub(re.escape(form) + r"(?![\w.\-])", CWD, text)
    return text


def keep_headers(headers: Mapping[str, Any], kept: frozenset[str] | None) -> dict[str, Any]:
    """The headers whose lower-cased name is in ``kept`` (all of them if None)."""
    return {name: value for name, value in headers.items() if kept is None or str(name).lower() in kept}


def _cwd_forms(cwd: str | Path) -> list[str]:
    forms = {str(cwd), str(Path(cwd).resolve())}
    forms |= {json.dumps(form)[1:-1] for form in forms}
    return [form for form in sorted(forms, key=len, reverse=True) if form and form != "/"]


def _drop_request_ids(body: bytes) -> bytes:
    try:
        return REQUEST_ID_IN_JSON.sub(rf"\g<1>{REDACTED}\g<2>", body.decode("utf-8")).encode("utf-8")
    except UnicodeDecodeError:
        return body


def _header(headers: Mapping[str, Any], name: str) -> Any:
    return next((v for k, v in headers.items() if str(k).lower() == name), None)


def _values(value: Any) -> list[str]:
    return [] if value is None else [str(v) for v in value] if isinstance(value, (list, tuple)) else [str(value)]
