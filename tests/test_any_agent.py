"""Any agent as the target: the library against an agent that shares no code with
mini_agent (sync and async), the SDK's own retries on the virtual clock, agents that
build their own client on the loopback ``base_url``, the tool map, naming an agent, and
recording and replaying an agent of one's own."""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import anthropic
import anthropic._base_client
import httpx2
import pytest

from examples.careful_agent import make_agent, make_async_agent
from harness.agents.context import AgentContext
from harness.agents.loading import AgentSpecError, load_factory
from harness.cassette.record import record_session
from harness.cassette.replay import replay_session
from harness.scenario.fake_api.clients import sdk_waits_on_scenario_clocks
from harness.scenario.fake_api.responder import Responder
from harness.scenario.fake_api.tool_map import ToolMap
from harness.scenario.format.library import scenario_files
from harness.scenario.format.loader import load_scenario
from harness.scenario.format.problem import Kind
from harness.scenario.run.runner import run_scenario
from harness.scenario.run.timeline import format_timeline
from harness.serve.server import FaultServer
from harness.wire.clock import VirtualClock
from harness.wire.planner import stream_events
from harness.wire.replies import Reply

ROOT = Path(__file__).resolve().parent.parent
LIBRARY = scenario_files([ROOT / "scenarios"])
CAREFUL = {"sync": make_agent, "async": make_async_agent}


@pytest.mark.parametrize("mode", sorted(CAREFUL))
@pytest.mark.parametrize("path", LIBRARY, ids=lambda p: str(p.relative_to(ROOT / "scenarios")))
def test_the_careful_agent_passes_the_library_with_no_false_failure(path: Path, mode: str) -> None:
    outcome = run_scenario(load_scenario(path), agent=CAREFUL[mode])
    assert outcome.passed, format_timeline(outcome)
    if outcome.skipped:
        assert load_scenario(path).agent == "mini_agent"


def test_the_summary_says_what_was_not_checked_for_another_agent() -> None:
    run = subprocess.run(
        [sys.executable, "-m", "harness", "run", "scenarios/http", "--agent", "examples.careful_agent:make_agent"],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    summary = run.stdout.strip().splitlines()[-1]
    assert "0 failed" in summary and "skipped" in summary and "not checked" in summary, summary


def test_the_tool_runner_agent_runs_the_whole_library_without_the_harness_failing() -> None:
    factory = load_factory("examples.tool_runner_agent:make_agent")
    failed = set()
    for path in LIBRARY:
        outcome = run_scenario(load_scenario(path), agent=factory)
        if not outcome.passed and not outcome.skipped and not outcome.not_applicable:
            failed.add(path.stem)
        harness_trouble = [p for p in outcome.problems if p.kind is Kind.HARNESS]
        assert not harness_trouble, format_timeline(outcome)
    docs = (ROOT / "docs" / "your-agent.md").read_text(encoding="utf-8")
    table = docs[docs.index("| what the agent does | scenario that shows it |"):docs.index("Shown as notes")]
    shown = {name.rsplit("/", 1)[-1] for row in table.splitlines()[2:] if row.count("|") > 2
             for name in re.findall(r"`([\w/]+)`", row.split("|")[2])}
    assert failed == shown  # its real failures, as the docs list them


class RetriesBySDK:
    """Leaves the client's retries as the SDK has them, and does nothing else."""

    def __init__(self, ctx: AgentContext) -> None:
        self.client = ctx.client
        self.answers: list[str] = []

    def run_turn(self, text: str) -> None:
        reply = self.client.messages.create(
            model="claude-opus-5-5", max_tokens=100, messages=[{"role": "user", "content": text}]
        )
        self.answers.append(reply.content[0].text)


SDK_RETRIES = """\
name: sdk-retries
about: Two 529s then the answer; the SDK's own two retries carry it.
turns:
  - user: Hello
    replies:
      - error: overloaded
        headers: {retry-after: "3"}
      - error: overloaded
        headers: {retry-after-ms: "1500"}
      - text: Hi.
    expect: {requests: 3, end: end_turn, sleeps: [3.0, 1.5]}
probe: false
"""


def test_the_sdks_own_retries_wait_on_the_virtual_clock(tmp_path: Path) -> None:
    (tmp_path / "s.yaml").write_text(SDK_RETRIES)
    outcome = run_scenario(load_scenario(tmp_path / "s.yaml"), agent=RetriesBySDK)
    assert outcome.passed, format_timeline(outcome)
    assert [round(s, 3) for _, _, s in outcome.sleeps] == [3.0, 1.5]  # the 4.5 s of waits: the virtual clock's
    assert "⏸ sleep 3.000s" in format_timeline(outcome)


class RetriesByItsOwnSDKClient(RetriesBySDK):
    """Builds its own SDK client, as in production, on the run's HTTP client: the SDK's
    default retries."""

    def __init__(self, ctx: AgentContext) -> None:
        super().__init__(ctx)
        self.client = anthropic.Anthropic(api_key=ctx.api_key, http_client=ctx.http_client)


class AsyncRetriesByItsOwnSDKClient:
    """The async twin: its own ``AsyncAnthropic`` on the run's async HTTP client."""

    def __init__(self, ctx: AgentContext) -> None:
        self.client = anthropic.AsyncAnthropic(api_key=ctx.api_key, http_client=ctx.async_http_client)

    async def run_turn(self, text: str) -> None:
        await self.client.messages.create(model="claude-opus-5-5", max_tokens=100, messages=[{"role": "user", "content": text}])


@pytest.mark.parametrize("agent", [RetriesByItsOwnSDKClient, AsyncRetriesByItsOwnSDKClient])
def test_an_agents_own_sdk_client_on_the_runs_http_client_waits_on_the_virtual_clock(tmp_path: Path, agent: type) -> None:
    (tmp_path / "s.yaml").write_text(SDK_RETRIES)
    outcome = run_scenario(load_scenario(tmp_path / "s.yaml"), agent=agent)
    assert outcome.passed, format_timeline(outcome)
    assert [round(s, 3) for _, _, s in outcome.sleeps] == [3.0, 1.5]  # the waits: the virtual clock's, not real ones


class RetriesTooSoon(RetriesBySDK):
    """Its own client, on the loopback socket, retrying at once."""

    def __init__(self, ctx: AgentContext) -> None:
        super().__init__(ctx)
        self.client = anthropic.Anthropic(base_url=ctx.base_url, api_key=ctx.api_key, max_retries=0)

    def run_turn(self, text: str) -> None:
        for _ in range(3):
            try:
                return super().run_turn(text)
            except anthropic.APIStatusError:
                continue


def test_an_agent_with_its_own_client_on_the_loopback_url_is_judged_by_real_arrival_times(tmp_path: Path) -> None:
    (tmp_path / "s.yaml").write_text(SDK_RETRIES.replace(", sleeps: [3.0, 1.5]", ""))
    outcome = run_scenario(load_scenario(tmp_path / "s.yaml"), agent=RetriesTooSoon)
    assert len(outcome.requests) == 3
    assert any("which asked for retry-after 3s" in p.text for p in outcome.problems), format_timeline(outcome)


def test_the_tool_map_renames_calls_on_the_way_out_and_keeps_misnamed_arguments_misnamed() -> None:
    tools = ToolMap({"Read": {"name": "read_file", "input": {"file_path": "path"}}})
    reply = tools.reply_for_agent(Reply(message={"tool_use": [
        {"name": "Read", "input": {"file_path": "a.txt"}},
        {"name": "Read", "input": {"path": "a.txt"}},  # the standard tool has no `path`
        {"name": "Bash", "input": {"command": "ls"}},
    ]}))
    served = [{"name": c["name"], "input": json.loads("".join(c.get("json", [])) or "{}") if "json" in c else c["input"]}
              for c in reply.message["tool_use"]]
    assert served == [
        {"name": "read_file", "input": {"path": "a.txt"}},
        {"name": "read_file", "input": {"path_": "a.txt"}},
        {"name": "Bash", "input": {"command": "ls"}},
    ]
    standard = stream_events(Reply(message={"tool_use": {"name": "Read", "input": {"file_path": "a.txt"}}}), message_id="m", model="x")
    renamed = stream_events(tools.reply_for_agent(Reply(message={"tool_use": {"name": "Read", "input": {"file_path": "a.txt"}}})),
                            message_id="m", model="x")
    assert len(renamed) == len(standard)  # event numbers mean the same for every agent
    assert tools.standard_name("read_file") == "Read" and tools.standard_name("other") == "other"


def test_a_recorded_stream_gets_the_agents_names_too() -> None:
    tools = ToolMap({"Read": {"name": "read_file", "input": {"file_path": "path"}}})
    events = [
        {"type": "content_block_start", "index": 0, "content_block": {"type": "tool_use", "id": "t", "name": "Read", "input": {}}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": '{"file_'}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": 'path": "a"}'}},
    ]
    served = tools.reply_for_agent(Reply(events=events)).events
    assert served[0]["content_block"]["name"] == "read_file"
    assert "".join(e["delta"]["partial_json"] for e in served[1:]) == '{"path": "a"}'
    assert events[0]["content_block"]["name"] == "Read"  # the scenario's own reply is untouched


@pytest.mark.parametrize(
    ("spec", "says"),
    [
        ("examples.careful_agent", "expected MODULE:FACTORY"),
        ("..:make_agent", "expected MODULE:FACTORY"),
        ("no_such_module_here:make", "no module named 'no_such_module_here'"),
        ("examples.careful_agent:nope", "has no 'nope'; callables there: "),
        ("examples/careful_agent/missing.py:make", "no such file"),
    ],
)
def test_a_bad_agent_name_says_what_is_wrong(spec: str, says: str) -> None:
    with pytest.raises(AgentSpecError, match=says):
        load_factory(spec)
    run = subprocess.run(
        [sys.executable, "-m", "harness", "run", "scenarios/http/retryable_5xx.yaml", "--agent", spec],
        cwd=ROOT, capture_output=True, text=True, timeout=60,
    )
    assert run.returncode == 2 and "Traceback" not in run.stderr and says.split(";")[0] in run.stderr


@pytest.mark.parametrize(
    ("source", "says"),
    [
        ("def make(ctx):\n    if ctx:\nreturn 1\n", r"IndentationError: expected an indented block .*broken_agent.py, line 3\)"),
        ("import json\nSETTINGS = json.loads('{')\n", r"JSONDecodeError: .*broken_agent.py, line 2\)"),
    ],
)
def test_an_agent_module_that_cannot_be_imported_is_named_with_its_line(tmp_path: Path, source: str, says: str) -> None:
    (tmp_path / "broken_agent.py").write_text(source, encoding="utf-8")
    for spec in ("broken_agent:make", str(tmp_path / "broken_agent.py") + ":make"):
        run = subprocess.run(
            [sys.executable, "-m", "harness", "run", str(ROOT / "scenarios/http/retryable_5xx.yaml"), "--agent", spec],
            cwd=tmp_path, capture_output=True, text=True, timeout=60,
        )
        assert run.returncode == 2 and "Traceback" not in run.stderr and "internal error" not in run.stderr, run.stderr
        assert re.search(f"importing it failed: {says}", run.stderr), run.stderr


def test_a_factory_of_the_old_three_argument_form_is_told_how_to_write_the_new_one() -> None:
    def make_old_agent(client: anthropic.Anthropic, clock: VirtualClock, workspace: Path) -> object:
        raise AssertionError("never called")

    scenario = load_scenario(ROOT / "scenarios" / "http" / "retryable_5xx.yaml")
    with pytest.raises(AgentSpecError, match=r"a factory takes one AgentContext .* def make_agent\(ctx\): return "
                       r"MyAgent\(ctx.client, ctx.clock, ctx.workspace\) \(the form factory\(client, clock, workspace\) is gone\)"):
        run_scenario(scenario, agent=make_old_agent)


def test_a_factory_may_be_async_and_is_awaited_on_the_loop_the_turns_run_on() -> None:
    loops: list[asyncio.AbstractEventLoop] = []

    class OnItsLoop:
        def __init__(self, ctx: AgentContext) -> None:
            self.agent, self.tool_map = make_async_agent(ctx), make_async_agent(ctx).tool_map

        async def run_turn(self, text: str) -> object:
            loops.append(asyncio.get_running_loop())
            return await self.agent.run_turn(text)

    async def make_agent_after_an_await(ctx: AgentContext) -> OnItsLoop:
        loops.append(asyncio.get_running_loop())
        await asyncio.sleep(0)
        return OnItsLoop(ctx)

    outcome = run_scenario(load_scenario(ROOT / "scenarios" / "http" / "overloaded_then_success.yaml"),
                           agent=make_agent_after_an_await)
    assert outcome.passed, format_timeline(outcome)
    assert len(loops) == 3 and len(set(loops)) == 1 and loops[0].is_closed()  # the factory, the turn, the probe turn


def test_an_agent_of_ones_own_is_recorded_and_replayed(tmp_path: Path) -> None:
    scenario = load_scenario(ROOT / "scenarios" / "http" / "overloaded_then_success.yaml")
    replies = [r for turn in scenario.turns for r in turn.replies]
    workspace = tmp_path / "work"
    workspace.mkdir()
    (workspace / "README.md").write_text("# Demo\n")
    cassette = tmp_path / "careful.yaml"
    clock = VirtualClock()
    with FaultServer(Responder(replies, clock=clock), time_scale=0) as server:
        recorded = record_session(
            cassette, ["Summarize the README"], base_url=server.url, api_key="test", cwd=workspace,
            factory=make_agent, clock=clock,
        )
    assert recorded.written and recorded.interactions == 4
    assert "read_file" in cassette.read_text()  # the agent's own tool names went on the wire
    replayed = replay_session(cassette, ["Summarize the README"], cwd=workspace, factory=make_agent)
    assert replayed.requests == 4 and replayed.unused == []


def test_the_properties_hold_for_the_careful_agent_too(tmp_path: Path) -> None:
    """The history properties and the session state machine, with the agent named the
    way a user names theirs (``--harness-agent``), on the small derandomized profile."""
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "harness/library/properties", "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
         "--harness-agent", "examples.careful_agent:make_agent", "--harness-found-dir", str(tmp_path)],
        cwd=ROOT, capture_output=True, text=True, timeout=600, env={**os.environ, "HYPOTHESIS_PROFILE": "quick"},
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    assert " passed" in run.stdout.splitlines()[-1]


class TriesTwice(RetriesBySDK):
    """Sends a failed request once more, whatever the failure (Claude Code does so on a 401)."""

    def __init__(self, ctx: AgentContext) -> None:
        super().__init__(ctx)
        self.client = ctx.client.with_options(max_retries=0)

    def run_turn(self, text: str) -> None:
        try:
            super().run_turn(text)
        except anthropic.APIStatusError:
            super().run_turn(text)


ONE_FINAL_ERROR = """\
name: one-final-error
about: One {status}, then nothing more.
turns:
  - user: Hello
    replies: [error: {status}]
    expect: {{end: error}}
"""


@pytest.mark.parametrize(("status", "fails"), [(401, False), (403, False), (400, True)])
def test_a_second_try_after_a_final_error_is_reported_and_fails_only_after_a_400(
    tmp_path: Path, status: int, fails: bool
) -> None:
    (tmp_path / "s.yaml").write_text(ONE_FINAL_ERROR.format(status=status))
    outcome = run_scenario(load_scenario(tmp_path / "s.yaml"), agent=TriesTwice)
    assert [r.repeated for r in outcome.requests[:2]] == [False, True]  # the same answer again, not a harness 500
    if fails:
        assert any("which the API rejected as invalid" in p.text for p in outcome.problems), format_timeline(outcome)
    else:
        assert outcome.passed, format_timeline(outcome)
        assert any("tries again after the non-retryable failure" in n for n in outcome.notes)


def test_a_client_on_any_other_transport_keeps_the_sdks_own_wait(monkeypatch: pytest.MonkeyPatch) -> None:
    sdk_waits_on_scenario_clocks()
    waits: list[float] = []
    monkeypatch.setattr(anthropic._base_client.time, "sleep", waits.append)
    answers = iter([
        httpx2.Response(529, headers={"retry-after-ms": "250"},
                        json={"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}),
        httpx2.Response(200, json={"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-opus-5-5",
                                   "content": [{"type": "text", "text": "Hi."}], "stop_reason": "end_turn",
                                   "stop_sequence": None, "usage": {"input_tokens": 1, "output_tokens": 1}}),
    ])
    transport = httpx2.MockTransport(lambda request: next(answers))
    client = anthropic.Anthropic(api_key="k", max_retries=1, http_client=httpx2.Client(transport=transport))
    reply = client.messages.create(model="claude-opus-5-5", max_tokens=10, messages=[{"role": "user", "content": "Hello"}])
    assert reply.content[0].text == "Hi."
    assert waits == [0.25]
