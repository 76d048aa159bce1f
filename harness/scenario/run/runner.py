"""Run a scenario against an agent: a fresh workspace, the virtual clock, one queue of
replies per turn; the outcome holds everything that happened and every problem found."""

from __future__ import annotations

import tempfile
import time
from contextlib import ExitStack
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable, Iterator

import httpx2

from harness.agents.base import AgentFactory
from harness.agents.context import AgentContext
from harness.agents.driver import TurnDriver
from harness.agents.events import ToolCall
from harness.agents.loading import DEFAULT_AGENT, load_factory
from harness.scenario.checks.expectations import check_expectations
from harness.scenario.checks.invariants import check_invariants
from harness.scenario.checks.outcome import Outcome, TurnResult
from harness.scenario.checks.policies import attempt_limit, declared_policies
from harness.scenario.fake_api.clients import TEST_API_KEY, scenario_clients
from harness.scenario.fake_api.rate_limits import enforce
from harness.scenario.fake_api.responder import Responder
from harness.scenario.fake_api.tool_map import ToolMap
from harness.scenario.fake_api.transport import (
    AsyncScenarioTransport,
    ScenarioTransport,
)
from harness.scenario.format.model import DEFAULT_MODEL, Scenario, ScenarioError, Turn
from harness.scenario.format.problem import Kind, Problem
from harness.scenario.format.sandbox import PathEscape, write_workspace
from harness.scenario.format.side_requests import side_rules
from harness.scenario.run.terminal import ctrl_c_heard
from harness.serve.server import FaultServer
from harness.wire.clock import VirtualClock
from harness.wire.files import read_regular
from harness.wire.replies import Reply

PROBE_LINE = "Are you still there?"
PROBE_REPLY = Reply(message={"text": "Still here."})
MAX_FILE_SNAPSHOT = 1_000_000


def run_scenario(
    scenario: Scenario,
    *,
    agent: str | AgentFactory | None = None,
    write: Callable[[str], object] | None = None,
) -> Outcome:
    """Run every turn (and the probe turn), then check invariants and expectations.

    ``agent`` names the agent under test: ``MODULE:FACTORY`` or the factory itself, which
    gets an ``AgentContext`` (see ``harness.agents.context``); by default mini_agent."""
    build = load_factory(agent) if isinstance(agent, str) else agent or load_factory(DEFAULT_AGENT)
    clock = VirtualClock.starting_now()
    responder = Responder(clock=clock, model=scenario.settings.get("model", DEFAULT_MODEL), threads=scenario.threads)
    socket_time = SocketTime(clock)
    if scenario.limits is not None:
        enforce(responder, scenario.limits, now=socket_time.now, wall=socket_time.wall)
    transport = ScenarioTransport(responder)
    transcript: list[str] = []

    def emit(text: str) -> None:
        transcript.append(text)
        if write:
            write(text)

    with tempfile.TemporaryDirectory(prefix="harness-") as tmp, ExitStack() as servers:
        workspace = Path(tmp).resolve()
        try:
            write_workspace(workspace, scenario.workspace)
        except (PathEscape, OSError) as error:
            raise ScenarioError([Problem(f"workspace: {error}", Kind.FILE_MISTAKE, file=str(scenario.path))]) from None
        client, async_client = scenario_clients(transport)
        ctx = AgentContext(
            client, async_client, workspace, clock, TEST_API_KEY, scenario.settings,
            http_client=httpx2.Client(transport=transport),
            async_http_client=httpx2.AsyncClient(transport=AsyncScenarioTransport(responder)),
            start_loopback=loopback(responder, servers, socket_time),
        )
        with TurnDriver() as driver:  # its event loop is closed before the workspace is read
            under_test = driver.build(build, ctx)
            name = getattr(under_test, "harness_agent_name", None)
            if scenario.agent is not None and scenario.agent != name:
                return _skipped(scenario, name, f"{scenario.agent}'s scenario")
            responder.tool_map = ToolMap(getattr(under_test, "tool_map", None))
            responder.side_rules = side_rules(getattr(under_test, "harness_side_requests", None))
            policies = declared_policies(under_test)
            turns = list(scenario.turns)
            if scenario.probe:
                turns.append(Turn(PROBE_LINE, (PROBE_REPLY,), expect={"end": "end_turn"}))
            records = []
            with ctrl_c_heard():
                for number, turn in enumerate(turns, 1):
                    label = "the probe turn" if scenario.probe and number == len(turns) else f"turn {number}"
                    records.append(_drive_turn(under_test, driver, turn, number, label, responder, emit))
        files = _snapshot(workspace)
        text = "".join(transcript).replace(str(workspace), "<workspace>")
    outcome = Outcome(
        scenario,
        records,
        list(responder.requests),
        list(zip(clock.sleep_times, clock.sleep_marks, clock.sleeps)),
        getattr(under_test, "messages", None),
        files,
        text,
        attempt_limit(scenario.settings, policies),
        clock.now(),
        agent_name=name,
        wall_origin=clock.wall_origin,
        tool_map=responder.tool_map,
        policies=policies,
    )
    outcome.not_applicable = responder.not_applicable
    if outcome.not_applicable is not None:  # the agent could not meet the scenario: nothing it did is judged
        return outcome
    found = check_invariants(outcome)
    outcome.problems = _in_turns(list(responder.problems) + found.problems + check_expectations(outcome), records)
    outcome.notes = found.notes
    return outcome


def _in_turns(problems: list[Problem], turns: list[TurnResult]) -> list[Problem]:
    """Each problem about a request also names the turn the request was made in."""
    turn_of = {request.number: turn.number for turn in turns for request in turn.requests}
    return [replace(p, turn=turn_of.get(p.request)) if p.turn is None and p.request is not None else p for p in problems]


def _skipped(scenario: Scenario, name: str | None, why: str) -> Outcome:
    return Outcome(scenario, [], [], [], None, {}, "", None, agent_name=name, skipped=why)


SOCKET_MONOTONIC: Callable[[], float] = time.monotonic
"""The real clock a client on the loopback socket lives by (a test may put its own here)."""


class SocketTime:
    """The run's time as its rate limits read it: the virtual clock, and once the loopback
    socket serves, the real seconds since it began as well: a client there waits in real
    time, and the buckets fill as it waits (``time_scale=0`` only spares the server's own
    waits)."""

    def __init__(self, clock: VirtualClock) -> None:
        self.clock = clock
        self.began: float | None = None

    def begin(self) -> None:
        self.began = SOCKET_MONOTONIC()

    def real(self) -> float:
        """Real seconds on the socket so far (0 before it serves)."""
        return 0.0 if self.began is None else SOCKET_MONOTONIC() - self.began

    def now(self) -> float:
        return self.clock.now() + self.real()

    def wall(self) -> float:
        return self.clock.wall_origin + self.now()


def loopback(responder: Responder, servers: ExitStack, socket_time: SocketTime) -> Callable[[], str]:
    """``AgentContext.start_loopback``: start, on first use, the socket server over the
    same responder (``servers`` closes it); from then on the rate limits' time runs in
    real time too."""
    started: list[str] = []

    def start() -> str:
        if not started:
            socket_time.begin()
            server = FaultServer(responder, time_scale=0, monotonic=socket_time.real)
            started.append(servers.enter_context(server).url)
        return started[0]

    return start


def _drive_turn(
    agent: Any, driver: TurnDriver, turn: Turn, number: int, label: str, responder: Responder,
    emit: Callable[[str], object],
) -> TurnResult:
    record = TurnResult(number, turn.user, label, first_mark=responder.clock.mark())
    first = len(responder.requests)
    responder.queue(turn.replies, label)
    emit(f"> {turn.user}\n")
    command = getattr(agent, "command", None)
    command_output = command(turn.user) if command is not None else None
    if command_output is not None:
        record.command = True
        emit(command_output)
    else:
        renderer = agent.renderer() if hasattr(agent, "renderer") else None
        for event in _events(agent, driver, turn, record, responder.tool_map):
            record.events.append((responder.clock.now(), responder.clock.mark(), event))
            if renderer is not None:
                emit(renderer.render(event))
        if renderer is not None:
            emit(renderer.render_close())
    made = responder.requests[first:]
    record.requests = [r for r in made if r.side is None]
    record.side_requests = [r for r in made if r.side is not None]
    record.unused_replies = len(responder.unused)
    record.last_mark = responder.clock.mark()
    return record


def _events(agent: Any, driver: TurnDriver, turn: Turn, record: TurnResult, tool_map: ToolMap) -> Iterator[Any]:
    """The turn's events, with the scenario's interrupt applied (``tool: Bash`` at the call
    of the agent's tool for that role, or of a tool so named); never raises."""
    interrupt = turn.interrupt
    try:
        turn_events = driver.start(agent, turn.user)
        if turn_events is None:
            return
        iterator = iter(turn_events)
        count = 0
        for event in iterator:
            count += 1
            yield event
            if interrupt and not record.interrupted and _hits(interrupt, count, event, tool_map):
                record.interrupted = True
                if interrupt.close or not hasattr(turn_events, "throw"):
                    getattr(turn_events, "close", lambda: None)()
                    record.closed = True
                    return
                try:
                    yield turn_events.throw(KeyboardInterrupt)
                except StopIteration:
                    return
    except BaseException as error:  # the invariant "run_turn never raises" reports it
        record.raised = f"{type(error).__name__}: {error}"
        record.cancelled = driver.cancelled


def _hits(interrupt: Any, count: int, event: Any, tool_map: ToolMap) -> bool:
    if interrupt.at_event is not None:
        return count == interrupt.at_event
    return isinstance(event, ToolCall) and event.name in (interrupt.tool, tool_map.agent_name(interrupt.tool))


def _snapshot(workspace: Path) -> dict[str, str | None]:
    """Every file in the workspace as text (None when it is binary, huge, a link or not a
    regular file: nothing outside the workspace is read, nothing waits on a FIFO)."""
    files: dict[str, str | None] = {}
    for path in sorted(workspace.rglob("*")):
        name = path.relative_to(workspace).as_posix()
        if path.is_symlink() or not path.is_file():
            if path.is_symlink() or not path.is_dir():
                files[name] = None
            continue
        try:
            files[name] = read_regular(path, max_bytes=MAX_FILE_SNAPSHOT).decode("utf-8")
        except (OSError, UnicodeDecodeError):
            files[name] = None
    return files


def default_factory(scenario: Scenario) -> AgentFactory:
    """The factory a run uses when none is named: mini_agent's adapter."""
    return load_factory(DEFAULT_AGENT)
