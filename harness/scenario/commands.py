"""The scenario commands of ``harness``: lint, play, events and schema (the arguments are
parsed in ``harness.cli``; ``run`` is in ``harness.report.commands``)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Callable

from harness.scenario.event_listing import list_events
from harness.scenario.format import json_schema
from harness.scenario.forms import stream_only_notes
from harness.scenario.library import scenario_files
from harness.scenario.loader import load_scenario
from harness.scenario.model import ScenarioError
from harness.scenario.runner import run_scenario


def cmd_lint(args: argparse.Namespace) -> int:
    problems: list[str] = []
    notes: list[str] = []
    files = scenario_files(args.paths)
    for path in files:
        try:
            notes += stream_only_notes(load_scenario(path))
        except ScenarioError as error:
            problems += error.problems
    for line in problems + notes:
        print(line)
    print(f"{len(files)} file(s), {len(problems)} problem(s), {len(notes)} note(s)")
    return 1 if problems else 0


def cmd_play(args: argparse.Namespace) -> int:
    outcome = run_scenario(load_scenario(args.scenario), agent=args.agent, write=live(sys.stdout.write))
    print(f"\n{len(outcome.requests)} requests, {outcome.virtual_seconds:.1f}s of virtual time")
    for problem in outcome.problems:
        print(f"✗ {problem}")
    return 1 if outcome.problems else 0


def cmd_events(args: argparse.Namespace) -> int:
    scenario = load_scenario(args.scenario, positions=False)  # a fault aimed past its reply is shown, not refused
    print(list_events(scenario, turn=args.turn, reply=args.reply))
    return 0


def cmd_schema(args: argparse.Namespace) -> int:
    text = json.dumps(json_schema(), indent=2) + "\n"
    if args.output:
        Path(args.output).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0


def live(write: Callable[[str], object]) -> Callable[[str], None]:
    def emit(text: str) -> None:
        write(text)
        sys.stdout.flush()

    return emit
