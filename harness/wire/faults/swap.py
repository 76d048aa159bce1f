"""``swap: k``: events k and k+1 change places."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Sequence

from harness.wire.faults.base import EventFault, Fault, Hit, event_number, within

if TYPE_CHECKING:
    from hypothesis.strategies import SearchStrategy


@dataclass(frozen=True)
class Swap(EventFault):
    """Event ``event`` (counted from 1) and the one after it, in each other's place."""

    key = "swap"
    description = "this event and the next change places, counted from 1 (message_start is event 1)"
    shorthand = "event"
    mapping = False

    event: int = event_number()

    def apply(self, events: list[dict]) -> list[dict]:
        within(self.key, self.event, len(events), low=1, high=len(events) - 1)
        i = self.event - 1
        events[i], events[i + 1] = events[i + 1], events[i]
        return events

    def label(self) -> str | None:
        return f"events {self.event} and {self.event + 1} swapped"

    def hits(self) -> list[Hit]:
        return [(self.key, self.event - 1)]

    @classmethod
    def strategy(cls, events: Sequence[dict], *, keep: Callable[[Fault], bool] | None = None) -> SearchStrategy[Fault] | None:
        from hypothesis import strategies as st

        return st.builds(cls, st.integers(1, len(events) - 1)) if len(events) > 1 else None
