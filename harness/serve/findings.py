"""What one session of ``harness serve`` breaks, read from its requests: shared by the
report made when the server stops (``report``) and by ``POST /__harness/verify``
(``control``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from harness.scenario.checks.findings import Findings
from harness.scenario.checks.invariants import run_invariants, wire_invariants
from harness.scenario.checks.policies import attempt_limit, unmet_policy
from harness.scenario.checks.wire_view import conversations
from harness.scenario.fake_api.conversation import relation
from harness.scenario.fake_api.exchange import Exchange
from harness.scenario.fake_api.responder import Responder
from harness.scenario.format.model import Scenario
from harness.scenario.format.problem import Kind, Problem

SOCKET_TOLERANCE = 0.05
"""How early a retry may seem to come on a socket: the server stamps when it sent the
answer and when the next request was in, a few milliseconds from the client's moments."""


def session_findings(
    scenario: Scenario, responder: Responder, title: str, *, wall_origin: float, file_expectations: bool = True,
    policies: Mapping[str, Any] | None = None,
) -> Findings:
    """What one session's requests break: the fake API's problems (no reply left is a
    note), the wire-level invariants of each conversation on the real arrival times, and
    (``file_expectations``) each turn's request count where the scenario asks for one —
    under ``expect.policies.NAME`` when the clients follow the policy (``policies``, from
    ``harness serve --policy``), else noted as not checked. The rest of a turn's ``expect``
    is noted as not checked (``POST /__harness/verify`` checks what the wire shows of it),
    and so is every expectation of a scenario marked ``agent: mini_agent``: a client on a
    socket is another agent."""
    policies = dict(policies or {})
    found = Findings(
        problems=[p.under(title) for p in responder.problems if p not in responder.overrun],
        notes=[f"{title}: {p}" for p in responder.overrun],
    )
    found += run_invariants(responder.requests, policies=policies)
    groups = conversations(responder.requests)
    limit = attempt_limit(scenario.settings, policies)
    for number, group in enumerate(groups, 1):
        where = f"{title}, conversation {number}" if len(groups) > 1 else title
        found += wire_invariants(where, group, max_retries=limit, wall_origin=wall_origin, tolerance=SOCKET_TOLERANCE)
    if file_expectations and scenario.agent == "mini_agent":
        found.notes.append(f"{title}: not checked: the scenario is mini_agent's own (agent: mini_agent), and so are its expectations")
        file_expectations = False
    counted = list(zip(scenario.turns, turn_requests(scenario, responder))) if file_expectations else []
    unseen = [f"turn {n} expect.{key}" for n, (turn, _) in enumerate(counted, 1) for key in turn.expect
              if key not in ("requests", "policies", "mini_agent")]
    if unseen:
        found.notes.append(f"{title}: not checked by --check, which counts requests (POST /__harness/verify checks what "
                           f"the wire shows of the rest): {', '.join(unseen)}")
    for number, (turn, requests) in enumerate(counted, 1):
        for prefix, block in [("", turn.expect), *((f"policies.{n}.", b) for n, b in turn.expect.get("policies", {}).items())]:
            expected = block.get("requests")
            if expected is None or len(requests) == expected:
                continue
            why = unmet_policy(prefix.split(".")[1], policies, turn.replies) if prefix else None
            if why is not None:
                found.notes.append(f"{title}: turn {number}: expect.{prefix}requests not checked ({why}; --policy declares it)")
                continue
            text = f"{title}: turn {number}: expect.{prefix}requests: expected {expected}, the clients made {len(requests)}"
            line = turn.expect_lines.get(f"{prefix}requests")
            found.problems.append(Problem(text, Kind.EXPECTATION, file=str(scenario.path), line=line, turn=number))
    if responder.unused:
        found.notes.append(f"{len(responder.unused)} reply(ies) of {responder.label} were never requested")
    return found


def turn_requests(scenario: Scenario, responder: Responder) -> list[list[Exchange]]:
    """Each turn's requests. Where the clients send the turns' user lines, a request
    belongs to the turn whose line it ends with (or, a retry or a tool round, to the turn
    of the request before it), whatever replies earlier turns left unused; otherwise to
    the turn whose reply answered it, or that was being served when it came (a rate
    limit's own 429 takes no reply)."""
    lines = [turn.user.strip() for turn in scenario.turns]
    by_line = [_turns_of_line(request, lines) for request in responder.requests]
    if not any(max(turns, default=0) for turns in by_line):  # no later turn's line came: the clients send lines of their own
        return _turns_by_replies(scenario, responder)
    turns: list[list[Exchange]] = [[] for _ in scenario.turns]
    current, before = 0, None
    for request, matches in zip(responder.requests, by_line):
        later = [turn for turn in matches if turn > current]
        if later and (before is None or relation(before.whole, request.whole) != "retry"):  # a retry stays in its turn
            current = later[0]
        turns[current].append(request)
        before = request
    return turns


def _turns_of_line(request: Exchange, lines: list[str]) -> list[int]:
    """The turns (from 0) whose user line is a text of the request's last message, if it is a user's."""
    messages = request.body.get("messages") if isinstance(request.body, dict) else None
    last = messages[-1] if isinstance(messages, list) and messages and isinstance(messages[-1], dict) else {}
    content = last.get("content") if last.get("role") == "user" else None
    texts = [content] if isinstance(content, str) else [
        b.get("text") for b in content if isinstance(b, dict) and b.get("type") == "text"] if isinstance(content, list) else []
    said = {str(text).strip() for text in texts}
    return [number for number, line in enumerate(lines) if line in said]


def _turns_by_replies(scenario: Scenario, responder: Responder) -> list[list[Exchange]]:
    turns: list[list[Exchange]] = [[] for _ in scenario.turns]
    ends, total = [], 0
    for turn in scenario.turns:
        total += len(turn.replies)
        ends.append(total)
    current = served = 0
    for request in responder.requests:
        served += request.reply is not None and request.limited is None
        while current < len(ends) - 1 and served > ends[current]:
            current += 1
        if turns:
            turns[current].append(request)
    return turns
