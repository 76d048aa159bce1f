"""How a run is reported, whether it ran here (``harness run``) or on N machines
(``harness report merge``): the summary table or ``--json`` on standard output, the
``--html`` and ``--junit`` files, and the exit code. Imports no SDK: a merge starts fast."""

from __future__ import annotations

import argparse
import datetime
import json
import os
from collections.abc import Sequence
from pathlib import Path

from harness.report.html import render_report
from harness.report.junit import junit_xml
from harness.report.table import counts, json_result, summary_lines
from harness.scenario.frontends.progress import EXIT_INTERRUPTED
from harness.scenario.frontends.results_file import RunResult
from harness.wire.files import write_atomically

SIGINT_NOTE = ("a Ctrl+C (SIGINT) arrived while this scenario ran and its agent met it: the scenario's own "
               "command may send one; if it was yours, press Ctrl+C again to stop the run")


def report_run(result: RunResult, args: argparse.Namespace, *, fixed: Sequence[str] = ()) -> int:
    """Print a run's table (or ``--json``), write its ``--html`` and ``--junit`` files; the
    exit code: 130 after Ctrl+C, 1 on a failure or when nothing ran, else 0."""
    records, stopped = result.records, result.stopped
    write_reports(args, result)
    if args.json:
        print(json.dumps({"scenarios": [json_result(r) for r in records], "passed": not counts(records)["fail"],
                          **({"interrupted": stopped} if stopped else {})}, indent=2))
    else:
        print("\n".join(summary_lines(records, repeat_notes=(SIGINT_NOTE,))))
        for file in fixed:
            print(f"  fixed: {file} passes now; write the baseline again (--write-baseline)")
        if stopped:
            print(f"\n{'interrupted' if result.interrupted else 'stopped'}: {stopped}")
    if result.interrupted:
        return EXIT_INTERRUPTED
    return 1 if counts(records)["fail"] or not records else 0


def run_title(paths: Sequence[str | Path], agent: str | None) -> str:
    """The reports' title: the command that ran (the same for every shard of a run)."""
    return f"harness run {' '.join(map(str, paths))}" + (f" --agent {agent}" if agent else "")


def write_reports(args: argparse.Namespace, result: RunResult) -> None:
    """The ``--html`` and ``--junit`` files, if asked for (written whole, then renamed)."""
    now = report_time()
    if getattr(args, "html", None):
        page = render_report(result.records, title=result.title, generated=now, base_dir=Path(args.html).parent,
                             interrupted=result.stopped)
        write_atomically(Path(args.html), page)
    if getattr(args, "junit", None):
        write_atomically(Path(args.junit), junit_xml(result.records, timestamp=now))


def report_time() -> str:
    """When the reports say they were made: now, or ``$SOURCE_DATE_EPOCH`` where it is set
    (the reproducible-builds convention: the same records give the same bytes)."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH", "")
    if epoch.isdigit():
        return datetime.datetime.fromtimestamp(int(epoch), datetime.timezone.utc).isoformat()
    return datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0).isoformat()
