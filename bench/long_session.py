"""A long session checked request after request: a tool-using conversation growing by two
messages a request (the model's tool call and its result), to 999 messages over 500
requests, each ending with the user's message as an agent's requests do; each request's
body parsed afresh from its bytes (as a server reads it) outside the timing.

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

MESSAGES = 999  # 500 requests of 1, 3 … 999 messages
BATCH = 25  # requests whose parsed bodies are kept at once
TAIL = 200  # bytes short of the previous body: about where its last message begins


def measure(scale: float) -> dict[str, Any]:
    """The three totals, their ratios to the last request checked once, and whether every
    verdict agreed; ``scale`` < 1 shortens the session (a smoke run). Each request is parsed
    just before it is checked, as a server does, outside the timing; the parsed bodies are
    kept for a batch of requests, so that freeing them is not timed either."""
    size = MESSAGES if scale >= 0.25 else max(21, int(MESSAGES * scale))
    history = workload.history(size)
    raws = [json.dumps(_body(history[:n])).encode() for n in range(1, size + 1, 2)]
    checker = ConversationChecker()
    incremental, verdicts = _each(raws, lambda body, raw: checker.check_request(body, content=raw))
    whole, expected = _each(raws, lambda body, raw: check_request(body))
    before = dict(zip(raws, [b"", *raws[:-1]], strict=True))  # each request's previous one (hashed here, not timed)
    compare, _ = _each(raws, lambda body, raw: raw.startswith(memoryview(before[raw])[:len(before[raw]) - TAIL]))
    last_body = json_body.loads(raws[-1])
    last = statistics.median(_timed(lambda: check_request(last_body)) for _ in range(n_of(15, scale)))
    return {
        "messages": size, "requests": len(raws), "identical_verdicts": verdicts == expected,
        "ms": {"incremental": round(incremental * 1e3, 2), "whole": round(whole * 1e3, 1),
               "compare": round(compare * 1e3, 2), "last_once": round(last * 1e3, 3)},
        "incremental_over_last": round(incremental / last, 2),
        "whole_over_last": round(whole / last, 1),
        "floor_over_last": 1.0,
        "compare_over_last": round(compare / last, 2),
    }


def _each(raws: list[bytes], check: Any) -> tuple[float, list[Any]]:
    """Seconds of ``check(body, raw)`` over every request, each parsed just before (as a
    server parses a request, then checks it) outside the timing, and what it answered.
    The parsed bodies are kept for a batch of requests, so that freeing them is not timed."""
    seconds, answers, kept = 0.0, [], []
    gc.disable()
    try:
        for raw in raws:
            body = json_body.loads(raw)
            kept.append(body)
            started = time.perf_counter()
            answers.append(check(body, raw))
            seconds += time.perf_counter() - started
            if len(kept) == BATCH:
                kept.clear()
                gc.collect()
    finally:
        gc.enable()
    return seconds, answers


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
