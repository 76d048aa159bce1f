"""``harness run``: run scenario files, one after another or in forked workers
(``--jobs``), show progress, print a summary table (or ``--json``), write the HTML
report (``--html``) and JUnit XML (``--json``'s sibling for CI, ``--junit``); Ctrl+C
stops after the scenario running and still reports what ran (exit 130). ``--shard K/N``
runs one machine's part of the files (``shards``) and ``--results FILE`` keeps what it
found for ``harness report merge`` (``results_file``), which reports N parts as this
command reports one run. The arguments are parsed in ``harness.cli``."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from harness.library import SCENARIOS
from harness.scenario.checks.golden import UPDATE_VARIABLE
from harness.scenario.format.library import scenario_files
from harness.scenario.format.loader import load_scenario
from harness.scenario.format.model import ScenarioError
from harness.scenario.frontends.durations import (
    durations_file,
    longest_first,
    read_durations,
    record_durations,
)
from harness.scenario.frontends.progress import CtrlC, Progress
from harness.scenario.frontends.results_file import RunResult, write_results
from harness.scenario.frontends.run_report import SIGINT_NOTE, report_run, run_title
from harness.scenario.frontends.selection import (
    apply_baseline,
    last_failed,
    read_baseline,
    remember_failures,
    select,
    write_baseline,
)
from harness.scenario.frontends.shards import shard_of
from harness.scenario.frontends.workers import run_in_workers
from harness.scenario.run.results import scenario_record
from harness.scenario.run.runner import run_scenario


def cmd_run(args: argparse.Namespace) -> int:
    if not args.update_golden:
        return _run(args)
    if args.agent:
        print("harness run: --update-golden writes mini_agent's REPL transcripts; with --agent none is checked "
              "or written (run it without --agent)", file=sys.stderr)
    before = os.environ.get(UPDATE_VARIABLE)
    os.environ[UPDATE_VARIABLE] = "1"  # the workers read it too
    try:
        return _run(args)
    finally:  # a run in process (a test, a caller's script) leaves the environment as it found it
        if before is None:
            del os.environ[UPDATE_VARIABLE]
        else:
            os.environ[UPDATE_VARIABLE] = before


def _run(args: argparse.Namespace) -> int:
    baseline = read_baseline(args.baseline) if args.baseline else None
    args.paths = [*(args.paths or ([] if args.library else ["scenarios"])), *([SCENARIOS] if args.library else [])]
    selected = select(scenario_files(args.paths), args.keyword)
    durations = durations_file(args.durations)
    files = selected
    if args.shard:
        files = [selected[i] for i in shard_of([str(f) for f in selected], read_durations(durations), args.shard)]
    assigned = files
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
        if ctrl_c.presses > before and record["result"] in ("fail", "broken"):  # the scenario's own SIGINT, or the user's
            record["notes"] = [*record["notes"], SIGINT_NOTE]
        return record

    def enough(records: list[dict[str, Any]]) -> bool:  # --maxfail
        return bool(args.maxfail) and sum(r["result"] in ("fail", "broken") for r in records) >= args.maxfail

    if jobs > 1:
        order = longest_first([str(f) for f in files], read_durations(durations))  # the slow ones start first
        records, interrupted = run_in_workers(files, run_one, progress, jobs, stop=enough, order=order)
    else:
        records, interrupted = run_in_order(files, run_one, progress, stop=enough)
    progress.close()
    stopped = f"Ctrl+C after {len(records)} of {len(files)} scenario file(s); the rest did not run" if interrupted else None
    if not interrupted and enough(records) and len(records) < len(files):
        stopped = f"--maxfail {args.maxfail}: stopped after {len(records)} of {len(files)} scenario file(s)"
    remember_failures(args.agent, records)
    if not args.shard:  # every shard of a run must read the same durations: the merge writes the next ones
        record_durations(durations, {r["file"]: r["wall_ms"] / 1000 for r in records})
    if args.write_baseline:
        write_baseline(Path(args.write_baseline), records)
    fixed = apply_baseline(records, baseline) if baseline is not None else []
    result = RunResult(run_title(args.paths, args.agent), args.agent, [str(f) for f in selected], args.shard or (1, 1),
                       [str(f) for f in assigned], records, stopped, interrupted)
    if args.results:
        write_results(Path(args.results), result)
    return report_run(result, args, fixed=fixed)


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


def cmd_play(args: argparse.Namespace) -> int:
    outcome = run_scenario(load_scenario(args.scenario), agent=args.agent, write=lambda text: print(text, end="", flush=True))
    print(f"\n{len(outcome.requests)} requests, {outcome.virtual_seconds:.1f}s of virtual time")
    for problem in outcome.problems:
        print(f"✗ {problem}")
    return 1 if outcome.problems else 0
