"""Replaying vcrpy-format cassettes offline through the harness's own index: built
once, then O(1) per request (vcrpy matches every request against every interaction).

Matching is ``body`` (method, path and JSON body, compared in ``harness.cassette.matching``'s
form: secrets redacted, the working directory as ``<cwd>``, placeholder tags ignored) or ``order`` (method and path; the n-th request gets the n-th interaction).
Identical requests (a retry) get the recorded answers in their recorded order. A live
request whose bytes, with ``<cwd>`` put back, are those of a recorded body is that
body (already clean): it is found by a digest without running the redactor.

Given a clock, a response whose recording kept its times (``harness.cassette.timing``)
comes at that pace, times ``speed``: the headers, then each event when it came, the bytes
as recorded; on a virtual clock nothing waits, and a gap longer than the client's read
timeout ends in ReadTimeout, as it would have live (``harness.scenario.fake_api.transport``).

A mismatch is answered with a 400 ``invalid_request_error`` (and ``x-should-retry:
false``) whose message is the diff: an agent stops there instead of retrying, and says
why. Every mismatch is also kept in ``.mismatches``; ``replay_session`` raises the first,
the pytest fixture fails the test with them.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict, deque
from pathlib import Path
from typing import Any, Mapping, Sequence
from urllib.parse import urlsplit

import httpx2

from harness.cassette.diff import ReplayMismatch, body_diff, mismatch_response
from harness.cassette.matching import LiveBodies, api_path, body_digest
from harness.cassette.redaction.redact import RedactionError
from harness.cassette.scrub import Scrubber
from harness.scenario.fake_api.transport import plan_response
from harness.wire.cassette_file import read_cassette, response_body_bytes
from harness.wire.chunks import wire_response
from harness.wire.clock import VirtualClock
from harness.wire.plan import WirePlan
from harness.wire.recorded_pace import event_pieces, recorded_pace

_HOP_HEADERS = frozenset({"content-encoding", "content-length", "transfer-encoding", "connection"})


def _raw_digest(body: bytes | None) -> bytes:
    return hashlib.blake2b(body or b"", digest_size=16).digest()


Key = tuple[str, str, bytes]


def _route(request: Mapping[str, Any]) -> tuple[str, str]:
    return str(request.get("method", "GET")).upper(), api_path(urlsplit(str(request.get("uri", ""))).path)


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
        clock: VirtualClock | None = None,
        speed: float = 1.0,
    ) -> None:
        if match_on not in ("body", "order"):
            raise ValueError(f"match_on {match_on!r}: choose body or order")
        self.metadata: Mapping[str, Any] = {}  # vcrpy's metadata block (the cassette's age)
        if isinstance(cassette, (str, Path)):
            read = read_cassette(cassette)
            self.interactions: Sequence[Mapping[str, Any]] = read.interactions
            self.metadata = read.metadata
        else:
            self.interactions = cassette
        self.name = name or (str(cassette) if isinstance(cassette, (str, Path)) else "the cassette")
        self.match_on = match_on
        self.cwd = cwd
        self.clock = clock  # None: every answer at once
        self.speed = speed
        self.scrubber = Scrubber(cwd)
        self._live = LiveBodies(self.scrubber)
        self.played: list[int] = []  # the interaction index (from 0) each request got
        self.mismatches: list[ReplayMismatch] = []
        self._requests = 0
        self._used = [False] * len(self.interactions)
        self._routes = [_route(i["request"]) for i in self.interactions]
        self._by_key: dict[Key, deque[int]] = defaultdict(deque)
        # The same bytes have the same canonical JSON: a request sent exactly as recorded
        # (the usual case) finds its key by a digest of its bytes, without re-encoding.
        self._key_of_bytes: dict[Key, Key] = {}
        # Recorded bodies are keyed as stored: a cassette the harness wrote is scrubbed
        # already. When a request fits no key, they are scrubbed again, once (``_rescrub``).
        self._keys: list[Key] = []
        self._rescrubbed = match_on != "body"
        for index, interaction in enumerate(self.interactions if match_on == "body" else ()):
            body = _as_bytes(interaction["request"].get("body"))
            self._keys.append((*self._routes[index], body_digest(body)))
            self._by_key[self._keys[index]].append(index)
            self._key_of_bytes[(*self._routes[index], _raw_digest(body))] = self._keys[index]

    @property
    def unused(self) -> list[int]:
        """Interactions (numbered from 1) that no request got."""
        return [n + 1 for n, used in enumerate(self._used) if not used]

    def take(self, method: str, path: str, content: bytes) -> int:
        """The interaction answering this request (marked used), or raise ReplayMismatch."""
        self._requests += 1
        route = (method.upper(), api_path(path))
        if self.match_on == "order":
            index = len(self.played)
            if index >= len(self.interactions) or self._routes[index] != route:
                raise self._mismatch(route, self._live_form(content), index if index < len(self.interactions) else None)
        else:
            key = self._key_of_bytes.get((*route, _raw_digest(self.scrubber.with_cwd(content))))
            if key is None:
                key = (*route, self._live_digest(content))
            if not self._by_key.get(key) and not self._rescrubbed:
                self._rescrub()
            candidates = self._by_key.get(key)
            if not candidates:
                raise self._mismatch(route, self._live_form(content), self._expected(route))
            index = candidates.popleft()
        self._used[index] = True
        self.played.append(index)
        return index

    def _rescrub(self) -> None:
        """Key each recorded body by its scrubbed form where that differs from what is
        stored (a cassette written by hand, or before a rule existed)."""
        self._rescrubbed = True
        for index, interaction in enumerate(self.interactions):
            stored = _as_bytes(interaction["request"].get("body"))
            body = _recorded_form(self.scrubber, stored)
            old, new = self._keys[index], (*self._routes[index], body_digest(body))
            if new == old:
                continue
            if not self._used[index]:
                self._by_key[old].remove(index)
                self._by_key[new] = deque(sorted([*self._by_key[new], index]))
            self._keys[index] = new
            self._key_of_bytes[(*self._routes[index], _raw_digest(stored))] = new
            self._key_of_bytes[(*self._routes[index], _raw_digest(body))] = new

    def _live_digest(self, content: bytes) -> bytes:
        try:
            return self._live.digest(content)
        except RedactionError:
            return body_digest(self._live_form(content))

    def _live_form(self, content: bytes) -> bytes | None:
        """The live body scrubbed as a recording would be; one that cannot be redacted
        safely is not shown (a mismatch message must not carry a secret)."""
        try:
            return self.scrubber.body(content)
        except RedactionError as error:
            return f"(a body that cannot be redacted safely, not shown: {error})".encode()

    def response(self, index: int, request: httpx2.Request | None = None) -> httpx2.Response:
        """The recorded response of interaction ``index`` as the client would have read it
        (``wire_response``), at its recorded pace when the index has a clock and
        ``request`` (for its read timeout) is given."""
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
        pace = recorded_pace(recorded, speed=self.speed) if self.clock is not None and request is not None else None
        if pace is None or request is None or self.clock is None:
            return wire_response(code, headers, response_body_bytes(recorded), extensions=extensions)
        pieces = event_pieces(response_body_bytes(recorded))
        head_delay, delays = pace.waits(len(pieces))
        return plan_response(WirePlan(code, dict(headers), pieces, delays, head_delay=head_delay), request, self.clock)

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
                + body_diff(_recorded_form(self.scrubber, _as_bytes(recorded.get("body"))), body)
            )
        mismatch = ReplayMismatch(text)
        self.mismatches.append(mismatch)
        return mismatch


def _as_bytes(body: bytes | str | None) -> bytes | None:
    return body.encode("utf-8") if isinstance(body, str) else body


def _recorded_form(scrubber: Scrubber, stored: bytes | None) -> bytes | None:
    """A recorded body scrubbed again (a cassette written by an older harness, or by
    hand, may hold what this one redacts); the working directory is already ``<cwd>``."""
    try:
        return scrubber.body(stored, cwd=False)
    except RedactionError as error:
        return f"(a recorded body that cannot be redacted safely, not shown: {error})".encode()


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
    def clock(self) -> VirtualClock | None:
        """The replay's clock (an SDK client on this transport waits between retries on it)."""
        return self.index.clock

    @property
    def mismatches(self) -> list[ReplayMismatch]:
        return self.index.mismatches

    @property
    def unused(self) -> list[int]:
        return self.index.unused

    def _answer(self, request: httpx2.Request, content: bytes) -> httpx2.Response:
        try:
            return self.index.response(self.index.take(request.method, request.url.path, content), request)
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
