"""`harness serve` as a user runs it: a subprocess on a loopback port, stopped with Ctrl+C."""

from __future__ import annotations

import re
import signal
import socket
import subprocess
import sys
from pathlib import Path

import anthropic
import pytest

from harness.cli import main

ROOT = Path(__file__).resolve().parents[1]
SCENARIO = ROOT / "scenarios" / "http" / "overloaded_then_success.yaml"


def start_serving(*args: str) -> tuple[subprocess.Popen[str], str]:
    process = subprocess.Popen(
        [sys.executable, "-m", "harness", "serve", *args, "--port", "0", "--time-scale", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        cwd=ROOT,
    )
    first = process.stdout.readline()
    match = re.search(r"http://127\.0\.0\.1:\d+", first)
    assert match, first + process.stdout.read()
    return process, match.group(0)


READ = {"name": "Read", "input_schema": {"type": "object", "properties": {"file_path": {"type": "string"}}}}


def ask(url: str, text: str) -> anthropic.types.Message:
    """A client with a Read tool: the scenario's answer calls Read (a client without one
    would make the scenario not applicable to it)."""
    client = anthropic.Anthropic(base_url=url, api_key="test", max_retries=0)
    return client.messages.create(model="m", max_tokens=10, tools=[READ], messages=[{"role": "user", "content": text}])


def serve_three_requests(*options: str) -> tuple[int | None, str]:
    """The scenario's two 529s and its tool call, asked for by a client that stops there."""
    process, url = start_serving(str(SCENARIO), "--check", *options)
    try:
        for _ in range(2):
            with pytest.raises(anthropic.OverloadedError):
                ask(url, "Summarize the README")
        assert ask(url, "Summarize the README").stop_reason == "tool_use"
    finally:
        process.send_signal(signal.SIGINT)
        output = process.communicate(timeout=10)[0]
    return process.returncode, output


def test_serve_answers_clients_logs_each_request_and_checks_on_ctrl_c(tmp_path):
    log = tmp_path / "log.jsonl"
    returncode, output = serve_three_requests("--log", str(log), "--policy", "retries=2")
    assert returncode == 1  # the fourth reply was never asked for, by clients that say they retry
    assert "#1 POST /v1/messages → 529 error overloaded · oracle ok" in output
    assert "1 reply(ies) of scenario overloaded-then-success were never requested" in output
    assert "turn 1: expect.policies.retries.requests: expected 4, the agent made 3" in output
    assert "turn 1: expect.policies.retries.tools: expected ['Read'], the agent answered []" in output  # the rest of the block too
    assert len(log.read_text().splitlines()) == 3


def test_a_count_under_a_policy_the_clients_do_not_follow_is_not_held_against_them():
    _, output = serve_three_requests()
    assert "expected 4, the agent made 3" not in output  # (the retry before retry-after is a problem for any client)
    assert "turn 1: expect.policies.retries (the clients do not declare (--policy) retries)" in output


def test_an_unknown_policy_is_a_clear_error(capsys):
    assert main(["serve", str(SCENARIO), "--port", "0", "--policy", "retrys=2"]) == 2
    err = capsys.readouterr().err
    assert "--policy: no policy named 'retrys'" in err and "retries" in err and "Traceback" not in err


def test_a_port_in_use_is_a_clear_error(capsys):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(["serve", str(SCENARIO), "--port", str(port)]) == 2
    assert f"harness: port {port} on 127.0.0.1 is in use" in capsys.readouterr().err


def test_a_broken_scenario_is_reported_before_listening(tmp_path, capsys):
    broken = tmp_path / "broken.yaml"
    broken.write_text("name: x\nabout: y\nturns:\n  - user: hi\n    replies: [{eror: overloaded}]\n")
    assert main(["serve", str(broken), "--port", "0"]) == 2
    captured = capsys.readouterr()
    assert "broken.yaml:5:16: unknown key 'eror'" in captured.err and "serving" not in captured.out


def test_the_mini_agent_repl_survives_a_401_over_a_real_socket_and_ends_at_end_of_input(tmp_path):
    from harness.scenario.fake_api.responder import Responder
    from harness.serve.server import FaultServer
    from harness.wire.replies import Reply

    replies = [Reply(error="authentication"), Reply(message={"text": "Hello again."})]
    with FaultServer(Responder(replies), time_scale=0) as server:
        done = subprocess.run(
            [sys.executable, "-m", "mini_agent", "--cwd", str(tmp_path)],
            input="hello\nhello again\n/status\n",
            capture_output=True,
            text=True,
            timeout=60,
            env={"PATH": "/usr/bin:/bin", "ANTHROPIC_BASE_URL": server.url, "ANTHROPIC_API_KEY": "test"},
        )
    assert done.returncode == 0, done.stderr
    assert "✗ API Error: 401 authentication: invalid x-api-key (not retryable)" in done.stdout
    assert "⏺ Hello again." in done.stdout and "requests           2" in done.stdout
    assert [e.status for e in server.entries] == [401, 200]
