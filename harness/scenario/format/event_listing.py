"""``harness events FILE``: each reply's numbered events and byte offsets exactly as the
fake API serves them, and where its fault ends the stream, so that ``after_event``,
``in_event`` and ``after_bytes`` can be chosen by looking."""

from __future__ import annotations

from harness.scenario.format.model import DEFAULT_MODEL, Scenario
from harness.scenario.format.positions import ServedReply, serve, without_fault
from harness.wire.errors import HarnessError
from harness.wire.faults.drip import Drip


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
    rows = ["     #       bytes  event"]
    for frame in served.frames:
        mark = " " if frame.end <= sent else "·" if frame.start >= sent else "½"
        rows.append(f"  {mark}{frame.number:3}  {frame.start:5}–{frame.end:<5}  {frame.name:<20} {frame.detail}".rstrip())
    rows.append(_ending(served))
    return rows


def _ending(served: ServedReply) -> str:
    plan, frames, sent = served.plan, served.frames, served.sent
    assert plan is not None
    whole = sum(1 for f in frames if f.end <= sent)
    of = f"{len(frames)} events, {served.size} bytes"
    drip = served.reply.fault(Drip)
    dripping = f"; sent in {drip.chunk}-byte chunks {drip.delay:g}s apart" if drip else ""
    if plan.ending == "complete":
        return f"  ■ the stream is complete: {of}{dripping}"
    if plan.ending in ("fin", "rst"):
        inside = next((f for f in frames if f.start < sent < f.end), None)
        where = f"inside event {inside.number}" if inside else f"after event {whole}"
        return f"  ✂ the connection drops ({plan.ending.upper()}) at byte {sent}, {where} (of {of}){dripping}"
    if plan.ending == "stall":
        return f"  ⏸ the server goes silent after event {whole} for {plan.stall_seconds:g}s (of {of})"
    return f"  ⚡ Ctrl+C while the stream is at event {whole} (of {of})"
