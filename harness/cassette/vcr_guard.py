"""vcrpy's replay and recording, guarded: ``VcrGuard`` and ``AsyncVcrGuard`` wrap the
httpx2 transport that vcrpy patches and turn its "not in the cassette" into a
ReplayMismatch with a body diff, answered as a 400; a body the scrubber cannot redact
safely (``RedactionError``) is answered with a 400 too, so the agent stops there and the
recording can end without writing it."""

from __future__ import annotations

import functools
from typing import Any

import httpx2

from harness.cassette.diff import ReplayMismatch, body_diff, mismatch_response, refusal
from harness.cassette.redaction.redact import RedactionError

STOPPED = "harness record: the recording stops, nothing is written: "


@functools.cache
def _ssl_context() -> Any:
    """httpx2's default SSL context, built once: it costs 0.1 s (the CA bundle) per transport."""
    return httpx2.create_ssl_context()


class _GuardBase:
    def __init__(self, clock: Any = None) -> None:
        self.clock = clock  # a VirtualClock: an SDK client on this transport waits between retries on it
        self.mismatches: list[ReplayMismatch] = []
        self.requests = 0
        self.answered = 0  # requests that got a response, recorded or replayed
        self.failures: list[str] = []  # why the others got none: "ConnectError: … (POST http://…)"

    def _failed(self, request: httpx2.Request, error: Exception) -> None:
        self.failures.append(f"{type(error).__name__}: {error} ({request.method} {request.url})")

    def _translate(self, error: Exception) -> ReplayMismatch:
        mismatch = mismatch_from_vcr(error, self.requests)
        self.mismatches.append(mismatch)
        return mismatch


class VcrGuard(_GuardBase, httpx2.BaseTransport):
    """``httpx2.HTTPTransport`` (patched by vcrpy while a cassette is in use) whose
    "cannot play this request" becomes a ReplayMismatch with a body diff, answered as a 400."""

    def __init__(self, transport: httpx2.BaseTransport | None = None, *, clock: Any = None) -> None:
        super().__init__(clock)
        self.transport = transport or httpx2.HTTPTransport(verify=_ssl_context())

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        from vcr.errors import CannotOverwriteExistingCassetteException

        self.requests += 1
        try:
            response = self.transport.handle_request(request)
        except CannotOverwriteExistingCassetteException as error:
            return mismatch_response(self._translate(error))
        except RedactionError as error:
            return refusal(STOPPED + str(error))
        except Exception as error:
            self._failed(request, error)
            raise
        self.answered += 1
        return response

    def close(self) -> None:
        self.transport.close()


class AsyncVcrGuard(_GuardBase, httpx2.AsyncBaseTransport):
    """The async twin of VcrGuard, over ``httpx2.AsyncHTTPTransport``."""

    def __init__(self, transport: httpx2.AsyncBaseTransport | None = None, *, clock: Any = None) -> None:
        super().__init__(clock)
        self.transport = transport or httpx2.AsyncHTTPTransport(verify=_ssl_context())

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        from vcr.errors import CannotOverwriteExistingCassetteException

        self.requests += 1
        try:
            response = await self.transport.handle_async_request(request)
        except CannotOverwriteExistingCassetteException as error:
            return mismatch_response(self._translate(error))
        except RedactionError as error:
            return refusal(STOPPED + str(error))
        except Exception as error:
            self._failed(request, error)
            raise
        self.answered += 1
        return response

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
