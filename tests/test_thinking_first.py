"""With ``thinking: {type: enabled}`` the real API opens each assistant turn with a thinking
block, and refuses a tool loop whose first assistant message lost it ("Expected `thinking`
or `redacted_thinking`, but found `tool_use`", quoted in public reports against clients that
dropped it). The fake API thinks first where the real one would, and holds an agent that
drops the block to that 400; an agent that keeps it, one with adaptive thinking, a forced
tool and a reply served as written meet no alarm."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from harness.agents.context import AgentContext
from harness.oracle import check_request
from harness.oracle.conversations import ConversationChecker
from harness.oracle.thinking_kept import calls_after_thinking
from harness.scenario.fake_api.thinking_first import THOUGHT, thinks_first
from harness.scenario.format.loader import load_scenario
from harness.scenario.run.runner import run_scenario
from harness.wire.faults.cut import Cut
from harness.wire.replies import Reply
from harness.wire.sse import message_events

READ = {"name": "read_file", "description": "Read a file.",
        "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}}
ENABLED = {"type": "enabled", "budget_tokens": 1024}
SCENARIO = """\
name: thinking-tool-loop
about: A turn that reads a file, then answers; a second turn that answers at once.
workspace: {notes.txt: "remember this\\n"}
turns:
  - user: Read the notes
    replies:
      - text: Reading.
        tool_use: {name: Read, input: {file_path: notes.txt}}
      - text: Reading again.
        tool_use: {name: Read, input: {file_path: notes.txt}}
      - text: They say "remember this".
    expect: {requests: 3, end: end_turn}
  - user: Thanks
    replies:
      - text: You are welcome.
    expect: {requests: 1, end: end_turn}
"""


class Thinks:
    """A tool-using agent with thinking; ``keep=False`` drops the thinking blocks it gets."""

    tool_map = {"Read": {"name": "read_file", "input": {"file_path": "path"}}}

    def __init__(self, ctx: AgentContext, *, thinking: dict = ENABLED, keep: bool = True, stream: bool = False,
                 tool_choice: dict | None = None) -> None:
        self.client, self.workspace = ctx.client.with_options(max_retries=0), ctx.workspace
        self.thinking, self.keep, self.stream, self.tool_choice = thinking, keep, stream, tool_choice
        self.history: list[dict[str, Any]] = []

    def ask(self) -> Any:
        options: dict[str, Any] = {"tool_choice": self.tool_choice} if self.tool_choice else {}
        arguments = dict(model="claude-sonnet-4-5", max_tokens=4096, thinking=self.thinking, tools=[READ],
                         messages=self.history, **options)
        if self.stream:
            with self.client.messages.stream(**arguments) as stream:
                return stream.get_final_message()
        return self.client.messages.create(**arguments)

    def run_turn(self, text: str) -> None:
        self.history.append({"role": "user", "content": text})
        while True:
            message = self.ask()
            blocks = [b.model_dump(exclude_none=True) for b in message.content
                      if (self.keep or b.type not in ("thinking", "redacted_thinking")) and not (b.type == "text" and not b.text)]
            if any(b["type"] not in ("thinking", "redacted_thinking") for b in blocks):  # an empty answer is not kept
                self.history.append({"role": "assistant", "content": blocks})
            calls = [b for b in message.content if b.type == "tool_use"]
            if not calls:
                return
            self.history.append({"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": call.id,
                 "content": (self.workspace / call.input["path"]).read_text()} for call in calls]})
            self.tool_choice = None  # forced once at most


def run(tmp_path: Path, text: str = SCENARIO, **agent: Any) -> Any:
    path = tmp_path / "scenario.yaml"
    path.write_text(text)
    return run_scenario(load_scenario(path), agent=lambda ctx: Thinks(ctx, **agent))


def thinking_blocks(outcome: Any) -> list[int]:
    """For each request served, how many thinking blocks its answer held."""
    return [r.plan.body.count(b'"type":"thinking"') + r.plan.body.count(b'"type": "thinking"')
            for r in outcome.requests if r.reply is not None]


@pytest.mark.parametrize("stream", [False, True], ids=["create", "stream"])
def test_the_first_answer_of_each_turn_thinks_and_an_agent_that_keeps_it_passes(tmp_path: Path, stream: bool) -> None:
    outcome = run(tmp_path, stream=stream)
    assert outcome.passed, [str(p) for p in outcome.problems]
    assert [r.reply.thinks for r in outcome.requests] == [True, False, False, True, True]  # the last: the probe turn
    second = outcome.requests[1].body["messages"][1]["content"][0]
    assert second == {"type": "thinking", "thinking": THOUGHT, "signature": second["signature"]}


@pytest.mark.parametrize("stream", [False, True], ids=["create", "stream"])
def test_an_agent_that_drops_the_thinking_in_its_tool_loop_gets_the_real_400(tmp_path: Path, stream: bool) -> None:
    outcome = run(tmp_path, keep=False, stream=stream)
    assert not outcome.passed
    refused = outcome.requests[1]
    assert refused.plan.status == 400
    assert refused.violations[0].api_text.startswith(
        "messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found `text`. When `thinking` "
        "is enabled, a final `assistant` message must start with a thinking block")


def test_adaptive_thinking_may_skip_thinking_so_nothing_is_added_or_judged(tmp_path: Path) -> None:
    outcome = run(tmp_path, thinking={"type": "adaptive"}, keep=False)
    assert outcome.passed, [str(p) for p in outcome.problems]
    assert not any(r.reply.thinks for r in outcome.requests)


def test_a_forced_tool_with_thinking_enabled_is_the_apis_400_and_with_adaptive_thinking_passes(tmp_path: Path) -> None:
    refused = run(tmp_path, tool_choice={"type": "any"})
    assert refused.requests[0].plan.status == 400
    assert refused.requests[0].violations[0].api_text == "Thinking may not be enabled when tool_choice forces tool use."
    adaptive = run(tmp_path, thinking={"type": "adaptive"}, tool_choice={"type": "tool", "name": "read_file"})
    assert adaptive.passed, [str(p) for p in adaptive.problems]
    body = {"model": "m", "max_tokens": 4096, "messages": [{"role": "user", "content": "hi"}], "thinking": ENABLED}
    assert check_request({**body, "tool_choice": {"type": "auto"}}) == []
    assert check_request({**body, "thinking": {"type": "adaptive"}, "tool_choice": {"type": "any"}}) == []


def test_a_reply_served_as_written_or_with_a_fault_that_names_bytes_keeps_its_own_events(tmp_path: Path) -> None:
    text = SCENARIO.replace("      - text: Reading.\n", "      - text: Reading.\n        as_written: true\n")
    outcome = run(tmp_path, text, keep=False)
    assert outcome.passed, [str(p) for p in outcome.problems]  # nothing thought first: nothing to drop
    assert [r.reply.thinks for r in outcome.requests] == [False, False, False, True, True]
    opening = {"thinking": ENABLED, "messages": [{"role": "user", "content": "hi"}]}
    at_a_byte = Reply(message={"text": "Hello."}, faults=(Cut(after_bytes=900),))
    assert thinks_first(at_a_byte, opening) is at_a_byte
    cut = thinks_first(Reply(message={"text": "Hello."}, faults=(Cut(after_event=3),)), opening)
    events = [message_events(message, message_id="m") for message in ({"text": "Hello."}, cut.message)]
    assert events[1][cut.faults[0].after_event - 1] == {**events[0][2], "index": 1}  # after the same text delta
    recorded = SCENARIO.replace("      - text: Reading.\n", "      - text: Reading.\n        pace: {gaps: [0.01]}\n")
    assert [r.reply.thinks for r in run(tmp_path, recorded).requests] == [False, False, False, True, True]


@pytest.mark.parametrize("stream", [False, True], ids=["create", "stream"])
def test_a_fault_at_an_event_hits_the_scenarios_own_event_with_the_thinking_before_it(tmp_path: Path, stream: bool) -> None:
    text = SCENARIO.replace("      - text: Reading.\n", "      - text: Reading.\n        duplicate: 3\n"
                            "        insert: [{after_event: 3, event: {type: content_block_delta, index: 0, "
                            "delta: {type: text_delta, text: ' Now.'}}}]\n")
    kept = run(tmp_path, text, stream=stream)
    assert kept.passed, [str(p) for p in kept.problems]
    first = kept.requests[0]
    assert first.reply.thinks
    assert not run(tmp_path, text, keep=False, stream=stream).passed
    if not stream:
        return
    plain = run(tmp_path, text, stream=stream, thinking={"type": "adaptive"}).requests[0]  # nothing thought first
    assert not plain.reply.thinks

    def text_events(plan: Any) -> list[tuple[str, int, Any]]:
        return [(e["type"], e.get("index"), e.get("delta", {}).get("text")) for e in plan.events
                if e.get("type") in ("content_block_start", "content_block_delta") and e.get("index") != 0 or e is None]

    shifted = [(kind, index - 1, said) for kind, index, said in text_events(first.plan)]
    assert shifted == [(k, i, t) for k, i, t in [(e["type"], e.get("index"), e.get("delta", {}).get("text"))
                       for e in plain.plan.events if e.get("type") in ("content_block_start", "content_block_delta")]]
    assert " Now." in [t for _, _, t in shifted] and len(shifted) > len(set(shifted))  # inserted, and one duplicated


@pytest.mark.parametrize("noise", ["pings: 2", "drip: {chunk: 32, delay: 0}", "pace: {events_per_s: 50}"])
def test_noise_that_names_no_event_is_served_with_the_thinking_the_real_api_opens_with(tmp_path: Path, noise: str) -> None:
    text = SCENARIO.replace("      - text: Reading.\n", f"      - text: Reading.\n        {noise}\n")
    kept = run(tmp_path, text, stream=True)
    assert kept.passed, [str(p) for p in kept.problems]
    assert [r.reply.thinks for r in kept.requests] == [True, False, False, True, True]
    dropped = run(tmp_path, text, keep=False, stream=True)
    assert not dropped.passed and dropped.requests[1].plan.status == 400


LOOP = [
    {"role": "user", "content": "hi"},
    {"role": "assistant", "content": [{"type": "text", "text": "Reading."},
                                      {"type": "tool_use", "id": "toolu_1", "name": "read_file", "input": {}}]},
    {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "x"}]},
    {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_2", "name": "read_file", "input": {}}]},
    {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_2", "content": "x"}]},
]


def test_the_rule_names_the_loops_first_assistant_message_and_needs_the_servers_memory() -> None:
    body = {"model": "claude-sonnet-4-5", "max_tokens": 4096, "thinking": ENABLED, "messages": LOOP}
    found = check_request(body, thought_calls={"toolu_1"})
    assert [v.path for v in found] == ["messages.1.content.0.type"]
    assert check_request(body) == []  # a recording: what was answered is not known
    assert check_request(body, thought_calls={"toolu_2"}) == []  # the later message never needed thinking
    assert check_request({**body, "thinking": {"type": "adaptive"}}, thought_calls={"toolu_1"}) == []
    new_turn = [*LOOP, {"role": "assistant", "content": "Done."}, {"role": "user", "content": "next"}]
    assert check_request({**body, "messages": new_turn}, thought_calls={"toolu_1"}) == []


def test_the_incremental_checker_gives_the_same_verdict_request_by_request() -> None:
    checker = ConversationChecker()
    for n in range(1, len(LOOP) + 1):
        body = {"model": "claude-sonnet-4-5", "max_tokens": 4096, "thinking": ENABLED, "messages": LOOP[:n]}
        assert checker.check_request(body, thought_calls={"toolu_1"}) == check_request(body, thought_calls={"toolu_1"})


def test_only_an_answer_that_opens_with_thinking_hands_out_thought_calls() -> None:
    def start(block: dict) -> dict:
        return {"type": "content_block_start", "content_block": block}
    call = start({"type": "tool_use", "id": "toolu_9", "name": "x", "input": {}})
    assert calls_after_thinking([start({"type": "thinking", "thinking": ""}), call]) == ["toolu_9"]
    assert calls_after_thinking([start({"type": "redacted_thinking", "data": "x"}), call]) == ["toolu_9"]
    assert calls_after_thinking([start({"type": "text", "text": ""}), call]) == []


def test_a_thinking_budget_under_the_documented_minimum_is_refused() -> None:
    body = {"model": "m", "max_tokens": 4096, "messages": [{"role": "user", "content": "hi"}]}
    low = check_request({**body, "thinking": {"type": "enabled", "budget_tokens": 500}})
    assert [v.api_text for v in low] == ["thinking.enabled.budget_tokens: Input should be greater than or equal to 1024"]
    assert check_request({**body, "thinking": {"type": "enabled", "budget_tokens": 1024}}) == []
    assert check_request({**body, "thinking": {"type": "adaptive"}}) == []


def test_pings_spread_over_the_stream_beside_a_fault_at_an_event_keep_the_reply_as_written(tmp_path: Path) -> None:
    text = SCENARIO.replace("      - text: Reading.\n", "      - text: Reading.\n        pings: 3\n        insert: "
                            "[{after_event: 3, event: {type: content_block_delta, index: 0, delta: {type: future_delta}}}]\n")
    outcome = run(tmp_path, text, stream=True)
    assert outcome.passed, [str(p) for p in outcome.problems]
    assert [r.reply.thinks for r in outcome.requests] == [False, False, False, True, True]


EMPTY_ANSWER = """\
name: empty-answer
about: An empty answer, then what the model says when asked to go on.
turns:
  - user: Anything?
    replies:
      - text: ""
      - text: " and so on."
"""


def test_an_empty_answer_opened_by_the_thinking_the_fake_api_adds_is_still_empty(tmp_path: Path) -> None:
    """Ending the turn there is the agent's policy (`continues_after_empty_answer`), with
    thinking on as off: a note, not "2 replies but 1 request"."""
    for thinking in (ENABLED, {"type": "disabled"}):
        outcome = run(tmp_path, EMPTY_ANSWER, thinking=thinking)
        assert outcome.passed, [str(p) for p in outcome.problems]
        assert any("it ended the turn at an empty answer" in note for note in outcome.notes)
    assert thinking_blocks(run(tmp_path, EMPTY_ANSWER))[0] == 1
