"""``pings: n``: n ping events spread through the stream, which every client must skip."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Sequence

from harness.wire import sse
from harness.wire.faults.base import WHOLE_STREAM, EventFault, Fault, Hit, setting

if TYPE_CHECKING:
    from hypothesis.strategies import SearchStrategy

MAX_PINGS = 10_000


@dataclass(frozen=True)
class Pings(EventFault):
    """``count`` pings, after message_start and spread between the later events."""

    key = "pings"
    description = "ping events spread through the stream"
    shorthand = "count"
    mapping = False
    places = (WHOLE_STREAM,)
    role = "noise"
    spread = True

    count: int = setting(minimum=0, maximum=MAX_PINGS)

    @classmethod
    def from_yaml(cls, value: Any) -> Fault | None:
        return super().from_yaml(value) if value else None  # ``pings: 0`` sends none

    def apply(self, events: list[dict]) -> list[dict]:
        step = max(1, (len(events) - 1) // self.count) if self.count else 0
        for n in range(self.count, 0, -1):
            events.insert(min(len(events) - 1, 1 + (n - 1) * step), sse.ping_event())
        return events

    def label(self) -> str | None:
        return f"{self.count} pings" if self.count else None

    def hits(self) -> list[Hit]:
        return [(self.key, WHOLE_STREAM)]

    @classmethod
    def strategy(cls, events: Sequence[dict], *, keep: Callable[[Fault], bool] | None = None) -> SearchStrategy[Fault]:
        from hypothesis import strategies as st

        return st.builds(cls, st.integers(1, 3))
