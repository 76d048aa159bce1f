"""A scenario's replies served to any client a test builds (sync or async), with the
wire-level invariants and request counts checked afterwards: the way to test an agent
that is not mini_agent without writing an adapter."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import anthropic

from harness.scenario.checks.budgets import budget_problems
from harness.scenario.checks.invariants import run_invariants, wire_invariants
from harness.scenario.fake_api.clients import (
    async_client,
    sdk_waits_on_scenario_clocks,
    sync_client,
)
from harness.scenario.fake_api.rate_limits import enforce
from harness.scenario.fake_api.responder import Responder
from harness.scenario.fake_api.tool_map import ToolMap
from harness.scenario.fake_api.transport import (
    AsyncScenarioTransport,
    ScenarioTransport,
)
from harness.scenario.format.loader import load_scenario
from harness.scenario.format.model import Scenario
from harness.scenario.format.problem import Kind, Problem
from harness.wire.clock import VirtualClock


class WireSession:
    """The fake API of one scenario: ``client()``/``async_client()``, ``clock``, and
    ``next_turn()`` to move on to the next turn's replies."""

    def __init__(self, scenario: Scenario, *, tool_map: Mapping[str, Any] | None = None) -> None:
        self.scenario = scenario
        self.clock = VirtualClock.starting_now()
        self.responder = Responder(clock=self.clock, threads=scenario.threads)
        self.responder.tool_map = ToolMap(tool_map)  # the agent's names for the standard tools (ToolMapError)
        if scenario.limits is not None:
            enforce(self.responder, scenario.limits)
        self.turn_index = 0
        self._marks: list[tuple[int, int]] = []
        self._unused: dict[int, int] = {}  # turn index -> replies never requested
        self._start_turn()

    @classmethod
    def from_file(cls, path: str | Path, *, tool_map: Mapping[str, Any] | None = None) -> "WireSession":
        return cls(load_scenario(path), tool_map=tool_map)

    def client(self) -> anthropic.Anthropic:
        """A sync SDK client bound to this session (SDK retries off; turned on with
        ``with_options(max_retries=N)``, they wait on ``clock``)."""
        sdk_waits_on_scenario_clocks()
        return sync_client(ScenarioTransport(self.responder))

    def async_client(self) -> anthropic.AsyncAnthropic:
        """An async SDK client bound to this session (as ``client``)."""
        sdk_waits_on_scenario_clocks()
        return async_client(AsyncScenarioTransport(self.responder))

    def next_turn(self) -> None:
        """Serve the next turn's replies from now on."""
        self._end_turn()
        self.turn_index += 1
        self._start_turn()

    def problems(self) -> list[Problem]:
        """Every broken invariant and expectation so far."""
        self._end_turn()
        problems = list(self.responder.problems) + run_invariants(self.responder.requests, policies={}).problems
        max_retries = self.scenario.settings.get("max_retries")
        for number, (first, last) in enumerate(self._marks, 1):
            requests = [r for r in self.responder.requests if first <= r.mark <= last]
            label, spec = f"turn {number}", self.scenario.turns[number - 1]
            problems += wire_invariants(
                label, requests, max_retries=max_retries, wall_origin=self.clock.wall_origin, turn=number
            ).problems
            expected = spec.expect.get("requests")
            if expected is not None and expected != len(requests):
                text = f"{label}: expect.requests: expected {expected}, the client made {len(requests)}"
                problems.append(self._expectation(text, spec.expect_lines.get("requests"), number))
            problems += self._usage(f"{label}: ", requests, spec.expect, spec.expect_lines, number)
        problems += self._usage("", self.responder.requests, self.scenario.expect, self.scenario.expect_lines, None)
        for index, unused in sorted(self._unused.items()):
            if unused:
                problems.append(Problem(f"turn {index + 1}: {unused} reply(ies) never requested", Kind.INVARIANT, turn=index + 1))
        return problems

    def _usage(self, label: str, requests: list, expect: dict, lines: dict[str, int], turn: int | None) -> list[Problem]:
        """``expect.usage``'s bounds that ``requests`` went over (retries count)."""
        if "usage" not in expect:
            return []
        return [self._expectation(f"{label}expect.{text}", lines.get(key, lines.get("usage")), turn)
                for key, text in budget_problems(requests, expect["usage"])]

    def _expectation(self, text: str, line: int | None, turn: int | None) -> Problem:
        """An expectation that did not hold, its sentence ending `` (file:line)`` as a run's do."""
        path = self.scenario.path
        return Problem(f"{text} ({path}:{line})" if line else text, Kind.EXPECTATION, file=str(path), line=line, turn=turn)

    def _start_turn(self) -> None:
        turn = self.scenario.turns[self.turn_index]
        self.responder.queue(turn.replies, f"turn {self.turn_index + 1}")
        self._marks.append((self.clock.mark(), 0))

    def _end_turn(self) -> None:
        self._unused[self.turn_index] = len(self.responder.unused)
        first, last = self._marks[-1]
        if not last:
            self._marks[-1] = (first, self.clock.mark())
