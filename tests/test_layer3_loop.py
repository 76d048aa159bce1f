"""Layer 3: the loop ends turns on bad stop reasons and always leaves a valid history."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from harness.oracle import check_history
from harness.wire.faults import Interrupt
from harness.wire.replies import Reply
from mini_agent.events import MessageDone, Notice, ToolCall, TurnEnd
from mini_agent.history import INTERRUPTED_RESULT
from mini_agent.loop import Agent
from mini_agent.tools import Read, Write

DONE = Reply(message={"text": "Done."})


class ControlC:
    """A tool during which the user presses Ctrl+C."""

    name = "Slow"
    description = "Takes a while."
    input_schema: dict[str, Any] = {"type": "object", "properties": {}}

    def run(self, args: dict[str, Any], cwd: Path) -> str:
        raise KeyboardInterrupt


def test_write_truncated_by_max_tokens_is_not_executed(agent_with, tmp_path):
    truncated = Reply(
        message={"tool_use": {"name": "Write", "input": {"file_path": "big.txt", "content": "part"}}, "stop_reason": "max_tokens"}
    )
    run = agent_with([truncated, DONE])
    run.turn("write a big file")
    assert not (tmp_path / "big.txt").exists()
    [result] = run.tool_results()
    assert result.is_error and "Split the work" in result.content
    assert run.end() == "end_turn"
    assert check_history(run.agent.messages) == []


def test_refusal_ends_the_turn_with_a_notice(agent_with):
    run = agent_with([Reply(message={"text": "I can't help with that.", "stop_reason": "refusal"}), DONE])
    run.turn("something bad")
    assert run.end() == "refusal"
    assert any("declined" in n for n in run.notices())
    run.turn("something fine")
    assert run.end() == "end_turn"
    assert check_history(run.agent.messages) == []


def test_refusal_with_no_content_leaves_no_empty_message(agent_with):
    run = agent_with([Reply(message={"stop_reason": "refusal"}), DONE])
    run.turn("something bad")
    run.turn("something fine")
    assert check_history(run.agent.messages) == []
    assert all(m["content"] for m in run.agent.messages)


def test_pause_turn_continues_with_the_same_history(agent_with):
    run = agent_with([Reply(message={"text": "Searching", "stop_reason": "pause_turn"}), DONE])
    run.turn("search")
    assert run.end() == "end_turn"
    second = run.transport.requests[1].body["messages"]
    assert second[-1]["role"] == "assistant" and second[-1]["content"][0]["text"] == "Searching"


def test_context_window_exceeded_ends_the_turn(agent_with):
    run = agent_with([Reply(message={"text": "Partial", "stop_reason": "model_context_window_exceeded"})])
    run.turn("read everything")
    assert run.end() == "context_window"
    assert any("context window" in n for n in run.notices())


def test_tool_round_trip_reads_a_file(agent_with, tmp_path):
    (tmp_path / "README.md").write_text("# Demo\n")
    run = agent_with([Reply(message={"tool_use": {"name": "Read", "input": {"file_path": "README.md"}}}), DONE])
    events = run.turn("read it")
    [call] = [e for e in events if isinstance(e, ToolCall)]
    [result] = run.tool_results()
    assert call.name == "Read" and "# Demo" in result.content and not result.is_error
    assert run.transport.requests[1].body["messages"][-1]["content"][0]["tool_use_id"] == call.id
    assert check_history(run.agent.messages) == []


def test_ctrl_c_during_a_tool_leaves_a_repaired_valid_history(agent_with):
    two_tools = {"tool_use": [{"name": "Read", "input": {"file_path": "x"}}, {"name": "Slow", "input": {}}]}
    run = agent_with([Reply(message=two_tools), DONE], tools=[Read(), ControlC()])
    run.turn("go")
    assert run.end() == "interrupted"
    results = run.agent.messages[-1]["content"]
    assert [r["is_error"] for r in results] == [True, True]
    assert "File does not exist" in results[0]["content"] and results[1]["content"] == INTERRUPTED_RESULT
    assert check_history(run.agent.messages) == []
    run.turn("next")
    assert run.end() == "end_turn"
    assert run.transport.requests[-1].violations == []


def test_closing_the_turn_generator_mid_tool_repairs_the_history(agent_with):
    run = agent_with([Reply(message={"tool_use": {"name": "Write", "input": {"file_path": "a", "content": "b"}}}), DONE])
    turn = run.agent.run_turn("write")
    for event in turn:
        if isinstance(event, ToolCall):
            break
    turn.close()
    assert run.agent.messages[-1]["content"][0]["content"] == INTERRUPTED_RESULT
    assert check_history(run.agent.messages) == []


def test_ctrl_c_while_streaming_ends_the_turn_and_the_next_works(agent_with):
    run = agent_with([Reply(message={"text": "Long answer coming"}, faults=(Interrupt(3),)), DONE])
    run.turn("go")
    assert run.end() == "interrupted"
    assert [m["role"] for m in run.agent.messages] == ["user"]
    run.turn("again")
    assert run.end() == "end_turn"
    assert check_history(run.agent.messages) == []


class KeyErrorAgent(Agent):
    """An agent with a bug in its own tool handling."""

    def _run_tools(self, tool_uses):  # type: ignore[override]
        yield ToolCall(tool_uses[0]["id"], tool_uses[0]["name"], tool_uses[0]["input"])
        raise KeyError("file_path")


def test_a_key_error_in_our_own_code_does_not_escape_the_turn(agent_with):
    reply = Reply(message={"tool_use": {"name": "Write", "input": {"file_path": "a", "content": "b"}}})
    run = agent_with([reply, DONE], agent_class=KeyErrorAgent)
    events = run.turn("go")
    assert run.end() == "internal_error"
    assert any(isinstance(e, Notice) and "KeyError" in e.text for e in events)
    assert check_history(run.agent.messages) == []
    run.turn("next")
    assert run.end() == "end_turn"


def test_tool_errors_reach_the_model_as_error_results(agent_with):
    bad = {"tool_use": [{"name": "Read", "input": {"path": "README.md"}}, {"name": "Nope", "input": {}}]}
    run = agent_with([Reply(message=bad), DONE], tools=[Read(), Write()])
    run.turn("go")
    results = run.tool_results()
    assert all(r.is_error for r in results)
    assert "`file_path` is missing" in results[0].content and "`path`" in results[0].content
    assert "No such tool" in results[1].content
    sent = run.transport.requests[1].body["messages"][-1]["content"]
    assert [b["is_error"] for b in sent] == [True, True]


def test_usage_is_totalled_across_requests(agent_with):
    usage = {"input_tokens": 100, "output_tokens": 7}
    run = agent_with([Reply(message={"tool_use": {"name": "Read", "input": {"file_path": "x"}}, "usage": usage}),
                      Reply(message={"text": "ok", "usage": usage})])
    events = run.turn("go")
    assert sum(isinstance(e, MessageDone) for e in events) == 2
    assert run.agent.usage["input_tokens"] == 200 and run.agent.usage["output_tokens"] == 14
    assert run.agent.status()["requests"] == 2
    assert isinstance(events[-1], TurnEnd)
