"""``harness serve``: a scenario's replies on a real socket, and the report of what the
clients sent, made when the server stops.

Every session (``harness.serve.sessions``) is served the replies of all turns as one
queue, in order. The report lists every request the server received — those refused,
those that came when no reply was left, those after a 401, those to other endpoints —
then checks each session's conversations (``wire_view.conversations``) with the same
wire-level invariants as an in-process run, on the real arrival times: a retry that
comes before ``retry-after`` is a problem; a wait far beyond what was asked, or long
with nothing asked, is a note.

How many requests a client makes is its own policy (it may give up after a 529, or try
a 401 again): on a socket, replies never requested and requests that came when no reply
was left are notes. Each turn's ``expect`` is checked as the wire shows it
(``findings.socket_outcome``): a turn's ``requests``, ``tools``, ``tool_results``, ``end``
…, and under ``expect.policies.NAME`` when the clients follow the policy (``harness serve
--check --policy NAME[=N]``, as an agent's ``harness_policies`` would declare it).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from harness.scenario.checks.wire_view import conversations, side_conversations
from harness.scenario.fake_api.conversation import relation
from harness.scenario.fake_api.exchange import Exchange
from harness.scenario.fake_api.rate_limits import enforce
from harness.scenario.fake_api.responder import Responder
from harness.scenario.fake_api.served import failed
from harness.scenario.fake_api.tool_map import ToolMap
from harness.scenario.format.limits import Limits as RateLimitModel
from harness.scenario.format.model import DEFAULT_MODEL, Scenario
from harness.scenario.format.problem import Kind, Problem
from harness.scenario.format.side_requests import SideRule
from harness.serve.control import Control
from harness.serve.findings import session_findings
from harness.serve.log import Scrub
from harness.serve.server import FaultServer
from harness.wire.clock import VirtualClock
from harness.wire.http11 import Limits
from harness.wire.replies import Reply


@dataclass
class ServeReport:
    """What ``--check`` prints: a line per request, then problems and notes."""

    lines: list[str] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def scenario_replies(scenario: Scenario) -> list[Reply]:
    """Every reply of every turn, in order."""
    return [reply for turn in scenario.turns for reply in turn.replies]


def build_server(
    scenario: Scenario,
    *,
    host: str,
    port: int,
    time_scale: float,
    log: Callable[[str], object] | None,
    log_path: str | None,
    scrub: Scrub | None = None,
    limits: Limits = Limits(),
    monotonic: Callable[[], float] = time.monotonic,
    rate_limits: RateLimitModel | None = None,
    tool_map: Mapping[str, Any] | None = None,
    side_rules: tuple[SideRule, ...] = (),
    policies: Mapping[str, Any] | None = None,
) -> FaultServer:
    """A FaultServer (not started) that serves ``scenario``, one queue per session, with
    the control endpoints (``harness.serve.control``: a session may be given a scenario of
    its own). Its HTTP dates count from now, as a run's count from its virtual clock's start;
    ``monotonic`` is the clock arrival times are read from, and the clock the rate limits
    (``rate_limits``, else the scenario's ``limits:``) refill on, in real time; ``tool_map``:
    the clients' own names for the standard tools, as an agent's ``tool_map`` gives them;
    ``side_rules``: the clients' side requests, as an agent's ``harness_side_requests``;
    ``policies``: the ones the clients follow, for ``/__harness/verify``."""
    control = Control(scenario, lambda served, session: session_responders(
        served, monotonic=monotonic, rate_limits=rate_limits, tool_map=tool_map, side_rules=side_rules)(session), policies)
    return FaultServer(
        control.responder(""), sessions=control.responder, control=control, host=host, port=port,
        time_scale=time_scale, log=log, log_path=log_path, scrub=scrub, limits=limits, monotonic=monotonic,
    )


def session_responders(
    scenario: Scenario, *, monotonic: Callable[[], float] = time.monotonic, rate_limits: RateLimitModel | None = None,
    tool_map: Mapping[str, Any] | None = None, side_rules: tuple[SideRule, ...] = (),
) -> Callable[[str], Responder]:
    """What builds a session's Responder for ``scenario``: all its turns' replies in one
    queue (the tools renamed by ``tool_map``), its rate limits in force on real time (one
    set of buckets a session)."""
    replies, origin, start = scenario_replies(scenario), float(int(time.time())), monotonic()
    model = scenario.settings.get("model", DEFAULT_MODEL)
    in_force = rate_limits or scenario.limits

    def responder(session: str) -> Responder:
        label = f"scenario {scenario.name}" + (f", session {session!r}" if session else "")
        built = Responder(replies, label=label, clock=VirtualClock(wall_origin=origin), model=model, threads=scenario.threads)
        built.tool_map = ToolMap(tool_map)
        built.side_rules = side_rules
        if in_force is not None:
            enforce(built, in_force, now=monotonic, wall=lambda: origin + monotonic() - start)
        return built

    return responder


def check_served(scenario: Scenario, server: FaultServer, policies: Mapping[str, Any] | None = None) -> ServeReport:
    """Every request, then the scenario's wire-level invariants and request counts over
    what each session was served, against its own scenario (one PUT for it, else the
    server's); ``policies``: the ones the clients follow."""
    policies = dict(policies or {})
    report = ServeReport(problems=[Problem(error, Kind.HARNESS) for error in server.internal_errors])
    sessions = server.responders()
    for name, responder in sessions.items():
        if name == "" and not responder.requests and len(sessions) > 1:
            continue
        title = f"session {name!r}" if name else "the default session"
        served = server.control.scenario_of(name) if server.control is not None else scenario
        report.lines.append(f"{title}: {len(responder.requests)} request(s) to /v1/messages")
        report.lines += _request_lines(conversations(responder.conversation_requests), side_conversations(responder.requests))
        if responder.not_applicable is not None:  # the client cannot meet the scenario: nothing to hold against it
            report.lines.append(f"{title}: not applicable: {responder.not_applicable}")
            continue
        found = session_findings(served, responder, title, wall_origin=server.wall_origin, policies=policies)
        report.problems += found.problems
        report.notes += found.notes
    if not any(responder.requests for responder in sessions.values()):
        report.problems.append(Problem(
            f"no request reached /v1/messages, so nothing was checked: is the client's base URL {server.url} "
            f"(ANTHROPIC_BASE_URL), with any session prefix the client means to use?", Kind.EXPECTATION))
    others = [e for e in server.entries if not e.path.split("?")[0].endswith("/v1/messages")]
    if others:
        report.lines.append(f"other requests: {len(others)}")
        report.lines += [f"  #{e.number} t={e.elapsed:.3f}s {e.method} {e.path} → {e.status} {e.answer}" for e in others]
    return report


def _request_lines(groups: list[list[Exchange]], sides: list[list[Exchange]]) -> list[str]:
    """A line per request, in arrival order, saying what it was to the one before it in
    its conversation (or which side request it is) and how long after that one's answer it came."""
    described: dict[int, str] = {}
    labelled = [(f"conversation {n}" if len(groups) > 1 else "", g) for n, g in enumerate(groups, 1)]
    labelled += [(f"side request ({g[0].side})", g) for g in sides]
    for label, group in labelled:
        for before, after in zip([None, *group], group):
            what = label
            if before is not None:
                gap = after.time - (before.finished if before.finished is not None else before.time)
                kind = relation(before.whole, after.whole)
                what += f"{', ' if what else ''}{kind} of #{before.number}" + (f", {gap:.2f}s after its failure" if failed(before) else "")
            described[after.number] = what
    lines = []
    for request in sorted((r for _, g in labelled for r in g), key=lambda r: r.number):
        answer = request.reply.describe() if request.reply else request.refused or ("rejected" if request.violations else "no reply left")
        answer += " (again: no reply was left)" if request.repeated else ""
        status = "no response" if request.plan is None or request.plan.connection else request.plan.status
        form = f" · served as {request.plan.form}" if request.plan is not None and request.plan.form else ""
        stream = " (stream)" if request.streaming else ""
        context = f" · {described[request.number]}" if described.get(request.number) else ""
        lines.append(f"  #{request.number} t={request.time:.3f}s POST {request.path}{stream} → {status} {answer}{form}{context}")
    return lines
