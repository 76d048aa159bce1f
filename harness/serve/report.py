"""``harness serve``: a scenario's replies on a real socket, and the wire-level checks of
what the clients sent, made when the server stops.

The replies of all turns are served as one queue, in order; with ``--sessions`` every
client session (the ``x-harness-session`` header, or the first user message) gets its
own copy of the queue.
"""

from __future__ import annotations

from typing import Callable

from harness.scenario.invariants import wire_invariants
from harness.scenario.model import Scenario
from harness.scenario.responder import Responder
from harness.scenario.wire_view import kept_partial_text
from harness.serve.server import FaultServer
from harness.wire.replies import Reply


def scenario_replies(scenario: Scenario) -> list[Reply]:
    """Every reply of every turn, in order."""
    return [reply for turn in scenario.turns for reply in turn.replies]


def build_server(
    scenario: Scenario,
    *,
    host: str,
    port: int,
    time_scale: float,
    sessions: bool,
    log: Callable[[str], object] | None,
    log_path: str | None,
) -> FaultServer:
    """A FaultServer (not started) that serves ``scenario``."""
    replies = scenario_replies(scenario)
    label = f"scenario {scenario.name}"
    options = dict(host=host, port=port, time_scale=time_scale, log=log, log_path=log_path)
    if sessions:
        return FaultServer(sessions=lambda key: Responder(replies, label=f"{label}, session {key!r}"), **options)
    return FaultServer(Responder(replies, label=label), **options)


def check_served(scenario: Scenario, server: FaultServer) -> list[str]:
    """The scenario's wire-level invariants and request counts over what was served."""
    responders = [server.responder] if server.responder is not None else list(server.sessions.values())
    max_retries = scenario.settings.get("max_retries")
    problems: list[str] = []
    for responder in responders:
        problems += responder.problems + kept_partial_text(responder.requests)
        problems += _per_turn(scenario, responder, max_retries)
    return problems


def _per_turn(scenario: Scenario, responder: Responder, max_retries: int | None) -> list[str]:
    """Group the served requests by the turn whose reply answered them, then check each."""
    served = [r for r in responder.requests if r.reply is not None]
    problems, start = [], 0
    for number, turn in enumerate(scenario.turns, 1):
        requests = served[start : start + len(turn.replies)]
        start += len(turn.replies)
        problems += wire_invariants(f"turn {number}", requests, max_retries=max_retries).problems
        expected = turn.expect.get("requests")
        if expected is not None and len(requests) != expected:
            problems.append(f"turn {number}: expect.requests: expected {expected}, the clients made {len(requests)}")
    if responder.unused:
        problems.append(f"{len(responder.unused)} reply(ies) of {responder.label} were never requested")
    return problems
