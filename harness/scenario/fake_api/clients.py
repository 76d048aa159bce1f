"""SDK clients wired to a scenario's fake API, sync and async.

``sync_client`` / ``async_client`` turn the SDK's own retries off (an agent that retries
by itself, like mini_agent). ``scenario_clients`` hands out what a user's production
client would be: the SDK's default ``max_retries``.

Any SDK client whose HTTP client sends to a transport on a virtual clock (a scenario's:
these, and the ones an agent builds for itself on ``ctx.http_client``; a replayed
cassette's) waits between its own retries on that clock. The SDK computes the wait as it always does
(``retry-after-ms``, ``retry-after``, its backoff and jitter); only the ``time.sleep`` /
``anyio.sleep`` at the end of ``_sleep_for_retry`` becomes the clock's sleep, so the waits
show as sleeps in the timeline and nothing really waits. Clients on any other transport
are untouched. This is the one place where the harness reaches into the SDK;
``check_sdk_retry_hook`` fails loudly should a future SDK rename the method.
"""

from __future__ import annotations

import threading
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
    sdk_waits_on_scenario_clocks()
    return (
        anthropic.Anthropic(api_key=api_key, max_retries=max_retries, http_client=httpx2.Client(transport=transport)),
        anthropic.AsyncAnthropic(
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


def sdk_waits_on_scenario_clocks() -> None:
    """From now on, in this process, an SDK client on a scenario's transport waits
    between its own retries on the scenario's clock (once; clients on other transports
    keep the SDK's own wait)."""
    with _INSTALLING:
        if not getattr(_defining(anthropic.Anthropic)._sleep_for_retry, "on_scenario_clocks", False):
            _install()


_INSTALLING = threading.Lock()


def _install() -> None:
    check_sdk_retry_hook()
    sync_base, async_base = _defining(anthropic.Anthropic), _defining(anthropic.AsyncAnthropic)
    real_wait, real_async_wait = sync_base._sleep_for_retry, async_base._sleep_for_retry

    def wait(self: Any, *, retries_taken: int, max_retries: int, options: Any, response: Any) -> None:
        clock = _scenario_clock(self)
        if clock is None:
            return real_wait(self, retries_taken=retries_taken, max_retries=max_retries, options=options, response=response)
        headers = response.headers if response is not None else None
        clock.sleep(self._calculate_retry_timeout(max_retries - retries_taken, options, headers))

    async def async_wait(self: Any, *, retries_taken: int, max_retries: int, options: Any, response: Any) -> None:
        clock = _scenario_clock(self)
        if clock is None:
            return await real_async_wait(self, retries_taken=retries_taken, max_retries=max_retries, options=options,
                                         response=response)
        headers = response.headers if response is not None else None
        await clock.async_sleep(self._calculate_retry_timeout(max_retries - retries_taken, options, headers))

    wait.on_scenario_clocks = async_wait.on_scenario_clocks = True  # type: ignore[attr-defined]
    sync_base._sleep_for_retry, async_base._sleep_for_retry = wait, async_wait


def _defining(cls: type) -> type:
    """The class of ``cls``'s line that defines ``_sleep_for_retry``."""
    return next(base for base in cls.__mro__ if "_sleep_for_retry" in vars(base))


def _scenario_clock(sdk_client: Any) -> VirtualClock | None:
    """The virtual clock of the transport ``sdk_client`` sends to (a scenario's, a
    replay's), if it has one."""
    transport = getattr(getattr(sdk_client, "_client", None), "_transport", None)
    clock = getattr(transport, "clock", None)
    return clock if isinstance(clock, VirtualClock) else None
