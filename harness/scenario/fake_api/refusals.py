"""Requests the fake API refuses by itself, before any reply of the scenario, in the API's
own words (two policies; see ``policy``):

    NotJson       a body that is not JSON, or not a JSON object: 400 ``invalid_request_error``,
                  "The request body is not valid JSON: …" (the API's own form) or "Input
                  should be a valid dictionary"
    OracleCheck   a conversation that breaks the API's rules: the oracle's 400, its first
                  violation (``harness.oracle``; a message request without ``max_tokens``
                  too: ``fields.required_fields``); it remembers the thinking signatures the
                  fake API hands out, with their model, for the rule on signatures, and the
                  tool calls it handed out after thinking, for the rule on thinking kept
                  in a tool loop, and the thinking text of each signature, for the rule
                  on thinking edited
"""

from __future__ import annotations

from harness.oracle import error_body, wording
from harness.oracle.conversations import ConversationChecker
from harness.oracle.fields import required_fields
from harness.oracle.signatures import thoughts_in
from harness.oracle.thinking_kept import calls_after_thinking
from harness.scenario.fake_api.policy import Pending, Policy, Refusal
from harness.scenario.format.problem import Kind, Problem
from harness.wire import api_errors, json_body
from harness.wire.plan import json_plan


class NotJson(Policy):
    """A body that is not a JSON object gets the API's 400."""

    def refuse(self, pending: Pending) -> Refusal | None:
        record = pending.record
        if isinstance(record.body, dict):
            return None
        record.refused = "not_an_object" if _is_json(pending.content) else "invalid_json"
        message = wording.NOT_AN_OBJECT if record.refused == "not_an_object" else json_body.invalid_json_message(pending.content)
        body = api_errors.error_body("invalid_request_error", message, pending.request_id)
        problem = Problem(f"request {record.number}: {message}", Kind.API_RULE, request=record.number)
        return Refusal(json_plan(400, body, pending.request_id), (problem,))


class OracleCheck(Policy):
    """Every conversation checked against the API's rules; one that breaks any gets the
    API's 400, worded by the oracle (``record.violations`` holds them all). A request that
    goes on with a conversation an earlier one sent is read from where that one ended
    (``ConversationChecker``): a session is checked in linear time."""

    def __init__(self) -> None:
        self.signatures: dict[str, str] = {}  # thinking signature → the model it was handed out for
        self.thought_calls: set[str] = set()  # tool_use ids handed out in answers that opened with thinking
        self.thoughts: dict[str, str] = {}  # thinking signature → the text it was handed out with
        self.reused: set[str] = set()  # signatures a scenario handed out with two texts: not judged
        self.checker = ConversationChecker()

    def refuse(self, pending: Pending) -> Refusal | None:
        record = pending.record
        content = pending.content if record.whole is record.body else None  # the bytes of a conversation sent whole
        missing = required_fields(record.body) if record.whole is record.body and isinstance(record.body, dict) else []
        record.violations = missing + self.checker.check_request(record.whole, content=content, signatures=self.signatures,
                                                                 betas=record.betas, thought_calls=self.thought_calls,
                                                                 thoughts=self.thoughts)
        if not record.violations:
            return None
        plan = json_plan(400, error_body(record.violations, request_id=pending.request_id), pending.request_id)
        return Refusal(plan, tuple(Problem(f"request {record.number}: {v}", Kind.API_RULE, request=record.number)
                                   for v in record.violations))

    def answered(self, pending: Pending) -> None:
        """Thinking signatures are bound to the model that wrote them; the tool calls of an
        answer that thought first are the turn whose thinking must come back."""
        plan = pending.record.plan
        assert plan is not None
        if b"thinking" not in plan.body:  # nothing the client got thinks
            return
        for signature, text in thoughts_in(plan.events).items():
            self.signatures[signature] = pending.model
            if signature not in self.reused and self.thoughts.setdefault(signature, text) != text:
                self.reused.add(signature)
                del self.thoughts[signature]
        self.thought_calls.update(calls_after_thinking(plan.events))


def _is_json(content: bytes) -> bool:
    try:
        json_body.loads(content)
    except ValueError:
        return False
    return True
