"""The commands of ``harness`` about scenario files: lint, events and schema (the
arguments are parsed in ``harness.cli``; ``run`` and ``play`` are in
``harness.scenario.frontends.run``)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from harness.scenario.format.event_listing import list_events, pace_notes
from harness.scenario.format.forms import stream_only_notes
from harness.scenario.format.library import scenario_files
from harness.scenario.format.loader import load_scenario
from harness.scenario.format.model import ScenarioError
from harness.scenario.format.problem import Problem
from harness.scenario.format.schema import json_schema


def cmd_lint(args: argparse.Namespace) -> int:
    problems: list[Problem] = []
    notes: list[str] = []
    files = scenario_files(args.paths)
    for path in files:
        try:
            scenario = load_scenario(path)
            notes += stream_only_notes(scenario) + pace_notes(scenario)
        except ScenarioError as error:
            problems += error.problems
    for line in [*map(str, problems), *notes]:
        print(line)
    print(f"{len(files)} file(s), {len(problems)} problem(s), {len(notes)} note(s)")
    return 1 if problems else 0



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
