"""What the harness drives: any object with ``run_turn(text)``, built by a factory.

A factory takes the run's ``AgentContext`` (``context``: the SDK clients wired to the
scenario, a loopback ``base_url``, the workspace, the virtual clock, the scenario's
settings) and returns the agent under test; it may be an ``async def``::

    def make_agent(ctx: AgentContext) -> MyAgent:
        return MyAgent(ctx.client, cwd=ctx.workspace, sleep=ctx.sleep)

``run_turn`` may be a plain method, an ``async def``, a generator of events or an async
generator (mini_agent's yields events); the harness decides from the wire.

Optional, for agents that have them (mini_agent's adapter does):
- ``command(line) -> str | None``: a REPL command answered without a turn (``/status``);
- ``renderer()``: an object with ``render(event) -> str`` and ``render_close() -> str``,
  for a transcript of the turn as a terminal would show it.
"""

from __future__ import annotations

from collections.abc import Awaitable
from typing import Any, Callable, Protocol, Union

from harness.agents.context import AgentContext


class AgentUnderTest(Protocol):
    """What the harness drives: one user line in, whatever the agent does out."""

    def run_turn(self, text: str) -> Any: ...


AgentFactory = Callable[[AgentContext], Union[AgentUnderTest, Awaitable[AgentUnderTest]]]
"""Builds the agent under test from the run's context, sync or ``async def``."""
