"""``harness report merge RESULTS…``: the results files of N shards (``harness run --shard
K/N --results FILE``) reported as one run: the table (or ``--json``), ``--html`` and
``--junit`` that one machine running every file would have printed and written, and the
same exit code. ``--durations FILE`` keeps every file's time, for the next run's shards
to balance by."""

from __future__ import annotations

import argparse
from pathlib import Path

from harness.scenario.frontends.durations import record_durations
from harness.scenario.frontends.results_file import merge_results, read_results
from harness.scenario.frontends.run_report import report_run


def cmd_merge(args: argparse.Namespace) -> int:
    result = merge_results([read_results(Path(path)) for path in args.results])
    if args.durations:
        record_durations(Path(args.durations), {r["file"]: r["wall_ms"] / 1000 for r in result.records})
    return report_run(result, args)
