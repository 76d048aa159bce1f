"""Under any rate limits, any burst of turns (each a tool loop of a few requests) keeps
the history valid and never retries early: every 429 the buckets give names the wait
that makes the request fit, the agent waits at least that long (an earlier retry would
get another 429 and is a problem), and the conversation after the 429s is the one the
API would have accepted."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from harness.scenario.format.limits import Limits
from harness.scenario.format.model import Scenario, Turn
from harness.scenario.run.found import run_and_record
from harness.strategies.limits import rate_limits
from harness.wire.replies import Reply

from .agent import AGENT
from .budget import examples
from .history_checks import HISTORY_CHECKS

READ = Reply(message={"text": "Reading notes.txt.", "tool_use": {"name": "Read", "input": {"file_path": "notes.txt"}}})
SETTINGS = {"max_retries": 5, "retry_budget": 900}  # a client's own budget is not what is tested here


@st.composite
def bursts(draw: st.DrawFn, limits: Limits) -> Scenario:
    """1 to 4 turns, each 0 to 2 tool calls and an answer, under ``limits``."""
    turns = tuple(
        Turn(f"Look again ({number})", (*[READ] * draw(st.integers(0, 2)), Reply(message={"text": f"Done {number}."})))
        for number in range(1, draw(st.integers(1, 4)) + 1)
    )
    return Scenario("burst under limits", "a burst of turns under rate limits", Path("found.yaml"), turns,
                    settings=dict(SETTINGS), workspace={"notes.txt": "Pick up bread.\n"}, limits=limits)


@examples(0.15)
@given(rate_limits().flatmap(bursts))
def test_any_burst_under_any_limits_keeps_the_history_valid_and_never_retries_early(scenario: Scenario) -> None:
    outcome = run_and_record(scenario, agent=AGENT, checks=HISTORY_CHECKS)
    assert outcome.problems == []
