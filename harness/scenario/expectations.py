"""The checks a scenario's ``expect`` blocks ask for: per turn (requests, sleeps,
notices, end, tools, tool results, text) and per scenario (files, a golden transcript,
total requests)."""

from __future__ import annotations

import re
from typing import Any

from harness.scenario.outcome import Outcome, TurnRecord

SLEEP_TOLERANCE = 1e-3


def check_expectations(outcome: Outcome) -> list[str]:
    """Problems with what the scenario said must hold."""
    problems: list[str] = []
    for turn, spec in zip(outcome.turns, outcome.scenario.turns):
        problems += [f"turn {turn.number}: expect.{p}" for p in _turn_problems(outcome, turn, spec.expect)]
    expect = outcome.scenario.expect
    made = sum(len(turn.requests) for turn, _ in zip(outcome.turns, outcome.scenario.turns))  # not the probe's
    if "requests" in expect and made != expect["requests"]:
        problems.append(f"expect.requests: {expect['requests']} in all, but the agent made {made} (not counting the probe turn)")
    for name, wanted in expect.get("files", {}).items():
        problems += [f"expect.files.{name}: {p}" for p in _file_problems(outcome.files, name, wanted)]
    if "transcript" in expect:
        problems += _transcript_problems(outcome, expect["transcript"])
    return problems


def matches(pattern: str, text: str) -> bool:
    """``/regex/`` searches; anything else is a substring."""
    if len(pattern) >= 2 and pattern.startswith("/") and pattern.endswith("/"):
        return re.search(pattern[1:-1], text) is not None
    return pattern in text


def _turn_problems(outcome: Outcome, turn: TurnRecord, expect: dict[str, Any]) -> list[str]:
    problems = []
    if "requests" in expect and len(turn.requests) != expect["requests"]:
        problems.append(f"requests: expected {expect['requests']}, the agent made {len(turn.requests)}")
    if "sleeps" in expect:
        problems += _sleep_problems(expect["sleeps"], _turn_sleeps(outcome, turn))
    notices = [getattr(n, "text", str(n)) for n in turn.of_type("Notice")]
    if "notices" in expect:
        problems += _in_order("notices", expect["notices"], notices)
    if expect.get("no_notices") and notices:
        problems.append(f"no_notices: but the turn showed {notices}")
    if "end" in expect and turn.end != expect["end"]:
        problems.append(f"end: expected {expect['end']}, the turn ended with {turn.end or turn.raised or 'nothing'}")
    calls = [getattr(c, "name", "?") for c in turn.of_type("ToolCall")]
    if "tools" in expect and calls != expect["tools"]:
        problems.append(f"tools: expected {expect['tools']}, ran {calls}")
    if "tool_results" in expect:
        problems += _tool_result_problems(expect["tool_results"], turn.of_type("ToolResult"))
    if "text" in expect:
        text = "".join(getattr(t, "text", "") for t in turn.of_type("TextDelta"))
        if not matches(expect["text"], text):
            problems.append(f"text: {expect['text']!r} not in the model text {text[:200]!r}")
    return problems


def _turn_sleeps(outcome: Outcome, turn: TurnRecord) -> list[float]:
    return [seconds for _, mark, seconds in outcome.sleeps if turn.first_mark <= mark <= turn.last_mark]


def _sleep_problems(wanted: list[Any], actual: list[float]) -> list[str]:
    if len(wanted) != len(actual):
        return [f"sleeps: expected {len(wanted)} sleep(s) {wanted}, got {len(actual)}: {[round(s, 3) for s in actual]}"]
    problems = []
    for i, (want, got) in enumerate(zip(wanted, actual)):
        low, high = (want[0], want[1]) if isinstance(want, list) else (want, want)
        if not low - SLEEP_TOLERANCE <= got <= high + SLEEP_TOLERANCE:
            problems.append(f"sleeps[{i}]: expected {want}, slept {got:.3f}s")
    return problems


def _in_order(name: str, patterns: list[str], texts: list[str]) -> list[str]:
    position = 0
    for i, pattern in enumerate(patterns):
        found = next((j for j in range(position, len(texts)) if matches(pattern, texts[j])), None)
        if found is None:
            return [f"{name}[{i}]: no {name[:-1]} matching {pattern!r} (in order); the turn showed {texts}"]
        position = found + 1
    return []


def _tool_result_problems(wanted: list[dict[str, Any]], results: list[Any]) -> list[str]:
    if len(wanted) != len(results):
        return [f"tool_results: expected {len(wanted)}, got {len(results)}"]
    problems = []
    for i, (want, got) in enumerate(zip(wanted, results)):
        if "error" in want and bool(got.is_error) != want["error"]:
            problems.append(f"tool_results[{i}]: expected error={want['error']}, got {got.content[:200]!r}")
        if "contains" in want and not matches(want["contains"], got.content):
            problems.append(f"tool_results[{i}]: {want['contains']!r} not in {got.content[:200]!r}")
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


def _transcript_problems(outcome: Outcome, name: str) -> list[str]:
    from harness.scenario.golden import compare_transcript

    return compare_transcript(outcome.scenario.path.parent / name, outcome.transcript)
