"""A scenario's replies are written for one conversation. An agent that makes a side
request in a turn (a router without tools, before its main request) takes one of them;
where that makes the scenario one it cannot meet, the reason says a side request took
it, not that the agent has no tools."""

from __future__ import annotations

from pathlib import Path

from harness.agents.context import AgentContext
from harness.scenario.format.loader import load_scenario
from harness.scenario.run.runner import run_scenario

ROOT = Path(__file__).resolve().parent.parent
READ = {"name": "Read", "description": "Read a file.",
        "input_schema": {"type": "object", "properties": {"file_path": {"type": "string"}}, "required": ["file_path"]}}


class Routes:
    """Asks a router (another conversation, no tools) before each line, then answers it."""

    def __init__(self, ctx: AgentContext, *, tools: list | None = None) -> None:
        self.client, self.tools, self.history = ctx.client.with_options(max_retries=0), tools, []

    def run_turn(self, text: str) -> None:
        self.client.messages.create(model="claude-sonnet-4-5", max_tokens=16, system="You route.",
                                    messages=[{"role": "user", "content": f"classify: {text}"}])
        self.history.append({"role": "user", "content": text})
        options = {"tools": self.tools} if self.tools else {}
        message = self.client.messages.create(model="claude-sonnet-4-5", max_tokens=256, messages=self.history, **options)
        self.history.append({"role": "assistant", "content": [b.model_dump() for b in message.content]})


def test_a_reply_a_side_request_took_is_said_to_be_so() -> None:
    outcome = run_scenario(load_scenario(ROOT / "scenarios" / "tools" / "write_creates_file.yaml"),
                           agent=lambda ctx: Routes(ctx, tools=[READ, {**READ, "name": "Write"}]))
    assert outcome.not_applicable is not None and "a side request (another conversation" in outcome.not_applicable


def test_an_agent_without_tools_is_told_only_that() -> None:
    outcome = run_scenario(load_scenario(ROOT / "scenarios" / "tools" / "write_creates_file.yaml"), agent=Routes)
    assert outcome.not_applicable is not None and "no tool that writes a file" in outcome.not_applicable
    assert "side request" not in outcome.not_applicable
