"""SDK clients wired to a scenario's fake API, sync and async.

``sync_client`` / ``async_client`` turn the SDK's own retries off (an agent that retries
by itself, like mini_agent). ``scenario_clients`` hands out what a user's production
client would be — the SDK's default ``max_retries`` — with one change: the SDK's wait
between its own retries runs on the virtual clock. The SDK computes the wait as it
always does (``retry-after-ms``, ``retry-after``, its backoff and jitter); only the
``time.sleep`` / ``anyio.sleep`` at the end of ``_sleep_for_retry`` becomes the clock's
sleep, so the waits show as sleeps in the timeline and nothing really waits. This is
the one place where the harness reaches into the SDK; ``check_sdk_retry_hook`` fails
loudly should a future SDK rename the method.
"""

from __future__ import annotations

from typing import Any

import anthropic
import httpx2

from harness.scenario.fake_api.transport import (
    AsyncScenarioTransport,
    ScenarioTransport,
)
from harness.wire.clock import VirtualClock

TEST_API_KEY = "harness-test-key"
SDK_DEFAULT_RETRIES = anthropic.DEFAULT_MAX_RETRIES


def sync_client(transport: ScenarioTransport, *, api_key: str = TEST_API_KEY) -> anthropic.Anthropic:
    """An SDK client whose every request goes to ``transport``; SDK retries off."""
    return anthropic.Anthropic(api_key=api_key, max_retries=0, http_client=httpx2.Client(transport=transport))


def async_client(transport: AsyncScenarioTransport, *, api_key: str = TEST_API_KEY) -> anthropic.AsyncAnthropic:
    """The async twin of ``sync_client``."""
    return anthropic.AsyncAnthropic(
        api_key=api_key, max_retries=0, http_client=httpx2.AsyncClient(transport=transport)
    )


def scenario_clients(
    transport: ScenarioTransport, *, api_key: str = TEST_API_KEY, max_retries: int = SDK_DEFAULT_RETRIES
) -> tuple[anthropic.Anthropic, anthropic.AsyncAnthropic]:
    """A sync and an async client on ``transport``'s responder, SDK retries on (their
    waits on the transport's virtual clock)."""
    check_sdk_retry_hook()
    clock = transport.clock
    sync_class = _on_clock(anthropic.Anthropic, clock)
    async_class = _on_clock(anthropic.AsyncAnthropic, clock)
    return (
        sync_class(api_key=api_key, max_retries=max_retries, http_client=httpx2.Client(transport=transport)),
        async_class(
            api_key=api_key, max_retries=max_retries,
            http_client=httpx2.AsyncClient(transport=AsyncScenarioTransport(transport.responder)),
        ),
    )


def check_sdk_retry_hook() -> None:
    """The SDK still waits between its retries in ``_sleep_for_retry`` and computes the
    wait in ``_calculate_retry_timeout``; RuntimeError, naming them, if not."""
    for cls in (anthropic.Anthropic, anthropic.AsyncAnthropic):
        for name in ("_sleep_for_retry", "_calculate_retry_timeout"):
            if not callable(getattr(cls, name, None)):
                raise RuntimeError(
                    f"this anthropic SDK ({anthropic.__version__}) has no {cls.__name__}.{name}: its own retries "
                    "cannot be put on the virtual clock; build the client with max_retries=0"
                )


def _on_clock(cls: type, clock: VirtualClock) -> type:
    """A subclass of an SDK client class whose retry waits are the clock's sleeps; copies
    made by ``with_options`` keep the class, so they keep the clock."""
    if issubclass(cls, anthropic.AsyncAnthropic):

        async def async_wait(self: Any, *, retries_taken: int, max_retries: int, options: Any, response: Any) -> None:
            headers = response.headers if response is not None else None
            await clock.async_sleep(self._calculate_retry_timeout(max_retries - retries_taken, options, headers))

        return type(f"{cls.__name__}OnVirtualTime", (cls,), {"_sleep_for_retry": async_wait, "__module__": __name__})

    def wait(self: Any, *, retries_taken: int, max_retries: int, options: Any, response: Any) -> None:
        headers = response.headers if response is not None else None
        clock.sleep(self._calculate_retry_timeout(max_retries - retries_taken, options, headers))

    return type(f"{cls.__name__}OnVirtualTime", (cls,), {"_sleep_for_retry": wait, "__module__": __name__})
