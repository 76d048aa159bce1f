"""Every run hands an agent the httpx2 clients of its context (``ctx.http_client``,
``ctx.async_http_client``): a scenario run, the session machine, a replay. An agent that
builds its own SDK client on them is served by the harness, never by the real API."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import anthropic
import httpx2

from harness.agents.context import AgentContext
from harness.cassette.replay import replay_session

ROOT = Path(__file__).resolve().parent.parent


class OwnAsyncClient:
    """Builds its own async SDK client on the context's httpx2 client, as the docs show."""

    def __init__(self, ctx: AgentContext) -> None:
        if not isinstance(ctx.async_http_client, httpx2.AsyncClient) or not isinstance(ctx.http_client, httpx2.Client):
            raise RuntimeError(f"the context has no httpx2 clients: {ctx.http_client!r}, {ctx.async_http_client!r}")
        self.client = anthropic.AsyncAnthropic(api_key=ctx.api_key, http_client=ctx.async_http_client, max_retries=0)
        self.history: list[dict[str, Any]] = []
        self.answers: list[str] = []

    async def run_turn(self, text: str) -> None:
        self.history.append({"role": "user", "content": text})
        async with self.client.messages.stream(model="claude-sonnet-4-5", max_tokens=64, messages=self.history) as stream:
            message = await stream.get_final_message()
        self.history.append({"role": "assistant", "content": [b.model_dump() for b in message.content]})
        self.answers.append(message.content[0].type)


def make_agent(ctx: AgentContext) -> OwnAsyncClient:
    return OwnAsyncClient(ctx)


def test_a_replay_hands_the_agent_its_httpx2_clients(tmp_path: Path) -> None:
    agents: list[OwnAsyncClient] = []
    replayed = replay_session(ROOT / "cassettes" / "loopback_read_readme.yaml", ["What is this project?"],
                              match_on="order", cwd=tmp_path, factory=lambda ctx: agents.append(make_agent(ctx)) or agents[-1])
    assert agents and agents[0].answers, replayed
    asyncio.run(agents[0].client.close())


def test_the_session_machine_hands_the_agent_its_httpx2_clients(tmp_path: Path) -> None:
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--pyargs",
         "harness.library.properties.test_session_machine", "--harness-agent", "tests.test_context_clients:make_agent",
         "--harness-found-dir", str(tmp_path / "found")],
        cwd=ROOT, capture_output=True, text=True, timeout=600,
        env={**os.environ, "HYPOTHESIS_PROFILE": "quick"},
    )
    assert "the context has no httpx2 clients" not in run.stdout + run.stderr, run.stdout[-3000:]
    assert " passed" in run.stdout or " failed" in run.stdout, run.stdout[-3000:] + run.stderr[-3000:]


def test_an_agent_the_properties_cannot_load_is_a_usage_error_not_a_counterexample_each(tmp_path: Path) -> None:
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--pyargs", "harness.library.properties",
         "--harness-agent", "nosuch_module:make_agent", "--harness-found-dir", str(tmp_path / "found")],
        cwd=tmp_path, capture_output=True, text=True, timeout=600,
    )
    said = run.stdout + run.stderr
    assert run.returncode != 0 and "--harness-agent: agent 'nosuch_module:make_agent': no module named 'nosuch_module'" in said
    assert " passed" not in said and not (tmp_path / "found").exists(), said[-2000:]
