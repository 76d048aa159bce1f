"""The token bucket the API rate-limits with, and its headers as the API writes them.

"The API uses the token bucket algorithm to do rate limiting. This means that your
capacity is continuously replenished up to your maximum limit, rather than being reset
at fixed intervals" (platform.claude.com/docs/en/api/rate-limits). A bucket holds
``bucket_seconds`` of its rate (a minute's worth by default; "a rate of 60 requests per
minute (RPM) may be enforced as 1 request per second" is ``bucket_seconds: 1``), and at
least one request.

The headers (the same page, and recorded answers of the real API):

    anthropic-ratelimit-{requests,input-tokens,output-tokens,tokens}-limit      the limit, per minute
    anthropic-ratelimit-{…}-remaining   what is left; tokens "rounded to the nearest thousand"
    anthropic-ratelimit-{…}-reset       "the time when the … rate limit will be fully
                                        replenished, provided in RFC 3339 format":
                                        2025-11-15T00:56:36Z, to the second

"The anthropic-ratelimit-tokens-* headers display the values for the most restrictive
limit currently in effect. […] If Workspace limits do not apply, the headers will return
the total tokens remaining, where total is the sum of input and output tokens." Recorded
answers show the sums (limit 2,400,000 = 2,000,000 input + 400,000 output) and the
earlier of the two resets.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass


@dataclass
class Bucket:
    """``capacity`` units, refilled at ``limit`` a minute, continuously; ``level`` at ``at``."""

    limit: float
    capacity: float
    level: float
    at: float

    @classmethod
    def full(cls, per_minute: float, bucket_seconds: float, now: float, *, least: float = 1.0) -> Bucket:
        capacity = max(per_minute * bucket_seconds / 60, least)
        return cls(per_minute, capacity, capacity, now)

    def refill(self, now: float) -> None:
        """Bring ``level`` up to ``now``."""
        if now > self.at:
            self.level = min(self.capacity, self.level + (now - self.at) * self.limit / 60)
            self.at = now

    def wait_for(self, cost: float, now: float) -> float:
        """Seconds until ``cost`` fits (a cost over the capacity: until the bucket is full)."""
        self.refill(now)
        return max(0.0, min(cost, self.capacity) - self.level) * 60 / self.limit

    def take(self, cost: float, now: float) -> None:
        self.refill(now)
        self.level -= cost

    def give_back(self, amount: float, now: float) -> None:
        self.refill(now)
        self.level = min(self.capacity, self.level + amount)

    def full_in(self, now: float) -> float:
        """Seconds until the bucket is full again."""
        self.refill(now)
        return max(0.0, self.capacity - self.level) * 60 / self.limit


def rfc3339(unix: float) -> str:
    """``2025-11-15T00:56:36Z``: RFC 3339, UTC, to the second."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(math.floor(unix)))


def nearest_thousand(tokens: float) -> int:
    """Tokens as the headers give them: rounded to the nearest thousand, never below 0."""
    return max(0, math.floor(tokens / 1000 + 0.5) * 1000)


def number(value: float) -> str:
    """A limit as a header writes it: a whole number where it is one."""
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def family(name: str, limit: float, remaining: int, reset: float) -> dict[str, str]:
    """The three headers of one family (``requests``, ``input-tokens`` …)."""
    prefix = f"anthropic-ratelimit-{name}"
    return {f"{prefix}-limit": number(limit), f"{prefix}-remaining": str(remaining), f"{prefix}-reset": rfc3339(reset)}
