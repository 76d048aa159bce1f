"""What every run must satisfy, whether or not its ``expect`` block says so, read from
the wire for any agent:

- every request is API-valid (the Responder records violations; a message-thread
  ``continue`` is judged as its whole thread);
- a request the API rejected as invalid is never sent again unchanged, nor is anything
  sent in a turn after ``x-should-retry: false`` or Ctrl+C;
- what follows a failure repeats the conversation or adds to it, never changes it
  (``conversation``: retry, follow-up, rewrite);
- a retry waits at least what ``retry-after-ms`` / ``retry-after`` asked, counted from
  when the failed answer was over ("Earlier retries will fail": under ``limits:`` the
  fake API answers one with another 429, and the problem says so);
- no retry storm after the spend cap's 429 (``limits``, which also notes an agent that
  reads ``anthropic-ratelimit-*-remaining`` and slows down before a 429);
- attempts ≤ the retries an agent declares + 1 (``settings.max_retries`` for one that
  declares ``honours_max_retries``);
- no half-streamed text ends a request (models from Claude 4.6 on refuse a final
  assistant message; older ones take it as their own prefill);
- a tool whose input reached the agent cut or unparseable is not answered with a
  ``tool_result`` that is not an error: the tool would have run on garbage;
- each turn uses exactly the replies written for it (an agent that stops retrying a
  transient failure sooner than the script goes, or ends the turn at a tool call cut by
  ``max_tokens``, is noted unless it declares the policy), and one more turn after the
  last one still works.

An agent's side requests (``harness_side_requests``: a router, a title) are no turn's: each
side conversation is held to what the API asks of any request (valid; a retry that waits
as asked, repeats its conversation and never resends what was rejected as invalid).

Agent policies are reported, not failed (DESIGN §8): a retry after a 401, a wait far
beyond what was asked, half-streamed text kept in the history behind a user message that
asks the model to resume (Claude Code does so on purpose), betas the harness does not
know. What an agent declares it does (``harness_policies``: ``checks.policies``) is
checked for it: ``never_raises`` (``run_turn`` never raises, every turn ends with a
``TurnEnd`` event), ``backoff_cap``, ``retry_is_invisible`` (no half-streamed text kept,
not even behind a resume message).
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Mapping, Sequence
from typing import Any

from harness.oracle.betas import unknown_betas
from harness.oracle.retry import requested_wait
from harness.scenario.checks.findings import Findings
from harness.scenario.checks.limits import rate_limit_findings
from harness.scenario.checks.outcome import Outcome, TurnResult
from harness.scenario.checks.policies import unmet_policy
from harness.scenario.checks.wire_view import (
    answer_taken,
    kept_partial_text,
    retry_waits,
    side_conversations,
    tools_run_on_broken_input,
    turn_wire_end,
)
from harness.scenario.fake_api.conversation import relation, resends
from harness.scenario.fake_api.exchange import Exchange
from harness.scenario.fake_api.served import (
    arrived_whole,
    failed,
    fatal,
    rejected_as_invalid,
    sdk_rule_only,
    served_message,
)
from harness.scenario.format.problem import Kind, Problem
from harness.wire.clock import EPOCH_ORIGIN
from harness.wire.replies import Reply, empty_blocks

TOLERANCE = 1e-6
DATE_TOLERANCE = 1.0  # an HTTP date has one-second resolution
FAR_BEYOND = 60.0  # a wait this much over what was asked (and over twice it) is reported
LONG_WAIT = 60.0  # a wait this long, with no wait asked, is reported


def check_invariants(outcome: Outcome) -> Findings:
    """The invariants of every turn of a run, each finding naming the turn and request."""
    found = run_invariants(outcome.requests, policies=outcome.policies)
    for turn, spec in zip(outcome.turns, [*outcome.scenario.turns, None]):
        found += _turn_invariants(outcome, turn, spec.replies if spec is not None else ())
    return found


def _turn_invariants(outcome: Outcome, turn: TurnResult, replies: Sequence[Reply]) -> Findings:
    found = Findings()
    where, never_raises = turn.label, "never_raises" in outcome.policies

    def problem(text: str) -> None:
        found.problems.append(Problem(text, Kind.INVARIANT, turn=turn.number))

    end = turn_wire_end(turn)
    answered = end == "end_turn" and served_message(turn.requests[-1]) is not None  # not only for a lenient reader
    if turn.raised and not turn.cancelled and (never_raises or answered):
        problem(f"{where}: run_turn raised {turn.raised}" + ("" if never_raises else " after the answer came"))
    elif turn.raised and not turn.cancelled:
        found.notes.append(f"{where}: run_turn raised {turn.raised}")
    if never_raises and turn.shows_events and not turn.raised and turn.end is None and not (turn.closed or turn.command):
        problem(f"{where}: the turn never sent a TurnEnd event")
    if turn.unused_replies:
        made, served = len(turn.requests), sum(r.reply is not None for r in turn.requests)
        rejected = f", {made - served} of them rejected as invalid" if made > served else ""
        text = f"{where} has {served + turn.unused_replies} replies but the agent made {made} request(s){rejected}"
        stop = _stopped_by_choice(turn.requests)
        last = turn.requests[-1] if turn.requests else None
        if last is not None and failed(last) and arrived_whole(last) and answer_taken(last, outcome.requests):
            found.notes.append(f"{text}: it took the last answer, which had come whole for a client that reads it so, as final")
        elif stop is not None and unmet_policy(stop[0], outcome.policies, replies) is not None:
            found.notes.append(f"{text}: {stop[1]}")
        else:
            problem(text)
    if turn.label == "the probe turn" and not turn.command and end != "end_turn":
        problem(f"the next turn after the scenario does not work: it ended with {turn.raised or end}")
    found += wire_invariants(
        where, turn.requests, max_retries=outcome.max_retries, wall_origin=outcome.wall_origin, turn=turn.number
    )
    for side in side_conversations(turn.side_requests):  # what the API asks of a retry, of each side conversation
        label = f"{where}, side request {side[0].number} ({side[0].side})"
        found += wire_invariants(label, side, max_retries=None, wall_origin=outcome.wall_origin, turn=turn.number)
    found.problems += _after_ctrl_c(where, turn)
    if "backoff_cap" in outcome.policies:
        found.problems += _over_the_cap(where, outcome, turn, float(outcome.policies["backoff_cap"]))
    return found


def _after_ctrl_c(where: str, turn: TurnResult) -> list[Problem]:
    """A side request sent after Ctrl+C stopped the turn's answer: nothing more in the turn."""
    stop = next((r for r in turn.requests if r.plan is not None and r.plan.ending == "interrupt"), None)
    return [Problem(f"{where}: side request {side.number} ({side.side}) was sent after Ctrl+C on request {stop.number}",
                    Kind.INVARIANT, turn=turn.number, request=side.number)
            for side in turn.side_requests if stop is not None and side.number > stop.number]


def _stopped_by_choice(requests: Sequence[Exchange]) -> tuple[str, str] | None:
    """The policy that governs where the turn stopped, and what the agent did: it gave up
    retrying a failure it may retry, ended the turn at a tool call or an answer cut by
    ``max_tokens``, or at an empty answer."""
    if not requests:
        return None
    last = requests[-1]
    if failed(last) and not fatal(last) and sdk_rule_only(last):
        return ("retries_as_the_sdks_do", f"it stopped at a {last.plan.status}, which the official SDKs retry and "  # type: ignore[union-attr]
                "the errors docs do not call transient (whether to retry it is its own policy)")
    if failed(last) and not fatal(last):
        return "retries", "it stopped retrying a transient failure (how often to retry is its own policy)"
    message = served_message(last)
    if message and message.get("stop_reason") in ("end_turn", "stop_sequence") and empty_blocks(message.get("content") or []):
        return ("continues_after_empty_answer",
                "it ended the turn at an empty answer (whether to ask the model to go on is its own policy)")
    if not message or message.get("stop_reason") != "max_tokens":
        return None
    if any(isinstance(block, dict) and block.get("type") == "tool_use" for block in message.get("content") or ()):
        return ("continues_after_cut_tool_call",
                "it ended the turn at a tool call cut by max_tokens (whether to go on is its own policy)")
    return ("continues_after_max_tokens",
            "it ended the turn at an answer cut by max_tokens (whether to ask the model to go on is its own policy)")


def run_invariants(requests: list[Exchange], *, policies: Mapping[str, Any]) -> Findings:
    """The checks over a whole run's requests: tools run on broken input, half-streamed
    text kept (a note when a user message follows it, as when an agent asks the model to
    go on, except for an agent that declares ``retry_is_invisible``), unknown betas."""
    kept, resumed = kept_partial_text(requests)
    invisible = "retry_is_invisible" in policies
    found = Findings(problems=tools_run_on_broken_input(requests) + kept + (resumed if invisible else []))
    found.notes += [] if invisible else [str(p) for p in resumed]
    unknown = unknown_betas(beta for request in requests for beta in request.betas)
    if unknown:
        found.notes.append(f"betas the harness does not know (their rules are not checked): {', '.join(unknown)}")
    return found


def wire_invariants(
    where: str, requests: list[Exchange], *, max_retries: int | None, wall_origin: float = EPOCH_ORIGIN,
    tolerance: float = TOLERANCE, turn: int | None = None,
) -> Findings:
    """The checks that need only one turn's requests (``turn``, when they are a scenario's
    turn; ``where`` names them in the sentences): what may follow a failure, how long
    a retry waited, how many attempts were made. ``tolerance``: how early a retry may
    seem to come and still honour ``retry-after`` (on a socket, the moments measured are
    the server's, a few milliseconds from the client's)."""
    found = Findings()
    attempts = 1

    def problem(text: str, request: Exchange) -> None:
        found.problems.append(Problem(f"{where}: {text}", Kind.INVARIANT, turn=turn, request=request.number))

    for before, after in zip(requests, requests[1:]):
        kind = relation(before.whole, after.whole)
        if failed(before) and fatal(before):
            if rejected_as_invalid(before):
                if resends(before.body, after.body) and before.betas == after.betas:
                    problem(f"request {after.number} resends request {before.number}, which the API rejected as invalid", after)
            elif _stops_the_turn(before):
                problem(f"request {after.number} was sent after {_why_final(before)} on request {before.number}", after)
            elif kind != "follow-up":  # a follow-up is a new line: on a socket, the next turn
                found.notes.append(f"{where}: request {after.number} tries again after the non-retryable failure of request {before.number}")
        if not failed(before) or rejected_as_invalid(before):  # after a 400, changing the request is the fix
            attempts = 1
            continue
        if kind == "retry":
            attempts += 1
        elif kind == "rewrite":
            problem(
                f"request {after.number} retries request {before.number} but changes the conversation "
                f"(a retry repeats it; a follow-up only adds to it):\n" + body_diff(before.whole, after.whole), after
            )
        if max_retries is not None and attempts > max_retries + 1:
            problem(f"request {after.number} is attempt {attempts}, over max_retries + 1 = {max_retries + 1}", after)
    found += _waits(where, requests, wall_origin, tolerance, turn)
    found += rate_limit_findings(where, requests, turn=turn)
    return found


def body_diff(before: object, after: object, limit: int = 40) -> str:
    """A unified diff of two request bodies, as indented JSON."""
    lines = difflib.unified_diff(
        json.dumps(before, indent=1, sort_keys=True).splitlines(),
        json.dumps(after, indent=1, sort_keys=True).splitlines(),
        "original request",
        "retried request",
        lineterm="",
    )
    return "\n".join("    " + line for line in list(lines)[:limit])


def _stops_the_turn(request: Exchange) -> bool:
    """After Ctrl+C, or when the server said ``x-should-retry: false``, the turn is over."""
    plan = request.plan
    return plan is not None and (plan.ending == "interrupt" or plan.headers.get("x-should-retry") == "false")


def _why_final(request: Exchange) -> str:
    assert request.plan is not None
    return "Ctrl+C" if request.plan.ending == "interrupt" else "x-should-retry: false"


def _ran_ahead(after: Exchange, received: float) -> float:
    """How far the agent's own wall clock, read when ``after`` came, was past the run's wall
    time ``received`` (0 when not known): an agent reads an HTTP date against its own clock,
    somewhere in between, and may wait as much less than the run's clock asks."""
    return max(0.0, after.agent_wall - received) if after.agent_wall is not None else 0.0


def _waits(where: str, requests: list[Exchange], wall_origin: float, tolerance: float, turn: int | None) -> Findings:
    """Retry-after honoured; a wait far beyond it, or long with none asked, reported."""
    found = Findings()
    for before, after, waited in retry_waits(requests):
        plan = before.plan
        if plan is None or plan.connection:
            continue
        received = (before.finished if before.finished is not None else before.time) + wall_origin
        asked = requested_wait(plan.headers, received_at=received)
        if asked is None:
            if waited > LONG_WAIT:
                found.notes.append(f"{where}: waited {waited:.1f}s before request {after.number}, with no wait asked")
            continue
        slack = DATE_TOLERANCE + _ran_ahead(after, received) if _is_date(plan.headers) else tolerance
        if waited + slack < asked:
            again = "; the API refused it again with a 429" if after.limited else ""
            found.problems.append(Problem(
                f"{where}: request {after.number} came {waited:.3f}s after request {before.number}, "
                f"which asked for retry-after {asked:g}s{again}", Kind.INVARIANT, turn=turn, request=after.number,
            ))
        elif waited > max(2 * asked, asked + FAR_BEYOND):
            found.notes.append(f"{where}: waited {waited:.1f}s before request {after.number}, far beyond the {asked:g}s asked")
    return found


def _is_date(headers: dict[str, str]) -> bool:
    if "retry-after-ms" in headers or "retry-after" not in headers:
        return False
    try:
        float(headers["retry-after"])
    except ValueError:
        return True
    return False


def _over_the_cap(where: str, outcome: Outcome, turn: TurnResult, cap: float) -> list[Problem]:
    """The backoff stays under the agent's declared cap when the server named no wait."""
    problems = []
    for before, _, waited in retry_waits(turn.requests):
        plan = before.plan
        asked = requested_wait(plan.headers, received_at=outcome.wall_origin) if plan and not plan.connection else None
        if asked is None and waited > cap + TOLERANCE:
            problems.append(Problem(
                f"{where}: slept {waited:.3f}s after request {before.number}, over the {cap:g}s cap",
                Kind.INVARIANT, turn=turn.number, request=before.number,
            ))
    return problems
