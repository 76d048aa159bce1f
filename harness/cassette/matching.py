"""The form in which a live request body is compared with a recorded one, the same for
both replay engines: JSON with sorted keys and no spaces, secrets redacted, placeholder
tags dropped (``<redacted:LABEL:TAG>`` as ``<redacted:LABEL>``: a replay never depends on
the key that tagged them).

    canonical_body(body)         the form of a body that is already scrubbed
    body_digest(body)            a digest of it
    LiveBodies(scrubber).digest  a live body's digest, scrubbed part by part
    same_body(r1, r2)            vcrpy's matcher ``harness_body``
    api_path(path)               the part of a path the API answers (``/v1/…``), the same
                                 for both engines (vcrpy's matcher ``harness_path``)

A session's requests repeat each other: every request carries the whole conversation so
far. ``LiveBodies`` scrubs a request body one top-level member and one message at a time
and remembers each part, so replaying a session whose requests do hold a secret (the
agent read a ``.env``) costs the new messages of each request, not the whole of it.
"""

from __future__ import annotations

import functools
import hashlib
import json
from typing import Any

from harness.cassette.redaction.redact import untagged
from harness.cassette.scrub import Scrubber
from harness.wire import json_body

_CANONICAL_JSON = json.JSONEncoder(sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def canonical_body(body: bytes | str | None) -> bytes:
    """JSON with sorted keys and no spaces, placeholder tags dropped; a body that is not
    JSON as it is (tags dropped all the same)."""
    if not body:
        return b""
    if isinstance(body, str):
        body = body.encode("utf-8")
    if b"<redacted:" in body:
        body = untagged(body.decode("utf-8", "surrogateescape")).encode("utf-8", "surrogateescape")
    try:
        return _CANONICAL_JSON.encode(json_body.loads(body)).encode()
    except ValueError:
        return body


def body_digest(body: bytes | None) -> bytes:
    """A digest of ``canonical_body(body)``."""
    return hashlib.blake2b(canonical_body(body), digest_size=16).digest()


class LiveBodies:
    """Live request bodies in matching form, with the parts already scrubbed remembered."""

    def __init__(self, scrubber: Scrubber) -> None:
        self.scrubber = scrubber
        self.scrubbed = 0  # parts scrubbed so far (each once)
        self._parts: dict[bytes, Any] = {}

    def digest(self, content: bytes) -> bytes:
        """``body_digest`` of ``content`` scrubbed (RedactionError if it cannot be)."""
        content = self.scrubber.with_cwd(content)
        try:
            body = json_body.loads(content) if content else None
        except ValueError:
            body = None
        if not isinstance(body, dict) or not isinstance(body.get("messages"), list):
            return body_digest(self.scrubber.body(content, cwd=False))
        form = {key: self._part({key: value})[key] for key, value in body.items() if key != "messages"}
        form["messages"] = [self._part(message) for message in body["messages"]]
        return hashlib.blake2b(_CANONICAL_JSON.encode(form).encode(), digest_size=16).digest()

    def _part(self, value: Any) -> Any:
        """``value`` as it is once its canonical JSON is scrubbed and its tags dropped."""
        text = _CANONICAL_JSON.encode(value).encode()
        key = hashlib.blake2b(text, digest_size=16).digest()
        if key not in self._parts:
            self._parts[key] = json_body.loads(canonical_body(self.scrubber.body(text, cwd=False)))
            self.scrubbed += 1
        return self._parts[key]


def api_path(path: str) -> str:
    """The API's part of a request path: from its first ``/v1/`` on (a base URL's own path,
    a gateway's ``/anthropic`` or ``harness serve``'s ``/s/NAME``, is where the recording
    was made, not what was asked); the whole path when it has none."""
    at = path.find("/v1/")
    return path[at:] if at >= 0 else path or "/"


def same_api_path(r1: Any, r2: Any) -> None:
    """vcrpy matcher ``harness_path``: the same ``api_path``."""
    if api_path(r1.path) != api_path(r2.path):
        raise AssertionError(f"the paths differ: {r1.path} and {r2.path}")


def same_body(r1: Any, r2: Any) -> None:
    """vcrpy matcher ``harness_body``: ``canonical_body`` of the two bodies is the same."""
    from vcr.util import read_body

    if _vcr_key(read_body(r1)) != _vcr_key(read_body(r2)):
        raise AssertionError("the bodies differ")


@functools.lru_cache(maxsize=1024)
def _vcr_key(body: bytes) -> bytes:
    """vcrpy compares each request with every recorded one: each body is made canonical once."""
    return body_digest(body)
