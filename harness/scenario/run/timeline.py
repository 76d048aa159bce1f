"""A failing scenario explained at a glance: virtual time, each request with its reply
and fault, each sleep and notice, then the problems."""

from __future__ import annotations

from typing import Any

from harness.agents.events import MessageDone, Notice, ToolCall, ToolResult, TurnEnd
from harness.scenario.checks.outcome import Outcome
from harness.scenario.fake_api.conversation import content_text


def format_timeline(outcome: Outcome) -> str:
    """The whole run as lines ``t=1.234s  …``, then every problem."""
    scenario = outcome.scenario
    rows: list[tuple[int, float, str]] = []
    for turn in outcome.turns:
        made = [r.time for r in (*turn.requests, *turn.side_requests)]
        slept = [began for began, mark, _ in outcome.sleeps if turn.first_mark <= mark <= turn.last_mark]
        heard = [*made, *slept, *(at for at, _, _ in turn.events[:1])]
        start = min(heard) if heard else 0.0  # when the turn was first heard of: a wait before its first request too
        rows.append((turn.first_mark, start, f"{turn.label} > {turn.user}"))
        rows += [(r.mark, r.time, f"  → request {r.number}: {_request_summary(r)}") for r in turn.requests]
        rows += [(r.mark, r.time, f"  ↳ side request {r.number} ({r.side}): {_request_summary(r)}") for r in turn.side_requests]
        rows += [(mark, at, f"    {line}") for at, mark, event in turn.events if (line := _event_line(event))]
        if not any(isinstance(event, ToolResult) for _, _, event in turn.events):  # the agent's answers, read from the wire
            rows += [(r.mark - 0.5, r.time, f"    ↩ {line}") for r in turn.requests for line in _sent_results(r)]
        rows += _interrupt_rows(outcome, turn)
        if turn.raised:  # a cancelled async turn lets Ctrl+C through, as asyncio's rule says: no failure
            mark = "■" if turn.cancelled else "✗"
            waits = [began + seconds for began, at, seconds in outcome.sleeps if turn.first_mark <= at <= turn.last_mark]
            last = max([start, *made, *waits, *(at for at, _, _ in turn.events)])  # when the turn was last heard of
            rows.append((turn.last_mark, last, f"    {mark} run_turn raised {turn.raised}"))
    rows += [(mark, began, f"    ⏸ sleep {seconds:.3f}s") for began, mark, seconds in outcome.sleeps]
    rows.sort()
    lines = [f"scenario {scenario.name} ({scenario.path})", f"  {scenario.about}"]
    if outcome.skipped:
        return "\n".join([*lines, f"  skipped: {outcome.skipped}"])
    if outcome.not_applicable is not None:
        lines.append(f"  not applicable: {outcome.not_applicable}")
    lines += [f"  t={at:8.3f}s {text}" for _, at, text in rows]
    lines += [f"  ✗ {problem}" for problem in outcome.problems]
    lines += [f"  ⚠ {note}" for note in outcome.notes]
    if outcome.not_checked:
        lines.append(f"  ○ not checked for this agent: {', '.join(outcome.not_checked)}")
    return "\n".join(lines)


def _interrupt_rows(outcome: Outcome, turn: Any) -> list[tuple[float, float, str]]:
    """The scenario's turn-level interrupt, right after the event that triggered it."""
    specs = outcome.scenario.turns
    spec = specs[turn.number - 1].interrupt if turn.interrupted and turn.number <= len(specs) else None
    if spec is None:
        return []
    if spec.at_event is not None:
        hits, where = turn.events[spec.at_event - 1 : spec.at_event], f"at event {spec.at_event} of the turn"
    else:
        hits = [e for e in turn.events if isinstance(e[2], ToolCall) and e[2].name == spec.tool]
        where = f"when {spec.tool} was called"
    what = "the harness closed the turn's generator" if spec.close else "Ctrl+C"
    return [(mark + 0.5, at, f"    ⚡ {what} {where}") for at, mark, _ in hits[:1]]


def _request_summary(request: Any) -> str:
    body = request.body if isinstance(request.body, dict) else {}
    messages = len(body.get("messages", []))
    if request.reply:
        reply = request.reply.describe()
    else:
        reply = "rejected" if request.violations else f"refused: {request.refused}" if request.refused else "no reply left"
    reply += " (again: no reply was left)" if getattr(request, "repeated", False) else ""
    status = "" if request.plan is None or request.plan.connection else f" [{request.plan.status}]"
    form = f" · served as {request.plan.form}" if request.plan is not None and request.plan.form else ""
    verdict = "; ".join(str(v) for v in request.violations)
    invalid = f" ✗ invalid: {verdict}" if verdict else ""
    stream = "" if request.streaming else ", no stream"
    return f"{request.method} {request.path} ({messages} messages{stream}) ← {reply}{status}{form}{invalid}"


def _sent_results(request: Any) -> list[str]:
    """A line for each tool result the request sends (its last message's), for an agent
    whose events do not say what its tools returned."""
    messages = request.body.get("messages") if isinstance(request.body, dict) else None
    last = messages[-1] if isinstance(messages, list) and messages and isinstance(messages[-1], dict) else {}
    blocks = last.get("content") if last.get("role") == "user" and isinstance(last.get("content"), list) else []
    lines = []
    for block in blocks:
        if isinstance(block, dict) and block.get("type") == "tool_result":
            text = content_text(block.get("content")).strip()
            first = text.splitlines()[0][:80] if text else ""
            lines.append(f"tool result {'(error) ' if block.get('is_error') else ''}sent: {first}")
    return lines


def _event_line(event: Any) -> str | None:
    if isinstance(event, Notice):
        return f"· notice: {event.text}"
    if isinstance(event, ToolCall):
        return f"⚙ tool {event.name} called"
    if isinstance(event, ToolResult):
        return f"⚙ tool {event.name} {'failed' if event.is_error else 'returned'}: {event.content.splitlines()[0][:80] if event.content else ''}"
    if isinstance(event, MessageDone):
        return f"✓ message done ({event.stop_reason})"
    if isinstance(event, TurnEnd):
        return f"■ turn ended: {event.reason}"
    return None
