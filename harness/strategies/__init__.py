"""Hypothesis strategies for fault-testing an agent: tool arguments, faults, replies,
interruption points and whole scenarios.

Every public name is a function that returns a strategy; options are keyword-only.

Tool arguments (a JSON-Schema subset: type, required, enum, properties,
additionalProperties, items)
    json_values()                 any JSON value
    input_schemas()               schemas in that subset
    tool_inputs(schema)           valid arguments
    invalid_tool_inputs(schema)   a valid argument object with one mutation the validator
                                  must reject (a missing or renamed key, a wrong type …)
    any_tool_inputs(schema)       anything at all, valid or not
    workspace_paths()             relative paths that stay inside the working directory
    echo_commands()               the only Bash commands a generated scenario runs
    tool_calls()                  tool_use specs a model might send
The API's side
    replies()                     a model's complete answer (text, thinking, tool calls, a stop reason)
    faults(message=…)             one failed attempt: an HTTP error, a broken connection or stream …
    failure_kinds()               what faults() draws from (each stream fault kind whose role is failure)
    fault_schedules()             a turn's replies: faults before each answer, the outcome predicted
    interruption_points()         where the user presses Ctrl+C or closes the turn
    scenarios()                   whole ``Scenario`` objects: 1-2 small turns

Generated tool calls are harmless by construction: valid arguments take their
``file_path`` from ``workspace_paths()`` and their ``command`` from ``echo_commands()``
(``safe_overrides()``), and a near miss is certain to be rejected before the tool runs.

``fault_schedules()`` also says what must come of a turn (how many requests, how it
ends), from the rules of DESIGN §3; ``scenarios()`` writes that into each turn's
``expect``, so an agent that gives up too early or retries what it must not fails.
"""

from harness.strategies.faults import (
    GIVE_UP_RETRY_AFTER,
    Effect,
    failure_kinds,
    fault_effect,
    faults,
)
from harness.strategies.mutations import (
    MUTATIONS,
    any_tool_inputs,
    invalid_tool_inputs,
    odd_strings,
)
from harness.strategies.replies import (
    CONTINUING_STOPS,
    FINAL_STOPS,
    model_texts,
    replies,
)
from harness.strategies.scenarios import BIG_BUDGET, scenarios, user_lines, workspaces
from harness.strategies.schedules import (
    INTERRUPTION_KINDS,
    Interruption,
    Schedule,
    continued,
    fault_schedules,
    interruption_points,
    turn_end,
)
from harness.strategies.schemas import (
    JSON_TYPES,
    input_schemas,
    json_values,
    tool_inputs,
)
from harness.strategies.tool_calls import (
    COMMON_FILES,
    echo_commands,
    safe_overrides,
    tool_calls,
    workspace_paths,
)

__all__ = [
    "COMMON_FILES",
    "JSON_TYPES",
    "MUTATIONS",
    "any_tool_inputs",
    "echo_commands",
    "input_schemas",
    "invalid_tool_inputs",
    "json_values",
    "odd_strings",
    "safe_overrides",
    "tool_calls",
    "tool_inputs",
    "workspace_paths",
    "BIG_BUDGET",
    "CONTINUING_STOPS",
    "Effect",
    "FINAL_STOPS",
    "GIVE_UP_RETRY_AFTER",
    "INTERRUPTION_KINDS",
    "Interruption",
    "Schedule",
    "failure_kinds",
    "fault_effect",
    "continued",
    "fault_schedules",
    "faults",
    "interruption_points",
    "model_texts",
    "replies",
    "scenarios",
    "turn_end",
    "user_lines",
    "workspaces",
]
