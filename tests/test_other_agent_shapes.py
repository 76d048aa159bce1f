"""Correct agents of shapes the library first met as false alarms: the API's own text editor
and bash tools (one tool for Read and Write, told apart by `command`), an agent that asks
the model to go on after max_tokens, one that names its end by the API's stop reason, one
that forces a tool call, one without a server tool meeting a pause, and a shell that reads
its commands from its input. Each passes, or is not applicable with the reason; the
broken variants still fail."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any, Iterator

import pytest

from harness.agents.context import AgentContext
from harness.agents.events import TurnEnd
from harness.scenario.fake_api.tool_map import ToolMap, ToolMapError
from harness.scenario.format.loader import load_scenario
from harness.scenario.run.runner import run_scenario
from harness.wire.replies import Reply

ROOT = Path(__file__).resolve().parent.parent
LIBRARY = ROOT / "harness" / "library" / "scenarios"
EDITOR = {"type": "text_editor_20250728", "name": "str_replace_based_edit_tool"}
BASH = {"type": "bash_20250124", "name": "bash"}
EDITOR_MAP = {
    "Read": {"name": "str_replace_based_edit_tool", "input": {"file_path": "path", "offset": None, "limit": None},
             "with": {"command": "view"}},
    "Write": {"name": "str_replace_based_edit_tool", "input": {"file_path": "path", "content": "file_text"},
              "with": {"command": "create"}},
    "Bash": {"name": "bash", "input": {"timeout": None}},
}


class Editor:
    """The API's text editor and bash tools; a shell that reads each command from its input.
    ``continues``: asks the model to go on after max_tokens; ``choice``: its tool_choice."""

    tool_map = EDITOR_MAP
    harness_policies = ("flags_tool_errors",)

    def __init__(self, ctx: AgentContext, *, continues: bool = False, choice: dict | None = None,
                 tools: tuple[dict, ...] = (EDITOR, BASH), resumes: bool = True) -> None:
        self.client, self.root = ctx.client.with_options(max_retries=0), ctx.workspace
        self.continues, self.choice, self.tools, self.resumes = continues, choice, list(tools), resumes
        self.history: list[dict[str, Any]] = []
        if continues:
            self.harness_policies = ("flags_tool_errors", "continues_after_max_tokens")

    def run_turn(self, text: str) -> Iterator[Any]:
        self.history.append({"role": "user", "content": text})
        while True:
            options = {"tool_choice": self.choice} if self.choice else {}
            message = self.client.messages.create(model="claude-sonnet-4-5", max_tokens=1024, tools=self.tools,
                                                  messages=self.history, **options)
            content = [b.model_dump(exclude_none=True, warnings=False) for b in message.content]
            for block in content:  # input that is no object is told to the model, never sent back
                if block["type"] == "tool_use" and not isinstance(block.get("input"), dict):
                    block["input"] = {}
            if content and content[-1]["type"] == "text":
                content[-1]["text"] = content[-1]["text"].rstrip()
            self.history.append({"role": "assistant", "content": [b for b in content if b.get("text", "x")]})
            calls = [b for b in message.content if b.type == "tool_use"]
            if message.stop_reason == "pause_turn" and self.resumes:  # the paused answer goes back as it is
                continue
            if message.stop_reason == "max_tokens" and self.continues and not calls:
                self.history.append({"role": "user", "content": "Please continue."})
                continue
            if message.stop_reason != "tool_use":
                yield TurnEnd(message.stop_reason or "end_turn")
                return
            self.choice = None
            self.history.append({"role": "user", "content": [self.use(call) for call in calls]})

    def use(self, call: Any) -> dict[str, Any]:
        args, output, failed = call.input, "", False
        if not isinstance(args, dict) or ("path" not in args and call.name != "bash"):
            output, failed = f"{call.name} needs an object input with a path, got {args!r}", True
        elif call.name == "bash":  # a shell reads the command from its input, as the bash tool's docs run one
            run = subprocess.run(["bash"], input=args["command"].encode(), cwd=self.root, capture_output=True)
            output, failed = (run.stdout + run.stderr).decode(errors="replace"), run.returncode != 0
        elif args.get("command") == "view" and (self.root / args["path"]).is_dir():  # a folder is listed, as the tool does
            output = "\n".join(sorted(p.name for p in (self.root / args["path"]).iterdir()))
        elif args.get("command") == "view" and (self.root / args["path"]).is_file():
            output = (self.root / args["path"]).read_text()
        elif args.get("command") == "create":
            (self.root / args["path"]).parent.mkdir(parents=True, exist_ok=True)
            (self.root / args["path"]).write_text(args["file_text"])
            output = f"created {args['path']}"
        else:
            output, failed = f"cannot {args.get('command')} {args.get('path')}", True
        return {"type": "tool_result", "tool_use_id": call.id, "content": output or "(no output)", "is_error": failed}


def run(name: str, **agent: Any) -> Any:
    return run_scenario(load_scenario(LIBRARY / name), agent=lambda ctx: Editor(ctx, **agent))


@pytest.mark.parametrize("name", ["tools/write_creates_file.yaml", "http/overloaded_then_success.yaml",
                                  "tools/unknown_tool.yaml", "tools/bash_raises_value_error.yaml", "tools/tool_raises.yaml",
                                  "tools/non_object_input.yaml", "stream/tool_json_truncated.yaml"])
def test_one_tool_for_read_and_write_is_told_apart_by_its_command(name: str) -> None:
    outcome = run(name)
    assert outcome.not_applicable is None and outcome.passed, [str(p) for p in outcome.problems]


def test_two_standard_tools_under_one_name_need_arguments_that_tell_them_apart() -> None:
    with pytest.raises(ToolMapError, match="Read and Write are both the agent's 'edit'.*`with`"):
        ToolMap({"Read": {"name": "edit", "with": {"command": "view"}}, "Write": {"name": "edit"}})
    both = ToolMap(EDITOR_MAP)
    assert both.standard_name("str_replace_based_edit_tool", {"command": "create", "path": "a"}) == "Write"
    assert both.standard_name("str_replace_based_edit_tool", {"command": "str_replace"}) == "str_replace_based_edit_tool"
    assert both.standard_name("bash", {}) == "Bash"


def test_an_agent_that_asks_the_model_to_go_on_after_max_tokens_passes_and_one_that_stops_is_noted() -> None:
    going_on = run("stop_reasons/max_tokens_text.yaml", continues=True)
    assert going_on.passed, [str(p) for p in going_on.problems]
    assert [len(t.requests) for t in going_on.turns][:2] == [2, 1]
    stopping = run("stop_reasons/max_tokens_text.yaml")
    assert stopping.passed and any("cut by max_tokens" in note for note in stopping.notes)
    declared_but_stops = run_scenario(load_scenario(LIBRARY / "stop_reasons/max_tokens_text.yaml"),
                                      agent=lambda ctx: _Declares(ctx))
    assert not declared_but_stops.passed


class _Declares(Editor):
    """Declares it goes on after max_tokens, and does not."""

    harness_policies = ("continues_after_max_tokens",)


def test_an_end_named_by_the_apis_stop_reason_is_the_scenarios_end() -> None:
    outcome = run("stop_reasons/context_window_exceeded.yaml")
    assert outcome.passed, [str(p) for p in outcome.problems]
    assert outcome.turns[0].end == "model_context_window_exceeded"


def test_a_forced_tool_call_answered_with_text_is_not_applicable() -> None:
    outcome = run("stream/cut_after_event.yaml", choice={"type": "any"})
    assert outcome.not_applicable is not None and "tool_choice any" in outcome.not_applicable
    named = run("tools/write_creates_file.yaml", choice={"type": "tool", "name": "bash"})
    assert named.not_applicable is not None and "forces a call of bash" in named.not_applicable
    met = run("tools/write_creates_file.yaml", choice={"type": "any"})
    assert met.not_applicable is None and met.passed, [str(p) for p in met.problems]


def test_a_pause_comes_only_to_an_agent_with_a_server_tool() -> None:
    without = run("stop_reasons/pause_turn.yaml")
    assert without.not_applicable is not None and "server tool" in without.not_applicable
    search = {"type": "web_search_20250305", "name": "web_search"}
    with_search = run("stop_reasons/pause_turn.yaml", tools=(EDITOR, BASH, search))
    assert with_search.not_applicable is None and with_search.passed, [str(p) for p in with_search.problems]
    ends_at_the_pause = run("stop_reasons/pause_turn.yaml", tools=(EDITOR, BASH, search), resumes=False)
    assert not ends_at_the_pause.passed


def test_a_tool_map_file_that_cannot_tell_two_tools_apart_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "map.yaml").write_text("Read: {name: edit, with: {command: view}}\nWrite: {name: edit}\n")
    run = subprocess.run([sys.executable, "-m", "harness", "serve", str(LIBRARY / "http/overloaded_then_success.yaml"),
                          "--tool-map", str(tmp_path / "map.yaml"), "--port", "0"], capture_output=True, text=True,
                         timeout=60, cwd=ROOT)
    assert run.returncode == 2 and "Traceback" not in run.stderr
    assert "map.yaml: tool_map: Read and Write are both the agent's 'edit'" in run.stderr


EMPTY_ANSWER = """\
name: empty-answer
about: The model answers with nothing; an agent may ask it to go on (the stop-reason docs' last resort).
turns:
  - user: Summarize it
    replies:
      - text: ""
      - text: It is a demo.
"""


class GoesOnAfterEmpty(Editor):
    """Asks the model to go on once after an empty answer, as pydantic-ai does."""

    harness_policies = ("continues_after_empty_answer",)

    def __init__(self, ctx: AgentContext, *, goes_on: bool = True) -> None:
        super().__init__(ctx)
        self.goes_on = goes_on

    def run_turn(self, text: str) -> Iterator[Any]:
        self.history.append({"role": "user", "content": text})
        blocks = self.ask()
        if not blocks and self.goes_on:
            self.history.append({"role": "user", "content": "Please return text or call a tool."})
            blocks = self.ask()
        self.history.append({"role": "assistant", "content": blocks or "(nothing)"})
        yield TurnEnd("end_turn")

    def ask(self) -> list[dict[str, Any]]:
        """The answer's blocks, without blank text."""
        message = self.client.messages.create(model="claude-sonnet-4-5", max_tokens=64, messages=self.history)
        return [b.model_dump(exclude_none=True) for b in message.content if b.type != "text" or b.text.strip()]


def test_going_on_after_an_empty_answer_is_a_policy(tmp_path: Path) -> None:
    (tmp_path / "empty.yaml").write_text(EMPTY_ANSWER)
    scenario = load_scenario(tmp_path / "empty.yaml")
    goes_on = run_scenario(scenario, agent=GoesOnAfterEmpty)
    assert goes_on.passed, [str(p) for p in goes_on.problems]
    stops = run_scenario(scenario, agent=lambda ctx: _Stops(ctx))
    assert stops.passed and any("empty answer" in note for note in stops.notes), stops.notes
    declared_but_stops = run_scenario(scenario, agent=lambda ctx: GoesOnAfterEmpty(ctx, goes_on=False))
    assert not declared_but_stops.passed


class _Stops(GoesOnAfterEmpty):
    harness_policies = ()

    def __init__(self, ctx: AgentContext) -> None:
        super().__init__(ctx, goes_on=False)


def test_a_drawn_turn_that_ends_on_an_empty_or_cut_answer_holds_the_continuation() -> None:
    from harness.strategies.schedules import CONTINUATION, continued, empty_answer
    assert empty_answer({"text": " \n"}) and empty_answer({}) and not empty_answer({"text": "Done."})
    assert not empty_answer({"tool_use": [{"name": "Read", "input": {}}]})
    assert CONTINUATION.message and CONTINUATION.message["text"].strip()
    for goes_on in ({"text": ""}, {"text": "", "stop_reason": "stop_sequence"}, {"text": "The first", "stop_reason": "max_tokens"}):
        assert continued(Reply(message=goes_on)) == (Reply(message=goes_on), CONTINUATION)
    for ends in ({"text": "Done."}, {"text": "No.", "stop_reason": "refusal"}):
        assert continued(Reply(message=ends)) == (Reply(message=ends),)


def test_a_call_renamed_for_the_agent_is_no_raw_tool_input_json_in_the_coverage() -> None:
    from examples import careful_agent
    from harness.scenario.run.hits import fault_hits

    plain = run_scenario(load_scenario(LIBRARY / "tools" / "write_creates_file.yaml"), agent=careful_agent.make_agent)
    assert plain.passed and ("raw tool-input JSON", "mid tool input") not in fault_hits(plain)
    raw = run_scenario(load_scenario(LIBRARY / "stream" / "tool_json_unparseable.yaml"), agent=careful_agent.make_agent)
    assert ("raw tool-input JSON", "mid tool input") in fault_hits(raw)
