"""``pace: [s, s, …]``: the stream's events at a recorded pace, each event's frame s
seconds after the one before it (the last value for every later event). Without
``stream``, the message whole."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Sequence

from harness.wire.faults.base import WHOLE_STREAM, ByteFault, Fault, Hit, setting
from harness.wire.plan import WirePlan

if TYPE_CHECKING:
    from hypothesis.strategies import SearchStrategy


@dataclass(frozen=True)
class Pace(ByteFault):
    """Event k's frame ``delays[k-1]`` seconds after the frame before it."""

    key = "pace"
    description = "seconds before each event's frame, as recorded (the last for every later event)"
    shorthand = "delays"
    mapping = False
    places = (WHOLE_STREAM,)
    role = "noise"

    delays: tuple[float, ...] = setting(minimum=0)

    @classmethod
    def from_yaml(cls, value: Any) -> Fault | None:
        return super().from_yaml(value) if value else None  # ``pace: []`` changes nothing

    def apply(self, plan: WirePlan, frames: list[bytes]) -> None:
        last = len(self.delays) - 1
        plan.delays = [self.delays[min(k, last)] for k in range(len(plan.chunks))]

    def label(self) -> str | None:
        shown = ", ".join(f"{delay:g}s" for delay in self.delays[:3])
        return f"paced {shown}{' …' if len(self.delays) > 3 else ''}"

    def hits(self) -> list[Hit]:
        return [(self.key, WHOLE_STREAM)]

    @classmethod
    def strategy(cls, events: Sequence[dict], *, keep: Callable[[Fault], bool] | None = None) -> SearchStrategy[Fault]:
        from hypothesis import strategies as st

        delays = st.lists(st.sampled_from([0.0, 0.01, 0.5]), min_size=1, max_size=len(events))
        return delays.map(lambda drawn: cls(tuple(drawn)))
