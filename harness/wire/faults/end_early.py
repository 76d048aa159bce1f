"""``end_early: k``: the stream ends cleanly after event k, before message_stop: no
error, no stop reason. Without ``stream``, the JSON body cut at the same share."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Sequence

from harness.wire.faults.base import (
    STREAM_OR_BODY,
    EventFault,
    Fault,
    Hit,
    position,
    within,
)
from harness.wire.faults.json_forms import CutBody, JsonForm

if TYPE_CHECKING:
    from hypothesis.strategies import SearchStrategy


@dataclass(frozen=True)
class EndEarly(EventFault):
    """The first ``after_event`` events and nothing more."""

    key = "end_early"
    description = "the stream ends cleanly after event k, before message_stop"
    shorthand = "after_event"
    mapping = False
    places = STREAM_OR_BODY
    role = "failure"
    breaks_message = True

    after_event: int = position()

    def apply(self, events: list[dict]) -> list[dict]:
        within(self.key, self.after_event, len(events), high=len(events) - 1)
        return events[: self.after_event]

    def json_form(self, frames: list[bytes]) -> JsonForm:
        return CutBody("fin", delivered=sum(map(len, frames)))

    def label(self) -> str | None:
        return f"clean end after event {self.after_event}"

    def hits(self) -> list[Hit]:
        return [(self.key, self.after_event)]

    @classmethod
    def strategy(cls, events: Sequence[dict], *, keep: Callable[[Fault], bool] | None = None) -> SearchStrategy[Fault]:
        from hypothesis import strategies as st

        # never everything but message_stop: a client that takes message_delta as the end has
        # the whole message there, where one that waits for message_stop (mini_agent) asks again
        return st.builds(cls, st.integers(0, max(0, len(events) - 2)))
