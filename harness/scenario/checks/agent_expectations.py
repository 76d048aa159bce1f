"""The expectations that need the agent's own events or policy: ``notices`` (each after the one before),
``no_notices``, ``text`` (the model text shown), ``end`` as the agent's ``TurnEnd``
event says it, ``sleeps`` (the waits it asked the clock for) and the golden
``transcript`` of its REPL output. Events are the harness's own (``Notice``,
``TextDelta``, ``TurnEnd`` of ``harness.agents.events``): an adapter translates its
agent's into them."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from harness.agents.events import Notice, TextDelta, TurnEnd
from harness.scenario.checks.golden import compare_transcript
from harness.scenario.checks.outcome import Outcome, TurnResult
from harness.scenario.format.sandbox import PathEscape, project_path
from harness.scenario.format.schema import END_ALIASES

EVENT_KEYS = ("notices", "no_notices", "text")
AGENT_ONLY_ENDS = frozenset({"internal_error", "empty", "max_steps"})  # ends the wire cannot show
SLEEP_TOLERANCE = 1e-3


@dataclass(frozen=True)
class Unmet:
    """An expectation of a turn that did not hold: its key in the ``expect`` block
    (``sleeps``, ``mini_agent.notices``: where its line is found) and what happened,
    worded from the key on (``sleeps[1]: expected 5.0, slept 1.000s``)."""

    key: str
    text: str


def agent_problems(outcome: Outcome, turn: TurnResult, expect: dict[str, Any]) -> list[Unmet]:
    """Problems with the event- and policy-side keys of one turn's ``expect``."""
    problems = []
    if "sleeps" in expect:
        problems += [Unmet("sleeps", p) for p in _sleep_problems(expect["sleeps"], _turn_sleeps(outcome, turn))]
    notices = [n.text for n in turn.of_type(Notice)]
    if "notices" in expect:
        problems += [Unmet("notices", p) for p in _in_order("notices", expect["notices"], notices)]
    if expect.get("no_notices") and notices:
        problems.append(Unmet("no_notices", f"no_notices: but the turn showed {notices}"))
    if "end" in expect and turn.of_type(TurnEnd) and END_ALIASES.get(turn.end or "", turn.end) != expect["end"]:
        said = turn.end or turn.raised or "nothing"
        problems.append(Unmet("end", f"end: expected {expect['end']}, the agent's TurnEnd says {said}"))
    if "text" in expect:
        text = "".join(t.text for t in turn.of_type(TextDelta))
        if not matches(expect["text"], text):
            problems.append(Unmet("text", f"text: {expect['text']!r} not in the model text {text[:200]!r}"))
    return problems


def transcript_problems(outcome: Outcome, name: str) -> list[str]:
    """The REPL output against its golden file, beside the scenario (inside its project)."""
    try:
        path = project_path(outcome.scenario.path, name)
    except PathEscape as error:
        return [f"expect.transcript: {error}"]
    return compare_transcript(path, outcome.transcript)


def _turn_sleeps(outcome: Outcome, turn: TurnResult) -> list[float]:
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
            after = f" after the one {patterns[i - 1]!r} matched" if i else ""
            return [f"{name}[{i}]: no {name[:-1]} matching {pattern!r}{after}; the turn showed {texts}"]
        position = found + 1
    return []


def matches(pattern: str, text: str) -> bool:
    """``/regex/`` searches; anything else is a substring."""
    if len(pattern) >= 2 and pattern.startswith("/") and pattern.endswith("/"):
        return re.search(pattern[1:-1], text) is not None
    return pattern in text
