"""The control endpoints of ``harness serve``, under one reserved prefix, for tests in any
language (curl, the Node SDK's test runner …):

    GET  /__harness/journal            every request so far: what was served, whole or cut, the
                                       oracle's verdict, the client's retry count, the rate limit
                                       that refused it, the usage it reported
    PUT  /__harness/sessions/NAME      a scenario's YAML: that session serves it from now on
                                       (afresh: its requests so far are forgotten); 400 with the
                                       file's problems
    POST /__harness/reset              every session starts afresh (or the one named)
    POST /__harness/verify             a JSON or YAML body ``{expect: {…}, turn: N}``, the keys a
                                       scenario's turn ``expect`` takes: 200 and the findings when
                                       everything holds, 422 with the problems when something does not;
                                       404 for a session that sent no request, 400 for a turn the
                                       scenario does not have

A control request names its session as ``/v1/messages`` requests do — the URL
(``/s/NAME/__harness/…``) or the ``x-harness-session`` header — or with ``?session=NAME``;
the journal without one lists every session. ``verify`` checks the session's requests with
the scenario checks (``harness.scenario.checks``: the invariants every run must satisfy, on
the real arrival times, and the ``expect`` given, for the whole session or for ``turn``);
keys that need an agent's own events are listed as not checked. A session whose clients
could not meet its scenario (a tool they lack, a stream fault for a client that does not
stream) answers 200 with ``not_applicable`` and the reason, never a failure.
"""

from __future__ import annotations

import json
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable, Mapping, Protocol
from urllib.parse import parse_qs, unquote, urlsplit

from harness.scenario.checks.expectations import check_expectations
from harness.scenario.checks.outcome import Outcome
from harness.scenario.fake_api.responder import Responder
from harness.scenario.fake_api.tool_map import ToolMap
from harness.scenario.format.loader import load_scenario
from harness.scenario.format.model import Scenario, ScenarioError, Turn
from harness.scenario.format.problem import Problem
from harness.scenario.format.schema import SCENARIO_CHECKS, TURN_EXPECT, policy_blocks
from harness.scenario.format.spec import Obj, Scalar
from harness.scenario.format.yaml_positions import YamlError, loads_located
from harness.serve.findings import (
    clients_words,
    session_findings,
    socket_outcome,
    turn_requests,
)
from harness.serve.log import LogEntry
from harness.wire import json_body
from harness.wire.api_errors import error_body
from harness.wire.http11 import Request
from harness.wire.plan import WirePlan, json_plan

PREFIX = "/__harness/"
_CHECKS = {k: v for k, v in TURN_EXPECT.fields.items() if k not in ("policies", "mini_agent")} | {"files": SCENARIO_CHECKS["files"]}
VERIFY_EXPECT = Obj({**_CHECKS, "policies": policy_blocks(_CHECKS), "mini_agent": TURN_EXPECT.fields["mini_agent"]}, what="expect")
"""A turn's ``expect``, and a scenario's ``files`` (a socket cannot see them: noted as not checked)."""
VERIFY_BODY = Obj({"expect": VERIFY_EXPECT, "turn": Scalar("integer", "check this turn's requests only", minimum=1),
                   "session": Scalar("string")}, required=("expect",), what="verify body")


class Served(Protocol):
    """What the control endpoints need of the server (``FaultServer``)."""

    wall_origin: float

    @property
    def entries(self) -> list[LogEntry]: ...

    def responder_of(self, session: str) -> Responder | None: ...

    def replace_session(self, session: str, responder: Responder) -> None: ...

    def reset_sessions(self, session: str | None, fresh: Callable[[str], Responder]) -> None: ...


class Control:
    """The scenarios a server serves, one a session, and the endpoints that change and
    check them. ``build(scenario)`` makes the Responder a session of ``scenario`` gets."""

    def __init__(self, scenario: Scenario, build: Callable[[Scenario, str], Responder],
                 policies: Mapping[str, Any] | None = None) -> None:
        self.scenario = scenario
        self.scenarios: dict[str, Scenario] = {}  # the sessions given a scenario of their own
        self.policies = dict(policies or {})  # what the clients follow (``--policy``)
        self._build = build

    def scenario_of(self, session: str) -> Scenario:
        """The scenario ``session`` serves: its own, else the server's."""
        return self.scenarios.get(session, self.scenario)

    def responder(self, session: str) -> Responder:
        """A fresh Responder for ``session``, serving its scenario."""
        return self._build(self.scenario_of(session), session)

    def answer(self, server: Served, request: Request, session: str, path: str, entry: LogEntry) -> WirePlan:
        """The answer to a control request (``path`` without the session prefix)."""
        query = parse_qs(urlsplit(request.target).query)
        session = query["session"][0] if "session" in query else session
        named = "session" in query or bool(session)
        route = (request.method, path.removeprefix(PREFIX).split("/", 1)[0])
        entry.checked = False
        if route == ("GET", "journal"):
            entries = [e.to_json() for e in server.entries if not _control(e) and (not named or (e.session or "") == session)]
            return _json(200, {"requests": entries}, entry, f"journal: {len(entries)} request(s)")
        if route == ("PUT", "sessions"):
            return self._put(server, unquote(path.removeprefix(PREFIX + "sessions/")), request.body, entry)
        if route == ("POST", "reset"):
            server.reset_sessions(session if named else None, self.responder)
            return _json(200, {"reset": session if named else "every session"}, entry, "reset")
        if route == ("POST", "verify"):
            return self._verify(server, session, request.body, entry)
        message = (f"Not found: {request.method} {path} "
                   "(the control endpoints: GET journal, PUT sessions/NAME, POST reset, POST verify)")
        return _json(404, error_body("not_found_error", message), entry, "not found")

    def _put(self, server: Served, name: str, body: bytes, entry: LogEntry) -> WirePlan:
        if not name or "/" in name:
            return _json(400, {"problems": [{"text": "name the session: PUT /__harness/sessions/NAME"}]}, entry, "no session")
        with tempfile.TemporaryDirectory(prefix="harness-session-") as folder:
            path = Path(folder) / f"{name}.yaml"
            path.write_bytes(body)
            try:
                scenario = load_scenario(path)
            except ScenarioError as error:
                problems = [_problem(p, str(path), f"<session {name}>") for p in error.problems]
                return _json(400, {"session": name, "problems": problems}, entry, f"session {name}: not a scenario")
        self.scenarios[name] = scenario
        server.replace_session(name, self.responder(name))
        replies = sum(len(turn.replies) for turn in scenario.turns)
        loaded = {"session": name, "scenario": scenario.name, "turns": len(scenario.turns), "replies": replies}
        return _json(200, loaded, entry, f"session {name} serves {scenario.name}")

    def _verify(self, server: Served, session: str, body: bytes, entry: LogEntry) -> WirePlan:
        try:
            given = _body(body)
        except ValueError as error:
            return _json(400, {"problems": [{"text": f"the body is neither JSON nor YAML: {error}"}]}, entry, "unreadable")
        problems = VERIFY_BODY.check(given, getattr(given, "pos", (1, 1)), "") if isinstance(given, dict) else [
            Problem.at((1, 1), "the body must be a mapping with an `expect:` mapping")]
        if problems:
            return _json(400, {"problems": [_problem(p, "", "<verify body>") for p in problems]}, entry, "bad verify body")
        session = str(given.get("session", session))
        scenario, responder = self.scenario_of(session), server.responder_of(session)
        if responder is None:
            known = ", ".join(repr(name) for name in server.responders() if name) or "none yet"
            who = f"session {session!r}" if session else "the default session"
            return _json(404, {"problems": [{"text": f"{who} has sent no request (sessions: {known})"}]}, entry, "no such session")
        turn = given.get("turn")
        if turn is not None and turn > len(scenario.turns):
            text = f"turn {turn}: the scenario {scenario.name!r} has {len(scenario.turns)} turn(s), counted from 1"
            return _json(400, {"problems": [{"text": text}]}, entry, "no such turn")
        requests = responder.conversation_requests
        if turn is not None:
            by_turn = turn_requests(scenario, responder)
            requests = by_turn[turn - 1] if turn <= len(by_turn) else []
        title = f"session {session!r}" if session else "the default session"
        found = session_findings(scenario, responder, title, wall_origin=server.wall_origin, file_expectations=False,
                                 policies=self.policies)
        expect = json.loads(json.dumps(given["expect"]))
        outcome = _outcome(scenario, expect, turn, requests, title, responder.tool_map, self.policies)
        unmet = check_expectations(outcome)
        outcome.not_checked = clients_words(outcome.not_checked)
        if turn is None:  # the whole session, checked as one turn: say so
            unmet = [replace(p, text=p.text.replace("turn 1: ", f"{title}: ", 1), turn=None) for p in unmet]
        failing = list(found.problems) + unmet
        verdict = {
            "session": session, "turn": turn, "requests": len(requests), "passed": not failing,
            "problems": [_problem(p, "", "") for p in failing], "notes": found.notes,
            "not_checked": outcome.not_checked,
        }
        unmeetable = responder.not_applicable
        if unmeetable is not None:  # never a failure: what the clients could not meet is not judged
            verdict.update(passed=None, problems=[], not_applicable=unmeetable,
                           not_checked=[*outcome.not_checked, *(f"{_problem(p, '', '')['text']} (not applicable)" for p in failing)])
            return _json(200, verdict, entry, f"not applicable: {unmeetable}")
        return _json(200 if not failing else 422, verdict, entry, "verified" if not failing else f"{len(failing)} problem(s)")


def _outcome(
    scenario: Scenario, expect: dict[str, Any], turn: int | None, requests: list, title: str, tool_map: ToolMap | None,
    policies: Mapping[str, Any],
) -> Outcome:
    """The requests as a one-turn run of the ``expect`` given, for the scenario's checks."""
    checked = replace(scenario, expect={}, expect_lines={})
    return socket_outcome(checked, [(Turn("", expect=expect), requests)], policies, first=turn or 1,
                          label=f"turn {turn}" if turn is not None else title, tool_map=tool_map)


def _body(content: bytes) -> Any:
    """A request body as JSON, else as YAML (with positions, for the problems)."""
    try:
        return json_body.loads(content)
    except ValueError:
        pass
    try:
        return loads_located(content.decode("utf-8"), "<verify body>")
    except (YamlError, UnicodeDecodeError) as error:
        raise ValueError(str(error)) from None


def _problem(problem: Problem, path: str, name: str) -> dict[str, Any]:
    text = str(problem).replace(path, name) if path else str(problem)
    return {"text": text, "kind": problem.kind.value, "turn": problem.turn, "request": problem.request, "line": problem.line}


def _json(status: int, payload: Any, entry: LogEntry, said: str) -> WirePlan:
    entry.status, entry.answer = status, said
    return json_plan(status, payload, f"req_harness_control_{entry.number:06d}")


def _control(entry: LogEntry) -> bool:
    return PREFIX in entry.path.split("?")[0]
