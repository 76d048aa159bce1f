"""The scenario commands of ``harness``: run, lint, play and schema (the arguments are
parsed in ``harness.cli``)."""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any, Callable

from harness.scenario.event_listing import list_events
from harness.scenario.format import json_schema
from harness.scenario.golden import UPDATE_VARIABLE
from harness.scenario.library import scenario_files
from harness.scenario.loader import load_scenario
from harness.scenario.model import ScenarioError
from harness.scenario.outcome import Outcome
from harness.scenario.runner import run_scenario
from harness.scenario.timeline import format_timeline


def cmd_run(args: argparse.Namespace) -> int:
    if args.update_golden:
        os.environ[UPDATE_VARIABLE] = "1"
    results: list[dict[str, Any]] = []
    failures: list[str] = []
    notes: list[str] = []
    for path in scenario_files(args.paths):
        started = time.perf_counter()
        try:
            outcome: Outcome | None = run_scenario(load_scenario(path), agent=args.agent)
            problems = outcome.problems
        except ScenarioError as error:
            outcome, problems = None, error.problems
        elapsed = time.perf_counter() - started
        results.append(_result(path, outcome, problems, elapsed))
        if problems:
            failures.append(format_timeline(outcome) if outcome else "\n".join(problems))
        elif outcome is not None and outcome.notes:
            notes.append(f"{outcome.scenario.name}: " + "; ".join(outcome.notes))
    if args.json:
        print(json.dumps({"scenarios": results, "passed": not failures}, indent=2))
    else:
        _print_table(results)
        for note in notes:
            print(f"  note: {note}")
        for failure in failures:
            print("\n" + failure)
    return 1 if failures or not results else 0


def cmd_lint(args: argparse.Namespace) -> int:
    problems: list[str] = []
    files = scenario_files(args.paths)
    for path in files:
        try:
            load_scenario(path)
        except ScenarioError as error:
            problems += error.problems
    for problem in problems:
        print(problem)
    print(f"{len(files)} file(s), {len(problems)} problem(s)")
    return 1 if problems else 0


def cmd_play(args: argparse.Namespace) -> int:
    outcome = run_scenario(load_scenario(args.scenario), agent=args.agent, write=live(sys.stdout.write))
    print(f"\n{len(outcome.requests)} requests, {outcome.virtual_seconds:.1f}s of virtual time")
    for problem in outcome.problems:
        print(f"✗ {problem}")
    return 1 if outcome.problems else 0


def cmd_events(args: argparse.Namespace) -> int:
    print(list_events(load_scenario(args.scenario), turn=args.turn, reply=args.reply))
    return 0


def cmd_schema(args: argparse.Namespace) -> int:
    text = json.dumps(json_schema(), indent=2) + "\n"
    if args.output:
        Path(args.output).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0


def _result(path: Path, outcome: Outcome | None, problems: list[str], elapsed: float) -> dict[str, Any]:
    return {
        "file": str(path),
        "name": outcome.scenario.name if outcome else path.stem,
        "passed": not problems,
        "skipped": outcome.skipped if outcome else None,
        "requests": len(outcome.requests) if outcome else 0,
        "virtual_seconds": round(outcome.virtual_seconds, 3) if outcome else 0,
        "wall_ms": round(elapsed * 1000, 1),
        "problems": problems,
        "notes": outcome.notes if outcome else [],
        "not_checked": outcome.not_checked if outcome else [],
    }


def _print_table(results: list[dict[str, Any]]) -> None:
    width = max((len(r["name"]) for r in results), default=10)
    print(f"{'scenario'.ljust(width)}  result  requests  virtual s  wall ms  not checked")
    for r in results:
        verdict = "skip" if r["skipped"] else "pass" if r["passed"] else "FAIL"
        unseen = len(r["not_checked"]) or ""
        print(f"{r['name'].ljust(width)}  {verdict:6}  {r['requests']:8}  {r['virtual_seconds']:9.1f}  {r['wall_ms']:7.1f}  {unseen}")
    skipped = sum(bool(r["skipped"]) for r in results)
    passed = sum(r["passed"] and not r["skipped"] for r in results)
    failed = len(results) - passed - skipped
    unseen = sum(len(r["not_checked"]) for r in results)
    tail = f", {skipped} skipped (another agent's scenarios)" if skipped else ""
    tail += f"; {unseen} expectation(s) not checked (they need mini_agent's events)" if unseen else ""
    print(f"{passed} passed, {failed} failed{tail}")


def live(write: Callable[[str], object]) -> Callable[[str], None]:
    def emit(text: str) -> None:
        write(text)
        sys.stdout.flush()

    return emit
