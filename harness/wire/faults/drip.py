"""``drip: {chunk: n, delay: s}``: the body arrives n bytes at a time, s seconds apart
(the same for a JSON body)."""

from __future__ import annotations

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
from harness.wire.faults.json_forms import Drops, JsonForm
from harness.wire.plan import WirePlan, in_drops

if TYPE_CHECKING:
    from hypothesis.strategies import SearchStrategy


@dataclass(frozen=True)
class Drip(ByteFault):
    """The body in chunks of ``chunk`` bytes, ``delay`` seconds apart."""

    key = "drip"
    description = "The body arrives in small chunks, some time apart."
    places = (WHOLE_STREAM,)
    role = "noise"

    chunk: int = setting(16, description="bytes a chunk", minimum=1)
    delay: float = setting(0.05, description="seconds", minimum=0)

    def apply(self, plan: WirePlan, frames: list[bytes]) -> None:
        in_drops(plan, self.chunk, self.delay)

    def json_form(self, frames: list[bytes]) -> JsonForm:
        return Drops(self.chunk, self.delay)

    def label(self) -> str | None:
        return f"drip {self.chunk}B/{self.delay:g}s"

    def hits(self) -> list[Hit]:
        return [(self.key, WHOLE_STREAM)]

    @classmethod
    def strategy(cls, events: Sequence[dict], *, keep: Callable[[Fault], bool] | None = None) -> SearchStrategy[Fault]:
        from hypothesis import strategies as st

        return st.builds(cls, st.integers(7, 300), sampled((0.0, 0.001)))
