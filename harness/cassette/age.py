"""How old a cassette is, and whether it may still be trusted.

Every cassette the harness records says, in vcrpy's ``metadata`` block, when it was
made, with which SDK and harness, for which models (what a request body names, so it is
scrubbed like the rest), and the maximum age it was given, if any::

    metadata:
      harness:
        recorded_at: '2026-12-06T08:30:00Z'
        sdk: anthropic 2.17.0
        harness: 0.1.0
        models: [claude-opus-5-5]
        max_age: 30d

Only a recording that starts the cassette afresh (a new file, or record mode
``rewrite``) sets ``recorded_at``; adding to a cassette keeps it (the old interactions
are still in there), and reading one never touches it.

A maximum age is a number of seconds or a number with a unit: ``90s``, ``30m``, ``12h``,
``7d``, ``2w``. Several may apply to one cassette (its own, a folder's, a test's): the
strictest holds. An expired cassette is a warning on a developer's machine and a failure
in CI (``CI`` set), where nobody would see the warning; a cassette that says nothing of
its age cannot be judged, which is a warning everywhere.
"""

from __future__ import annotations

import datetime
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from harness.wire.errors import HarnessError

METADATA_KEY = "harness"
UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}
_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([smhdw]?)\s*$")


class AgeError(HarnessError, ValueError):
    """A maximum age that is not a duration, or a date that is not one."""


def parse_max_age(value: Any) -> float:
    """Seconds, from a number or a text such as ``7d``; AgeError naming the valid forms."""
    if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0:
        return float(value)
    match = _DURATION.match(value) if isinstance(value, str) else None
    if match is None or float(match.group(1)) <= 0:
        raise AgeError(f"max_age {value!r}: give a positive number of seconds, or one with a unit: 90s, 30m, 12h, 7d, 2w")
    return float(match.group(1)) * UNITS[match.group(2) or "s"]


def harness_version() -> str:
    """The installed harness's version, as its package says (``unknown`` in a bare checkout)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("agent-fault-harness")
    except PackageNotFoundError:
        return "unknown"


def in_ci() -> bool:
    """Whether this runs in CI (``CI`` set to anything but empty, ``0`` or ``false``)."""
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def stamp(*, models: Iterable[str], sdk: str, harness: str, now: datetime.datetime | None = None,
          max_age: Any = None) -> dict[str, Any]:
    """The metadata a fresh recording writes."""
    when = (now or datetime.datetime.now(datetime.timezone.utc)).astimezone(datetime.timezone.utc)
    found: dict[str, Any] = {
        "recorded_at": when.replace(microsecond=0).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "sdk": sdk, "harness": harness, "models": sorted(set(models)),
    }
    if max_age is not None:
        parse_max_age(max_age)
        found["max_age"] = max_age
    return found


def recorded_at(metadata: Mapping[str, Any] | None) -> datetime.datetime | None:
    """When a cassette was recorded, from its metadata (None when it does not say)."""
    info = (metadata or {}).get(METADATA_KEY)
    text = info.get("recorded_at") if isinstance(info, Mapping) else None
    if not isinstance(text, str):
        return None
    try:
        return datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError as error:
        raise AgeError(f"recorded_at {text!r} is not an ISO 8601 date and time: {error}") from None


@dataclass(frozen=True)
class Age:
    """A cassette's age against the strictest maximum that applies."""

    name: str
    seconds: float | None  # None: the cassette does not say when it was recorded
    max_seconds: float | None  # None: no maximum applies

    @property
    def expired(self) -> bool:
        return self.max_seconds is not None and self.seconds is not None and self.seconds > self.max_seconds

    @property
    def unknown(self) -> bool:
        return self.max_seconds is not None and self.seconds is None

    @property
    def fails(self) -> bool:
        """An expired cassette fails a run in CI; anything else is at most a warning."""
        return self.expired and in_ci()

    def message(self) -> str | None:
        """What to tell the user, or None when all is well."""
        if self.expired:
            return (f"{self.name}: the cassette is {_days(self.seconds)} old, more than its maximum age of "
                    f"{_days(self.max_seconds)}: record it again (--record-mode rewrite) or check it with harness drift")
        if self.unknown:
            return (f"{self.name}: a maximum age of {_days(self.max_seconds)} applies, but the cassette does not say "
                    "when it was recorded (recorded elsewhere, or before the harness noted it): record it again to know")
        return None


def age_of(name: str, metadata: Mapping[str, Any] | None, limits: Iterable[Any] = (),
           now: datetime.datetime | None = None) -> Age:
    """The age of a cassette against the strictest of ``limits`` and its own ``max_age``."""
    info = (metadata or {}).get(METADATA_KEY)
    own = info.get("max_age") if isinstance(info, Mapping) else None
    given = [parse_max_age(limit) for limit in [*limits, own] if limit is not None]
    when = recorded_at(metadata)
    current = now or datetime.datetime.now(datetime.timezone.utc)
    seconds = None if when is None else max(0.0, (current - when).total_seconds())
    return Age(name, seconds, min(given) if given else None)


def _days(seconds: float | None) -> str:
    if seconds is None:
        return "of unknown age"
    if seconds >= 2 * 86400:
        return f"{seconds / 86400:.0f} days"
    if seconds >= 2 * 3600:
        return f"{seconds / 3600:.0f} hours"
    return f"{seconds:.0f} seconds"
