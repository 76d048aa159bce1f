"""One scenario's result as plain data (JSON-able, so pytest-xdist workers can send it
back): the verdict, the problems (``{text, line, kind, turn, request}``: the sentence,
the file line it is about, and its record's fields), the picture's turns, requests,
sleeps and tool runs on the virtual clock, and the faults' hits."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from harness.scenario.checks.outcome import Outcome, TurnResult
from harness.scenario.checks.wire_view import tool_exchanges, turn_wire_end
from harness.scenario.fake_api.exchange import Exchange
from harness.scenario.fake_api.served import failed
from harness.scenario.format.model import DEFAULT_MODEL, Scenario
from harness.scenario.format.positions import serve
from harness.scenario.format.problem import Problem
from harness.scenario.run.hits import fault_hits, request_hits
from harness.scenario.run.timeline import format_timeline

MAX_SOURCE_LINES = 400


def scenario_record(
    path: Path, outcome: Outcome | None, problems: list[Problem], wall_ms: float, *, scenario: Scenario | None = None
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
        "not_applicable": outcome.not_applicable if outcome else None,
        "agent": outcome.agent_name if outcome else None,
        "requests": len(outcome.requests) if outcome else 0,
        "virtual_seconds": round(outcome.virtual_seconds, 3) if outcome else 0.0,
        "wall_ms": round(wall_ms, 1),
        "problems": [problem_record(p, scenario) for p in problems],
        "notes": list(outcome.notes) if outcome else [],
        "not_checked": list(outcome.not_checked) if outcome else [],
        "source": _source(path),
        "timeline_text": format_timeline(outcome) if outcome and not outcome.skipped else "",
        "turns": [], "calls": [], "sleeps": [], "tools": [], "hits": [],
    }
    if outcome is not None and not outcome.skipped:
        record |= _picture(outcome, problems)
        record["hits"] = [list(hit) for hit in fault_hits(outcome)]
    return record



def _result(outcome: Outcome | None, problems: list[Problem]) -> str:
    if outcome is None:
        return "broken"
    if outcome.skipped:
        return "skip"
    if outcome.not_applicable is not None:
        return "n/a"
    return "fail" if problems else "pass"


def problem_record(problem: Problem, scenario: Scenario | None) -> dict[str, Any]:
    """A problem as the reports read it; its ``line`` is the one the check named, else
    the line of its turn (None when neither is known)."""
    turn = _turn_spec(scenario, problem.turn) if scenario is not None and problem.turn is not None else None
    return {
        "text": str(problem), "line": problem.line or (turn.line if turn is not None else None) or None,
        "kind": problem.kind.value, "turn": problem.turn, "request": problem.request,
    }


def _turn_spec(scenario: Scenario, number: int) -> Any:
    return scenario.turns[number - 1] if 1 <= number <= len(scenario.turns) else None


def _source(path: Path) -> list[str]:
    try:
        return path.read_text(encoding="utf-8", errors="replace").splitlines()[:MAX_SOURCE_LINES]
    except OSError:
        return []


def _picture(outcome: Outcome, problems: list[Problem]) -> dict[str, Any]:
    """The timeline picture's parts, each with its virtual time and its order (``mark``)."""
    failing = {p.turn for p in problems}
    turns = [_turn(outcome, turn, turn.number in failing) for turn in outcome.turns]
    calls = [
        {
            "number": r.number, "turn": _turn_of(outcome, r.number), "time": r.time, "finished": r.finished,
            "mark": r.mark, "reply": r.reply.describe() if r.reply else ("rejected" if r.violations else "no reply left"),
            "status": None if r.plan is None or r.plan.connection else r.plan.status,
            "failed": failed(r), "streaming": r.streaming, "invalid": [str(v) for v in r.violations],
            "hits": [list(h) for h in request_hits(r)] if r.reply is not None else [],
            "fraction": _sent_fraction(r), "line": r.reply.line if r.reply else None, "side": r.side,
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
        "end": turn_wire_end(turn), "agent_end": turn.end,
        "interrupted": turn.interrupted, "raised": turn.raised,
        "interrupt": {"tool": spec.interrupt.tool, "at_event": spec.interrupt.at_event, "close": spec.interrupt.close}
        if spec is not None and spec.interrupt is not None else None,
        "start": turn.requests[0].time if turn.requests else (turn.events[0][0] if turn.events else 0.0),
    }


def _turn_of(outcome: Outcome, number: int) -> int:
    return next((t.number for t in outcome.turns if any(r.number == number for r in (*t.requests, *t.side_requests))), 0)


def _sent_fraction(request: Exchange) -> float | None:
    """How much of the stream reached the client before it ended early (None: all of it,
    or not a stream)."""
    plan = request.plan
    if plan is None or plan.connection or plan.ending == "complete" or request.reply is None or not request.streaming:
        return None
    model = request.body.get("model") if isinstance(request.body, dict) else None
    size = serve(request.reply, model=str(model or DEFAULT_MODEL), number=request.number).size
    return round(min(1.0, len(plan.body) / size), 3) if size else 0.0
