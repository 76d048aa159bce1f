"""Bugs planted in the example agents (docs/your-agent.md, "Planted bugs"): each is
caught by the scenario named beside it, through the harness's own checks of the wire,
the workspace and the policies the agent declares. The copy with the bug goes first on
PYTHONPATH of a child process; nothing here is patched."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest
from planted import ROOT, harness_with, planted_copy

AGENTS = {
    "careful_agent": "examples.careful_agent:make_agent",
    "reader_agent": "examples.reader_agent:make_agent",
    "tool_runner_agent": "examples.tool_runner_agent:make_agent",
}


@dataclass(frozen=True)
class Bug:
    agent: str
    module: str
    old: str
    new: str
    scenario: str
    caught_by: str  # a line the run prints

    def __str__(self) -> str:
        return f"{self.agent}-{Path(self.scenario).stem}"


BUGS = [
    Bug("careful_agent", "careful_agent/failures.py",
        'in_ms, plain = headers.get("retry-after-ms"), headers.get("retry-after")', "in_ms, plain = None, None",
        "http/retry_after_seconds", "which asked for retry-after 7s"),
    Bug("careful_agent", "careful_agent/turn.py",
        'blocks[-1] = {**blocks[-1], "text": blocks[-1]["text"].rstrip()}', "pass",
        "stop_reasons/pause_turn_trailing_whitespace", "final assistant content cannot end with trailing whitespace"),
    Bug("careful_agent", "careful_agent/turn.py",
        "answers += [_result(c.id, CANCELLED, True) for c in calls[len(answers):]]", "pass",
        "interrupts/ctrl_c_while_a_command_runs", "`tool_use` ids were found without `tool_result` blocks"),
    Bug("careful_agent", "careful_agent/failures.py",
        "code in (408, 409, 429) or code >= 500", "code in (400, 408, 409, 429) or code >= 500",
        "http/non_retryable_4xx", "resends request 1, which the API rejected as invalid"),
    Bug("careful_agent", "careful_agent/turn.py", "if attempt > self.retries:", "if attempt >= self.retries:",
        "http/retries_exhausted", "expect.policies.honours_max_retries.requests: expected 6, the agent made 5"),
    Bug("careful_agent", "careful_agent/turn.py",
        "wait = min(LONGEST_WAIT, FIRST_WAIT * 2 ** (attempt - 1))", "wait = FIRST_WAIT * 2 ** (attempt - 1)",
        "http/backoff_reaches_its_cap", "over the 20s cap"),
    Bug("careful_agent", "careful_agent/turn.py",
        "answers.append(_result(call.id, text, failed))", "answers.append(_result(call.id, text, False))",
        "tools/unknown_tool", "expect.policies.flags_tool_errors.tool_results[0]: expected error=True"),
    Bug("reader_agent", "reader_agent.py",
        'if (ms := headers.get("retry-after-ms")) is not None:', "if (ms := None) is not None:",
        "http/retry_after_ms", "which asked for retry-after 5s"),
    Bug("reader_agent", "reader_agent.py",
        "message = await stream.get_final_message() if finished else None", "message = await stream.get_final_message()",
        "stream/end_before_message_stop", "keeps the half-streamed text of request 2's broken answer"),
    Bug("reader_agent", "reader_agent.py",
        'plain["input"] = {}', "pass",
        "tools/non_object_input", "tool_use.input: Input should be a valid dictionary"),
    Bug("reader_agent", "reader_agent.py",
        "frozenset({408, 409, 429, 500,", "frozenset({401, 408, 409, 429, 500,",
        "http/non_retryable_4xx", "expect.policies.gives_up_on_final_errors.requests: expected 1, the agent made 4"),
    Bug("reader_agent", "reader_agent.py",
        "502, 503, 504, 529})", "502, 503, 504})",
        "http/overloaded_then_success", "expect.policies.retries.requests: expected 4, the agent made 1"),
    Bug("tool_runner_agent", "tool_runner_agent.py", "self.messages.append(tool_results)", "pass",
        "tools/tool_raises", "`tool_use` ids were found without `tool_result` blocks"),
    Bug("tool_runner_agent", "tool_runner_agent.py",
        'self.messages.append({"role": "assistant", "content": last.content})', "pass",
        "tools/tool_raises", "unexpected `tool_use_id` found in `tool_result` blocks"),
]


@pytest.mark.parametrize("bug", BUGS, ids=str)
def test_a_bug_planted_in_an_example_agent_is_caught_by_its_scenario(tmp_path: Path, bug: Bug) -> None:
    broken = planted_copy(tmp_path, bug.module, bug.old, bug.new, package="examples")
    run = harness_with(broken, "run", f"scenarios/{bug.scenario}.yaml", "--agent", AGENTS[bug.agent])
    assert run.returncode == 1, run.stdout + run.stderr
    assert bug.caught_by in run.stdout, run.stdout


@pytest.mark.parametrize("scenario", sorted({(b.agent, b.scenario) for b in BUGS}), ids="-".join)
def test_each_catching_scenario_passes_the_agent_as_it_is(scenario: tuple[str, str]) -> None:
    agent, name = scenario
    run = harness_with(None, "run", f"scenarios/{name}.yaml", "--agent", AGENTS[agent])
    assert run.returncode == 0, run.stdout + run.stderr


def test_the_guide_lists_every_planted_bug_under_its_agent() -> None:
    guide = (ROOT / "docs" / "your-agent.md").read_text(encoding="utf-8")
    planted = guide.split("## Planted bugs", 1)[1].split("\n## ", 1)[0]
    sections = dict(re.findall(r"### `examples/(\w+)[^`]*`\n(.*?)(?=\n### |\Z)", planted, flags=re.S))
    for bug in BUGS:
        assert f"`{bug.scenario}`" in sections.get(bug.agent, ""), f"{bug} is not in the guide's table for {bug.agent}"
