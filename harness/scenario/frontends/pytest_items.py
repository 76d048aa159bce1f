"""Scenario files as pytest items: one item per file, named after the scenario; a failure
prints the timeline, a broken file its ``path:line:col`` problems, never a traceback."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Iterator

import pytest

from harness.scenario.format.loader import load_scenario
from harness.scenario.format.model import ScenarioError
from harness.scenario.format.problem import Problem
from harness.scenario.run.runner import run_scenario
from harness.scenario.run.timeline import format_timeline
from harness.wire.errors import HarnessError


class ScenarioFile(pytest.File):
    """One scenario file: one test item, named after the scenario."""

    def collect(self) -> Iterator[pytest.Item]:
        try:
            scenario = load_scenario(self.path)
        except ScenarioError as error:
            yield BrokenScenarioItem.from_parent(self, name=self.path.stem, problems=error.problems)
            return
        yield ScenarioItem.from_parent(self, name=scenario.name, scenario=scenario)


AGENT_VARIABLE = "HARNESS_AGENT"


def configured_agent(config: pytest.Config) -> str | None:
    """The agent named by ``--harness-agent``, ``$HARNESS_AGENT`` or the ``harness_agent``
    ini key, in that order (None: mini_agent)."""
    named = config.getoption("harness_agent", default=None) or os.environ.get(AGENT_VARIABLE)
    return named or config.getini("harness_agent") or None


class ScenarioFailed(HarnessError):
    """A scenario whose invariants or expectations did not hold."""


class ScenarioItem(pytest.Item):
    """Runs one scenario against the configured agent (``--harness-agent``, the
    ``harness_agent`` ini key, else mini_agent); a failure prints the timeline, a scenario
    for another agent is skipped."""

    def __init__(self, *, scenario: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.scenario = scenario
        self.outcome: Any = None  # the run's Outcome, for reports

    def runtest(self) -> None:
        outcome = self.outcome = run_scenario(self.scenario, agent=configured_agent(self.config))
        if outcome.skipped:
            pytest.skip(outcome.skipped)
        if outcome.not_applicable is not None:
            pytest.skip(f"not applicable: {outcome.not_applicable}")
        for note in outcome.notes:
            self.user_properties.append(("note", note))
        if outcome.problems:
            raise ScenarioFailed(format_timeline(outcome))

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        if isinstance(excinfo.value, ScenarioFailed):
            return str(excinfo.value)
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, 0, f"scenario: {self.name}"


class BrokenScenarioItem(pytest.Item):
    """A scenario file with mistakes: fails with ``path:line:col`` lines, no traceback."""

    def __init__(self, *, problems: list[Problem], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.problems = problems

    def runtest(self) -> None:
        raise ScenarioFailed("\n".join(map(str, self.problems)))

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        return str(excinfo.value)

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, 0, f"scenario file: {self.path.name}"
