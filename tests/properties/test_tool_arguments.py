"""Layer 2 under any arguments: the registry never raises, and every near miss the
strategies make is rejected with the validator's own words."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from harness.library.properties.budget import examples
from harness.strategies import (
    any_tool_inputs,
    input_schemas,
    invalid_tool_inputs,
    safe_overrides,
    tool_inputs,
)
from mini_agent.tools import (
    InputValidationError,
    ToolOutcome,
    ToolRegistry,
    default_tools,
)
from mini_agent.tools.validate import validate

TOOLS = {tool.name: tool for tool in default_tools()}
WORKSPACE = Path(tempfile.mkdtemp(prefix="properties-tools-"))  # Write's files land here, nowhere else
REGISTRY = ToolRegistry(TOOLS.values(), cwd=WORKSPACE)
SAFE = safe_overrides()  # Bash runs `echo …` only, Read and Write stay in WORKSPACE


def calls(make: Any) -> st.SearchStrategy[tuple[str, Any]]:
    return st.sampled_from(sorted(TOOLS)).flatmap(
        lambda name: st.tuples(st.just(name), make(TOOLS[name].input_schema, overrides=SAFE))
    )


def rejection(name: str, args: Any) -> str:
    return f"<tool_use_error>InputValidationError: {InputValidationError(name, validate(TOOLS[name].input_schema, args))}</tool_use_error>"


@examples(3)
@given(calls(any_tool_inputs))
def test_any_arguments_give_an_outcome_and_invalid_ones_name_the_problem(call: tuple[str, Any]) -> None:
    name, args = call
    outcome = REGISTRY.execute(name, args)
    assert isinstance(outcome, ToolOutcome)
    if validate(TOOLS[name].input_schema, args):
        assert outcome.is_error
        assert outcome.content == rejection(name, args)


@examples(3)
@given(calls(invalid_tool_inputs))
def test_every_near_miss_is_rejected_before_the_tool_runs(call: tuple[str, Any]) -> None:
    name, args = call
    assert validate(TOOLS[name].input_schema, args) != []
    before = sorted(WORKSPACE.rglob("*"))
    outcome = REGISTRY.execute(name, args)
    assert outcome == ToolOutcome(rejection(name, args), is_error=True)
    assert sorted(WORKSPACE.rglob("*")) == before


@examples(1)
@given(st.text(max_size=20), st.dictionaries(st.text(max_size=5), st.integers(), max_size=2))
def test_an_unknown_tool_is_an_error_result(name: str, args: dict[str, int]) -> None:
    outcome = REGISTRY.execute(name, args) if name not in TOOLS else REGISTRY.execute(f"{name}_", args)
    assert outcome.is_error and "No such tool available" in outcome.content


@examples(3)
@given(st.data())
def test_for_any_schema_valid_inputs_pass_and_near_misses_fail(data: st.DataObject) -> None:
    schema = data.draw(input_schemas(), label="schema")
    assert validate(schema, data.draw(tool_inputs(schema), label="valid")) == []
    assert validate(schema, data.draw(invalid_tool_inputs(schema), label="near miss")) != []


def test_enum_compares_nested_values_as_json() -> None:
    """Found by the property above: ``{"": 0}`` passed for ``enum: [{"": false}]``."""
    assert validate({"enum": [{"": False}]}, {"": 0}) != []
    assert validate({"enum": [[1]]}, [True]) != []
    assert validate({"enum": [[1, {"a": 2}]]}, [1.0, {"a": 2}]) == []
