"""``pace: {first_event: s, events_per_s: n, jitter: j, seed: k}``: the stream at a pace,
as a recording keeps it (``headers``, ``first_event``, ``gaps``) or as a scenario draws it:
the headers ``headers`` seconds after the request, the first event ``first_event``
seconds after them, each later one a gap later (the recorded ``gaps``, the last one
repeating, else ``1 / events_per_s``), every wait varied by up to ``jitter`` of itself
from ``seed`` (the same seed, the same waits) and divided by ``speed``. Without
``stream``, the headers as late and the message whole when its last event would have come.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Sequence

from harness.wire.faults.base import (
    WHOLE_STREAM,
    ByteFault,
    Fault,
    Hit,
    sampled,
    setting,
)
from harness.wire.faults.json_forms import JsonForm, Late
from harness.wire.plan import WirePlan

if TYPE_CHECKING:
    from hypothesis.strategies import SearchStrategy


@dataclass(frozen=True)
class Pace(ByteFault):
    """Each event's frame at its time; the bytes are the same, only when they come changes."""

    key = "pace"
    description = "The stream at a pace: the headers, the first event and each later one at their times."
    places = (WHOLE_STREAM,)
    role = "noise"

    first_event: float = setting(0.0, description="seconds from the headers to the first event", minimum=0)
    events_per_s: float = setting(0.0, description="later events a second (0: each with the one before)", minimum=0)
    jitter: float = setting(0.0, description="each wait varies by up to this share of itself", minimum=0, maximum=1)
    seed: int = setting(0, description="the jitter's seed: the same seed gives the same waits", minimum=0)
    headers: float = setting(0.0, description="seconds from the request to the headers", minimum=0)
    gaps: tuple[float, ...] = setting((), description="recorded seconds between later events (the last repeats)", minimum=0)
    speed: float = setting(1.0, description="how much faster than written: 2 halves every wait", minimum=0.001)

    def waits(self, events: int) -> tuple[float, list[float]]:
        """The wait before the headers and before each of ``events`` frames."""
        draw = random.Random(self.seed)

        def varied(seconds: float) -> float:
            return seconds * (1 + self.jitter * draw.uniform(-1, 1)) / self.speed

        step = 1 / self.events_per_s if self.events_per_s else 0.0
        later = [self.gaps[min(k, len(self.gaps) - 1)] if self.gaps else step for k in range(max(0, events - 1))]
        return varied(self.headers), [varied(gap) for gap in [self.first_event, *later][:events]]

    def apply(self, plan: WirePlan, frames: list[bytes]) -> None:
        plan.head_delay, plan.delays = self.waits(len(plan.chunks))

    def moved(self, events: int) -> Fault | None:
        return None if self.gaps else self  # recorded gaps belong to the recorded events

    def on_error_body(self, plan: WirePlan) -> None:
        plan.head_delay = self.waits(0)[0]

    def json_form(self, frames: list[bytes]) -> JsonForm:
        headers, delays = self.waits(len(frames))
        return Late(headers, sum(delays))

    def label(self) -> str | None:
        rate = f"{len(self.gaps)} recorded gaps" if self.gaps else f"{self.events_per_s:g} events/s"
        varied = f" ±{self.jitter:.0%}" if self.jitter else ""
        faster = f" ×{self.speed:g}" if self.speed != 1 else ""
        head = f"headers {self.headers:g}s, " if self.headers else ""
        return f"paced {head}first event {self.first_event:g}s, {rate}{varied}{faster}"

    def hits(self) -> list[Hit]:
        return [(self.key, WHOLE_STREAM)]

    @classmethod
    def strategy(cls, events: Sequence[dict], *, keep: Callable[[Fault], bool] | None = None) -> SearchStrategy[Fault]:
        from hypothesis import strategies as st

        seconds = sampled((0.0, 0.01, 0.5))
        return st.builds(cls, seconds, sampled((0.0, 20.0, 1000.0)), sampled((0.0, 0.5)), st.integers(0, 9))
