"""A text delta before its `content_block_start`: the SDK's stream raises, so mini_agent asks
again; a client that reads the raw events and starts a block when anything of it comes
(as pydantic-ai does) has the whole message, and taking it is no failure. One that drops
what came early keeps a scrambled answer and is caught."""

from __future__ import annotations

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
