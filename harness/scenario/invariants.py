"""What every scenario run must satisfy, whether or not its expect block says so:

- every request is API-valid (the Responder records violations);
- a retried request equals the request it retries (a fallback model switch may change
  ``model`` and drop thinking blocks);
- nothing is sent after a non-retryable error in the same turn;
- attempts of one request ≤ max_retries + 1;
- sleeps honour retry-after, and computed backoff stays under the cap;
- run_turn never raises, every turn ends, and the probe turn after the last one works;
- each turn uses exactly the replies written for it.
"""

from __future__ import annotations

import difflib
import json

from harness.oracle.retry import (
    error_type_is_transient,
    requested_wait,
    status_is_retryable,
)
from harness.scenario.outcome import Outcome, TurnRecord
from harness.scenario.responder import RecordedRequest
from harness.wire.clock import EPOCH_ORIGIN

DEFAULT_MAX_RETRIES = 5
"""The retry limit checked when a scenario's settings name none."""
BACKOFF_CAP = 30.0
"""The longest wait the library accepts when the server named none (DESIGN §3)."""
TOLERANCE = 1e-6


def failed(request: RecordedRequest) -> bool:
    """The request got no complete message (an error, a broken connection or stream)."""
    reply, plan = request.reply, request.plan
    if request.violations or reply is None or plan is None:
        return True
    if plan.connection or plan.status != 200 or plan.ending != "complete":
        return True
    if reply.error_event is not None or reply.end_early is not None or reply.bad_data is not None:
        return True
    return tool_json_breaks(plan.events)


def tool_json_breaks(events: list[dict]) -> bool:
    """Tool-input JSON the SDK gives up on (it raises from the stream): it re-parses a
    block's input after every delta in jiter's partial mode, so one prefix that does not
    parse (``" "``, ``nope``) is enough."""
    import jiter

    buffers: dict[object, str] = {}
    for event in events:
        delta = event.get("delta") if isinstance(event, dict) else None
        if event.get("type") != "content_block_delta" or not isinstance(delta, dict) or delta.get("type") != "input_json_delta":
            continue
        index = event.get("index")
        buffers[index] = buffers.get(index, "") + str(delta.get("partial_json", ""))
        try:
            if buffers[index]:
                jiter.from_json(buffers[index].encode(), partial_mode=True)
        except ValueError:
            return True
    return False


def fatal(request: RecordedRequest) -> bool:
    """The failure must not be retried (a 4xx other than 408/409/429, x-should-retry: false,
    a non-retryable error event, a rule violation, or Ctrl+C)."""
    reply, plan = request.reply, request.plan
    if request.violations or reply is None or plan is None:
        return True
    if plan.ending == "interrupt":
        return True
    if reply.error is not None and plan.connection is None:
        return not status_is_retryable(plan.status, plan.headers)
    if reply.error_event is not None:
        return not error_type_is_transient(reply.error_event.type)
    return False


def check_invariants(outcome: Outcome) -> list[str]:
    """Problems with the run as a whole, each naming the turn and request."""
    problems: list[str] = []
    for turn in outcome.turns:
        problems += _turn_invariants(outcome, turn)
    return problems


def _turn_invariants(outcome: Outcome, turn: TurnRecord) -> list[str]:
    problems = []
    where = turn.label
    if turn.raised:
        problems.append(f"{where}: run_turn raised {turn.raised}")
    elif turn.end is None and not (turn.closed or turn.command):
        problems.append(f"{where}: the turn never sent a TurnEnd event")
    if turn.unused_replies:
        made, served = len(turn.requests), sum(r.reply is not None for r in turn.requests)
        rejected = f", {made - served} of them rejected as invalid" if made > served else ""
        problems.append(f"{where} has {served + turn.unused_replies} replies but the agent made {made} request(s){rejected}")
    if turn.label == "the probe turn" and turn.end != "end_turn":
        problems.append(f"the next turn after the scenario does not work: it ended with {turn.end or turn.raised}")
    problems += wire_invariants(
        where, turn.requests, outcome.sleeps, outcome.max_retries, (turn.first_mark, turn.last_mark)
    )
    return problems


def wire_invariants(
    where: str,
    requests: list[RecordedRequest],
    sleeps: list[tuple[float, int, float]],
    max_retries: int,
    marks: tuple[int, int],
) -> list[str]:
    """The checks that need only the wire: retries resend the same body, nothing follows
    a fatal failure, attempts are bounded, sleeps honour retry-after and the cap."""
    problems = []
    attempts = 1
    for before, after in zip(requests, requests[1:]):
        if fatal(before) and failed(before):
            problems.append(f"{where}: request {after.number} was sent after a non-retryable failure of request {before.number}")
            break
        if failed(before):
            attempts += 1
            if not same_request(before.body, after.body):
                problems.append(
                    f"{where}: request {after.number} retries request {before.number} but its body differs:\n"
                    + body_diff(before.body, after.body)
                )
        else:
            attempts = 1
        if attempts > max_retries + 1:
            problems.append(f"{where}: request {after.number} is attempt {attempts}, over max_retries + 1 = {max_retries + 1}")
    for at, mark, seconds in sleeps:
        before_sleep = [r for r in requests if r.mark < mark]
        if not marks[0] <= mark <= marks[1] or not before_sleep:
            continue
        request = before_sleep[-1]
        plan = request.plan
        wall = EPOCH_ORIGIN + at  # an HTTP-date retry-after counts from when the sleep began
        asked = requested_wait(plan.headers, received_at=wall) if plan and not plan.connection else None
        if asked is not None and seconds + TOLERANCE < asked:
            problems.append(f"{where}: slept {seconds:.3f}s after request {request.number}, which asked for retry-after {asked:g}s")
        if asked is None and seconds > BACKOFF_CAP + TOLERANCE:
            problems.append(f"{where}: slept {seconds:.3f}s after request {request.number}, over the {BACKOFF_CAP:g}s cap")
    return problems


def same_request(original: object, retried: object) -> bool:
    """A retry resends the same body; a switch to a fallback model may change ``model``
    and drop the thinking blocks that the old model signed, nothing else."""
    if original == retried:
        return True
    if not (isinstance(original, dict) and isinstance(retried, dict)) or original.get("model") == retried.get("model"):
        return False
    return _without_model_bound_parts(original) == _without_model_bound_parts(retried)


def _without_model_bound_parts(body: dict) -> dict:
    messages = [
        dict(m, content=[b for b in m["content"] if not (isinstance(b, dict) and "thinking" in str(b.get("type")))])
        if isinstance(m, dict) and isinstance(m.get("content"), list)
        else m
        for m in body.get("messages", [])
    ]
    return {**{k: v for k, v in body.items() if k != "model"}, "messages": messages}


def body_diff(before: object, after: object, limit: int = 40) -> str:
    """A unified diff of two request bodies, as indented JSON."""
    lines = difflib.unified_diff(
        json.dumps(before, indent=1, sort_keys=True).splitlines(),
        json.dumps(after, indent=1, sort_keys=True).splitlines(),
        "original request",
        "retried request",
        lineterm="",
    )
    shown = list(lines)[:limit]
    return "\n".join("    " + line for line in shown)
