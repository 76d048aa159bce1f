"""Ctrl+C after the stop reason (``message_delta``, then ``message_stop``) reached the
client: the answer came whole, so an agent that keeps it keeps no half-streamed text; one
that keeps an answer Ctrl+C cut short is still caught."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from harness.agents.context import AgentContext
from harness.library.properties.history_checks import no_partial_messages
from harness.scenario.format.loader import load_scenario
from harness.scenario.run.runner import run_scenario
from harness.scenario.run.timeline import format_timeline

POLICIES = {"retry_is_invisible": True}


class KeepsWhatCame:
    """Streams; on Ctrl+C keeps the answer it has once its stop reason came (``always``:
    whatever came)."""

    harness_policies = POLICIES

    def __init__(self, ctx: AgentContext, *, always: bool = False) -> None:
        self.client, self.always = ctx.client.with_options(max_retries=0), always
        self.history: list[dict[str, Any]] = []

    def run_turn(self, text: str) -> None:
        self.history.append({"role": "user", "content": text})
        snapshot = None
        try:
            with self.client.messages.stream(model="claude-sonnet-4-5", max_tokens=256, messages=self.history) as stream:
                for _ in stream:
                    snapshot = stream.current_message_snapshot
        except KeyboardInterrupt:
            pass
        if snapshot is not None and (snapshot.stop_reason or self.always) and snapshot.content:
            self.history.append({"role": "assistant", "content": [b.model_dump() for b in snapshot.content]})
        else:
            self.history.append({"role": "assistant", "content": "(interrupted)"})


def _scenario(tmp_path: Path, after_event: int) -> Any:
    path = tmp_path / "ctrl_c.yaml"
    path.write_text(f"name: ctrl-c\nabout: Ctrl+C after event {after_event}.\nturns:\n  - user: Fix the bug\n"
                    f"    replies:\n      - text: Done, the tests pass again now.\n        interrupt: {after_event}\n"
                    "    expect: {requests: 1}\n")
    return load_scenario(path)


def test_ctrl_c_after_message_stop_leaves_the_answer_whole(tmp_path: Path) -> None:
    agents: list[KeepsWhatCame] = []
    outcome = run_scenario(_scenario(tmp_path, 6), agent=lambda ctx: agents.append(KeepsWhatCame(ctx)) or agents[-1])
    assert agents[0].history[1]["content"][0]["text"] == "Done, the tests pass again now."  # kept
    assert outcome.passed, format_timeline(outcome)
    assert no_partial_messages(outcome) == []


def test_keeping_an_answer_ctrl_c_cut_short_is_still_caught(tmp_path: Path) -> None:
    outcome = run_scenario(_scenario(tmp_path, 3), agent=lambda ctx: KeepsWhatCame(ctx, always=True))
    assert not outcome.passed
    assert any("half-streamed text" in str(problem) for problem in outcome.problems), format_timeline(outcome)
    assert no_partial_messages(outcome)
