"""What an agent factory is given: one context object per scenario run.

    def make_agent(ctx: AgentContext) -> MyAgent:
        return MyAgent(ctx.client, workspace=ctx.workspace, sleep=ctx.sleep)

The clients are wired to the scenario's fake API and keep the SDK's default
``max_retries``, as a production client would; their waits between retries run on the
virtual clock. An agent that retries by itself turns them off:
``ctx.client.with_options(max_retries=0)``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

import anthropic
import httpx2

from harness.wire.clock import RealClock, VirtualClock


@dataclass(frozen=True)
class AgentContext:
    """Everything an agent under test may use.

    ``client`` / ``async_client``: SDK clients wired to the scenario. ``base_url`` and
    ``api_key``: the same scenario served on a loopback socket, for an agent that builds
    its own HTTP client (time on the socket is real: waits there really wait).
    ``workspace``: a fresh folder with the scenario's files, the tools' working
    directory. ``clock``: virtual time (``sleep``, ``async_sleep``, ``now``, ``wall``).
    ``settings``: the scenario's ``settings:`` (``max_retries`` …), read-only, for agents
    that can honour them. ``http_client`` / ``async_http_client``: httpx2 clients on the
    scenario (on a replayed cassette: on the cassette; none while recording), for an agent that builds its
    own SDK client in process (the SDK's waits between its own retries on them run on the
    virtual clock too), or speaks HTTP itself (httpx2 has httpx's API).
    """

    client: anthropic.Anthropic
    async_client: anthropic.AsyncAnthropic
    workspace: Path
    clock: VirtualClock | RealClock
    api_key: str
    settings: Mapping[str, Any] = field(default_factory=dict)
    http_client: httpx2.Client | None = None
    async_http_client: httpx2.AsyncClient | None = None
    start_loopback: Callable[[], str] | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "settings", MappingProxyType(dict(self.settings)))

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT``: the scenario on a real socket, started on first use."""
        if self.start_loopback is None:
            raise RuntimeError("this run has no loopback server: use ctx.client or ctx.async_client")
        return self.start_loopback()

    @property
    def sleep(self) -> Callable[[float], None]:
        """Wait on the virtual clock (returns at once; the wait is recorded)."""
        return self.clock.sleep

    @property
    def async_sleep(self) -> Callable[[float], Awaitable[None]]:
        """The async twin of ``sleep``."""
        return self.clock.async_sleep

    @property
    def now(self) -> Callable[[], float]:
        """Monotonic virtual seconds."""
        return self.clock.now

    @property
    def wall(self) -> Callable[[], float]:
        """The Unix time that matches ``now()`` (to read an HTTP-date ``retry-after``)."""
        return self.clock.wall
