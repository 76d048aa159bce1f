"""``error_event: k`` or ``error_event: {after_event: k, type: …, message: …}``: an
``event: error`` inside the 200 stream after event k, and nothing after it. Without
``stream``, the same error as an HTTP status."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Sequence

from harness.wire.api_errors import STREAM_ERROR_STATUS, STREAM_ERROR_TYPES, error_body
from harness.wire.faults.base import (
    STREAM_OR_BODY,
    EventFault,
    Fault,
    Hit,
    before_message_stop,
    position,
    sampled,
    setting,
    within,
)
from harness.wire.faults.json_forms import AsStatus, JsonForm

if TYPE_CHECKING:
    from hypothesis.strategies import SearchStrategy


@dataclass(frozen=True)
class ErrorEvent(EventFault):
    """An ``event: error`` of ``type`` after event k; the stream ends with it."""

    key = "error_event"
    description = "An `event: error` inside the 200 stream."
    shorthand = "after_event"
    places = STREAM_OR_BODY
    role = "failure"
    breaks_message = True

    after_event: int = position()
    type: str = setting("overloaded_error", choices=STREAM_ERROR_TYPES)
    message: str = setting("Overloaded")

    def apply(self, events: list[dict]) -> list[dict]:
        within(self.path("after_event"), self.after_event, len(events))
        return events[: self.after_event] + [error_body(self.type, self.message)]

    def json_form(self, frames: list[bytes]) -> JsonForm:
        return AsStatus(STREAM_ERROR_STATUS[self.type], self.type, self.message, f"event: error after event {self.after_event}")

    def label(self) -> str | None:
        return f"event: error {self.type} after event {self.after_event}"

    def hits(self) -> list[Hit]:
        return [(self.key, self.after_event)]

    @classmethod
    def strategy(cls, events: Sequence[dict], *, keep: Callable[[Fault], bool] | None = None) -> SearchStrategy[Fault] | None:
        from hypothesis import strategies as st

        types = tuple(t for t in STREAM_ERROR_TYPES if keep is None or keep(cls(0, t)))
        return st.builds(cls, st.integers(0, before_message_stop(events)), sampled(types)) if types else None
