"""Replaying vcrpy-format cassettes offline, at the HTTP level.

    CassetteTransport, AsyncCassetteTransport   the harness's own replay: an index built
                                                once, then O(1) per request (vcrpy matches
                                                every request against every interaction)
    VcrGuard, AsyncVcrGuard                     wrap the httpx2.HTTPTransport that vcrpy
                                                patches, and turn its "not in the cassette"
                                                into a ReplayMismatch with a body diff
    block_network()                             no socket may connect while it is active

Matching is ``body`` (method, path and JSON body, compared after ``harness.cassette.scrub``
normalised both: secrets redacted, the working directory as ``<cwd>``) or ``order``
(method and path; the n-th request gets the n-th interaction). Identical requests (a
retry) get the recorded answers in their recorded order.

A mismatch is answered with a 400 ``invalid_request_error`` (and ``x-should-retry:
false``) whose message is the diff: an agent stops there instead of retrying, and says
why. Every mismatch is also kept in ``.mismatches``; ``replay_session`` raises the first,
the pytest fixture fails the test with them.

Errors::

    AssertionError
     └── ReplayMismatch   a request that is not the recorded one; the message diffs the bodies
    RuntimeError
     └── NetworkBlocked   something tried to open a connection during a replay
"""

from __future__ import annotations

import difflib
import functools
import hashlib
import json
import socket
from collections import defaultdict, deque
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator, Mapping, Sequence
from urllib.parse import urlsplit

import httpx2

from harness.wire import json_body
from harness.cassette.file import load_cassette, response_body_bytes
from harness.cassette.scrub import scrub_body

MAX_DIFF_LINES = 60
MAX_LINE = 240
_HOP_HEADERS = frozenset({"content-encoding", "content-length", "transfer-encoding", "connection"})


class ReplayMismatch(AssertionError):
    """A request the cassette does not hold (or not at this point); ``str()`` says which
    recorded interaction was expected and diffs the two bodies."""


class NetworkBlocked(RuntimeError):
    """A connection attempted while the network is blocked."""


# -- diffs ------------------------------------------------------------------------------


def body_diff(recorded: bytes | str | None, sent: bytes | str | None) -> str:
    """A unified diff of two request bodies, JSON pretty-printed with sorted keys; long
    lines are cut around their first difference."""
    old, new = _pretty(recorded).splitlines(), _pretty(sent).splitlines()
    if old == new:
        return "(the bodies are the same)"
    diff = list(difflib.unified_diff(old, new, "recorded", "this request", n=2, lineterm=""))
    diff = _clip(diff)
    if len(diff) > MAX_DIFF_LINES:
        diff = diff[:MAX_DIFF_LINES] + [f"… ({len(diff) - MAX_DIFF_LINES} more diff lines)"]
    return "\n".join(diff)


def _pretty(body: bytes | str | None) -> str:
    if body is None:
        return ""
    text = body.decode("utf-8", "replace") if isinstance(body, (bytes, bytearray)) else str(body)
    try:
        return json.dumps(json.loads(text), indent=2, sort_keys=True, ensure_ascii=False)
    except ValueError:
        return text


def _clip(diff: list[str]) -> list[str]:
    """Long removed/added line pairs shown around where they differ; other long lines cut."""
    out = list(diff)
    i = 0
    while i < len(out):
        if out[i].startswith("-") and not out[i].startswith("---"):
            minus = i
            while i < len(out) and out[i].startswith("-"):
                i += 1
            plus = i
            while i < len(out) and out[i].startswith("+") and not out[i].startswith("+++"):
                i += 1
            for a, b in zip(range(minus, plus), range(plus, i)):
                out[a], out[b] = _around_difference(out[a], out[b])
            continue
        i += 1
    return [line if len(line) <= MAX_LINE else line[: MAX_LINE - 1] + "…" for line in out]


def _around_difference(a: str, b: str) -> tuple[str, str]:
    if len(a) <= MAX_LINE and len(b) <= MAX_LINE:
        return a, b
    first = next((k for k, (x, y) in enumerate(zip(a, b)) if k and x != y), min(len(a), len(b)))  # after the -/+
    start = max(1, first - 80)

    def cut(line: str) -> str:
        piece = line[start : start + MAX_LINE - 40]
        return line[0] + ("…" if start > 1 else "") + piece + ("…" if start + MAX_LINE - 40 < len(line) else "")

    return cut(a), cut(b)


# -- the index ------------------------------------------------------------------------------


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
        """The recorded response of interaction ``index`` as the client would have read it."""
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
        return httpx2.Response(
            code, headers=headers, stream=httpx2.ByteStream(response_body_bytes(recorded)), extensions=extensions
        )

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


def mismatch_response(mismatch: ReplayMismatch) -> httpx2.Response:
    """What the client gets for a request the cassette cannot answer: a 400 that says why."""
    message = f"harness replay: {mismatch}"
    body = {"type": "error", "error": {"type": "invalid_request_error", "message": message}}
    return httpx2.Response(400, headers={"x-should-retry": "false"}, json=body)


# -- vcrpy ------------------------------------------------------------------------------------


@functools.cache
def _ssl_context() -> Any:
    """httpx2's default SSL context, built once: it costs 0.1 s (the CA bundle) per transport."""
    return httpx2.create_ssl_context()


class _GuardBase:
    def __init__(self) -> None:
        self.mismatches: list[ReplayMismatch] = []
        self.requests = 0

    def _translate(self, error: Exception) -> ReplayMismatch:
        mismatch = mismatch_from_vcr(error, self.requests)
        self.mismatches.append(mismatch)
        return mismatch


class VcrGuard(_GuardBase, httpx2.BaseTransport):
    """``httpx2.HTTPTransport`` (patched by vcrpy while a cassette is in use) whose
    "cannot play this request" becomes a ReplayMismatch with a body diff, answered as a 400."""

    def __init__(self, transport: httpx2.BaseTransport | None = None) -> None:
        super().__init__()
        self.transport = transport or httpx2.HTTPTransport(verify=_ssl_context())

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        from vcr.errors import CannotOverwriteExistingCassetteException

        self.requests += 1
        try:
            return self.transport.handle_request(request)
        except CannotOverwriteExistingCassetteException as error:
            return mismatch_response(self._translate(error))

    def close(self) -> None:
        self.transport.close()


class AsyncVcrGuard(_GuardBase, httpx2.AsyncBaseTransport):
    """The async twin of VcrGuard, over ``httpx2.AsyncHTTPTransport``."""

    def __init__(self, transport: httpx2.AsyncBaseTransport | None = None) -> None:
        super().__init__()
        self.transport = transport or httpx2.AsyncHTTPTransport(verify=_ssl_context())

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        from vcr.errors import CannotOverwriteExistingCassetteException

        self.requests += 1
        try:
            return await self.transport.handle_async_request(request)
        except CannotOverwriteExistingCassetteException as error:
            return mismatch_response(self._translate(error))

    async def aclose(self) -> None:
        await self.transport.aclose()


def mismatch_from_vcr(error: Any, number: int) -> ReplayMismatch:
    """vcrpy's CannotOverwriteExistingCassetteException as a ReplayMismatch that diffs the
    request against the first unplayed recorded one on the same route."""
    cassette, failed = error.cassette, error.failed_request
    where = f"{cassette._path} (record mode {getattr(cassette.record_mode, 'value', cassette.record_mode)})"
    if failed is None or getattr(error, "reason", "") == "cassette_not_found":
        return ReplayMismatch(f"request {number}: cannot replay: {where} does not exist or holds nothing")
    failed = cassette.filter_request(failed) or failed
    head = f"request {number} ({failed.method} {failed.path}) does not match {where}"
    unplayed = [n for n in range(len(cassette.data)) if not cassette.play_counts[n]]
    same = [n for n in unplayed if (cassette.data[n][0].method, cassette.data[n][0].path) == (failed.method, failed.path)]
    expected = (same or unplayed or [None])[0]
    if expected is None:
        return ReplayMismatch(f"{head}: all {len(cassette.data)} recorded interactions have been played")
    recorded = cassette.data[expected][0]
    return ReplayMismatch(
        f"{head}\nexpected interaction {expected + 1} of {len(cassette.data)}: {recorded.method} {recorded.uri}\n"
        + body_diff(recorded.body, failed.body)
    )


# -- the network ----------------------------------------------------------------------------


@contextmanager
def block_network() -> Iterator[list[Any]]:
    """While active, any TCP/UDP connect raises NetworkBlocked; yields the list of
    addresses that were attempted (Unix sockets stay allowed)."""
    attempts: list[Any] = []
    real_connect, real_connect_ex = socket.socket.connect, socket.socket.connect_ex

    def refuse(sock: socket.socket, address: Any) -> None:
        if sock.family in (socket.AF_INET, socket.AF_INET6):
            attempts.append(address)
            raise NetworkBlocked(f"network access is blocked during replay (connect to {address})")

    def connect(sock: socket.socket, address: Any) -> None:
        refuse(sock, address)
        return real_connect(sock, address)

    def connect_ex(sock: socket.socket, address: Any) -> int:
        refuse(sock, address)
        return real_connect_ex(sock, address)

    socket.socket.connect, socket.socket.connect_ex = connect, connect_ex  # type: ignore[method-assign]
    try:
        yield attempts
    finally:
        socket.socket.connect, socket.socket.connect_ex = real_connect, real_connect_ex  # type: ignore[method-assign]
