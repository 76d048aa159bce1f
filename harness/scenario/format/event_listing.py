"""``harness events FILE``: each reply's numbered events and byte offsets exactly as the
fake API serves them, and where its fault ends the stream, so that ``after_event``,
``in_event`` and ``after_bytes`` can be chosen by looking. A reply served at a pace (a
``pace:``, a recording's times, a drip) also shows when each event is whole, counted from
the request, and the longest silence a client sits through."""

from __future__ import annotations

from harness.scenario.format.model import DEFAULT_MODEL, Scenario
from harness.scenario.format.positions import ServedReply, serve, without_fault
from harness.wire.errors import HarnessError
from harness.wire.faults.drip import Drip
from harness.wire.faults.end_early import EndEarly
from harness.wire.faults.pace import Pace
from harness.wire.plan import WirePlan


class ListingError(HarnessError, ValueError):
    """A ``--turn`` or ``--reply`` the scenario does not have."""


def list_events(scenario: Scenario, *, turn: int | None = None, reply: int | None = None) -> str:
    """The listing of every reply of ``scenario`` (or of one turn, or one reply of it)."""
    model = scenario.settings.get("model", DEFAULT_MODEL)
    turns = scenario.turns
    if turn is not None and not 1 <= turn <= len(turns):
        raise ListingError(f"{scenario.path}: --turn {turn}: the scenario has turns 1 to {len(turns)}")
    if reply is not None and turn is None:
        raise ListingError("--reply needs --turn")
    lines = [
        f"{scenario.path}: each reply as the first request for it gets it (model {model}). Events count from 1,",
        "bytes from 0; after_event k cuts at the end of event k. Byte offsets move with the model name and",
        "tool names an agent sends; event numbers do not.",
    ]
    request = 0
    for t, spec in enumerate(turns, 1):
        if reply is not None and t == turn and not 1 <= reply <= len(spec.replies):
            raise ListingError(f"{scenario.path}: --reply {reply}: turn {t} has replies 1 to {len(spec.replies)}")
        for k, candidate in enumerate(spec.replies, 1):
            request += 1
            if (turn is None or t == turn) and (reply is None or k == reply):
                where = f" (line {candidate.line})" if candidate.line else ""
                lines += ["", f"turn {t}, reply {k}{where}: {candidate.describe()}"]
                lines += _reply_lines(serve(candidate, model=model, number=request), model, request)
    return "\n".join(lines)


def _reply_lines(served: ServedReply, model: str, number: int) -> list[str]:
    if served.problem is not None:
        said = [f"  ✗ cannot be served: {served.problem}"]
        if served.problem_field is None:
            return said
        rest = serve(without_fault(served.reply, served.problem_field), model=model, number=number)
        return [f"  without `{served.problem_field}`:", *_reply_lines(rest, model, number), *said]
    plan = served.plan
    assert plan is not None
    if plan.connection is not None:
        return [f"  no HTTP response: the connection fault `{plan.connection}`"]
    if not served.frames:
        return [f"  HTTP {plan.status}, a {len(plan.body)}-byte {plan.headers.get('content-type', '')} body (not a stream)"]
    sent = served.sent
    times = whole_at(plan) if plan.head_delay or any(plan.delays) else None
    rows = ["     #       bytes  event" if times is None else "     #       bytes        at  event"]
    for frame in served.frames:
        mark = " " if frame.end <= sent else "·" if frame.start >= sent else "½"
        at = "" if times is None else f"{_at(times, frame.end) if frame.end <= sent else '':>8}  "
        rows.append(f"  {mark}{frame.number:3}  {frame.start:5}–{frame.end:<5}  {at}{frame.name:<20} {frame.detail}".rstrip())
    rows.append(_ending(served))
    if times is not None:
        rows.append(f"  ⏱ the headers after {plan.head_delay:.3f}s; the longest silence after them {max(plan.delays, default=0):.3f}s")
    return rows


def whole_at(plan: WirePlan) -> list[tuple[int, float]]:
    """``(bytes sent, seconds since the request)`` after each chunk of ``plan``."""
    times, sent, now = [], 0, plan.head_delay
    for chunk, delay in zip(plan.chunks, plan.delays):
        sent, now = sent + len(chunk), now + delay
        times.append((sent, now))
    return times


def _at(times: list[tuple[int, float]], end: int) -> str:
    """When byte ``end`` has arrived."""
    return next((f"{now:.3f}s" for sent, now in times if sent >= end), "")


def _ending(served: ServedReply) -> str:
    plan, frames, sent = served.plan, served.frames, served.sent
    assert plan is not None
    whole = sum(1 for f in frames if f.end <= sent)
    of = f"{len(frames)} events, {served.size} bytes"
    drip = served.reply.fault(Drip)
    dripping = f"; sent in {drip.chunk}-byte chunks {drip.delay:g}s apart" if drip else ""
    early = served.reply.fault(EndEarly)
    if plan.ending == "complete" and early is not None:
        return f"  ■ the stream ends cleanly after event {whole}, with no message_stop: {of}{dripping}"
    if plan.ending == "complete":
        return f"  ■ the stream is complete: {of}{dripping}"
    if plan.ending in ("fin", "rst"):
        inside = next((f for f in frames if f.start < sent < f.end), None)
        where = f"inside event {inside.number}" if inside else f"after event {whole}"
        return f"  ✂ the connection drops ({plan.ending.upper()}) at byte {sent}, {where} (of {of}){dripping}"
    if plan.ending == "stall":
        return f"  ⏸ the server goes silent after event {whole} for {plan.stall_seconds:g}s (of {of})"
    return f"  ⚡ Ctrl+C while the stream is at event {whole} (of {of})"


def pace_notes(scenario: Scenario) -> list[str]:
    """Lint's note on each reply served at a pace: when its headers come, when it is
    whole, and its longest silence (what a client's stream-idle timeout must allow)."""
    model = scenario.settings.get("model", DEFAULT_MODEL)
    notes = []
    for t, turn in enumerate(scenario.turns, 1):
        for k, reply in enumerate(turn.replies, 1):
            plan = serve(reply, model=model).plan if reply.fault(Pace) else None
            if plan is None:
                continue
            whole = plan.head_delay + sum(plan.delays)
            notes.append(
                f"{scenario.path}:{reply.line}: turn {t}, reply {k} is paced: the headers after {plan.head_delay:.3f}s, "
                f"the last byte after {whole:.3f}s, the longest silence {max(plan.delays, default=0):.3f}s"
            )
    return notes
