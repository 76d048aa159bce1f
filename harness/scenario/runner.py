"""Run a scenario against an agent: a fresh workspace, the virtual clock, one queue of
replies per turn; the outcome holds everything that happened and every problem found."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any, Callable, Iterator

from harness.agents.base import AgentFactory
from harness.scenario.expectations import check_expectations
from harness.scenario.invariants import DEFAULT_MAX_RETRIES, check_invariants
from harness.scenario.model import Scenario, Turn
from harness.scenario.outcome import Outcome, TurnRecord
from harness.scenario.responder import DEFAULT_MODEL, Responder
from harness.scenario.transport import ScenarioTransport, sync_client
from harness.wire.clock import VirtualClock
from harness.wire.replies import Reply

PROBE_LINE = "Are you still there?"
PROBE_REPLY = Reply(message={"text": "Still here."})
MAX_FILE_SNAPSHOT = 1_000_000


def run_scenario(
    scenario: Scenario,
    *,
    factory: AgentFactory | None = None,
    write: Callable[[str], object] | None = None,
) -> Outcome:
    """Run every turn (and the probe turn), then check invariants and expectations.
    ``factory`` builds the agent (default: mini_agent with the scenario's settings)."""
    clock = VirtualClock()
    responder = Responder(clock=clock, model=scenario.settings.get("model", DEFAULT_MODEL))
    transport = ScenarioTransport(responder)
    transcript: list[str] = []

    def emit(text: str) -> None:
        transcript.append(text)
        if write:
            write(text)

    with tempfile.TemporaryDirectory(prefix="harness-") as tmp:
        workspace = Path(tmp).resolve()
        for name, content in scenario.workspace.items():
            (workspace / name).parent.mkdir(parents=True, exist_ok=True)
            (workspace / name).write_text(content, encoding="utf-8")
        build = factory or default_factory(scenario)
        agent = build(sync_client(transport), clock, workspace)
        turns = list(scenario.turns)
        if scenario.probe:
            turns.append(Turn(PROBE_LINE, (PROBE_REPLY,), expect={"end": "end_turn"}))
        records = []
        for number, turn in enumerate(turns, 1):
            label = "the probe turn" if scenario.probe and number == len(turns) else f"turn {number}"
            records.append(_drive_turn(agent, turn, number, label, responder, emit))
        files = _snapshot(workspace)
        text = "".join(transcript).replace(str(workspace), "<workspace>")
    outcome = Outcome(
        scenario,
        records,
        list(responder.requests),
        list(zip(clock.sleep_times, clock.sleep_marks, clock.sleeps)),
        getattr(agent, "messages", None),
        files,
        text,
        scenario.settings.get("max_retries", DEFAULT_MAX_RETRIES),
        clock.now(),
    )
    outcome.problems = list(responder.problems) + check_invariants(outcome) + check_expectations(outcome)
    return outcome


def _drive_turn(
    agent: Any, turn: Turn, number: int, label: str, responder: Responder, emit: Callable[[str], object]
) -> TurnRecord:
    record = TurnRecord(number, turn.user, label, first_mark=responder.clock.mark())
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
        for event in _events(agent, turn, record):
            record.events.append((responder.clock.now(), responder.clock.mark(), event))
            if renderer is not None:
                emit(renderer.render(event))
        if renderer is not None:
            emit(renderer.render_close())
    record.requests = responder.requests[first:]
    record.unused_replies = len(responder.unused)
    record.last_mark = responder.clock.mark()
    return record


def _events(agent: Any, turn: Turn, record: TurnRecord) -> Iterator[Any]:
    """The turn's events, with the scenario's interrupt applied; never raises."""
    interrupt = turn.interrupt
    try:
        turn_events = agent.run_turn(turn.user)
        iterator = iter(turn_events)
        count = 0
        for event in iterator:
            count += 1
            yield event
            if interrupt and not record.interrupted and _hits(interrupt, count, event):
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


def _hits(interrupt: Any, count: int, event: Any) -> bool:
    if interrupt.at_event is not None:
        return count == interrupt.at_event
    return type(event).__name__ == "ToolCall" and getattr(event, "name", None) == interrupt.tool


def _snapshot(workspace: Path) -> dict[str, str | None]:
    """Every file in the workspace as text (None when it is binary or huge)."""
    files: dict[str, str | None] = {}
    for path in sorted(workspace.rglob("*")):
        if path.is_file():
            try:
                data = path.read_bytes()
                files[path.relative_to(workspace).as_posix()] = (
                    data.decode("utf-8") if len(data) <= MAX_FILE_SNAPSHOT else None
                )
            except (OSError, UnicodeDecodeError):
                files[path.relative_to(workspace).as_posix()] = None
    return files


def default_factory(scenario: Scenario) -> AgentFactory:
    """mini_agent, with the scenario's settings."""
    from harness.agents.mini_agent import scenario_factory

    return scenario_factory(scenario.settings)
