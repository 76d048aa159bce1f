"""A scenario's replies are written for one conversation. An agent that makes a side
request in a turn (a router without tools, before its main request) takes one of them;
where that makes the scenario one it cannot meet, the reason says a side request took
it, not that the agent has no tools."""

from __future__ import annotations

import contextlib
import re
from pathlib import Path
from typing import Any

import anthropic
import pytest

from examples import careful_agent
from examples.careful_agent import CarefulAgent, TurnOutcome
from harness.agents.context import AgentContext
from harness.cli import main
from harness.report.svg import timeline_svg
from harness.scenario.format.library import scenario_files
from harness.scenario.format.loader import load_scenario
from harness.scenario.format.problem import Kind
from harness.scenario.format.side_requests import (
    SideRequestsError,
    load_side_rules,
    side_rules,
)
from harness.scenario.run.results import scenario_record
from harness.scenario.run.runner import run_scenario
from harness.scenario.run.timeline import format_timeline
from harness.serve.report import build_server, check_served
from harness.wire.replies import Reply

ROOT = Path(__file__).resolve().parent.parent
READ = {"name": "Read", "description": "Read a file.",
        "input_schema": {"type": "object", "properties": {"file_path": {"type": "string"}}, "required": ["file_path"]}}


class Routes:
    """Asks a router (another conversation, no tools) before each line, then answers it."""

    def __init__(self, ctx: AgentContext, *, tools: list | None = None) -> None:
        self.client, self.tools, self.history = ctx.client.with_options(max_retries=0), tools, []

    def run_turn(self, text: str) -> None:
        self.client.messages.create(model="claude-sonnet-4-5", max_tokens=16, system="You route.",
                                    messages=[{"role": "user", "content": f"classify: {text}"}])
        self.history.append({"role": "user", "content": text})
        options = {"tools": self.tools} if self.tools else {}
        message = self.client.messages.create(model="claude-sonnet-4-5", max_tokens=256, messages=self.history, **options)
        self.history.append({"role": "assistant", "content": [b.model_dump() for b in message.content]})


def test_a_reply_a_side_request_took_is_said_to_be_so() -> None:
    outcome = run_scenario(load_scenario(ROOT / "scenarios" / "tools" / "write_creates_file.yaml"),
                           agent=lambda ctx: Routes(ctx, tools=[READ, {**READ, "name": "Write"}]))
    assert outcome.not_applicable is not None and "a side request (another conversation" in outcome.not_applicable


def test_an_agent_without_tools_is_told_only_that() -> None:
    outcome = run_scenario(load_scenario(ROOT / "scenarios" / "tools" / "write_creates_file.yaml"), agent=Routes)
    assert outcome.not_applicable is not None and "no tool that writes a file" in outcome.not_applicable
    assert "declares no tools where" not in outcome.not_applicable
    assert "starts a conversation of its own" in outcome.not_applicable and "if it is a side request" in outcome.not_applicable


# -- side requests declared: answered apart, the scenario's conversation judged alone ---------

LIBRARY = ROOT / "harness" / "library" / "scenarios"
ROUTE = {"name": "route", "description": "Where a line goes.",
         "input_schema": {"type": "object", "properties": {"to": {"type": "string"}}, "required": ["to"]}}
SIDE = [
    {"when": {"model": "claude-haiku-4-5", "tool_choice": "route"},
     "reply": {"tool_use": {"name": "route", "input": {"to": "work"}}}},
    {"when": {"system": "Write a short title"}, "reply": {"text": "Fixing the README"}},
]


class RoutedCareful(CarefulAgent):
    """examples/careful_agent, with a router before every line (a cheap model forced to
    call its one tool) and a title for the session after the first line: two side
    conversations, on the SDK's own retries (a rate limit holds for them too)."""

    harness_side_requests: Any = SIDE

    def __init__(self, ctx: AgentContext) -> None:
        super().__init__(ctx.client, ctx.workspace, ctx.sleep, ctx.wall, ctx.settings, getattr(ctx, "on_event", None))
        self.side_client = ctx.client.with_options(max_retries=5)
        self.titled = False

    def run_turn(self, text: str) -> TurnOutcome:
        try:  # a route that cannot be had is the default one
            routed = self.side_client.messages.create(
                model="claude-haiku-4-5", max_tokens=64, tools=[ROUTE], tool_choice={"type": "tool", "name": "route"},
                messages=[{"role": "user", "content": text}])
            assert routed.content[0].type == "tool_use", routed
        except anthropic.APIError:
            pass
        outcome = super().run_turn(text)
        if not self.titled and outcome.ending != "interrupted":
            self.titled = True
            try:
                self.side_client.messages.create(model="claude-haiku-4-5", max_tokens=32, system="Write a short title.",
                                                 messages=[{"role": "user", "content": text}])
            except anthropic.APIError:
                pass
        return outcome


def _verdict(outcome: Any) -> str:
    if outcome.skipped:
        return "skipped"
    return "n/a" if outcome.not_applicable else "pass" if outcome.passed else "fail"


def _verdicts(factory: Any) -> dict[str, str]:
    return {str(path.relative_to(LIBRARY)): _verdict(run_scenario(load_scenario(path), agent=factory))
            for path in scenario_files([LIBRARY])}


def test_an_agent_with_declared_side_requests_gets_the_verdicts_it_gets_without_them() -> None:
    plain = _verdicts(careful_agent.make_agent)
    routed = _verdicts(RoutedCareful)
    assert routed == plain
    assert list(plain.values()).count("pass") > 60


def test_undeclared_the_side_requests_take_the_scenarios_replies() -> None:
    class Undeclared(RoutedCareful):
        harness_side_requests = None

    outcome = run_scenario(load_scenario(LIBRARY / "http" / "overloaded_then_success.yaml"), agent=Undeclared)
    assert outcome.not_applicable is not None
    assert "request 3 starts a conversation of its own" in outcome.not_applicable  # the router's third attempt
    assert "`harness_side_requests`" in outcome.not_applicable
    declared = run_scenario(load_scenario(LIBRARY / "http" / "overloaded_then_success.yaml"), agent=RoutedCareful)
    assert declared.passed and declared.not_applicable is None, format_timeline(declared)


def test_a_side_request_is_shown_in_the_timeline_and_checked_by_the_oracle() -> None:
    class CarelessRouter(RoutedCareful):
        """Its title request asks for a temperature the API refuses: the API's own 400."""

        def run_turn(self, text: str) -> TurnOutcome:
            try:
                self.client.messages.create(model="claude-haiku-4-5", max_tokens=32, system="Write a short title.",
                                            messages=[{"role": "user", "content": text}], extra_body={"temperature": 3})
            except anthropic.BadRequestError:
                pass
            return CarefulAgent.run_turn(self, text)

    outcome = run_scenario(load_scenario(LIBRARY / "http" / "overloaded_then_success.yaml"), agent=CarelessRouter)
    assert not outcome.passed
    assert any("temperature: Input should be less than or equal to 1" in str(p) for p in outcome.problems), outcome.problems
    timeline = format_timeline(outcome)
    assert "side request 1 (harness_side_requests[1])" in timeline


def test_a_side_reply_that_cannot_answer_its_request_is_the_declarations_mistake() -> None:
    class TextForAForcedTool(RoutedCareful):
        harness_side_requests = [{"when": {"tool_choice": "route"}, "reply": {"text": "work"}}]

        def run_turn(self, text: str) -> TurnOutcome:
            self.client.messages.create(
                model="claude-haiku-4-5", max_tokens=64, tools=[ROUTE], tool_choice={"type": "tool", "name": "route"},
                messages=[{"role": "user", "content": text}])
            return CarefulAgent.run_turn(self, text)

    outcome = run_scenario(load_scenario(LIBRARY / "http" / "overloaded_then_success.yaml"), agent=TextForAForcedTool)
    mistakes = [str(p) for p in outcome.problems if p.kind is Kind.FILE_MISTAKE]
    assert mistakes and mistakes[0].startswith("harness_side_requests[0]: its reply cannot answer request 1"), mistakes

    class ReadByItsStandardName(RoutedCareful):
        harness_side_requests = [{"when": {"model": "claude-haiku-4-5"}, "reply": {"tool_use": {"name": "Read", "input": {
            "file_path": "README.md"}}}}]

        def run_turn(self, text: str) -> TurnOutcome:
            self.client.messages.create(model="claude-haiku-4-5", max_tokens=64, tools=[ROUTE],
                                        messages=[{"role": "user", "content": text}])
            return CarefulAgent.run_turn(self, text)

    outcome = run_scenario(load_scenario(LIBRARY / "http" / "overloaded_then_success.yaml"), agent=ReadByItsStandardName)
    mistakes = [str(p) for p in outcome.problems if p.kind is Kind.FILE_MISTAKE]
    assert any("calls the agent's tools by the names its request declares" in m for m in mistakes), mistakes


@pytest.mark.parametrize(("declared", "message"), [
    ({"when": {"model": "x"}}, "must be a list"),
    ([{"when": {"sytem": "x"}}], "unknown key 'sytem' in when `harness_side_requests[0].when` (did you mean 'system'?)"),
    ([{"when": {}}], "`when` needs at least one of: model, system, last_message, tool_choice"),
    ([{"reply": {"text": "x"}}], "missing the required key `when`"),
    ([{"when": {"model": "x"}, "reply": {"txt": "x"}}], "unknown key 'txt' in reply"),
])
def test_a_broken_declaration_is_named_with_the_valid_choices(declared: Any, message: str) -> None:
    with pytest.raises(SideRequestsError, match=re.escape(message)):
        side_rules(declared)


def test_a_side_requests_file_names_its_line(tmp_path: Path) -> None:
    path = tmp_path / "side.yaml"
    path.write_text("- when: {system: Write a title}\n  reply: {text: A title}\n- when: {modle: claude-haiku-4-5}\n")
    with pytest.raises(SideRequestsError, match=re.escape(f"{path}:3:10: unknown key 'modle'")):
        load_side_rules(path)
    path.write_text("- when: {system: Write a title}\n  reply: {text: A title}\n- when: {last_message: Summarize}\n")
    rules = load_side_rules(path)
    assert [r.when for r in rules] == [{"system": "Write a title"}, {"last_message": "Summarize"}]
    assert rules[1].where == f"{path}:3"


def test_a_side_request_retried_sooner_than_asked_is_a_problem() -> None:
    class Impatient(RoutedCareful):
        """Its title request is retried at once after a 529 that asked for 5 s."""

        harness_side_requests = [{"when": {"system": "Write a short title"},
                                  "reply": {"error": "overloaded", "headers": {"retry-after": "5"}}}]

        def run_turn(self, text: str) -> TurnOutcome:
            bare = self.client.with_options(max_retries=0)
            for _ in range(2):
                try:
                    bare.messages.create(model="claude-haiku-4-5", max_tokens=32, system="Write a short title.",
                                         messages=[{"role": "user", "content": text}])
                except anthropic.APIStatusError:
                    pass
            return CarefulAgent.run_turn(self, text)

    outcome = run_scenario(load_scenario(LIBRARY / "http" / "overloaded_then_success.yaml"), agent=Impatient)
    early = [str(p) for p in outcome.problems if "side request 1 (harness_side_requests[0])" in str(p)]
    assert early and "retry-after" in early[0], outcome.problems


# -- on a socket: harness serve --side-requests ------------------------------------------------

TWO_TURNS = """\
name: two-turns
about: A tool call and an answer, then an answer.
workspace: {notes.txt: "Pick up bread.\\n"}
turns:
  - user: What do my notes say?
    replies:
      - tool_use: {name: Read, input: {file_path: notes.txt}}
      - text: Pick up bread.
    expect: {requests: 2, tools: [Read], end: end_turn}
  - user: Thanks.
    replies:
      - text: You are welcome.
    expect: {requests: 1, end: end_turn}
"""


def _routed_client(base_url: str, *, router_fails: bool = False) -> None:
    """A client in the shape of any language's: a router before each line, then the line;
    ``router_fails``: the router is overloaded every time, and the default route taken."""
    client = anthropic.Anthropic(base_url=base_url, api_key="test", max_retries=0)
    history: list[dict[str, Any]] = []
    for line in ("What do my notes say?", "Thanks."):
        with pytest.raises(anthropic.InternalServerError) if router_fails else contextlib.nullcontext():
            client.messages.create(model="claude-haiku-4-5", max_tokens=64, tools=[ROUTE],
                                   tool_choice={"type": "tool", "name": "route"}, messages=[{"role": "user", "content": line}])
        history.append({"role": "user", "content": line})
        while True:
            message = client.messages.create(model="claude-sonnet-4-5", max_tokens=256, tools=[READ], messages=history)
            history.append({"role": "assistant", "content": [b.model_dump(exclude_none=True) for b in message.content]})
            calls = [b for b in message.content if b.type == "tool_use"]
            if not calls:
                break
            history.append({"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": c.id, "content": "Pick up bread."} for c in calls]})


def _served(tmp_path: Path, rules: tuple, *, router_fails: bool = False) -> Any:
    (tmp_path / "two.yaml").write_text(TWO_TURNS)
    scenario = load_scenario(tmp_path / "two.yaml")
    server = build_server(scenario, host="127.0.0.1", port=0, time_scale=0, log=None, log_path=None, side_rules=rules)
    with server:
        try:
            _routed_client(server.url, router_fails=router_fails)
        except anthropic.APIError:  # undeclared, the router takes the main conversation's replies
            if router_fails:
                raise
    return check_served(scenario, server), server


def test_harness_serve_answers_the_side_requests_a_file_names_and_checks_the_turns_without_them(tmp_path: Path) -> None:
    (tmp_path / "side.yaml").write_text("- when: {tool_choice: route}\n  reply: {tool_use: {name: route, input: {to: work}}}\n")
    report, server = _served(tmp_path, load_side_rules(tmp_path / "side.yaml"))
    assert report.problems == [], report.problems
    sides = [entry.to_json()["side"] for entry in server.entries]
    assert sides == [f"{tmp_path / 'side.yaml'}:1", None, None, f"{tmp_path / 'side.yaml'}:1", None]

    undeclared, _ = _served(tmp_path, ())
    assert undeclared.problems or any("not applicable" in line for line in undeclared.lines)


def test_harness_serve_names_the_line_of_a_broken_side_requests_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "side.yaml").write_text("- when: {system: Write a title}\n- when: {modle: claude-haiku-4-5}\n")
    assert main(["serve", str(LIBRARY / "http" / "overloaded_then_success.yaml"), "--port", "0",
                 "--side-requests", str(tmp_path / "side.yaml")]) == 2
    err = capsys.readouterr().err
    assert f"{tmp_path / 'side.yaml'}:2:10: unknown key 'modle'" in err and "valid keys: model, system" in err
    assert "Traceback" not in err


def test_the_report_marks_the_side_requests_in_the_turn_they_were_made() -> None:
    path = LIBRARY / "http" / "overloaded_then_success.yaml"
    record = scenario_record(path, run_scenario(load_scenario(path), agent=RoutedCareful), [], 1.0)
    sides = {c["number"]: (c["turn"], c["side"]) for c in record["calls"] if c["side"]}
    assert sides == {1: (1, "harness_side_requests[0]"), 6: (1, "harness_side_requests[1]"), 7: (2, "harness_side_requests[0]")}
    picture = timeline_svg(record)
    assert "#1 side → 200" in picture and "(a side request: harness_side_requests[1])" in picture


def test_two_rules_read_the_same_line_without_one_being_the_others_retry() -> None:
    class TitleFromTheLine(RoutedCareful):
        """Its router is overloaded (retry-after 30 s) and given up on at once; the title,
        made from the same user line, follows at once: another side request, no retry."""

        harness_side_requests = [
            {"when": {"tool_choice": "route"}, "reply": {"error": "overloaded", "headers": {"retry-after": "30"}}},
            {"when": {"system": "Write a short title"}, "reply": {"text": "A title"}},
        ]

        def __init__(self, ctx: AgentContext) -> None:
            super().__init__(ctx)
            self.side_client = ctx.client.with_options(max_retries=0)

    outcome = run_scenario(load_scenario(LIBRARY / "http" / "overloaded_then_success.yaml"), agent=TitleFromTheLine)
    assert outcome.passed, [str(p) for p in outcome.problems]
    router, title = outcome.requests[0], outcome.turns[0].side_requests[-1]
    assert router.body["messages"] == title.body["messages"] and title.side == "harness_side_requests[1]"


def test_a_side_request_after_ctrl_c_in_the_same_turn_is_a_problem() -> None:
    class TitlesAnyway(RoutedCareful):
        def run_turn(self, text: str) -> TurnOutcome:
            outcome = CarefulAgent.run_turn(self, text)
            self.side_client.messages.create(model="claude-haiku-4-5", max_tokens=32, system="Write a short title.",
                                             messages=[{"role": "user", "content": text}])
            return outcome

    scenario = load_scenario(LIBRARY / "interrupts" / "ctrl_c_while_streaming.yaml")
    outcome = run_scenario(scenario, agent=TitlesAnyway)
    assert [str(p) for p in outcome.problems if "Ctrl+C" in str(p)] == [
        "turn 1: side request 2 (harness_side_requests[1]) was sent after Ctrl+C on request 1"]
    assert run_scenario(scenario, agent=RoutedCareful).passed  # it titles no interrupted turn


def test_an_undeclared_side_request_that_makes_a_turn_overrun_is_named() -> None:
    class RouterOnly(RoutedCareful):
        harness_side_requests = SIDE[:1]

    outcome = run_scenario(load_scenario(LIBRARY / "http" / "overloaded_then_success.yaml"), agent=RouterOnly)
    overrun = [str(p) for p in outcome.problems if "replies" in str(p) and "but turn" in str(p)]
    assert overrun and "open different conversations" in overrun[0] and "`harness_side_requests`" in overrun[0], overrun


def test_harness_serve_judges_a_failed_side_request_apart_from_the_conversation(tmp_path: Path) -> None:
    (tmp_path / "side.yaml").write_text("- when: {tool_choice: route}\n"
                                        "  reply: {error: overloaded, headers: {retry-after: '30'}}\n")
    report, _ = _served(tmp_path, load_side_rules(tmp_path / "side.yaml"), router_fails=True)
    assert report.problems == [], report.problems
    assert [line.split(" · ")[-1] for line in report.lines if "#1 " in line or "#4 " in line] == [
        f"side request ({tmp_path / 'side.yaml'}:1)", f"side request ({tmp_path / 'side.yaml'}:1)"]


def test_a_rules_replies_are_served_in_turn_and_the_last_one_again() -> None:
    class RouterOverloadedOnce(RoutedCareful):
        harness_side_requests = [
            {"when": {"tool_choice": "route"}, "replies": [
                {"error": "overloaded", "headers": {"retry-after": "1"}},
                {"tool_use": {"name": "route", "input": {"to": "work"}}}]},
            SIDE[1],
        ]

    outcome = run_scenario(load_scenario(LIBRARY / "http" / "overloaded_then_success.yaml"), agent=RouterOverloadedOnce)
    assert outcome.passed, [str(p) for p in outcome.problems]
    routed = [r for r in outcome.requests if r.side == "harness_side_requests[0]"]
    assert [r.plan.status for r in routed] == [529, 200, 200]  # the probe turn's router: the last reply again
    with pytest.raises(SideRequestsError, match="a side request has `reply` or `replies`, not both"):
        side_rules([{"when": {"model": "m"}, "reply": {"text": "a"}, "replies": [{"text": "b"}]}])


def test_the_timeline_dates_a_turn_from_its_first_request_and_a_raise_from_its_last_moment() -> None:
    class RaisesAfterWaiting(RoutedCareful):
        def run_turn(self, text: str) -> TurnOutcome:
            super().run_turn(text)
            raise RuntimeError("done badly")

    outcome = run_scenario(load_scenario(LIBRARY / "http" / "overloaded_then_success.yaml"), agent=RaisesAfterWaiting)
    times = [float(line.split("t=")[1].split("s ")[0]) for line in format_timeline(outcome).splitlines() if "t=" in line]
    assert times == sorted(times), format_timeline(outcome)


def test_the_session_machine_says_when_a_failing_turn_holds_an_undeclared_side_request(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from harness.library.properties import test_session_machine as machine
    from harness.strategies.schedules import Schedule

    monkeypatch.setenv("HARNESS_FOUND_DIR", str(tmp_path))
    monkeypatch.setattr(machine, "AGENT", f"{__name__}:Routes")
    monkeypatch.setattr(machine, "AGENT_EVENTS", False)
    session = machine.AgentSession()
    try:
        with pytest.raises(AssertionError, match="note: requests 1 and 2 open different conversations: if one is a side request"):
            session.user_line_under_faults(user="Hello", schedule=Schedule(
                replies=(Reply(message={"text": "Hi."}),), requests=1, end="end_turn", budget=0.0, answers=(1,), needs=()))
    finally:
        session.teardown()


def test_a_side_reply_that_cannot_be_served_names_its_rule() -> None:
    class CutBeyond(RoutedCareful):
        """Its title streams; the title's reply is cut after an event it does not have."""

        harness_side_requests = [SIDE[0], {"when": {"system": "Write a short title"}, "reply": {"text": "A title", "cut": 99}}]

        def run_turn(self, text: str) -> TurnOutcome:
            outcome = CarefulAgent.run_turn(self, text)
            try:
                for _ in self.client.messages.create(model="claude-haiku-4-5", max_tokens=32, stream=True,
                                                     system="Write a short title.", messages=[{"role": "user", "content": text}]):
                    pass
            except anthropic.APIError:
                pass
            return outcome

    outcome = run_scenario(load_scenario(LIBRARY / "http" / "overloaded_then_success.yaml"), agent=CutBeyond)
    unservable = [str(p) for p in outcome.problems if "cannot be served" in str(p)]
    assert unservable and unservable[0].startswith("the reply of harness_side_requests[1] cannot be served"), outcome.problems


class Merges:
    """Keeps a line whose turn got no answer, and adds the next line to that same user
    message (the API merges consecutive user messages anyway)."""

    def __init__(self, ctx: AgentContext) -> None:
        self.client, self.history = ctx.client.with_options(max_retries=0), []

    def run_turn(self, text: str) -> None:
        if self.history and self.history[-1]["role"] == "user":
            self.history[-1]["content"] += "\n\n" + text
        else:
            self.history.append({"role": "user", "content": text})
        try:
            message = self.client.messages.create(model="claude-sonnet-4-5", max_tokens=256, messages=self.history, tools=[READ])
        except anthropic.APIStatusError:
            return
        self.history.append({"role": "assistant", "content": [b.model_dump() for b in message.content]})


def test_user_lines_merged_into_one_message_are_not_taken_for_another_conversation(tmp_path: Path) -> None:
    path = tmp_path / "merged.yaml"
    path.write_text("name: merged\nabout: a 401, then a Write the agent lacks\nturns:\n"
                    "  - user: one\n    replies:\n      - error: authentication\n"
                    "  - user: two\n    replies:\n      - tool_use: {name: Write, input: {file_path: a.txt, content: x}}\n"
                    "      - text: Done.\n", encoding="utf-8")
    outcome = run_scenario(load_scenario(path), agent=Merges)
    assert outcome.not_applicable is not None and "no tool that writes a file" in outcome.not_applicable
    assert "conversation of its own" not in outcome.not_applicable, outcome.not_applicable
