"""What the harness drives: any object with ``run_turn(text)``, built by a factory.

A factory takes the run's ``AgentContext`` (``context``: the SDK clients wired to the
scenario, a loopback ``base_url``, the workspace, the virtual clock, the scenario's
settings) and returns the agent under test; it may be an ``async def``::

    def make_agent(ctx: AgentContext) -> MyAgent:
        return MyAgent(ctx.client, cwd=ctx.workspace, sleep=ctx.sleep)

``run_turn`` may be a plain method, an ``async def``, a generator of events or an async
generator (mini_agent's yields events); the harness decides from the wire.

What a turn streams:

- the events the harness reads are its own types, ``harness.agents.events`` (``Notice``,
  ``TextDelta``, ``ThinkingDelta``, ``ToolCall``, ``ToolResult``, ``MessageDone``,
  ``TurnEnd``); an agent yields them, or its adapter translates the agent's own events
  into them (``harness.agents.mini_agent`` does, with ``TranslatedEvents``);
- anything else a turn yields counts as an event (``interrupt: {at_event: k}`` counts
  every item) but is never read as a notice, a tool call or a turn end;
- the harness presses Ctrl+C by throwing ``KeyboardInterrupt`` into the turn's
  generator, and closes it for ``interrupt: {close: true}``: an adapter passes both
  through to the agent's own turn (``TranslatedEvents`` does).

Optional, for agents that have them (mini_agent's adapter does):
- ``command(line) -> str | None``: a REPL command answered without a turn (``/status``);
- ``renderer()``: an object with ``render(event) -> str`` and ``render_close() -> str``,
  fed the same events as the turn yields, for a transcript as a terminal would show it.
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
