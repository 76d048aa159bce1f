"""A property's failure shows the run it found: every request in the timeline, a rejected
one included, beside the problems listed above it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from harness.agents.context import AgentContext
from harness.scenario.format.loader import load_scenario
from harness.scenario.run.found import counterexample_text
from harness.scenario.run.runner import run_scenario


class KeepsBlankText:
    """Keeps every answer as it came, a blank one too: the next request is the API's 400."""

    def __init__(self, ctx: AgentContext) -> None:
        self.client, self.history = ctx.client, []

    def run_turn(self, text: str) -> None:
        self.history.append({"role": "user", "content": text})
        try:
            message = self.client.messages.create(model="claude-sonnet-4-5", max_tokens=64, messages=self.history)
        except Exception:
            self.history.pop()
            return
        self.history.append({"role": "assistant", "content": [b.model_dump() for b in message.content]})


def test_the_rejected_request_is_in_the_run_shown(tmp_path: Path) -> None:
    path = tmp_path / "blank.yaml"
    path.write_text("name: blank\nabout: A blank answer.\nturns:\n  - user: Fix the bug\n    replies:\n      - {text: ' '}\n")
    outcome: Any = run_scenario(load_scenario(path), agent=KeepsBlankText)
    assert outcome.problems
    text = counterexample_text(outcome.scenario, outcome, outcome.problems, None)
    run = text[text.index("the run:"):]
    assert "request 2: POST /v1/messages" in run and "rejected [400]" in run, text
