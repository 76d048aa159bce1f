"""A call renamed for an agent's own tool names streams in as many pieces as the standard
call, and each character of its values in the piece it was in: a fault placed in a piece
(`cut: {in_char: k}`, an interrupt at event k) finds for every agent what it finds for the
standard names. Found by a property run against a read-only agent whose `read` tool took a
path with a non-ASCII character and `offset: null`: the cut was written for event 9 and
the character had moved to event 8."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from examples.careful_agent import make_agent
from harness.scenario.fake_api.tool_map import ToolMap
from harness.scenario.format.loader import load_scenario
from harness.scenario.format.model import Scenario, Turn
from harness.scenario.run.runner import run_scenario
from harness.wire.blocks import json_pieces
from harness.wire.faults import Cut
from harness.wire.replies import Reply

MAPS = [
    {"Read": {"name": "read", "input": {"file_path": "path", "offset": "offset", "limit": "limit"}}},
    {"Read": {"name": "read", "input": {"file_path": "offset"}}},  # a standard name taken: `offset` is served as `offset_`
    {"Read": {"name": "ed", "input": {"file_path": "path", "offset": None}, "with": {"command": "view"}},
     "Write": {"name": "ed", "input": {"file_path": "path"}, "with": {"command": "create"}}},
]
values = st.none() | st.booleans() | st.integers() | st.text(max_size=12) | st.lists(st.text(max_size=4), max_size=3)
inputs = st.dictionaries(st.sampled_from(["file_path", "offset", "limit", "pattern"]), values, max_size=4)


def wide(piece: str) -> list[str]:
    """The characters of ``piece`` that take more than one byte in UTF-8."""
    return [c for c in piece if len(c.encode("utf-8", "surrogatepass")) > 1]


@settings(max_examples=300, deadline=None)
@given(tool_input=inputs, mapping=st.sampled_from(MAPS))
def test_a_renamed_call_keeps_each_value_character_in_its_piece(tool_input: dict, mapping: dict) -> None:
    tools = ToolMap(mapping)
    standard = json_pieces(tool_input)
    renamed = tools.reply_for_agent(Reply(message={"tool_use": {"name": "Read", "input": tool_input}})).message["tool_use"]["json"]
    expected = tools._input("Read", tool_input)
    assert json.loads("".join(renamed) or "{}") == expected  # an empty input streams no JSON at all
    if tool_input or not mapping["Read"].get("with"):
        assert len(renamed) == len(standard) and renamed[0] == ""
        assert [wide(p) for p in renamed] == [wide(p) for p in standard]


def test_a_cut_inside_a_character_lands_for_an_agent_with_its_own_names() -> None:
    """examples/careful_agent calls Read `read_file`; the cut is inside the path's U+0080 either way."""
    read = {"name": "Read", "input": {"file_path": "\x1f\x80.txt", "offset": None}}
    turn = Turn("Fix the bug", (Reply(message={"text": "Done.", "tool_use": read}, faults=(Cut(in_char=9),)),
                                Reply(message={"text": "ok"})), None, {"requests": 2})
    outcome = run_scenario(Scenario("cut in a char", "a cut in a char", Path("found.yaml"), (turn,)), agent=make_agent)
    assert outcome.problems == [], [str(p) for p in outcome.problems]


def test_a_scenario_marked_with_an_agents_name_runs_for_that_agent_only(tmp_path: Path) -> None:
    """`agent: NAME` matches the agent's `harness_agent_name`: the reader's own `list_folder`
    tool is called for it, and mini_agent skips the scenario as another agent's."""
    path = tmp_path / "list.yaml"
    path.write_text(
        "name: list-the-folder\nabout: the reader's own tool\nagent: reader_agent\nworkspace: {a.txt: hi}\nturns:\n"
        "  - user: What is here?\n    replies:\n      - tool_use: {name: list_folder, input: {}}\n      - text: One file.\n"
        "    expect: {requests: 2, tools: [list_folder], tool_results: [{error: false, contains: a.txt}]}\n")
    from examples.reader_agent import make_agent as make_reader

    scenario = load_scenario(path)
    assert run_scenario(scenario, agent=make_reader).passed
    skipped = run_scenario(scenario)
    assert skipped.skipped and "reader_agent's scenario" in skipped.skipped


def test_a_tool_call_written_as_a_raw_content_block_is_renamed_too(tmp_path: Path) -> None:
    path = tmp_path / "raw.yaml"
    path.write_text(
        "name: raw-call\nabout: a call written as a raw block\nworkspace: {a.txt: hi}\nturns:\n"
        "  - user: Read it\n    replies:\n"
        "      - content: [{type: tool_use, id: toolu_raw, name: Read, input: {file_path: a.txt}}]\n"
        "        stop_reason: tool_use\n      - text: It says hi.\n"
        "    expect: {requests: 2, tools: [Read], tool_results: [{error: false, contains: hi}]}\n")
    outcome = run_scenario(load_scenario(path), agent=make_agent)
    assert outcome.passed, [str(p) for p in outcome.problems]
