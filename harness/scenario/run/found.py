"""Counterexamples as scenario files: when a property fails, the (shrunk) scenario that
broke it is written where ``harness run`` can replay it.

    outcome = run_and_record(scenario)          # inside a @given test

runs the scenario and, if it has problems, writes it to ``found_dir()`` before failing
with its timeline. Under hypothesis only the final, shrunk example is written; its file
name is the test's name and a hash of the scenario, so a re-run rewrites the same file.

The folder: pytest's ``--harness-found-dir``, else ``$HARNESS_FOUND_DIR``, else
``scenarios/found``.
"""

from __future__ import annotations

import hashlib
import os
import re
import shlex
from dataclasses import replace
from pathlib import Path
from typing import Callable, Iterable, Sequence

from harness.agents.base import AgentFactory
from harness.scenario.checks.outcome import Outcome
from harness.scenario.format.dump import dump_scenario
from harness.scenario.format.model import Scenario
from harness.scenario.format.problem import Kind, Problem
from harness.scenario.run.runner import run_scenario
from harness.scenario.run.timeline import format_timeline
from harness.wire.errors import HarnessError
from harness.wire.files import write_atomically

FOUND_DIR_VARIABLE = "HARNESS_FOUND_DIR"
TIMELINE_LINES = 16
DEFAULT_FOUND_DIR = Path("scenarios/found")
Check = Callable[[Outcome], Iterable[Problem | str]]
"""A property's own check: the problems it finds in a run (a sentence is a ``PROPERTY`` problem)."""


class Counterexample(HarnessError, AssertionError):
    """A scenario that broke a property; ``path`` is where it was saved (None if it was not)."""

    def __init__(self, message: str, path: Path | None) -> None:
        super().__init__(message)
        self.path = path


def found_dir() -> Path:
    """Where counterexamples go."""
    return Path(os.environ.get(FOUND_DIR_VARIABLE) or DEFAULT_FOUND_DIR)


def run_and_record(
    scenario: Scenario,
    *,
    agent: str | AgentFactory | None = None,
    factory_for: Callable[[Scenario], AgentFactory] | None = None,
    checks: Iterable[Check] = (),
    folder: Path | None = None,
    settle: bool = True,
) -> Outcome:
    """Run ``scenario``; on any problem (or a crash of the run itself) save it as YAML
    and raise ``Counterexample`` with the timeline. ``agent`` is the agent under test
    (``MODULE:FACTORY`` or a factory; default mini_agent), or ``factory_for(scenario)``
    builds one per scenario. ``checks`` add problems of
    their own (they are named in the file's ``about``; ``harness run`` checks only the
    built-in invariants and ``expect``). ``settle``: a turn cut short by an
    ``interrupt: {at_event: k}`` keeps only the replies it used (where Ctrl+C lands
    cannot be foretold)."""
    def run(scenario: Scenario) -> Outcome:
        return run_scenario(scenario, agent=factory_for(scenario) if factory_for else agent)

    named = agent_name(factory_for(scenario) if factory_for else agent)
    try:
        outcome = run(scenario)
        if settle and (settled := settled_scenario(outcome)) is not None:
            scenario = settled
            outcome = run(scenario)
        moot = outcome.not_applicable is not None  # the agent cannot meet it: nothing to hold against it
        problems = [] if moot else outcome.problems + [_as_problem(p) for check in checks for p in check(outcome)]
    except Exception as error:
        crash = Problem(f"the run raised {type(error).__name__}: {error}", Kind.HARNESS)
        path = save_counterexample(scenario, [crash], folder=folder, agent=named)
        raise Counterexample(f"running the scenario raised {type(error).__name__}: {error}; {_where(path, named)}", path) from error
    if problems:
        path = save_counterexample(scenario, problems, folder=folder, agent=named)
        raise Counterexample(counterexample_text(scenario, outcome, problems, path, agent=named), path)
    return outcome


def agent_name(agent: str | AgentFactory | None) -> str | None:
    """The ``MODULE:FACTORY`` that ``--agent`` takes to build this agent again; None for
    the default agent, or for a factory that cannot be named (a lambda, a local function,
    one defined in ``__main__``)."""
    if agent is None or isinstance(agent, str):
        return agent
    module, qualname = getattr(agent, "__module__", None), getattr(agent, "__qualname__", "")
    if not module or module == "__main__" or not qualname or "<" in qualname:
        return None
    return f"{module}:{qualname}"


def _as_problem(found: Problem | str) -> Problem:
    return found if isinstance(found, Problem) else Problem(found, Kind.PROPERTY)


def counterexample_text(scenario: Scenario, outcome: Outcome, problems: Sequence[Problem], path: Path | None,
                        *, agent: str | None = None) -> str:
    """A failure in about forty lines: the problems, the scenario as YAML (ready for
    ``scenarios/regressions/``) and the timeline, cut down around what went wrong."""
    yaml_text = dump_scenario(replace(scenario, name="regression", about=str(problems[0])[:200]))
    timeline = [line for line in format_timeline(outcome).splitlines()[2:] if not line.lstrip().startswith(("✗", "⚠"))]
    if len(timeline) > TIMELINE_LINES:
        timeline = timeline[: TIMELINE_LINES // 2] + ["  …"] + timeline[-TIMELINE_LINES // 2 :]
    return "\n".join([
        f"the property failed: {len(problems)} problem(s)",
        *(f"  ✗ {str(p).splitlines()[0]}" for p in problems[:6]),
        "", "the scenario:", *("  " + line for line in yaml_text.splitlines()),
        "", "the run:", *timeline,
        *([_where(path, agent)] if path else []),
    ])


def settled_scenario(outcome: Outcome) -> Scenario | None:
    """The scenario without the replies that turns interrupted at an event never used;
    None when there are none."""
    turns = list(outcome.scenario.turns)
    changed = False
    for index, (turn, record) in enumerate(zip(turns, outcome.turns)):
        interrupt = turn.interrupt
        if interrupt and interrupt.at_event is not None and record.interrupted and record.unused_replies:
            turns[index] = replace(turn, replies=turn.replies[: len(record.requests)])
            changed = True
    return replace(outcome.scenario, turns=tuple(turns)) if changed else None


def save_counterexample(scenario: Scenario, problems: Sequence[Problem], *, folder: Path | None = None,
                        agent: str | None = None) -> Path | None:
    """Write ``scenario`` (named after the running test, its first problem and the agent it
    was found against in ``about``, the command that replays it in a first comment line)
    into ``folder``; under hypothesis only for the final, shrunk example."""
    if not _final_example():
        return None
    test = _current_test()
    first = str(problems[0]) if problems else "a problem"
    against = f" against {agent}" if agent else ""
    named = replace(
        scenario,
        name=f"found-{test}",
        about=f"Found by {os.environ.get('PYTEST_CURRENT_TEST', test).removesuffix(' (call)')}{against}: {first}",
    )
    digest = hashlib.sha1(dump_scenario(replace(named, about="")).encode()).hexdigest()[:8]
    path = (folder or found_dir()) / f"{test}-{digest}.yaml"
    write_atomically(path, f"# {replay_command(path, agent)}\n{dump_scenario(named)}")
    return path


def _final_example() -> bool:
    """False while hypothesis is still searching or shrinking; True otherwise."""
    try:
        from hypothesis.control import _current_build_context

        context = _current_build_context.value
    except (ImportError, AttributeError):
        return True
    return context is None or bool(getattr(context, "is_final", True))


def _current_test() -> str:
    """The running test's name without its file (``TestAgentSession.runTest``), as a file name."""
    node = os.environ.get("PYTEST_CURRENT_TEST", "scenario").removesuffix(" (call)").split("::")
    name = ".".join(node[1:] or node)
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("_.") or "scenario"


def replay_command(path: Path, agent: str | None = None) -> str:
    """The hint that replays a saved counterexample against the agent it was found against."""
    return f"replay it with: harness run {shlex.quote(str(path))}" + (f" --agent {shlex.quote(agent)}" if agent else "")


def _where(path: Path | None, agent: str | None = None) -> str:
    return f"saved as {path}; {replay_command(path, agent)}" if path else ""
