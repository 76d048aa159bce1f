"""The checks a scenario's ``expect`` blocks ask for.

Read from the wire, for every agent: per turn ``requests``, ``end`` (how the turn ended),
``tools`` (the tool calls the agent answered, by standard name, in order),
``tool_results`` (``{error, contains}`` of each answer) and ``idle_timeout``
(``silences``); per scenario ``requests`` and ``files`` (the workspace afterwards); per
turn and per scenario ``usage`` (``budgets``); ``sleeps``, the waits the agent asked the virtual
clock for (its own and the SDK's). ``notices``, ``no_notices``, ``text`` and the
``transcript`` need the agent's own events, and everything under a ``mini_agent:``
block is mini_agent's; ``agent_expectations`` checks those where the agent can show
them, and the outcome lists them as not checked for the others. A ``policies.NAME:``
block (per turn, or for the whole scenario) is checked for an agent that declares the
policy (``harness.scenario.checks.policies``) and listed as not checked for the others.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from harness.agents.events import TurnEnd
from harness.scenario.checks.agent_expectations import (
    AGENT_ONLY_ENDS,
    EVENT_KEYS,
    Unmet,
    agent_problems,
    matches,
    transcript_problems,
)
from harness.scenario.checks.budgets import budget_problems
from harness.scenario.checks.outcome import Outcome, TurnResult
from harness.scenario.checks.policies import unmet_policy
from harness.scenario.checks.silences import idle_problems
from harness.scenario.checks.wire_view import (
    ToolExchange,
    tool_exchanges,
    turn_wire_end,
)
from harness.scenario.format.problem import Kind, Problem
from harness.wire.replies import Reply

AGENT_BLOCK = "mini_agent"


def check_expectations(outcome: Outcome) -> list[Problem]:
    """Problems with what the scenario said must hold, each at the line of its key;
    fills ``outcome.not_checked``."""
    problems: list[Problem] = []
    exchanges = tool_exchanges(outcome.requests, outcome.tool_map)
    events = any(turn.shows_events for turn in outcome.turns)
    mini_agent = outcome.agent_name == AGENT_BLOCK
    for turn, spec in zip(outcome.turns, outcome.scenario.turns):
        expect = spec.expect
        found = _wire_problems(turn, expect, exchanges, events)
        agent_side = {k: expect[k] for k in (*EVENT_KEYS, "sleeps", "end") if k in expect}
        if not events:
            unseen = [k for k in EVENT_KEYS if k in expect] + (["end"] if expect.get("end") in AGENT_ONLY_ENDS else [])
            outcome.not_checked += [f"turn {turn.number}: expect.{k} (needs agent events)" for k in unseen]
            agent_side = {k: v for k, v in agent_side.items() if k == "sleeps"}
        found += agent_problems(outcome, turn, agent_side)
        if AGENT_BLOCK in expect and mini_agent:
            found += [Unmet(f"{AGENT_BLOCK}.{u.key}", f"{AGENT_BLOCK}.{u.text}")
                      for u in _all_problems(outcome, turn, expect[AGENT_BLOCK], exchanges)]
        elif AGENT_BLOCK in expect:
            outcome.not_checked += [f"turn {turn.number}: expect.{AGENT_BLOCK}.{k} (mini_agent only)" for k in expect[AGENT_BLOCK]]
        found += _policy_problems(outcome, turn, spec.replies, expect, "", exchanges, events)
        for unmet in found:
            line = _line(spec.expect_lines, unmet.key, spec.line)
            problems.append(_problem(outcome, f"turn {turn.number}: expect.{unmet.text}", line, turn=turn.number))
    problems += _scenario_problems(outcome, outcome.scenario.expect, mini_agent)
    return problems


def _policy_problems(outcome: Outcome, turn: TurnResult, replies: Sequence[Reply], expect: dict[str, Any], prefix: str,
                     exchanges: list[ToolExchange], events: bool) -> list[Unmet]:
    """A turn's ``policies.NAME`` blocks (and the blocks nested in them, for what hangs on
    two policies at once), each checked when the agent declares its policies."""
    found = []
    for name, block in expect.get("policies", {}).items():
        path = f"{prefix}policies.{name}"
        why = unmet_policy(name, outcome.policies, replies)
        if why is not None:
            outcome.not_checked.append(f"turn {turn.number}: expect.{path} ({why})")
            continue
        plain = {k: v for k, v in block.items() if k != "policies"}
        side = plain if events else {k: v for k, v in plain.items() if k not in EVENT_KEYS}
        outcome.not_checked += [f"turn {turn.number}: expect.{path}.{k} (needs agent events)" for k in plain if k not in side]
        found += [Unmet(f"{path}.{u.key}", f"{path}.{u.text}") for u in _all_problems(outcome, turn, side, exchanges)]
        found += _policy_problems(outcome, turn, replies, block, f"{path}.", exchanges, events)
    return found


def _line(lines: dict[str, int], key: str, fallback: int) -> int:
    """The line of an expectation's key (``mini_agent.notices``), else of its block."""
    return lines.get(key, lines.get(key.split(".")[0], fallback))


def _problem(outcome: Outcome, text: str, line: int, *, turn: int | None = None) -> Problem:
    """An expectation that did not hold, its sentence ending `` (file:line)``."""
    path = outcome.scenario.path
    return Problem(f"{text} ({path}:{line})" if line else text, Kind.EXPECTATION, file=str(path), line=line or None, turn=turn)


def _all_problems(outcome: Outcome, turn: TurnResult, expect: dict[str, Any], exchanges: list[ToolExchange]) -> list[Unmet]:
    """A ``mini_agent:`` block: every key, the wire's and the events' (``end`` as its
    TurnEnd event says it: Ctrl+C as a tool runs does not show on the wire)."""
    wire_side = {k: v for k, v in expect.items() if k != "end" or not turn.of_type(TurnEnd)}
    return _wire_problems(turn, wire_side, exchanges, True) + agent_problems(outcome, turn, expect)


def _wire_problems(turn: TurnResult, expect: dict[str, Any], exchanges: list[ToolExchange], events: bool) -> list[Unmet]:
    problems = []
    if "requests" in expect and len(turn.requests) != expect["requests"]:
        problems.append(Unmet("requests", f"requests: expected {expect['requests']}, the agent made {len(turn.requests)}"))
    if "end" in expect and expect["end"] not in AGENT_ONLY_ENDS:
        ended = turn_wire_end(turn)
        if ended != expect["end"]:
            problems.append(Unmet("end", f"end: expected {expect['end']}, the turn ended with {ended} (as the wire shows it)"))
    numbers = {r.number for r in turn.requests}
    answered = [x for x in exchanges if x.served_in in numbers and x.answered_in is not None]
    if "tools" in expect and [x.name for x in answered] != expect["tools"]:
        problems.append(Unmet("tools", f"tools: expected {expect['tools']}, the agent answered {[x.name for x in answered]}"))
    if "tool_results" in expect:
        problems += [Unmet("tool_results", text) for text in _tool_result_problems(expect["tool_results"], answered)]
    if "usage" in expect:
        problems += [Unmet(key, text) for key, text in budget_problems(turn.requests, expect["usage"])]
    if "idle_timeout" in expect:
        problems += [Unmet("idle_timeout", text) for text in idle_problems(turn.requests, expect["idle_timeout"])]
    return problems


def _tool_result_problems(wanted: list[dict[str, Any]], answered: list[ToolExchange]) -> list[str]:
    if len(wanted) != len(answered):
        return [f"tool_results: expected {len(wanted)}, the agent answered {len(answered)}"]
    problems = []
    for i, (want, got) in enumerate(zip(wanted, answered)):
        text = got.result or ""
        if "error" in want and got.is_error != want["error"]:
            problems.append(f"tool_results[{i}]: expected error={want['error']}, got {text[:200]!r}")
        if "contains" in want and not matches(want["contains"], text):
            problems.append(f"tool_results[{i}]: {want['contains']!r} not in {text[:200]!r}")
    return problems


def _scenario_problems(outcome: Outcome, expect: dict[str, Any], mini_agent: bool, prefix: str = "") -> list[Problem]:
    problems = []
    for name, block in expect.get("policies", {}).items():
        why = unmet_policy(name, outcome.policies, [r for turn in outcome.scenario.turns for r in turn.replies])
        if why is None:
            problems += _scenario_problems(outcome, block, mini_agent, f"{prefix}policies.{name}.")
        else:
            outcome.not_checked.append(f"expect.{prefix}policies.{name} ({why})")
    lines = {key.removeprefix(prefix): line for key, line in outcome.scenario.expect_lines.items() if key.startswith(prefix)}
    made = sum(len(turn.requests) for turn, _ in zip(outcome.turns, outcome.scenario.turns))  # not the probe's
    if "requests" in expect and made != expect["requests"]:
        text = f"expect.{prefix}requests: {expect['requests']} in all, but the agent made {made} (not counting the probe turn)"
        problems.append(Problem(text, Kind.EXPECTATION, file=str(outcome.scenario.path), line=lines.get("requests")))
    if "usage" in expect:
        used = [r for turn, _ in zip(outcome.turns, outcome.scenario.turns) for r in turn.requests]
        problems += [_problem(outcome, f"expect.{text}", lines.get(key, lines.get("usage", 0)))
                     for key, text in budget_problems(used, expect["usage"])]
    for name, wanted in expect.get("files", {}).items():
        line = lines.get(f"files.{name}", lines.get("files", 0))
        problems += [_problem(outcome, f"expect.{prefix}files.{name}: {p}", line) for p in _file_problems(outcome.files, name, wanted)]
    if "transcript" in expect and mini_agent:
        problems += [Problem(text, Kind.EXPECTATION, file=str(outcome.scenario.path), line=lines.get("transcript"))
                     for text in transcript_problems(outcome, expect["transcript"])]
    elif "transcript" in expect:
        outcome.not_checked.append("expect.transcript (mini_agent's REPL output)")
    return problems


def _file_problems(files: dict[str, str | None], name: str, wanted: Any) -> list[str]:
    present = name in files
    if isinstance(wanted, dict) and wanted.get("absent"):
        return ["expected no such file, it exists"] if present else []
    if not present:
        return ["expected the file, it does not exist"]
    content = files[name] or ""
    if isinstance(wanted, str) and content != wanted:
        return [f"expected {wanted[:100]!r}, found {content[:100]!r}"]
    if isinstance(wanted, dict) and "contains" in wanted and not matches(wanted["contains"], content):
        return [f"{wanted['contains']!r} not in {content[:100]!r}"]
    return []
