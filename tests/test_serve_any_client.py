"""``harness serve`` judges a client that is not mini_agent as any agent is judged in
process: a turn is known by its user line, whatever replies an earlier turn left unused;
a follow-up after a 401 is the next turn, not a second try; ``--check`` checks each
turn's ``expect`` as the wire shows it and says what it cannot see; a scenario of mini_agent's own is not held against another client; a
silence as long as a client reads is not applicable at time scale 0; ``verify`` says
"not applicable" where the clients cannot meet the scenario; ``--tool-map`` serves the
clients' own tool names."""

from __future__ import annotations

import json
from pathlib import Path

import httpx2
import pytest

from harness.cli import main
from harness.scenario.format.loader import load_scenario
from harness.scenario.format.tool_map_file import load_tool_map
from harness.serve.report import build_server, check_served


def serve(tmp_path: Path, text: str, time_scale: float = 0):
    path = tmp_path / "served.yaml"
    path.write_text(text, encoding="utf-8")
    scenario = load_scenario(path)
    return scenario, build_server(scenario, host="127.0.0.1", port=0, time_scale=time_scale, log=None, log_path=None)


def body(*lines: str, stream: bool = False) -> str:
    """A conversation of user lines, each answered "ok" but the last."""
    messages: list = []
    for line in lines:
        messages += [{"role": "user", "content": line}, {"role": "assistant", "content": "ok"}]
    return json.dumps({"model": "claude-opus-5-5", "max_tokens": 64, "messages": messages[:-1], "stream": stream})


def post(http: httpx2.Client, content: str, path: str = "/v1/messages") -> httpx2.Response:
    return http.post(path, content=content, headers={"content-type": "application/json"})


TWO_TURNS = """\
name: two-turns
about: A broken stream the client does not retry, then a second turn that expects one request.
turns:
  - user: Hello
    replies:
      - text: Hello there.
        end_early: 2
      - text: Hello there.
    expect:
      policies:
        retries: {requests: 2}
  - user: Bye
    replies:
      - text: Bye.
    expect: {requests: 1, end: end_turn, sleeps: [1.0]}
"""


def test_a_turn_is_known_by_its_user_line_whatever_an_earlier_turn_left_unused(tmp_path: Path) -> None:
    scenario, server = serve(tmp_path, TWO_TURNS)
    with server, httpx2.Client(base_url=server.url) as http:
        post(http, body("Hello", stream=True))  # ends early; this client gives up on it
        post(http, body("Hello", "Bye"))  # served the spare reply of turn 1: the queue is one
    report = check_served(scenario, server)
    assert report.problems == [], report.problems
    assert any("turn 1: expect.policies.retries (the clients do not declare" in note for note in report.notes), report.notes
    assert any("turn 2: expect.sleeps (a client's own waits" in note for note in report.notes), report.notes


def test_a_follow_up_after_a_401_is_the_next_turn_not_a_second_try(tmp_path: Path) -> None:
    scenario, server = serve(tmp_path, """\
name: two-401s
about: Each turn fails on a bad key.
turns:
  - user: Hello
    replies: [{error: authentication}]
  - user: Again
    replies: [{error: authentication}]
""")
    with server, httpx2.Client(base_url=server.url) as http:
        assert post(http, body("Hello")).status_code == 401
        assert post(http, json.dumps({"model": "claude-opus-5-5", "max_tokens": 64, "messages": [
            {"role": "user", "content": "Hello"}, {"role": "assistant", "content": "(failed)"},
            {"role": "user", "content": "Again"}]})).status_code == 401
    report = check_served(scenario, server)
    assert not any("tries again" in note for note in report.notes), report.notes
    assert report.problems == []


def test_a_scenario_of_mini_agents_own_is_not_held_against_another_client(tmp_path: Path) -> None:
    scenario, server = serve(tmp_path, """\
name: mini-agents-budget
about: mini_agent's own retry budget.
agent: mini_agent
turns:
  - user: Hello
    replies: [{error: overloaded}, {error: overloaded}, {text: Hi.}]
    expect: {requests: 2}
""")
    with server, httpx2.Client(base_url=server.url) as http:
        for _ in range(3):
            post(http, body("Hello"))
    report = check_served(scenario, server)
    assert report.problems == []
    assert any("the scenario is mini_agent's own" in note for note in report.notes), report.notes


@pytest.mark.parametrize("time_scale", [0, 1e-9])
def test_a_silence_as_long_as_a_client_reads_is_not_applicable_at_a_time_scale_below_1(tmp_path: Path, time_scale: float) -> None:
    """Scaled down, the silence is shorter than the client's real timeouts: whether it gives
    up is not shown (any scale that keeps 600 s at least 600 s real would be)."""
    scenario, server = serve(tmp_path, """\
name: stall
about: A stall of the client's whole read timeout.
turns:
  - user: Hello
    replies:
      - {text: Hello there., stall: {after_event: 2, seconds: 600}}
      - text: Hello there.
""", time_scale)
    with server, httpx2.Client(base_url=server.url) as http:
        try:
            post(http, body("Hello", stream=True)).read()
        except httpx2.HTTPError:
            pass
    said = server.responder.not_applicable or ""
    assert "as long as it reads" in said and ("at once" in said if time_scale == 0 else "1e-09 times as long" in said), said


def test_verify_says_not_applicable_where_the_clients_cannot_meet_the_scenario(tmp_path: Path) -> None:
    scenario, server = serve(tmp_path, """\
name: writes
about: A Write the client does not have.
turns:
  - user: Write it
    replies:
      - tool_use: {name: Write, input: {file_path: notes.txt, content: x}}
      - text: Done.
    expect: {tool_results: [{error: false}]}
""")
    tools = [{"name": "Read", "description": "Read a file.", "input_schema": {"type": "object", "properties": {"file_path": {
        "type": "string"}}}}]
    with server, httpx2.Client(base_url=server.url) as http:
        request = json.loads(body("Write it"))
        post(http, json.dumps({**request, "tools": tools}))
        verdict = post(http, json.dumps({"expect": {"tool_results": [{"error": False}]}}), "/__harness/verify")
    assert verdict.status_code == 200, verdict.text
    assert "no tool that writes a file" in verdict.json()["not_applicable"]
    assert verdict.json()["problems"] == [] and verdict.json()["passed"] is None


def test_a_tool_map_serves_the_clients_own_tool_names_and_reads_their_answers_back(tmp_path: Path) -> None:
    path = tmp_path / "reads.yaml"
    path.write_text("""\
name: reads
about: One Read, then the answer.
turns:
  - user: Read it
    replies:
      - tool_use: {name: Read, input: {file_path: notes.txt}}
      - text: Done.
    expect: {requests: 2, tools: [Read], tool_results: [{error: false, contains: hello}], end: end_turn}
""", encoding="utf-8")
    (tmp_path / "map.yaml").write_text("Read: {name: open_file, input: {file_path: path, limit: null}}\n", encoding="utf-8")
    tools = [{"name": "open_file", "description": "Open a file.", "input_schema": {"type": "object", "properties": {
        "path": {"type": "string"}}}}]
    scenario = load_scenario(path)
    server = build_server(scenario, host="127.0.0.1", port=0, time_scale=0, log=None, log_path=None,
                          tool_map=load_tool_map(tmp_path / "map.yaml"))
    with server, httpx2.Client(base_url=server.url) as http:
        first = {"model": "claude-opus-5-5", "max_tokens": 64, "tools": tools, "messages": [{"role": "user", "content": "Read it"}]}
        call = post(http, json.dumps(first)).json()["content"][0]
        assert (call["name"], call["input"]) == ("open_file", {"path": "notes.txt"})
        answer = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": call["id"], "content": "hello"}]}
        post(http, json.dumps(first | {"messages": [*first["messages"], {"role": "assistant", "content": [call]}, answer]}))
    report = check_served(scenario, server)
    assert report.problems == [] and server.responder.not_applicable is None, report


def test_a_tool_map_file_with_mistakes_is_named_at_its_line(tmp_path: Path, capsys) -> None:
    (tmp_path / "map.yaml").write_text("Read: {name: open_file, input: {file_pth: path}}\n", encoding="utf-8")
    assert main(["serve", "scenarios/http/overloaded_then_success.yaml", "--port", "0", "--tool-map",
                 str(tmp_path / "map.yaml")]) == 2
    err = capsys.readouterr().err
    assert "map.yaml:1:" in err and "unknown key 'file_pth'" in err and "valid keys: file_path, offset, limit" in err
    assert "Traceback" not in err
