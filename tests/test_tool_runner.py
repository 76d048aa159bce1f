"""The SDK's own tool runner (``client.beta.messages.tool_runner``, examples/tool_runner_agent.py),
written the naive way on purpose, under the harness: in process and on a real socket.

It needs only ``anthropic``, so it runs in CI. It threads its requests by default
(``message-threads-2026-08-12``: a ``create``, then ``continue`` requests with only the
new tool results): the harness must take that for what it is, and still find where the
runner really breaks.
"""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import anthropic
import pytest
from stream_reads import STREAM_CUT_RAISES

from examples.tool_runner_agent import ToolRunnerAgent
from harness.scenario.format.loader import load_scenario
from harness.scenario.run.runner import run_scenario
from harness.scenario.run.timeline import format_timeline
from harness.serve.report import build_server, check_served

SCENARIOS = Path(__file__).resolve().parent.parent / "scenarios"
AGENT = "examples.tool_runner_agent:make_agent"


class RetryingToolRunner(ToolRunnerAgent):
    """The same runner, declaring what a reader of the SDK's docs may believe of it: that
    it retries a failed request (the client's 2 retries)."""

    harness_policies = {"retries": 2, "gives_up_on_final_errors": True}


def run(name: str, agent=AGENT):
    with contextlib.redirect_stdout(io.StringIO()):  # the runner echoes the model's text
        return run_scenario(load_scenario(SCENARIOS / name), agent=agent)


def test_the_tool_runner_threads_its_requests_and_passes() -> None:
    outcome = run("threads/continue_across_tool_calls.yaml")
    assert outcome.passed, format_timeline(outcome)
    threads = [r.body.get("thread") for r in outcome.requests[:3]]
    assert threads[0] == {"type": "create"}
    assert [t["type"] for t in threads[1:]] == ["continue", "continue"]
    continued = outcome.requests[1]
    assert "system" not in continued.body and "tools" not in continued.body and len(continued.body["messages"]) == 1
    assert len(continued.conversation["messages"]) == 3  # the thread (user, assistant) and the new tool result
    assert "message-threads-2026-08-12" in continued.betas


def test_the_tool_runner_falls_back_when_the_api_cannot_thread() -> None:
    outcome = run("threads/unsupported.yaml")
    assert outcome.passed, format_timeline(outcome)
    first, second = outcome.requests[:2]
    assert first.refused == "thread_unsupported_request" and first.plan.status == 400
    assert "thread" not in second.body and "message-threads-2026-08-12" not in second.betas
    assert all("thread" not in r.body for r in outcome.turns[0].requests[1:])  # the rest of the turn, unthreaded


@pytest.mark.parametrize(
    ("name", "wanted"),
    [
        ("stream/cut_after_event.yaml", f"run_turn raised {STREAM_CUT_RAISES}"),
        ("stream/end_before_message_stop.yaml", "turn 1 has 3 replies but the agent made 1 request(s)"),
        ("stream/tool_json_unparseable.yaml", "run_turn raised ValueError: Unable to parse tool parameter JSON"),
        ("stream/error_event_overloaded.yaml", "turn 1 has 2 replies but the agent made 1 request(s)"),
    ],
)
def test_the_harness_finds_where_the_naive_tool_runner_breaks_its_declared_retries(name: str, wanted: str) -> None:
    """Where a runner written as the docs suggest does not keep a promise to retry: a
    mid-stream cut and an error event are not retried, a stream that ends early stops the
    run silently. Without the promise the same runs pass, each with a note: how often to
    retry is an agent's own policy."""
    outcome = run(name, lambda ctx: RetryingToolRunner(ctx.client, ctx.workspace))
    timeline = format_timeline(outcome)
    assert not outcome.passed and wanted in timeline, timeline
    undeclared = run(name)
    assert undeclared.passed, format_timeline(undeclared)
    assert any("its own policy" in note for note in undeclared.notes), undeclared.notes


def test_the_tool_runner_over_a_real_socket_passes_harness_serve_check(tmp_path: Path) -> None:
    scenario = load_scenario(SCENARIOS / "threads" / "continue_across_tool_calls.yaml")
    for name, text in scenario.workspace.items():
        (tmp_path / name).write_text(text)
    server = build_server(scenario, host="127.0.0.1", port=0, time_scale=0, log=None, log_path=None)
    with server, anthropic.Anthropic(base_url=server.url, api_key="test", max_retries=0) as client:
        agent = ToolRunnerAgent(client, tmp_path)
        agent.echo = lambda text: None
        for turn in scenario.turns:
            agent.run_turn(turn.user)
    report = check_served(scenario, server)
    assert report.problems == [] and report.notes == [], report  # its expect (tools, end …) checked from the wire
    assert [r.body.get("thread", {}).get("type") for r in server.responder.requests] == [
        "create", "continue", "continue", "create"
    ]
