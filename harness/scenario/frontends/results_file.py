"""A run's result as one JSON file (``harness run --results FILE``), and N of them read
back as the one run they are parts of (``harness report merge``).

    {"harness_results": 1,
     "title": "harness run scenarios",      the reports' title, as one machine names it
     "agent": null | "MODULE:FACTORY",
     "selected": [FILE, …],                  every file of the run, in its order (all shards)
     "shard": [K, N],                        [1, 1] for a run on one machine
     "assigned": [FILE, …],                  this shard's files (before --lf)
     "records": [RECORD, …],                 harness.scenario.run.results, as the reports read them
     "stopped": null | TEXT, "interrupted": false}

Merging checks that the parts are one run: the same files, agent and N, every shard
there once, every file in exactly one shard (two machines balancing by different
durations would split differently). The records come back in the run's order, so the
table, the HTML report and the JUnit file are those one machine would have written.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.wire.errors import HarnessError
from harness.wire.files import write_atomically

MARKER = "harness_results"
VERSION = 1
SHOWN = 3  # files named in a message, at most


class MergeError(HarnessError, ValueError):
    """Result files that are not the parts of one run."""


@dataclass(frozen=True)
class RunResult:
    """What one machine ran of a run, and what it found."""

    title: str
    agent: str | None
    selected: list[str]
    shard: tuple[int, int]
    assigned: list[str]
    records: list[dict[str, Any]]
    stopped: str | None = None
    interrupted: bool = False


def write_results(path: Path, result: RunResult) -> None:
    """``result`` as the results file ``path`` (written whole, then renamed)."""
    document = {MARKER: VERSION, "title": result.title, "agent": result.agent, "selected": result.selected,
                "shard": list(result.shard), "assigned": result.assigned, "records": result.records,
                "stopped": result.stopped, "interrupted": result.interrupted}
    write_atomically(Path(path), json.dumps(document, ensure_ascii=False) + "\n")


def read_results(path: Path) -> RunResult:
    """A results file, checked to be one."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as error:
        raise MergeError(f"{path}: cannot read it: {error}") from None
    except ValueError as error:
        raise MergeError(f"{path}: not JSON ({error}); write one with harness run --results FILE") from None
    if not isinstance(data, dict) or data.get(MARKER) != VERSION:
        raise MergeError(f"{path}: not a harness results file (version {VERSION}); write one with harness run --results FILE")
    try:
        return RunResult(str(data["title"]), data["agent"], list(data["selected"]), (int(data["shard"][0]), int(data["shard"][1])),
                         list(data["assigned"]), list(data["records"]), data["stopped"], bool(data["interrupted"]))
    except (KeyError, TypeError, ValueError, IndexError) as error:
        raise MergeError(f"{path}: a results file missing or mistyping {error}") from None


def merge_results(parts: Sequence[RunResult]) -> RunResult:
    """The one run ``parts`` are shards of: its records in the run's order."""
    if not parts:
        raise MergeError("no results to merge")
    first = parts[0]
    for part in parts[1:]:
        for what, said in (("selected", "the files they split"), ("agent", "the agent"), ("title", "the title")):
            if getattr(part, what) != getattr(first, what):
                raise MergeError(f"shards {_name(first.shard)} and {_name(part.shard)} are of different runs: {said} differ")
    count = first.shard[1]
    _every_shard_once(parts, count)
    _every_file_once(parts, first.selected)
    order = {file: index for index, file in enumerate(first.selected)}
    records = sorted((r for part in parts for r in part.records), key=lambda r: order.get(r["file"], len(order)))
    stops = [f"shard {_name(p.shard)}: {p.stopped}" if count > 1 else p.stopped for p in _by_shard(parts) if p.stopped]
    return RunResult(first.title, first.agent, first.selected, (1, 1), first.selected, records,
                     "; ".join(stops) or None, any(p.interrupted for p in parts))


def _every_shard_once(parts: Sequence[RunResult], count: int) -> None:
    seen = [p.shard for p in parts]
    if any(n != count for _, n in seen):
        raise MergeError(f"the results are shards of different splits: {', '.join(sorted({_name(s) for s in seen}))}")
    twice = sorted({_name(s) for s in seen if seen.count(s) > 1})
    if twice:
        raise MergeError(f"shard {', '.join(twice)} given more than once")
    missing = [f"{k}/{count}" for k in range(1, count + 1) if (k, count) not in seen]
    if missing:
        raise MergeError(f"shard {', '.join(missing)} missing: merge the results of all {count} shards")


def _every_file_once(parts: Sequence[RunResult], selected: list[str]) -> None:
    owners: dict[str, list[str]] = {}
    for part in _by_shard(parts):
        for file in part.assigned:
            owners.setdefault(file, []).append(_name(part.shard))
    twice = [f"{file} ({' and '.join(shards)})" for file, shards in owners.items() if len(shards) > 1]
    nowhere = [file for file in selected if file not in owners]
    if twice or nowhere:
        said = ([f"in two shards: {', '.join(twice[:SHOWN])}"] if twice else []) + (
            [f"in no shard: {', '.join(nowhere[:SHOWN])}"] if nowhere else [])
        raise MergeError(f"the shards split the run differently ({'; '.join(said)}): give every machine "
                         "the same durations file (harness run --durations FILE)")


def _by_shard(parts: Sequence[RunResult]) -> list[RunResult]:
    return sorted(parts, key=lambda p: p.shard)


def _name(shard: tuple[int, int]) -> str:
    return f"{shard[0]}/{shard[1]}"
