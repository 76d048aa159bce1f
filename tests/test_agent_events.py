"""Agent events are the harness's own types (``harness.agents.events``): an agent that
yields them is read, one that yields objects of its own is counted and never misread,
and mini_agent's adapter translates its events both ways while Ctrl+C and ``close``
still reach mini_agent's own turn."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, get_args

import pytest

from harness import AgentContext
from harness.agents import events
from harness.agents.mini_agent import (
    EventRenderer,
    harness_event,
    mini_agent_factory,
    own_event,
)
from harness.oracle import check_history
from harness.scenario.fake_api.clients import TEST_API_KEY, async_client, sync_client
from harness.scenario.fake_api.transport import (
    AsyncScenarioTransport,
    ScenarioTransport,
)
from harness.scenario.format.loader import load_scenario
from harness.scenario.format.problem import Kind
from harness.scenario.run.runner import run_scenario
from harness.scenario.run.timeline import format_timeline
from harness.wire.replies import Reply
from mini_agent import events as own_events
from mini_agent.history import INTERRUPTED_RESULT
from mini_agent.render import Renderer

WRITE = Reply(message={"text": "Writing it.", "tool_use": {"name": "Write", "input": {"file_path": "a.txt", "content": "b"}}})
DONE = Reply(message={"text": "Done."})
MINI_AGENT_EVENTS = [
    own_events.Notice("API Error: 529 Overloaded · Retrying in 1.0s · attempt 1/5", "warning"),
    own_events.TextDelta("Hello"),
    own_events.ToolCall("toolu_1", "Read", {"file_path": "README.md"}),
    own_events.ToolResult("toolu_1", "Read", "1\t# Demo\n2\tline\n", False),
    own_events.ToolResult("toolu_2", "Bash", "<tool_use_error>no such command</tool_use_error>", True),
    own_events.MessageDone({"role": "assistant", "content": []}, "end_turn", {"output_tokens": 3}),
    own_events.TurnEnd("end_turn"),
]
SCENARIO = """\
name: narrated
about: One answer; the agent says what it does.
turns:
  - user: hi
    replies:
      - text: Hello.
    expect: {{notices: ["{notice}"], text: Hello, end: end_turn}}
"""


def mini_agent(tmp_path: Path, replies: list[Reply]) -> Any:
    transport = ScenarioTransport(replies)
    clients = sync_client(transport), async_client(AsyncScenarioTransport(transport.responder))
    return mini_agent_factory()(AgentContext(*clients, tmp_path, transport.clock, TEST_API_KEY))


def test_every_mini_agent_event_becomes_the_harness_s_and_comes_back_unchanged() -> None:
    assert {type(e) for e in MINI_AGENT_EVENTS} == set(get_args(own_events.Event))  # every kind it has
    for event in MINI_AGENT_EVENTS:
        translated = harness_event(event)
        assert isinstance(translated, events.Event) and not isinstance(translated, type(event))
        assert own_event(translated) == event


def test_the_adapter_s_renderer_prints_what_the_repl_prints() -> None:
    repl, adapter = Renderer(), EventRenderer()
    expected = "".join(repl.render(e) for e in MINI_AGENT_EVENTS) + repl.render_close()
    assert "".join(adapter.render(harness_event(e)) for e in MINI_AGENT_EVENTS) + adapter.render_close() == expected
    assert "⚠ API Error: 529" in expected and "⎿  Error: no such command" in expected


def test_ctrl_c_thrown_into_the_adapter_s_turn_reaches_mini_agent(tmp_path: Path) -> None:
    agent = mini_agent(tmp_path, [WRITE, DONE])
    turn = agent.run_turn("write it")
    seen = list(_until_tool_call(turn))
    after = [turn.throw(KeyboardInterrupt), *turn]
    assert all(isinstance(e, events.Event) for e in seen + after)
    assert [e.reason for e in after if isinstance(e, events.TurnEnd)] == ["interrupted"]
    assert not (tmp_path / "a.txt").exists()  # Ctrl+C came before the tool ran
    assert agent.messages[-1]["content"][0]["content"] == INTERRUPTED_RESULT
    assert check_history(agent.messages) == []


def test_closing_the_adapter_s_turn_closes_mini_agent_s(tmp_path: Path) -> None:
    agent = mini_agent(tmp_path, [WRITE, DONE])
    turn = agent.run_turn("write it")
    list(_until_tool_call(turn))
    turn.close()
    assert agent.messages[-1]["content"][0]["content"] == INTERRUPTED_RESULT  # mini_agent's finally ran
    assert check_history(agent.messages) == []
    with pytest.raises(StopIteration):
        next(turn)


def _until_tool_call(turn: Iterator[Any]) -> Iterator[Any]:
    for event in turn:
        yield event
        if isinstance(event, events.ToolCall):
            return


class Narrator:
    """Says what it does with the harness's events."""

    def __init__(self, ctx: Any) -> None:
        self.client = ctx.client.with_options(max_retries=0)

    def run_turn(self, text: str) -> Iterator[Any]:
        yield events.Notice("Asking the model")
        answer = self.client.messages.create(model="claude-opus-5-5", max_tokens=100, messages=[{"role": "user", "content": text}])
        yield events.TextDelta(answer.content[0].text)
        yield events.TurnEnd("end_turn")


@dataclass(frozen=True)
class Notice:
    """An agent's own event that happens to share a name with the harness's."""

    text: str


@dataclass(frozen=True)
class TurnEnd:
    reason: str


class OwnWords(Narrator):
    """Says the same with objects of its own."""

    def run_turn(self, text: str) -> Iterator[Any]:
        translate = {events.Notice: lambda e: Notice(e.text), events.TextDelta: lambda e: e.text,
                     events.TurnEnd: lambda e: TurnEnd("refusal")}
        for event in super().run_turn(text):
            yield translate[type(event)](event)


def narrated(tmp_path: Path, notice: str) -> Any:
    path = tmp_path / "narrated.yaml"
    path.write_text(SCENARIO.format(notice=notice), encoding="utf-8")
    return load_scenario(path)


def test_an_agent_yielding_the_harness_s_events_is_read(tmp_path: Path) -> None:
    outcome = run_scenario(narrated(tmp_path, "Asking"), agent=Narrator)
    assert outcome.passed and outcome.not_checked == [], [str(p) for p in outcome.problems]
    assert "· notice: Asking the model" in format_timeline(outcome)
    [problem] = run_scenario(narrated(tmp_path, "Retrying"), agent=Narrator).problems
    assert problem.kind is Kind.EXPECTATION and "no notice matching 'Retrying'" in problem.text


def test_an_agent_s_own_objects_are_counted_but_not_read(tmp_path: Path) -> None:
    """Its ``Notice`` is not a notice and its ``TurnEnd("refusal")`` not the end: the
    expectations that need events are not checked, and the wire says how the turn ended."""
    scenario = narrated(tmp_path, "Retrying")
    outcome = run_scenario(scenario, agent=OwnWords)
    assert outcome.passed, [str(p) for p in outcome.problems]
    assert outcome.not_checked == ["turn 1: expect.notices (needs agent events)", "turn 1: expect.text (needs agent events)"]
    assert len(outcome.turns[0].events) == 3 and outcome.turns[0].end is None
    assert "notice:" not in format_timeline(outcome)


def test_an_agent_s_own_objects_count_for_an_interrupt_at_an_event(tmp_path: Path) -> None:
    path = tmp_path / "closed.yaml"
    path.write_text(SCENARIO.format(notice="Asking").replace("    expect:", "    interrupt: {at_event: 2, close: true}\n    expect:"),
                    encoding="utf-8")
    outcome = run_scenario(load_scenario(path), agent=OwnWords)
    first = outcome.turns[0]
    assert first.interrupted and first.closed and [type(e) for _, _, e in first.events] == [Notice, str]
