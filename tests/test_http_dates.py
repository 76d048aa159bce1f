"""An HTTP date the fake API serves (``retry-after: <date>``) means to the agent's own
clock what it means to the run: an agent that reads it against ``time.time()``, as the
SDK does and as a production agent would, waits what the run asked, wherever the agent
meets the fake API (a scenario run, the session state machine, the ``fault_api`` fixture).
"""

from __future__ import annotations

import email.utils
import time
from pathlib import Path
from typing import Any, Callable

import anthropic
import pytest

from harness.agents.context import AgentContext
from harness.library.properties import test_session_machine as machine
from harness.scenario.format.loader import load_scenario
from harness.scenario.run.runner import run_scenario
from harness.scenario.run.timeline import format_timeline
from harness.scenario.run.wire_session import WireSession
from harness.strategies import Schedule
from harness.wire.clock import EPOCH_ORIGIN
from harness.wire.replies import Reply

IN_TWO_SECONDS = email.utils.formatdate(EPOCH_ORIGIN + 2, usegmt=True)  # a scenario's dates start at EPOCH_ORIGIN
DATED_RETRY = f"""\
name: dated-retry
about: A 529 that asks for a wait as an HTTP date two seconds on, then the answer.
turns:
  - user: Hello
    replies:
      - error: overloaded
        headers: {{retry-after: "{IN_TWO_SECONDS}"}}
      - text: Hi.
probe: false
"""


class SdkRetries:
    """Leaves the retries to the SDK (the context's client, its default ``max_retries``),
    which reads an HTTP date against ``time.time()``."""

    def __init__(self, ctx: AgentContext) -> None:
        self.client = ctx.client
        self.messages: list[dict[str, Any]] = []

    def run_turn(self, text: str) -> None:
        self.messages.append({"role": "user", "content": text})
        try:
            reply = self.client.messages.create(model="claude-opus-5-5", max_tokens=100, messages=self.messages)
        except anthropic.APIError:
            self.messages.pop()
            return
        self.messages.append({"role": "assistant", "content": [{"type": "text", "text": b.text} for b in reply.content
                                                                if b.type == "text" and b.text.strip()] or "(empty)"})


class ReadsTheDateItself:
    """Its own retries on a client without any, the wait read from ``retry-after`` against
    the real clock, slept on the sleep it was given."""

    def __init__(self, client: anthropic.Anthropic, sleep: Callable[[float], None]) -> None:
        self.client, self.sleep = client, sleep

    def ask(self, text: str) -> None:
        for _ in range(3):
            try:
                self.client.messages.create(model="claude-opus-5-5", max_tokens=100, messages=[{"role": "user", "content": text}])
                return
            except anthropic.APIStatusError as error:
                date = email.utils.parsedate_to_datetime(error.response.headers["retry-after"])
                self.sleep(max(0.0, date.timestamp() - time.time()))


def test_a_scenario_run_serves_dates_the_sdk_reads_right(tmp_path: Path) -> None:
    (tmp_path / "s.yaml").write_text(DATED_RETRY)
    outcome = run_scenario(load_scenario(tmp_path / "s.yaml"), agent=SdkRetries)
    assert outcome.passed, format_timeline(outcome)
    assert len(outcome.sleeps) == 1 and outcome.sleeps[0][2] > 1.0  # the SDK waited the date, not its own backoff


def test_the_session_machine_serves_dates_the_sdk_reads_right(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("HARNESS_FOUND_DIR", str(tmp_path))  # where a failure would save its counterexample
    monkeypatch.setattr(machine, "AGENT", f"{__name__}:SdkRetries")
    monkeypatch.setattr(machine, "AGENT_EVENTS", False)
    session = machine.AgentSession()
    schedule = Schedule(
        replies=(Reply(error="overloaded", headers={"retry-after": IN_TWO_SECONDS}), Reply(message={"text": "Hi."})),
        requests=2, end="end_turn", budget=2.0, answers=(1,), needs=("retries",),
    )
    try:
        session.user_line_under_faults(user="Hello", schedule=schedule)  # raises AssertionError on any problem
        session.history_is_valid()
        assert len(session.responder.requests) == 2
        assert session.responder.clock.sleeps[0] > 1.0
    finally:
        session.teardown()


def test_the_fault_api_fixture_serves_dates_a_production_agent_reads_right(tmp_path: Path) -> None:
    (tmp_path / "s.yaml").write_text(DATED_RETRY)
    session = WireSession.from_file(tmp_path / "s.yaml")
    ReadsTheDateItself(session.client(), session.clock.sleep).ask("Hello")
    assert [str(p) for p in session.problems()] == []
    assert session.clock.sleeps[0] > 1.0
