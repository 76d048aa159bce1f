"""Layer 1: model requests are retried visibly, through the real SDK, on virtual time."""

from __future__ import annotations

import json

import anthropic
import pytest

from harness.oracle import check_history
from harness.scenario.fake_api.clients import sync_client
from harness.scenario.fake_api.transport import ScenarioTransport
from harness.wire.faults import BadData, Cut, EndEarly, ErrorEvent
from harness.wire.replies import Reply
from mini_agent.errors import ModelError, to_model_error
from mini_agent.retry import RetryPolicy, parse_retry_after
from mini_agent.settings import Settings

ANSWER = Reply(message={"text": "The answer is 42."})


def test_overloaded_twice_then_answer_is_retried_visibly(agent_with):
    run = agent_with([Reply(error="overloaded"), Reply(error="overloaded"), ANSWER])
    run.turn("What is the answer?")
    assert run.end() == "end_turn"
    assert len(run.transport.requests) == 3
    notices = run.notices()
    assert len(notices) == 2
    assert "529" in notices[0] and "attempt 1/5" in notices[0]
    assert "attempt 2/5" in notices[1]
    assert 0.75 <= run.sleeps[0] <= 1.0 and 1.5 <= run.sleeps[1] <= 2.0
    assert run.bodies[0] == run.bodies[1] == run.bodies[2]
    assert run.agent.messages[-1]["content"] == [{"type": "text", "text": "The answer is 42."}]
    assert check_history(run.agent.messages) == []


def test_backoff_doubles_and_is_capped():
    policy = RetryPolicy(random=lambda: 0.0)
    assert [policy.delay_for(n) for n in range(1, 8)] == [1, 2, 4, 8, 16, 30, 30]
    jittered = RetryPolicy(random=lambda: 1.0)
    assert jittered.delay_for(3) == pytest.approx(3.0)


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({"retry-after": "3"}, 3.0),
        ({"retry-after-ms": "1500", "retry-after": "9"}, 1.5),
        ({"retry-after": "Thu, 01 Jan 2026 00:00:07 GMT"}, 7.0),
    ],
)
def test_retry_after_headers_set_the_pause(agent_with, headers, expected):
    run = agent_with([Reply(error="rate_limit", headers=headers), ANSWER])
    run.turn("hi")
    assert run.sleeps == [pytest.approx(expected)]
    assert run.end() == "end_turn"


def test_retry_after_parsing_ignores_garbage():
    assert parse_retry_after({"retry-after": "soon"}) is None
    assert parse_retry_after({}) is None


def test_unauthorized_fails_at_once_and_the_next_turn_works(agent_with):
    run = agent_with([Reply(error="authentication"), ANSWER])
    run.turn("hello")
    assert run.end() == "error"
    assert len(run.transport.requests) == 1 and run.sleeps == []
    assert any("401" in n and "authentication" in n for n in run.notices())
    run.turn("hello again")
    assert run.end() == "end_turn"
    assert check_history(run.agent.messages) == []


def test_retries_exhausted_ends_the_turn_with_a_notice(agent_with):
    run = agent_with([Reply(error="overloaded")] * 6)
    run.turn("hi")
    assert run.end() == "error"
    assert len(run.transport.requests) == 6
    assert "gave up after 5 retries" in run.notices()[-1]


def test_total_time_budget_stops_retrying(agent_with):
    run = agent_with([Reply(error="overloaded", headers={"retry-after": "50"})] * 4, settings=Settings(retry_budget=120))
    run.turn("hi")
    assert run.end() == "error"
    assert run.sleeps == [50.0, 50.0]
    assert "budget" in run.notices()[-1]


def test_stream_cut_halfway_keeps_only_the_complete_answer(agent_with):
    cut = Reply(message={"text": "A first answer that will be lost midway"}, faults=(Cut(after_event=3),))
    run = agent_with([cut, ANSWER])
    events = run.turn("hi")
    assert run.end() == "end_turn"
    assert "partial output above discarded" in run.notices()[0]
    assert [m["role"] for m in run.agent.messages] == ["user", "assistant"]
    assert run.agent.messages[1]["content"][0]["text"] == "The answer is 42."
    assert sum(1 for e in events if type(e).__name__ == "MessageDone") == 1


@pytest.mark.parametrize("how", ["fin", "rst"])
def test_raw_httpx2_error_mid_stream_is_retried(agent_with, how):
    run = agent_with([Reply(message={"text": "partial text here"}, faults=(Cut(in_event=4, how=how),)), ANSWER])
    run.turn("hi")
    assert run.end() == "end_turn"
    assert "stream_cut" in run.notices()[0]


def test_error_event_inside_a_200_stream_is_retried_by_its_type(agent_with):
    run = agent_with([Reply(message={"text": "Hello there"}, faults=(ErrorEvent(after_event=2),)), ANSWER])
    run.turn("hi")
    assert run.end() == "end_turn"
    assert "overloaded" in run.notices()[0]


def test_error_event_of_a_fatal_type_is_not_retried(agent_with):
    fatal = ErrorEvent(after_event=2, type="invalid_request_error", message="bad")
    run = agent_with([Reply(message={"text": "Hello"}, faults=(fatal,)), ANSWER])
    run.turn("hi")
    assert run.end() == "error"
    assert len(run.transport.requests) == 1


def test_clean_end_before_message_stop_is_detected_and_retried(agent_with):
    run = agent_with([Reply(message={"text": "Hello there"}, faults=(EndEarly(4),)), ANSWER])
    run.turn("hi")
    assert run.end() == "end_turn"
    assert "incomplete_stream" in run.notices()[0]
    assert run.agent.messages[-1]["content"][0]["text"] == "The answer is 42."


def test_unparseable_tool_json_is_retried(agent_with):
    broken = Reply(message={"tool_use": {"name": "Read", "json": [" ", '{"file_path": "a"}']}})
    run = agent_with([broken, ANSWER])
    run.turn("hi")
    assert run.end() == "end_turn"
    assert "bad_tool_json" in run.notices()[0]


def test_non_json_data_line_is_retried(agent_with):
    run = agent_with([Reply(message={"text": "Hello"}, faults=(BadData(2),)), ANSWER])
    run.turn("hi")
    assert run.end() == "end_turn"
    assert "bad_sse" in run.notices()[0]


def test_should_retry_header_overrides_the_status(agent_with):
    run = agent_with([Reply(error="overloaded", headers={"x-should-retry": "false"}), ANSWER])
    run.turn("hi")
    assert run.end() == "error" and len(run.transport.requests) == 1
    run = agent_with([Reply(error="invalid_request", headers={"x-should-retry": "true"}), ANSWER])
    run.turn("hi")
    assert run.end() == "end_turn" and len(run.transport.requests) == 2


@pytest.mark.parametrize("fault", ["refused", "connect_timeout", "read_timeout", "empty", "garbage"])
def test_connection_failures_are_retried(agent_with, fault):
    run = agent_with([Reply(connection=fault), ANSWER], settings=Settings(retry_budget=3600))
    run.turn("hi")
    assert run.end() == "end_turn"
    assert len(run.transport.requests) == 2


def test_a_real_529_status_error_translates_with_its_retry_after():
    transport = ScenarioTransport([Reply(error="overloaded", headers={"retry-after": "3"})])
    client = sync_client(transport)
    with pytest.raises(anthropic.APIStatusError) as caught:
        client.messages.create(model="m", max_tokens=10, messages=[{"role": "user", "content": "hi"}])
    assert isinstance(caught.value, anthropic.OverloadedError)
    error = to_model_error(caught.value)
    assert error == ModelError("overloaded", True, 529, 3.0, "Overloaded")
    assert caught.value.request_id == "req_harness_000001"


def test_unknown_exceptions_are_not_model_errors():
    assert to_model_error(KeyError("x")) is None


def test_fallback_parameters_are_sent(agent_with):
    run = agent_with([ANSWER])
    run.turn("hi")
    request = run.transport.requests[0]
    assert request.body["fallbacks"] == "default"
    assert "server-side-fallback-2026-07-01" in request.betas


def test_fallbacks_off_by_environment(agent_with, monkeypatch):
    monkeypatch.setenv("MINI_AGENT_FALLBACKS", "0")
    run = agent_with([ANSWER], settings=Settings(fallbacks=None))
    run.turn("hi")
    request = run.transport.requests[0]
    assert "fallbacks" not in request.body
    assert "anthropic-beta" not in request.headers
    assert json.dumps(request.body)


def test_a_read_timeout_uses_up_the_time_budget(agent_with):
    run = agent_with([Reply(connection="read_timeout"), ANSWER])
    run.turn("hi")
    assert run.end() == "error"
    assert run.transport.clock.now() == pytest.approx(600.0)
    assert "budget" in run.notices()[-1]
