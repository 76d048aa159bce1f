"""A text delta before its `content_block_start`: the SDK's stream raises, so mini_agent asks
again; a client that reads the raw events and starts a block when anything of it comes
(as pydantic-ai does) has the whole message, and taking it is no failure. One that drops
what came early keeps a scrambled answer and is caught."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anthropic

from harness.agents.context import AgentContext
from harness.scenario.format.loader import load_scenario
from harness.scenario.run.runner import run_scenario

SWAPPED = Path(__file__).resolve().parent.parent / "harness" / "library" / "scenarios" / "stream" / "swapped_events.yaml"


class ReadsRawEvents:
    """Assembles each answer's text from the raw events; ``lenient``: a delta that comes
    before its block's start still counts."""

    harness_policies = {"retries": 2}

    def __init__(self, ctx: AgentContext, *, lenient: bool = True) -> None:
        self.client, self.lenient = ctx.client.with_options(max_retries=0), lenient
        self.history: list[dict[str, Any]] = []

    def run_turn(self, text: str) -> None:
        self.history.append({"role": "user", "content": text})
        for _ in range(3):
            try:
                answer = self.ask()
            except (anthropic.APIError, RuntimeError):
                continue
            self.history.append({"role": "assistant", "content": answer})
            return
        self.history.pop()

    def ask(self) -> str:
        texts: dict[int, str] = {}
        started: set[int] = set()
        stop = None
        for event in self.client.messages.create(model="claude-sonnet-4-5", max_tokens=256, messages=self.history,
                                                 stream=True):
            if event.type == "content_block_start":
                started.add(event.index)
            elif event.type == "content_block_delta" and event.delta.type == "text_delta":
                if self.lenient or event.index in started:
                    texts[event.index] = texts.get(event.index, "") + event.delta.text
            elif event.type == "message_delta":
                stop = event.delta.stop_reason
        if stop is None:
            raise RuntimeError("the stream ended before message_delta")
        return "".join(texts[k] for k in sorted(texts)).strip() or "(nothing)"


def test_a_client_that_starts_a_block_when_its_delta_comes_first_may_take_the_answer() -> None:
    outcome = run_scenario(load_scenario(SWAPPED), agent=ReadsRawEvents)
    assert outcome.passed, [str(p) for p in outcome.problems]
    assert len(outcome.turns[0].requests) == 1
    assert any("come whole for a client that reads it so" in note for note in outcome.notes), outcome.notes


def test_a_client_that_drops_the_early_delta_keeps_a_broken_answer_and_fails() -> None:
    outcome = run_scenario(load_scenario(SWAPPED), agent=lambda ctx: ReadsRawEvents(ctx, lenient=False))
    assert not outcome.passed


def test_mini_agent_still_asks_again() -> None:
    outcome = run_scenario(load_scenario(SWAPPED))
    assert outcome.passed and len(outcome.turns[0].requests) == 2


# -- a whole answer the SDK's parser gave up on, taken by a client that reads it leniently ------

SAME_TEXT_TWICE = """\
name: same-text-twice
about: >-
  The first answer comes whole, but its tool input opens with a fragment the SDK's
  accumulating parser gives up on (" "); the second says the same words and breaks after
  them. The text in the history is the first answer's, whole, not the broken one's.
workspace: {README.md: "# Demo\\n"}
turns:
  - user: Fix the bug
    replies:
      - text: Reading it.
        tool_use: {name: Read, json: [" ", '{"file_path": "README.md"}']}
      - text: Reading it.
        cut: {after_event: 4}
      - text: Done.
"""


class ReadsRawTools(ReadsRawEvents):
    """Reads text and tool inputs from the raw events, each input once its block stops;
    runs Read; asks again after a broken stream, as it was (a retry that adds nothing)."""

    harness_policies = {"retries": 2, "retry_is_invisible": True}
    READ = {"name": "Read", "description": "Read a file.", "input_schema": {
        "type": "object", "properties": {"file_path": {"type": "string"}}, "required": ["file_path"]}}

    def __init__(self, ctx: AgentContext) -> None:
        super().__init__(ctx)
        self.workspace = ctx.workspace

    def run_turn(self, text: str) -> None:
        self.history.append({"role": "user", "content": text})
        for _ in range(6):
            try:
                blocks = self.ask_blocks()
            except (anthropic.APIError, RuntimeError):
                continue
            self.history.append({"role": "assistant", "content": blocks})
            calls = [b for b in blocks if b["type"] == "tool_use"]
            if not calls:
                return
            self.history.append({"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": c["id"], "content": (self.workspace / c["input"]["file_path"]).read_text()}
                for c in calls]})

    def ask_blocks(self) -> list[dict[str, Any]]:
        blocks: dict[int, dict[str, Any]] = {}
        pieces: dict[int, str] = {}
        stop = None
        for event in self.client.messages.create(model="claude-sonnet-4-5", max_tokens=256, messages=self.history,
                                                 tools=[self.READ], stream=True):
            if event.type == "content_block_start":
                blocks[event.index] = event.content_block.model_dump(include={"type", "text", "id", "name"})
            elif event.type == "content_block_delta" and event.delta.type == "text_delta":
                blocks[event.index]["text"] += event.delta.text
            elif event.type == "content_block_delta" and event.delta.type == "input_json_delta":
                pieces[event.index] = pieces.get(event.index, "") + event.delta.partial_json
            elif event.type == "content_block_stop" and blocks[event.index]["type"] == "tool_use":
                blocks[event.index]["input"] = json.loads(pieces.get(event.index) or "{}")
            elif event.type == "message_delta":
                stop = event.delta.stop_reason
        if stop is None:
            raise RuntimeError("the stream ended before message_delta")
        return [blocks[k] for k in sorted(blocks)]


def test_the_text_of_a_whole_answer_the_sdk_gave_up_on_is_not_taken_for_a_broken_ones(tmp_path: Path) -> None:
    (tmp_path / "same.yaml").write_text(SAME_TEXT_TWICE)
    outcome = run_scenario(load_scenario(tmp_path / "same.yaml"), agent=ReadsRawTools)
    assert outcome.passed, [str(p) for p in outcome.problems]
    assert [len(r.body["messages"]) for r in outcome.requests[:3]] == [1, 3, 3]
    assert not any("half-streamed" in note for note in outcome.notes), outcome.notes
