"""Counterexamples become scenario files: the YAML writer round-trips through the
loader, and a property that catches a broken agent leaves a file that ``harness run``
fails on in the same way."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness import cli
from harness.agents.base import AgentFactory
from harness.agents.mini_agent import mini_agent_factory, settings_for
from harness.library.properties.budget import examples
from harness.scenario.format.dump import (
    dump_scenario,
    without_positions,
    write_scenario,
)
from harness.scenario.format.loader import load_scenario
from harness.scenario.format.model import Interrupt, Scenario, Turn
from harness.scenario.format.schema import END_REASONS
from harness.scenario.run.found import (
    FOUND_DIR_VARIABLE,
    Counterexample,
    run_and_record,
)
from harness.scenario.run.runner import run_scenario
from harness.strategies import (
    fault_schedules,
    interruption_points,
    json_values,
    model_texts,
    scenarios,
    user_lines,
    workspaces,
)
from harness.wire.faults import Cut, Drip, ErrorEvent, Insert, Pings, Stall
from harness.wire.faults.base import fault_kinds
from harness.wire.faults.insert import InsertedEvent
from harness.wire.planner import stream_events
from harness.wire.replies import CONNECTION_FAULTS, Reply
from mini_agent.loop import Agent

FOLDER = Path(tempfile.mkdtemp(prefix="properties-yaml-"))
SMALL = st.integers(0, 12)
EVENT = st.integers(1, 12)  # an event number, counted from 1
TEXT = st.text(max_size=30)


def round_trip(scenario: Scenario) -> Scenario:
    """Written and read back; faults aimed past their replies are kept (lint's check is off)."""
    return load_scenario(write_scenario(scenario, FOLDER / "scenario.yaml"), positions=False)


@examples(1)
@given(scenarios())
def test_generated_scenarios_survive_the_yaml_round_trip(scenario: Scenario) -> None:
    assert without_positions(round_trip(scenario)) == without_positions(scenario)


# Every field of the format, whether or not it would play: the writer must say it all.
cuts = st.one_of(
    st.builds(Cut, after_event=SMALL, how=st.sampled_from(["fin", "rst"])),
    st.builds(Cut, in_event=EVENT, how=st.sampled_from(["fin", "rst"])),
    st.builds(Cut, after_bytes=st.integers(0, 10_000)),
    st.builds(Cut, in_char=EVENT),
)
messages = st.fixed_dictionaries(
    {"text": model_texts()},
    optional={
        "tool_use": st.lists(st.fixed_dictionaries({"name": st.sampled_from(["Read", "Bash"]), "input": st.dictionaries(TEXT, json_values())}), max_size=2),
        "thinking": TEXT,
        "stop_reason": st.sampled_from(["end_turn", "pause_turn", "refusal"]),
        "usage": st.dictionaries(st.sampled_from(["input_tokens", "output_tokens"]), st.integers(0, 10**6)),
    },
)
# Each fault kind with values a generated scenario would not use; any other kind (one
# registered later) with the values of its own strategy.
WIDE_FAULTS = {
    Cut: cuts,
    ErrorEvent: st.builds(ErrorEvent, SMALL) | st.builds(ErrorEvent, SMALL, st.sampled_from(["api_error", "invalid_request_error"]), TEXT),
    Stall: st.builds(Stall, SMALL) | st.builds(Stall, SMALL, st.floats(0, 1000)),
    Drip: st.builds(Drip, st.integers(1, 100), st.floats(0, 1)),
    Pings: st.integers(1, 12).map(Pings),
    Insert: st.lists(
        st.builds(InsertedEvent, SMALL, st.fixed_dictionaries({"type": st.just("future_event"), "x": json_values()})), min_size=1, max_size=2
    ).map(lambda items: Insert(tuple(items))),
}
SOME_EVENTS = stream_events(Reply(message={"text": "Hello, wörld", "tool_use": {"name": "Read"}}), message_id="msg_1", model="m")
any_faults = st.tuples(*(st.none() | WIDE_FAULTS.get(kind, kind.strategy(SOME_EVENTS)) for kind in fault_kinds())).map(
    lambda drawn: tuple(fault for fault in drawn if fault is not None)
)
any_replies = st.one_of(
    st.builds(Reply, message=messages, faults=any_faults),
    st.builds(
        Reply,
        error=st.sampled_from(["overloaded", "rate_limit"]) | st.integers(400, 599),
        message_text=st.none() | TEXT,
        body=st.none() | TEXT,
        headers=st.dictionaries(st.sampled_from(["retry-after", "x-should-retry", "retry-after-ms"]), st.text(max_size=10)),
    ),
    st.builds(Reply, connection=st.sampled_from(CONNECTION_FAULTS)),
    st.builds(Reply, events=st.lists(st.fixed_dictionaries({"type": st.sampled_from(["message_start", "ping"]), "n": json_values()}), max_size=3)),
)
turns = st.builds(
    Turn,
    user=user_lines(),
    replies=st.lists(any_replies, max_size=3).map(tuple),
    interrupt=st.none() | st.builds(Interrupt, at_event=st.integers(1, 9), close=st.booleans()) | st.builds(Interrupt, tool=st.sampled_from(["Bash", "Read"]), close=st.booleans()),
    expect=st.fixed_dictionaries({}, optional={"requests": SMALL, "end": st.sampled_from(END_REASONS), "notices": st.lists(TEXT, max_size=2)}),
)
every_field = st.builds(
    Scenario,
    name=TEXT.filter(str.strip),
    about=TEXT,
    path=st.just(Path("x.yaml")),
    turns=st.lists(turns, min_size=1, max_size=2).map(tuple),
    settings=st.fixed_dictionaries({}, optional={"max_retries": SMALL, "retry_budget": st.floats(0, 1e6), "fallbacks": st.booleans(), "system": TEXT}),
    workspace=workspaces(),
    expect=st.fixed_dictionaries({}, optional={"requests": SMALL, "files": st.dictionaries(st.sampled_from(["a.txt", "b/c.md"]), TEXT | st.just({"absent": True}))}),
    probe=st.booleans(),
)


@examples(2)
@given(every_field)
def test_every_field_of_the_format_survives_the_yaml_round_trip(scenario: Scenario) -> None:
    assert without_positions(round_trip(scenario)) == without_positions(scenario)


def test_the_yaml_reads_like_a_hand_written_scenario() -> None:
    scenario = Scenario(
        "demo", "Two faults.", Path("demo.yaml"),
        (Turn("Hi", (Reply(error="overloaded", headers={"retry-after": "2"}), Reply(message={"text": "Hello"}, faults=(Cut(after_event=3),)),
                     Reply(message={"text": "Hello"})), expect={"requests": 3}),),
        settings={"max_retries": 2},
    )
    assert dump_scenario(scenario) == (
        "name: demo\n"
        "about: Two faults.\n"
        "settings: {max_retries: 2}\n"
        "turns:\n"
        "- user: Hi\n"
        "  replies:\n"
        "  - error: overloaded\n"
        "    headers: {retry-after: '2'}\n"
        "  - {text: Hello, cut: 3}\n"
        "  - {text: Hello}\n"
        "  expect: {requests: 3}\n"
    )


# -- a broken agent is caught, saved, and fails the same way under `harness run` ---------


class ForgetfulAgent(Agent):
    """mini_agent with layer 3's repair switched off: an interrupted tool call stays
    unanswered."""

    def repair_history(self) -> None:
        pass


def forgetful(scenario: Scenario) -> AgentFactory:
    return mini_agent_factory(settings_for(scenario), agent_class=ForgetfulAgent)


@st.composite
def ctrl_c_as_a_tool_is_called(draw: st.DrawFn) -> Scenario:
    schedule = draw(fault_schedules(max_retries=0, max_replies=2))
    turn = schedule.interrupted(draw(interruption_points(kinds=("tool",)))).turn("Fix the bug")
    return Scenario("ctrl-c-as-a-tool-is-called", "", Path("x.yaml"), (turn,), settings={"max_retries": 0})


def counterexample(**how) -> Counterexample:
    """What a history property raises against the broken agent (``run_and_record``'s
    ``agent`` or ``factory_for``)."""

    @settings(max_examples=100, derandomize=True, database=None, report_multiple_bugs=False)
    @given(ctrl_c_as_a_tool_is_called())
    def history_stays_valid(scenario: Scenario) -> None:
        run_and_record(scenario, **how)

    with pytest.raises(Counterexample) as caught:
        history_stays_valid()
    return caught.value


def test_a_broken_agent_is_caught_and_saved_as_a_scenario_harness_run_replays(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv(FOUND_DIR_VARIABLE, str(tmp_path))
    saved = counterexample(factory_for=forgetful).path
    assert saved is not None and saved.parent == tmp_path and saved.exists()
    first_problem = load_scenario(saved).about.split(": ", 1)[1]
    assert "tool_use" in first_problem or "non-empty content" in first_problem

    replayed = run_scenario(load_scenario(saved), agent=forgetful(load_scenario(saved)))  # the same broken agent
    assert first_problem in [str(p) for p in replayed.problems]
    assert cli.main(["run", str(saved)]) == 0  # mini_agent itself repairs the history


def forgetful_agent(ctx):
    """The forgetful agent, as a factory ``--agent`` can name."""
    return forgetful(ctx.settings)(ctx)


def test_a_counterexample_found_against_another_agent_replays_against_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv(FOUND_DIR_VARIABLE, str(tmp_path))
    caught = counterexample(agent=forgetful_agent)
    name = f"{forgetful_agent.__module__}:forgetful_agent"
    hint = f"replay it with: harness run {caught.path} --agent {name}"
    assert hint in str(caught)
    assert caught.path.read_text(encoding="utf-8").startswith(f"# {hint}\n")
    assert f"against {name}: " in load_scenario(caught.path).about
    capsys.readouterr()
    assert cli.main(["run", str(caught.path), "--agent", name]) == 1  # the hint fails as the property did
    assert "tool_use" in capsys.readouterr().out
    assert cli.main(["run", str(caught.path)]) == 0  # without --agent, mini_agent passes: the hint needs it


# -- the folder can be named on the command line -------------------------------------------

pytest_plugins = ["pytester"]

FAILING_TEST = '''
from pathlib import Path

from harness.scenario.run.found import run_and_record
from harness.wire.replies import Reply
from harness.scenario.format.model import Scenario, Turn


def test_too_few_replies():
    read = Reply(message={"tool_use": {"name": "Read", "input": {"file_path": "a.txt"}}})
    run_and_record(Scenario("too-few", "One reply for two requests.", Path("x.yaml"), (Turn("Read it", (read,)),)))
'''


def test_the_found_folder_can_be_named_on_the_command_line(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(FOUND_DIR_VARIABLE, str(pytester.path / "not-here"))  # the option wins; restored afterwards
    pytester.makepyfile(test_failing=FAILING_TEST)
    result = pytester.runpytest("-p", "harness.pytest_plugin", "-p", "no:hypothesispytest", "--harness-found-dir", "found")
    result.assert_outcomes(failed=1)
    [saved] = (pytester.path / "found").glob("*.yaml")
    assert saved.name.startswith("test_too_few_replies-")
    assert "the agent made request 2 but turn 1 has 1 replies" in load_scenario(saved).about
