"""The fake API's brain: records every request and answers it as its policies decide
(``policy``): a request the API refuses by itself gets the API's own answer (a body that is
not JSON or not a JSON object, a message-thread error, a conversation that breaks the
API's rules: ``refusals``, ``threads``); any other gets the scenario's next reply for the
turn, or its final error once more (``script``), unless it is one of the agent's side
requests, which have replies of their own (``side_requests``). A reply with ``unstreamed:`` serves that
reply instead to a request that does not stream; one to a request that opens a turn with
thinking enabled thinks first, as the real API's does (``thinking_first``), and one to a
request that asks for JSON outputs gives its text as such JSON (``json_outputs``).

Shared by the in-process transports (``transport``) and the socket server, which calls
``claim`` and ``settle`` under its lock and ``render`` outside it.
"""

from __future__ import annotations

import email.utils
from typing import Any, Iterable, Mapping

from harness.scenario.fake_api.exchange import Exchange
from harness.scenario.fake_api.json_outputs import as_json_output
from harness.scenario.fake_api.policy import Pending, Policy
from harness.scenario.fake_api.refusals import NotJson, OracleCheck
from harness.scenario.fake_api.script import (
    FailureAgain,
    FinalErrorAgain,
    ScriptedReplies,
)
from harness.scenario.fake_api.side_requests import (
    SideRequests,
    side_request_hint,
    undeclared_side,
)
from harness.scenario.fake_api.thinking_first import thinks_first
from harness.scenario.fake_api.threads import Threads
from harness.scenario.fake_api.tool_map import ToolMap
from harness.scenario.fake_api.usage import estimate_input_tokens
from harness.scenario.format.model import DEFAULT_MODEL
from harness.scenario.format.problem import Kind, Problem
from harness.scenario.format.side_requests import SideRule
from harness.wire import json_body
from harness.wire.clock import EPOCH_ORIGIN, VirtualClock
from harness.wire.plan import NoJsonForm, WirePlan, harness_error_plan
from harness.wire.planner import plan_reply
from harness.wire.replies import Reply

SECRET_HEADERS = frozenset({"authorization", "x-api-key", "cookie", "anthropic-organization-id"})


class Responder:
    """Answers requests as its ``policies`` decide, in order (a list: a new policy is
    inserted where it belongs); the scenario's replies come one queue per label (a turn)."""

    def __init__(
        self,
        replies: Iterable[Reply] = (),
        *,
        clock: VirtualClock | None = None,
        model: str = DEFAULT_MODEL,
        check_requests: bool = True,
        label: str = "the scenario",
        threads: bool = True,
    ) -> None:
        self.clock = clock or VirtualClock()
        self.model = model
        self.requests: list[Exchange] = []
        self.problems: list[Problem] = []
        self.overrun: list[Problem] = []  # the problems that say a request came with no reply left
        self.stream_only: str | None = None  # a stream-only fault asked of a request without ``stream``
        self.undeliverable: str | None = None  # a fault the way of serving cannot bring to the client (Ctrl+C on a socket)
        self.script = ScriptedReplies(replies, label)
        self.side = SideRequests(self.problems)  # the agent's side requests (``side_rules``), answered apart
        self.policies: list[Policy] = [
            NotJson(), Threads(supported=threads), *([OracleCheck()] if check_requests else []),
            self.side, self.script, FinalErrorAgain(self.script), FailureAgain(self.script),
        ]

    def queue(self, replies: Iterable[Reply], label: str) -> None:
        """Serve ``replies`` next; ``label`` names them in messages ("turn 2")."""
        self.script.queue(replies, label)

    @property
    def label(self) -> str:
        """What the current queue is called in messages ("turn 2")."""
        return self.script.label

    @property
    def unused(self) -> list[Reply]:
        """Replies of the current queue not yet served."""
        return self.script.unused

    @property
    def not_applicable(self) -> str | None:
        """Why the scenario does not apply to this client, when it does not: a reply it
        cannot meet (a tool it lacks), or a fault that exists only in a stream asked of a
        request without ``stream``, or one the way it is served cannot bring to it (a
        Ctrl+C to a client on a socket). Its problems then say nothing about the client.
        A reply that found no tools in a request when the client's other requests declare
        them went to a side request (another conversation): said so."""
        unmet, where = self.script.not_applicable, self.script.unmet_in
        if unmet is not None and where is not None:
            unmet += side_request_hint(where, self.requests)
        return unmet or self.stream_only or self.undeliverable

    @property
    def conversation_requests(self) -> list[Exchange]:
        """The requests of the scenario's conversation: every one but the side requests."""
        return [request for request in self.requests if request.side is None]

    @property
    def side_rules(self) -> tuple[SideRule, ...]:
        """How the agent's side requests are told apart, and what they are answered."""
        return self.side.rules

    @side_rules.setter
    def side_rules(self, rules: tuple[SideRule, ...]) -> None:
        self.side.rules = rules

    @property
    def tool_map(self) -> ToolMap:
        """The agent's names for the standard tools."""
        return self.script.tool_map

    @tool_map.setter
    def tool_map(self, tool_map: ToolMap) -> None:
        self.script.tool_map = tool_map

    def respond(self, method: str, path: str, headers: Mapping[str, str], content: bytes) -> WirePlan:
        """The WirePlan answering one request."""
        pending = self.claim(method, path, headers, content)
        if pending is None:
            return self.requests[-1].plan  # type: ignore[return-value]
        self.render(pending)
        return self.settle(pending)

    def claim(self, method: str, path: str, headers: Mapping[str, str], content: bytes) -> Pending | None:
        """The first step of ``respond``: record the request, let the policies refuse it or
        pick its reply. None when the answer is already decided (``requests[-1].plan``: a
        refusal, no reply left); else what ``render`` and ``settle`` finish. A server holds
        its lock for this step and for ``settle``; ``render`` needs none."""
        number = len(self.requests) + 1
        record = Exchange(
            number, self.clock.now(), method, path, _public_headers(headers), _json_or_text(content), self.label,
            self.clock.mark(),
        )
        real_wall = getattr(self.clock, "real_wall", None)
        record.agent_wall = real_wall() if real_wall is not None else None
        rule = self.side.rule_for(record.body)
        record.side = rule.where if rule is not None else None
        self.requests.append(record)
        pending = Pending(record, content, f"req_harness_{number:06d}")
        if path.endswith("/v1/messages") and self._refused(pending):
            return None
        planned = self._pick(pending)
        if planned is None:
            message = (
                f"the agent made request {self.script.served + 1} but {self.label} "
                f"has {len(self.script.replies)} replies" + undeclared_side(self.requests, self.label)
            )
            problem = Problem(message, Kind.INVARIANT, request=number)
            self.problems.append(problem)
            self.overrun.append(problem)
            record.plan = harness_error_plan(f"harness: {message}", pending.request_id)
            return None
        chosen = planned.unstreamed if planned.unstreamed is not None and not record.streaming else planned
        record.reply = as_json_output(thinks_first(chosen, record.whole), record.whole)
        pending.planned = planned
        pending.model = (record.body.get("model") if isinstance(record.body, dict) else None) or self.model
        pending.where = (f"the reply of {record.side}" if record.side is not None else f"the reply on line {planned.line}"
                         if planned.line else f"reply {self.script.served} of {self.label}")
        return pending

    def render(self, pending: Pending) -> Problem | None:
        """The second step: the reply's WirePlan, in ``pending.record.plan``; the problem
        when the reply cannot be served (also in ``problems``)."""
        record, reply = pending.record, pending.record.reply
        assert reply is not None
        try:
            record.plan = plan_reply(
                reply, streaming=record.streaming, request_id=pending.request_id,
                message_id=f"msg_harness_{record.number:06d}", model=pending.model,
                input_tokens=estimate_input_tokens(record.whole if isinstance(record.whole, dict) else {}),
            )
            record.plan.headers = dated(record.plan.headers, self.clock.wall_origin - EPOCH_ORIGIN)
        except (IndexError, ValueError) as error:  # a fault aimed past the end of its stream, a stream-only fault
            if isinstance(error, NoJsonForm):
                self.stream_only = self.stream_only or (
                    f"{pending.where} is a fault that exists only in a stream ({error}) and the client asked without "
                    "`stream` (a scenario chooses what such a request gets with `unstreamed:`)"
                )
                record.plan = harness_error_plan("harness: a stream-only fault asked without stream", pending.request_id)
                pending.served = False
                return None
            why = f": {type(error).__name__}: {error}"
            line = pending.planned.line or None
            problem = Problem(f"{pending.where} cannot be served {why}", Kind.HARNESS, line=line, request=record.number)
            self.problems.append(problem)
            record.plan = harness_error_plan("harness: unservable reply", pending.request_id)
            pending.served = False
            return problem
        if pending.planned is not None and pending.planned.unstreamed is not None and not record.streaming:
            record.plan.form = "the reply's `unstreamed:` form (the request does not stream)"
        return None

    def settle(self, pending: Pending) -> WirePlan:
        """The last step: the policies hear what was answered (its thinking signatures, the
        thread it continues); the plan to send."""
        record = pending.record
        assert record.plan is not None
        if pending.served:
            for policy in self.policies:
                policy.answered(pending)
        return record.plan

    def _refused(self, pending: Pending) -> bool:
        """Whether a policy refused the request (its plan and problems are in place)."""
        for policy in self.policies:
            refusal = policy.refuse(pending)
            if refusal is not None:
                pending.record.plan = refusal.plan
                self.problems.extend(refusal.problems)
                return True
        return False

    def _pick(self, pending: Pending) -> Reply | None:
        """The reply the first policy that has one picks; None when none has."""
        for policy in self.policies:
            reply = policy.pick(pending)
            if reply is not None:
                return reply
        return None


def dated(headers: dict[str, str], shift: float) -> dict[str, str]:
    """``headers`` with an HTTP-date ``retry-after`` moved by ``shift`` seconds: a
    scenario writes dates on the virtual clock, which starts at 2026-01-01T00:00:00Z; a
    run whose wall clock starts elsewhere gets the same waits."""
    value = headers.get("retry-after")
    if not shift or value is None or _is_number(value):
        return headers
    parsed = email.utils.parsedate_tz(value)
    if parsed is None:
        return headers
    moved = email.utils.formatdate(email.utils.mktime_tz(parsed) + shift, usegmt=True)
    return {**headers, "retry-after": moved}


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _json_or_text(content: bytes) -> Any:
    """The body as JSON, else as text (None when empty)."""
    if not content:
        return None
    try:
        return json_body.loads(content)
    except ValueError:
        return content.decode("utf-8", "replace")


def _public_headers(headers: Mapping[str, str]) -> dict[str, str]:
    """Lower-cased names, repeated ones joined with ", " (as httpx does), secrets masked;
    read from httpx's raw pairs when it has them (its ``items()`` is slow)."""
    raw = getattr(headers, "raw", None)
    if raw is not None:
        pairs = [(k.decode("latin-1").lower(), v.decode("latin-1")) for k, v in raw]
    else:
        pairs = [(k.lower(), v) for k, v in headers.items()]
    public = dict(pairs)
    if len(public) < len(pairs):  # a name repeated: its values joined
        public = {}
        for name, value in pairs:
            public[name] = f"{public[name]}, {value}" if name in public else value
    for name in SECRET_HEADERS.intersection(public):
        public[name] = "<redacted>"
    return public
