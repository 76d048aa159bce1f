"""A long session checked request after request: a tool-using conversation growing by two
messages a request, to 1,000 messages over 500 requests, each request's body parsed afresh
from its bytes (as a server reads it) outside the timing.

    incremental   ConversationChecker (what the fake API, ``harness serve`` and
                  ``check-history`` on JSON Lines use), given each request's bytes:
                  every request, in order
    whole         check_request on every request: O(N²), for comparison
    last          check_request on the last request once (median of rounds)

The target is on incremental over last. Its floor is 1.0: every message read once and
nothing else. Beyond its new messages, a request costs the comparison of the bytes it
shares with the previous request (a ``memcmp``), timed alone as ``compare``, and what
every request costs whatever its length (its fields and tools checked, states kept).
Every request's two verdicts are compared (they must be the same).
"""

from __future__ import annotations

import gc
import json
import statistics
import time
from typing import Any

from harness.oracle import check_request
from harness.oracle.conversations import ConversationChecker
from harness.wire import json_body

from . import workload
from .library import n_of

MESSAGES = 1000
REQUESTS = 500
BATCH = 25  # requests parsed ahead and timed together
TAIL = 200  # bytes short of the previous body: about where its last message begins


def measure(scale: float) -> dict[str, Any]:
    """The three totals, their ratios to the last request checked once, and whether every
    verdict agreed; ``scale`` < 1 shortens the session (a smoke run). Requests are parsed a
    batch at a time, outside the timing, and kept until it is over (freeing a parsed body
    is not checking it)."""
    size = MESSAGES if scale >= 0.25 else max(20, int(MESSAGES * scale))
    history = workload.history(size)
    step = size // REQUESTS if size >= REQUESTS * 2 else 2
    raws = [json.dumps(_body(history[:n])).encode() for n in range(step, size + 1, step)]
    checker = ConversationChecker()
    totals = dict.fromkeys(("incremental", "whole", "compare"), 0.0)
    verdicts: list[Any] = []
    for first in range(0, len(raws), BATCH):
        batch = raws[first:first + BATCH]
        bodies = [json_body.loads(raw) for raw in batch]
        totals["incremental"] += _timed(lambda: verdicts.extend(  # noqa: B023 -- this batch
            checker.check_request(body, content=raw) for body, raw in zip(bodies, batch, strict=True)))  # noqa: B023
        again = [json_body.loads(raw) for raw in batch]
        totals["whole"] += _timed(lambda: [check_request(body) for body in again])  # noqa: B023
        same = all(verdicts[first + i] == check_request(body) for i, body in enumerate(again))
        previous = raws[first - 1:first + len(batch) - 1] if first else [b"", *batch[:-1]]
        totals["compare"] += _timed(lambda: [raw.startswith(memoryview(old)[:len(old) - TAIL])  # noqa: B023
                                             for raw, old in zip(batch, previous, strict=True)])  # noqa: B023
    last_body = json_body.loads(raws[-1])
    last = statistics.median(_timed(lambda: check_request(last_body)) for _ in range(n_of(15, scale)))
    return {
        "messages": size, "requests": len(raws), "identical_verdicts": same and len(verdicts) == len(raws),
        "ms": {name: round(seconds * 1e3, 2) for name, seconds in totals.items()} | {"last_once": round(last * 1e3, 3)},
        "incremental_over_last": round(totals["incremental"] / last, 2),
        "whole_over_last": round(totals["whole"] / last, 1),
        "floor_over_last": 1.0,
        "compare_over_last": round(totals["compare"] / last, 2),
    }


def _body(messages: list[dict[str, Any]]) -> dict[str, Any]:
    """The bench's request (its model, system prompt and tools) with these messages."""
    return {**workload.REQUEST, "messages": messages}


def _timed(fn: Any) -> float:
    """Wall seconds of ``fn()``, the garbage collector off (CPU time is too coarse here for
    a batch of a few milliseconds)."""
    gc.collect()
    gc.disable()
    try:
        started = time.perf_counter()
        fn()
        return time.perf_counter() - started
    finally:
        gc.enable()
