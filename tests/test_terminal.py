"""A scenario's Ctrl+C reaches the agent even when the harness runs as a background job."""

from __future__ import annotations

import signal
from pathlib import Path

from harness.scenario.format.loader import load_scenario
from harness.scenario.run.runner import run_scenario

CTRL_C = Path(__file__).resolve().parent.parent / "scenarios" / "interrupts" / "ctrl_c_while_a_command_runs.yaml"


def test_an_ignored_sigint_is_heard_while_a_scenario_runs_and_ignored_again_after() -> None:
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)  # what a shell gives a background job
    try:
        outcome = run_scenario(load_scenario(CTRL_C))
        assert signal.getsignal(signal.SIGINT) == signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, previous)
    assert outcome.passed, outcome.problems
    assert "finished.txt" not in {name for name, text in outcome.files.items() if text is not None}


def test_a_handler_of_its_own_is_left_in_place() -> None:
    heard: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda number, frame: heard.append(number))
    try:
        run_scenario(load_scenario(CTRL_C))
        assert heard == [signal.SIGINT]  # the scenario's press went to the handler in place, not Python's default
    finally:
        signal.signal(signal.SIGINT, previous)
