"""Replaying vcrpy-format cassettes offline through the harness's own index: built
once, then O(1) per request (vcrpy matches every request against every interaction).

Matching is ``body`` (method, path and JSON body, compared after ``harness.cassette.scrub``
normalised both: secrets redacted, the working directory as ``<cwd>``) or ``order``
(method and path; the n-th request gets the n-th interaction). Identical requests (a
retry) get the recorded answers in their recorded order.

A mismatch is answered with a 400 ``invalid_request_error`` (and ``x-should-retry:
false``) whose message is the diff: an agent stops there instead of retrying, and says
why. Every mismatch is also kept in ``.mismatches``; ``replay_session`` raises the first,
the pytest fixture fails the test with them.
"""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict, deque
from pathlib import Path
from typing import Any, Mapping, Sequence
from urllib.parse import urlsplit

import httpx2

from harness.cassette.diff import ReplayMismatch, body_diff, mismatch_response
from harness.cassette.scrub import scrub_body
from harness.wire import json_body
from harness.wire.chunks import WireBody
from harness.wire.cassette_file import load_cassette, response_body_bytes

_HOP_HEADERS = frozenset({"content-encoding", "content-length", "transfer-encoding", "connection"})


_CANONICAL_JSON = json.JSONEncoder(sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def _canonical(body: bytes | None) -> bytes:
    if not body:
        return b""
    try:
        return _CANONICAL_JSON.encode(json_body.loads(body)).encode()
    except ValueError:
        return body


def _digest(body: bytes | None) -> bytes:
    return hashlib.blake2b(_canonical(body), digest_size=16).digest()


def _raw_digest(body: bytes | None) -> bytes:
    return hashlib.blake2b(body or b"", digest_size=16).digest()


def _route(request: Mapping[str, Any]) -> tuple[str, str]:
    return str(request.get("method", "GET")).upper(), urlsplit(str(request.get("uri", ""))).path or "/"


class CassetteIndex:
    """The interactions of one cassette, served once each: by (method, path, body digest)
    or by order. Shared by the sync and async transports."""

    def __init__(
        self,
        cassette: str | Path | Sequence[Mapping[str, Any]],
        *,
        match_on: str = "body",
        cwd: str | Path | None = None,
        name: str | None = None,
    ) -> None:
        if match_on not in ("body", "order"):
            raise ValueError(f"match_on {match_on!r}: choose body or order")
        if isinstance(cassette, (str, Path)):
            self.interactions: Sequence[Mapping[str, Any]] = load_cassette(cassette)
        else:
            self.interactions = cassette
        self.name = name or (str(cassette) if isinstance(cassette, (str, Path)) else "the cassette")
        self.match_on = match_on
        self.cwd = cwd
        self.played: list[int] = []  # the interaction index (from 0) each request got
        self.mismatches: list[ReplayMismatch] = []
        self._requests = 0
        self._used = [False] * len(self.interactions)
        self._routes = [_route(i["request"]) for i in self.interactions]
        self._by_key: dict[tuple[str, str, bytes], deque[int]] = defaultdict(deque)
        # The same bytes have the same canonical JSON: a request sent exactly as recorded
        # (the usual case) finds its key by a digest of its bytes, without re-encoding.
        self._key_of_bytes: dict[tuple[str, str, bytes], tuple[str, str, bytes]] = {}
        if match_on == "body":
            for index, interaction in enumerate(self.interactions):
                body = scrub_body(interaction["request"].get("body"))
                key = (*self._routes[index], _digest(body))
                self._by_key[key].append(index)
                self._key_of_bytes[(*self._routes[index], _raw_digest(body))] = key

    @property
    def unused(self) -> list[int]:
        """Interactions (numbered from 1) that no request got."""
        return [n + 1 for n, used in enumerate(self._used) if not used]

    def take(self, method: str, path: str, content: bytes) -> int:
        """The interaction answering this request (marked used), or raise ReplayMismatch."""
        self._requests += 1
        body = scrub_body(content, self.cwd)
        route = (method.upper(), path or "/")
        if self.match_on == "order":
            index = len(self.played)
            if index >= len(self.interactions) or self._routes[index] != route:
                raise self._mismatch(route, body, index if index < len(self.interactions) else None)
        else:
            key = self._key_of_bytes.get((*route, _raw_digest(body))) or (*route, _digest(body))
            candidates = self._by_key.get(key)
            if not candidates:
                raise self._mismatch(route, body, self._expected(route))
            index = candidates.popleft()
        self._used[index] = True
        self.played.append(index)
        return index

    def response(self, index: int) -> httpx2.Response:
        """The recorded response of interaction ``index`` as the client would have read it,
        in socket-sized reads."""
        recorded = self.interactions[index]["response"]
        status = recorded.get("status") or {}
        code = int(status.get("code", recorded.get("status_code", 200)) if isinstance(status, Mapping) else status)
        message = status.get("message") if isinstance(status, Mapping) else None
        headers = [
            (str(name), str(value))
            for name, values in (recorded.get("headers") or {}).items()
            if str(name).lower() not in _HOP_HEADERS
            for value in (values if isinstance(values, list) else [values])
        ]
        extensions = {"reason_phrase": str(message).encode("ascii", "replace")} if message else {}
        return httpx2.Response(code, headers=headers, stream=WireBody(response_body_bytes(recorded)), extensions=extensions)

    def _expected(self, route: tuple[str, str]) -> int | None:
        """The first unused interaction on the same route, else the first unused one."""
        unused = [n for n, used in enumerate(self._used) if not used]
        return next((n for n in unused if self._routes[n] == route), unused[0] if unused else None)

    def _mismatch(self, route: tuple[str, str], body: bytes | None, expected: int | None) -> ReplayMismatch:
        head = f"request {self._requests} ({route[0]} {route[1]}) does not match {self.name} (matching on {self.match_on})"
        if expected is None:
            text = f"{head}: all {len(self.interactions)} recorded interactions have been played"
        else:
            recorded = self.interactions[expected]["request"]
            text = (
                f"{head}\nexpected interaction {expected + 1} of {len(self.interactions)}: "
                f"{recorded.get('method')} {recorded.get('uri')}\n"
                + body_diff(scrub_body(recorded.get("body")), body)
            )
        mismatch = ReplayMismatch(text)
        self.mismatches.append(mismatch)
        return mismatch


class _CassetteTransportBase:
    def __init__(
        self,
        cassette: str | Path | Sequence[Mapping[str, Any]] | CassetteIndex,
        *,
        match_on: str = "body",
        cwd: str | Path | None = None,
    ) -> None:
        self.index = cassette if isinstance(cassette, CassetteIndex) else CassetteIndex(cassette, match_on=match_on, cwd=cwd)

    @property
    def mismatches(self) -> list[ReplayMismatch]:
        return self.index.mismatches

    @property
    def unused(self) -> list[int]:
        return self.index.unused

    def _answer(self, request: httpx2.Request, content: bytes) -> httpx2.Response:
        try:
            return self.index.response(self.index.take(request.method, request.url.path, content))
        except ReplayMismatch as mismatch:
            return mismatch_response(mismatch)


class CassetteTransport(_CassetteTransportBase, httpx2.BaseTransport):
    """Sync transport answering from a cassette:
    ``anthropic.Anthropic(http_client=httpx2.Client(transport=CassetteTransport(path)))``.
    Transports built on one CassetteIndex share its interactions (a sync and an async
    client replaying one session)."""

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        return self._answer(request, request.read())


class AsyncCassetteTransport(_CassetteTransportBase, httpx2.AsyncBaseTransport):
    """The async twin: ``anthropic.AsyncAnthropic(http_client=httpx2.AsyncClient(transport=…))``."""

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        return self._answer(request, await request.aread())
