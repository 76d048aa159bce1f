"""``interrupt: k``: the user presses Ctrl+C while the answer streams, after event k.
Without ``stream``, Ctrl+C comes while the JSON body arrives, at the same share of it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Sequence

from harness.wire.faults.base import SENT, ByteFault, Fault, Hit, position, within
from harness.wire.faults.json_forms import CutBody, JsonForm

if TYPE_CHECKING:
    from hypothesis.strategies import SearchStrategy

    from harness.wire.plan import WirePlan


@dataclass(frozen=True)
class Interrupt(ByteFault):
    """The first ``after_event`` frames reach the client, then Ctrl+C."""

    key = "interrupt"
    description = "Ctrl+C while streaming, after event k (0: right after the headers)"
    shorthand = "after_event"
    mapping = False

    after_event: int = position()

    def apply(self, plan: WirePlan, frames: list[bytes]) -> None:
        within(self.key, self.after_event, len(frames))
        plan.chunks, plan.delays = frames[: self.after_event], plan.delays[: self.after_event]
        plan.ending = "interrupt"

    def json_form(self, frames: list[bytes]) -> JsonForm:
        return CutBody("interrupt", delivered=sum(map(len, frames[: self.after_event])))

    def label(self) -> str | None:
        return f"Ctrl+C after event {self.after_event}"

    def hits(self) -> list[Hit]:
        return [(self.key, SENT)]

    @classmethod
    def strategy(cls, events: Sequence[dict], *, keep: Callable[[Fault], bool] | None = None) -> SearchStrategy[Fault]:
        from hypothesis import strategies as st

        return st.builds(cls, st.integers(0, len(events)))
