"""``harness serve``'s journal and verify API driven from another language: a test file for
node's own test runner (``node --test``) that uses the official TypeScript SDK
(``@anthropic-ai/sdk``, installed by ``node_sdk``) against a served scenario, puts a
scenario of its own into a session, reads the journal and asks ``/__harness/verify`` —
200 when the expectations hold, 422 with the problems when they do not. The Node SDK's
retry waits are real: the one retry here is asked to wait 20 ms."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from node_sdk import node_sdk_home, put_script

from harness.scenario.format.loader import load_scenario
from harness.serve.report import build_server

SCENARIO = """\
name: node-greets
about: A 529, then the answer, served to the Node SDK.
limits: {requests_per_minute: 50}
turns:
  - user: Say hello
    replies:
      - error: overloaded
        headers: {retry-after-ms: "20"}
      - text: Hello from the fault server.
"""

NODE_TESTS = r"""
import { test } from "node:test";
import assert from "node:assert/strict";
import Anthropic from "@anthropic-ai/sdk";

const base = process.env.HARNESS_URL;
const params = { model: "claude-opus-5-5", max_tokens: 64, messages: [{ role: "user", content: "Say hello" }] };
const control = (path, init = {}) => fetch(`${base}/__harness/${path}`, init);

test("a session by header: the SDK retries the 529, the journal and verify say so", async () => {
  const headers = { "x-harness-session": "by-header" };
  const client = new Anthropic({ baseURL: base, apiKey: "test", maxRetries: 2, defaultHeaders: headers });
  const { data, response } = await client.messages.create(params).withResponse();
  assert.equal(data.content[0].text, "Hello from the fault server.");
  assert.equal(response.headers.get("anthropic-ratelimit-requests-limit"), "50");
  assert.match(response.headers.get("anthropic-ratelimit-requests-reset"), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);

  const journal = await (await control("journal", { headers })).json();
  assert.deepEqual(journal.requests.map((r) => [r.status, r.retry_count, r.served, r.verdict]),
                   [[529, 0, "whole", "ok"], [200, 1, "whole", "ok"]]);

  const held = await control("verify", { method: "POST", headers, body: "expect:\n  requests: 2\n  end: end_turn\n" });
  assert.equal(held.status, 200);
  assert.equal((await held.json()).passed, true);

  const broken = await control("verify", { method: "POST", headers, body: JSON.stringify({ expect: { requests: 1 } }) });
  assert.equal(broken.status, 422);
  const { problems } = await broken.json();
  assert.match(problems[0].text, /expect\.requests: expected 1, the agent made 2/);
});

test("a session by URL, given a scenario of its own, then reset", async () => {
  const scenario = "name: own\nabout: its own\nturns:\n  - user: hi\n    replies:\n      - text: Its own answer.\n";
  const put = await control("sessions/by-url", { method: "PUT", body: scenario });
  assert.equal(put.status, 200);
  const client = new Anthropic({ baseURL: `${base}/s/by-url`, apiKey: "test", maxRetries: 0 });
  const message = await client.messages.stream(params).finalMessage();
  assert.equal(message.content[0].text, "Its own answer.");
  const verdict = await fetch(`${base}/s/by-url/__harness/verify`, { method: "POST", body: "expect: {requests: 1, tools: []}" });
  assert.equal(verdict.status, 200);

  assert.equal((await control("reset?session=by-url", { method: "POST" })).status, 200);
  const journal = await (await control("journal?session=by-url")).json();
  assert.deepEqual(journal.requests, []);
});

test("a scenario that does not load is refused with its problems", async () => {
  const put = await control("sessions/broken", { method: "PUT", body: "name: x\nturns: []\n" });
  assert.equal(put.status, 400);
  const { problems } = await put.json();
  assert.ok(problems.some((p) => p.text.includes("<session broken>")), JSON.stringify(problems));
});
"""


@pytest.fixture
def served(tmp_path: Path):
    (tmp_path / "node.yaml").write_text(SCENARIO, encoding="utf-8")
    server = build_server(load_scenario(tmp_path / "node.yaml"), host="127.0.0.1", port=0, time_scale=1.0, log=None,
                          log_path=None)
    with server:
        yield server


def test_node_tests_drive_the_journal_and_verify_api(served):
    home = node_sdk_home()
    script = put_script(home, "control.test.mjs", NODE_TESTS)
    done = subprocess.run(["node", "--test", "--test-reporter=tap", str(script)], cwd=home, capture_output=True, text=True,
                          timeout=120, env={**os.environ, "HARNESS_URL": served.url})
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "# pass 3" in done.stdout and "# fail 0" in done.stdout
