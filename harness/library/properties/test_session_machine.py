"""A whole session as a state machine: user lines under fault schedules, interrupted
turns and tool calls, in any order; after every step the history must be one the API
accepts, as the wire shows it. The agent is mini_agent unless ``--harness-agent`` (or
``$HARNESS_AGENT``) names another. A failing run is saved as a scenario of the steps taken."""

from __future__ import annotations

import tempfile
from contextlib import ExitStack
from dataclasses import replace
from pathlib import Path
from typing import Any, Iterator

import httpx2
from hypothesis import event as note_for_statistics
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

from harness.agents.context import AgentContext
from harness.agents.driver import TurnDriver
from harness.agents.events import ToolCall, TurnEnd
from harness.agents.loading import DEFAULT_AGENT, load_factory
from harness.oracle import check_history
from harness.scenario.checks.invariants import wire_invariants
from harness.scenario.checks.policies import (
    applicable,
    attempt_limit,
    declared_policies,
)
from harness.scenario.checks.wire_view import kept_partial_text, wire_end
from harness.scenario.fake_api.clients import TEST_API_KEY, scenario_clients
from harness.scenario.fake_api.responder import Responder
from harness.scenario.fake_api.side_requests import undeclared_side
from harness.scenario.fake_api.tool_map import ToolMap
from harness.scenario.fake_api.transport import (
    AsyncScenarioTransport,
    ScenarioTransport,
)
from harness.scenario.format.model import Scenario, Turn
from harness.scenario.format.problem import Kind, Problem
from harness.scenario.format.side_requests import side_rules
from harness.scenario.run.found import replay_command, save_counterexample
from harness.scenario.run.runner import SocketTime, loopback
from harness.strategies import (
    BIG_BUDGET,
    INTERRUPTION_KINDS,
    Interruption,
    Schedule,
    continued,
    fault_schedules,
    interruption_points,
    replies,
    tool_calls,
    user_lines,
)
from harness.wire.clock import VirtualClock
from harness.wire.replies import Reply

from .agent import AGENT, AGENT_EVENTS

MAX_RETRIES = 2
WORKSPACE = {"notes.txt": "alpha\nbeta\n", "src/app.py": "print('hi')\n"}


class AgentSession(RuleBasedStateMachine):
    """mini_agent, its fake API and the turns so far (as a scenario, for replay)."""

    def __init__(self) -> None:
        super().__init__()
        self.folder = tempfile.TemporaryDirectory(prefix="properties-session-")
        workspace = Path(self.folder.name)
        for name, text in WORKSPACE.items():
            (workspace / name).parent.mkdir(parents=True, exist_ok=True)
            (workspace / name).write_text(text)
        self.scenario = Scenario(
            name="session",
            about="A session built by harness.library.properties.test_session_machine.",
            path=Path("session.yaml"),
            turns=(),
            settings={"max_retries": MAX_RETRIES, "retry_budget": BIG_BUDGET},
            workspace=WORKSPACE,
        )
        self.responder = Responder(clock=VirtualClock.starting_now())
        transport = ScenarioTransport(self.responder)
        client, async_client = scenario_clients(transport)
        self.servers = ExitStack()  # the loopback socket, for an agent that builds its own client on base_url
        ctx = AgentContext(
            client, async_client, workspace, self.responder.clock, TEST_API_KEY, self.scenario.settings,
            http_client=httpx2.Client(transport=transport),
            async_http_client=httpx2.AsyncClient(transport=AsyncScenarioTransport(self.responder)),
            start_loopback=loopback(self.responder, self.servers, SocketTime(self.responder.clock)),
        )
        self.driver = TurnDriver()
        self.agent = self.driver.build(load_factory(AGENT or DEFAULT_AGENT), ctx)
        self.responder.tool_map = ToolMap(getattr(self.agent, "tool_map", None))
        self.responder.side_rules = side_rules(getattr(self.agent, "harness_side_requests", None))
        self.policies = declared_policies(self.agent)
        self.moot = False  # a turn the agent could not meet ended what the session can say

    def teardown(self) -> None:
        self.driver.close()
        self.servers.close()
        self.folder.cleanup()

    # -- rules ------------------------------------------------------------------------

    @rule(user=user_lines(), schedule=fault_schedules(max_retries=MAX_RETRIES, max_replies=4))
    def user_line_under_faults(self, user: str, schedule: Schedule) -> None:
        self.play(schedule.turn(user))

    @rule(
        user=user_lines(), schedule=fault_schedules(max_retries=MAX_RETRIES, max_replies=3),
        point=interruption_points(kinds=INTERRUPTION_KINDS if AGENT_EVENTS else ("stream",)),
    )
    def interrupted_turn(self, user: str, schedule: Schedule, point: Interruption) -> None:
        self.play(schedule.interrupted(point).turn(user))

    @rule(user=user_lines(), calls=st.lists(tool_calls(), min_size=1, max_size=2), answer=replies(final=True))
    def tool_call(self, user: str, calls: list[dict[str, Any]], answer: Reply) -> None:
        self.play(Turn(user, (Reply(message={"tool_use": calls}), *continued(answer))))

    # -- invariants -------------------------------------------------------------------

    @invariant()
    def history_is_valid(self) -> None:
        if self.moot:
            return
        problems = list(self.responder.problems) + kept_partial_text(self.responder.requests)[0]
        if getattr(self.agent, "messages", None):  # an agent that shows its history: check it as it is now
            problems += [Problem(str(v), Kind.API_RULE) for v in check_history(next_request(self.agent.messages))]
        self.fail_on(problems)

    def fail_on(self, problems: list[Problem]) -> None:
        if problems:
            path = save_counterexample(self.scenario, problems, agent=AGENT)
            hint = undeclared_side(self.responder.requests, self.responder.label).strip(" ()")
            raise AssertionError("\n".join([*map(str, problems), *([f"note: {hint}"] if hint else []),
                                            f"saved as {path}; {replay_command(path, AGENT)}" if path else ""]))

    # -- driving a turn ---------------------------------------------------------------

    def play(self, turn: Turn) -> None:
        """Run one turn and check it; a turn the agent cannot meet (a tool it lacks, a
        stream-only fault asked without ``stream``) ends the session's checks, not a failure."""
        if self.moot:
            return
        self.responder.queue(turn.replies, f"turn {len(self.scenario.turns) + 1}")
        first = len(self.responder.requests)
        events: list[Any] = []
        try:
            events += drive(self.agent, self.driver, turn)
        except (Exception, KeyboardInterrupt) as error:
            raised = f"run_turn raised {type(error).__name__}: {error}"
        else:
            raised = ""
        requests = [r for r in self.responder.requests[first:] if r.side is None]
        if self.responder.not_applicable is not None:
            self.moot = True
            note_for_statistics(f"not applicable: {self.responder.not_applicable.split(' (')[0]}")
            return
        if turn.interrupt and turn.interrupt.at_event is not None and len(requests) < len(turn.replies):
            turn = replace(turn, replies=turn.replies[: len(requests)])  # Ctrl+C came first: replay without the rest
        self.scenario = replace(self.scenario, turns=(*self.scenario.turns, turn))
        where = f"turn {len(self.scenario.turns)}"
        limit = attempt_limit(self.scenario.settings, self.policies)
        problems = wire_invariants(where, requests, max_retries=limit, wall_origin=self.responder.clock.wall_origin).problems
        expect = applicable(turn.expect, self.policies, turn.replies)
        expect.update(expect.pop("mini_agent", {}) if AGENT_EVENTS else {})
        ends = [e.reason for e in events if isinstance(e, TurnEnd)]
        found: list[str] = []
        if AGENT_EVENTS:
            found += [raised] if raised else []
            if not ends and not raised and not (turn.interrupt and turn.interrupt.close):
                found.append(f"the turn never ended: {events[-3:]}")
        if "requests" in expect and len(requests) != expect["requests"]:
            found.append(f"{len(requests)} requests, the schedule foretold {turn.expect}")
        ended = wire_end(requests)
        if "end" in expect and ended != expect["end"] and ends[-1:] != [expect["end"]]:
            found.append(f"the turn ended {ends or ended}, the schedule foretold {turn.expect}")
        self.fail_on(problems + [Problem(text, Kind.PROPERTY) for text in found])


def next_request(history: list[Any]) -> list[Any]:
    """The messages of the agent's next request: its history as sent, and the next user
    line after an assistant message (a history between turns is not a prefill)."""
    messages = as_sent(list(history))
    last = messages[-1] if messages else None
    return messages + [{"role": "user", "content": "Are you still there?"}] if isinstance(last, dict) and last.get("role") == "assistant" else messages


def as_sent(value: Any) -> Any:
    """The history as a client would send it: the SDK's content objects (which an agent may
    keep as they came) as the JSON they become on the wire."""
    if isinstance(value, (str, int, float)) or value is None:
        return value
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json", exclude_none=True, warnings=False)
    if isinstance(value, dict):
        return {key: as_sent(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [as_sent(item) for item in value]
    return value


def drive(agent: Any, driver: TurnDriver, turn: Turn) -> Iterator[Any]:
    """The turn's events, with its Ctrl+C or closed generator, as the REPL would see them."""
    interrupt = turn.interrupt
    events = driver.start(agent, turn.user)
    for count, event in enumerate(events or (), 1):
        yield event
        hit = interrupt and (
            count == interrupt.at_event
            or (isinstance(event, ToolCall) and event.name == interrupt.tool)
        )
        if hit:
            if interrupt.close:
                events.close()
                return
            try:
                yield events.throw(KeyboardInterrupt)
            except StopIteration:
                return
            yield from events
            return


TestAgentSession = AgentSession.TestCase
