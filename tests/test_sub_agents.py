"""An agent that delegates to a sub-agent (a conversation of its own, as Claude Code's
Task tool does), declared as a side request: Ctrl+C or a final error in the sub-agent
ends the turn as the wire shows it, the same task asked of a fresh sub-agent starts a
conversation of its own, and ``interrupt: {tool: Bash}`` comes at the agent's own tool
for that role."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator

import anthropic

from harness.agents.context import AgentContext
from harness.agents.events import ToolCall, TurnEnd
from harness.scenario.format.loader import load_scenario
from harness.scenario.run.runner import run_scenario
from harness.scenario.run.timeline import format_timeline

DELEGATE = {"name": "delegate", "description": "Give a task to a sub-agent.",
            "input_schema": {"type": "object", "properties": {"task": {"type": "string"}}, "required": ["task"]}}
SUB = "You are a sub-agent: do the task, then answer in one line."


class Delegates:
    """Answers each `delegate` call with what a fresh sub-agent answers; a sub-agent that
    fails or is stopped answers the call with an error result. Ctrl+C, or a final error,
    ends the turn."""

    harness_policies = {"flags_tool_errors": True}

    def __init__(self, ctx: AgentContext, side: list[dict[str, Any]]) -> None:
        self.client, self.history = ctx.client.with_options(max_retries=0), []
        self.harness_side_requests = side

    def run_turn(self, text: str) -> None:
        self.history.append({"role": "user", "content": text})
        while True:
            message = self.client.messages.create(model="claude-sonnet-4-5", max_tokens=256, tools=[DELEGATE],
                                                  messages=self.history)
            self.history.append({"role": "assistant", "content": [b.model_dump() for b in message.content]})
            calls = [b for b in message.content if b.type == "tool_use"]
            if not calls:
                return
            results, stop = [], False
            for call in calls:
                try:
                    answer, error = self.sub_agent(call.input["task"]), False
                except (KeyboardInterrupt, anthropic.APIStatusError) as failure:
                    answer, error, stop = f"the sub-agent stopped: {type(failure).__name__}", True, True
                results.append({"type": "tool_result", "tool_use_id": call.id, "content": answer, "is_error": error})
            self.history.append({"role": "user", "content": results})
            if stop:
                self.history.append({"role": "assistant", "content": "Stopped."})
                return

    def sub_agent(self, task: str) -> str:
        sent = self.client.messages.create(model="claude-haiku-4-5", max_tokens=128, system=SUB,
                                           messages=[{"role": "user", "content": task}])
        return "".join(b.text for b in sent.content if b.type == "text")


def _scenario(tmp_path: Path, text: str) -> Any:
    path = tmp_path / "delegates.yaml"
    path.write_text(text)
    return load_scenario(path)


MAIN = """\
name: delegates
about: The main conversation delegates one task.
turns:
  - user: Count the files
    replies:
      - tool_use: {name: delegate, input: {task: count the files}}
      - text: There are three.
"""


def test_ctrl_c_in_the_sub_agent_ends_the_turn_interrupted(tmp_path: Path) -> None:
    side = [{"when": {"system": "You are a sub-agent"}, "reply": {"text": "Three files, counted.", "interrupt": 4}}]
    scenario = _scenario(tmp_path, MAIN.replace("      - text: There are three.\n", "") + "    expect: {end: interrupted}\n")
    outcome = run_scenario(scenario, agent=lambda ctx: Delegates(ctx, side))
    assert outcome.passed, format_timeline(outcome)


def test_a_final_error_in_the_sub_agent_ends_the_turn_in_error(tmp_path: Path) -> None:
    side = [{"when": {"system": "You are a sub-agent"}, "reply": {"error": "authentication"}}]
    scenario = _scenario(tmp_path, MAIN.replace("      - text: There are three.\n", "") + "    expect: {end: error}\n")
    outcome = run_scenario(scenario, agent=lambda ctx: Delegates(ctx, side))
    assert outcome.passed, format_timeline(outcome)


def test_the_same_task_asked_of_a_fresh_sub_agent_is_a_conversation_of_its_own(tmp_path: Path) -> None:
    class Retries(Delegates):
        def sub_agent(self, task: str) -> str:  # a sub-agent with one tool step, given up after a 529
            messages: list[dict[str, Any]] = [{"role": "user", "content": task}]
            first = self.client.messages.create(model="claude-haiku-4-5", max_tokens=128, system=SUB, tools=[DELEGATE],
                                                messages=messages)
            call = next(b for b in first.content if b.type == "tool_use")
            messages += [{"role": "assistant", "content": [b.model_dump() for b in first.content]},
                         {"role": "user", "content": [{"type": "tool_result", "tool_use_id": call.id, "content": "a, b"}]}]
            try:
                return self.client.messages.create(model="claude-haiku-4-5", max_tokens=128, system=SUB, tools=[DELEGATE],
                                                   messages=messages).content[0].text
            except anthropic.InternalServerError:
                return "the sub-agent gave up"

    side = [{"when": {"system": "You are a sub-agent"}, "replies": [
        {"tool_use": {"name": "delegate", "input": {"task": "list"}}}, {"error": "overloaded"},
        {"tool_use": {"name": "delegate", "input": {"task": "list"}}}, {"text": "a and b."}]}]
    scenario = _scenario(tmp_path, MAIN.replace(
        "      - text: There are three.\n",
        "      - tool_use: {name: delegate, input: {task: count the files}}\n      - text: There are two.\n"))
    outcome = run_scenario(scenario, agent=lambda ctx: Retries(ctx, side))
    assert outcome.passed, format_timeline(outcome)
    assert not any("changes the conversation" in str(p) for p in outcome.problems)


class StreamsToolCalls:
    """Yields a ToolCall event for its own `run` tool (the standard Bash), then runs it."""

    tool_map = {"Bash": {"name": "run", "input": {"command": "cmd"}}}
    RUN = {"name": "run", "description": "Run a command.",
           "input_schema": {"type": "object", "properties": {"cmd": {"type": "string"}}, "required": ["cmd"]}}

    def __init__(self, ctx: AgentContext) -> None:
        self.client, self.history, self.ran = ctx.client, [], []

    def run_turn(self, text: str) -> Iterator[Any]:
        self.history.append({"role": "user", "content": text})
        while True:
            message = self.client.messages.create(model="m", max_tokens=64, tools=[self.RUN], messages=self.history)
            self.history.append({"role": "assistant", "content": [b.model_dump() for b in message.content]})
            calls = [b for b in message.content if b.type == "tool_use"]
            if not calls:
                yield TurnEnd("end_turn")
                return
            results = []
            for call in calls:
                try:
                    yield ToolCall(call.name, call.input, call.id)
                    self.ran.append(call.input["cmd"])
                    results.append({"type": "tool_result", "tool_use_id": call.id, "content": "ok"})
                except KeyboardInterrupt:
                    results.append({"type": "tool_result", "tool_use_id": call.id, "content": "stopped", "is_error": True})
                    self.history += [{"role": "user", "content": results}, {"role": "assistant", "content": "Stopped."}]
                    yield TurnEnd("interrupted")
                    return
            self.history.append({"role": "user", "content": results})


def test_ctrl_c_as_bash_is_called_comes_at_the_agents_own_tool_for_it(tmp_path: Path) -> None:
    scenario = _scenario(tmp_path, """\
name: ctrl-c-at-bash
about: Ctrl+C as the command tool is called.
turns:
  - user: Run it
    interrupt: {tool: Bash}
    replies:
      - tool_use: {name: Bash, input: {command: make}}
    expect: {requests: 1, end: interrupted}
""")
    agents: list[StreamsToolCalls] = []
    outcome = run_scenario(scenario, agent=lambda ctx: agents.append(StreamsToolCalls(ctx)) or agents[-1])
    assert agents[0].ran == [] and outcome.turns[0].interrupted, format_timeline(outcome)
    assert outcome.passed, format_timeline(outcome)
