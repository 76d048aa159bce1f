"""Hypothesis examples per second: the main history property, and the session state
machine, each beside the floors it cannot beat (hypothesis generating its examples, and
for the property the SDK sending and reading the same requests)."""

from __future__ import annotations

import statistics
import time
from pathlib import Path
from typing import Any

from harness.scenario.format.model import Scenario

from . import shares, workload
from .library import n_of

STEPS = 6  # stateful_step_count of the ci profile (harness/library/properties/profiles.py)


def property_speed(scale: float, tmp: Path) -> dict[str, Any]:
    """Examples per second of the main history property, as harness/library/properties runs it:
    ``harness.strategies.scenarios(interrupts=False)``, each run by
    ``harness.scenario.run.found.run_and_record`` with the history checks (every request API-valid,
    every tool_use answered once, no partial message in the history). Generation is
    timed too: it is part of what a property costs. A failing example is counted, not
    shrunk, and saved under a temporary folder. Two floors beside it: hypothesis alone
    (the same examples, a test that does nothing) and the SDK alone (the requests the
    runs made, answered with the same responses by a bare transport)."""
    from hypothesis import HealthCheck, Phase, given, settings

    from harness import strategies
    from harness.scenario.run.found import Counterexample, run_and_record

    try:
        from harness.library.properties.history_checks import HISTORY_CHECKS
    except ImportError:  # an installed copy without the test suite
        HISTORY_CHECKS = ()
    count = n_of(200, scale)
    failures: list[str] = []
    run_cpu = [0.0]
    runs: list[list[tuple[dict[str, Any], list[str], Any]]] = []

    same_settings = settings(
        max_examples=count,
        deadline=None,
        database=None,
        derandomize=True,
        suppress_health_check=list(HealthCheck),
        phases=[Phase.generate],
    )

    @same_settings
    @given(strategies.scenarios(interrupts=False))
    def generate_only(scenario: Scenario) -> None:
        pass

    @same_settings
    @given(strategies.scenarios(interrupts=False))
    def history_stays_valid(scenario: Scenario) -> None:
        started = time.process_time()
        try:
            outcome = run_and_record(scenario, checks=HISTORY_CHECKS, folder=tmp / "found")
            runs.append([(r.body, r.betas, r.plan) for r in outcome.requests if isinstance(r.body, dict) and r.plan])
        except Counterexample as error:
            failures.append(str(error).splitlines()[-1])
        run_cpu[0] += time.process_time() - started

    generate_cpu = _cpu_seconds(generate_only)
    cpu, wall = time.process_time(), time.perf_counter()
    history_stays_valid()
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    generate_cpu = min(generate_cpu, _cpu_seconds(generate_only))  # the first run pays hypothesis's warm-up
    sdk_cpu = time.process_time()
    workload.replay_exchanges(runs)
    sdk_cpu = time.process_time() - sdk_cpu
    passed = max(1, count - len(failures))
    return {
        "property": "harness/library/properties/test_fault_schedules.py::test_any_fault_schedule_ends_the_turn_with_a_valid_history",
        "strategy": "harness.strategies.scenarios(interrupts=False)",
        "checks": [check.__name__ for check in HISTORY_CHECKS],
        "examples": count,
        "examples_per_s_wall": round(count / wall, 1),
        "examples_per_s_cpu": round(count / cpu, 1),
        "ms_per_example_cpu": {"all": round(cpu / count * 1000, 2), "run": round(run_cpu[0] / count * 1000, 2),
                               "generate": round((cpu - run_cpu[0]) / count * 1000, 2)},
        "generate_only_ms_per_example": round(generate_cpu / count * 1000, 2),
        "requests_per_example": round(sum(map(len, runs)) / passed, 2),
        "sdk_alone_ms_per_example": round(sdk_cpu / passed * 1000, 2),
        "examples_with_problems": len(failures),
        "first_problem": failures[0] if failures else None,
    }


def _cpu_seconds(run: Any) -> float:
    started = time.process_time()
    run()
    return time.process_time() - started


def state_machine_speed(scale: float) -> dict[str, Any]:
    """Examples (whole sessions of up to ``STEPS`` steps) per CPU second of
    harness/library/properties/test_session_machine.py's ``AgentSession``, and of its floor: the same
    machine with the same rules drawing the same arguments, whose steps do nothing (no
    agent, no harness). Both run the same derandomized examples, in rounds side by side;
    the ratio is the median of the rounds'. ``shares``: who the time of one more run,
    profiled, belongs to (``bench.shares``: the SDK, hypothesis, the agent, the harness)."""
    from hypothesis import HealthCheck, Phase, settings
    from hypothesis.stateful import run_state_machine_as_test

    from harness.library.properties.test_session_machine import AgentSession

    class GenerationOnly(AgentSession):
        """The rules and their strategies, without the agent, the transport or checks."""

        def __init__(self) -> None:  # the machine's own __init__ would build the agent
            super(AgentSession, self).__init__()

        def play(self, turn: Any) -> None:
            pass

        def history_is_valid(self) -> None:
            pass

        def teardown(self) -> None:
            pass

    count = n_of(50, scale)
    same = settings(max_examples=count, stateful_step_count=STEPS, deadline=None, database=None, derandomize=True,
                    suppress_health_check=list(HealthCheck), phases=[Phase.generate])
    floors, machines = [], []
    owners = shares.profiled(lambda: run_state_machine_as_test(AgentSession, settings=same))
    for round_ in range(n_of(3, scale)):  # interleaved, the order alternating: a drift of the machine's speed cancels
        for machine, times in ((GenerationOnly, floors), (AgentSession, machines))[:: 1 if round_ % 2 else -1]:
            started = time.process_time()
            run_state_machine_as_test(machine, settings=same)
            times.append(time.process_time() - started)
    return {
        "machine": "harness/library/properties/test_session_machine.py::AgentSession",
        "examples": count,
        "rounds": len(machines),
        "steps_per_example": STEPS,
        "examples_per_s_cpu": round(count / statistics.median(machines), 1),
        "generation_only_examples_per_s": round(count / statistics.median(floors), 1),
        "over_generation_floor": round(statistics.median(m / f for m, f in zip(machines, floors)), 2),
        "shares": {owner: round(seconds / sum(owners.values()), 3) for owner, seconds in owners.items()},
    }
