"""What a scenario run produced: a record per turn and the outcome of the whole run.

The runner fills these in; the invariants, the expectations and the timeline read them.
A turn's events are what its agent yielded; they are read only as the harness's own
event types (``harness.agents.events``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, TypeVar

from harness.agents.events import Event, TurnEnd
from harness.scenario.fake_api.exchange import Exchange
from harness.scenario.fake_api.tool_map import ToolMap
from harness.scenario.format.model import Scenario
from harness.scenario.format.problem import Problem
from harness.wire.clock import EPOCH_ORIGIN

E = TypeVar("E", bound=Event)


@dataclass
class TurnResult:
    """What one turn did: its events with their virtual times, its requests, how it ended."""

    number: int
    user: str
    label: str
    events: list[tuple[float, int, Any]] = field(default_factory=list)
    requests: list[Exchange] = field(default_factory=list)  # the scenario's conversation
    side_requests: list[Exchange] = field(default_factory=list)  # the agent's side requests (``side_requests``)
    unused_replies: int = 0
    raised: str | None = None
    cancelled: bool = False  # Ctrl+C cancelled an async turn, which let the cancellation through (asyncio's rule)
    interrupted: bool = False
    closed: bool = False  # the runner closed the turn's generator: no TurnEnd can follow
    command: bool = False  # a REPL command (/status): answered without a turn
    first_mark: int = 0
    last_mark: int = 0

    @property
    def end(self) -> str | None:
        """The reason of the turn's TurnEnd event, if it sent one."""
        ends = self.of_type(TurnEnd)
        return ends[-1].reason if ends else None

    def of_type(self, kind: type[E]) -> list[E]:
        """The turn's events of one harness event type."""
        return [e for _, _, e in self.events if isinstance(e, kind)]

    @property
    def shows_events(self) -> bool:
        """Whether the agent reported anything the harness can read (a harness event)."""
        return bool(self.of_type(Event))


@dataclass
class Outcome:
    """Everything a scenario run produced."""

    scenario: Scenario
    turns: list[TurnResult]
    requests: list[Exchange]
    sleeps: list[tuple[float, int, float]]
    history: list[dict[str, Any]] | None
    files: dict[str, str | None]
    transcript: str
    max_retries: int | None
    virtual_seconds: float = 0.0
    problems: list[Problem] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # reported, not failed: an agent's own choices
    not_checked: list[str] = field(default_factory=list)  # expectations this agent cannot show
    agent_name: str | None = None  # "mini_agent" for the reference agent's adapter
    wall_origin: float = EPOCH_ORIGIN  # the Unix time the run's virtual clock started at
    tool_map: ToolMap = field(default_factory=ToolMap)
    skipped: str | None = None  # why the scenario did not run for this agent
    not_applicable: str | None = None  # why the scenario says nothing about this agent (a tool it lacks …)
    policies: dict[str, Any] = field(default_factory=dict)  # what the agent declares it follows (``checks.policies``)

    @property
    def passed(self) -> bool:
        """No problem (a scenario that is not applicable has none: what it found is moot)."""
        return not self.problems
