"""The ``limits:`` of a scenario (or of ``harness serve --limits FILE``): the API's rate
limits as a model, which the fake API enforces with token buckets
(``harness.scenario.fake_api.rate_limits``).

    limits:
      requests_per_minute: 50          # RPM
      input_tokens_per_minute: 30000   # ITPM
      output_tokens_per_minute: 8000   # OTPM
      tokens_per_minute: 20000         # a workspace's limit on input and output together
      bucket_seconds: 60               # a bucket holds this many seconds of its rate
      output_counted: max_tokens       # or generated
      cache_reads_counted: false       # true for the older models (†) that count them
      acceleration: {window: 10, growth: 2, floor: 3}
      spend_cap: {after_requests: 3}   # or {usd: 0.25}: then every request gets the spend-cap 429

A limit not named is the one recorded answers of the real API show for a large
organisation (4,000 RPM, 2,000,000 ITPM, 400,000 OTPM): high enough never to be met.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields, is_dataclass
from pathlib import Path
from typing import Any

from harness.scenario.format.spec import Choice, Obj, Scalar
from harness.scenario.format.yaml_positions import load_checked
from harness.wire.errors import HarnessError

RATE = Scalar("number", "a rate limit, per minute", minimum=0.001)
ACCELERATION = Obj(
    {
        "window": Scalar("number", "seconds a window lasts", minimum=0.001),
        "growth": Scalar("number", "how many times the window before's requests a window may hold", minimum=1),
        "floor": Scalar("integer", "requests any window may hold, however quiet the one before", minimum=1),
    },
    required=("window",),
    what="acceleration",
    description="a sharp increase in usage refused with a 429: a window may hold at most max(floor, growth × the window before)",
)
SPEND_CAP = Obj(
    {
        "after_requests": Scalar("integer", "requests served before the cap is reached (an agent's side requests not counted)",
                                 minimum=0),
        "usd": Scalar("number", "what the answers served may cost before the cap is reached", minimum=0),
    },
    rules=(lambda cap: None if len(cap) == 1 else "a spend cap needs exactly one of: after_requests, usd",),
    what="spend_cap",
    description="the monthly spend cap: once reached, every request gets the 429 that retrying cannot change",
)
LIMITS_SPEC = Obj(
    {
        "requests_per_minute": RATE,
        "input_tokens_per_minute": RATE,
        "output_tokens_per_minute": RATE,
        "tokens_per_minute": Scalar("number", "a workspace's limit on input and output tokens together", minimum=0.001),
        "bucket_seconds": Scalar("number", "a bucket holds this many seconds of its rate (60 RPM as 1 a second: 1)",
                                 minimum=0.001),
        "output_counted": Choice(("max_tokens", "generated"), "output tokens charged from max_tokens when a request "
                                 "starts (then adjusted), or as they are generated"),
        "cache_reads_counted": Scalar("boolean", "cache reads count against input tokens (older models only)"),
        "acceleration": ACCELERATION,
        "spend_cap": SPEND_CAP,
    },
    what="limits",
    description="the API's rate limits as token buckets on the run's clock; every answer carries anthropic-ratelimit-* headers",
)


@dataclass(frozen=True)
class Acceleration:
    """At most ``max(floor, growth × the window before's requests)`` requests a window."""

    window: float
    growth: float = 2.0
    floor: int = 1


@dataclass(frozen=True)
class SpendCap:
    """Reached after ``after_requests`` requests of the scenario's conversation served (an
    agent's side requests are not its), or once the answers cost ``usd`` (theirs too)."""

    after_requests: int | None = None
    usd: float | None = None


@dataclass(frozen=True)
class Limits:
    """The rate limits a fake API enforces (see the module docstring)."""

    requests_per_minute: float = 4_000
    input_tokens_per_minute: float = 2_000_000
    output_tokens_per_minute: float = 400_000
    tokens_per_minute: float | None = None
    bucket_seconds: float = 60.0
    output_counted: str = "max_tokens"
    cache_reads_counted: bool = False
    acceleration: Acceleration | None = None
    spend_cap: SpendCap | None = None

    def to_yaml(self) -> dict[str, Any]:
        """The mapping a person would write: the fields that differ from the defaults."""
        written = {}
        for field in fields(self):
            value = getattr(self, field.name)
            if value != field.default:
                written[field.name] = {k: v for k, v in asdict(value).items() if v is not None} if is_dataclass(value) else value
        return written


def limits_from(data: dict[str, Any]) -> Limits:
    """A checked ``limits:`` mapping as Limits."""
    given = dict(data)
    if "acceleration" in given:
        given["acceleration"] = Acceleration(**given["acceleration"])
    if "spend_cap" in given:
        given["spend_cap"] = SpendCap(**given["spend_cap"])
    return Limits(**given)


class LimitsError(HarnessError, ValueError):
    """A limits file with mistakes; the message has one ``path:line:col: …`` line each."""


def load_limits(path: str | Path) -> Limits:
    """The limits in a file of their own (``harness serve --limits FILE``): the same
    mapping as a scenario's ``limits:``; LimitsError naming ``path:line:col``."""
    return limits_from(load_checked(path, LIMITS_SPEC, "limits", LimitsError))
