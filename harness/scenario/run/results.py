"""One scenario's result as plain data (JSON-able, so pytest-xdist workers can send it
back): the verdict, the problems with the file line each is about, the picture's
turns, requests, sleeps and tool runs on the virtual clock, and the faults' hits."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from harness.scenario.checks.outcome import Outcome, TurnResult
from harness.scenario.checks.wire_view import tool_exchanges, wire_end
from harness.scenario.fake_api.exchange import Exchange
from harness.scenario.fake_api.served import failed
from harness.scenario.format.model import DEFAULT_MODEL, Scenario
from harness.scenario.format.positions import serve
from harness.scenario.run.hits import fault_hits, request_hits
from harness.scenario.run.timeline import format_timeline

MAX_SOURCE_LINES = 400
_TURN_EXPECT = re.compile(r"^turn (\d+): expect\.([\w.]+)")
_TURN = re.compile(r"^turn (\d+)\b")
_SCENARIO_EXPECT = re.compile(r"^expect\.(files\.[^:]+|\w+)")
_REQUEST = re.compile(r"^request (\d+)\b")
_REPLY_LINE = re.compile(r"the reply on line (\d+)")
_FILE_LINE = re.compile(r"^.+?:(\d+):\d+: ")


def scenario_record(
    path: Path, outcome: Outcome | None, problems: list[str], wall_ms: float, *, scenario: Scenario | None = None
) -> dict[str, Any]:
    """What the report needs of one scenario file's run (``outcome`` None: it did not
    load, and ``problems`` are its ``path:line:col`` mistakes)."""
    scenario = outcome.scenario if outcome is not None else scenario
    record: dict[str, Any] = {
        "file": str(path),
        "name": scenario.name if scenario else path.stem,
        "about": scenario.about if scenario else "",
        "result": _result(outcome, problems),
        "skipped": outcome.skipped if outcome else None,
        "agent": outcome.agent_name if outcome else None,
        "requests": len(outcome.requests) if outcome else 0,
        "virtual_seconds": round(outcome.virtual_seconds, 3) if outcome else 0.0,
        "wall_ms": round(wall_ms, 1),
        "problems": [{"text": p, "line": problem_line(p, outcome)} for p in problems],
        "notes": list(outcome.notes) if outcome else [],
        "not_checked": list(outcome.not_checked) if outcome else [],
        "source": _source(path),
        "timeline_text": format_timeline(outcome) if outcome and not outcome.skipped else "",
        "turns": [], "calls": [], "sleeps": [], "tools": [], "hits": [],
    }
    if outcome is not None and not outcome.skipped:
        record |= _picture(outcome, record["problems"])
        record["hits"] = [list(hit) for hit in fault_hits(outcome)]
    return record



def _result(outcome: Outcome | None, problems: list[str]) -> str:
    if outcome is None:
        return "broken"
    if outcome.skipped:
        return "skip"
    return "fail" if problems else "pass"


def problem_line(problem: str, outcome: Outcome | None) -> int | None:
    """The line of the scenario file a problem is about: the expectation that failed,
    the reply a bad request answered, the turn; None when it cannot be told."""
    if outcome is None:
        found = _FILE_LINE.match(problem)
        return int(found.group(1)) if found else None
    scenario = outcome.scenario
    if found := re.search(rf"\({re.escape(str(scenario.path))}:(\d+)\)$", problem):  # the check said where
        return int(found.group(1))
    if found := _REPLY_LINE.search(problem):
        return int(found.group(1))
    if found := _TURN_EXPECT.match(problem):
        turn = _turn_spec(scenario, int(found.group(1)))
        key = re.sub(r"\[\d+\]", "", found.group(2))
        if turn is None:
            return None
        while key and key not in turn.expect_lines:
            key = key.rpartition(".")[0]
        return turn.expect_lines.get(key) or turn.line or None
    if found := _SCENARIO_EXPECT.match(problem):
        key = found.group(1)
        return scenario.expect_lines.get(key) or scenario.expect_lines.get(key.split(".")[0])
    if found := _REQUEST.match(problem):
        number = int(found.group(1))
        request = next((r for r in outcome.requests if r.number == number), None)
        if request is not None and request.reply is not None and request.reply.line:
            return request.reply.line
        turn = next((t for t in outcome.turns if any(r.number == number for r in t.requests)), None)
        return _turn_line(scenario, turn.number) if turn else None
    if found := _TURN.match(problem):
        return _turn_line(scenario, int(found.group(1)))
    turn_named = re.search(r"\bturn (\d+)\b", problem)
    return _turn_line(scenario, int(turn_named.group(1))) if turn_named else None


def _turn_spec(scenario: Scenario, number: int) -> Any:
    return scenario.turns[number - 1] if 1 <= number <= len(scenario.turns) else None


def _turn_line(scenario: Scenario, number: int) -> int | None:
    turn = _turn_spec(scenario, number)
    return turn.line or None if turn is not None else None


def _source(path: Path) -> list[str]:
    try:
        return path.read_text(encoding="utf-8", errors="replace").splitlines()[:MAX_SOURCE_LINES]
    except OSError:
        return []


def _picture(outcome: Outcome, problems: list[dict[str, Any]]) -> dict[str, Any]:
    """The timeline picture's parts, each with its virtual time and its order (``mark``)."""
    failing = {int(m.group(1)) for p in problems if (m := _TURN.match(p["text"]))}
    failing |= {_turn_of(outcome, int(m.group(1))) for p in problems if (m := _REQUEST.match(p["text"]))}
    turns = [_turn(outcome, turn, turn.number in failing) for turn in outcome.turns]
    calls = [
        {
            "number": r.number, "turn": _turn_of(outcome, r.number), "time": r.time, "finished": r.finished,
            "mark": r.mark, "reply": r.reply.describe() if r.reply else ("rejected" if r.violations else "no reply left"),
            "status": None if r.plan is None or r.plan.connection else r.plan.status,
            "failed": failed(r), "streaming": r.streaming, "invalid": [str(v) for v in r.violations],
            "hits": [list(h) for h in request_hits(r)] if r.reply is not None else [],
            "fraction": _sent_fraction(r), "line": r.reply.line if r.reply else None,
        }
        for r in outcome.requests
    ]
    sleeps = [{"time": began, "mark": mark, "seconds": seconds} for began, mark, seconds in outcome.sleeps]
    tools = [
        {"name": x.name, "served_in": x.served_in, "answered_in": x.answered_in, "error": x.is_error}
        for x in tool_exchanges(outcome.requests, outcome.tool_map)
    ]
    return {"turns": turns, "calls": calls, "sleeps": sleeps, "tools": tools}


def _turn(outcome: Outcome, turn: TurnResult, failing: bool) -> dict[str, Any]:
    spec = _turn_spec(outcome.scenario, turn.number)
    return {
        "number": turn.number, "label": turn.label, "user": turn.user, "line": spec.line if spec else None,
        "first_mark": turn.first_mark, "last_mark": turn.last_mark, "failing": failing,
        "end": wire_end(turn.requests, interrupted=turn.interrupted), "agent_end": turn.end,
        "interrupted": turn.interrupted, "raised": turn.raised,
        "interrupt": {"tool": spec.interrupt.tool, "at_event": spec.interrupt.at_event, "close": spec.interrupt.close}
        if spec is not None and spec.interrupt is not None else None,
        "start": turn.requests[0].time if turn.requests else (turn.events[0][0] if turn.events else 0.0),
    }


def _turn_of(outcome: Outcome, number: int) -> int:
    return next((t.number for t in outcome.turns if any(r.number == number for r in t.requests)), 0)


def _sent_fraction(request: Exchange) -> float | None:
    """How much of the stream reached the client before it ended early (None: all of it,
    or not a stream)."""
    plan = request.plan
    if plan is None or plan.connection or plan.ending == "complete" or request.reply is None or not request.streaming:
        return None
    model = request.body.get("model") if isinstance(request.body, dict) else None
    size = serve(request.reply, model=str(model or DEFAULT_MODEL), number=request.number).size
    return round(min(1.0, len(plan.body) / size), 3) if size else 0.0
