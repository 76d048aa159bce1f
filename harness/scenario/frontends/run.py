"""``harness run``: run scenario files, one after another or in forked workers
(``--jobs``), show progress, print a summary table (or ``--json``), write the HTML
report (``--html``) and JUnit XML (``--json``'s sibling for CI, ``--junit``); Ctrl+C
stops after the scenario running and still reports what ran (exit 130). The arguments
are parsed in ``harness.cli``."""

from __future__ import annotations

import argparse
import contextlib
import datetime
import json
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from harness.library import SCENARIOS
from harness.report.html import render_report
from harness.report.junit import junit_xml
from harness.report.table import counts, json_result, summary_lines
from harness.scenario.checks.golden import UPDATE_VARIABLE
from harness.scenario.format.library import scenario_files
from harness.scenario.format.loader import load_scenario
from harness.scenario.format.model import ScenarioError
from harness.scenario.frontends.progress import EXIT_INTERRUPTED, CtrlC, Progress
from harness.scenario.frontends.selection import (
    apply_baseline,
    last_failed,
    read_baseline,
    remember_failures,
    select,
    write_baseline,
)
from harness.scenario.frontends.workers import run_in_workers
from harness.scenario.run.results import scenario_record
from harness.scenario.run.runner import run_scenario
from harness.wire.files import write_atomically


def cmd_run(args: argparse.Namespace) -> int:
    if args.update_golden:
        os.environ[UPDATE_VARIABLE] = "1"
    baseline = read_baseline(args.baseline) if args.baseline else None
    args.paths = [*(args.paths or ([] if args.library else ["scenarios"])), *([SCENARIOS] if args.library else [])]
    files = select(scenario_files(args.paths), args.keyword)
    if args.last_failed:
        failed = last_failed(args.agent)
        if any(str(f) in failed for f in files):
            files = [f for f in files if str(f) in failed]
        else:
            print("harness run: no failures known from the last run: running all", file=sys.stderr)
    jobs = min(args.jobs, len(files))
    progress = Progress(len(files))
    progress.enabled = bool(args.progress) or sys.stderr.isatty()

    def run_one(path: Path, ctrl_c: CtrlC) -> dict[str, Any] | None:
        before = ctrl_c.presses
        with contextlib.redirect_stdout(sys.stderr) if args.json else contextlib.nullcontext():
            record = run_file(path, args.agent)  # an agent's prints must not break the JSON
        if ctrl_c.presses - before > 1:
            return None  # pressed twice: the user's, whatever the scenario sends
        if ctrl_c.presses > before and record["result"] != "pass":  # the scenario's own SIGINT, or the user's
            record["notes"] = [*record["notes"], SIGINT_NOTE]
        return record

    def enough(records: list[dict[str, Any]]) -> bool:  # --maxfail
        return bool(args.maxfail) and sum(r["result"] in ("fail", "broken") for r in records) >= args.maxfail

    if jobs > 1:
        records, interrupted = run_in_workers(files, run_one, progress, jobs, stop=enough)
    else:
        records, interrupted = run_in_order(files, run_one, progress, stop=enough)
    progress.close()
    stopped = f"Ctrl+C after {len(records)} of {len(files)} scenario file(s); the rest did not run" if interrupted else None
    if not interrupted and enough(records) and len(records) < len(files):
        stopped = f"--maxfail {args.maxfail}: stopped after {len(records)} of {len(files)} scenario file(s)"
    remember_failures(args.agent, records)
    if args.write_baseline:
        write_baseline(Path(args.write_baseline), records)
    fixed = apply_baseline(records, baseline) if baseline is not None else []
    write_reports(args, records, stopped)
    if args.json:
        print(json.dumps({"scenarios": [json_result(r) for r in records], "passed": not counts(records)["fail"],
                          **({"interrupted": stopped} if stopped else {})}, indent=2))
    else:
        print("\n".join(summary_lines(records, repeat_notes=(SIGINT_NOTE,))))
        for file in fixed:
            print(f"  fixed: {file} passes now; write the baseline again (--write-baseline)")
        if stopped:
            print(f"\n{'interrupted' if interrupted else 'stopped'}: {stopped}")
    if interrupted:
        return EXIT_INTERRUPTED
    return 1 if counts(records)["fail"] or not records else 0



def run_in_order(
    files: list[Path], run_one: Callable[[Path, CtrlC], dict[str, Any] | None], progress: Progress,
    *, stop: Callable[[list[dict[str, Any]]], bool] = lambda records: False,
) -> tuple[list[dict[str, Any]], bool]:
    """Run ``files`` one after another in this process, until ``stop(records)``; the
    records of those that ran, and whether Ctrl+C stopped the run (it stops after the
    scenario running)."""
    records: list[dict[str, Any]] = []
    with CtrlC() as ctrl_c:
        try:
            for path in files:
                if stop(records):
                    break
                progress.started(str(path))
                record = run_one(path, ctrl_c)
                if record is None:
                    return records, True
                records.append(record)
                progress.finished(str(path), record["result"], record["wall_ms"] / 1000)
        except KeyboardInterrupt:
            return records, True
    return records, False


SIGINT_NOTE = ("a Ctrl+C (SIGINT) arrived while this scenario ran and its agent met it: the scenario's own "
               "command may send one; if it was yours, press Ctrl+C again to stop the run")


def run_file(path: Path, agent: str | None) -> dict[str, Any]:
    """Run one scenario file; its record (a file with mistakes is ``broken``)."""
    started = time.perf_counter()
    scenario = None
    try:
        scenario = load_scenario(path)
        outcome = run_scenario(scenario, agent=agent)
        record = scenario_record(path, outcome, outcome.problems, (time.perf_counter() - started) * 1000)
        record["agent"] = record["agent"] or agent  # an agent with no harness_agent_name: its MODULE:FACTORY
        return record
    except ScenarioError as error:
        return scenario_record(path, None, error.problems, (time.perf_counter() - started) * 1000, scenario=scenario)


def write_reports(args: argparse.Namespace, records: list[dict[str, Any]], stopped: str | None) -> None:
    """The ``--html`` and ``--junit`` files, if asked for (written whole, then renamed)."""
    now = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)
    if getattr(args, "html", None):
        title = f"harness run {' '.join(map(str, args.paths))}" + (f" --agent {args.agent}" if args.agent else "")
        page = render_report(records, title=title, generated=now.isoformat(), base_dir=Path(args.html).parent,
                             interrupted=stopped)
        write_atomically(Path(args.html), page)
    if getattr(args, "junit", None):
        write_atomically(Path(args.junit), junit_xml(records, timestamp=now.isoformat()))


def cmd_play(args: argparse.Namespace) -> int:
    outcome = run_scenario(load_scenario(args.scenario), agent=args.agent, write=lambda text: print(text, end="", flush=True))
    print(f"\n{len(outcome.requests)} requests, {outcome.virtual_seconds:.1f}s of virtual time")
    for problem in outcome.problems:
        print(f"✗ {problem}")
    return 1 if outcome.problems else 0
