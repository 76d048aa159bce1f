"""``stall: k`` or ``stall: {after_event: k, seconds: s}``: the server goes silent after
event k, and the client's read times out (on the virtual clock). Without ``stream``: the
headers, then silence."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Sequence

from harness.wire.faults.base import (
    SENT,
    ByteFault,
    Fault,
    Hit,
    position,
    sampled,
    setting,
    within,
)
from harness.wire.faults.json_forms import JsonForm, Silence

if TYPE_CHECKING:
    from hypothesis.strategies import SearchStrategy

    from harness.wire.plan import WirePlan


@dataclass(frozen=True)
class Stall(ByteFault):
    """The first ``after_event`` frames, then nothing for ``seconds``."""

    key = "stall"
    description = "The server stops sending after event k; the client's read times out."
    shorthand = "after_event"
    role = "failure"

    after_event: int = position()
    seconds: float = setting(600.0, description="seconds", minimum=0)

    def apply(self, plan: WirePlan, frames: list[bytes]) -> None:
        within(self.path("after_event"), self.after_event, len(frames))
        plan.chunks, plan.delays = frames[: self.after_event], plan.delays[: self.after_event]
        plan.ending, plan.stall_seconds = "stall", self.seconds

    def json_form(self, frames: list[bytes]) -> JsonForm:
        return Silence(self.seconds)

    def label(self) -> str | None:
        return f"stall {self.seconds:g}s after event {self.after_event}"

    def hits(self) -> list[Hit]:
        return [(self.key, SENT)]

    @classmethod
    def strategy(cls, events: Sequence[dict], *, keep: Callable[[Fault], bool] | None = None) -> SearchStrategy[Fault]:
        from hypothesis import strategies as st

        return st.builds(cls, st.integers(0, len(events)), sampled((0.5, 5.0, 30.0)))
