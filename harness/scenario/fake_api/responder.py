"""The fake API's brain: answers each request from a queue of Replies, records every
request, and checks each one with the API-validity oracle.

Before any reply of the scenario, a ``/v1/messages`` request may be refused as the API
refuses it: a body that is not JSON or not a JSON object (400 ``invalid_request_error``,
"The request body is not valid JSON: …", the API's own form), a message-thread error
(``threads``), or a conversation that breaks the API's rules (the oracle's 400). A
reply with ``unstreamed:`` serves that reply instead to a request that does not stream.

Shared by the in-process transports (``transport``) and the socket server.
"""

from __future__ import annotations

import email.utils
from dataclasses import dataclass
from typing import Any, Iterable, Mapping

from harness.oracle import Violation, check_request, wording
from harness.oracle import error_body as violations_body
from harness.oracle.betas import request_betas
from harness.oracle.retry import status_is_retryable
from harness.scenario.fake_api.exchange import Exchange
from harness.scenario.fake_api.threads import Threads
from harness.scenario.fake_api.tool_map import ToolMap
from harness.scenario.format.model import DEFAULT_MODEL
from harness.wire import json_body
from harness.wire.api_errors import api_error, error_body
from harness.wire.clock import EPOCH_ORIGIN, VirtualClock
from harness.wire.plan import NoJsonForm, WirePlan, harness_error_plan, json_plan
from harness.wire.planner import plan_reply
from harness.wire.replies import Reply

SECRET_HEADERS = frozenset({"authorization", "x-api-key", "cookie", "anthropic-organization-id"})


@dataclass
class Pending:
    """A request whose reply is taken but not yet rendered (``Responder.claim``)."""

    record: Exchange
    planned: Reply  # the reply as queued (``record.reply`` is the form served)
    request_id: str
    model: str
    where: str  # the reply, as a problem names it
    served: bool = True  # False once rendering failed


class Responder:
    """Answers requests in order from queued replies, one queue per label (a turn)."""

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
        self.check_requests = check_requests
        self.requests: list[Exchange] = []
        self.problems: list[str] = []
        self.overrun: list[str] = []  # the problems that say a request came with no reply left
        self._queue: list[Reply] = []
        self._label = label
        self._served_in_queue = 0
        self.signature_models: dict[str, str] = {}
        self.tool_map = ToolMap()  # the agent's names for the standard tools
        self.threads = Threads(supported=threads)
        self.queue(replies, label)

    def queue(self, replies: Iterable[Reply], label: str) -> None:
        """Serve ``replies`` next; ``label`` names them in messages ("turn 2")."""
        self._queue = list(replies)
        self._label = label
        self._served_in_queue = 0

    @property
    def label(self) -> str:
        """What the current queue is called in messages ("turn 2")."""
        return self._label

    @property
    def unused(self) -> list[Reply]:
        """Replies of the current queue not yet served."""
        return self._queue[self._served_in_queue :]

    def respond(self, method: str, path: str, headers: Mapping[str, str], content: bytes) -> WirePlan:
        """The WirePlan answering one request."""
        pending = self.claim(method, path, headers, content)
        if pending is None:
            return self.requests[-1].plan  # type: ignore[return-value]
        self.render(pending)
        return self.settle(pending)

    def claim(self, method: str, path: str, headers: Mapping[str, str], content: bytes) -> Pending | None:
        """The first step of ``respond``: record the request, check it, take its reply.
        None when the answer is already decided (``requests[-1].plan``: a refusal, no
        reply left); else what ``render`` and ``settle`` finish. A server holds its lock
        for this step and for ``settle``; ``render`` needs none."""
        number = len(self.requests) + 1
        body = _json_or_text(content)
        record = Exchange(
            number, self.clock.now(), method, path, _public_headers(headers), body, self._label, self.clock.mark()
        )
        self.requests.append(record)
        request_id = f"req_harness_{number:06d}"
        if path.endswith("/v1/messages") and self._refuse(record, content, request_id) is not None:
            return None
        if self._served_in_queue >= len(self._queue):
            again = self._final_error()
            if again is None:
                message = (
                    f"the agent made request {self._served_in_queue + 1} but {self._label} "
                    f"has {len(self._queue)} replies"
                )
                self.problems.append(message)
                self.overrun.append(message)
                record.plan = harness_error_plan(f"harness: {message}", request_id)
                return None
            planned, record.repeated = again, True  # the API answers what it refused the same way again
        else:
            planned = self.tool_map.reply_for_agent(self._queue[self._served_in_queue])
            self._served_in_queue += 1
        record.reply = planned.unstreamed if planned.unstreamed is not None and not record.streaming else planned
        model = (body.get("model") if isinstance(body, dict) else None) or self.model
        where = f"the reply on line {planned.line}" if planned.line else f"reply {self._served_in_queue} of {self._label}"
        return Pending(record, planned, request_id, model, where)

    def render(self, pending: Pending) -> str | None:
        """The second step: the reply's WirePlan, in ``pending.record.plan``; the problem
        when the reply cannot be served (also in ``problems``)."""
        record, reply = pending.record, pending.record.reply
        assert reply is not None
        try:
            record.plan = plan_reply(
                reply, streaming=record.streaming, request_id=pending.request_id,
                message_id=f"msg_harness_{record.number:06d}", model=pending.model,
            )
            record.plan.headers = dated(record.plan.headers, self.clock.wall_origin - EPOCH_ORIGIN)
        except (IndexError, ValueError) as error:  # a fault aimed past the end of its stream, a stream-only fault
            if isinstance(error, NoJsonForm):
                why = f"to a request without `stream`: {error} has no non-streaming form (choose one with `unstreamed:`)"
            else:
                why = f": {type(error).__name__}: {error}"
            problem = f"{pending.where} cannot be served {why}"
            self.problems.append(problem)
            record.plan = harness_error_plan("harness: unservable reply", pending.request_id)
            pending.served = False
            return problem
        if pending.planned is not reply:
            record.plan.form = "the reply's `unstreamed:` form (the request does not stream)"
        return None

    def settle(self, pending: Pending) -> WirePlan:
        """The last step: what the answer leaves behind (its thinking signatures, the
        thread it continues); the plan to send."""
        record = pending.record
        assert record.plan is not None
        if pending.served:
            self._remember_signatures(record.plan, pending.model)
            self.threads.answered(record)
        return record.plan

    def _refuse(self, record: Exchange, content: bytes, request_id: str) -> WirePlan | None:
        """The API's own answer to a request it refuses before any reply: a bad body, a
        thread error, or a conversation that breaks its rules; None to go on."""
        body = record.body
        if not isinstance(body, dict):
            record.refused = "not_an_object" if _is_json(content) else "invalid_json"
            message = wording.NOT_AN_OBJECT if record.refused == "not_an_object" else json_body.invalid_json_message(content)
            self.problems.append(f"request {record.number}: {message}")
            record.plan = json_plan(400, error_body("invalid_request_error", message, request_id), request_id)
            return record.plan
        record.conversation, thread_error = self.threads.resolve(body)
        if thread_error is not None:
            record.refused = thread_error.code
            record.plan = json_plan(thread_error.status, thread_error.body(request_id), request_id)
            return record.plan
        if not self.check_requests:
            return None
        record.violations = check_request(record.conversation, betas=request_betas(record.headers))
        record.violations += self._foreign_signatures(record.conversation)
        if not record.violations:
            return None
        self.problems.extend(f"request {record.number}: {v}" for v in record.violations)
        record.plan = json_plan(400, error_body_with_id(record.violations, request_id), request_id)
        return record.plan

    def _final_error(self) -> Reply | None:
        """The last reply served in this queue when it was an error that sending the
        request again cannot change (a 401, a 400, ``x-should-retry: false``)."""
        if not self._served_in_queue:
            return None
        last = self._queue[self._served_in_queue - 1]
        if last.error is None or last.connection is not None:
            return None
        return None if status_is_retryable(api_error(last.error).status, last.headers) else last

    def _remember_signatures(self, plan: WirePlan, model: str) -> None:
        """Thinking signatures are bound to the model that wrote them."""
        for event in plan.events:
            if isinstance(event, dict) and event.get("type") == "content_block_delta":
                delta = event.get("delta")
                if isinstance(delta, dict) and delta.get("type") == "signature_delta":
                    self.signature_models[delta["signature"]] = model

    def _foreign_signatures(self, body: dict[str, Any]) -> list[Violation]:
        """Thinking blocks signed by a model other than the one this request asks for."""
        model = body.get("model")
        found = []
        for m, message in enumerate(body.get("messages") or []):
            content = message.get("content") if isinstance(message, dict) else None
            for b, block in enumerate(content if isinstance(content, list) else []):
                signer = self.signature_models.get(block.get("signature", "")) if isinstance(block, dict) else None
                if block.get("type") == "thinking" and signer and signer != model:
                    found.append(Violation(f"messages.{m}.content.{b}", wording.INVALID_SIGNATURE))
        return found


def error_body_with_id(violations: list[Violation], request_id: str) -> dict[str, Any]:
    """The 400 body for a request that breaks the API's rules."""
    return dict(violations_body(violations), request_id=request_id)


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


def _is_json(content: bytes) -> bool:
    try:
        json_body.loads(content)
    except ValueError:
        return False
    return True


def _public_headers(headers: Mapping[str, str]) -> dict[str, str]:
    """Lower-cased names, repeated ones joined with ", " (as httpx does), secrets masked;
    read from httpx's raw pairs when it has them (its ``items()`` is slow)."""
    raw = getattr(headers, "raw", None)
    pairs = ((k.decode("latin-1"), v.decode("latin-1")) for k, v in raw) if raw is not None else headers.items()
    public: dict[str, str] = {}
    for name, value in pairs:
        name = name.lower()
        if name in SECRET_HEADERS:
            public[name] = "<redacted>"
        else:
            public[name] = f"{public[name]}, {value}" if name in public else value
    return public
