"""Time as the agent sees it. An HTTP date the fake API serves (``retry-after: <date>``) means to the agent's own
clock what it means to the run: an agent that reads it against ``time.time()``, as the
SDK does and as a production agent would, waits what the run asked, wherever the agent
meets the fake API (a scenario run, the session state machine, the ``fault_api`` fixture);
and on the loopback socket, where a client waits in real time, the rate limits refill as it
waits, a Ctrl+C that cannot reach the client there makes the scenario not applicable, and
the session state machine serves a client there too.
"""

from __future__ import annotations

import email.utils
import time
from pathlib import Path
from typing import Any, Callable

import anthropic
import httpx2
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

IN_THIRTY_SECONDS = email.utils.formatdate(EPOCH_ORIGIN + 30, usegmt=True)  # a scenario's dates start at EPOCH_ORIGIN
OVER_BACKOFF = 20.0  # the SDK's own backoff is 8 s at most: a longer wait read the date (however slow the machine)
DATED_RETRY = f"""\
name: dated-retry
about: A 529 that asks for a wait as an HTTP date thirty seconds on, then the answer.
turns:
  - user: Hello
    replies:
      - error: overloaded
        headers: {{retry-after: "{IN_THIRTY_SECONDS}"}}
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
    assert len(outcome.sleeps) == 1 and outcome.sleeps[0][2] > OVER_BACKOFF  # the SDK waited the date, not its own backoff


def test_the_session_machine_serves_dates_the_sdk_reads_right(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("HARNESS_FOUND_DIR", str(tmp_path))  # where a failure would save its counterexample
    monkeypatch.setattr(machine, "AGENT", f"{__name__}:SdkRetries")
    monkeypatch.setattr(machine, "AGENT_EVENTS", False)
    session = machine.AgentSession()
    schedule = Schedule(
        replies=(Reply(error="overloaded", headers={"retry-after": IN_THIRTY_SECONDS}), Reply(message={"text": "Hi."})),
        requests=2, end="end_turn", budget=30.0, answers=(1,), needs=("retries",),
    )
    try:
        session.user_line_under_faults(user="Hello", schedule=schedule)  # raises AssertionError on any problem
        session.history_is_valid()
        assert len(session.responder.requests) == 2
        assert session.responder.clock.sleeps[0] > OVER_BACKOFF
    finally:
        session.teardown()


def test_the_fault_api_fixture_serves_dates_a_production_agent_reads_right(tmp_path: Path) -> None:
    (tmp_path / "s.yaml").write_text(DATED_RETRY)
    session = WireSession.from_file(tmp_path / "s.yaml")
    ReadsTheDateItself(session.client(), session.clock.sleep).ask("Hello")
    assert [str(p) for p in session.problems()] == []
    assert session.clock.sleeps[0] > OVER_BACKOFF


RATE_LIMITED = """\
name: rate-limited-on-the-socket
about: One request a minute; the second asks again after the 429's retry-after.
limits: {requests_per_minute: 1}
turns:
  - user: Hello
    replies: [{text: Hi.}]
  - user: Again
    replies: [{text: Hi again.}]
probe: false
"""


class OnTheSocket:
    """Its own HTTP client on the loopback ``base_url``, on one connection; on a 429 it
    waits the ``retry-after`` on the socket's clock (the test's), then asks again. The
    server answers one connection's requests in order, so once a listing of the models
    comes back on that connection the 429's answer is over as the server counts it, and
    the wait begins after it, as a real one would."""

    def __init__(self, ctx: AgentContext) -> None:
        one_connection = httpx2.Client(limits=httpx2.Limits(max_connections=1))
        self.client = anthropic.Anthropic(base_url=ctx.base_url, api_key=ctx.api_key, max_retries=0, http_client=one_connection)
        self.statuses: list[int] = []

    def run_turn(self, text: str) -> None:
        for _ in range(3):
            try:
                self.client.messages.create(model="claude-opus-5-5", max_tokens=100, messages=[{"role": "user", "content": text}])
                self.statuses.append(200)
                return
            except anthropic.RateLimitError as error:
                self.statuses.append(429)
                self.client.models.list()
                SOCKET_CLOCK[0] += float(error.response.headers["retry-after"])


SOCKET_CLOCK = [1000.0]


def test_on_the_loopback_socket_the_rate_limits_refill_as_the_client_waits(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from harness.scenario.run import runner

    monkeypatch.setattr(runner, "SOCKET_MONOTONIC", lambda: SOCKET_CLOCK[0])
    (tmp_path / "s.yaml").write_text(RATE_LIMITED)
    agents: list[OnTheSocket] = []
    outcome = run_scenario(load_scenario(tmp_path / "s.yaml"), agent=lambda ctx: agents.append(OnTheSocket(ctx)) or agents[-1])
    assert agents[0].statuses == [200, 429, 200], format_timeline(outcome)
    assert outcome.passed, format_timeline(outcome)


class StreamsOnTheSocket:
    """Streams on its own SDK client on the loopback ``base_url``, and asks again when a
    stream ends early."""

    def __init__(self, ctx: AgentContext) -> None:
        self.client = anthropic.Anthropic(base_url=ctx.base_url, api_key=ctx.api_key, max_retries=0)

    def run_turn(self, text: str) -> None:
        for _ in range(3):
            try:
                with self.client.messages.stream(model="claude-opus-5-5", max_tokens=100,
                                                 messages=[{"role": "user", "content": text}]) as stream:
                    stream.get_final_message()
                return
            except anthropic.APIError:
                continue


CTRL_C_WHILE_STREAMING = """\
name: ctrl-c-while-streaming
about: Ctrl+C after the reply's third event; nothing more in that turn.
turns:
  - user: Hello
    replies:
      - {text: "Hello there, how are you today?", interrupt: 3}
    expect: {requests: 1, end: interrupted}
  - user: Again
    replies: [{text: Hi.}]
"""


def test_a_ctrl_c_that_cannot_reach_a_client_on_the_socket_makes_the_scenario_not_applicable(tmp_path: Path) -> None:
    (tmp_path / "s.yaml").write_text(CTRL_C_WHILE_STREAMING)
    outcome = run_scenario(load_scenario(tmp_path / "s.yaml"), agent=StreamsOnTheSocket)
    assert outcome.not_applicable is not None and "Ctrl+C" in outcome.not_applicable, format_timeline(outcome)
    assert outcome.problems == []


def test_the_session_machine_serves_an_agent_on_the_loopback_socket(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("HARNESS_FOUND_DIR", str(tmp_path))
    monkeypatch.setattr(machine, "AGENT", f"{__name__}:StreamsOnTheSocket")
    monkeypatch.setattr(machine, "AGENT_EVENTS", False)
    session = machine.AgentSession()
    try:
        session.user_line_under_faults(user="Hello", schedule=Schedule(replies=(Reply(message={"text": "Hi."}),), requests=1,
                                                                       end="end_turn", answers=(0,)))
        assert len(session.responder.requests) == 1 and session.responder.requests[0].plan is not None
    finally:
        session.teardown()


SILENT = """\
name: silent-for-long
about: The first answer's first event would come after 900 s; asked again, the answer.
turns:
  - user: Hello
    replies:
      - {text: Hi., pace: {first_event: 900}}
      - {text: Hi.}
"""


def test_a_silence_the_loopback_socket_serves_at_once_makes_the_scenario_not_applicable(tmp_path: Path) -> None:
    (tmp_path / "s.yaml").write_text(SILENT)
    outcome = run_scenario(load_scenario(tmp_path / "s.yaml"), agent=StreamsOnTheSocket)
    assert outcome.not_applicable is not None and "as long as it reads" in outcome.not_applicable, format_timeline(outcome)
    in_process = run_scenario(load_scenario(tmp_path / "s.yaml"), agent=SdkRetries)  # on the virtual clock the wait is served
    assert in_process.not_applicable is None
