"""What one session of ``harness serve`` breaks, read from its requests: shared by the
report made when the server stops (``report``) and by ``POST /__harness/verify``
(``control``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from harness.scenario.checks.expectations import check_expectations
from harness.scenario.checks.findings import Findings
from harness.scenario.checks.invariants import run_invariants, wire_invariants
from harness.scenario.checks.outcome import Outcome, TurnResult
from harness.scenario.checks.policies import attempt_limit
from harness.scenario.checks.wire_view import conversations, side_conversations
from harness.scenario.fake_api.conversation import relation
from harness.scenario.fake_api.exchange import Exchange
from harness.scenario.fake_api.responder import Responder
from harness.scenario.fake_api.tool_map import ToolMap
from harness.scenario.format.model import Scenario, Turn

SOCKET_TOLERANCE = 0.05
"""How early a retry may seem to come on a socket: the server stamps when it sent the
answer and when the next request was in, a few milliseconds from the client's moments."""


def session_findings(
    scenario: Scenario, responder: Responder, title: str, *, wall_origin: float, file_expectations: bool = True,
    policies: Mapping[str, Any] | None = None,
) -> Findings:
    """What one session's requests break: the fake API's problems (no reply left is a
    note), the wire-level invariants of each conversation on the real arrival times, and
    (``file_expectations``) each turn's ``expect`` as the wire shows it (``socket_outcome``),
    ``expect.policies.NAME`` where the clients follow the policy (``policies``, from
    ``harness serve --policy``); what needs the client's own events, waits or files is
    noted as not checked, and so is every expectation of a scenario marked
    ``agent: mini_agent``: a client on a socket is another agent."""
    policies = dict(policies or {})
    found = Findings(
        problems=[p.under(title) for p in responder.problems if p not in responder.overrun],
        notes=[f"{title}: {p}" for p in responder.overrun],
    )
    found += run_invariants(responder.requests, policies=policies)
    groups = conversations(responder.conversation_requests)
    limit = attempt_limit(scenario.settings, policies)
    for number, group in enumerate(groups, 1):
        where = f"{title}, conversation {number}" if len(groups) > 1 else title
        found += wire_invariants(where, group, max_retries=limit, wall_origin=wall_origin, tolerance=SOCKET_TOLERANCE)
    for side in side_conversations(responder.requests):
        where = f"{title}, side request {side[0].number} ({side[0].side})"
        found += wire_invariants(where, side, max_retries=None, wall_origin=wall_origin, tolerance=SOCKET_TOLERANCE)
    if file_expectations and scenario.agent == "mini_agent":
        found.notes.append(f"{title}: not checked: the scenario is mini_agent's own (agent: mini_agent), and so are its expectations")
    elif file_expectations:
        outcome = socket_outcome(scenario, list(zip(scenario.turns, turn_requests(scenario, responder))), policies,
                                 tool_map=responder.tool_map)
        found.problems += [problem.under(title) for problem in check_expectations(outcome)]
        if outcome.not_checked:
            found.notes.append(f"{title}: not checked: {'; '.join(clients_words(outcome.not_checked))}")
    if responder.unused:
        found.notes.append(f"{len(responder.unused)} reply(ies) of {responder.label} were never requested")
    return found


def clients_words(not_checked: list[str]) -> list[str]:
    """What was not checked, said of clients on a socket (their policies come from ``--policy``)."""
    return [what.replace("the agent does not declare", "the clients do not declare (--policy)") for what in not_checked]


def turn_requests(scenario: Scenario, responder: Responder) -> list[list[Exchange]]:
    """Each turn's requests (side requests are no turn's). Where the clients send the turns' user lines, a request
    belongs to the turn whose line it ends with (or, a retry or a tool round, to the turn
    of the request before it), whatever replies earlier turns left unused; otherwise to
    the turn whose reply answered it, or that was being served when it came (a rate
    limit's own 429 takes no reply)."""
    lines = [turn.user.strip() for turn in scenario.turns]
    requests = responder.conversation_requests
    by_line = [_turns_of_line(request, lines) for request in requests]
    if not any(max(turns, default=0) for turns in by_line):  # no later turn's line came: the clients send lines of their own
        return _turns_by_replies(scenario, responder)
    turns: list[list[Exchange]] = [[] for _ in scenario.turns]
    current, before = 0, None
    for request, matches in zip(requests, by_line):
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
    for request in responder.conversation_requests:
        served += request.reply is not None and request.limited is None
        while current < len(ends) - 1 and served > ends[current]:
            current += 1
        if turns:
            turns[current].append(request)
    return turns


SOCKET_UNSEEN = {
    "sleeps": "a client's own waits; on a socket its retries are held to retry-after",
    "files": "the client's own folder",
}


def socket_outcome(
    scenario: Scenario, turns: list[tuple[Turn, list[Exchange]]], policies: Mapping[str, Any] | None = None,
    *, first: int = 1, label: str | None = None, tool_map: ToolMap | None = None,
) -> Outcome:
    """The requests a socket saw, as a run of ``turns`` (each with its requests; numbered
    from ``first``; one ``label`` for them all, else "turn N") for the scenario's checks
    (``checks.expectations``); what a socket cannot see (``SOCKET_UNSEEN``) is taken out
    of each ``expect`` and listed in ``not_checked``."""
    unseen: list[str] = []
    checked = [replace(turn, expect=_seen(turn.expect, f"turn {n}: expect.", unseen))
               for n, (turn, _) in enumerate(turns, first)]
    whole = replace(scenario, turns=tuple(checked), expect=_seen(scenario.expect, "expect.", unseen))
    results = [TurnResult(n, turn.user, label or f"turn {n}", requests=requests) for n, (turn, requests) in enumerate(turns, first)]
    outcome = Outcome(whole, results, [r for _, requests in turns for r in requests], [], None, {}, "",
                      scenario.settings.get("max_retries"), policies=dict(policies or {}), tool_map=tool_map or ToolMap())
    outcome.not_checked += unseen
    return outcome


def _seen(expect: Mapping[str, Any], path: str, unseen: list[str]) -> dict[str, Any]:
    """``expect`` without what a socket cannot see, in its policy blocks too (noted in ``unseen``)."""
    kept: dict[str, Any] = {}
    for key, value in expect.items():
        if key in SOCKET_UNSEEN:
            unseen.append(f"{path}{key} ({SOCKET_UNSEEN[key]})")
        elif key == "policies" and isinstance(value, Mapping):
            kept[key] = {name: _seen(block, f"{path}policies.{name}.", unseen) for name, block in value.items()}
        else:
            kept[key] = value
    return kept
