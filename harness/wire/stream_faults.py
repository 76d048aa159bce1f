"""The event-level faults of a stream, applied to its events: pings, inserts, a
duplicate, a swap, an error event, a clean early end, a non-JSON frame; and the check
that a fault's event or byte position lies inside the stream it applies to."""

from __future__ import annotations

from typing import Any

from harness.wire import sse
from harness.wire.api_errors import error_body
from harness.wire.errors import HarnessError
from harness.wire.replies import Reply


class _BadData(dict):
    """Marker for the frame whose data line is not JSON."""


BAD_DATA: dict[str, Any] = _BadData(type="bad_data")


class PositionError(HarnessError, ValueError):
    """A fault that names an event or a byte the stream does not have; ``field`` as the
    scenario file spells it (``cut.after_event``)."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


def within(field: str, number: int | None, count: int, *, low: int = 0, high: int | None = None, unit: str = "event") -> None:
    """PositionError unless ``number`` (None: not given) lies in ``low``..``high``
    (default: ``count``, the events or bytes the stream has)."""
    high = count if high is None else high
    if number is None or low <= number <= high:
        return
    served = f"{count} bytes" if unit == "byte" else f"events 1 to {count}" if count else "no events"
    valid = f"valid: {low} to {high}" if low <= high else "no position is valid"
    raise PositionError(field, f"`{field}: {number}` is beyond the reply ({served} as served; {valid})")


def stream_events(reply: Reply, *, message_id: str, model: str, rendered: sse.Rendered | None = None) -> list[dict[str, Any]]:
    """The events of a message reply after the event-level faults, applied in this order:
    pings, inserts, a duplicate, a swap, an error event, a clean early end, a non-JSON
    frame. Each fault counts events in the stream as the faults before it left it, and
    one that names an event beyond that stream is a PositionError. ``rendered``: as for
    ``sse.message_events``."""
    if reply.events is not None:
        events = list(reply.events)
    else:
        events = sse.message_events(reply.message or {}, message_id=message_id, model=model, rendered=rendered)
    if reply.pings:
        events = _with_pings(events, reply.pings)
    for n, insert in enumerate(reply.insert):
        within(f"insert[{n}].after_event", insert.after_event, len(events))
    for insert in sorted(reply.insert, key=lambda i: -i.after_event):
        events.insert(insert.after_event, insert.event)
    if reply.duplicate is not None:
        within("duplicate", reply.duplicate, len(events), low=1)
        events.insert(reply.duplicate, events[reply.duplicate - 1])
    if reply.swap is not None:
        within("swap", reply.swap, len(events), low=1, high=len(events) - 1)
        i = reply.swap - 1
        events[i], events[i + 1] = events[i + 1], events[i]
    if reply.error_event is not None:
        k = reply.error_event.after_event
        within("error_event.after_event", k, len(events))
        events = events[:k] + [error_body(reply.error_event.type, reply.error_event.message)]
    if reply.end_early is not None:
        within("end_early", reply.end_early, len(events), high=len(events) - 1)
        events = events[: reply.end_early]
    if reply.bad_data is not None:
        within("bad_data", reply.bad_data, len(events))
        events = events[: reply.bad_data] + [BAD_DATA] + events[reply.bad_data :]
    return events


def _with_pings(events: list[dict[str, Any]], count: int) -> list[dict[str, Any]]:
    """``count`` pings spread after message_start and between later events."""
    out = list(events)
    step = max(1, (len(out) - 1) // count)
    for n in range(count, 0, -1):
        out.insert(min(len(out) - 1, 1 + (n - 1) * step), sse.ping_event())
    return out
