"""What a `retry-after` asks, read as an agent reads it: an HTTP date against the agent's own
wall clock, which runs on while the virtual clock does not (an agent that took real time
to start was judged against a date it could not keep; one that reads the date against the
run's clock, as mini_agent does, waits what the run asks); delay-seconds as RFC 9110 writes
them, whole numbers, anything else asking nothing a client must read."""

from __future__ import annotations

import email.utils
import json

from harness.oracle.retry import requested_wait
from harness.scenario.checks.invariants import wire_invariants
from harness.scenario.fake_api.responder import Responder
from harness.wire.clock import EPOCH_ORIGIN, VirtualClock
from harness.wire.replies import Reply

BODY = json.dumps({"model": "claude-sonnet-4-5", "max_tokens": 64,
                   "messages": [{"role": "user", "content": "hi"}]}).encode()


def served_and_honoured(spent_before: float) -> tuple[float, list[str]]:
    """An agent that spends ``spent_before`` seconds of its own wall clock before its first
    request and then waits until the date it is served, read against that clock: the
    wait it computes, and the problems the wire checks find."""
    agents_clock = [1_900_000_000.25]
    clock = VirtualClock.starting_now(real_wall=lambda: agents_clock[0])
    date = email.utils.formatdate(EPOCH_ORIGIN + 12, usegmt=True)
    responder = Responder([Reply(error="overloaded", headers={"retry-after": date}), Reply(message={"text": "ok"})],
                          clock=clock)
    agents_clock[0] += spent_before
    plan = responder.respond("POST", "/v1/messages", {}, BODY)
    served = email.utils.mktime_tz(email.utils.parsedate_tz(plan.headers["retry-after"]))  # type: ignore[arg-type]
    wait = served - agents_clock[0]
    clock.sleep(wait)
    responder.respond("POST", "/v1/messages", {}, BODY)
    found = wire_invariants("the turn", responder.requests, max_retries=2, wall_origin=clock.wall_origin)
    return wait, [str(p) for p in found.problems]


def test_a_date_read_against_an_agents_own_clock_that_ran_ahead_is_honoured() -> None:
    for spent in (0.0, 1.7, 45.0):
        wait, problems = served_and_honoured(spent)
        assert problems == [], (spent, wait, problems)


def test_an_agent_that_waits_less_than_the_date_says_is_still_caught() -> None:
    clock = VirtualClock.starting_now(real_wall=lambda: 1_900_000_000.0)
    date = email.utils.formatdate(EPOCH_ORIGIN + 12, usegmt=True)
    responder = Responder([Reply(error="overloaded", headers={"retry-after": date}), Reply(message={"text": "ok"})],
                          clock=clock)
    responder.respond("POST", "/v1/messages", {}, BODY)
    clock.sleep(5)
    responder.respond("POST", "/v1/messages", {}, BODY)
    problems = wire_invariants("the turn", responder.requests, max_retries=2, wall_origin=clock.wall_origin).problems
    assert any("asked for retry-after 12s" in str(p) for p in problems)


def test_delay_seconds_are_whole_numbers_and_anything_else_asks_nothing() -> None:
    assert requested_wait({"retry-after": "7"}, received_at=0) == 7.0
    assert requested_wait({"retry-after": " 30 "}, received_at=0) == 30.0
    for unreadable in ("0.5", "1.5", "-3", "soon", "1e3", "²"):
        assert requested_wait({"retry-after": unreadable}, received_at=0) is None, unreadable
    assert requested_wait({"retry-after-ms": "1500", "retry-after": "0.5"}, received_at=0) == 1.5
