"""Recording and replaying an agent that builds its own HTTP client on ``ctx.base_url``
(no SDK, no httpx2): its requests go through a proxy on loopback, into the cassette and
back out of it, as the SDK's do."""

from __future__ import annotations

import http.client
import json
import urllib.parse
from pathlib import Path

import pytest

from harness.agents.context import AgentContext
from harness.cassette.diff import ReplayMismatch
from harness.cassette.network import NetworkBlocked, block_network
from harness.cassette.record import record_session
from harness.cassette.replay import replay_session
from harness.scenario.fake_api.responder import Responder
from harness.serve.server import FaultServer
from harness.wire.cassette_file import load_cassette
from harness.wire.clock import VirtualClock
from harness.wire.replies import Reply

TOOLS = [{"name": "Read", "description": "Read a file.",
          "input_schema": {"type": "object", "properties": {"file_path": {"type": "string"}}, "required": ["file_path"]}}]


class PlainHttpAgent:
    """A tool loop on http.client, answers not streamed."""

    def __init__(self, ctx: AgentContext, model: str = "claude-sonnet-4-5") -> None:
        parts = urllib.parse.urlsplit(ctx.base_url)
        self.host, self.port, self.key, self.model = parts.hostname, parts.port, ctx.api_key, model
        self.workspace, self.history, self.answers = ctx.workspace, [], []

    def run_turn(self, text: str) -> None:
        self.history.append({"role": "user", "content": text})
        while True:
            message = self._send()
            self.history.append({"role": "assistant", "content": message["content"]})
            calls = [block for block in message["content"] if block["type"] == "tool_use"]
            if not calls:
                self.answers.append("".join(b["text"] for b in message["content"] if b["type"] == "text"))
                return
            self.history.append({"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": call["id"],
                 "content": (self.workspace / call["input"]["file_path"]).read_text()} for call in calls]})

    def _send(self) -> dict:
        body = json.dumps({"model": self.model, "max_tokens": 512, "tools": TOOLS, "messages": self.history})
        connection = http.client.HTTPConnection(self.host, self.port, timeout=30)
        try:
            connection.request("POST", "/v1/messages", body, {
                "content-type": "application/json", "x-api-key": self.key, "anthropic-version": "2023-06-01"})
            response = connection.getresponse()
            answer = json.loads(response.read())
        finally:
            connection.close()
        if response.status != 200:
            raise RuntimeError(f"{response.status}: {answer['error']['message']}")
        return answer


REPLIES = [Reply(message={"tool_use": [{"name": "Read", "input": {"file_path": "README.md"}}]}),
           Reply(message={"text": "A demo project."})]


def _record(tmp_path: Path) -> tuple[Path, Path, list[PlainHttpAgent]]:
    workspace = tmp_path / "work"
    workspace.mkdir()
    (workspace / "README.md").write_text("# Demo\n")
    cassette = tmp_path / "plain.yaml"
    agents: list[PlainHttpAgent] = []

    def make(ctx: AgentContext) -> PlainHttpAgent:
        agents.append(PlainHttpAgent(ctx))
        return agents[-1]

    clock = VirtualClock()
    with FaultServer(Responder(list(REPLIES), clock=clock), time_scale=0) as server:
        recorded = record_session(cassette, ["What is this?"], base_url=server.url, api_key="test", cwd=workspace,
                                  factory=make, clock=clock)
    assert recorded.written and recorded.interactions == 2
    return cassette, workspace, agents


@pytest.mark.parametrize("engine", ["harness", "vcr"])
def test_an_agent_on_its_own_http_client_is_recorded_and_replayed(tmp_path: Path, engine: str) -> None:
    cassette, workspace, recording = _record(tmp_path)
    assert recording[0].answers == ["A demo project."]
    [first, second] = load_cassette(cassette)
    assert json.loads(second["request"]["body"])["messages"][2]["content"][0]["content"] == "# Demo\n"
    assert "test" not in json.dumps(first["request"]["headers"])  # the key stays out

    replaying: list[PlainHttpAgent] = []
    replayed = replay_session(cassette, cwd=workspace, engine=engine,
                              factory=lambda ctx: replaying.append(PlainHttpAgent(ctx)) or replaying[-1])
    assert replayed.requests == 2 and replayed.unused == [] and replayed.lines == ["What is this?"]
    assert replaying[0].answers == ["A demo project."]


def test_a_request_the_cassette_lacks_fails_the_replay_of_such_an_agent_too(tmp_path: Path) -> None:
    cassette, workspace, _ = _record(tmp_path)
    with pytest.raises(ReplayMismatch, match="claude-haiku"):
        replay_session(cassette, cwd=workspace, factory=lambda ctx: PlainHttpAgent(ctx, model="claude-haiku-4-5"))


def test_only_the_replays_own_loopback_server_gets_through_the_blocked_network() -> None:
    with FaultServer(Responder([]), time_scale=0) as server, block_network({("127.0.0.1", server.port)}) as attempts:
        http.client.HTTPConnection("127.0.0.1", server.port, timeout=5).connect()
        with pytest.raises(NetworkBlocked):
            http.client.HTTPConnection("127.0.0.1", server.port + 1 if server.port < 65535 else 1, timeout=5).connect()
    assert len(attempts) == 1


class LeavesRetriesToTheSDK:
    """Sends with the context's client as it comes: the SDK's default retries."""

    def __init__(self, ctx: AgentContext) -> None:
        self.client, self.clock, self.answers, self.waited = ctx.client, ctx.clock, [], 0.0

    def run_turn(self, text: str) -> None:
        began = self.clock.now()
        message = self.client.messages.create(model="claude-sonnet-4-5", max_tokens=64,
                                              messages=[{"role": "user", "content": text}])
        self.answers.append(message.content[0].text)
        self.waited += self.clock.now() - began


@pytest.mark.parametrize("engine", ["harness", "vcr"])
def test_the_sdks_own_retries_are_recorded_and_replayed_on_the_virtual_clock(tmp_path: Path, engine: str) -> None:
    cassette, clock = tmp_path / "retried.yaml", VirtualClock()
    replies = [Reply(error="overloaded", headers={"retry-after": "30"}), Reply(message={"text": "Hi."})]
    agents: list[LeavesRetriesToTheSDK] = []

    def make(ctx: AgentContext) -> LeavesRetriesToTheSDK:
        agents.append(LeavesRetriesToTheSDK(ctx))
        return agents[-1]

    with FaultServer(Responder(replies, clock=clock), time_scale=0) as server:
        recorded = record_session(cassette, ["Hello"], base_url=server.url, api_key="test", cwd=tmp_path, factory=make,
                                  clock=clock)
    assert recorded.interactions == 2 and agents[0].answers == ["Hi."] and agents[0].waited >= 30  # a test's clock: virtual
    replayed = replay_session(cassette, cwd=tmp_path, engine=engine, factory=make)
    assert replayed.requests == 2 and replayed.unused == []
    assert agents[1].answers == ["Hi."] and agents[1].waited >= 30  # the retry-after, on the replay's virtual clock
