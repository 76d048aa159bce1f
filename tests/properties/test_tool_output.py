"""mini_agent's big tool outputs, whatever their size and the limit: what reaches the
model (read from the next request's tool_result) is the whole output when it fits, else
its first two thirds and last third of the limit around a marker naming how much was
left out. The expected text is worked out here, from the rule, not by mini_agent's code."""

from __future__ import annotations

import re
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from harness.library.properties.agent import AGENT
from harness.library.properties.budget import examples
from harness.scenario.checks.wire_view import tool_exchanges
from harness.scenario.format.model import Scenario, Turn
from harness.scenario.run.runner import run_scenario
from harness.scenario.run.timeline import format_timeline
from harness.wire.replies import Reply

MARKER = re.compile(r"\n\n\.\.\. \[([\d,]+) characters truncated\] \.\.\.\n\n")


def expected(full: str, limit: int) -> tuple[str, str, int] | None:
    """The head, the tail and the count left out, or None when ``full`` fits."""
    if len(full) <= limit:
        return None
    head = limit * 2 // 3
    return full[:head], full[len(full) - (limit - head) :], len(full) - limit


@examples(0.3)
@given(length=st.integers(1, 5000), limit=st.integers(10, 3000), digits=st.booleans())
def test_a_long_output_keeps_its_head_and_tail(length: int, limit: int, digits: bool) -> None:
    if AGENT is not None:
        return  # the head-and-tail rule is mini_agent's; another agent truncates its own way
    command = f"seq 1 {length}" if digits else f"printf '%*s' {length} '' | tr ' ' a"
    scenario = Scenario(
        "big-output", "A Bash output of any size against any limit.", Path("big-output.yaml"),
        (Turn("Print it", (Reply(message={"tool_use": {"name": "Bash", "input": {"command": command}}}),
                           Reply(message={"text": "Printed."}))),),
        settings={"max_tool_output": limit},
    )
    outcome = run_scenario(scenario)
    assert outcome.passed, format_timeline(outcome)
    [exchange] = tool_exchanges(outcome.requests, outcome.tool_map)
    body = "\n".join(str(n) for n in range(1, length + 1)) if digits else "a" * length
    full = f"[stdout]\n{body}\nexit code: 0"
    cut = expected(full, limit)
    if cut is None:
        assert exchange.result == full
        return
    head, tail, left_out = cut
    match = MARKER.search(exchange.result or "")
    assert match is not None, exchange.result
    assert exchange.result[: match.start()] == head and exchange.result[match.end() :] == tail
    assert int(match.group(1).replace(",", "")) == left_out
