"""What ``harness serve --check`` reports, and what ``--log`` keeps: every request (bad
bodies, no reply left, after a 401), timing from real arrival times, conversations told
apart within a session, headers and bodies scrubbed as a cassette scrubs them."""

from __future__ import annotations

import json
from pathlib import Path

import anthropic
import httpx2
import pytest

from harness.cassette.log_scrub import scrub_for_log
from harness.scenario.format.loader import load_scenario
from harness.scenario.format.problem import Kind
from harness.serve.report import build_server, check_served

FAKE_KEY = "sk-ant-api03-" + "Q" * 93 + "AA"


def scenario_file(tmp_path: Path, replies: str, extra: str = "") -> Path:
    path = tmp_path / "served.yaml"
    path.write_text(f"name: served\nabout: for the report\n{extra}turns:\n  - user: hi\n    replies:\n{replies}", encoding="utf-8")
    return path


def serve(path: Path, **options):
    options = {"host": "127.0.0.1", "port": 0, "time_scale": 0, "log": None, "log_path": None} | options
    scenario = load_scenario(path)
    return scenario, build_server(scenario, **options)


def post(http: httpx2.Client, body: bytes | str, path: str = "/v1/messages", **headers: str) -> httpx2.Response:
    return http.post(path, content=body, headers={"content-type": "application/json", **headers})


HI = json.dumps({"model": "m", "max_tokens": 9, "messages": [{"role": "user", "content": "hi"}]})


def test_bodies_that_are_not_json_or_not_objects_get_the_apis_400(tmp_path) -> None:
    scenario, server = serve(scenario_file(tmp_path, "      - text: Hello.\n"))
    with server, httpx2.Client(base_url=server.url) as http:
        not_json, not_object = post(http, b"{not json"), post(http, b"[1, 2]")
        assert post(http, HI).status_code == 200
    assert not_json.status_code == not_object.status_code == 400
    assert not_json.json()["error"] == {
        "type": "invalid_request_error",
        "message": "The request body is not valid JSON: Expecting property name enclosed in double quotes: line 1 column 2 (char 1)",
    }
    assert not_object.json()["error"]["message"] == "Input should be a valid dictionary"
    report = check_served(scenario, server)
    assert [line.split(" → ")[1].split(" · ")[0] for line in report.lines[1:]] == ["400 invalid_json", "400 not_an_object", "200 text"]
    assert len(report.problems) == 2 and "request 1: The request body is not valid JSON" in report.problems[0].text
    assert [(p.kind, p.request) for p in report.problems] == [(Kind.API_RULE, 1), (Kind.API_RULE, 2)]


def test_a_request_after_a_401_with_no_reply_left_is_answered_the_same_and_judged(tmp_path) -> None:
    scenario, server = serve(scenario_file(tmp_path, "      - error: authentication\n"))
    with server, httpx2.Client(base_url=server.url) as http:
        assert post(http, HI).status_code == 401
        assert post(http, HI).status_code == 401  # the API answers a bad key the same way every time
    report = check_served(scenario, server)
    assert report.lines[1].endswith("→ 401 error authentication")
    assert "→ 401 error authentication (again: no reply was left) · retry of #1" in report.lines[2]
    assert "the default session: request 2 tries again after the non-retryable failure of request 1" in report.notes
    assert report.problems == []  # how often a client tries is its policy; only expect.requests would check it


def test_a_request_with_no_reply_left_after_a_success_is_a_note(tmp_path) -> None:
    scenario, server = serve(scenario_file(tmp_path, "      - text: Hello.\n"))
    with server, httpx2.Client(base_url=server.url) as http:
        assert post(http, HI).status_code == 200
        assert post(http, HI).status_code == 500
    report = check_served(scenario, server)
    assert report.lines[2].split(" · ")[0].endswith("→ 500 no reply left")
    assert "the default session: the agent made request 2 but scenario served has 1 replies" in report.notes
    assert report.problems == []


def test_replies_never_requested_are_a_note_unless_the_turn_expects_a_count(tmp_path) -> None:
    replies = "      - error: overloaded\n      - text: Hello.\n"
    for expect, problems in (("", []), ("    expect: {requests: 2}\n", ["turn 1: expect.requests: expected 2, the agent made 1"])):
        scenario, server = serve(scenario_file(tmp_path, replies + expect))
        with server, httpx2.Client(base_url=server.url) as http:
            assert post(http, HI).status_code == 529
        report = check_served(scenario, server)
        assert [p.text.split(": ", 1)[1].split(" (")[0] for p in report.problems] == problems
        assert "1 reply(ies) of scenario served were never requested" in report.notes


def test_a_retry_before_retry_after_is_a_problem_on_real_arrival_times(tmp_path) -> None:
    # the server's own clock, read as a function of how many requests have arrived, so that the
    # server thread's reading at the end of an answer cannot race the test: the client waits 0.05 s, then 0.35 s
    replies = "      - {error: rate_limit, headers: {retry-after-ms: '300'}}\n" * 2 + "      - text: Hello.\n"
    arrived_at = {0: 0.0, 1: 0.0, 2: 0.05, 3: 0.4}
    server = None
    scenario, server = serve(scenario_file(tmp_path, replies), monotonic=lambda: arrived_at[len(server.responder.requests) if server else 0])
    with server, httpx2.Client(base_url=server.url) as http:
        for _ in range(3):
            post(http, HI)
    problems = check_served(scenario, server).problems
    assert len(problems) == 1 and "request 2 came 0.050s" in problems[0].text and "which asked for retry-after 0.3s" in problems[0].text


def test_sessions_each_get_their_replies_and_their_part_of_the_report(tmp_path) -> None:
    scenario, server = serve(scenario_file(tmp_path, "      - error: overloaded\n      - text: Hello.\n"))
    with server:
        for name in ("alice", "bob"):
            with anthropic.Anthropic(base_url=f"{server.url}/s/{name}", api_key="test", max_retries=1) as client:
                client.with_options(timeout=5).messages.create(model="m", max_tokens=9, messages=[{"role": "user", "content": name}])
    report = check_served(scenario, server)
    assert [line for line in report.lines if line.startswith("session")] == [
        "session 'alice': 2 request(s) to /v1/messages", "session 'bob': 2 request(s) to /v1/messages"
    ]
    assert report.problems == []


def test_interleaved_conversations_of_one_session_are_told_apart(tmp_path) -> None:
    """A sub-agent's request between a failure and its retry is not taken for a rewrite."""
    replies = "      - error: overloaded\n      - text: Sub-agent answer.\n      - text: Main answer.\n"
    scenario, server = serve(scenario_file(tmp_path, replies))
    main = json.dumps({"model": "m", "max_tokens": 9, "system": "main", "messages": [{"role": "user", "content": "Fix it"}]})
    sub = json.dumps({"model": "m", "max_tokens": 9, "system": "explorer", "messages": [{"role": "user", "content": "Find it"}]})
    with server, httpx2.Client(base_url=server.url) as http:
        for body in (main, sub, main):
            post(http, body)
    report = check_served(scenario, server)
    assert report.problems == [], report.problems
    assert [line.split(" · ", 1)[1] for line in report.lines[2:]] == ["conversation 2", "conversation 1, retry of #1, "
                                                                   + report.lines[3].split("retry of #1, ")[1]]


def test_the_log_keeps_headers_and_bodies_as_a_cassette_would(tmp_path) -> None:
    log = tmp_path / "log.jsonl"
    scenario, server = serve(scenario_file(tmp_path, "      - text: Hello.\n"), log_path=str(log), scrub=scrub_for_log)
    secret_body = json.dumps({"model": "m", "max_tokens": 9, "messages": [{"role": "user", "content": f"my key is {FAKE_KEY}"}]})
    with server, httpx2.Client(base_url=server.url) as http:
        post(http, secret_body, **{"x-api-key": FAKE_KEY, "authorization": f"Bearer {FAKE_KEY}",
                                   "anthropic-beta": "message-threads-2026-08-12", "cookie": "session=abc"})
    text = log.read_text()
    assert FAKE_KEY not in text and "session=abc" not in text
    entry = json.loads(text)
    assert entry["request"]["headers"] == {"content-type": "application/json", "anthropic-beta": "message-threads-2026-08-12"}
    assert json.loads(entry["request"]["body"])["messages"][0]["content"] .startswith("my key is <redacted:anthropic-key:")
    assert entry["response"]["status"] == 200 and '"type":"message_stop"' not in entry["response"]["body"]
    assert json.loads(entry["response"]["body"])["content"][0]["text"] == "Hello."


def test_without_a_scrub_the_log_holds_no_header_and_no_body(tmp_path) -> None:
    log = tmp_path / "log.jsonl"
    scenario, server = serve(scenario_file(tmp_path, "      - text: Hello.\n"), log_path=str(log))
    with server, httpx2.Client(base_url=server.url) as http:
        post(http, HI, **{"x-api-key": FAKE_KEY})
    entry = json.loads(log.read_text())
    assert entry["request"] is None and entry["response"] is None and FAKE_KEY not in log.read_text()


@pytest.mark.parametrize("declared", ["supported", "unsupported"])
def test_a_scenario_declares_whether_the_api_threads(tmp_path, declared) -> None:
    scenario, server = serve(scenario_file(tmp_path, "      - text: Hello.\n", f"threads: {declared}\n"))
    threaded = json.dumps(json.loads(HI) | {"thread": {"type": "create"}})
    with server, httpx2.Client(base_url=server.url) as http:
        answer = post(http, threaded, **{"anthropic-beta": "message-threads-2026-08-12"})
    if declared == "supported":
        assert answer.status_code == 200
    else:
        assert answer.status_code == 400 and answer.json()["error"]["details"] == {"error_code": "thread_unsupported_request"}
