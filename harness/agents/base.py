"""What the harness drives: any object with ``run_turn(text)``, built by a factory.

A factory takes the SDK client wired to the scenario, the clock (virtual in process)
and the workspace folder, and returns the agent under test. ``run_turn`` may return
events (mini_agent's do); the harness decides from the wire.

Optional, for agents that have them (mini_agent's adapter does):
- ``command(line) -> str | None``: a REPL command answered without a turn (``/status``);
- ``renderer()``: an object with ``render(event) -> str`` and ``render_close() -> str``,
  for a transcript of the turn as a terminal would show it.
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
