"""mini_agent as users run it: ``python -m mini_agent`` in a child process, its own SDK
client built from the environment, against ``harness`` on a loopback socket. The SDK's
own retries must be off in that client: with them on, the server would count more
requests than mini_agent's visible retries."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from planted import planted_copy

from harness.scenario.fake_api.responder import Responder
from harness.serve.server import FaultServer
from harness.wire.replies import Reply

ROOT = Path(__file__).resolve().parent.parent
FAST_529 = Reply(error="overloaded", headers={"retry-after-ms": "1"})


def run_cli(url: str, lines: str, tmp_path: Path, **settings: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "ANTHROPIC_BASE_URL": url, "ANTHROPIC_API_KEY": "test", "MINI_AGENT_FALLBACKS": "0", **settings}
    return subprocess.run(
        [sys.executable, "-m", "mini_agent"], input=lines, cwd=tmp_path, env=env, capture_output=True, text=True,
        timeout=60,
    )


def test_the_real_cli_retries_a_529_itself_and_only_itself(tmp_path: Path) -> None:
    responder = Responder([FAST_529, FAST_529, Reply(message={"text": "Hi."})])
    with FaultServer(responder, time_scale=0) as server:
        done = run_cli(server.url, "Hello\n/quit\n", tmp_path, MINI_AGENT_MAX_RETRIES="1")
    assert done.returncode == 0, done.stderr
    assert len(responder.requests) == 2, [r.reply.describe() if r.reply else None for r in responder.requests]
    assert "attempt 1/1" in done.stdout and "gave up after 1 retries" in done.stdout, done.stdout
    assert len(responder.unused) == 1  # the answer: the SDK did not fetch it behind mini_agent's back


def test_the_real_cli_gets_through_with_its_own_retries(tmp_path: Path) -> None:
    responder = Responder([FAST_529, Reply(message={"text": "Hi there."})])
    with FaultServer(responder, time_scale=0) as server:
        done = run_cli(server.url, "Hello\n/quit\n", tmp_path)
    assert done.returncode == 0, done.stderr
    assert len(responder.requests) == 2 and responder.problems == []
    assert "Retrying in" in done.stdout and "Hi there." in done.stdout, done.stdout


def test_a_cli_with_the_sdks_retries_left_on_is_caught(tmp_path: Path) -> None:
    broken = planted_copy(tmp_path / "broken", "model.py", "anthropic.Anthropic(max_retries=0, **options)", "anthropic.Anthropic(**options)")
    responder = Responder([FAST_529, FAST_529, Reply(message={"text": "Hi."})])
    with FaultServer(responder, time_scale=0) as server:
        run_cli(server.url, "Hello\n/quit\n", tmp_path, MINI_AGENT_MAX_RETRIES="1", PYTHONPATH=str(broken))
    assert len(responder.requests) == 3  # the SDK retried behind the loop: the check above fails on it
