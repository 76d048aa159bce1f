"""Bugs planted in mini_agent are caught by the library through checks of the harness's
own: the oracle reads the wire itself and shares no code with the agent."""

from __future__ import annotations

from pathlib import Path

from planted import harness_with, planted_copy

RETRY_AFTER_MS = "scenarios/http/retry_after_ms.yaml"


def test_an_agent_that_ignores_retry_after_ms_is_caught_by_the_oracle(tmp_path: Path) -> None:
    broken = planted_copy(tmp_path, "retry.py", 'millis = headers.get("retry-after-ms")', "millis = None")
    run = harness_with(broken, "run", RETRY_AFTER_MS)
    assert run.returncode == 1, run.stdout + run.stderr
    assert "which asked for retry-after 5s" in run.stdout  # the invariant, not only the scenario's sleeps


def test_the_same_scenario_passes_with_mini_agent_as_it_is() -> None:
    run = harness_with(None, "run", RETRY_AFTER_MS)
    assert run.returncode == 0, run.stdout + run.stderr
