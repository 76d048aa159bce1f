"""``duplicate: k``: event k sent twice in a row."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Sequence

from harness.wire.faults.base import EventFault, Fault, Hit, event_number, within

if TYPE_CHECKING:
    from hypothesis.strategies import SearchStrategy


@dataclass(frozen=True)
class Duplicate(EventFault):
    """Event ``event`` (counted from 1) sent again right after itself."""

    key = "duplicate"
    description = "this event is sent twice, counted from 1 (message_start is event 1)"
    shorthand = "event"
    mapping = False

    event: int = event_number()

    def apply(self, events: list[dict]) -> list[dict]:
        within(self.key, self.event, len(events), low=1)
        events.insert(self.event, events[self.event - 1])
        return events

    def label(self) -> str | None:
        return f"event {self.event} twice"

    def hits(self) -> list[Hit]:
        return [(self.key, self.event - 1)]

    @classmethod
    def strategy(cls, events: Sequence[dict], *, keep: Callable[[Fault], bool] | None = None) -> SearchStrategy[Fault]:
        from hypothesis import strategies as st

        return st.builds(cls, st.integers(1, len(events)))
