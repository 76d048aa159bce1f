"""Virtual time: every sleep is recorded and advances the clock; nothing really waits."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import Callable

# 2026-01-01T00:00:00Z: a fixed wall-clock origin, so HTTP-date headers are reproducible.
EPOCH_ORIGIN = 1_767_225_600.0


@dataclass
class VirtualClock:
    """A monotonic clock and a ``sleep`` that only moves it forward.

    Pass ``clock.sleep`` and ``clock.now`` wherever the code under test takes a
    sleep function and a clock; ``sleeps`` lists every delay asked for, ``sleep_times`` when each began.
    """

    now_seconds: float = 0.0
    wall_origin: float = EPOCH_ORIGIN  # the Unix time that ``now() == 0`` stands for
    sleeps: list[float] = field(default_factory=list)
    sleep_times: list[float] = field(default_factory=list)
    sleep_marks: list[int] = field(default_factory=list)
    marks: int = 0
    real_wall: Callable[[], float] | None = None  # the agent's own wall clock, which reads the dates it is served

    @classmethod
    def starting_now(cls, real_wall: Callable[[], float] = time.time) -> VirtualClock:
        """A clock for a run an agent takes part in: its wall clock starts at the real time,
        in whole seconds, so an HTTP date the agent is served (a ``retry-after``, a rate
        limit's reset) means to the agent's own clock (``time.time()``, as the SDK reads
        one) what it means to the run. A scenario writes its dates from ``EPOCH_ORIGIN``;
        the fake API moves them by as much. Real time the run does not count makes the
        agent's clock (``real_wall``) run ahead of it."""
        return cls(wall_origin=float(int(real_wall())), real_wall=real_wall)

    def now(self) -> float:
        """Seconds since the clock started."""
        return self.now_seconds

    def mark(self) -> int:
        """A number that grows with every call: orders things that share a time."""
        self.marks += 1
        return self.marks

    def wall(self) -> float:
        """Unix time that corresponds to ``now()`` (for HTTP dates)."""
        return self.wall_origin + self.now_seconds

    def sleep(self, seconds: float) -> None:
        """Record the delay and advance time by it."""
        seconds = max(0.0, float(seconds))
        self.sleep_times.append(self.now_seconds)
        self.sleep_marks.append(self.mark())
        self.sleeps.append(seconds)
        self.now_seconds += seconds

    async def async_sleep(self, seconds: float) -> None:
        """The same, for async agents."""
        self.sleep(seconds)

    def advance(self, seconds: float) -> None:
        """Let time pass without a sleep (a slow server, a stall)."""
        self.now_seconds += max(0.0, float(seconds))


class RealClock:
    """Real time, with the methods of ``VirtualClock``: for sessions against a real server."""

    def now(self) -> float:
        return time.monotonic()

    def wall(self) -> float:
        return time.time()

    def sleep(self, seconds: float) -> None:
        time.sleep(max(0.0, float(seconds)))

    async def async_sleep(self, seconds: float) -> None:
        await asyncio.sleep(max(0.0, float(seconds)))
