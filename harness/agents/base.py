"""What the harness drives: any object with ``run_turn(text)``, built by a factory.

A factory takes the SDK client wired to the scenario, the clock (virtual in process)
and the workspace folder, and returns the agent under test. The harness decides from
the wire; ``run_turn`` may also stream events (a generator or an async generator):

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

from pathlib import Path
from typing import Any, Callable, Protocol

import anthropic

from harness.wire.clock import VirtualClock


class AgentUnderTest(Protocol):
    """What the harness drives: one user line in, whatever the agent does out."""

    def run_turn(self, text: str) -> Any: ...


AgentFactory = Callable[[anthropic.Anthropic, VirtualClock, Path], AgentUnderTest]
