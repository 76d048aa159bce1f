"""``cut: k`` or ``cut: {in_event: k, how: rst}``: the connection drops mid-body, after
an event, in the middle of one, after n bytes or inside a UTF-8 character, by FIN (the
server closes) or RST (the connection is reset). It cuts an HTTP error's body too (as one
event). Without ``stream``, the JSON body cut at the share of the stream that had
arrived, or after n bytes of it."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Literal, Mapping, Sequence

from harness.wire import sse
from harness.wire.faults.base import (
    SENT,
    STREAM_OR_BODY,
    ByteFault,
    Fault,
    Hit,
    PositionError,
    before_message_stop,
    event_number,
    position,
    setting,
    within,
)
from harness.wire.faults.json_forms import CutBody, JsonForm
from harness.wire.plan import WirePlan, cut_after, frame_spans

if TYPE_CHECKING:
    from hypothesis.strategies import SearchStrategy

WHERE = ("after_event", "in_event", "after_bytes", "in_char")


def _one_place(cut: Mapping[str, Any]) -> str | None:
    return None if sum(k in cut for k in WHERE) == 1 else f"a cut needs exactly one of: {', '.join(WHERE)}"


@dataclass(frozen=True)
class Cut(ByteFault):
    """The connection drops at one of ``WHERE``, by ``how``."""

    key = "cut"
    description = "The connection drops mid-body."
    shorthand = "after_event"
    rules = (_one_place,)
    role = "failure"

    after_event: int | None = position(None)
    in_event: int | None = event_number(None)
    after_bytes: int | None = setting(None, minimum=0, counts="bytes")
    in_char: int | None = event_number(None)  # inside the first multi-byte UTF-8 character from event k on
    how: Literal["fin", "rst"] = setting("fin", description="fin: the server closes; rst: the connection is reset")

    @classmethod
    def rows(cls) -> tuple[tuple[str, tuple[str, ...]], ...]:
        return tuple((f"{cls.key} ({variant})", STREAM_OR_BODY) for variant in ("FIN", "RST", "in_char"))

    def apply(self, plan: WirePlan, frames: list[bytes]) -> None:
        count = len(frames)
        within(self.path("after_event"), self.after_event, count)
        within(self.path("in_event"), self.in_event, count, low=1)
        within(self.path("in_char"), self.in_char, count, low=1)
        self._drop(plan, frame_spans(frames))

    def on_error_body(self, plan: WirePlan) -> None:
        self._drop(plan, [(0, len(plan.body))])

    def _drop(self, plan: WirePlan, spans: list[tuple[int, int]]) -> None:
        cut_after(plan, self.offset(plan.body, spans))
        plan.ending = self.how

    def offset(self, body: bytes, spans: list[tuple[int, int]]) -> int:
        """The byte offset at which the connection drops (``spans``: the frames of ``body``)."""
        if self.after_event is not None:
            return spans[min(self.after_event, len(spans)) - 1][1] if self.after_event > 0 else 0
        if self.in_event is not None:
            start, end = spans[min(self.in_event, len(spans)) - 1]
            return start + (end - start) // 2
        if self.after_bytes is not None:
            return min(self.after_bytes, len(body))
        start = spans[min(self.in_char or 1, len(spans)) - 1][0]
        for i in range(start, len(body)):
            if body[i] >= 0xC0:  # the lead byte of a multi-byte character
                return i + 1
        raise PositionError(
            self.path("in_char"),
            f"`{self.path('in_char')}: {self.in_char}`: no multi-byte UTF-8 character in the stream from that event on",
        )

    def json_form(self, frames: list[bytes]) -> JsonForm:
        if self.after_bytes is not None:
            return CutBody(self.how, after_bytes=self.after_bytes)
        return CutBody(self.how, delivered=self.offset(b"".join(frames), frame_spans(frames)))

    def check_bytes(self, size: int) -> None:
        within(self.path("after_bytes"), self.after_bytes, size, unit="byte")

    def label(self) -> str | None:
        name, value = next((name, getattr(self, name)) for name in WHERE if getattr(self, name) is not None)
        return f"cut {name.replace('_', ' ')} {value} ({self.how.upper()})"

    def hits(self) -> list[Hit]:
        variant = "in_char" if self.in_char is not None else self.how.upper()
        return [(f"{self.key} ({variant})", SENT)]

    @classmethod
    def strategy(cls, events: Sequence[dict], *, keep: Callable[[Fault], bool] | None = None) -> SearchStrategy[Fault]:
        return _cuts()(cls, events)


@functools.cache
def _cuts() -> Callable[..., SearchStrategy[Cut]]:
    """The strategy's composite, defined once (hypothesis reads its source each time one is defined)."""
    from hypothesis import strategies as st

    @st.composite
    def cuts(draw: st.DrawFn, cls: type[Cut], events: Sequence[dict]) -> Cut:
        how = draw(st.sampled_from(("fin", "rst")))
        where = draw(st.sampled_from(WHERE))
        if where == "in_char":
            wide = [k for k, event in enumerate(events, 1) if any(b >= 0xC0 for b in sse.encode_event(event))]
            if wide:
                return cls(in_char=draw(st.integers(1, wide[-1])), how=how)
            where = "after_bytes"
        if where == "after_event":
            return cls(after_event=draw(st.integers(0, before_message_stop(events))), how=how)
        if where == "in_event":
            return cls(in_event=draw(st.integers(1, len(events))), how=how)
        return cls(after_bytes=draw(st.integers(0, max(0, len(sse.encode_events(events)) - 1))), how=how)  # message_stop never whole

    return cuts
