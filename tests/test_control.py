"""``harness serve``'s control endpoints from Python: the journal says what each request
was served and whether it came whole, ``verify`` judges a session (or one turn of it)
with the scenario checks and answers 200 or 422, a session can be given a scenario of
its own and reset; a body that is not an ``expect`` is a 400 naming the mistake."""

from __future__ import annotations

from pathlib import Path

import anthropic
import httpx2
import pytest

from harness.scenario.format.loader import load_scenario
from harness.serve.report import build_server, check_served

SCENARIO = """\
name: two-turns
about: A cut stream retried, then a second turn.
turns:
  - user: Hello
    replies:
      - text: Hello there, this answer is cut.
        cut: 4
      - text: Hello there.
    expect: {requests: 2}
  - user: Bye
    replies:
      - text: Bye.
"""


@pytest.fixture
def server(tmp_path: Path):
    (tmp_path / "two.yaml").write_text(SCENARIO, encoding="utf-8")
    served = build_server(load_scenario(tmp_path / "two.yaml"), host="127.0.0.1", port=0, time_scale=0, log=None,
                          log_path=None)
    with served:
        yield served


def converse(url: str, session: str | None = None) -> None:
    """Two turns as a client that retries a broken stream would send them."""
    headers = {"x-harness-session": session} if session else None
    client = anthropic.Anthropic(base_url=url, api_key="test", max_retries=0, default_headers=headers)
    messages: list = [{"role": "user", "content": "Hello"}]
    for _ in range(2):
        try:
            with client.messages.stream(model="claude-opus-5-5", max_tokens=64, messages=messages) as stream:
                text = stream.get_final_text()
            break
        except (httpx2.HTTPError, anthropic.APIConnectionError):
            continue
    messages += [{"role": "assistant", "content": text}, {"role": "user", "content": "Bye"}]
    client.messages.create(model="claude-opus-5-5", max_tokens=64, messages=messages)


def control(server, method: str, path: str, body: str | None = None, **headers: str) -> httpx2.Response:
    return httpx2.request(method, f"{server.url}/__harness/{path}", content=body, headers=headers)


def test_the_journal_says_what_was_served_and_whether_it_came_whole(server):
    converse(server.url, "a")
    converse(server.url)
    journal = control(server, "GET", "journal?session=a").json()["requests"]
    assert [(r["session"], r["served"], r["verdict"]) for r in journal] == [("a", "cut (FIN)", "ok"), ("a", "whole", "ok"),
                                                                            ("a", "whole", "ok")]
    assert "cut after event 4" in journal[0]["answer"] and journal[1]["usage"]["output_tokens"] > 0
    assert len(control(server, "GET", "journal").json()["requests"]) == 6  # every session, control requests left out


def test_verify_judges_the_session_or_one_turn_with_the_scenario_checks(server):
    converse(server.url, "b")
    whole = control(server, "POST", "verify", "expect: {requests: 3, end: end_turn}\n", **{"x-harness-session": "b"})
    assert whole.status_code == 200 and whole.json()["passed"] and whole.json()["requests"] == 3
    first = control(server, "POST", "verify?session=b", '{"turn": 1, "expect": {"requests": 2, "notices": ["x"]}}')
    assert first.status_code == 200 and first.json()["not_checked"] == ["turn 1: expect.notices (needs agent events)"]
    wrong = control(server, "POST", "verify?session=b", "turn: 2\nexpect: {requests: 2, tools: [Read]}\n")
    assert wrong.status_code == 422
    assert [p["text"] for p in wrong.json()["problems"]] == [
        "turn 2: expect.requests: expected 2, the agent made 1", "turn 2: expect.tools: expected ['Read'], the agent answered []"]


def test_verify_fails_a_session_that_broke_the_rules_whatever_it_expects(server):
    client = anthropic.Anthropic(base_url=f"{server.url}/s/bad", api_key="test", max_retries=0)
    with pytest.raises(anthropic.BadRequestError):
        client.messages.create(model="claude-opus-5-5", max_tokens=64, messages=[{"role": "assistant", "content": "hi "}])
    verdict = control(server, "POST", "verify?session=bad", "expect: {}\n")
    assert verdict.status_code == 422
    assert "final assistant content cannot end with trailing whitespace" in verdict.json()["problems"][0]["text"]


def test_a_verify_body_that_is_not_an_expect_is_a_400_naming_the_mistake(server):
    said = control(server, "POST", "verify", "expect: {requets: 2}\n")
    assert said.status_code == 400
    assert "unknown key 'requets'" in said.json()["problems"][0]["text"] and said.json()["problems"][0]["line"] == 1
    assert control(server, "POST", "verify", "[1, 2]").status_code == 400
    assert control(server, "GET", "nothing").status_code == 404


def test_verify_of_a_turn_the_scenario_lacks_or_a_session_that_sent_nothing_says_so(server):
    """Never a pass over nothing: turn 7 of a two-turn scenario is a 400, a session no
    request named a 404, each naming what there is."""
    converse(server.url, "c")
    beyond = control(server, "POST", "verify?session=c", '{"turn": 7, "expect": {"tools": []}}')
    assert beyond.status_code == 400
    assert beyond.json()["problems"][0]["text"] == "turn 7: the scenario 'two-turns' has 2 turn(s), counted from 1"
    unknown = control(server, "POST", "verify?session=never-used", "expect: {}\n")
    assert unknown.status_code == 404
    assert unknown.json()["problems"][0]["text"] == "session 'never-used' has sent no request (sessions: 'c')"


def test_the_report_at_exit_fails_when_no_request_came(server):
    control(server, "GET", "journal")
    report = check_served(server.control.scenario, server)
    assert [str(p) for p in report.problems][-1:] == [
        f"no request reached /v1/messages, so nothing was checked: is the client's base URL {server.url} "
        "(ANTHROPIC_BASE_URL), with any session prefix the client means to use?"]


def test_a_session_given_a_scenario_of_its_own_serves_it_and_reset_forgets(server):
    put = control(server, "PUT", "sessions/own", "name: own\nabout: own\nturns:\n  - user: hi\n    replies:\n      - text: Mine.\n")
    assert put.json() == {"session": "own", "scenario": "own", "turns": 1, "replies": 1}
    client = anthropic.Anthropic(base_url=f"{server.url}/s/own", api_key="test", max_retries=0)
    assert client.messages.create(model="claude-opus-5-5", max_tokens=8, messages=[{"role": "user", "content": "hi"}]
                                  ).content[0].text == "Mine."
    assert control(server, "POST", "reset").json() == {"reset": "every session"}
    assert control(server, "GET", "journal").json()["requests"] == []
    assert client.messages.create(model="claude-opus-5-5", max_tokens=8, messages=[{"role": "user", "content": "hi"}]
                                  ).content[0].text == "Mine."  # afresh, with its own scenario still
    bad = control(server, "PUT", "sessions/bad", "name: bad\nturns: []\n")
    assert bad.status_code == 400 and all(p["text"].startswith("<session bad>:") for p in bad.json()["problems"])


def test_the_report_at_exit_is_not_muddled_by_control_requests(server):
    converse(server.url)
    control(server, "GET", "journal")
    report = check_served(server.control.scenario, server)
    assert report.problems == []


def test_the_report_at_exit_checks_each_session_against_the_scenario_it_serves(server):
    own = "name: own\nabout: own\nturns:\n  - user: hi\n    replies:\n      - text: Mine.\n    expect: {requests: 1, end: end_turn}\n"
    assert control(server, "PUT", "sessions/own", own).status_code == 200
    client = anthropic.Anthropic(base_url=f"{server.url}/s/own", api_key="test", max_retries=0)
    client.messages.create(model="claude-opus-5-5", max_tokens=8, messages=[{"role": "user", "content": "hi"}])
    converse(server.url)
    assert control(server, "POST", "verify", "expect: {requests: 1, end: end_turn}", **{"x-harness-session": "own"}
                   ).status_code == 200
    assert check_served(server.control.scenario, server).problems == []
    control(server, "PUT", "sessions/own", own.replace("requests: 1", "requests: 2"))
    client.messages.create(model="claude-opus-5-5", max_tokens=8, messages=[{"role": "user", "content": "hi"}])
    [problem] = check_served(server.control.scenario, server).problems
    assert "session 'own'" in str(problem) and "expected 2, the agent made 1" in str(problem)


def test_verify_checks_the_policies_the_server_was_told_the_clients_follow(tmp_path: Path) -> None:
    (tmp_path / "two.yaml").write_text(SCENARIO.replace("    expect: {requests: 2}\n",
                                                        "    expect: {policies: {retries: {requests: 3}}}\n"))
    scenario = load_scenario(tmp_path / "two.yaml")
    body = "expect: {policies: {retries: {requests: 3}}}\nturn: 1\n"
    for policies, status in (({}, 200), ({"retries": 2}, 422)):
        with build_server(scenario, host="127.0.0.1", port=0, time_scale=0, log=None, log_path=None,
                          policies=policies) as served:
            converse(served.url)
            verdict = control(served, "POST", "verify", body)
            assert verdict.status_code == status, verdict.json()
            if not policies:
                assert verdict.json()["not_checked"] == [
                    "turn 1: expect.policies.retries (the clients do not declare (--policy) retries)"]
            assert (not check_served(scenario, served, policies).problems) == (status == 200)


def test_verify_takes_a_scenarios_files_and_says_a_socket_cannot_see_them(server):
    converse(server.url)
    body = "expect: {requests: 2, files: {a.txt: x}, policies: {retries: {files: {b.txt: y}}}}\nturn: 1\n"
    verdict = control(server, "POST", "verify", body)
    assert verdict.status_code == 200, verdict.json()
    assert "turn 1: expect.files (the client's own folder)" in verdict.json()["not_checked"]
    assert control(server, "POST", "verify", "expect: {filez: {}}").status_code == 400
