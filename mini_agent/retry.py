"""Layer 1, when to try again: backoff, retry-after, a count and a time budget.

Time, sleep and randomness are injected so that tests run on a virtual clock.
"""

from __future__ import annotations

import random as _random
import time
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from typing import Callable, Mapping


@dataclass
class RetryPolicy:
    """Exponential backoff with jitter, capped, bounded by count and total time.

    ``delay_for(attempt, retry_after)`` is the pause before retry number
    ``attempt`` (1-based): a server-given ``retry_after`` is honoured as is;
    otherwise ``base * 2**(attempt-1)``, capped at ``cap``, less up to
    ``jitter`` of it at random.
    """

    max_retries: int = 5
    budget: float = 120.0
    base: float = 1.0
    cap: float = 30.0
    jitter: float = 0.25
    random: Callable[[], float] = field(default=_random.random, repr=False)

    def delay_for(self, attempt: int, retry_after: float | None = None) -> float:
        """Seconds to wait before retry ``attempt``."""
        if retry_after is not None:
            return max(0.0, retry_after)
        backoff = min(self.cap, self.base * 2 ** (attempt - 1))
        return backoff * (1.0 - self.jitter * self.random())

    def gives_up(self, attempt: int, elapsed: float, delay: float) -> str | None:
        """Why retry ``attempt`` must not happen, or None if it may."""
        if attempt > self.max_retries:
            return f"gave up after {self.max_retries} retries"
        if elapsed + delay > self.budget:
            return f"retry budget of {self.budget:g}s would be exceeded"
        return None


def parse_retry_after(headers: Mapping[str, str], *, now: Callable[[], float] = time.time) -> float | None:
    """Seconds the server asks us to wait: ``retry-after-ms``, then
    ``retry-after`` as seconds or as an HTTP date; None when absent or unreadable."""
    millis = headers.get("retry-after-ms")
    if millis is not None:
        try:
            return max(0.0, float(millis) / 1000.0)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - now())
