"""Putting an agent under test: a factory takes the SDK client, the virtual clock and
the workspace, and returns anything with ``run_turn(text) -> Iterable[event]``."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any, Callable, Iterable, Protocol

import anthropic

from mini_agent.loop import Agent
from mini_agent.settings import Settings
from mini_agent.tools import Tool

from harness.wire.clock import VirtualClock


class AgentUnderTest(Protocol):
    """What the harness drives: one user line in, events out."""

    def run_turn(self, text: str) -> Iterable[Any]: ...


AgentFactory = Callable[[anthropic.Anthropic, VirtualClock, Path], AgentUnderTest]


def mini_agent_factory(
    settings: Settings = Settings(),
    *,
    seed: int = 0,
    tools: list[Tool] | None = None,
    agent_class: type[Agent] = Agent,
    settings_sources: dict[str, str] | None = None,
) -> AgentFactory:
    """The built-in adapter: mini_agent on the virtual clock, with seeded jitter
    (``tools`` and ``agent_class`` let a test swap in its own tools or subclass)."""

    def build(client: anthropic.Anthropic, clock: VirtualClock, workspace: Path) -> Agent:
        return agent_class(
            client,
            settings=settings,
            cwd=workspace,
            sleep=clock.sleep,
            clock=clock.now,
            wall_clock=clock.wall,
            rand=random.Random(seed).random,
            tools=tools,
            session_id="harness",
            settings_sources=settings_sources,
        )

    return build
