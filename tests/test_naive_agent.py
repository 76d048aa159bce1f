"""The harness catches the typical mistakes of DESIGN.md §3 in an agent it has never seen.

``NaiveAgent`` is built on purpose the way many agents are: it streams with
``client.messages.stream(...)``, writes the assistant message into its history while
the stream is still arriving, retries only what "looks overloaded", lets a connection
lost mid-stream escape (httpx2's error, or from anthropic 2.17 the SDK's
APIConnectionError), and on Ctrl+C ends the turn without answering the tool_use blocks it
left dangling. Each library scenario below must fail for it, with a timeline that
names the request, the fault and the broken invariant, and pass for mini_agent.
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any, Iterator

import anthropic
import pytest
from stream_reads import STREAM_CUT_RAISES

from harness import AgentContext
from harness.agents.events import (
    MessageDone,
    Notice,
    TextDelta,
    ToolCall,
    ToolResult,
    TurnEnd,
)
from harness.scenario.checks.outcome import Outcome
from harness.scenario.format.loader import load_scenario
from harness.scenario.run.runner import run_scenario
from harness.scenario.run.timeline import format_timeline
from harness.wire.clock import VirtualClock

SCENARIOS = Path(__file__).resolve().parent.parent / "scenarios"
TOOLS = [
    {
        "name": "Read",
        "description": "Read a file.",
        "input_schema": {"type": "object", "properties": {"file_path": {"type": "string"}}, "required": ["file_path"]},
    },
    {
        "name": "Bash",
        "description": "Run a command.",
        "input_schema": {"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]},
    },
]


class NaiveAgent:
    """An agent with the usual mistakes (see the module doc). Do not copy it. It says it
    retries a transient failure, as most agents mean to."""

    harness_policies = {"retries": 5}

    def __init__(self, client: anthropic.Anthropic, clock: VirtualClock, workspace: Path) -> None:
        self.client = client
        self.clock = clock
        self.cwd = workspace
        self.messages: list[dict[str, Any]] = []

    def run_turn(self, text: str) -> Iterator[Any]:
        self.messages.append({"role": "user", "content": text})
        attempts = 0
        while True:
            try:
                stop_reason = yield from self._stream()
            except anthropic.APIStatusError as error:  # a lost connection is not APIStatusError: it escapes
                attempts += 1
                if "overloaded" in str(error).lower() and attempts <= 3:
                    yield Notice(f"Overloaded, retrying: {error}", "warning")
                    self.clock.sleep(1.0)
                    continue  # mistake: the half-written assistant message is still in the history
                yield Notice(f"Error: {error}", "error")
                yield TurnEnd("error")
                return
            if stop_reason != "tool_use":
                yield TurnEnd(stop_reason or "end_turn")
                return
            try:
                yield from self._run_tools()
            except KeyboardInterrupt:  # mistake: the tool_use blocks not yet answered stay dangling
                yield Notice("Interrupted", "warning")
                yield TurnEnd("interrupted")
                return

    def _stream(self) -> Iterator[Any]:
        with self.client.messages.stream(
            model="claude-opus-5-5", max_tokens=1024, messages=list(self.messages), tools=TOOLS
        ) as stream:
            for event in stream:
                if event.type == "message_start":
                    self.messages.append({"role": "assistant", "content": []})  # mistake: written as it streams
                elif event.type == "content_block_start":
                    block = event.content_block
                    if block.type == "text":
                        self.messages[-1]["content"].append({"type": "text", "text": ""})
                    elif block.type == "tool_use":
                        self.messages[-1]["content"].append(
                            {"type": "tool_use", "id": block.id, "name": block.name, "input": {}}
                        )
                elif event.type == "content_block_delta" and event.delta.type == "text_delta":
                    self.messages[-1]["content"][-1]["text"] += event.delta.text
                    yield TextDelta(event.delta.text)
                elif event.type == "content_block_stop" and event.content_block.type == "tool_use":
                    self.messages[-1]["content"][-1]["input"] = event.content_block.input
            final = stream.get_final_message()
        yield MessageDone(final.stop_reason, self.messages[-1])
        return final.stop_reason

    def _run_tools(self) -> Iterator[Any]:
        results: list[dict[str, Any]] = []
        self.messages.append({"role": "user", "content": results})
        for block in [b for b in self.messages[-2]["content"] if b["type"] == "tool_use"]:
            yield ToolCall(block["name"], block["input"], block["id"])
            output = self._run_tool(block["name"], block["input"])
            results.append({"type": "tool_result", "tool_use_id": block["id"], "content": output})
            yield ToolResult(block["name"], output, tool_use_id=block["id"])

    def _run_tool(self, name: str, args: dict[str, Any]) -> str:
        if name == "Read":
            return (self.cwd / args["file_path"]).read_text()
        done = subprocess.run(args["command"], shell=True, cwd=self.cwd, capture_output=True, text=True)
        return done.stdout + done.stderr


def naive_factory(ctx: AgentContext) -> NaiveAgent:
    return NaiveAgent(ctx.client.with_options(max_retries=0), ctx.clock, ctx.workspace)


class ErrorEventIsFatal(NaiveAgent):
    """Keeps its history right, but takes an ``event: error`` inside a 200 stream for the
    end of the world: the SDK raises APIStatusError with status 200, and it gives up."""

    def run_turn(self, text: str) -> Iterator[Any]:
        self.messages.append({"role": "user", "content": text})
        try:
            with self.client.messages.stream(
                model="claude-opus-5-5", max_tokens=1024, messages=list(self.messages), tools=TOOLS
            ) as stream:
                final = stream.get_final_message()
        except anthropic.APIStatusError as error:
            yield Notice(f"Error: {error}", "error")
            yield TurnEnd("error")
            return
        self.messages.append({"role": "assistant", "content": [b.model_dump() for b in final.content]})
        yield TurnEnd(final.stop_reason or "end_turn")


# (scenario, agent, what the timeline must say: the request, the fault, the broken invariant)
CASES = {
    "partial message kept": (
        "stream/error_event_overloaded.yaml", NaiveAgent, [
            "→ request 1: POST /v1/messages (1 messages) ← text · event: error overloaded_error after event",
            "→ request 2: POST /v1/messages (2 messages)",
            "✗ request 2 keeps the half-streamed text of request 1's broken answer in its history: 'Hello! How can I help'",
        ],
    ),
    "error event treated as fatal": (
        "stream/error_event_overloaded.yaml", ErrorEventIsFatal, [
            "→ request 1: POST /v1/messages (1 messages) ← text · event: error overloaded_error after event",
            "✗ turn 1 has 2 replies but the agent made 1 request(s)",
            "✗ turn 1: expect.policies.retries.end: expected end_turn, the agent's TurnEnd says error",
        ],
    ),
    "tool_use left without a result": (
        "interrupts/ctrl_c_while_streaming.yaml", NaiveAgent, [
            "← text+tool_use · Ctrl+C after event 11 [200]",
            "→ request 2: POST /v1/messages (3 messages) ← rejected [400] ✗ invalid: messages.2: "
            "`tool_use` ids were found without `tool_result` blocks immediately after: toolu_harness_000001_1.",
            "✗ the next turn after the scenario does not work: it ended with error",
            "⚠ turn 1: run_turn raised KeyboardInterrupt",
        ],
    ),
    "a connection lost mid-stream escapes": (
        "stream/cut_after_event.yaml", NaiveAgent, [
            "→ request 1: POST /v1/messages (1 messages) ← text · cut after event",
            "(FIN) [200]",
            f"⚠ turn 1: run_turn raised {STREAM_CUT_RAISES}: ",
            "peer closed connection without sending complete message body",
            "✗ turn 1 has 2 replies but the agent made 1 request(s)",
        ],
    ),
}


def run(name: str, factory: Any = None) -> Outcome:
    return run_scenario(load_scenario(SCENARIOS / name), agent=factory)


@pytest.mark.parametrize("bug", sorted(CASES))
def test_a_broken_agent_fails_with_a_readable_timeline(bug: str) -> None:
    name, agent, wanted_lines = CASES[bug]
    outcome = run(name, lambda ctx: agent(ctx.client.with_options(max_retries=0), ctx.clock, ctx.workspace))
    timeline = format_timeline(outcome)
    assert not outcome.passed, timeline
    assert timeline.startswith(f"scenario {outcome.scenario.name} ("), timeline
    for wanted in wanted_lines:
        assert wanted in timeline, f"{wanted!r} is not in the timeline:\n{timeline}"
    assert all(f"  ✗ {problem}" in timeline for problem in outcome.problems)


@pytest.mark.parametrize("name", sorted({name for name, _, _ in CASES.values()}))
def test_mini_agent_passes_the_same_scenarios(name: str) -> None:
    outcome = run(name)
    assert outcome.passed, format_timeline(outcome)


def test_the_naive_retry_resends_the_half_written_message() -> None:
    """The body diff shows why: the retried request carries the partial answer as an
    assistant message, which the model would take as its own prefill."""
    outcome = run("stream/error_event_overloaded.yaml", naive_factory)
    first, second = (r.body["messages"] for r in outcome.requests[:2])
    assert first == [{"role": "user", "content": "Hello"}]
    assert second[1] == {"role": "assistant", "content": [{"type": "text", "text": "Hello! How can I help"}]}
