"""The fake API's policies: any JSON a client sends gets an answer in the API's words (a
malformed conversation the oracle's 400, never an exception of the harness), thinking
signed by another model is refused by the oracle's rule, and a policy added to the list
changes how requests are answered without touching the Responder."""

from __future__ import annotations

import json
from typing import Any

import anthropic
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness.oracle import check_request
from harness.oracle.fields import required_fields
from harness.scenario.fake_api.clients import scenario_clients, sync_client
from harness.scenario.fake_api.policy import Pending, Policy, Refusal
from harness.scenario.fake_api.responder import Responder
from harness.scenario.fake_api.transport import ScenarioTransport
from harness.wire.api_errors import error_body
from harness.wire.plan import json_plan
from harness.wire.replies import Reply

MODEL = "claude-sonnet-5-5"
OTHER_MODEL = "claude-haiku-5-5"
THOUGHT = Reply(message={"thinking": "Let me see.", "text": "Hello."})
HELLO = Reply(message={"text": "Hello."})


def request(*messages: Any, model: str = MODEL, **fields: Any) -> dict[str, Any]:
    return {"model": model, "max_tokens": 100, "messages": list(messages), **fields}


def user(content: Any) -> dict[str, Any]:
    return {"role": "user", "content": content}


def answer(responder: Responder, body: Any) -> tuple[int, str]:
    """The status and error message (or "") the fake API answers ``body`` with."""
    plan = responder.respond("POST", "/v1/messages", {}, json.dumps(body).encode())
    sent = json.loads(plan.body) if plan.headers.get("content-type") == "application/json" else {}
    return plan.status, sent.get("error", {}).get("message", "")


def signed_thinking(responder: Responder) -> dict[str, Any]:
    """The assistant message the fake API just answered, with its signed thinking block."""
    events = responder.requests[-1].plan.events  # type: ignore[union-attr]
    signature = next(e["delta"]["signature"] for e in events if e.get("delta", {}).get("type") == "signature_delta")
    return {"role": "assistant", "content": [
        {"type": "thinking", "thinking": "Let me see.", "signature": signature}, {"type": "text", "text": "Hello."}]}


MALFORMED = {
    "a block that is a string": (request(user(["oops"])), "messages.0.content.0: Input should be a valid dictionary"),
    "a block that is a number": (request(user([5])), "messages.0.content.0: Input should be a valid dictionary"),
    "a signature that is not a string": (
        request(user("Hi"), {"role": "assistant", "content": [
            {"type": "thinking", "thinking": "x", "signature": 5}, {"type": "text", "text": "Hello."}]}, user("Go on")),
        "messages.1.content.0.thinking.signature: Input should be a valid string",
    ),
    "a block type that is a list": (
        request(user([{"type": ["text"], "text": "Hi"}])),
        "messages.0.content.0: Unable to extract tag using discriminator 'type'",
    ),
    "messages that are an object": (request() | {"messages": {"0": "Hi"}}, "messages: Input should be a valid list"),
    "a message that is a list": (request(["user", "Hi"]), "messages.0: Input does not match the expected shape."),
}


@pytest.mark.parametrize("body, said", MALFORMED.values(), ids=MALFORMED.keys())
def test_a_malformed_conversation_gets_the_oracles_400_even_after_signed_thinking(body: dict[str, Any], said: str) -> None:
    responder = Responder([THOUGHT, HELLO])
    responder.respond("POST", "/v1/messages", {}, json.dumps(request(user("Hi"))).encode())  # signatures remembered
    assert answer(responder, body) == (400, said)
    assert str(responder.problems[0]) == f"request 2: {said}" and responder.problems[0].request == 2


def test_the_sdk_gets_a_bad_request_error_for_a_block_that_is_not_an_object() -> None:
    responder = Responder([THOUGHT])
    client = sync_client(ScenarioTransport(responder))
    client.messages.create(**request(user("Hi")))
    with pytest.raises(anthropic.BadRequestError, match="messages.0.content.0: Input should be a valid dictionary"):
        client.messages.create(**request(user(["oops"])))
    assert responder.unused == []  # the refusal took no reply of the scenario


def test_a_message_request_without_max_tokens_gets_the_apis_400_and_token_counting_needs_none() -> None:
    """The live API's answer (2026): ``max_tokens: Field required``; the saved-conversation
    checker and ``count_tokens`` take a body without it."""
    body = {"model": MODEL, "messages": [user("Hi")]}
    responder = Responder([HELLO])
    assert answer(responder, body) == (400, "max_tokens: Field required")
    assert responder.unused == [HELLO] and str(responder.problems[0]) == "request 1: max_tokens: Field required"
    assert check_request(body) == []
    assert sync_client(ScenarioTransport(responder)).messages.count_tokens(**body).input_tokens > 0
    assert answer(responder, body | {"max_tokens": 100}) == (200, "")


def test_thinking_edited_in_the_latest_assistant_message_is_refused_and_earlier_or_unknown_is_not() -> None:
    """The live API (2026): "`thinking` or `redacted_thinking` blocks in the latest assistant
    message cannot be modified. …"; a signature it never handed out is not judged."""
    responder = Responder([THOUGHT, HELLO, HELLO, HELLO])
    assert answer(responder, request(user("Hi")))[0] == 200
    kept = signed_thinking(responder)
    edited = {**kept, "content": [{**kept["content"][0], "thinking": "Let me see. "}, kept["content"][1]]}
    assert answer(responder, request(user("Hi"), edited, user("And now?"))) == (
        400, "messages.1.content.0: `thinking` or `redacted_thinking` blocks in the latest assistant message cannot be "
             "modified. These blocks must remain as they were in the original response.")
    later = [user("Hi"), edited, user("And now?"), {"role": "assistant", "content": "Fine."}, user("Bye")]
    assert answer(responder, request(*later)) == (200, "")
    unknown = {**edited, "content": [{**edited["content"][0], "signature": "c2lnbmVk"}, kept["content"][1]]}
    assert answer(responder, request(user("Hi"), unknown, user("And now?"))) == (200, "")
    assert answer(responder, request(user("Hi"), kept, user("And now?"))) == (200, "")


def test_thinking_sent_back_to_another_model_is_refused_and_to_its_own_model_is_not() -> None:
    responder = Responder([THOUGHT, HELLO])
    assert answer(responder, request(user("Hi")))[0] == 200
    history = [user("Hi"), signed_thinking(responder), user("And now?")]
    assert answer(responder, request(*history, model=OTHER_MODEL)) == (
        400, "messages.1.content.0: Invalid `signature` in `thinking` block")
    assert answer(responder, request(*history)) == (200, "")


json_scalars = (
    st.none() | st.booleans() | st.integers() | st.sampled_from([10**400, -(10**400)]) | st.floats(allow_nan=False)
    | st.text(max_size=8)
)
json_values = st.recursive(
    json_scalars
    | st.sampled_from(["user", "assistant", "thinking", "text", "tool_use", "tool_result", "signature"]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
        st.sampled_from(["role", "content", "type", "text", "thinking", "signature", "id", "tool_use_id", "input"]),
        inner, max_size=4),
    max_leaves=25,
)


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(messages=st.lists(json_values, max_size=4))
def test_any_json_conversation_is_answered_never_raised_on(messages: list[Any]) -> None:
    responder = Responder([THOUGHT, HELLO])
    responder.respond("POST", "/v1/messages", {}, json.dumps(request(user("Hi"))).encode())
    thought = signed_thinking(responder)
    body = request(*messages, thought, *messages)
    status, said = answer(responder, body)
    found = check_request(body, signatures={b["signature"]: MODEL for b in thought["content"] if "signature" in b})
    assert (status, said) == ((400, found[0].api_text) if found else (200, ""))


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(fields=st.dictionaries(st.sampled_from(
    ["model", "max_tokens", "temperature", "top_p", "top_k", "messages", "tools", "thinking", "system"]),
    json_scalars | json_values))
def test_any_json_request_body_is_answered_never_raised_on(fields: dict[str, Any]) -> None:
    status, said = answer(Responder([HELLO]), fields)
    found = required_fields(fields) + check_request(fields)
    assert (status, said) == ((400, found[0].api_text) if found else (200, ""))


class EveryOtherRequestLimited(Policy):
    """A made-up limits model: every second request gets a 429 with ``retry-after``."""

    def __init__(self) -> None:
        self.seen = 0

    def refuse(self, pending: Pending) -> Refusal | None:
        self.seen += 1
        if self.seen % 2:
            return None
        body = error_body("rate_limit_error", "Number of requests has exceeded your rate limit.", pending.request_id)
        plan = json_plan(429, body, pending.request_id)
        plan.headers["retry-after"] = "3"
        return Refusal(plan)


def test_a_limits_model_is_one_more_policy_in_the_list() -> None:
    responder = Responder([HELLO, HELLO])
    responder.policies.insert(0, EveryOtherRequestLimited())
    client, _ = scenario_clients(ScenarioTransport(responder))  # the SDK's own retries, on the virtual clock
    for _ in range(2):
        assert client.messages.create(**request(user("Hi"))).content[0].text == "Hello."
    assert [r.plan.status for r in responder.requests] == [200, 429, 200]  # type: ignore[union-attr]
    assert responder.clock.sleeps == [3.0] and responder.unused == [] and responder.problems == []
