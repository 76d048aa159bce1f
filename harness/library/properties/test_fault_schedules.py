"""Layers 1 and 3 under any fault schedule and any interruption: whatever happens, the
turn ends, retries resend the same request, nothing follows a fatal error, each turn
makes the requests its schedule foretells, and the history stays valid for the next
request (the probe turn's request is checked too)."""

from __future__ import annotations

import email.utils
from pathlib import Path

from hypothesis import example, given

from harness.scenario.fake_api.served import failed
from harness.scenario.format.model import Interrupt, Scenario, Turn
from harness.scenario.run.found import run_and_record
from harness.scenario.run.runner import run_scenario
from harness.strategies import scenarios
from harness.wire.clock import EPOCH_ORIGIN
from harness.wire.faults import EndEarly, ErrorEvent
from harness.wire.replies import Reply

from .agent import AGENT, AGENT_EVENTS
from .budget import examples
from .history_checks import HISTORY_CHECKS


def found(about: str, *replies: Reply, interrupt: Interrupt | None = None, **expect: object) -> Scenario:
    """A counterexample these properties found, kept as an explicit example."""
    return Scenario(about, about, Path("found.yaml"), (Turn("Fix the bug", replies, interrupt, dict(expect)),))


MAX_TOKENS_WHILE_THINKING = found("thinking is the last block", Reply(message={"thinking": "", "stop_reason": "max_tokens"}))
PAUSE_TURN_WITH_TRAILING_SPACE = found(  # mini_agent's alone: the API pauses only an agent with a server tool
    "pause_turn text ends in a newline",
    Reply(message={"text": "Searching\n", "stop_reason": "pause_turn"}, as_written=True),
    Reply(message={"text": "Done."}),
    requests=2,
)
END_AFTER_MESSAGE_DELTA = found(
    "the stream ends after message_delta", Reply(message={"text": "Hi"}, faults=(EndEarly(5),)), Reply(message={"text": "Hi"}),
    mini_agent={"requests": 2},  # the message came whole but for message_stop: another client may take it
)
A_400_IS_FINAL = found("a 400 is never sent again", Reply(error="invalid_request"), requests=1, end="error")
A_400_IN_THE_STREAM_IS_FINAL = found(
    "an invalid_request_error inside the stream is final",
    Reply(message={"text": "Hello"}, faults=(ErrorEvent(3, "invalid_request_error", "bad"),)), requests=1, end="error",
)
HTTP_DATE_RETRY_AFTER = found(  # the drawn headers hold dates too, but a derandomized run may draw none
    "a retry-after written as an HTTP date",
    Reply(error="overloaded", headers={"retry-after": email.utils.formatdate(EPOCH_ORIGIN + 9, usegmt=True)}),
    Reply(message={"text": "Done."}),
)
CTRL_C_AT_THE_ERROR_NOTICE = found("Ctrl+C at the error notice", Reply(error="authentication"), interrupt=Interrupt(at_event=1))


@example(MAX_TOKENS_WHILE_THINKING)
@(example(PAUSE_TURN_WITH_TRAILING_SPACE) if AGENT is None else lambda test: test)
@example(END_AFTER_MESSAGE_DELTA)
@example(A_400_IS_FINAL)
@example(A_400_IN_THE_STREAM_IS_FINAL)
@example(HTTP_DATE_RETRY_AFTER)
@examples(1)
@given(scenarios(interrupts=False))
def test_any_fault_schedule_ends_the_turn_with_a_valid_history(scenario: Scenario) -> None:
    run_and_record(scenario, agent=AGENT, checks=HISTORY_CHECKS)


@example(CTRL_C_AT_THE_ERROR_NOTICE)
@examples(1)
@given(scenarios(interrupts=True, agent_events=AGENT_EVENTS))
def test_any_interruption_point_leaves_a_valid_history(scenario: Scenario) -> None:
    run_and_record(scenario, agent=AGENT, checks=HISTORY_CHECKS)


def test_tool_json_the_sdk_cannot_parse_is_a_failed_request() -> None:
    """Found by the properties: the invariants took it for a complete answer, so the
    retry after it was never compared with the original."""
    broken = Reply(message={"tool_use": {"name": "Read", "json": [" ", '{"file_path": "a.txt"}']}})
    outcome = run_scenario(found("broken tool JSON", broken, Reply(message={"text": "Done."}), requests=2))
    assert outcome.problems == []
    assert [failed(r) for r in outcome.requests] == [True, False, False]
