"""The scenario loader: every mistake is one ``path:line:col: message`` line that names
the valid choices; a good file becomes Reply objects; the JSON Schema agrees with the
loader; a reply list that does not fit the agent fails the scenario with a message."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from harness.scenario.format.library import scenario_files
from harness.scenario.format.loader import load_scenario, problems_in
from harness.scenario.format.model import Interrupt, ScenarioError
from harness.scenario.format.problem import Kind
from harness.scenario.format.schema import json_schema
from harness.scenario.run.runner import run_scenario
from harness.scenario.run.timeline import format_timeline
from harness.wire.faults import Cut, Drip, ErrorEvent, Insert, Stall
from harness.wire.faults.insert import InsertedEvent

LIBRARY = Path(__file__).resolve().parents[1] / "scenarios"
HEAD = "name: broken\nabout: a scenario with one mistake\n"


def write(tmp_path: Path, text: str, name: str = "scenario.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def only_problem(path: Path) -> str:
    """The one problem the loader reports for ``path``, as printed."""
    with pytest.raises(ScenarioError) as caught:
        load_scenario(path)
    [problem] = caught.value.problems
    assert problem.kind is Kind.FILE_MISTAKE and problem.file == str(path), problem
    assert str(caught.value) == str(problem)
    return str(problem)


def mistakes(path: Path) -> list[str]:
    """Every mistake the loader reports for ``path``, as printed."""
    return [str(problem) for problem in problems_in(path)]


def listed_after(message: str, label: str) -> set[str]:
    """The comma-separated choices that follow ``label`` in a message."""
    assert label in message, message
    return {c.strip() for c in message.split(label, 1)[1].split(",")}


# --- files that are not scenarios at all ---------------------------------------------


def test_text_that_is_not_yaml_is_reported_where_the_parser_stopped(tmp_path):
    path = write(tmp_path, "name: x\nabout: [unclosed\n")
    assert only_problem(path) == (
        f"{path}:3:1: not valid YAML: the '[' opened on line 2, column 8 is not closed before this point: "
        "a missing ']' or ',' (the parser says: expected ',' or ']', but got '<stream end>')"
    )


def test_a_tab_in_the_indentation_is_reported_at_the_tab(tmp_path):
    path = write(tmp_path, "name: x\n\tabout: y\n")
    assert only_problem(path) == (
        f"{path}:2:1: not valid YAML: a tab character; YAML indents with spaces only "
        "(the parser says: found character '\\t' that cannot start any token)"
    )


def test_a_key_written_twice_is_reported_at_the_second_one(tmp_path):
    path = write(tmp_path, "name: a\nabout: b\nname: c\nturns: [{user: hi}]\n")
    assert only_problem(path) == f"{path}:3:1: the key 'name' appears twice in this mapping (first on line 1)"


def test_a_key_written_twice_inside_a_reply_is_reported_too(tmp_path):
    path = write(tmp_path, HEAD + "turns:\n  - user: hi\n    replies:\n      - text: a\n        text: b\n")
    assert only_problem(path).startswith(f"{path}:7:9: the key 'text' appears twice")


@pytest.mark.parametrize(
    ("text", "shown"),
    [("- name: a\n- about: b\n", "a list"), ("just words\n", "'just words'"), ("", "nothing (null)")],
    ids=["list", "scalar", "empty"],
)
def test_a_file_that_is_not_a_mapping_says_what_a_scenario_needs(tmp_path, text, shown):
    path = write(tmp_path, text)
    assert only_problem(path) == (
        f"{path}:1:1: the file must be a scenario (a mapping with name, about, turns), got {shown}"
    )


def test_an_unreadable_path_is_a_scenario_error_not_a_crash(tmp_path):
    missing = tmp_path / "nowhere.yaml"
    with pytest.raises(ScenarioError) as caught:
        load_scenario(missing)
    assert str(caught.value.problems[0]).startswith(f"{missing}:1:1: cannot read it:")


# --- unknown names ---------------------------------------------------------------------


def test_a_misspelt_fault_key_suggests_the_right_one_and_lists_every_key(tmp_path):
    path = write(tmp_path, HEAD + "turns:\n  - user: hi\n    replies:\n      - eror: overloaded\n")
    problem = only_problem(path)
    assert problem.startswith(
        f"{path}:6:9: unknown key 'eror' in reply `turns[0].replies[0]` (did you mean 'error'?); valid keys: "
    )
    assert {"error", "connection", "events", "text", "tool_use", "cut", "headers", "stall"} <= listed_after(
        problem, "valid keys: "
    )


def test_an_unknown_key_at_the_top_names_the_scenario_and_its_keys(tmp_path):
    path = write(tmp_path, HEAD + "turn:\n  - user: hi\n")
    problems = mistakes(path)
    assert problems[0].startswith(f"{path}:3:1: unknown key 'turn' in the scenario (did you mean 'turns'?); valid keys: ")
    assert {"name", "about", "settings", "workspace", "turns", "expect", "probe"} <= listed_after(problems[0], "valid keys: ")
    assert problems[1] == f"{path}:1:1: the scenario is missing the required key `turns`"


def test_a_misspelt_error_name_suggests_the_right_one_and_lists_every_name(tmp_path):
    path = write(tmp_path, HEAD + "turns:\n  - user: hi\n    replies:\n      - error: overlaoded\n")
    problem = only_problem(path)
    assert problem.startswith(
        f"{path}:6:16: `turns[0].replies[0].error` cannot be 'overlaoded' (did you mean 'overloaded'?); valid choices: "
    )
    assert {"overloaded", "rate_limit", "api_error", "invalid_request", "authentication"} <= listed_after(
        problem, "valid choices: "
    )


def test_an_unknown_connection_fault_lists_the_connection_faults(tmp_path):
    path = write(tmp_path, HEAD + "turns:\n  - user: hi\n    replies:\n      - connection: hangup\n")
    problem = only_problem(path)
    assert problem == (
        f"{path}:6:21: `turns[0].replies[0].connection` cannot be 'hangup'; "
        "valid choices: refused, connect_timeout, read_timeout, empty, garbage"
    )


def test_a_close_miss_of_a_connection_fault_is_suggested(tmp_path):
    path = write(tmp_path, HEAD + "turns:\n  - user: hi\n    replies:\n      - connection: refused_now\n")
    assert "(did you mean 'refused'?)" in only_problem(path)


def test_an_unknown_cut_style_lists_fin_and_rst(tmp_path):
    path = write(
        tmp_path, HEAD + "turns:\n  - user: hi\n    replies:\n      - text: hi\n        cut: {after_event: 2, how: rest}\n"
    )
    assert only_problem(path) == (
        f"{path}:7:36: `turns[0].replies[0].cut.how` cannot be 'rest' (did you mean 'rst'?); valid choices: fin, rst"
    )


def test_an_unknown_end_reason_lists_the_end_reasons(tmp_path):
    path = write(tmp_path, HEAD + "turns:\n  - user: hi\n    expect: {end: end-turn}\n")
    problem = only_problem(path)
    assert problem.startswith(f"{path}:5:19: `turns[0].expect.end` cannot be 'end-turn' (did you mean 'end_turn'?)")
    assert {"end_turn", "error", "interrupted", "refusal"} <= listed_after(problem, "valid choices: ")


# --- wrong types and missing fields ------------------------------------------------------


def test_a_word_where_a_number_belongs_is_reported_at_the_value(tmp_path):
    path = write(tmp_path, HEAD + "settings:\n  max_retries: five\nturns:\n  - user: hi\n")
    assert only_problem(path) == f"{path}:4:16: `settings.max_retries` must be an integer from 0 to 1,000, got 'five'"


def test_yes_is_not_a_name(tmp_path):
    path = write(tmp_path, "name: yes\nabout: b\nturns:\n  - user: hi\n")
    assert only_problem(path) == (
        f"{path}:1:7: `name` must be a string, got True"
        " (YAML reads an unquoted yes, no, on, off, true or false as a boolean: quote it)"
    )


def test_a_cut_that_is_neither_a_number_nor_a_mapping_names_both_forms(tmp_path):
    path = write(tmp_path, HEAD + "turns:\n  - user: hi\n    replies:\n      - text: hi\n        cut: five\n")
    assert only_problem(path) == (
        f"{path}:7:14: `turns[0].replies[0].cut` must be an integer at least 0 or a cut"
        " (a mapping with after_event, in_event, after_bytes, in_char, how), got 'five'"
    )


def test_a_turn_without_user_is_reported_at_the_turn(tmp_path):
    path = write(tmp_path, HEAD + "turns:\n  - replies:\n      - text: hi\n")
    assert only_problem(path) == f"{path}:4:5: turn `turns[0]` is missing the required key `user`"


def test_a_file_without_name_about_and_turns_reports_each_at_the_top(tmp_path):
    path = write(tmp_path, "settings: {max_retries: 2}\n")
    assert mistakes(path) == [
        f"{path}:1:1: the scenario is missing the required key `name`",
        f"{path}:1:1: the scenario is missing the required key `about`",
        f"{path}:1:1: the scenario is missing the required key `turns`",
    ]


def test_an_empty_turns_list_needs_one_turn(tmp_path):
    path = write(tmp_path, HEAD + "turns: []\n")
    assert only_problem(path) == f"{path}:3:8: `turns` needs at least 1 item(s)"


def test_an_empty_reply_item_is_reported_at_the_dash(tmp_path):
    path = write(tmp_path, HEAD + "turns:\n  - user: hi\n    replies:\n      -\n")
    assert only_problem(path) == f"{path}:6:8: `turns[0].replies[0]` must be a reply, got nothing (null)"


def test_every_mistake_in_a_file_is_reported_in_one_go(tmp_path):
    path = write(
        tmp_path,
        HEAD + "settings: {max_retries: five}\nturns:\n  - user: hi\n    replies:\n      - error: overlaoded\n      - eror: 529\n",
    )
    assert [p.split(": ", 1)[0] for p in mistakes(path)] == [f"{path}:3:25", f"{path}:7:16", f"{path}:8:9"]
    assert [(p.line, p.col) for p in problems_in(path)] == [(3, 25), (7, 16), (8, 9)]  # the record says where


# --- rules about the whole of a reply, cut or interrupt ----------------------------------


def test_a_reply_that_is_an_error_and_a_text_names_both(tmp_path):
    path = write(tmp_path, HEAD + "turns:\n  - user: hi\n    replies:\n      - error: overloaded\n        text: hello\n")
    assert only_problem(path) == f"{path}:6:9: a reply is one thing, but this one is error and a message (text)"


def test_a_reply_that_is_nothing_lists_what_a_reply_can_be(tmp_path):
    path = write(tmp_path, HEAD + "turns:\n  - user: hi\n    replies:\n      - headers: {retry-after: '1'}\n")
    problem = only_problem(path)
    assert problem.startswith(f"{path}:6:9: a reply needs one of: error, connection, events")
    assert "or message keys (text, tool_use, thinking, content, stop_reason, stop_sequence, usage)" in problem


def test_a_cut_at_two_positions_lists_the_four_positions(tmp_path):
    path = write(
        tmp_path,
        HEAD + "turns:\n  - user: hi\n    replies:\n      - text: hi\n        cut: {after_event: 2, after_bytes: 10}\n",
    )
    assert only_problem(path) == (
        f"{path}:7:14: a cut needs exactly one of: after_event, in_event, after_bytes, in_char"
    )


@pytest.mark.parametrize("interrupt", ["{close: true}", "{at_event: 2, tool: Read}"], ids=["neither", "both"])
def test_an_interrupt_needs_exactly_one_of_at_event_and_tool(tmp_path, interrupt):
    path = write(tmp_path, HEAD + f"turns:\n  - user: hi\n    interrupt: {interrupt}\n")
    assert only_problem(path) == f"{path}:5:16: an interrupt needs exactly one of: at_event, tool"


# --- a good file -------------------------------------------------------------------------

GOOD = """\
name: every-kind-of-reply
about: One of each, to check what the loader builds.
settings: {max_retries: 3, model: claude-test}
workspace: {README.md: "# Demo\\n", src/a.py: "x = 1\\n"}
turns:
  - user: Summarize the README
    replies:
      - error: overloaded
        headers: {Retry-After: "2"}
      - error: 502
        body: "<html>Bad gateway</html>"
      - connection: read_timeout
      - text: Reading it first.
        tool_use: {name: Read, input: {file_path: README.md}}
        cut: {in_event: 4, how: rst}
      - text: It is a demo.
        cut: 3
        error_event: 5
        stall: {after_event: 2, seconds: 30}
        drip: {chunk: 8, delay: 0.1}
        insert: [{after_event: 0, event: {type: ping}}]
      - events: [{type: message_start}]
    expect: {requests: 6, sleeps: [2.0, [0.5, 2.5]], end: end_turn}
  - user: Now stop
    interrupt: {tool: Bash}
    replies:
      - text: Stopping.
probe: false
"""


def test_a_good_file_becomes_replies_with_their_faults(tmp_path):
    scenario = load_scenario(write(tmp_path, GOOD))
    assert (scenario.name, scenario.probe) == ("every-kind-of-reply", False)
    assert scenario.settings == {"max_retries": 3, "model": "claude-test"}
    assert scenario.workspace == {"README.md": "# Demo\n", "src/a.py": "x = 1\n"}
    first, second = scenario.turns
    overloaded, bad_gateway, timeout, cut, faulty, raw = first.replies
    assert [r.kind for r in first.replies] == ["error", "error", "connection", "message", "message", "events"]
    assert (overloaded.error, overloaded.headers, overloaded.line) == ("overloaded", {"retry-after": "2"}, 8)
    assert (bad_gateway.error, bad_gateway.body) == (502, "<html>Bad gateway</html>")
    assert timeout.connection == "read_timeout"
    assert cut.message == {"text": "Reading it first.", "tool_use": {"name": "Read", "input": {"file_path": "README.md"}}}
    assert cut.faults == (Cut(in_event=4, how="rst"),)
    assert faulty.faults == (  # in pipeline order
        Insert((InsertedEvent(0, {"type": "ping"}),)),
        ErrorEvent(after_event=5),
        Stall(after_event=2, seconds=30),
        Cut(after_event=3),
        Drip(chunk=8, delay=0.1),
    )
    assert faulty.fault(Stall) == Stall(after_event=2, seconds=30)
    assert raw.events == [{"type": "message_start"}]
    assert first.expect == {"requests": 6, "sleeps": [2.0, [0.5, 2.5]], "end": "end_turn"}
    assert type(first.expect) is dict and type(first.expect["sleeps"]) is list
    assert (first.line, second.line) == (6, 24)
    assert second.interrupt == Interrupt(tool="Bash")
    assert [r.describe() for r in second.replies] == ["text"]


LIBRARY_FILES = scenario_files([LIBRARY])


def test_the_library_has_scenarios():
    assert LIBRARY_FILES


@pytest.mark.parametrize("path", LIBRARY_FILES, ids=lambda p: p.relative_to(LIBRARY).as_posix())
def test_a_library_scenario_loads_without_problems(path):
    assert mistakes(path) == []


# --- the JSON Schema ---------------------------------------------------------------------
# jsonschema is not installed in this project's environment, so the exported schema is
# checked by a small validator of exactly the keywords the exporter uses.

KEYWORDS = {"$schema", "title", "description", "type", "properties", "additionalProperties", "required",
            "items", "minItems", "enum", "anyOf", "minimum", "maximum", "maxItems"}
TYPES = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
}


def schema_errors(schema: dict[str, Any], value: Any, where: str = "$") -> list[str]:
    """Where ``value`` breaks ``schema`` (the keywords in KEYWORDS only)."""
    if "type" in schema and not TYPES[schema["type"]](value):
        return [f"{where}: not {schema['type']}"]
    if "enum" in schema and value not in schema["enum"]:
        return [f"{where}: not one of the enum"]
    if "minimum" in schema and value < schema["minimum"] or "maximum" in schema and value > schema["maximum"]:
        return [f"{where}: out of range"]
    if "anyOf" in schema and all(schema_errors(option, value, where) for option in schema["anyOf"]):
        return [f"{where}: matches no option"]
    errors = []
    if isinstance(value, dict):
        properties = schema.get("properties", {})
        errors += [f"{where}: missing {key}" for key in schema.get("required", []) if key not in value]
        for key, item in value.items():
            extra = schema.get("additionalProperties", True)
            if key in properties:
                errors += schema_errors(properties[key], item, f"{where}.{key}")
            elif extra is False:
                errors.append(f"{where}: unknown {key}")
            elif isinstance(extra, dict):
                errors += schema_errors(extra, item, f"{where}.{key}")
    if isinstance(value, list):
        if len(value) < schema.get("minItems", 0):
            errors.append(f"{where}: too few items")
        if len(value) > schema.get("maxItems", len(value)):
            errors.append(f"{where}: too many items")
        for index, item in enumerate(value):
            errors += schema_errors(schema.get("items", {}), item, f"{where}[{index}]")
    return errors


def keywords_in(schema: Any) -> set[str]:
    if not isinstance(schema, dict):
        return set()
    found = set(schema)
    for key in ("items", "additionalProperties"):
        found |= keywords_in(schema.get(key))
    for sub in [*schema.get("properties", {}).values(), *schema.get("anyOf", [])]:
        found |= keywords_in(sub)
    return found


def test_the_schema_is_json_and_uses_only_plain_keywords():
    schema = json_schema()
    assert json.loads(json.dumps(schema)) == schema
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert keywords_in(schema) <= KEYWORDS
    assert schema["required"] == ["name", "about", "turns"]
    assert schema["additionalProperties"] is False
    turn = schema["properties"]["turns"]["items"]
    reply = turn["properties"]["replies"]["items"]
    assert turn["required"] == ["user"] and reply["additionalProperties"] is False
    assert "overloaded" in reply["properties"]["error"]["anyOf"][0]["enum"]
    assert reply["properties"]["connection"]["enum"] == ["refused", "connect_timeout", "read_timeout", "empty", "garbage"]


def test_the_schema_accepts_the_good_example():
    assert schema_errors(json_schema(), yaml.safe_load(GOOD)) == []


@pytest.mark.parametrize("path", LIBRARY_FILES, ids=lambda p: p.relative_to(LIBRARY).as_posix())
def test_the_schema_accepts_a_library_scenario(path):
    assert schema_errors(json_schema(), yaml.safe_load(path.read_text(encoding="utf-8"))) == []


def test_the_schema_rejects_what_the_loader_rejects():
    schema = json_schema()
    good = yaml.safe_load(GOOD)
    misspelt = yaml.safe_load(GOOD.replace("- error: overloaded", "- eror: overloaded"))
    wrong_type = yaml.safe_load(GOOD.replace("max_retries: 3", "max_retries: three"))
    no_turns = {k: v for k, v in good.items() if k != "turns"}
    assert schema_errors(schema, misspelt) == ["$.turns[0].replies[0]: unknown eror"]
    assert schema_errors(schema, wrong_type) == ["$.settings.max_retries: not integer"]
    assert schema_errors(schema, no_turns) == ["$: missing turns"]


# --- replies that do not fit what the agent does -----------------------------------------


def test_a_reply_list_that_runs_out_fails_the_scenario_with_a_message(tmp_path):
    path = write(
        tmp_path,
        """\
name: too-few-replies
about: The agent asks again after its tool call, but the turn has one reply.
workspace: {README.md: "# Demo\\n"}
turns:
  - user: Read it
    replies:
      - tool_use: {name: Read, input: {file_path: README.md}}
""",
    )
    outcome = run_scenario(load_scenario(path))
    [problem] = outcome.problems
    assert str(problem) == "the agent made request 2 but turn 1 has 1 replies"
    assert (problem.kind, problem.turn, problem.request) == (Kind.INVARIANT, 1, 2)
    assert [t.raised for t in outcome.turns] == [None, None]
    timeline = format_timeline(outcome)
    assert "← no reply left" in timeline and "Traceback" not in timeline
    assert timeline.endswith("✗ the agent made request 2 but turn 1 has 1 replies")


def test_unused_replies_fail_the_scenario_with_a_message(tmp_path):
    path = write(
        tmp_path,
        """\
name: too-many-replies
about: Three replies for a turn that needs one.
turns:
  - user: hi
    replies:
      - text: hello
      - text: never asked for
      - error: overloaded
""",
    )
    outcome = run_scenario(load_scenario(path))
    assert [str(p) for p in outcome.problems] == ["turn 1 has 3 replies but the agent made 1 request(s)"]
    assert [t.raised for t in outcome.turns] == [None, None]
    assert "Traceback" not in format_timeline(outcome)
