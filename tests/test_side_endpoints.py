"""Token counting and the model list take no scripted reply and are no request of the
conversation, in process as on a socket: an agent that counts its tokens before each
message, as the docs suggest, is judged on its messages alone. (And an agent named by its
file imports the modules beside it.)"""

from __future__ import annotations

from pathlib import Path

import anthropic

from harness.agents.context import AgentContext
from harness.scenario.format.loader import load_scenario
from harness.scenario.run.runner import run_scenario
from harness.scenario.run.timeline import format_timeline

ROOT = Path(__file__).resolve().parent.parent


class CountsFirst:
    """Lists the models once, counts the tokens before every message, retries as asked."""

    harness_policies = {"retries": 4}

    def __init__(self, ctx: AgentContext) -> None:
        self.client, self.sleep, self.history = ctx.client.with_options(max_retries=0), ctx.sleep, []
        self.models = [model.id for model in self.client.models.list()]
        self.counted: list[int] = []

    def run_turn(self, text: str) -> None:
        self.history.append({"role": "user", "content": text})
        for _ in range(5):
            self.counted.append(self.client.messages.count_tokens(model=self.models[0], messages=self.history).input_tokens)
            try:
                message = self.client.messages.create(model=self.models[0], max_tokens=256, messages=self.history)
            except anthropic.APIStatusError as error:
                self.sleep(float(error.response.headers.get("retry-after", "1")))
                continue
            self.history.append({"role": "assistant", "content": [b.model_dump() for b in message.content]})
            if message.stop_reason != "tool_use":
                return
            self.history.append({"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": b.id, "content": "# Demo"} for b in message.content if b.type == "tool_use"]})
        self.history.pop()


def test_counting_tokens_and_listing_models_take_no_reply_of_the_scenario() -> None:
    agents: list[CountsFirst] = []
    outcome = run_scenario(load_scenario(ROOT / "scenarios" / "http" / "overloaded_then_success.yaml"),
                           agent=lambda ctx: agents.append(CountsFirst(ctx)) or agents[-1])
    assert outcome.passed, format_timeline(outcome)
    assert all(r.path.endswith("/v1/messages") for r in outcome.requests) and len(outcome.requests) == 5
    assert len(agents[0].counted) == 5 and all(count > 0 for count in agents[0].counted)


def test_an_agent_named_by_its_file_imports_its_neighbours(tmp_path: Path) -> None:
    """``--agent path/to/agent.py:make`` imports the modules beside the file, as ``python
    path/to/agent.py`` would, from any working folder."""
    import subprocess
    import sys

    (tmp_path / "agentbase.py").write_text("from examples.careful_agent import make_agent\n")
    (tmp_path / "mine.py").write_text("from agentbase import make_agent\n")
    run = subprocess.run(
        [sys.executable, "-m", "harness", "run", "scenarios/http/retryable_5xx.yaml", "--agent", f"{tmp_path / 'mine.py'}:make_agent"],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )
    assert run.returncode == 0, run.stdout + run.stderr
