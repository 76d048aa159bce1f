"""``--shard K/N``: one of N machines' part of a run, the same on every machine.

The files (or pytest items) are dealt longest first, each to the shard with the least
recorded time so far (ties: the lower shard), by the durations every machine reads
(``durations``); each shard keeps its files in the run's order. Nothing is random and
nothing depends on the machine, so N machines given the same files and the same
durations split them the same way, every file in exactly one shard.

    files   a 1.0 s, b 0.6 s, c 0.3 s, d 0.2 s, e 0.2 s       N = 2
    dealt   a → 1   b → 2   c → 2   d → 2   e → 1
    shards  1/2: a, e (1.2 s)     2/2: b, c, d (1.1 s)
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping, Sequence

from harness.scenario.frontends.durations import weights


def shard_option(text: str) -> tuple[int, int]:
    """``--shard``: ``K/N``, the K-th of N shards, 1 ≤ K ≤ N."""
    index, _, count = text.partition("/")
    if not (index.isdigit() and count.isdigit() and 1 <= int(index) <= int(count)):
        raise argparse.ArgumentTypeError(f"{text!r}: expected K/N, the K-th of N shards (1/4 … 4/4)")
    return int(index), int(count)


def split(keys: Sequence[str], durations: Mapping[str, float], count: int) -> list[list[int]]:
    """``keys`` dealt into ``count`` shards: the indices of each, in the keys' order."""
    seconds = weights(keys, durations)
    loads = [0.0] * count
    shards: list[list[int]] = [[] for _ in range(count)]
    for index in sorted(range(len(keys)), key=lambda i: (-seconds[i], keys[i])):
        lightest = min(range(count), key=lambda s: (loads[s], s))
        shards[lightest].append(index)
        loads[lightest] += seconds[index]
    return [sorted(shard) for shard in shards]


def shard_of(keys: Sequence[str], durations: Mapping[str, float], shard: tuple[int, int]) -> list[int]:
    """The indices of ``keys`` in shard ``K/N``, in the keys' order."""
    index, count = shard
    return split(keys, durations, count)[index - 1]
