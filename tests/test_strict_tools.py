"""Calls the real API does not make: input that breaks a ``strict: true`` tool's schema (the
strict tool use docs: the model's sampling is held to the schema), or two calls where
``tool_choice.disable_parallel_tool_use`` allows one. A scenario that makes one is not
applicable to the agent that asked so: an agent that trusts the guarantee is never failed
where the API would not put it; the same scenario still applies to an agent without it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from harness.agents.context import AgentContext
from harness.scenario.fake_api.json_schema import breach as schema_breach
from harness.scenario.format.loader import load_scenario
from harness.scenario.run.runner import run_scenario

LIBRARY = Path(__file__).resolve().parent.parent / "harness" / "library" / "scenarios"
SCHEMA = {"type": "object", "properties": {"path": {"type": "string"}, "limit": {"type": "integer"}},
          "required": ["path"], "additionalProperties": False}


class Reads:
    """One tool, ``read``; ``strict`` declares it so; ``one_call`` asks for one call at most.
    It trusts what it asked for: it reads the first call's path and nothing else."""

    tool_map = {"Read": {"name": "read", "input": {"file_path": "path", "offset": None}}}

    def __init__(self, ctx: AgentContext, *, strict: bool = True, one_call: bool = False) -> None:
        self.client, self.workspace = ctx.client.with_options(max_retries=0), ctx.workspace
        self.tool = {"name": "read", "description": "Read a file.", "input_schema": SCHEMA, **({"strict": True} if strict else {})}
        self.choice = {"tool_choice": {"type": "auto", "disable_parallel_tool_use": True}} if one_call else {}
        self.history: list[dict[str, Any]] = []

    def run_turn(self, text: str) -> None:
        self.history.append({"role": "user", "content": text})
        while True:
            message = self.client.messages.create(model="claude-sonnet-4-5", max_tokens=1024, tools=[self.tool],
                                                  messages=self.history, **self.choice)
            self.history.append({"role": "assistant", "content": [b.model_dump(exclude_none=True) for b in message.content]})
            calls = [b for b in message.content if b.type == "tool_use"]
            if not calls:
                return
            first = (self.workspace / calls[0].input["path"]).read_text()  # trusted: strict, one call
            self.history.append({"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": c.id, "content": first} for c in calls]})


@pytest.mark.parametrize("name", ["tools/malformed_arguments.yaml", "tools/non_object_input.yaml",
                                  "stream/tool_json_truncated.yaml"])
def test_input_a_strict_tool_cannot_get_is_not_applicable_to_an_agent_that_declared_it(name: str) -> None:
    strict = run_scenario(load_scenario(LIBRARY / name), agent=Reads)
    assert strict.not_applicable is not None and "is strict (strict: true)" in strict.not_applicable, strict.not_applicable
    assert "the real API would not answer so" in strict.not_applicable
    loose = run_scenario(load_scenario(LIBRARY / name), agent=lambda ctx: Reads(ctx, strict=False))
    assert loose.not_applicable is None and not loose.passed  # it trusts input nobody promised it


def test_two_calls_are_not_applicable_where_the_request_allows_one(tmp_path: Path) -> None:
    path = tmp_path / "two.yaml"
    path.write_text("name: two\nabout: two calls at once\nworkspace: {a.txt: A, b.txt: B}\nturns:\n  - user: Read both\n"
                    "    replies:\n      - tool_use: [{name: Read, input: {file_path: a.txt}}, {name: Read, input: {file_path: b.txt}}]\n"
                    "      - text: A and B.\n")
    one = run_scenario(load_scenario(path), agent=lambda ctx: Reads(ctx, one_call=True))
    assert one.not_applicable is not None and "makes 2" in one.not_applicable
    assert run_scenario(load_scenario(path), agent=Reads).not_applicable is None


def test_a_strict_tools_valid_input_is_served_and_a_cut_one_is_the_apis_too(tmp_path: Path) -> None:
    path = tmp_path / "one.yaml"
    path.write_text("name: one\nabout: one valid call\nworkspace: {a.txt: A}\nturns:\n  - user: Read it\n"
                    "    replies:\n      - tool_use: {name: Read, input: {file_path: a.txt}}\n      - text: A.\n")
    valid = run_scenario(load_scenario(path), agent=Reads)
    assert valid.passed and valid.not_applicable is None, valid.not_applicable
    cut = run_scenario(load_scenario(LIBRARY / "stop_reasons" / "max_tokens_in_tool_use.yaml"), agent=Reads)
    assert cut.not_applicable is None or "strict" not in cut.not_applicable


@pytest.mark.parametrize(("value", "breach"), [
    ({"path": "a"}, None),
    ({"path": "a", "limit": 3}, None),
    ({}, "input lacks the required 'path'"),
    ({"path": 1}, "input.path is 1, not string"),
    ({"path": "a", "limit": True}, "input.limit is true, not integer"),
    ({"path": "a", "offset": 2}, "input has 'offset', which the schema does not allow"),
    ([1, 2], "input is [1, 2], not object"),
])
def test_the_schema_is_read_for_what_it_states(value: Any, breach: str | None) -> None:
    assert schema_breach(SCHEMA, value, "input") == breach


def test_what_the_schema_does_not_state_plainly_is_taken_as_met() -> None:
    assert schema_breach({"type": "string", "pattern": "^x"}, "y", "input") is None
    assert schema_breach({"anyOf": [{"type": "string"}, {"type": "null"}]}, None, "input") is None
    assert schema_breach({"anyOf": [{"type": "string"}, {"type": "null"}]}, 3, "input") == "input is 3, which matches none of its anyOf"
    assert schema_breach({"type": "array", "items": {"enum": ["a", "b"]}}, ["a", "c"], "input") == "input[1] is \"c\", none of ['a', 'b']"
