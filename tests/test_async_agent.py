"""An agent that is not mini_agent: a few lines of asyncio around ``AsyncAnthropic``
that stream each answer and retry 529s and broken streams themselves. The harness
serves it faults through ``fault_api``, ``WireSession`` and ``AsyncScenarioTransport``
and checks the wire invariants; no adapter is needed."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Awaitable, Callable

import anthropic
import httpx2
import pytest

from harness.scenario.checks.invariants import wire_invariants
from harness.scenario.fake_api.clients import async_client
from harness.scenario.fake_api.transport import AsyncScenarioTransport
from harness.scenario.format.loader import load_scenario
from harness.scenario.format.problem import Kind
from harness.scenario.run.wire_session import WireSession
from harness.wire.clock import VirtualClock

MODEL = "claude-opus-5-5"
ANSWER = "The README says this is a demo project."


class AsyncAgent:
    """Streams each answer; on a 529 it waits (``retry-after``, else backoff) and asks
    again; on a stream that breaks it drops the partial text and asks again."""

    def __init__(self, client: anthropic.AsyncAnthropic, sleep: Callable[[float], Awaitable[None]], *, max_retries: int = 3):
        self.client = client
        self.sleep = sleep
        self.max_retries = max_retries
        self.messages: list[dict] = []
        self.notices: list[str] = []
        self.dropped: list[str] = []  # partial text of broken streams, never shown as an answer

    async def ask(self, text: str) -> str:
        self.messages.append({"role": "user", "content": text})
        answer = await self._with_retries(self._request_body())
        self.messages.append({"role": "assistant", "content": answer})
        return answer

    def _request_body(self) -> dict:
        return {"model": MODEL, "max_tokens": 1024, "messages": list(self.messages)}

    async def _with_retries(self, body: dict) -> str:
        for attempt in range(1, self.max_retries + 2):
            seen: list[str] = []
            try:
                return await self._stream(body, seen)
            except anthropic.APIStatusError as error:
                if error.status_code != 529 or attempt > self.max_retries:
                    raise
                retry_after = error.response.headers.get("retry-after")
                self.notices.append(f"529 overloaded, attempt {attempt + 1}/{self.max_retries + 1}")
                await self.sleep(float(retry_after) if retry_after else 0.5 * 2 ** (attempt - 1))
            except (anthropic.APIConnectionError, httpx2.TransportError) as error:
                if attempt > self.max_retries:
                    raise
                self.dropped.append("".join(seen))
                broke = error.__cause__ if isinstance(error, anthropic.APIConnectionError) else error
                self.notices.append(f"stream broke ({type(broke).__name__}), attempt {attempt + 1}/{self.max_retries + 1}")
                await self.sleep(0.5 * 2 ** (attempt - 1))
        raise AssertionError("unreachable")

    async def _stream(self, body: dict, seen: list[str]) -> str:
        async with self.client.messages.stream(**body) as stream:
            async for piece in stream.text_stream:
                seen.append(piece)
            final = await stream.get_final_message()
        return "".join(block.text for block in final.content if block.type == "text")


class ForgetfulAgent(AsyncAgent):
    """A buggy agent: it keeps a broken stream's partial text in the history and retries
    with it, so the retried request differs from the one it retries."""

    async def _with_retries(self, body: dict) -> str:
        try:
            return await self._stream(body, seen := [])
        except (anthropic.APIConnectionError, httpx2.TransportError):
            await self.sleep(0.5)
            body = {**body, "messages": [*body["messages"], {"role": "assistant", "content": "".join(seen)}]}
            return await self._stream(body, [])


class ImpatientAgent(AsyncAgent):
    """A buggy agent: it ignores ``retry-after`` and waits a fixed tenth of a second."""

    async def _with_retries(self, body: dict) -> str:
        try:
            return await self._stream(body, [])
        except anthropic.APIStatusError:
            await self.sleep(0.1)
            return await self._stream(body, [])


OVERLOADED_TWICE = f"""\
name: async-overloaded-twice
about: Two 529s, then the answer; the agent waits as told and resends the same request.
settings: {{max_retries: 3}}
turns:
  - user: Summarize the README
    replies:
      - error: overloaded
        headers: {{retry-after: "2"}}
      - error: overloaded
      - text: {ANSWER}
    expect: {{requests: 3}}
"""

OVERLOADED_ONCE = f"""\
name: async-overloaded-once
about: One 529 that asks for two seconds, then the answer.
turns:
  - user: Summarize the README
    replies:
      - error: overloaded
        headers: {{retry-after: "2"}}
      - text: {ANSWER}
    expect: {{requests: 2}}
"""

CUT_MID_ANSWER = f"""\
name: async-cut-mid-answer
about: The first stream is reset after its first text delta; the second is whole.
turns:
  - user: Summarize the README
    replies:
      - text: {ANSWER}
        cut: {{after_event: 3, how: rst}}
      - text: {ANSWER}
    expect: {{requests: 2}}
  - user: Thanks
    replies:
      - text: You're welcome.
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "scenario.yaml"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def serve(request: pytest.FixtureRequest, tmp_path: Path) -> Callable[[str], WireSession]:
    """``serve(yaml)``: the plugin's ``fault_api`` fixture bound to a scenario written to
    tmp_path; its invariants are checked at this test's teardown."""

    def bind(text: str) -> WireSession:
        request.applymarker(pytest.mark.scenario(str(write(tmp_path, text))))
        return request.getfixturevalue("fault_api")

    return bind


def test_overloaded_twice_then_answer_is_retried_invisibly(serve):
    fault_api = serve(OVERLOADED_TWICE)
    agent = AsyncAgent(fault_api.async_client(), fault_api.clock.async_sleep)

    assert asyncio.run(agent.ask("Summarize the README")) == ANSWER

    assert agent.notices == ["529 overloaded, attempt 2/4", "529 overloaded, attempt 3/4"]
    assert fault_api.clock.sleeps == [2.0, 1.0]  # retry-after, then the agent's own backoff
    requests = fault_api.responder.requests
    assert [r.plan.status for r in requests] == [529, 529, 200]
    assert requests[0].body == requests[1].body == requests[2].body
    assert requests[0].body["stream"] is True
    assert agent.messages[-1] == {"role": "assistant", "content": ANSWER}
    assert fault_api.problems() == []  # and fault_api checks again at teardown


def test_a_stream_reset_mid_answer_is_asked_again_and_the_partial_text_dropped(tmp_path):
    scenario = load_scenario(write(tmp_path, CUT_MID_ANSWER))
    transport = AsyncScenarioTransport(scenario.turns[0].replies, clock=VirtualClock())
    agent = AsyncAgent(async_client(transport), transport.clock.async_sleep)

    assert asyncio.run(agent.ask("Summarize the README")) == ANSWER

    assert agent.notices == ["stream broke (ReadError), attempt 2/4"]
    assert agent.dropped and agent.dropped[0] and ANSWER.startswith(agent.dropped[0]) and agent.dropped[0] != ANSWER
    assert [r.reply.describe() for r in transport.requests] == ["text · cut after event 3 (RST)", "text"]
    assert transport.responder.unused == [] and transport.responder.problems == []
    found = wire_invariants("turn 1", transport.requests, max_retries=3, wall_origin=transport.clock.wall_origin)
    assert found.problems == [] and found.notes == []


def test_the_conversation_goes_on_after_a_cut_with_only_the_whole_answer_in_history(tmp_path):
    session = WireSession.from_file(write(tmp_path, CUT_MID_ANSWER))
    agent = AsyncAgent(session.async_client(), session.clock.async_sleep)

    async def conversation() -> list[str]:
        first = await agent.ask("Summarize the README")
        session.next_turn()
        return [first, await agent.ask("Thanks")]

    assert asyncio.run(conversation()) == [ANSWER, "You're welcome."]
    last = session.responder.requests[-1].body["messages"]
    assert last == [
        {"role": "user", "content": "Summarize the README"},
        {"role": "assistant", "content": ANSWER},
        {"role": "user", "content": "Thanks"},
    ]
    assert session.problems() == []


def test_retrying_with_the_partial_answer_is_caught_keeping_it(tmp_path):
    session = WireSession.from_file(write(tmp_path, CUT_MID_ANSWER))
    agent = ForgetfulAgent(session.async_client(), session.clock.async_sleep)

    asyncio.run(agent.ask("Summarize the README"))

    problems = session.problems()
    assert "request 2 keeps the half-streamed text of request 1's broken answer in its history" in problems[0].text, problems
    assert (problems[0].kind, problems[0].request) == (Kind.INVARIANT, 2)


def test_retrying_before_retry_after_is_reported(tmp_path):
    session = WireSession.from_file(write(tmp_path, OVERLOADED_ONCE))
    agent = ImpatientAgent(session.async_client(), session.clock.async_sleep)

    assert asyncio.run(agent.ask("Summarize the README")) == ANSWER

    assert [str(p) for p in session.problems()] == ["turn 1: request 2 came 0.100s after request 1, which asked for retry-after 2s"]


def test_an_agent_that_gives_up_leaves_replies_unused_and_that_is_reported(tmp_path):
    session = WireSession.from_file(write(tmp_path, OVERLOADED_TWICE))
    agent = AsyncAgent(session.async_client(), session.clock.async_sleep, max_retries=1)

    with pytest.raises(anthropic.APIStatusError):
        asyncio.run(agent.ask("Summarize the README"))

    assert [str(p) for p in session.problems()] == [
        f"turn 1: expect.requests: expected 3, the client made 2 ({session.scenario.path}:{session.scenario.turns[0].expect_lines['requests']})",
        "turn 1: 1 reply(ies) never requested",
    ]


class CommandRunner:
    """Runs each command the model asks for with asyncio's subprocesses. Ctrl+C
    cancels the turn (as under ``asyncio.run``): it kills the command, answers the
    ``tool_use`` with an error, and then returns — or, with ``reraise``, lets the
    cancellation through as asyncio asks."""

    harness_policies = ("never_raises",)
    TOOLS = [{"name": "Bash", "description": "Run a command.",
              "input_schema": {"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]}}]

    def __init__(self, ctx, *, reraise: bool) -> None:
        self.client, self.workspace, self.reraise = ctx.async_client, ctx.workspace, reraise
        self.messages: list[dict] = []
        self.tidied = 0

    async def run_turn(self, text: str) -> str:
        self.messages.append({"role": "user", "content": text})
        while True:
            message = await self.client.messages.create(model=MODEL, max_tokens=1024, tools=self.TOOLS, messages=self.messages)
            self.messages.append({"role": "assistant", "content": [b.model_dump(exclude_none=True) for b in message.content]})
            calls = [b for b in message.content if b.type == "tool_use"]
            if not calls:
                return message.content[0].text if message.content else ""
            process = None
            try:
                process = await asyncio.create_subprocess_exec("bash", "-c", calls[0].input["command"], cwd=self.workspace)
                await process.wait()
            except asyncio.CancelledError:  # the command's kill -INT may come before the wait or during it
                if process is not None and process.returncode is None:
                    process.kill()
                    await process.wait()
                self.messages.append({"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": calls[0].id, "content": "Cancelled by Ctrl+C.", "is_error": True}]})
                self.tidied += 1
                if self.reraise:
                    raise
                return "Stopped."
            self.messages.append({"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": calls[0].id, "content": f"exit code {process.returncode}"}]})


@pytest.mark.parametrize("reraise", [False, True], ids=["returns", "lets-the-cancellation-through"])
def test_ctrl_c_cancels_an_async_turn_as_asyncio_run_would(reraise: bool) -> None:
    """The turn's task is cancelled, so its own clean-up runs (the command killed, the tool
    call answered); letting the cancellation through is not 'run_turn raised'."""
    from harness.scenario.run.runner import run_scenario
    from harness.scenario.run.timeline import format_timeline

    made: list[CommandRunner] = []

    def make(ctx):
        made.append(CommandRunner(ctx, reraise=reraise))
        return made[-1]

    scenario = load_scenario(Path(__file__).resolve().parent.parent / "scenarios/interrupts/ctrl_c_while_a_command_runs.yaml")
    outcome = run_scenario(scenario, agent=make)
    assert outcome.passed, format_timeline(outcome)
    assert made[0].tidied == 1
    assert outcome.turns[0].cancelled is reraise and (outcome.turns[0].raised is not None) is reraise
    assert "✗" not in format_timeline(outcome)  # a passing run shows no failure mark


class LeavesAStreamOpen:
    """Starts an async generator whose clean-up awaits (as an SDK stream's does) and drops
    it between turns, as an agent drops a stream that Ctrl+C cut; starts a task that
    would run for ever."""

    def __init__(self) -> None:
        self.tidied: list[str] = []
        self.stream: object = None

    async def chunks(self):  # noqa: ANN201 -- an async generator
        try:
            yield b"one"
            yield b"two"
        finally:
            await asyncio.sleep(0)  # the clean-up goes on over more than one turn of the loop
            await asyncio.sleep(0)
            self.tidied.append("stream closed")

    async def forever(self) -> None:
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            self.tidied.append("task cancelled")
            raise

    async def run_turn(self, text: str) -> None:
        self.stream = self.chunks()
        await self.stream.__anext__()  # type: ignore[attr-defined]
        self.task = asyncio.get_running_loop().create_task(self.forever())


def test_the_driver_ends_its_loop_as_asyncio_run_ends_a_program(caplog: pytest.LogCaptureFixture) -> None:
    """A stream dropped between turns gets its clean-up run to the end, a task still
    running is cancelled, and asyncio has nothing to complain about."""
    from harness.agents.driver import TurnDriver

    agent = LeavesAStreamOpen()
    with caplog.at_level("WARNING", logger="asyncio"), TurnDriver() as driver:
        driver.start(agent, "Hello")
        agent.stream = None  # collected now: the loop schedules its aclose()
    assert sorted(agent.tidied) == ["stream closed", "task cancelled"]
    assert [r.getMessage() for r in caplog.records if r.name == "asyncio"] == []
