"""``bad_data: k``: after event k, a frame whose ``data:`` line is not JSON (the SDK
raises on it). A JSON body cannot carry it: a scenario says what a request without
``stream`` gets with ``unstreamed:``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Sequence

from harness.wire.faults.base import (
    STREAM_OR_BODY,
    EventFault,
    Fault,
    Hit,
    RawFrame,
    before_message_stop,
    position,
    within,
)

if TYPE_CHECKING:
    from hypothesis.strategies import SearchStrategy

BAD_DATA_FRAME = b"event: content_block_delta\ndata: {not json\n\n"
BAD_DATA = RawFrame(BAD_DATA_FRAME, type="bad_data")


@dataclass(frozen=True)
class BadData(EventFault):
    """``BAD_DATA_FRAME`` after event ``after_event``."""

    key = "bad_data"
    description = "after event k, a `data:` line that is not JSON"
    shorthand = "after_event"
    mapping = False
    places = STREAM_OR_BODY
    role = "failure"
    no_json_form = "`bad_data` (a stream frame that is not JSON)"
    breaks_message = True

    after_event: int = position()

    def apply(self, events: list[dict]) -> list[dict]:
        within(self.key, self.after_event, len(events))
        events.insert(self.after_event, BAD_DATA)
        return events

    def label(self) -> str | None:
        return f"non-JSON data after event {self.after_event}"

    def hits(self) -> list[Hit]:
        return [(self.key, self.after_event)]

    @classmethod
    def strategy(cls, events: Sequence[dict], *, keep: Callable[[Fault], bool] | None = None) -> SearchStrategy[Fault]:
        from hypothesis import strategies as st

        return st.builds(cls, st.integers(0, before_message_stop(events)))
