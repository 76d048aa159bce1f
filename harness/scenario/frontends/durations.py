"""Recorded durations: how long each scenario file (``harness run``) and each pytest item
took when it last ran, so that ``--shard K/N`` and pytest-xdist can balance by them.

    where     the file ``--durations FILE`` (``harness run``) or ``--harness-durations FILE``
              (pytest) names, else ``durations.json`` beside ``--lf``'s memory:
              ``$HARNESS_CACHE_DIR/durations.json`` or ``.harness_cache/durations.json``
    what      ``{"durations": {KEY: seconds}}``, KEY a scenario file as ``harness run``
              names it, or a pytest node id
    written   after every run but a shard's (what ran gets its new time, the rest keep
              theirs), and by ``harness report merge --durations FILE`` for a whole run
    used      ``--shard K/N`` deals by them (``shards``); ``harness run --jobs`` and
              pytest-xdist hand the slow ones out first (``longest_first``)
    without   nothing is known: every file or item weighs the same (``weights``), and
              the order is the collection's

Shards of one run must balance by the same numbers, or a file runs on two machines and
another on none (``harness report merge`` says so): every machine reads one file, committed
or restored from CI's cache, and the merge step writes the next one (``merge --durations``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path

from harness.scenario.frontends.selection import cache_file, write_cache

FILE_NAME = "durations.json"
UNKNOWN_S = 1.0  # what a file weighs when nothing at all is known


def durations_file(named: str | Path | None = None) -> Path:
    """The durations file: the one ``named``, else the one beside ``--lf``'s memory."""
    return Path(named) if named else cache_file().with_name(FILE_NAME)


def read_durations(path: Path) -> dict[str, float]:
    """The recorded seconds of each key (empty when the file is missing or unreadable)."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    known = data.get("durations") if isinstance(data, dict) else None
    if not isinstance(known, dict):
        return {}
    return {str(k): float(v) for k, v in known.items() if isinstance(v, (int, float)) and v >= 0}


def record_durations(path: Path, measured: Mapping[str, float]) -> None:
    """Keep ``measured`` (seconds by key) in the durations file, over what it knew."""
    if not measured:
        return
    known = read_durations(path) | {key: round(seconds, 3) for key, seconds in measured.items()}
    write_cache(Path(path), json.dumps({"durations": dict(sorted(known.items()))}, indent=0) + "\n")


def weights(keys: Sequence[str], durations: Mapping[str, float]) -> list[float]:
    """Each key's recorded seconds; a key never recorded weighs the mean of those that
    were (``UNKNOWN_S`` when none was)."""
    known = [durations[k] for k in keys if k in durations]
    unknown = sum(known) / len(known) if known else UNKNOWN_S
    return [durations.get(k, unknown) for k in keys]


SLOW_SHARE = 0.01  # an item slow enough to go first takes at least this share of the recorded whole


def longest_first(keys: Sequence[str], durations: Mapping[str, float]) -> list[int]:
    """The order to hand ``keys`` out in: those that took at least ``SLOW_SHARE`` of the
    recorded whole first, longest first, then the rest in their own order (so that
    neighbours sharing a fixture stay neighbours)."""
    total = sum(durations.get(k, 0.0) for k in keys)
    slow = sorted((i for i, k in enumerate(keys) if total and durations.get(k, 0.0) >= SLOW_SHARE * total),
                  key=lambda i: (-durations[keys[i]], i))
    first = set(slow)
    return slow + [i for i in range(len(keys)) if i not in first]
