"""A retry repeats the conversation's messages; the frame around them may change (a
system prompt that says the time, the tools of the moment): the API asks nothing of a
retry's frame, and an agent that says the time in its system prompt is judged as any."""

from __future__ import annotations

import datetime
from pathlib import Path

import anthropic

from harness.agents.context import AgentContext
from harness.scenario.fake_api.conversation import relation
from harness.scenario.format.loader import load_scenario
from harness.scenario.run.runner import run_scenario
from harness.scenario.run.timeline import format_timeline

ROOT = Path(__file__).resolve().parent.parent
HELLO = [{"role": "user", "content": "Hello"}]


def test_a_retry_is_the_same_messages_whatever_the_frame_says() -> None:
    first = {"model": "m", "system": "The time is 10:00.", "messages": HELLO, "tools": []}
    assert relation(first, first | {"system": "The time is 10:01.", "tools": [{"name": "Read"}]}) == "retry"
    assert relation(first, first | {"messages": [{"role": "user", "content": "Hi"}]}) == "rewrite"
    longer = HELLO + [{"role": "assistant", "content": "Hi."}, {"role": "user", "content": "Bye"}]
    assert relation(first, first | {"system": "The time is 10:02.", "messages": longer}) == "follow-up"


class SaysTheTime:
    """Puts the time in its system prompt on every request; retries as it is asked to."""

    harness_policies = {"retries": 4}

    def __init__(self, ctx: AgentContext) -> None:
        self.client, self.ctx, self.history = ctx.client.with_options(max_retries=0), ctx, []

    def run_turn(self, text: str) -> None:
        self.history.append({"role": "user", "content": text})
        for _ in range(5):
            now = datetime.datetime.fromtimestamp(self.ctx.wall(), datetime.timezone.utc).isoformat()
            try:
                message = self.client.messages.create(model="claude-sonnet-4-5", max_tokens=256, messages=self.history,
                                                      system=f"You help. The time is {now}.")
            except anthropic.APIStatusError as error:
                self.ctx.sleep(float(error.response.headers.get("retry-after", "1")))
                continue
            self.history.append({"role": "assistant", "content": [b.model_dump() for b in message.content]})
            return
        self.history.pop()


def test_an_agent_that_says_the_time_in_its_system_prompt_retries_as_any() -> None:
    outcome = run_scenario(load_scenario(ROOT / "scenarios" / "http" / "retry_after_seconds.yaml"), agent=SaysTheTime)
    assert outcome.passed, format_timeline(outcome)
    first, second = outcome.requests[:2]
    assert first.body["system"] != second.body["system"]  # the frame changed; the messages did not
