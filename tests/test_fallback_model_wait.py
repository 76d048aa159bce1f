"""A 529's or a 429's ``retry-after`` is about the model family asked (the rate limits are
pooled by model family; an overloaded model is that model): a request to a fallback model
of another family may go at once, one to the same family waits as asked."""

from __future__ import annotations

from pathlib import Path

import anthropic
import pytest

from harness.agents.context import AgentContext
from harness.scenario.format.loader import load_scenario
from harness.scenario.run.runner import run_scenario
from harness.scenario.run.timeline import format_timeline

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
