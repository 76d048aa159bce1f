"""Shared fixtures: mini_agent wired to an in-process fake API on a virtual clock."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable

import httpcore2  # noqa: F401 -- loaded before pytester's in-process runs snapshot sys.modules
import pytest
import vcr  # noqa: F401 -- likewise: a copy imported inside a run would not match httpx2's exception map

from harness.agents.context import AgentContext
from harness.agents.mini_agent import mini_agent_factory
from harness.scenario.fake_api.clients import TEST_API_KEY, async_client, sync_client
from harness.scenario.fake_api.transport import (
    AsyncScenarioTransport,
    ScenarioTransport,
)
from harness.wire.replies import Reply
from mini_agent.events import Notice, ToolResult, TurnEnd
from mini_agent.loop import Agent
from mini_agent.settings import Settings


@dataclass
class AgentRun:
    """An agent, its fake API and what each turn yielded."""

    agent: Agent
    transport: ScenarioTransport
    turns: list[list[Any]] = field(default_factory=list)

    def turn(self, text: str) -> list[Any]:
        events = list(self.agent.run_turn(text))
        self.turns.append(events)
        return events

    @property
    def sleeps(self) -> list[float]:
        return self.transport.clock.sleeps

    @property
    def bodies(self) -> list[Any]:
        return [r.body for r in self.transport.requests]

    def notices(self, turn: int = -1) -> list[str]:
        return [e.text for e in self.turns[turn] if isinstance(e, Notice)]

    def end(self, turn: int = -1) -> str:
        ends = [e.reason for e in self.turns[turn] if isinstance(e, TurnEnd)]
        assert len(ends) == 1, f"expected one TurnEnd, got {ends}"
        return ends[0]

    def tool_results(self, turn: int = -1) -> list[ToolResult]:
        return [e for e in self.turns[turn] if isinstance(e, ToolResult)]


@pytest.fixture
def agent_with(tmp_path: Path) -> Callable[..., AgentRun]:
    """``agent_with(replies, settings=…)``: mini_agent answering from ``replies``."""

    def build(replies: Iterable[Reply], *, settings: Settings = Settings(), **factory_options: Any) -> AgentRun:
        transport = ScenarioTransport(replies)
        clients = sync_client(transport), async_client(AsyncScenarioTransport(transport.responder))
        agent = mini_agent_factory(settings, **factory_options)(AgentContext(*clients, tmp_path, transport.clock, TEST_API_KEY))
        return AgentRun(agent.agent, transport)  # mini_agent itself: its own events

    return build


@pytest.fixture(autouse=True)
def _as_on_a_developers_machine(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test starts outside CI, whatever machine runs the suite: the defaults that
    follow ``CI`` (record mode, cassette age) are what a test about CI sets itself."""
    monkeypatch.delenv("CI", raising=False)
