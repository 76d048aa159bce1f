"""Timing on a busy machine: contenders run side by side in one process, interleaved
round by round (the order rotates), each batch after a ``gc.collect()``.

Both clocks are kept: CPU time of this process (``time.process_time``, unaffected by
other processes taking the cores) and wall time. A ratio is the median over rounds of
the per-round ratio, so that slow and fast phases of the machine cancel out.
"""

from __future__ import annotations

import gc
import statistics
import time
from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import dataclass, field
from typing import ContextManager


@dataclass
class Samples:
    """Seconds per operation, one sample per round, on both clocks."""

    cpu: list[float] = field(default_factory=list)
    wall: list[float] = field(default_factory=list)

    def summary(self) -> dict[str, float]:
        """Median and minimum on both clocks, in microseconds."""
        return {
            "cpu_median_us": round(statistics.median(self.cpu) * 1e6, 1),
            "cpu_min_us": round(min(self.cpu) * 1e6, 1),
            "wall_median_us": round(statistics.median(self.wall) * 1e6, 1),
            "wall_min_us": round(min(self.wall) * 1e6, 1),
        }


def measure(
    fn: Callable[[], object], *, batch: int, around: Callable[[], ContextManager[object]] | None = None
) -> tuple[float, float]:
    """CPU and wall seconds per call of ``fn``, over one batch of ``batch`` calls; inside
    ``around()`` if given (entered and left outside the timing)."""
    with around() if around else nullcontext():
        gc.collect()
        cpu, wall = time.process_time(), time.perf_counter()
        for _ in range(batch):
            fn()
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    return cpu / batch, wall / batch


def interleaved(
    contenders: dict[str, Callable[[], object]],
    *,
    rounds: int,
    batch: int | dict[str, int],
    around: dict[str, Callable[[], ContextManager[object]]] | None = None,
    warmup: bool = True,
) -> dict[str, Samples]:
    """Every contender, ``rounds`` times, in rotating order (one warm-up batch each
    first); ``batch`` calls a batch (or a number per contender); ``around[name]`` is a
    context to run that contender's batches in."""
    names = list(contenders)
    batches = batch if isinstance(batch, dict) else dict.fromkeys(names, batch)
    around = around or {}
    for name in names if warmup else ():
        measure(contenders[name], batch=max(1, batches[name] // 4), around=around.get(name))
    samples = {name: Samples() for name in names}
    for r in range(rounds):
        for name in names[r % len(names) :] + names[: r % len(names)]:
            cpu, wall = measure(contenders[name], batch=batches[name], around=around.get(name))
            samples[name].cpu.append(cpu)
            samples[name].wall.append(wall)
    return samples


def ratio(numerator: Samples, denominator: Samples) -> dict[str, float]:
    """``numerator / denominator``: the median of per-round ratios, and min over min."""
    return {
        "cpu_median": round(statistics.median(n / d for n, d in zip(numerator.cpu, denominator.cpu)), 3),
        "cpu_min": round(min(numerator.cpu) / min(denominator.cpu), 3),
        "wall_median": round(statistics.median(n / d for n, d in zip(numerator.wall, denominator.wall)), 3),
    }


def repeat(fn: Callable[[], object], *, times: int) -> Samples:
    """``fn`` run ``times`` times, each timed alone (for things that take a while)."""
    samples = Samples()
    for _ in range(times):
        cpu, wall = measure(fn, batch=1)
        samples.cpu.append(cpu)
        samples.wall.append(wall)
    return samples
