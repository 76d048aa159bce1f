"""Rate limits as a model: the buckets answer 429s with the retry-after they imply, the
``anthropic-ratelimit-*`` headers are written as the API writes them, the spend cap is
the documented 429, and the checks fail the agents that break the rules — one that
retries before ``retry-after``, one that caps a long wait as older SDKs did, one that
storms the spend cap — and note the one that slows down before a 429. The agents here
are a few lines each, on the SDK, written for these tests."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import anthropic
import pytest

from harness.cli import main
from harness.scenario.fake_api.rate_limits import enforce
from harness.scenario.fake_api.responder import Responder
from harness.scenario.format.dump import dump_scenario, write_scenario
from harness.scenario.format.limits import (
    Acceleration,
    Limits,
    LimitsError,
    SpendCap,
    load_limits,
)
from harness.scenario.format.loader import load_scenario
from harness.scenario.run.runner import run_scenario
from harness.scenario.run.wire_session import WireSession
from harness.serve.report import build_server
from harness.wire.clock import VirtualClock
from harness.wire.replies import Reply

LIBRARY = Path(__file__).resolve().parents[1] / "harness" / "library" / "scenarios" / "limits"
RESET = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")
READ = {"name": "Read", "description": "A file's text.",
        "input_schema": {"type": "object", "properties": {"file_path": {"type": "string"}}, "required": ["file_path"]}}


class Retrier:
    """Asks until it gets an answer, waiting ``wait(headers, attempt)`` between tries."""

    def __init__(self, ctx: Any, wait: Any, attempts: int = 12) -> None:
        self.client, self.sleep, self.wait, self.attempts = ctx.client.with_options(max_retries=0), ctx.sleep, wait, attempts
        self.messages: list[dict[str, Any]] = []

    def run_turn(self, text: str) -> str:
        self.messages.append({"role": "user", "content": text})
        for _ in range(8):
            message = self._ask()
            if message is None:
                return "gave up"
            self.messages.append({"role": "assistant", "content": [b.model_dump(exclude_none=True) for b in message.content]})
            calls = [b for b in message.content if b.type == "tool_use"]
            if not calls:
                return "done"
            self.messages.append({"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": c.id, "content": "Pick up bread."} for c in calls]})
        return "too many steps"

    def _ask(self) -> Any:
        for attempt in range(self.attempts):
            try:
                return self.client.messages.create(model="claude-opus-5-5", max_tokens=1024, tools=[READ], messages=self.messages)
            except anthropic.APIStatusError as error:
                self.sleep(self.wait(error.response.headers, attempt))
        return None


def honours_retry_after(headers: Any, attempt: int) -> float:
    return float(headers.get("retry-after") or 2**attempt)


def early(headers: Any, attempt: int) -> float:
    """Retries after a second, whatever the server asked."""
    return 1.0


def capped_like_older_sdks(headers: Any, attempt: int) -> float:
    """Older Python SDKs: retry-after obeyed up to 60 s, else their own backoff (at most 8 s)."""
    asked = float(headers.get("retry-after") or 0)
    return asked if 0 < asked <= 60 else min(8.0, 0.5 * 2**attempt)


def agent(wait: Any, attempts: int = 12):
    return lambda ctx: Retrier(ctx, wait, attempts)


def served(limits: Limits, *replies: Reply, max_tokens: int = 1024) -> tuple[Responder, list[Any]]:
    """Requests sent straight to a responder with ``limits`` in force: the plans answered."""
    responder = Responder(replies, clock=VirtualClock())
    enforce(responder, limits)
    body = json.dumps({"model": "claude-opus-5-5", "max_tokens": max_tokens, "stream": True,
                       "messages": [{"role": "user", "content": "x" * 4000}]}).encode()
    return responder, [responder.respond("POST", "/v1/messages", {}, body) for _ in replies]


def test_every_answer_carries_the_headers_as_the_api_writes_them():
    _, [plan] = served(Limits(requests_per_minute=50, input_tokens_per_minute=30_000, output_tokens_per_minute=16_000),
                       Reply(message={"text": "Hi"}), max_tokens=4096)
    headers = {k: v for k, v in plan.headers.items() if k.startswith("anthropic-ratelimit-")}
    assert headers["anthropic-ratelimit-requests-limit"] == "50" and headers["anthropic-ratelimit-requests-remaining"] == "49"
    assert headers["anthropic-ratelimit-input-tokens-remaining"] == "29000"  # 30,000 less about 1,000, to the thousand
    assert headers["anthropic-ratelimit-output-tokens-remaining"] == "12000"  # max_tokens charged as the request starts
    assert headers["anthropic-ratelimit-tokens-limit"] == "46000"  # input and output together
    assert headers["anthropic-ratelimit-tokens-remaining"] == "41000"
    assert all(RESET.match(v) for k, v in headers.items() if k.endswith("-reset"))
    assert len(headers) == 12


def test_the_tokens_family_shows_a_workspace_limit_when_it_is_the_most_restrictive():
    _, [plan] = served(Limits(tokens_per_minute=6_000), Reply(message={"text": "Hi"}))
    assert (plan.headers["anthropic-ratelimit-tokens-limit"], plan.headers["anthropic-ratelimit-tokens-remaining"]) == ("6000", "4000")


def test_a_request_that_does_not_fit_gets_the_429_its_bucket_implies_and_takes_no_reply():
    responder, plans = served(Limits(requests_per_minute=2), *[Reply(message={"text": "Hi"})] * 3)
    assert [p.status for p in plans] == [200, 200, 429]
    assert plans[2].headers["retry-after"] == "30" and plans[2].headers["anthropic-ratelimit-requests-remaining"] == "0"
    error = json.loads(plans[2].body)["error"]
    assert error["type"] == "rate_limit_error"
    assert error["message"].startswith("This request would exceed the rate limit for your organization of 2 requests per minute.")
    assert responder.requests[2].limited == "requests" and len(responder.unused) == 1


def test_the_spend_cap_is_the_documented_429_without_retry_after():
    _, plans = served(Limits(spend_cap=SpendCap(after_requests=1)), Reply(message={"text": "Hi"}), Reply(message={"text": "Hi"}))
    assert [p.status for p in plans] == [200, 429] and "retry-after" not in plans[1].headers
    error = json.loads(plans[1].body)["error"]
    assert error["details"] == {"error_code": "enforced_spend_limit_reached"} and error["type"] == "rate_limit_error"
    assert re.search(r"You will regain access on \d{4}-\d\d-01 at 00:00 UTC\.$", error["message"])


def test_an_agent_that_honours_retry_after_passes_the_library_scenario():
    outcome = run_scenario(load_scenario(LIBRARY / "requests_bucket.yaml"), agent=agent(honours_retry_after))
    assert outcome.not_applicable is None and outcome.problems == []
    assert [r.limited for r in outcome.requests].count("requests") == 2


def test_an_agent_that_retries_before_retry_after_fails_and_gets_another_429():
    outcome = run_scenario(load_scenario(LIBRARY / "requests_bucket.yaml"), agent=agent(early))
    texts = [p.text for p in outcome.problems]
    assert any(re.search(r"came 1\.000s after request \d+, which asked for retry-after 30s; the API refused it again with a 429", t)
               for t in texts), texts


def test_an_agent_that_caps_a_long_wait_as_older_sdks_did_fails_the_wait_over_a_minute():
    outcome = run_scenario(load_scenario(LIBRARY / "long_wait.yaml"), agent=agent(capped_like_older_sdks))
    assert any("which asked for retry-after 172s; the API refused it again with a 429" in p.text for p in outcome.problems)


def test_an_agent_that_ignores_the_spend_cap_storms_it_and_fails():
    outcome = run_scenario(load_scenario(LIBRARY / "spend_cap.yaml"), agent=agent(early, attempts=6))
    [storm] = [p for p in outcome.problems if "retry storm" in p.text]
    assert "request 5 is retry 3 after the spend-cap 429 of request 2" in storm.text and storm.turn == 2


def test_the_sdks_own_two_retries_of_the_spend_cap_are_noted_not_failed():
    def sdk_default(ctx):
        client = ctx.client.with_options(max_retries=2)  # the SDK's own retries, on the virtual clock

        class Agent:
            def run_turn(self, text):
                try:
                    client.messages.create(model="claude-opus-5-5", max_tokens=64, messages=[{"role": "user", "content": text}])
                except anthropic.RateLimitError:
                    return "capped"
                return "answered"

        return Agent()

    outcome = run_scenario(load_scenario(LIBRARY / "spend_cap.yaml"), agent=sdk_default)
    assert outcome.problems == []
    assert any("2 request(s) after the spend-cap 429" in note for note in outcome.notes)


def test_an_agent_that_reads_remaining_and_slows_down_is_noted_in_its_favour():
    def patient(ctx):
        retrier = Retrier(ctx, honours_retry_after)
        create = retrier.client.messages.with_raw_response.create

        def ask() -> Any:
            response = create(model="claude-opus-5-5", max_tokens=1024, tools=[READ], messages=retrier.messages)
            if response.headers.get("anthropic-ratelimit-requests-remaining") == "0":
                ctx.sleep(30.0)  # the bucket refills one request every 30 s
            return response.parse()

        retrier._ask = ask
        return retrier

    outcome = run_scenario(load_scenario(LIBRARY / "requests_bucket.yaml"), agent=patient)
    assert outcome.problems == [] and not any(r.limited for r in outcome.requests)
    assert any("anthropic-ratelimit-requests-remaining: 0, and needed no 429" in note for note in outcome.notes)


def test_a_socket_refills_on_real_time(tmp_path):
    (tmp_path / "s.yaml").write_text("name: s\nabout: s\nturns:\n  - user: hi\n    replies:\n" + "      - text: Hi.\n" * 3)
    now = [100.0]
    server = build_server(load_scenario(tmp_path / "s.yaml"), host="127.0.0.1", port=0, time_scale=0, log=None,
                          log_path=None, rate_limits=Limits(requests_per_minute=1, bucket_seconds=60), monotonic=lambda: now[0])
    with server:
        client = anthropic.Anthropic(base_url=server.url, api_key="test", max_retries=0)
        ask = lambda: client.messages.with_raw_response.create(  # noqa: E731
            model="claude-opus-5-5", max_tokens=64, messages=[{"role": "user", "content": "hi"}])
        assert ask().headers["anthropic-ratelimit-requests-remaining"] == "0"
        with pytest.raises(anthropic.RateLimitError) as refused:
            ask()
        assert refused.value.response.headers["retry-after"] == "60"
        now[0] += 60  # a minute later on the server's clock, the bucket holds a request again
        assert ask().status_code == 200


def test_a_limits_file_is_checked_like_a_scenario(tmp_path):
    (tmp_path / "limits.yaml").write_text("requests_per_minute: 5\nacceleration: {window: 10, growth: 0.5}\n", encoding="utf-8")
    with pytest.raises(LimitsError, match=r"limits\.yaml:2:\d+: `limits\.acceleration\.growth` must be at least 1, got 0\.5"):
        load_limits(tmp_path / "limits.yaml")
    (tmp_path / "limits.yaml").write_text("requests_per_minute: 5\noutput_counted: generated\n", encoding="utf-8")
    assert load_limits(tmp_path / "limits.yaml") == Limits(requests_per_minute=5, output_counted="generated")


def test_the_fault_api_fixture_enforces_the_scenarios_limits():
    session = WireSession.from_file(LIBRARY / "requests_bucket.yaml")
    client = session.client()
    ask = lambda: client.messages.create(  # noqa: E731
        model="claude-opus-5-5", max_tokens=64, tools=[READ], messages=[{"role": "user", "content": "hi"}])
    ask(), ask()
    with pytest.raises(anthropic.RateLimitError) as refused:
        ask()
    assert refused.value.response.headers["retry-after"] == "30"


def test_limits_are_written_back_as_they_were_read(tmp_path):
    loaded = load_scenario(LIBRARY / "acceleration.yaml")
    assert "limits:\n  acceleration: {window: 10, growth: 2, floor: 2}\n" in dump_scenario(loaded)
    again = load_scenario(write_scenario(loaded, tmp_path / "again.yaml"))
    assert again.limits == loaded.limits == Limits(acceleration=Acceleration(10, 2, 2))


def test_harness_serve_refuses_a_limits_file_with_mistakes_before_it_listens(tmp_path, capsys):
    (tmp_path / "limits.yaml").write_text("requests_per_minut: 5\n", encoding="utf-8")
    assert main(["serve", str(LIBRARY / "requests_bucket.yaml"), "--port", "0", "--limits", str(tmp_path / "limits.yaml")]) == 2
    assert "limits.yaml:1:1: unknown key 'requests_per_minut'" in capsys.readouterr().err
