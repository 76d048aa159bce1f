"""``insert: [{after_event: k, event: {…}}, …]``: raw events inserted into the stream (an
event type from a later API version, a ping …)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Callable, Sequence

from harness.wire.faults.base import EventFault, Fault, Hit, position, setting, within
from harness.wire.faults.moving import moved_by

if TYPE_CHECKING:
    from hypothesis.strategies import SearchStrategy

UNKNOWN_EVENT = {"type": "future_event", "detail": "added in a later API version"}


@dataclass(frozen=True)
class InsertedEvent:
    """One raw event and where it goes."""

    after_event: int = position()
    event: dict[str, Any] = setting()


@dataclass(frozen=True)
class Insert(EventFault):
    """Raw events, each after event k of the stream as the faults before left it (all
    counted in that one stream, not in each other)."""

    key = "insert"
    description = "raw events inserted into the stream"
    shorthand = "events"
    mapping = False
    role = "noise"

    events: tuple[InsertedEvent, ...] = setting(())

    @classmethod
    def from_yaml(cls, value: Any) -> Fault | None:
        return super().from_yaml(value) if value else None  # ``insert: []`` inserts nothing

    def apply(self, events: list[dict]) -> list[dict]:
        for n, item in enumerate(self.events):
            within(f"{self.key}[{n}].after_event", item.after_event, len(events))
        for item in sorted(self.events, key=lambda i: -i.after_event):
            events.insert(item.after_event, item.event)
        return events

    def moved(self, events: int) -> Fault | None:
        moved = moved_by(self, events)  # and the block an inserted event names is one further on
        return Insert(tuple(replace(item, event=_next_block(item.event)) for item in moved.events))

    def label(self) -> str | None:
        return f"{len(self.events)} inserted events" if self.events else None

    def hits(self) -> list[Hit]:
        return [(self.key, item.after_event) for item in self.events]

    def without(self, field: str) -> Fault | None:
        index = int(field[len(self.key) + 1 : field.index("]")])
        rest = self.events[:index] + self.events[index + 1 :]
        return Insert(rest) if rest else None

    @classmethod
    def strategy(cls, events: Sequence[dict], *, keep: Callable[[Fault], bool] | None = None) -> SearchStrategy[Fault] | None:
        from hypothesis import strategies as st

        if len(events) <= 2:
            return None  # nowhere between message_start and message_stop
        return st.builds(cls, st.builds(_unknown_event_after, st.integers(1, len(events) - 1)))


def _unknown_event_after(event: int) -> tuple[InsertedEvent, ...]:
    return (InsertedEvent(event, UNKNOWN_EVENT),)


def _next_block(event: dict[str, Any]) -> dict[str, Any]:
    """``event`` naming the block after the one it named (a block added before them all)."""
    index = event.get("index")
    return {**event, "index": index + 1} if isinstance(index, int) and not isinstance(index, bool) else event
