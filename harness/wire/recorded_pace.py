"""A recorded answer's pace: the ``timing`` a recording keeps beside a vcrpy response
(``harness.cassette.timing`` writes it: ``{headers, first_event, gaps}``), read back as the
``Pace`` a replay serves it at, and the body split where those times fall (the end of
each SSE event; a body that is not a stream is one piece). The bytes are the recorded
ones, only cut into pieces."""

from __future__ import annotations

from typing import Any, Mapping

from harness.wire.faults.pace import Pace

TIMING_KEY = "timing"


def recorded_pace(response: Mapping[str, Any], *, speed: float = 1.0) -> Pace | None:
    """The Pace of a recorded response (None: it keeps no times, or they are not numbers)."""
    timing = response.get(TIMING_KEY)
    if not isinstance(timing, Mapping):
        return None
    try:
        gaps = tuple(float(gap) for gap in timing.get("gaps") or ())
        pace = Pace(first_event=float(timing.get("first_event", 0)), headers=float(timing.get("headers", 0)), gaps=gaps,
                    speed=speed)
    except (TypeError, ValueError):
        return None
    return pace if min((pace.first_event, pace.headers, *gaps), default=0.0) >= 0 else None


def event_pieces(body: bytes) -> list[bytes]:
    """``body`` cut after each SSE event (after each blank line); what follows the last one,
    if anything, is a piece of its own."""
    pieces, start = [], 0
    while (end := body.find(b"\n\n", start)) >= 0:
        pieces.append(body[start : end + 2])
        start = end + 2
    if start < len(body) or not pieces:
        pieces.append(body[start:])
    return pieces
