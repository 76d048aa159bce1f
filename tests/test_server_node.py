"""The fault server against a client nobody here wrote: the official TypeScript SDK on Node.

The SDK is installed by ``node_sdk`` (npm, from the registry); the tests skip, saying
why, when node or npm is missing or the install fails. The Node SDK retries with real
sleeps: every retry here is kept short.
"""

from __future__ import annotations

import json
import select
import subprocess
from contextlib import ExitStack
from pathlib import Path

import pytest
from node_sdk import node_sdk_home, put_script

from harness.scenario.fake_api.responder import Responder
from harness.serve.server import FaultServer
from harness.wire.faults import Cut
from harness.wire.replies import Reply

ANSWER = Reply(message={"text": "Hello from the fault server."})

DRIVER = """\
// A worker: one job a line on stdin, {"baseURL": …, "maxRetries": N, "mode": "stream" | "create"};
// one JSON line out for each: {"ok": true, "text": …} or {"ok": false, "name", "message", "status"}.
import Anthropic from "@anthropic-ai/sdk";
import { createInterface } from "node:readline";
const params = { model: "claude-opus-5-5", max_tokens: 64, messages: [{ role: "user", content: "Say hello" }] };
for await (const line of createInterface({ input: process.stdin })) {
  const { baseURL, maxRetries, mode } = JSON.parse(line);
  const client = new Anthropic({ baseURL, apiKey: "test", maxRetries, timeout: 10000 });
  try {
    const message = mode === "stream"
      ? await client.messages.stream(params).finalMessage()
      : await client.messages.create(params);
    console.log(JSON.stringify({ ok: true, text: message.content.map((b) => b.text ?? "").join("") }));
  } catch (err) {
    const { name } = err.constructor;
    console.log(JSON.stringify({ ok: false, name, message: String(err.message), status: err.status ?? null }));
  }
}
"""


@pytest.fixture(scope="session")
def node_sdk() -> Path:
    """A folder holding @anthropic-ai/sdk and ``drive.mjs``."""
    home = node_sdk_home()
    put_script(home, "drive.mjs", DRIVER)
    return home


@pytest.fixture(scope="module")
def node_worker(node_sdk):
    """One Node process for the module (loading the SDK takes ~0.3 s): jobs in, results out."""
    process = subprocess.Popen(
        ["node", str(node_sdk / "drive.mjs")], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True, bufsize=1,
    )
    yield process
    process.stdin.close()
    try:
        process.wait(timeout=10)
    finally:
        process.kill()


@pytest.fixture
def node(node_worker):
    """``node(replies, max_retries=…, mode=…)`` → (the driver's JSON result, the server's log entries)."""
    with ExitStack() as stack:

        def run(replies, *, max_retries: int, mode: str = "stream"):
            server = stack.enter_context(FaultServer(Responder(replies), time_scale=0))
            job = {"baseURL": server.url, "maxRetries": max_retries, "mode": mode}
            node_worker.stdin.write(json.dumps(job) + "\n")
            readable, _, _ = select.select([node_worker.stdout], [], [], 30)
            line = node_worker.stdout.readline() if readable else ""
            if not line:
                node_worker.kill()
                pytest.fail(f"the node worker did not answer {job}: {node_worker.stderr.read()}")
            return json.loads(line), server.entries

        yield run


@pytest.mark.parametrize("mode", ["stream", "create"])
def test_node_sdk_retries_overloaded_then_gets_the_answer(node, mode):
    # real-time: the SDK sleeps retry-after-ms (50 ms) before its retry
    overloaded = Reply(error="overloaded", headers={"retry-after-ms": "50"})
    result, entries = node([overloaded, ANSWER], max_retries=2, mode=mode)
    assert result == {"ok": True, "text": "Hello from the fault server."}
    assert [e.status for e in entries] == [529, 200]
    assert entries[1].elapsed - entries[0].elapsed >= 0.04


@pytest.mark.parametrize("how", ["fin", "rst"])
def test_node_sdk_reports_a_mid_stream_cut_as_terminated_without_retry(node, how):
    result, entries = node([Reply(message=ANSWER.message, faults=(Cut(after_event=3, how=how),)), ANSWER], max_retries=2)
    assert (result["ok"], result["name"], result["message"]) == (False, "AnthropicError", "terminated")
    assert len(entries) == 1


def test_node_sdk_does_not_retry_a_401(node):
    result, entries = node([Reply(error="authentication"), ANSWER], max_retries=2)
    assert (result["ok"], result["name"], result["status"]) == (False, "AuthenticationError", 401)
    assert "invalid x-api-key" in result["message"]
    assert len(entries) == 1


@pytest.mark.parametrize("fault", ["refused", "empty", "garbage"])
def test_node_sdk_sees_a_connection_fault_as_api_connection_error(node, fault):
    result, entries = node([Reply(connection=fault)], max_retries=0)
    assert (result["ok"], result["name"], result["message"]) == (False, "APIConnectionError", "Connection error.")
