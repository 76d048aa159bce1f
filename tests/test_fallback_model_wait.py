"""A 529's or a 429's ``retry-after`` is about the model family asked (the rate limits are
pooled by model family; an overloaded model is that model): a request to a fallback model
of another family may go at once, one to the same family waits as asked."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anthropic
import pytest

from harness.agents.context import AgentContext
from harness.scenario.format.loader import load_scenario
from harness.scenario.format.model import Scenario, Turn
from harness.scenario.run.runner import run_scenario
from harness.scenario.run.timeline import format_timeline
from harness.wire.replies import Reply

SCENARIO = """\
name: overloaded-then-fallback
about: One 529 asking for 5 s, then the answer from whichever model is asked.
turns:
  - user: Summarize the README
    replies:
      - error: overloaded
        headers: {retry-after: "5"}
      - text: It is a demo.
"""


class FallsBack:
    """Asks ``first``; on a 529 asks ``fallback`` at once, the same conversation."""

    def __init__(self, ctx: AgentContext, first: str, fallback: str) -> None:
        self.client, self.models, self.history = ctx.client.with_options(max_retries=0), (first, fallback), []

    def run_turn(self, text: str) -> None:
        self.history.append({"role": "user", "content": text})
        for model in self.models:
            try:
                message = self.client.messages.create(model=model, max_tokens=64, messages=self.history)
            except anthropic.InternalServerError:
                continue
            self.history.append({"role": "assistant", "content": [b.model_dump() for b in message.content]})
            return


@pytest.mark.parametrize(("fallback", "holds"), [("claude-sonnet-5-5", True), ("claude-opus-5-6", False)])
def test_a_fallback_of_another_family_need_not_wait(tmp_path: Path, fallback: str, holds: bool) -> None:
    (tmp_path / "s.yaml").write_text(SCENARIO)
    outcome = run_scenario(load_scenario(tmp_path / "s.yaml"), agent=lambda ctx: FallsBack(ctx, "claude-opus-5-5", fallback))
    assert outcome.passed is holds, format_timeline(outcome)
    if not holds:
        assert any("which asked for retry-after 5s" in str(p) for p in outcome.problems)


class WaitsFirst:
    """Waits 20 s before each turn's request (as an agent pacing on rate-limit headers does)."""

    def __init__(self, ctx: Any) -> None:
        self.client, self.sleep, self.history = ctx.client.with_options(max_retries=0), ctx.sleep, []

    def run_turn(self, text: str) -> None:
        self.sleep(20.0)
        self.history.append({"role": "user", "content": text})
        answer = self.client.messages.create(model="claude-opus-5-5", max_tokens=64, messages=self.history)
        self.history.append({"role": "assistant", "content": [b.model_dump() for b in answer.content]})


def test_the_timeline_opens_a_turn_before_the_wait_it_begins_with() -> None:
    """A wait before a turn's first request belongs to the turn: its line comes after the
    turn's, which is stamped when the wait began."""
    turns = tuple(Turn(line, (Reply(message={"text": "ok"}),), None, {}) for line in ("One", "Two"))
    outcome = run_scenario(Scenario("waits", "waits first", Path("waits.yaml"), turns), agent=WaitsFirst)
    lines = [" ".join(line.split()) for line in format_timeline(outcome).splitlines() if line.strip().startswith("t=")]
    assert lines[:6] == [
        "t= 0.000s turn 1 > One", "t= 0.000s ⏸ sleep 20.000s", "t= 20.000s → request 1: POST /v1/messages (1 messages, no stream) ← text [200]",
        "t= 20.000s turn 2 > Two", "t= 20.000s ⏸ sleep 20.000s", "t= 40.000s → request 2: POST /v1/messages (3 messages, no stream) ← text [200]",
    ]


def test_the_timeline_of_an_agent_without_events_shows_the_tool_results_it_sent() -> None:
    """Read from the wire, on the line before the request that carries them."""
    from examples.reader_agent import make_agent as make_reader

    outcome = run_scenario(load_scenario(Path(__file__).resolve().parents[1] / "scenarios" / "tools" / "unknown_tool.yaml"),
                           agent=make_reader)
    lines = [" ".join(line.split()) for line in format_timeline(outcome).splitlines()]
    at = lines.index("t= 0.000s ↩ tool result (error) sent: there is no tool called Edit")
    assert lines[at - 1].startswith("t= 0.000s → request 1:") and lines[at + 1].startswith("t= 0.000s → request 2:")
    mini = [" ".join(line.split()) for line in format_timeline(run_scenario(outcome.scenario)).splitlines()]
    assert not any("↩ tool result" in line for line in mini)  # its events say what its tools returned
